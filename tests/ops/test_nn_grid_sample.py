"""affine_grid and grid_sample beyond the registry: the spatial-transformer pipeline of
PyTorch's tutorial (theta from a layer, grid, sampled image; 2-d and 3-d) with gradients to
the layer, the warnings, second and third derivatives (either gradient alone or both) for
every mode on 4-d and 5-d input, NaN placement, and the errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from .test_nn_pool import raises_like_pytorch


@pytest.mark.parametrize("spatial", [(6, 6), (3, 4, 5)])
def test_spatial_transformer_pipeline_matches_pytorch(spatial: tuple) -> None:
    rng = np.random.default_rng(0)
    nd = len(spatial)
    x = rng.standard_normal((3, 1, *spatial))
    features = int(np.prod(spatial))
    w = 0.1 * rng.standard_normal((nd * (nd + 1), features))
    b = np.eye(nd, nd + 1).reshape(-1)
    cotangent = rng.standard_normal((3, 1, *spatial))
    results = []
    for lib in (gg, torch):
        F = lib.nn.functional
        weight = lib.tensor(w, requires_grad=True)
        image = lib.tensor(x, requires_grad=True)
        theta = F.linear(image.flatten(1), weight, lib.tensor(b)).view(-1, nd, nd + 1)
        grid = F.affine_grid(theta, image.size(), align_corners=False)
        out = F.grid_sample(image, grid, align_corners=False, padding_mode="border")
        (out * lib.tensor(cotangent)).sum().backward()
        results.append((out, weight.grad, image.grad))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(
            ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-12
        )


_SWEEP = [
    (nd, mode, padding, align)
    for nd in (2, 3)
    for mode in ("bilinear", "nearest", "bicubic")
    for padding in ("zeros", "border", "reflection")
    for align in (False, True)
    if not (nd == 3 and mode == "bicubic")
]


@pytest.mark.parametrize("nd, mode, padding_mode, align_corners", _SWEEP)
def test_every_mode_padding_and_alignment_matches_pytorch(
    nd: int, mode: str, padding_mode: str, align_corners: bool
) -> None:
    # Values, both gradients and the second derivatives of a function of both, grid points
    # spread over and beyond [-1, 1] so that every padding rule is exercised.
    rng = np.random.default_rng(7)
    x_shape = (2, 2, 3, 4) if nd == 2 else (1, 2, 3, 2, 4)
    grid_shape = (2, 3, 4, 2) if nd == 2 else (1, 2, 3, 2, 3)
    x, grid = rng.standard_normal(x_shape), rng.uniform(-1.6, 1.6, grid_shape)
    cotangent = rng.standard_normal((*x_shape[:2], *grid_shape[1:-1]))
    results = []
    for lib in (gg, torch):
        xt, gt = lib.tensor(x, requires_grad=True), lib.tensor(grid, requires_grad=True)
        out = lib.nn.functional.grid_sample(
            xt, gt, mode=mode, padding_mode=padding_mode, align_corners=align_corners
        )
        first = lib.autograd.grad(out, (xt, gt), lib.tensor(cotangent), create_graph=True)
        total = (first[0] * first[0]).sum() + first[1].sin().sum()
        second = lib.autograd.grad(total, (xt, gt), allow_unused=True)
        results.append([None if t is None else t.detach().numpy() for t in (out, *first, *second)])
    for ours, theirs in zip(*results):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-11)


def test_unit_size_affine_grid_warns_like_pytorch() -> None:
    # PyTorch warns for a unit spatial size with align_corners=True, and then skips its
    # size check: a zero channel count passes.
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="changed for unit-size grids"):
            grid = lib.nn.functional.affine_grid(
                lib.eye(3, 4).unsqueeze(0), [1, 0, 1, 2, 3], align_corners=True
            )
        assert tuple(grid.shape) == (1, 1, 2, 3, 3)


def test_align_corners_default_warns_like_pytorch():
    for lib in (gg, torch):
        F = lib.nn.functional
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
            grid = F.affine_grid(lib.eye(2, 3).unsqueeze(0), [1, 1, 2, 2])
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
            F.grid_sample(lib.ones(1, 1, 2, 2), grid)


def _sampled_twice(lib: Any, x: np.ndarray, grid: np.ndarray, mode: str, which: str) -> tuple:
    """Gradients of grid_sample built with create_graph, then a function of one or both of
    them differentiated again: the leaves' .grad (None where PyTorch leaves it None)."""
    xt, gt = lib.tensor(x, requires_grad=True), lib.tensor(grid, requires_grad=True)
    out = lib.nn.functional.grid_sample(xt, gt, mode=mode, align_corners=False)
    grad_x, grad_grid = lib.autograd.grad((out * out).sum(), (xt, gt), create_graph=True)
    parts = {"input": (grad_x * grad_x).sum(), "grid": grad_grid.sin().sum()}
    total = parts["input"] + parts["grid"] if which == "both" else parts[which]
    if total.requires_grad:
        total.backward()
    return xt.grad, gt.grad


