"""interpolate: what the registry can't say. A sweep of sizes, scale factors and modes in
float32 and float64 (ATen's index rules, including its float32 nearest arithmetic), integer
inputs, infinities spreading only where PyTorch's do, grad_fn names, the deprecated aliases,
antialiased resampling (bilinear, bicubic, lanczos; first and second derivatives) and the
errors. PyTorch is the oracle."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from .test_nn_pool import close, raises_like_pytorch

GF = gg.nn.functional
TF = torch.nn.functional

SWEEP = [
    (mode, shape, kwargs)
    for mode, shape in (
        ("nearest", (1, 2, 5)),
        ("nearest-exact", (1, 2, 5)),
        ("linear", (1, 2, 5)),
        ("nearest", (1, 2, 6, 7)),
        ("nearest-exact", (1, 2, 6, 7)),
        ("bilinear", (1, 2, 6, 7)),
        ("bicubic", (1, 2, 6, 7)),
        ("nearest", (1, 1, 3, 4, 5)),
        ("trilinear", (1, 1, 3, 4, 5)),
    )
    for kwargs in (
        {"scale_factor": 3},
        {"scale_factor": 1.0},
        {"scale_factor": 0.4},
        {"scale_factor": 1.7},
        {"scale_factor": 1.7, "recompute_scale_factor": True},
        {"size": 11},
        {"size": 2},
        {"size": 1},
    )
]


def _align(mode: str) -> list:
    return [None] if mode.startswith("nearest") else [False, True]


@pytest.mark.parametrize("mode, shape, kwargs", SWEEP)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_interpolate_sweep(mode: str, shape: tuple, kwargs: dict, dtype: Any) -> None:
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    for align in _align(mode):
        outs = []
        for lib, F in ((gg, GF), (torch, TF)):
            t = lib.tensor(x, requires_grad=True)
            out = F.interpolate(t, mode=mode, align_corners=align, **kwargs)
            v = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype)
            (out * lib.tensor(v)).sum().backward()
            outs.append((out, t.grad))
        (ours, grad_g), (theirs, grad_t) = outs
        tol = 1e-5 if dtype == np.float32 else 1e-12
        close(ours, theirs, rtol=tol, atol=tol)
        close(grad_g, grad_t, rtol=tol, atol=tol)
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


def test_interpolate_nearest_on_integers() -> None:
    x = np.arange(30, dtype=np.uint8).reshape(1, 1, 5, 6)
    ours = GF.interpolate(gg.tensor(x), scale_factor=1.5, mode="nearest-exact")
    theirs = TF.interpolate(torch.tensor(x), scale_factor=1.5, mode="nearest-exact")
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert ours.dtype == gg.uint8


def test_interpolate_infinity_stays_where_pytorch_puts_it() -> None:
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 1, 2] = np.inf
    ours = GF.interpolate(gg.tensor(x), size=(7, 6), mode="bilinear")
    theirs = TF.interpolate(torch.tensor(x), size=(7, 6), mode="bilinear")
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_second_derivative_graph_is_the_forward_again() -> None:
    grads = []
    for lib, F in ((gg, GF), (torch, TF)):
        x = lib.tensor(np.ones((1, 1, 3, 3)), requires_grad=True)
        out = F.interpolate(x, scale_factor=2, mode="bicubic")
        v = lib.ones(tuple(out.shape), dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(out, x, v, create_graph=True)
        grads.append(type(g.grad_fn).__name__)
    assert grads[0] == grads[1] == "UpsampleBicubic2DBackwardBackward0"


@pytest.mark.parametrize(
    "name, kwargs",
    [("upsample", {"mode": "bilinear"}), ("upsample_nearest", {}), ("upsample_bilinear", {})],
)
def test_deprecated_aliases_warn_and_match(name: str, kwargs: dict) -> None:
    x = np.random.default_rng(2).standard_normal((1, 2, 3, 4))
    with pytest.warns(UserWarning, match=f"nn.functional.{name}` is deprecated"):
        ours = getattr(GF, name)(gg.tensor(x), scale_factor=2, **kwargs)
    with pytest.warns(UserWarning):
        theirs = getattr(TF, name)(torch.tensor(x), scale_factor=2, **kwargs)
    close(ours, theirs)


@pytest.mark.parametrize(
    "call, shape, words",
    [
        (lambda F, x: F.interpolate(x, 2, 2), (1, 1, 4), ("only one of size or scale_factor",)),
        (lambda F, x: F.interpolate(x), (1, 1, 4), ("either size or scale_factor",)),
        (
            lambda F, x: F.interpolate(x, 3, align_corners=True),
            (1, 1, 4),
            ("align_corners option can only be set with the interpolating modes",),
        ),
        (
            lambda F, x: F.interpolate(x, (2, 2)),
            (1, 1, 4),
            ("Input and output must have the same number of spatial dimensions",),
        ),
        (
            lambda F, x: F.interpolate(x, scale_factor=(2, 2)),
            (1, 1, 4),
            ("Input and scale_factor must have the same number of spatial dimensions",),
        ),
        (
            lambda F, x: F.interpolate(x, 4, mode="bilinear"),
            (1, 1, 4),
            ("Got 3D input, but bilinear mode needs 4D input",),
        ),
        (
            lambda F, x: F.interpolate(x, 4, mode="linear"),
            (1, 1, 4, 4),
            ("Got 4D input, but linear mode needs 3D input",),
        ),
        (
            lambda F, x: F.interpolate(x, 4, mode="cubic"),
            (1, 1, 4, 4),
            ("Only 3D, 4D and 5D input Tensors supported",),
        ),
        (
            lambda F, x: F.interpolate(x, 4, recompute_scale_factor=True),
            (1, 1, 4),
            ("recompute_scale_factor is not meaningful with an explicit size",),
        ),
        (
            lambda F, x: F.interpolate(x, scale_factor=0.1),
            (1, 1, 4),
            ("Input and output sizes should be greater than 0",),
        ),
        (
            lambda F, x: F.interpolate(x, 3, mode="bilinear", antialias=True),
            (1, 1, 4),
            ("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes",),
        ),
    ],
)
def test_interpolate_errors(call: Any, shape: tuple, words: tuple) -> None:
    raises_like_pytorch(call, np.ones(shape), words)


ANTIALIAS = [
    (mode, shape, kwargs)
    for mode in ("bilinear", "bicubic", "lanczos")
    for shape, kwargs in (
        ((2, 2, 9, 8), {"size": (3, 5)}),
        ((1, 2, 4, 5), {"size": (9, 2)}),
        ((1, 2, 7, 6), {"scale_factor": 0.37}),
        # H keeps its size: PyTorch's forward copies that axis, its backward resamples it
        ((1, 2, 3, 5), {"scale_factor": 1.3}),
        ((1, 1, 6, 7), {"scale_factor": (0.6, 1.5), "recompute_scale_factor": True}),
    )
]


@pytest.mark.parametrize("mode, shape, kwargs", ANTIALIAS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_antialias_matches_pytorch(mode: str, shape: tuple, kwargs: dict, dtype: Any) -> None:
    # Values, first and second derivatives (the backward's own derivative is the forward,
    # copying the axes the forward copies), grad_fn names, for every align_corners allowed.
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(dtype)
    for align in [False] if mode == "lanczos" else [False, True]:
        results = []
        for lib, F in ((gg, GF), (torch, TF)):
            t = lib.tensor(x, requires_grad=True)
            out = F.interpolate(t, mode=mode, antialias=True, align_corners=align, **kwargs)
            v = lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)).astype(dtype))
            (g,) = lib.autograd.grad((out * out * v).sum(), t, create_graph=True)
            (gg_,) = lib.autograd.grad((g * g).sum(), t)
            names = (type(out.grad_fn).__name__, type(g.grad_fn).__name__)
            results.append(([a.detach().numpy() for a in (out, g, gg_)], names))
        (ours, our_names), (theirs, their_names) = results
        tol = 1e-5 if dtype == np.float32 else 1e-12
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
        assert our_names == their_names


def test_antialias_gradcheck_in_float64() -> None:
    x = gg.tensor(np.random.default_rng(3).standard_normal((1, 1, 5, 4)), requires_grad=True)
    for mode in ("bilinear", "bicubic", "lanczos"):

        def resample(x: gg.Tensor, mode: str = mode) -> gg.Tensor:
            return GF.interpolate(x, size=(2, 3), mode=mode, antialias=True)

        assert gg.autograd.gradcheck(resample, (x,))
        assert gg.autograd.gradgradcheck(resample, (x,))


@pytest.mark.parametrize(
    "call, dtype, words",
    [
        (
            lambda F, x: F.interpolate(x, 2, mode="bilinear", antialias=True),
            np.int64,
            ("\"compute_index_ranges_weights\" not implemented for 'Long'",),
        ),
        (
            lambda F, x: F.interpolate(x, 2, mode="bicubic", antialias=True),
            np.float16,
            ("\"compute_index_ranges_weights\" not implemented for 'Half'",),
        ),
        (
            lambda F, x: F.interpolate(x, 2, mode="lanczos", antialias=True),
            np.complex64,
            ("\"compute_index_ranges_weights\" not implemented for 'ComplexFloat'",),
        ),
        (
            lambda F, x: F.interpolate(x, 2, mode="bilinear"),
            np.int32,
            ("\"upsample_bilinear2d_channels_last\" not implemented for 'Int'",),
        ),
        (
            lambda F, x: F.interpolate(x, 2, mode="bicubic"),
            np.int64,
            ("\"compute_indices_weights_cubic\" not implemented for 'Long'",),
        ),
        (
            lambda F, x: F.interpolate(x, 2, mode="lanczos"),
            np.float64,
            ("requires antialias=True",),
        ),
        (
            lambda F, x: F.interpolate(x, 2, mode="lanczos", antialias=True, align_corners=True),
            np.float64,
            ("does not support align_corners=True",),
        ),
    ],
)
def test_interpolate_dtype_and_lanczos_errors(call: Any, dtype: Any, words: tuple) -> None:
    raises_like_pytorch(call, np.ones((1, 3, 4, 4), dtype), words)


@pytest.mark.parametrize(
    "mode, antialias",
    [
        ("bilinear", False),
        ("bicubic", False),
        ("bilinear", True),
        ("bicubic", True),
        ("lanczos", True),
    ],
)
def test_uint8_resampling_is_pytorchs_to_the_bit(mode: str, antialias: bool) -> None:
    # PyTorch resamples uint8 in fixed point after PIL (width then height, each pass rounded
    # and clamped); bicubic without antialiasing keeps the float kernel's clamped taps.
    rng = np.random.default_rng(8)
    aligns = [False] if mode == "lanczos" else [False, True]
    for (h, w), kwargs in (
        ((8, 9), {"size": (3, 4)}),
        ((3, 7), {"size": (11, 2)}),
        ((5, 5), {"scale_factor": (1.7, 0.5)}),
        ((16, 12), {"scale_factor": 0.37}),
    ):
        x = rng.integers(0, 256, (2, 3, h, w), dtype=np.uint8)
        for align in aligns:
            options = {"mode": mode, "antialias": antialias, "align_corners": align, **kwargs}
            ours = GF.interpolate(gg.tensor(x), **options)
            theirs = TF.interpolate(torch.tensor(x), **options)
            assert ours.dtype == gg.uint8
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "bool", "complex64", "float16"])
def test_every_mode_and_rank_accepts_or_refuses_a_dtype_as_pytorch(dtype: str) -> None:
    """Which dtypes each mode computes (nearest: floats and uint8; bilinear and bicubic:
    floats and uint8; the others floats), with PyTorch's error naming its kernel, and the
    wrong-rank errors."""

    def outcome(lib: Any, shape: tuple, mode: str) -> str:
        try:
            lib.nn.functional.interpolate(lib.ones(shape, dtype=getattr(lib, dtype)), None, 2, mode)
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
        return "computed"

    differing = [
        (shape, mode, outcome(gg, shape, mode), outcome(torch, shape, mode))
        for shape in ((1, 1, 2), (1, 1, 2, 2), (1, 1, 2, 2, 2))
        for mode in (
            "nearest",
            "nearest-exact",
            "linear",
            "bilinear",
            "bicubic",
            "trilinear",
            "area",
        )
        if outcome(gg, shape, mode) != outcome(torch, shape, mode)
    ]
    assert differing == []
