"""The ``Optimizer`` base: parameter groups, zero_grad, closures, hooks, errors, and what a
step does to the autograd side of a parameter; each checked against PyTorch's behaviour."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg

ALL = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]


def _both(shape=(3,), value=1.0):
    return gg.full(shape, value, requires_grad=True), torch.full(shape, value, requires_grad=True)


@pytest.mark.parametrize("name", ALL)
def test_param_groups_have_torchs_keys_and_defaults(name: str) -> None:
    (p, q) = _both()
    ours = getattr(gg.optim, name)([p], lr=0.5)
    theirs = getattr(torch.optim, name)([q], lr=0.5)
    assert ours.defaults == theirs.defaults
    assert list(ours.param_groups[0]) == list(theirs.param_groups[0])
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", ALL)
def test_parameters_without_gradient_are_skipped(name: str) -> None:
    (p, q), (r, s) = _both(), _both((2,), 2.0)
    ours = getattr(gg.optim, name)([p, r], lr=0.1)
    theirs = getattr(torch.optim, name)([q, s], lr=0.1)
    p.grad, q.grad = gg.ones(3), torch.ones(3)
    ours.step()
    theirs.step()
    assert r.tolist() == [2.0, 2.0]
    assert [len(v) for v in ours.state.values()] == [len(v) for v in theirs.state.values()]
    assert (r in ours.state) == (s in theirs.state)
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6)


def test_named_parameters_keep_their_names() -> None:
    model = gg.nn.Linear(3, 2)
    reference = torch.nn.Linear(3, 2)
    ours = gg.optim.SGD(model.named_parameters(), lr=0.1)
    theirs = torch.optim.SGD(reference.named_parameters(), lr=0.1)
    assert ours.param_groups[0]["param_names"] == ["weight", "bias"]
    assert ours.state_dict()["param_groups"] == theirs.state_dict()["param_groups"]
    with pytest.raises(ValueError, match="all optimizer param groups should be with/without names"):
        ours.add_param_group({"params": [gg.zeros(1, requires_grad=True)]})


def test_add_param_group_takes_defaults_and_is_stepped() -> None:
    (p, q), (r, s) = _both(), _both((2,), 2.0)
    ours = gg.optim.SGD([p], lr=0.1, momentum=0.9)
    theirs = torch.optim.SGD([q], lr=0.1, momentum=0.9)
    ours.add_param_group({"params": r, "lr": 0.01})
    theirs.add_param_group({"params": s, "lr": 0.01})
    assert ours.param_groups[1] == {**theirs.param_groups[1], "params": [r]}
    for _ in range(3):
        for t in (p, r):
            t.grad = gg.ones_like(t)
        for t in (q, s):
            t.grad = torch.ones_like(t)
        ours.step()
        theirs.step()
    np.testing.assert_allclose(r.detach().numpy(), s.detach().numpy(), rtol=1e-6)


def test_adagrad_state_exists_before_the_first_step() -> None:
    # PyTorch's Adagrad builds its state in __init__ (sum filled with the initial value).
    p, q = _both()
    ours = gg.optim.Adagrad([p], initial_accumulator_value=0.25)
    theirs = torch.optim.Adagrad([q], initial_accumulator_value=0.25)
    assert ours.state[p]["sum"].tolist() == theirs.state[q]["sum"].tolist() == [0.25] * 3
    assert ours.state[p]["step"].item() == theirs.state[q]["step"].item() == 0.0


def test_zero_grad_sets_to_none_by_default() -> None:
    p, _ = _both()
    opt = gg.optim.SGD([p], lr=0.1)
    (p * p).sum().backward()
    opt.zero_grad()
    assert p.grad is None


def test_zero_grad_to_zeros_fills_the_same_tensor_in_place() -> None:
    for lib in (gg, torch):
        p = lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        (p * p).sum().backward()
        grad = p.grad
        opt.zero_grad(set_to_none=False)
        assert p.grad is grad
        assert p.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_zero_grad_detaches_a_gradient_that_has_a_graph() -> None:
    # backward(create_graph=True) leaves gradients with a grad_fn; zero_grad cuts them off.
    for lib in (gg, torch):
        p = lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        (p * p * p).sum().backward(create_graph=True)
        assert p.grad.grad_fn is not None
        opt.zero_grad(set_to_none=False)
        assert p.grad.grad_fn is None and not p.grad.requires_grad
        assert p.grad.tolist() == [0.0, 0.0, 0.0]


def test_step_records_nothing_in_the_graph_and_counts_a_version() -> None:
    p = gg.ones(3, requires_grad=True)
    opt = gg.optim.Adam([p], lr=0.1)
    (p * p).sum().backward()
    version = p._version
    opt.step()
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    assert p._version > version


def test_backward_through_a_graph_that_saved_the_stepped_parameter_fails_as_in_torch() -> None:
    for lib in (gg, torch):
        p = lib.ones(3, requires_grad=True)
        loss = (p * p).sum()
        opt = lib.optim.SGD([p], lr=0.1)
        p.grad = lib.ones(3)
        opt.step()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()


def test_closure_is_evaluated_with_grad_enabled_and_its_loss_returned() -> None:
    results = []
    for lib in (gg, torch):
        p = lib.tensor([1.0, -2.0], requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        seen = []

        def closure(lib=lib, p=p, opt=opt, seen=seen):
            seen.append(lib.is_grad_enabled())
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss

        losses = [opt.step(closure).item() for _ in range(5)]
        assert seen == [True] * 5
        results.append((losses, p.tolist()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_step_runs_under_no_grad() -> None:
    seen = []

    class Probe(gg.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

        def step(self, closure=None):
            seen.append(gg.is_grad_enabled())

    Probe([gg.zeros(1, requires_grad=True)]).step()
    assert seen == [False]
    assert gg.is_grad_enabled()


def test_step_hooks_run_in_order_and_can_replace_arguments() -> None:
    p = gg.ones(2, requires_grad=True)
    opt = gg.optim.SGD([p], lr=0.1)
    calls = []
    handles = [
        gg.optim.optimizer.register_optimizer_step_pre_hook(
            lambda o, args, kwargs: calls.append(("global pre", args, kwargs))
        ),
        opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", args, kwargs))),
        opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", args, kwargs))),
        gg.optim.optimizer.register_optimizer_step_post_hook(
            lambda o, args, kwargs: calls.append(("global post", args, kwargs))
        ),
    ]
    p.grad = gg.ones(2)
    opt.step()
    assert [c[0] for c in calls] == ["global pre", "pre", "post", "global post"]
    for handle in handles:
        handle.remove()
    calls.clear()

    # A pre-hook may hand the step a closure.
    closure_calls = []
    opt.register_step_pre_hook(
        lambda o, args, kwargs: ((), {"closure": lambda: closure_calls.append(1) or 7.0})
    )
    assert opt.step() == 7.0
    assert closure_calls == [1] and calls == []

    bad = gg.optim.SGD([gg.ones(1, requires_grad=True)], lr=0.1)
    bad.register_step_pre_hook(lambda o, args, kwargs: "nonsense")
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        bad.step()


def test_a_subclass_calling_its_parents_step_runs_hooks_once() -> None:
    class Clipped(gg.optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    p = gg.ones(2, requires_grad=True)
    opt = Clipped([p], lr=0.1)
    calls = []
    opt.register_step_post_hook(lambda o, a, k: calls.append(1))
    p.grad = gg.ones(2)
    opt.step()
    assert calls == [1]
    assert p.tolist() == pytest.approx([0.9, 0.9])


def test_optimizer_base_step_is_abstract() -> None:
    opt = gg.optim.Optimizer([gg.zeros(1, requires_grad=True)], {"lr": 0.1})
    with pytest.raises(NotImplementedError):
        opt.step()


def _both_raise(make, exception: type, message: str) -> None:
    """glassgrad raises ``exception`` with PyTorch's message, checked against PyTorch."""
    for lib in (torch, gg):
        with pytest.raises(exception, match=re.escape(message)):
            make(lib)


