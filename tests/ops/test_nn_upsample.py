"""interpolate: what the registry can't say. A sweep of sizes, scale factors and modes in
float32 and float64 (ATen's index rules, including its float32 nearest arithmetic), integer
inputs, infinities spreading only where PyTorch's do, grad_fn names, the deprecated aliases and
the errors. PyTorch is the oracle."""

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


def test_antialias_is_refused_not_ignored() -> None:
    with pytest.raises(NotImplementedError, match="antialias"):
        GF.interpolate(gg.ones(1, 1, 8, 8), scale_factor=0.5, mode="bilinear", antialias=True)
