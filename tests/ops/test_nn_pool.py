"""max_pool2d / avg_pool2d / adaptive_avg_pool2d: what the registry can't say.

Indices as PyTorch returns them, PyTorch's choice among ties, NaN and -inf windows, overlapping
windows accumulating gradient, ceil mode and padding rules, integer inputs, the backward
graph under create_graph, and the errors. PyTorch is the oracle.
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
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def both(call: Any, array: np.ndarray, cotangent_seed: int = 0) -> list:
    """``call(F, x)`` in both libraries; returns (outputs, x.grad) pairs after a backward."""
    results = []
    for lib, F in LIBS:
        x = lib.tensor(array.copy(), requires_grad=array.dtype.kind == "f")
        out = call(F, x)
        values = out[0] if isinstance(out, tuple) else out
        if x.requires_grad and values.numel():  # PyTorch refuses empty pooling gradients
            v = np.random.default_rng(cotangent_seed).standard_normal(tuple(values.shape))
            (values * lib.tensor(v, dtype=values.dtype)).sum().backward()
        results.append((out, x.grad))
    return results


MAX_POOL_CASES = {
    "plain": {"kernel_size": 2},
    "stride-padding": {"kernel_size": 3, "stride": 2, "padding": 1},
    "dilation": {"kernel_size": (3, 2), "stride": 1, "dilation": (2, 1)},
    "ceil": {"kernel_size": 2, "ceil_mode": True},
    "ceil-padding": {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    "overlap": {"kernel_size": 3, "stride": 1, "padding": 1},
    "rect": {"kernel_size": (2, 3), "stride": (1, 2)},
}


@pytest.mark.parametrize("params", MAX_POOL_CASES.values(), ids=MAX_POOL_CASES.keys())
def test_max_pool_indices_and_gradients(params: dict) -> None:
    x = np.random.default_rng(1).standard_normal((2, 3, 7, 6))
    (ours, grad_g), (theirs, grad_t) = both(
        lambda F, t: F.max_pool2d(t, return_indices=True, **params), x
    )
    close(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    assert ours[1].dtype == gg.int64
    close(grad_g, grad_t)


def test_max_pool_ties_pick_the_first_maximum() -> None:
    x = np.array([[[[1.0, 3.0, 3.0], [3.0, 2.0, 3.0], [0.0, 3.0, 3.0]]]])
    (ours, grad_g), (theirs, grad_t) = both(
        lambda F, t: F.max_pool2d(t, 2, stride=1, return_indices=True), x
    )
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    close(grad_g, grad_t)


def test_max_pool_nan_wins_last_nan_index() -> None:
    nan = float("nan")
    x = np.array([[[[1.0, nan, 3.0, nan], [5.0, 6.0, 7.0, 8.0]]]])
    (ours, grad_g), (theirs, grad_t) = both(
        lambda F, t: F.max_pool2d(t, (2, 4), return_indices=True), x
    )
    assert np.isnan(ours[0].detach().numpy()).all()
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    close(grad_g, grad_t)


def test_max_pool_minus_infinity_windows_never_pick_padding() -> None:
    x = np.full((1, 1, 3, 3), -np.inf)
    (ours, grad_g), (theirs, grad_t) = both(
        lambda F, t: F.max_pool2d(t, 2, stride=2, padding=1, return_indices=True), x
    )
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    close(grad_g, grad_t)


def test_max_pool_integers() -> None:
    x = np.arange(2 * 5 * 5).reshape(1, 2, 5, 5) % 7
    (ours, _), (theirs, _) = both(lambda F, t: F.max_pool2d(t, 2, padding=1), x)
    close(ours, theirs)


def test_max_pool_double_backward_graph() -> None:
    x = np.random.default_rng(2).standard_normal((1, 2, 4, 4))
    names = []
    for lib, F in LIBS:
        t = lib.tensor(x, requires_grad=True)
        v = lib.tensor(np.ones((1, 2, 2, 2)), requires_grad=True)
        (g,) = lib.autograd.grad(F.max_pool2d(t, 2), t, v, create_graph=True)
        names.append(type(g.grad_fn).__name__)
        (gv,) = lib.autograd.grad((g * lib.tensor(x)).sum(), v)
        names.append(gv.numpy().round(12).tolist())
    assert names[0] == names[2] == "MaxPool2DWithIndicesBackwardBackward0"
    assert names[1] == names[3]


# Windows inside the input (no padding, no ceil overhang) take a gather-based path; these
# cases pin it to PyTorch: ties among relu zeros, gaps between windows, more than 127 kernel
# offsets (int32 choices), dilation, a transposed input, -inf windows and integers.
INSIDE_CASES = {
    "relu-ties": ((4, 3, 8, 8), {"kernel_size": 2}, "relu"),
    "gaps": ((2, 3, 9, 9), {"kernel_size": 2, "stride": 3}, "normal"),
    "many-offsets": ((2, 2, 13, 12), {"kernel_size": 12}, "normal"),
    "dilated": ((2, 2, 7, 8), {"kernel_size": 2, "stride": 3, "dilation": 2}, "normal"),
    "transposed": ((2, 3, 6, 8), {"kernel_size": (2, 4)}, "transposed"),
    "minus-inf": ((1, 2, 4, 4), {"kernel_size": 2}, "minus-inf"),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape, params, kind", INSIDE_CASES.values(), ids=list(INSIDE_CASES.keys())
)
def test_max_pool_windows_inside_the_input(shape, params, kind, dtype) -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape)
    if kind == "relu":
        x = np.maximum(x, 0)  # most windows hold several equal zeros
    elif kind == "transposed":
        x = np.ascontiguousarray(np.swapaxes(x, -1, -2)).swapaxes(-1, -2)
    elif kind == "minus-inf":
        x[0, 0] = -np.inf
    x = x.astype(dtype)
    results = []
    for lib, F in LIBS:
        t = lib.from_numpy(x) if kind == "transposed" else lib.tensor(x)
        t.requires_grad_()
        out, indices = F.max_pool2d(t, return_indices=True, **params)
        v = np.random.default_rng(6).standard_normal(tuple(out.shape)).astype(dtype)
        (out * lib.tensor(v)).sum().backward()
        results.append((out, indices, t.grad))
    (out_g, idx_g, grad_g), (out_t, idx_t, grad_t) = results
    np.testing.assert_array_equal(out_g.detach().numpy(), out_t.detach().numpy())
    np.testing.assert_array_equal(idx_g.numpy(), idx_t.numpy())
    np.testing.assert_array_equal(grad_g.numpy(), grad_t.numpy())


def test_max_pool_integers_without_padding() -> None:
    x = np.arange(2 * 3 * 6 * 6).reshape(2, 3, 6, 6) * 7 % 11
    (ours, _), (theirs, _) = both(lambda F, t: F.max_pool2d(t, 2, return_indices=True), x)
    close(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())


def test_max_pool_infinite_gradient_reaches_only_the_maximum() -> None:
    x = np.random.default_rng(8).standard_normal((1, 2, 4, 4))
    grads = []
    for lib, F in LIBS:
        t = lib.tensor(x, requires_grad=True)
        F.max_pool2d(t, 2).backward(lib.full((1, 2, 2, 2), float("inf"), dtype=lib.float64))
        grads.append(t.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    assert (grads[0] == 0).sum() == 32 - 8


AVG_POOL_CASES = {
    "plain": {"kernel_size": 2},
    "padding": {"kernel_size": 3, "stride": 2, "padding": 1},
    "exclude-pad": {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    "ceil": {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    "ceil-padding": {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    "ceil-exclude": {
        "kernel_size": 3,
        "stride": 2,
        "padding": 1,
        "ceil_mode": True,
        "count_include_pad": False,
    },
    "divisor": {"kernel_size": (2, 3), "stride": 1, "divisor_override": 5},
}


@pytest.mark.parametrize("params", AVG_POOL_CASES.values(), ids=AVG_POOL_CASES.keys())
def test_avg_pool_values_and_gradients(params: dict) -> None:
    x = np.random.default_rng(3).standard_normal((2, 3, 7, 6))
    (ours, grad_g), (theirs, grad_t) = both(lambda F, t: F.avg_pool2d(t, **params), x)
    close(ours, theirs)
    close(grad_g, grad_t)


def test_avg_pool_integers_truncate_like_pytorch() -> None:
    x = np.arange(16).reshape(1, 1, 4, 4) - 7
    (ours, _), (theirs, _) = both(lambda F, t: F.avg_pool2d(t, 2), x)
    close(ours, theirs)


def test_avg_pool_float32() -> None:
    x = np.random.default_rng(4).standard_normal((2, 3, 6, 6)).astype(np.float32)
    (ours, grad_g), (theirs, grad_t) = both(lambda F, t: F.avg_pool2d(t, 3, 2, 1), x)
    close(ours, theirs, rtol=1e-6, atol=1e-6)
    close(grad_g, grad_t, rtol=1e-6, atol=1e-6)


def test_avg_pool_double_backward_graph() -> None:
    names = []
    for lib, F in LIBS:
        t = lib.tensor(np.ones((1, 1, 4, 4)), requires_grad=True)
        v = lib.tensor(np.ones((1, 1, 2, 2)), requires_grad=True)
        (g,) = lib.autograd.grad(F.avg_pool2d(t, 2), t, v, create_graph=True)
        names.append(type(g.grad_fn).__name__)
    assert names == ["AvgPool2DBackwardBackward0"] * 2


@pytest.mark.parametrize("output_size", [(3, 2), 5, (None, 4), (1, 3), 1, (0, 2), (7, 6)], ids=str)
def test_adaptive_avg_pool(output_size: Any) -> None:
    x = np.random.default_rng(5).standard_normal((2, 3, 7, 6))
    (ours, grad_g), (theirs, grad_t) = both(lambda F, t: F.adaptive_avg_pool2d(t, output_size), x)
    close(ours, theirs)
    if ours.numel():
        close(grad_g, grad_t)
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


# --- errors --------------------------------------------------------------------------------


def raises_like_pytorch(call: Any, array: np.ndarray, words: tuple) -> None:
    with pytest.raises(Exception) as theirs:
        call(TF, torch.tensor(array))
    with pytest.raises(type(theirs.value)) as ours:
        call(GF, gg.tensor(array))
    for word in words:
        assert word in str(ours.value), (word, str(ours.value))


@pytest.mark.parametrize(
    "call, array, words",
    [
        (
            lambda F, x: F.max_pool2d(x, 2),
            np.ones((2, 3)),
            ("max_pool2d", "non-empty 3D or 4D (batch mode) tensor expected for input"),
        ),
        (
            lambda F, x: F.max_pool2d(x, 2, padding=2),
            np.ones((1, 1, 8, 8)),
            ("pad should be at most half of effective kernel size", "pad=2, kernel_size=2"),
        ),
        (
            lambda F, x: F.max_pool2d(x, 3),
            np.ones((1, 1, 2, 2)),
            (
                "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too "
                "small",
            ),
        ),
        (lambda F, x: F.max_pool2d(x, 2, stride=0), np.ones((1, 1, 4, 4)), ("stride",)),
        (
            lambda F, x: F.max_pool2d(x, 2),
            np.ones((1, 1, 4, 4), dtype=bool),
            ("\"max_pool2d\" not implemented for 'Bool'",),
        ),
        (
            lambda F, x: F.avg_pool2d(x, 2, padding=2),
            np.ones((1, 1, 8, 8)),
            ("avg_pool2d", "pad should be at most half of effective kernel size"),
        ),
        (
            lambda F, x: F.avg_pool2d(x, 3),
            np.ones((1, 1, 2, 2)),
            ("Output size is too small",),
        ),
        (
            lambda F, x: F.avg_pool2d(x, 2, divisor_override=0),
            np.ones((1, 1, 4, 4)),
            ("divisor must be not zero",),
        ),
        (
            lambda F, x: F.adaptive_avg_pool2d(x, 2),
            np.ones((2, 3)),
            ("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [2, 3]",),
        ),
        (
            lambda F, x: F.adaptive_avg_pool2d(x, -1),
            np.ones((1, 2, 3, 3)),
            ("elements of output_size must be greater than or equal to 0",),
        ),
        (
            lambda F, x: F.adaptive_avg_pool2d(x, 2),
            np.ones((1, 2, 0, 5)),
            (
                "Expected input to have non-zero size for non-batch dimensions",
                "[1, 2, 0, 5]",
                "dimension 2 being empty",
            ),
        ),
        (
            lambda F, x: F.adaptive_avg_pool2d(x, (1, 2, 3)),
            np.ones((1, 2, 3, 5)),
            ("output_size must be 2",),
        ),
    ],
)
def test_pool_errors(call: Any, array: np.ndarray, words: tuple) -> None:
    raises_like_pytorch(call, array, words)


@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_max_pool_random_samples_of_another_dtype_refused_as_pytorch(nd: int) -> None:
    """PyTorch reads _random_samples in the input's type and refuses another dtype; they
    were cast silently here."""
    messages = []
    for lib in (gg, torch):
        x = lib.ones((1, 2) + (6,) * nd, dtype=lib.float64)
        samples = lib.full((1, 2, nd), 0.5, dtype=lib.float32)
        pool = getattr(lib.nn.functional, f"fractional_max_pool{nd}d")
        with pytest.raises(RuntimeError) as caught:
            pool(x, 2, output_size=3, _random_samples=samples)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("requires_grad", [False, True])
def test_max_pool1d_is_a_view_only_when_recorded(requires_grad: bool) -> None:
    """PyTorch's max_pool1d runs its own kernel (a new tensor) unless the input requires
    grad, then squeezes max_pool2d's values (a view); detach_ refuses only the view (fuzz
    seed 921162: lp_pool1d with p = inf)."""
    outcomes = []
    for lib in (gg, torch):
        x = lib.randn(1, 2, 6, requires_grad=requires_grad)
        y = lib.nn.functional.lp_pool1d(x, float("inf"), 2)
        try:
            y.detach_()
            outcomes.append((y._base is not None, "detached"))
        except RuntimeError as error:
            outcomes.append((y._base is not None, str(error)[:30]))
    assert outcomes[0] == outcomes[1]
