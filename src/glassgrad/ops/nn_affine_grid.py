"""``affine_grid`` (public in ``glassgrad.nn.functional``): the sampling grid of a batch of
affine transforms, for ``grid_sample``.

It maps the normalised output coordinates (-1 to 1, pixel centres or corners per
``align_corners``) through a batch of affine matrices: ``grid = base @ theta^T``, one matrix
product, linear in ``theta`` (its backward is the transposed product, itself differentiable).
2-d sizes (N, C, H, W) take (N, 2, 3) matrices, 3-d sizes (N, C, D, H, W) take (N, 3, 4).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._linspace import linspace_values
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor
from ._registry import Sample, register
from ._samples import randn

ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)
_UNIT_SIZE_WARNING = (
    "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
    "align_corners=True. This is not an intended use case of affine_grid. See the "
    "documentation of affine_grid for details."
)


def _linspace_from_neg_one(steps: int, align_corners: bool, dtype: np.dtype) -> np.ndarray:
    if steps <= 1:
        return np.zeros((), dtype)
    values = linspace_values(-1, 1, steps, dtype)
    return values if align_corners else values * (steps - 1) / steps


def _base_grid(spatial: tuple, align_corners: bool, dtype: np.dtype) -> np.ndarray:
    """(*spatial, nd + 1) coordinates: x (last axis) first, then y (then z), then 1."""
    nd = len(spatial)
    base = np.ones((*spatial, nd + 1), dtype)
    for k in range(nd):
        axis = nd - 1 - k  # coordinate k varies along spatial axis nd-1-k
        line = _linspace_from_neg_one(spatial[axis], align_corners, dtype)
        shape = [1] * nd
        shape[axis] = -1
        base[..., k] = np.broadcast_to(np.reshape(line, shape) if line.ndim else line, spatial)
    return base


class AffineGridGeneratorBackward0(Op):
    """grid = base @ theta^T (linear in theta; nothing saved)."""

    __slots__ = ("_base",)

    def forward(self, theta: Any, spatial: Any, align_corners: Any) -> Any:
        n = theta.shape[0]
        self._base = _base_grid(spatial, align_corners, theta.dtype).reshape(
            1, -1, len(spatial) + 1
        )
        grid = np.matmul(self._base, np.swapaxes(theta, 1, 2))
        return grid.reshape(n, *spatial, len(spatial))

    def backward(self, F: Any, grad: Any) -> Any:
        n, nd = grad.shape[0], grad.shape[-1]
        base_t = np.ascontiguousarray(np.swapaxes(self._base, 1, 2))
        if isinstance(grad, Tensor):
            base_t = Tensor._from_array(base_t)
        flat = F.reshape(grad, (n, -1, nd))
        return F.transpose(F.matmul(base_t, flat), 1, 2)


def affine_grid(theta: Tensor, size: list[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid of a batch of affine transforms: for output size (N, C, H, W), the
    (N, H, W, 2) points ``theta @ (x, y, 1)`` of the normalised output coordinates (and
    (N, D, H, W, 3) for 3-d sizes with (N, 3, 4) ``theta``).

    Example::

        >>> theta = glassgrad.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> glassgrad.nn.functional.affine_grid(theta, [1, 1, 1, 2], align_corners=False)
        tensor([[[[-0.5000,  0.0000],
                  [ 0.5000,  0.0000]]]])
    """
    check_tensor(theta, "affine_grid", "theta")
    if align_corners is None:
        warnings.warn(ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if theta._data.dtype.kind != "f":
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(s) for s in size]
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                f"{theta.shape}."
            )
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                f"{theta.shape}."
            )
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if align_corners and min(size[2:]) == 1:
        warnings.warn(_UNIT_SIZE_WARNING, stacklevel=2)
    elif min(size) <= 0:  # PyTorch skips this check after the warning (a size-0 batch then
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")  # fails below)
    if theta.shape[0] != size[0]:  # PyTorch's message is that of its batched product
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{size[0]}, {len(size) - 1}] but got: [{theta.shape[0]}, {len(size) - 1}]."
        )
    return AffineGridGeneratorBackward0.apply(
        theta, spatial=tuple(size[2:]), align_corners=bool(align_corners)
    )


# --- registry ---------------------------------------------------------------------------


def _affine_grid_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 2, 3), [2, 3, 4, 5]), {"align_corners": False}),
        Sample((randn(rng, 1, 2, 3), [1, 1, 3, 1]), {"align_corners": True}),
        Sample((randn(rng, 2, 3, 4), [2, 1, 2, 3, 4]), {"align_corners": False}),
    ]


register(
    "affine_grid",
    affine_grid,
    nodes=(AffineGridGeneratorBackward0,),
    samples=_affine_grid_samples,
    namespace="nn.functional",
)

__all__ = ["affine_grid"]
