"""batch_norm / layer_norm / group_norm: what the registry can't say.

Running statistics updated in place exactly as PyTorch updates them (values and version
counters), train/eval behaviour, graph structure, float32 and large-offset inputs, gradients
with a bias but no weight, second derivatives, and the errors. PyTorch is the oracle.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

GF = gg.nn.functional
TF = torch.nn.functional
LIBS = ((gg, GF), (torch, TF))


def close(ours: Any, theirs: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def graph_signature(fn: Any) -> str:
    if fn is None:
        return "-"
    children = ",".join(graph_signature(n) for n, _ in fn.next_functions)
    return f"{type(fn).__name__}({children})"


# --- batch norm: running statistics -----------------------------------------------------------


@pytest.mark.parametrize("momentum", [0.1, 0.5, 0.0, 1.0])
def test_running_stats_follow_pytorch_over_several_batches(momentum: float) -> None:
    rng = np.random.default_rng(0)
    batches = [rng.standard_normal((4, 3, 2, 2)) * (i + 1) + i for i in range(3)]
    stats = {}
    for lib, F in LIBS:
        mean = lib.tensor(np.zeros(3))
        var = lib.tensor(np.ones(3))
        for x in batches:
            F.batch_norm(lib.tensor(x), mean, var, training=True, momentum=momentum)
        stats[lib.__name__] = (mean, var)
    for ours, theirs in zip(stats["glassgrad"], stats["torch"]):
        close(ours, theirs)


def test_running_stats_are_updated_in_place_without_a_version_bump() -> None:
    # PyTorch's kernel writes them without bumping the version (torch: _version stays 0).
    mean, var = gg.zeros(2, dtype=gg.float64), gg.ones(2, dtype=gg.float64)
    alias = mean[:]  # a view sees the update
    before = mean._version
    GF.batch_norm(gg.tensor([[1.0, 2.0], [3.0, 6.0]], dtype=gg.float64), mean, var, training=True)
    assert mean._version == before
    np.testing.assert_allclose(alias.numpy(), [0.2, 0.4])
    # Unbiased batch variance (2 and 8) folded in with momentum 0.1.
    np.testing.assert_allclose(var.numpy(), [0.9 + 0.2, 0.9 + 0.8])


DTYPE_MIXES = [  # (weight, bias, running_mean, running_var); None: not given
    (w, b, m, v)
    for w in ("float64", "float32", None)
    for b in ("float64", "float32", None)
    for m in ("float64", "float32")
    for v in ("float64", "float32")
]


@pytest.mark.parametrize("batch", [2, 0])
@pytest.mark.parametrize("dtypes", DTYPE_MIXES, ids=str)
def test_parameter_dtypes_errors_and_running_stats_as_pytorch(batch: int, dtypes: tuple) -> None:
    # Seed 600159: PyTorch's kernel updates the running statistics before it reads a bias of
    # another dtype, so the statistics have changed when the error comes; an empty batch is
    # never checked (a clone scaled by weight[0] plus bias[0]).
    seen = []
    for lib, F in LIBS:
        w, b, m, v = (None if d is None else getattr(lib, d) for d in dtypes)
        x = lib.tensor(np.arange(batch * 6.0).reshape(batch, 3, 2) % 5)
        mean, var = lib.zeros(3, dtype=m), lib.ones(3, dtype=v)
        weight = None if w is None else lib.full((3,), 2.0, dtype=w)
        bias = None if b is None else lib.full((3,), 0.5, dtype=b)
        try:
            out = F.batch_norm(x, mean, var, weight, bias, training=True, momentum=0.3)
            result = (str(out.dtype).split(".")[-1], out.detach().numpy())
        except RuntimeError as error:
            result = str(error)
        seen.append((result, mean.numpy(), var.numpy()))
    (ours, *our_stats), (theirs, *their_stats) = seen
    if isinstance(theirs, str):
        assert ours == theirs
    else:
        assert ours[0] == theirs[0]
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-14)
    for a, b in zip(our_stats, their_stats):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_instance_norm_of_an_empty_batch_with_affine_raises_selects_error() -> None:
    # PyTorch repeats the weight once per sample (none) and batch norm's empty path reads
    # its element 0 with select().
    messages = []
    for lib, F in LIBS:
        with pytest.raises(IndexError) as caught:
            F.instance_norm(lib.zeros(0, 3, 2), weight=lib.ones(3), bias=lib.zeros(3))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("changed", ["running_mean", "running_var"])
def test_running_stats_changed_before_backward_raise_as_in_pytorch(
    training: bool, changed: str
) -> None:
    messages = {}
    for lib, F in LIBS:
        x = lib.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
        stats = {
            "running_mean": lib.zeros(2, dtype=x.dtype),
            "running_var": lib.ones(2, dtype=x.dtype),
        }
        y = F.batch_norm(x, stats["running_mean"], stats["running_var"], training=training)
        stats[changed].add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as caught:
            y.sum().backward()
        messages[lib.__name__] = str(caught.value).split(" is at version")[0]
    assert messages["glassgrad"].replace("glassgrad", "torch") == messages["torch"]


def test_eval_mode_uses_running_stats_and_leaves_them_alone() -> None:
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((5, 3, 4)), rng.standard_normal(3), rng.standard_normal(3)
    mean, var = rng.standard_normal(3), rng.random(3) + 0.5
    results = []
    for lib, F in LIBS:
        tx, tw, tb = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        rm, rv = lib.tensor(mean), lib.tensor(var)
        out = F.batch_norm(tx, rm, rv, tw, tb, training=False)
        (out * out).sum().backward()
        results.append((out, tx.grad, tw.grad, tb.grad, rm, rv))
    for ours, theirs in zip(*results):
        close(ours, theirs)


def test_training_without_running_stats_and_graph() -> None:
    rng = np.random.default_rng(2)
    arrays = rng.standard_normal((4, 3, 5)), rng.standard_normal(3), rng.standard_normal(3)
    results = []
    for lib, F in LIBS:
        x, w, b = (lib.tensor(a, requires_grad=True) for a in arrays)
        out = F.batch_norm(x, None, None, w, b, training=True)
        out.pow(3).sum().backward()
        results.append((out, x.grad, w.grad, b.grad))
    for ours, theirs in zip(*results):
        close(ours, theirs, rtol=1e-9, atol=1e-10)
    assert graph_signature(results[0][0].grad_fn) == graph_signature(results[1][0].grad_fn)


def test_batch_norm_float32_on_conv_activations() -> None:
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((64, 16, 8, 8)) * 3 + 1).astype(np.float32)
    results = []
    for lib, F in LIBS:
        tx = lib.from_numpy(x.copy()).requires_grad_()
        rm, rv = lib.zeros(16), lib.ones(16)
        out = F.batch_norm(tx, rm, rv, training=True)
        (out * lib.from_numpy(x)).sum().backward()
        results.append((out, tx.grad, rm, rv))
    for ours, theirs in zip(*results):
        close(ours, theirs, rtol=1e-4, atol=1e-4)


def test_normalisation_is_stable_with_a_large_offset() -> None:
    """Centred before squaring: an offset of 1e4 does not swamp a spread of 1."""
    x = np.random.default_rng(4).standard_normal((8, 6)) + 1e4
    for call in (
        lambda F, t: F.batch_norm(t, None, None, training=True),
        lambda F, t: F.layer_norm(t, (6,)),
        lambda F, t: F.group_norm(t, 2),
    ):
        ours = call(GF, gg.tensor(x))
        theirs = call(TF, torch.tensor(x))
        close(ours, theirs, rtol=1e-7, atol=1e-7)


# --- layer norm and group norm ----------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x, w, b: F.layer_norm(x, (4,), w, b),
        lambda F, x, w, b: F.layer_norm(x, (4,), None, b),
        lambda F, x, w, b: F.group_norm(x.reshape(3, 4, 1), 2, w, b),
        lambda F, x, w, b: F.batch_norm(x, None, None, None, b, training=True),
    ],
    ids=["layer", "layer-bias-only", "group", "batch-bias-only"],
)
def test_first_derivatives_and_graph(call: Any) -> None:
    """Including a bias without a weight, whose double backward PyTorch can't do."""
    rng = np.random.default_rng(5)
    arrays = rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal(4)
    results = []
    for lib, F in LIBS:
        leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = call(F, *leaves)
        (out * lib.tensor(np.arange(12.0).reshape(out.shape))).sum().backward()
        results.append((out, [t.grad for t in leaves]))
    (out_g, grads_g), (out_t, grads_t) = results
    close(out_g, out_t)
    assert graph_signature(out_g.grad_fn) == graph_signature(out_t.grad_fn)
    for a, b in zip(grads_g, grads_t):
        assert (a is None) == (b is None)
        if a is not None:
            close(a, b, rtol=1e-9, atol=1e-10)


