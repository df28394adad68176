"""affine_grid and grid_sample beyond the registry: the spatial-transformer pipeline of
PyTorch's tutorial (theta from a layer, grid, sampled image) with gradients to the layer,
the align_corners warning, second and third derivatives (either gradient alone or both),
and the errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from .test_nn_pool import raises_like_pytorch


def test_spatial_transformer_pipeline_matches_pytorch():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 1, 6, 6))
    w, b = 0.1 * rng.standard_normal((6, 36)), np.array([1.0, 0, 0, 0, 1, 0])
    cotangent = rng.standard_normal((3, 1, 6, 6))
    results = []
    for lib in (gg, torch):
        F = lib.nn.functional
        weight = lib.tensor(w, requires_grad=True)
        image = lib.tensor(x, requires_grad=True)
        theta = F.linear(image.flatten(1), weight, lib.tensor(b)).view(-1, 2, 3)
        grid = F.affine_grid(theta, image.size(), align_corners=False)
        out = F.grid_sample(image, grid, align_corners=False, padding_mode="border")
        (out * lib.tensor(cotangent)).sum().backward()
        results.append((out, weight.grad, image.grad))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(
            ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-12
        )


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


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("which", ["input", "grid", "both"])
def test_second_derivatives_of_either_gradient_match_pytorch(mode: str, which: str) -> None:
    # Differentiating only grad_input (or only grad_grid) leaves the other's terms out:
    # PyTorch's double backward then gives no gradient at all to some inputs, not zeros.
    rng = np.random.default_rng(3)
    x, grid = rng.standard_normal((2, 2, 3, 4)), rng.uniform(-1.2, 1.2, (2, 3, 2, 2))
    ours, theirs = (
        _sampled_twice(gg, x, grid, mode, which),
        _sampled_twice(torch, x, grid, mode, which),
    )
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("padding_mode", ["zeros", "reflection"])
def test_third_derivatives_match_pytorch(padding_mode: str) -> None:
    rng = np.random.default_rng(4)
    x, grid = rng.standard_normal((1, 2, 3, 4)), rng.uniform(-1.3, 1.3, (1, 2, 3, 2))
    cotangents = [rng.standard_normal(s) for s in ((1, 2, 2, 3), x.shape, grid.shape)]
    results = []
    for lib in (gg, torch):
        inputs = [lib.tensor(a, requires_grad=True) for a in (cotangents[0], x, grid)]
        out = lib.nn.functional.grid_sample(
            inputs[1], inputs[2], padding_mode=padding_mode, align_corners=True
        )
        first = lib.autograd.grad(out, inputs[1:], inputs[0], create_graph=True)
        paired = sum((g * lib.tensor(c)).sum() for g, c in zip(first, cotangents[1:]))
        second = lib.autograd.grad(paired, inputs, create_graph=True)
        third = lib.autograd.grad(sum((g * g).sum() for g in second), inputs)
        results.append([t.detach().numpy() for t in (*second, *third)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_gradgradcheck_in_float64():
    rng = np.random.default_rng(5)
    x = gg.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    grid = gg.tensor(rng.uniform(-1.1, 1.1, (1, 2, 2, 2)), requires_grad=True)
    for padding_mode in ("zeros", "border", "reflection"):

        def sample(x: gg.Tensor, grid: gg.Tensor, padding_mode: str = padding_mode) -> gg.Tensor:
            return gg.nn.functional.grid_sample(
                x, grid, padding_mode=padding_mode, align_corners=False
            )

        assert gg.autograd.gradgradcheck(sample, (x, grid))


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