_MODES = [
    ("bilinear", (2, 2, 3, 4), (2, 3, 2, 2)),
    ("nearest", (2, 2, 3, 4), (2, 3, 2, 2)),
    ("bicubic", (2, 2, 3, 4), (2, 3, 2, 2)),
    ("bilinear", (1, 2, 3, 2, 4), (1, 2, 3, 2, 3)),
    ("nearest", (1, 2, 3, 2, 4), (1, 2, 3, 2, 3)),
]


@pytest.mark.parametrize("mode, x_shape, grid_shape", _MODES)
@pytest.mark.parametrize("which", ["input", "grid", "both"])
def test_second_derivatives_of_either_gradient_match_pytorch(
    mode: str, x_shape: tuple, grid_shape: tuple, which: str
) -> None:
    # Differentiating only grad_input (or only grad_grid) leaves the other's terms out:
    # PyTorch's double backward then gives no gradient at all to some inputs, not zeros.
    rng = np.random.default_rng(3)
    x, grid = rng.standard_normal(x_shape), rng.uniform(-1.2, 1.2, grid_shape)
    ours, theirs = (
        _sampled_twice(gg, x, grid, mode, which),
        _sampled_twice(torch, x, grid, mode, which),
    )
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "mode, padding_mode, x_shape, grid_shape",
    [
        ("bilinear", "zeros", (1, 2, 3, 4), (1, 2, 3, 2)),
        ("bilinear", "reflection", (1, 2, 3, 4), (1, 2, 3, 2)),
        ("bicubic", "border", (1, 2, 3, 4), (1, 2, 3, 2)),
        ("bilinear", "reflection", (1, 2, 3, 2, 3), (1, 2, 2, 2, 3)),
        ("nearest", "zeros", (1, 2, 3, 2, 3), (1, 2, 2, 2, 3)),
    ],
)
def test_third_derivatives_match_pytorch(
    mode: str, padding_mode: str, x_shape: tuple, grid_shape: tuple
) -> None:
    rng = np.random.default_rng(4)
    x, grid = rng.standard_normal(x_shape), rng.uniform(-1.3, 1.3, grid_shape)
    out_shape = (*x_shape[:2], *grid_shape[1:-1])
    cotangents = [rng.standard_normal(s) for s in (out_shape, x.shape, grid.shape)]
    results = []
    for lib in (gg, torch):
        inputs = [lib.tensor(a, requires_grad=True) for a in (cotangents[0], x, grid)]
        out = lib.nn.functional.grid_sample(
            inputs[1], inputs[2], mode=mode, padding_mode=padding_mode, align_corners=True
        )
        first = lib.autograd.grad(out, inputs[1:], inputs[0], create_graph=True)
        paired = sum((g * lib.tensor(c)).sum() for g, c in zip(first, cotangents[1:]))
        second = lib.autograd.grad(paired, inputs, create_graph=True, allow_unused=True)
        total = sum((g * g).sum() for g in second if g is not None)
        third = lib.autograd.grad(total, inputs, allow_unused=True)
        results.append([None if t is None else t.detach().numpy() for t in (*second, *third)])
    for a, b in zip(*results):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "mode, x_shape, grid_shape",
    [
        ("bilinear", (1, 2, 3, 3), (1, 2, 2, 2)),
        ("bicubic", (1, 1, 3, 3), (1, 2, 1, 2)),
        ("bilinear", (1, 1, 2, 3, 2), (1, 1, 2, 2, 3)),
    ],
)
def test_gradgradcheck_in_float64(mode: str, x_shape: tuple, grid_shape: tuple) -> None:
    rng = np.random.default_rng(5)
    x = gg.tensor(rng.standard_normal(x_shape), requires_grad=True)
    grid = gg.tensor(rng.uniform(-1.1, 1.1, grid_shape), requires_grad=True)
    for padding_mode in ("zeros", "border", "reflection"):

        def sample(x: gg.Tensor, grid: gg.Tensor, padding_mode: str = padding_mode) -> gg.Tensor:
            return gg.nn.functional.grid_sample(
                x, grid, mode=mode, padding_mode=padding_mode, align_corners=False
            )

        assert gg.autograd.gradgradcheck(sample, (x, grid))


