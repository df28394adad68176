"""affine_grid and grid_sample beyond the registry: the spatial-transformer pipeline of
PyTorch's tutorial (theta from a layer, grid, sampled image) with gradients to the layer,
the align_corners warning, second derivatives refused, and the errors."""

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


def test_second_derivative_is_refused():
    x = gg.randn(1, 1, 3, 3, requires_grad=True)
    grid = gg.rand(1, 2, 2, 2, requires_grad=True)
    out = gg.nn.functional.grid_sample(x, grid, align_corners=True)
    (gx, gg_grid) = gg.autograd.grad(out.sum(), (x, grid), create_graph=True)
    with pytest.raises(RuntimeError, match="grid_sampler_2d_backward"):
        gg_grid.sum().backward()


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
