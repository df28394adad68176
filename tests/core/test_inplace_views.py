"""In-place ops, version counters, views and indexing with their gradients."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg


def test_leaf_in_place_error() -> None:
    x = gg.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="a leaf Variable that requires grad is being used in an in-place operation.",
    ):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0].mul_(2)
    with gg.no_grad():
        x.add_(1)  # allowed without grad mode (optimizer updates)
    assert x.tolist() == [2.0, 2.0]


def test_modified_saved_tensor_raises_with_versions() -> None:
    x = gg.ones(3, requires_grad=True)
    y = x.exp()
    z = y * y
    y.add_(1)
    with pytest.raises(
        RuntimeError,
        match=r"modified by an inplace operation: .*\[3\]\], which is output 0 of Add, is at version 1; expected version 0 instead",
    ):
        z.sum().backward()


@pytest.mark.parametrize("modified", [0, 1])
def test_binary_op_checks_each_saved_operand(modified: int) -> None:
    # Either operand of a binary op whose operands both require grad (so both are saved),
    # changed in place after it was saved, is caught.
    w, v = gg.ones(2, requires_grad=True), gg.ones(2, requires_grad=True)
    operands = [w * 2, v * 3]
    y = operands[0] * operands[1]
    operands[modified].add_(1)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        y.sum().backward()


PARTIAL_GRAD_PROGRAMS = {
    "mul": lambda L, x, w: x * w,
    "mul, weight first": lambda L, x, w: w * x,
    "div, weight over input": lambda L, x, w: w / (x + 1),
    "matmul": lambda L, x, w: x @ w,
    "mm": lambda L, x, w: L.mm(x, w),
    "bmm": lambda L, x, w: L.bmm(x[None], w[None]),
    "addmm": lambda L, x, w: L.addmm(L.zeros(3), x, w),
    "linear": lambda L, x, w: L.nn.functional.linear(x, w.t()),
    "div, input over weight": lambda L, x, w: (x + 1) / w,
    "conv": lambda L, x, w: L.nn.functional.conv2d(x[None, None], w[None, None]),
    "addcmul": lambda L, x, w: L.addcmul(L.zeros(3, 3), x, w, value=0.5),
    "addcmul, weight first": lambda L, x, w: L.addcmul(L.zeros(3, 3), w, x),
    "addcdiv, weight over input": lambda L, x, w: L.addcdiv(L.zeros(3, 3), w, x + 1),
    "addcdiv, input over weight": lambda L, x, w: L.addcdiv(L.zeros(3, 3), x, w),
    "lerp, weight as start": lambda L, x, w: L.lerp(w, x, x / 20),
    "lerp, weight as weight": lambda L, x, w: L.lerp(x, x * 2, w),
    "maximum": lambda L, x, w: L.maximum(x, w),
    "atan2, weight first": lambda L, x, w: L.atan2(w, x),
    "atan2, input first": lambda L, x, w: L.atan2(x, w),
    "pow, weight as exponent": lambda L, x, w: L.pow(x, w),
    "clamp by the input": lambda L, x, w: L.clamp(w, min=x - 5),
    "mse_loss": lambda L, x, w: L.nn.functional.mse_loss(w, x),
    "remainder, weight first": lambda L, x, w: L.remainder(w, x),
    "remainder, input first": lambda L, x, w: L.remainder(x, w + 5),
    "clamp, input bounds the weight": lambda L, x, w: L.clamp(w, min=x - 5, max=x + 5),
    "clamp, weight bounds the input": lambda L, x, w: L.clamp(x, min=w - 5, max=w + 5),
    "smooth_l1_loss": lambda L, x, w: L.nn.functional.smooth_l1_loss(w, x),
    "huber_loss": lambda L, x, w: L.nn.functional.huber_loss(x, w),
    "bce_with_logits": lambda L, x, w: L.nn.functional.binary_cross_entropy_with_logits(w, x / 10),
    "bce_with_logits, weight as target": lambda L, x, w: (
        L.nn.functional.binary_cross_entropy_with_logits(x, L.sigmoid(w))
    ),
    "bilinear": lambda L, x, w: L.nn.functional.bilinear(x, x, w[None]),
    "clamp_min by the input": lambda L, x, w: L.clamp_min(w, x - 5),
    "clamp_max by the weight": lambda L, x, w: L.clamp_max(x, w + 5),
    "bce, weight as target": lambda L, x, w: L.nn.functional.binary_cross_entropy(
        L.sigmoid(x), L.sigmoid(w)
    ),
    "layer_norm weight": lambda L, x, w: L.nn.functional.layer_norm(x[None], (3, 3), w),
    "batch_norm weight": lambda L, x, w: L.nn.functional.batch_norm(
        x, None, None, w[0], training=True
    ),
}


@pytest.mark.parametrize("name", sorted(PARTIAL_GRAD_PROGRAMS))
@pytest.mark.parametrize("changed", ["input", "weight"])
def test_operand_saved_only_when_a_gradient_reads_it(name: str, changed: str) -> None:
    # Only the weight requires grad. As in PyTorch, an operand no needed gradient reads is
    # not saved, so changing it in place before the backward is no error (the weight, for
    # mul, div's numerator, the matrix products, addcmul/addcdiv, lerp's ends); the ones that
    # are read are checked, and ops PyTorch saves whole (conv, pow, atan2, ...) raise in both.
    program = PARTIAL_GRAD_PROGRAMS[name]
    outcomes = []
    for lib in (gg, torch):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
        w = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [2.0, 1.0, 3.0]], requires_grad=True)
        y = program(lib, x, w)
        with lib.no_grad():
            (x if changed == "input" else w).mul_(2)
        try:
            y.sum().backward()
        except RuntimeError as error:
            assert "modified by an inplace operation" in str(error)
            outcomes.append("error")
        else:
            outcomes.append(w.grad.numpy().round(5).tolist())
    assert outcomes[0] == outcomes[1]


def test_binary_op_saved_after_an_in_place_change() -> None:
    # Saved at version 1: backward works while it stays there and fails once it moves on.
    results = []
    for lib in (gg, torch):
        w = lib.ones(2, requires_grad=True)
        a = lib.full((2,), 2.0)
        a.mul_(3)
        y = w * a
        y.sum().backward(retain_graph=True)
        results.append(w.grad.tolist())
        a.add_(1)
        with pytest.raises(RuntimeError, match="is at version 2; expected version 1 instead"):
            y.sum().backward()
    assert results[0] == results[1] == [6.0, 6.0]


@pytest.mark.parametrize("changed", [0, 1])
@pytest.mark.parametrize("versioned", [0, 1])
def test_binary_op_with_one_versioned_operand_checks_both(versioned: int, changed: int) -> None:
    # One operand is saved at version 1, the other has no version counter yet: backward
    # works, and a later change to either of them is caught.
    w, v = gg.ones(2, requires_grad=True), gg.ones(2, requires_grad=True)
    operands = [w * 2, v * 3]
    operands[versioned].add_(1)
    y = operands[0] * operands[1]
    y.sum().backward(retain_graph=True)
    operands[changed].add_(1)
    expected = 1 if changed == versioned else 0
    with pytest.raises(
        RuntimeError, match=f"is at version {expected + 1}; expected version {expected} instead"
    ):
        y.sum().backward()


def test_linear_weight_changed_after_the_forward_is_caught() -> None:
    # After an optimizer step the weight carries a version; changing it again between forward
    # and backward is still caught (the addmm node checks its saved operands). The input
    # requires grad, so PyTorch saves the weight too.
    for lib in (gg, torch):
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 2)
        optimizer = lib.optim.SGD(layer.parameters(), lr=0.1)
        x = lib.ones(4, 3, requires_grad=True)
        layer(x).sum().backward()
        optimizer.step()
        out = layer(x)
        out.sum().backward(retain_graph=True)  # unchanged since the forward: fine
        with lib.no_grad():
            layer.weight.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


def test_modified_saved_input_raises() -> None:
    w = gg.ones(2, requires_grad=True)
    a = gg.ones(2)
    y = w * a
    a.mul_(3)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        y.sum().backward()


@pytest.mark.parametrize(
    "method, args",
    [
        ("add_", (2.0,)),
        ("sub_", (1.0,)),
        ("mul_", (3.0,)),
        ("div_", (2.0,)),
        ("zero_", ()),
        ("fill_", (5.0,)),
        ("clamp_", (0.2, 0.8)),
        ("exp_", ()),
        ("pow_", (2,)),
        ("neg_", ()),
        ("sigmoid_", ()),
        ("tanh_", ()),
    ],
)
def test_in_place_on_non_leaf_rewrites_grad_fn(parity, method: str, args: tuple) -> None:
    def program(lib):
        x = lib.tensor([0.1, 0.5, 0.9], dtype=lib.float64, requires_grad=True)
        y = x * 2
        out = getattr(y, method)(*args)
        assert out is y
        name = type(y.grad_fn).__name__
        (y * x).sum().backward()
        return [y, x.grad, name, y._version]

    parity(program)


def test_in_place_with_tensor_operand(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        y = x * 1
        y.mul_(w)
        y.add_(w, alpha=2)
        y += 1
        y.copy_(x * w)
        y.sum().backward()
        return [y, x.grad, w.grad, type(y.grad_fn).__name__]

    parity(program)


def test_in_place_on_tensor_without_grad_joins_the_graph(parity) -> None:
    def program(lib):
        buf = lib.zeros(3)
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        buf.add_(x * x)
        buf.sum().backward()
        return [buf.requires_grad, buf.is_leaf, x.grad]

    parity(program)


def test_views_share_storage_and_version_counter(parity) -> None:
    def program(lib):
        base = lib.arange(6.0).reshape(2, 3)
        v = base.view(3, 2)
        t = base.t()
        s = base[1]
        base.add_(1)
        s.mul_(10)
        return [v, t, s, base._version, v._version, t._version, s._version]

    parity(program)


def test_expanded_view_cannot_be_written() -> None:
    x = gg.zeros(1, 3).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x.add_(1)


def test_setitem_copyslices_example_from_issue() -> None:
    m = gg.tensor([[2.0, 3.0]], requires_grad=True)
    n = gg.zeros(1, 2)
    n[0, 0] = m[0, 0] ** 2
    n[0, 1] = m[0, 1] ** 3
    assert n.requires_grad and type(n.grad_fn).__name__ == "CopySlices"
    n.backward(gg.ones(1, 2))
    assert m.grad.tolist() == [[4.0, 27.0]]


def test_setitem_and_inplace_on_view_of_non_leaf(parity) -> None:
    def program(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        w = lib.tensor([0.5, -1.0], requires_grad=True)
        y = x * 2
        y[:, 1] = w * 3
        v = y[1]
        v.mul_(w[0])
        y[0, 2] += 7
        (y**2).sum().backward()
        return [y, x.grad, w.grad, type(y.grad_fn).__name__]

    parity(program)


def test_setitem_advanced_index_put(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x * 1
        y[lib.tensor([0, 2])] = lib.tensor([10.0, 20.0]) * x[1]
        y[y > 15] = 0.0
        y.sum().backward()
        return [y, x.grad, type(y.grad_fn).__name__]

    parity(program)


@pytest.mark.parametrize(
    "key",
    [
        0,
        -1,
        (1, 2),
        (slice(None), 1),
        (slice(1, None), slice(None, None, 2)),
        (None, 0),
        (Ellipsis, 1),
        [0, 0, 1],
        (slice(None), [2, 2, 0]),
        (1, [0, 1]),
    ],
)
def test_indexing_gradients_accumulate_repeats(parity, key) -> None:
    def program(lib):
        x = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
        k = key
        y = x[k]
        (y * y).sum().backward()
        return [y, x.grad]

    parity(program)


def test_mask_and_tensor_indices(parity) -> None:
    def program(lib):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        a = x[x > 2]
        b = x[lib.tensor([1, 1, 0])]
        (a.sum() + b.sum()).backward()
        return [a, b, x.grad]

    parity(program)


def test_index_errors() -> None:
    x = gg.ones(2, 3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 1 with size 3"):
        x[0, 5]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool"):
        x[gg.tensor([0.0])]


def test_detach_cuts_gradient_but_shares_data() -> None:
    x = gg.ones(2, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d._data is y._data
    out = (d * x).sum()
    out.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_torch_sanity_for_view_rebase() -> None:
    # The reference behaviour the parity tests above rely on.
    x = torch.ones(3, requires_grad=True)
    y = x * 1
    y[0].mul_(2)
    assert type(y.grad_fn).__name__ == "CopySlices"


def test_in_place_on_output_of_multi_output_view_op_raises() -> None:
    y = gg.ones(2, 3, requires_grad=True) * 1
    first, _ = y.unbind(0)
    with pytest.raises(
        RuntimeError, match="Output 0 of Unbind is a view and is being modified inplace"
    ):
        first.mul_(2)


def test_stack_promotes_inside_the_op(parity) -> None:
    def program(lib):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, dtype=lib.float64, requires_grad=True)
        s = lib.stack([a, b])
        (s * 3).sum().backward()
        names = [type(n).__name__ for n, _ in s.grad_fn.next_functions]
        return [s.dtype == lib.float64, names, a.grad, b.grad]

    parity(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda L, x, w: ((x @ w) ** 2).sum(),
        lambda L, x, w: (L.tanh(x @ w) * (x[:, :2] + 1)).sum(),
        lambda L, x, w: ((x[:2, :2] * w[:2]) ** 3 / (x[:2, :2] + 3)).sum(),
        lambda L, x, w: (L.nn.functional.linear(x, w.t()) ** 2).sum(),
    ],
)
def test_second_derivatives_with_an_operand_left_out(program: Any) -> None:
    # Only the weight requires grad, so mul/div/matmul keep just the operand its gradient
    # reads; a graph of the backward (Hessian-vector product) still matches PyTorch.
    rng = np.random.default_rng(0)
    values = rng.standard_normal((4, 3)), rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    results = []
    for lib in (gg, torch):
        x, v = lib.tensor(values[0]), lib.tensor(values[2])
        w = lib.tensor(values[1], requires_grad=True)
        (g,) = lib.autograd.grad(program(lib, x, w), w, create_graph=True)
        (h,) = lib.autograd.grad((g * v).sum(), w)
        results.append(h.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "make_view",
    [
        lambda b: b.view(-1),
        lambda b: b.reshape(-1),
        lambda b: b.flatten(),
        lambda b: b.view(3, 2)[1:],
        lambda b: b.T.T.view(6),
    ],
)
@pytest.mark.parametrize("create_graph", [False, True])
def test_copyslices_views_a_gradient_of_any_layout(
    parity, make_view: Any, create_graph: bool
) -> None:
    # CopySlices copies the base's gradient into the base's layout before viewing it
    # (PyTorch's new_empty_strided + copy_): a gradient arriving transposed (from .T or from
    # a double backward) must not make a view step fail.
    def program(L: Any) -> list:
        x = L.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], dtype=L.float64, requires_grad=True)
        s = L.tensor(1.5, dtype=L.float64, requires_grad=True)
        base = x * 1
        v = make_view(base)
        v.mul_(s)
        weights = L.arange(6.0, dtype=L.float64).view(3, 2)
        out = (base.T * weights).sum()  # the base's gradient arrives transposed
        gx, gs = L.autograd.grad(out, (x, s), create_graph=True)
        second = L.autograd.grad((gx.T * weights).sum() + gs, (x, s)) if create_graph else ()
        return [gx, gs, *second]

    parity(program)


class _Twice(gg.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # type: ignore[no-untyped-def]
        out = x * 2
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):  # type: ignore[no-untyped-def]
        (out,) = ctx.saved_tensors
        return grad * 2


class _TorchTwice(torch.autograd.Function):
    forward = staticmethod(_Twice.forward)
    backward = staticmethod(_Twice.backward)


_MODIFIED_PROGRAMS = {
    "saved result": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).exp(),
    "saved by a later op": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) * 3,
    "custom Function": lambda lib: (_Twice if lib is gg else _TorchTwice).apply(
        lib.tensor([1.0, 2.0], requires_grad=True)
    ),
}


@pytest.mark.parametrize("program", sorted(_MODIFIED_PROGRAMS))
@pytest.mark.parametrize("anomaly", [False, True])
def test_modified_saved_tensor_message_is_pytorchs(program: str, anomaly: bool) -> None:
    """PyTorch 2.13's text: the node named without "Backward<N>", the hint by anomaly mode;
    glassgrad then adds where the in-place change was made."""

    def message(lib):  # type: ignore[no-untyped-def]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # anomaly mode's warnings
            with lib.autograd.set_detect_anomaly(anomaly):
                y = _MODIFIED_PROGRAMS[program](lib)
                z = y.sin()
                y.mul_(2)
                with pytest.raises(RuntimeError) as error:
                    (z + y).sum().backward()
        return str(error.value)

    theirs = message(torch)
    assert message(gg).replace("glassgrad.", "torch.").startswith(theirs)