@pytest.mark.parametrize(
    "mode, nd", [("bilinear", 2), ("nearest", 2), ("bicubic", 2), ("bilinear", 3), ("nearest", 3)]
)
def test_nan_reaches_what_pytorch_reaches(mode: str, nd: int) -> None:
    # A NaN in the input taints only the points that read it (and their gradients); a NaN
    # grid coordinate is clipped (border, reflection) or spread (4-d zeros) as PyTorch's
    # kernels do. float32 too: the weights are computed in the input's dtype.
    rng = np.random.default_rng(6)
    x_shape = (1, 2, 3, 4) if nd == 2 else (1, 2, 3, 4, 3)
    grid_shape = (1, 4, 5, 2) if nd == 2 else (1, 2, 5, 2, 3)
    x = rng.standard_normal(x_shape)
    x.reshape(-1)[[0, 5, 17]] = np.nan
    grid = rng.uniform(-1.5, 1.5, grid_shape)
    nan_grid = grid.copy()
    nan_grid.reshape(-1)[[1, 6, 9]] = np.nan
    for padding_mode, dtype in (
        ("zeros", "float64"),
        ("border", "float32"),
        ("reflection", "float64"),
    ):
        results = []
        for lib in (gg, torch):
            F = lib.nn.functional
            xt = lib.tensor(x.astype(dtype), requires_grad=True)
            gt = lib.tensor(grid.astype(dtype), requires_grad=True)
            options = {"mode": mode, "padding_mode": padding_mode, "align_corners": False}
            out = F.grid_sample(xt, gt, **options)
            out.backward(lib.ones_like(out))
            at_nan = F.grid_sample(
                lib.tensor(np.nan_to_num(x).astype(dtype)),
                lib.tensor(nan_grid.astype(dtype)),
                **options,
            )
            results.append([t.detach().numpy() for t in (out, xt.grad, gt.grad, at_nan)])
        for ours, theirs in zip(*results):
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, equal_nan=True)


def _second_derivatives(lib: Any, arrays: dict, options: dict) -> list:
    """Second derivatives in (input, grid, grad_output) of both first derivatives, from the
    arrays of the input, grid, incoming gradient ``v`` and second-order gradients ``w``."""
    x = lib.tensor(arrays["x"], requires_grad=True)
    grid = lib.tensor(arrays["grid"], requires_grad=True)
    out = lib.nn.functional.grid_sample(x, grid, **options)
    v = lib.tensor(arrays["v"][: out.numel()].reshape(tuple(out.shape)), requires_grad=True)
    firsts = lib.autograd.grad(out, [x, grid], v, create_graph=True)
    ws = [lib.tensor(arrays["w"][: f.numel()].reshape(tuple(f.shape))) for f in firsts]
    seconds = lib.autograd.grad(firsts, [x, grid, v], ws, allow_unused=True)
    return [np.zeros(1) if s is None else s.detach().numpy() for s in seconds]