@pytest.mark.parametrize(
    "make, exception, message",
    [
        (lambda lib: lib.optim.SGD(lib.ones(2, requires_grad=True)), TypeError,
         "params argument given to the optimizer should be an iterable of Tensors or dicts"),
        (lambda lib: lib.optim.SGD([], lr=0.1), ValueError,
         "optimizer got an empty parameter list"),
        (lambda lib: lib.optim.SGD([{"params": {lib.ones(2, requires_grad=True)}}], lr=0.1),
         TypeError,
         "optimizer parameters need to be organized in ordered collections"),
        (lambda lib: lib.optim.SGD([1.0], lr=0.1), TypeError,
         "optimizer can only optimize Tensors, but one of the params is float"),
        (lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1), ValueError,
         "can't optimize a non-leaf Tensor"),
        (lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=-1.0), ValueError,
         "Invalid learning rate: -1.0"),
        (lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)], momentum=-0.5),
         ValueError, "Invalid momentum value: -0.5"),
        (lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)], weight_decay=-1),
         ValueError, "Invalid weight_decay value: -1"),
        (lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)], nesterov=True), ValueError,
         "Nesterov momentum requires a momentum and zero dampening"),
        (lambda lib: lib.optim.Adam([lib.ones(1, requires_grad=True)], betas=(1.0, 0.9)),
         ValueError, "Invalid beta parameter at index 0: 1.0"),
        (lambda lib: lib.optim.Adam([lib.ones(1, requires_grad=True)], betas=(0.9, -0.1)),
         ValueError, "Invalid beta parameter at index 1: -0.1"),
        (lambda lib: lib.optim.AdamW([lib.ones(1, requires_grad=True)], eps=-1e-8), ValueError,
         "Invalid epsilon value: -1e-08"),
        (lambda lib: lib.optim.RMSprop([lib.ones(1, requires_grad=True)], alpha=-0.1),
         ValueError, "Invalid alpha value: -0.1"),
        (lambda lib: lib.optim.Adagrad([lib.ones(1, requires_grad=True)], lr_decay=-0.1),
         ValueError, "Invalid lr_decay value: -0.1"),
        (lambda lib: lib.optim.Adagrad(
            [lib.ones(1, requires_grad=True)], initial_accumulator_value=-1.0),
         ValueError, "Invalid initial_accumulator_value value: -1.0"),
    ],
)  # fmt: skip
def test_invalid_arguments_raise_torchs_errors(make, exception, message) -> None:
    _both_raise(make, exception, message)