def test_group_norm_with_bias_only() -> None:
    """PyTorch's own backward fails here ("tensor does not have a device"), so the oracle is
    group_norm without affine plus the bias broadcast over channels."""
    rng = np.random.default_rng(7)
    x, b = rng.standard_normal((3, 4, 2)), rng.standard_normal(4)
    xg, bg = gg.tensor(x, requires_grad=True), gg.tensor(b, requires_grad=True)
    xt, bt = torch.tensor(x, requires_grad=True), torch.tensor(b, requires_grad=True)
    ours = GF.group_norm(xg, 2, None, bg)
    theirs = TF.group_norm(xt, 2) + bt.reshape(1, 4, 1)
    close(ours, theirs)
    weights = np.arange(24.0).reshape(3, 4, 2)
    (ours * gg.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    close(xg.grad, xt.grad, rtol=1e-9, atol=1e-10)
    close(bg.grad, bt.grad)


@pytest.mark.parametrize("norm", ["batch", "layer", "group"])
def test_second_derivatives_match_pytorch(norm: str) -> None:
    rng = np.random.default_rng(6)
    arrays = rng.standard_normal((4, 6)), rng.standard_normal(6), rng.standard_normal(6)
    calls = {
        "batch": lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        "layer": lambda F, x, w, b: F.layer_norm(x, (6,), w, b),
        "group": lambda F, x, w, b: F.group_norm(x, 3, w, b),
    }
    results = []
    for lib, F in LIBS:
        x, w, b = (lib.tensor(a, requires_grad=True) for a in arrays)
        out = calls[norm](F, x, w, b)
        gx, gw = lib.autograd.grad((out.pow(3)).sum(), (x, w), create_graph=True)
        results.append(lib.autograd.grad((gx * gx).sum() + gw.sum(), (x, w, b)))
    for ours, theirs in zip(*results):
        close(ours, theirs, rtol=1e-8, atol=1e-9)


SECOND_ORDER_CASES = [
    (norm, needs, bias)
    for norm in ("batch", "layer", "group")
    for bias in (True, False)
    for needs in ("x", "w", "b", "xw", "xb", "wb", "xwb")
    if bias or "b" not in needs
]


@pytest.mark.parametrize(("norm", "needs", "bias"), SECOND_ORDER_CASES)
def test_which_second_derivatives_exist_matches_pytorch(norm: str, needs: str, bias: bool) -> None:
    """A loss linear in the output: which first derivatives require grad and which second
    derivatives exist (None or a value, zeros included) are those of PyTorch's
    double-backward graph (group norm's is a composite reading its saved mean and rstd)."""
    rng = np.random.default_rng(8)
    shapes = {"x": (4, 6, 2), "w": (6,), "b": (6,)}
    arrays = {k: rng.standard_normal(shape) for k, shape in shapes.items()}
    weights = {k: rng.standard_normal(shape) for k, shape in shapes.items()}
    out_weight = rng.standard_normal((4, 6, 2))
    calls = {
        "batch": lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        "layer": lambda F, x, w, b: F.layer_norm(
            x, (6, 2), w[:, None].expand(6, 2), None if b is None else b[:, None].expand(6, 2)
        ),
        "group": lambda F, x, w, b: F.group_norm(x, 3, w, b),
    }
    results = []
    for lib, F in LIBS:
        t = {k: lib.tensor(a, requires_grad=k in needs) for k, a in arrays.items()}
        out = calls[norm](F, t["x"], t["w"], t["b"] if bias else None)
        keys = [k for k in "xwb" if k in needs]
        loss = (out * lib.tensor(out_weight)).sum()
        first = lib.autograd.grad(loss, [t[k] for k in keys], create_graph=True)
        flags = [g.requires_grad for g in first]
        terms = [(g * lib.tensor(weights[k])).sum() for g, k, f in zip(first, keys, flags) if f]
        second = (
            lib.autograd.grad(sum(terms), [t[k] for k in keys], allow_unused=True) if terms else ()
        )
        results.append((flags, second))
    (our_flags, ours), (their_flags, theirs) = results
    assert our_flags == their_flags
    assert [g is None for g in ours] == [g is None for g in theirs]
    for a, b in zip(ours, theirs):
        if a is not None:
            close(a, b, rtol=1e-8, atol=1e-9)


def test_layer_norm_without_weight_second_derivative_of_the_bias() -> None:
    """PyTorch's native layer_norm double backward drops the bias's term when there is no
    weight (tests/fuzz/skips.py, PYTORCH_SILENT_BUGS): the oracle is PyTorch's composite
    formula, which gives the bias's gradient a derivative with respect to what follows."""
    rng = np.random.default_rng(9)
    x, b, m = rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((4, 2))
    results = []
    for lib, F in LIBS:
        xt, bt, mt = (lib.tensor(a, requires_grad=True) for a in (x, b, m))
        if lib is torch:
            centered = xt - xt.mean(-1, keepdim=True)
            out = centered / (centered.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt() + bt
        else:
            out = F.layer_norm(xt, (4,), None, bt)
        (gb,) = lib.autograd.grad(lib.mm(out, mt).pow(2).sum(), (bt,), create_graph=True)
        results.append(lib.autograd.grad((gb * lib.arange(4.0)).sum(), (xt, bt, mt)))
    for ours, theirs in zip(*results):
        close(ours, theirs, rtol=1e-8, atol=1e-9)


# --- errors --------------------------------------------------------------------------------


def raises_like_pytorch(call: Any, words: tuple) -> None:
    with pytest.raises(Exception) as theirs:
        call(TF, torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(GF, gg)
    for word in words:
        assert word in str(ours.value), (word, str(ours.value))


@pytest.mark.parametrize(
    "call, words",
    [
        (
            lambda F, lib: F.batch_norm(lib.ones(2, 4), lib.zeros(3), lib.ones(3), training=True),
            ("batch_norm", "running_mean should contain 4 elements not 3"),
        ),
        (
            lambda F, lib: F.batch_norm(
                lib.ones(2, 3), lib.zeros(3), lib.ones(3), lib.ones(4), training=True
            ),
            ("weight should contain 3 elements not 4",),
        ),
        (
            lambda F, lib: F.batch_norm(lib.ones(2, 3), None, None, training=False),
            ("running_mean must be defined in evaluation mode",),
        ),
        (
            lambda F, lib: F.batch_norm(lib.ones(1, 3), lib.zeros(3), lib.ones(3), training=True),
            ("Expected more than 1 value per channel when training", "[1, 3]"),
        ),
        (
            lambda F, lib: F.layer_norm(lib.ones(2, 3), (4,)),
            (
                "layer_norm",
                "Given normalized_shape=[4], expected input with shape [*, 4], but got "
                "input of size[2, 3]",
            ),
        ),
        (
            lambda F, lib: F.layer_norm(lib.ones(2, 3), (3,), lib.ones(4)),
            (
                "Expected weight to be of same shape as normalized_shape, but got weight of shape "
                "[4] and normalized_shape = [3]",
            ),
        ),
        (
            lambda F, lib: F.group_norm(lib.ones(2, 6, 4), 4),
            (
                "group_norm",
                "Expected number of channels in input to be divisible by num_groups, "
                "but got input of shape [2, 6, 4] and num_groups=4",
            ),
        ),
        (
            lambda F, lib: F.group_norm(lib.ones(2, 6, 4), 3, lib.ones(4)),
            (
                "Expected weight to be a vector of size equal to the number of channels in input, "
                "but got weight of shape [4] and input of shape [2, 6, 4]",
            ),
        ),
        (
            lambda F, lib: F.group_norm(lib.ones(6), 3),
            ("Expected at least 2 dimensions for input tensor but received 1",),
        ),
    ],
)
def test_norm_errors(call: Any, words: tuple) -> None:
    raises_like_pytorch(call, words)