@pytest.mark.parametrize(
    "mode, nd, padding_mode",
    [
        ("bilinear", 2, "zeros"),
        ("bilinear", 2, "reflection"),
        ("bicubic", 2, "border"),
        ("bilinear", 3, "zeros"),
        ("bilinear", 3, "border"),
    ],
)
def test_second_derivatives_keep_infinities_where_pytorch_does(
    mode: str, nd: int, padding_mode: str
) -> None:
    # PyTorch's double backward sums per axis before multiplying by the grid's second-order
    # gradient and reads and writes corners outside the image at clamped positions times a
    # zero mask: an infinite input, gradient or second-order gradient then gives NaN or a
    # signed infinity at PyTorch's places.
    rng = np.random.default_rng(7)
    x_shape = (2, 3, 4, 5) if nd == 2 else (1, 2, 3, 4, 3)
    grid_shape = (2, 3, 6, 2) if nd == 2 else (1, 2, 2, 3, 3)
    base = {
        "x": rng.standard_normal(x_shape),
        "grid": rng.uniform(-1.3, 1.3, grid_shape),
        "v": np.linspace(0.5, 1.5, 200),
        "w": np.linspace(0.5, 1.5, 200),
    }
    options = {"mode": mode, "padding_mode": padding_mode, "align_corners": False}
    for where, index in (("x", 59), ("x", 7), ("v", 20), ("w", 20), ("w", 3)):
        for poison in (np.inf, -np.inf, np.nan):
            arrays = dict(base)
            arrays[where] = arrays[where].copy()
            arrays[where].reshape(-1)[index] = poison
            ours = _second_derivatives(gg, arrays, options)
            theirs = _second_derivatives(torch, arrays, options)
            for a, b in zip(ours, theirs):
                np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9, equal_nan=True)


@pytest.mark.parametrize(
    "call, words",
    [
        (
            lambda F, x: F.grid_sample(x, x.new_zeros(2, 2, 2, 2), align_corners=False),
            ("same batch size",),
        ),
        (
            lambda F, x: F.grid_sample(x, x.new_zeros(1, 2, 2, 3), align_corners=False),
            ("size 2 in last dimension",),
        ),
        (
            lambda F, x: F.grid_sample(x, x.new_zeros(1, 2, 2, 2), "cubic", align_corners=False),
            ("expected mode",),
        ),
        (
            lambda F, x: F.grid_sample(
                x, x.new_zeros(1, 2, 2, 2), padding_mode="wrap", align_corners=False
            ),
            ("expected padding_mode",),
        ),
        (
            lambda F, x: F.grid_sample(
                x[None], x.new_zeros(1, 1, 1, 1, 3), "bicubic", align_corners=False
            ),
            ("bicubic interpolation only supports 4D input",),
        ),
        (
            lambda F, x: F.grid_sample(x[:, :, :0], x.new_zeros(1, 2, 2, 2), align_corners=False),
            ("non-empty spatial dimensions", "dimension 2 being empty"),
        ),
        (
            lambda F, x: F.grid_sample(
                x[None].long(), x.new_zeros(1, 1, 1, 1, 3).long(), align_corners=False
            ),
            ("\"grid_sampler3d_cpu\" not implemented for 'Long'",),
        ),
        (
            lambda F, x: F.affine_grid(x.new_zeros(2, 3, 4), [1, 1, 2, 2, 2], align_corners=False),
            ("Expected size for first two dimensions of batch2 tensor to be: [1, 4]",),
        ),
        (
            lambda F, x: F.affine_grid(x.new_zeros(1, 3, 4), [1, 1, 2, 2], align_corners=False),
            ("Nx2x3",),
        ),
        (
            lambda F, x: F.affine_grid(x.new_zeros(1, 2, 3), [1, 1, 2, 2, 2], align_corners=False),
            ("Nx3x4",),
        ),
        (
            lambda F, x: F.affine_grid(x.new_zeros(1, 3, 3), [1, 1, 2, 2], align_corners=False),
            ("Nx2x3",),
        ),
        (
            lambda F, x: F.affine_grid(x.new_zeros(1, 2, 3), [1, 1, 2], align_corners=False),
            ("only supports 4D and 5D sizes",),
        ),
    ],
)
def test_errors_match_pytorch(call: Any, words: tuple) -> None:
    raises_like_pytorch(call, np.ones((1, 1, 3, 3)), words)