def test_a_parameter_in_two_groups_is_refused_and_duplicates_warn() -> None:
    for lib in (torch, gg):
        p = lib.ones(2, requires_grad=True)
        with pytest.raises(ValueError, match="some parameters appear in more than one"):
            lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
        with pytest.warns(UserWarning, match="duplicate parameters"):
            lib.optim.SGD([p, p], lr=0.1)


def test_options_glassgrad_cannot_honour_are_refused() -> None:
    p = gg.ones(1, requires_grad=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        gg.optim.Adam([p], differentiable=True)
    with pytest.raises(NotImplementedError, match="capturable=True"):
        gg.optim.RMSprop([p], capturable=True)


def test_foreach_and_fused_flags_are_accepted_and_change_nothing() -> None:
    results = []
    for flags in ({}, {"foreach": True}, {"fused": True}, {"foreach": False}):
        p = gg.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = gg.optim.Adam([p], lr=0.1, **flags)
        for _ in range(3):
            p.grad = gg.tensor([0.5, 0.25, -1.0])
            opt.step()
        results.append(p.tolist())
    assert all(r == results[0] for r in results)


def test_non_contiguous_parameters_and_gradients() -> None:
    rng = np.random.default_rng(1)
    start = rng.standard_normal((4, 6)).astype(np.float32)
    p = gg.from_numpy(np.asfortranarray(start.copy())).requires_grad_()
    q = torch.tensor(start.copy(), requires_grad=True)
    assert not p._data.flags.c_contiguous
    ours = gg.optim.Adam([p], lr=0.1, weight_decay=0.1)
    theirs = torch.optim.Adam([q], lr=0.1, weight_decay=0.1)
    for _ in range(5):
        grad = rng.standard_normal((6, 4)).astype(np.float32)
        p.grad = gg.from_numpy(grad.copy()).t()  # a transposed (strided) gradient
        q.grad = torch.from_numpy(grad.T.copy())
        ours.step()
        theirs.step()
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert not p._data.flags.c_contiguous  # still the same array, updated in place


def test_lr_scheduler_sees_the_step_order() -> None:
    p = gg.ones(1, requires_grad=True)
    opt = gg.optim.SGD([p], lr=0.1)
    scheduler = gg.optim.lr_scheduler.StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        scheduler.step()
    opt2 = gg.optim.SGD([p], lr=0.1)
    scheduler2 = gg.optim.lr_scheduler.StepLR(opt2, step_size=1)
    opt2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scheduler2.step()


def test_read_only_and_broadcast_gradients() -> None:
    # A gradient the user assigned as a broadcast (zero-stride, read-only) array steps like
    # its dense copy, and zero_grad(set_to_none=False) still resets it.
    start = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    row = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    dense = gg.tensor(start.copy(), requires_grad=True)
    broadcast = gg.tensor(start.copy(), requires_grad=True)
    opts = [gg.optim.Adam([t], lr=0.1) for t in (dense, broadcast)]
    for _ in range(3):
        dense.grad = gg.tensor(np.broadcast_to(row, (2, 3)).copy())
        broadcast.grad = gg.from_numpy(np.broadcast_to(row, (2, 3)))
        for opt in opts:
            opt.step()
    np.testing.assert_array_equal(broadcast.detach().numpy(), dense.detach().numpy())
    opts[1].zero_grad(set_to_none=False)
    assert broadcast.grad.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
