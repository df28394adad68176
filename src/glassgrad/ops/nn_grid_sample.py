"""Spatial transformers: ``affine_grid`` and ``grid_sample`` (public in
``glassgrad.nn.functional``).

``affine_grid`` maps the normalised output coordinates (-1 to 1, pixel centres or corners per
``align_corners``) through a batch of affine matrices: ``grid = base @ theta^T``, one matrix
product, linear in ``theta``. ``grid_sample`` reads (N, C, H, W) at those coordinates, with
bilinear or nearest interpolation and zeros, border or reflection padding, following ATen's
CPU kernel step by step (coordinate unnormalisation, clipping and reflection with their
gradient factors, the four corner weights), so values and both gradients (input and grid)
are PyTorch's; so are its second derivatives (and, since those are written with
differentiable ops, the third).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._linspace import linspace_values
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor, sum_defined, take_along_axis
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .gather_scatter import GatherBackward0
from .indexing import ScatterAddZerosBackward0

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)

# --- affine_grid ---------------------------------------------------------------------------


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
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
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
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return AffineGridGeneratorBackward0.apply(
        theta, spatial=tuple(size[2:]), align_corners=bool(align_corners)
    )


# --- grid_sample ---------------------------------------------------------------------------


def _source_index(coord: np.ndarray, size: int, padding: str, align_corners: bool) -> tuple:
    """ATen's ``grid_sampler_compute_source_index_set_grad``: pixel coordinates and the
    derivative of each with respect to its normalised coordinate."""
    if align_corners:
        mult = (size - 1) / 2
        x = (coord + 1) / 2 * (size - 1)
    else:
        mult = size / 2
        x = ((coord + 1) * size - 1) / 2
    grad = np.full(x.shape, mult, x.dtype)
    if padding == "reflection":
        low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        x, flip = _reflect(x, low, high)
        grad *= flip
    if padding in ("border", "reflection"):
        inside = (x > 0) & (x < size - 1)
        x = np.clip(x, 0, size - 1)
        grad *= inside
    return x, grad


def _reflect(x: np.ndarray, twice_low: int, twice_high: int) -> tuple:
    """ATen's ``reflect_coordinates_set_grad``: ``x`` folded into [low, high] and the sign of
    the fold."""
    if twice_low == twice_high:
        return np.zeros_like(x), np.zeros_like(x)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    shifted = x - low
    sign = np.where(shifted < 0, -1.0, 1.0)
    shifted = np.abs(shifted)
    extra = np.fmod(shifted, span)
    flips = np.floor(shifted / span)
    even = flips % 2 == 0
    folded = np.where(even, extra + low, span - extra + low).astype(x.dtype)
    return folded, np.where(even, sign, -sign).astype(x.dtype)


def _corners(ix: np.ndarray, iy: np.ndarray, mode: str) -> list:
    """(x index, y index, weight, d weight / d ix, d weight / d iy) of each sampled corner."""
    if mode == "nearest":
        nx, ny = np.rint(ix), np.rint(iy)
        one = np.ones_like(ix)
        return [(nx, ny, one, None, None)]
    x0, y0 = np.floor(ix), np.floor(iy)
    x1, y1 = x0 + 1, y0 + 1
    return [
        (x0, y0, (x1 - ix) * (y1 - iy), -(y1 - iy), -(x1 - ix)),
        (x1, y0, (ix - x0) * (y1 - iy), y1 - iy, -(ix - x0)),
        (x0, y1, (x1 - ix) * (iy - y0), -(iy - y0), x1 - ix),
        (x1, y1, (ix - x0) * (iy - y0), iy - y0, ix - x0),
    ]


def _gather(x: np.ndarray, cx: np.ndarray, cy: np.ndarray) -> tuple:
    """Values of (N, C, H, W) ``x`` at integer corners (N, Ho, Wo): (N, C, Ho*Wo), zero
    outside; also the flat indices and the inside mask."""
    n, c, h, w = x.shape
    inside = (cx >= 0) & (cx <= w - 1) & (cy >= 0) & (cy <= h - 1)
    flat = np.where(inside, cy * w + cx, 0).astype(np.intp).reshape(n, 1, -1)
    values = take_along_axis(x.reshape(n, c, h * w), flat, axis=2)
    return values * inside.reshape(n, 1, -1), flat, inside.reshape(n, 1, -1)


def _sample(x, grid, mode, padding, align_corners) -> tuple:
    n, c, h, w = x.shape
    ix, gx = _source_index(grid[..., 0], w, padding, align_corners)
    iy, gy = _source_index(grid[..., 1], h, padding, align_corners)
    return ix, iy, gx, gy, _corners(ix, iy, mode)


class GridSampler2DBackward0(Op):
    """out[n, c, i, j] = input[n, c] interpolated at grid[n, i, j] (normalised x, y)."""

    mode: str
    padding_mode: str
    align_corners: bool

    saved_inputs: tuple[int, ...] = (0, 1)
    __slots__ = ("mode", "padding_mode", "align_corners")

    def forward(self, x: Any, grid: Any, mode: Any, padding_mode: Any, align_corners: Any) -> Any:
        self.mode, self.padding_mode, self.align_corners = mode, padding_mode, align_corners
        *_, corners = _sample(x, grid, mode, padding_mode, align_corners)
        n, c = x.shape[:2]
        out = np.zeros((n, c, grid[..., 0].size // n), x.dtype)
        for cx, cy, weight, _, _ in corners:
            values, _, _ = _gather(x, cx, cy)
            out += values * weight.reshape(n, 1, -1)
        return out.reshape(n, c, *grid.shape[1:3])

    def backward(self, F: Any, grad: Any) -> Any:
        x, grid = self.saved
        return GridSampler2DBackwardBackward0.call(
            grad,
            x,
            grid,
            mode=self.mode,
            padding_mode=self.padding_mode,
            align_corners=self.align_corners,
            needs=self.needs_input_grad,
        )


class GridSampler2DBackwardBackward0(Op):
    """(grad_input, grad_grid) of ``grid_sample`` from (grad, input, grid).

    grad_input = S^T grad, with S the sampling (linear in the input, weights set by the
    grid); grad_grid = per point, the slopes of the interpolant along x and y dotted with
    grad over channels, times d(pixel coordinate)/d(grid). Its own derivative, written with
    differentiable ops so that third derivatives follow, is in ``backward``.
    """

    mode: str
    padding_mode: str
    align_corners: bool

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    takes_undefined_grads = True  # an undefined gradient's terms are left out, as in PyTorch
    __slots__ = ("mode", "padding_mode", "align_corners")

    def forward(
        self,
        grad: Any,
        x: Any,
        grid: Any,
        mode: Any,
        padding_mode: Any,
        align_corners: Any,
        needs: Any,
    ) -> Any:
        self.mode, self.padding_mode, self.align_corners = mode, padding_mode, align_corners
        ix, iy, gx, gy, corners = _sample(x, grid, mode, padding_mode, align_corners)
        n, c, h, w = x.shape
        g = grad.reshape(n, c, -1)
        grad_x = np.zeros(n * c * h * w, x.dtype) if needs[0] else None
        gix = np.zeros((n, g.shape[2]), x.dtype)
        giy = np.zeros_like(gix)
        offsets = (np.arange(n * c) * (h * w)).reshape(n, c, 1)
        for cx, cy, weight, dwx, dwy in corners:
            values, flat, inside = _gather(x, cx, cy)
            if grad_x is not None:
                contribution = g * weight.reshape(n, 1, -1) * inside
                np.add.at(grad_x, (flat + offsets).reshape(-1), contribution.reshape(-1))
            if dwx is not None:
                seen = (values * g).sum(axis=1)
                gix += seen * dwx.reshape(n, -1)
                giy += seen * dwy.reshape(n, -1)
        grad_grid = np.stack([gix * gx.reshape(n, -1), giy * gy.reshape(n, -1)], -1)
        grad_grid = grad_grid.reshape(grid.shape).astype(grid.dtype, copy=False)
        if grad_x is not None:
            grad_x = grad_x.reshape(x.shape)
        else:
            grad_x = np.zeros(x.shape, x.dtype)
        return grad_x, grad_grid

    def backward(self, F: Any, grads: Any) -> Any:
        """PyTorch's ``grid_sampler_2d_double_backward``: the gradients of
        <gg_input, grad_input> + <gg_grid, grad_grid> for (grad, input, grid)."""
        gg_input, gg_grid = grads
        grad, x, grid = self.saved
        needs = self.needs_input_grad
        params = {
            "mode": self.mode,
            "padding_mode": self.padding_mode,
            "align_corners": self.align_corners,
        }
        # <gg_input, S^T grad> = <S gg_input, grad>: sampling gg_input is the gradient for
        # grad, and grid_sample's grid gradient at input gg_input the one for the grid.
        d_grad = d_input = d_grid = None
        if gg_input is not None:
            if needs[0]:
                d_grad = GridSampler2DBackward0.call(gg_input, grid, **params)
            if needs[2]:
                d_grid = GridSampler2DBackwardBackward0.call(
                    grad, gg_input, grid, needs=(False, True), **params
                )[1]
        if gg_grid is not None and self.mode == "bilinear":  # nearest: grad_grid is zero
            terms = _grid_gradient_terms(F, grad, x, grid, gg_grid, needs, params)
            d_grad, d_input, d_grid = (
                sum_defined(a, b) for a, b in zip((d_grad, d_input, d_grid), terms)
            )
        return d_grad, d_input, d_grid


def _tracking(grid_coord: Any, value: np.ndarray, slope: np.ndarray) -> Any:
    """The pixel coordinate ``value`` as a function of the grid coordinate (affine with
    ``slope`` between kinks): under ``create_graph`` its derivatives reach the grid."""
    if not isinstance(grid_coord, Tensor):
        return value
    return grid_coord * slope + (value - grid_coord._data * slope)


def _grid_gradient_terms(F, grad, x, grid, gg_grid, needs, params) -> tuple:
    """The derivative of <gg_grid, grad_grid> (bilinear) for (grad, input, grid).

    With a_k = gg_x gx dw_k/dix + gg_y gy dw_k/diy per corner k (gx, gy: d pixel / d grid),
    grad_grid paired with gg_grid is sum_k a_k <input at corner k, grad>: its gradient for
    grad gathers the input with weights a_k, the one for the input scatters grad with them;
    and as dw_k/dix is affine in iy alone (and dw_k/diy in ix), with cross slope s_k = +-1,
    the one for the grid is (gx gy gg_y, gy gx gg_x) times sum_k s_k <input at k, grad>.
    """
    x_arr, grid_arr = array_of(x), array_of(grid)
    n, c, h, w = x_arr.shape
    padding, align = params["padding_mode"], params["align_corners"]
    ix, gx = _source_index(grid_arr[..., 0], w, padding, align)
    iy, gy = _source_index(grid_arr[..., 1], h, padding, align)
    points = ix.size // n
    gx, gy = gx.reshape(n, points), gy.reshape(n, points)
    ix_t = F.reshape(_tracking(grid[..., 0], ix, gx.reshape(ix.shape)), (n, points))
    iy_t = F.reshape(_tracking(grid[..., 1], iy, gy.reshape(iy.shape)), (n, points))
    gg_x = F.reshape(gg_grid[..., 0], (n, points)) * gx
    gg_y = F.reshape(gg_grid[..., 1], (n, points)) * gy
    x0, y0 = np.floor(ix).reshape(n, points), np.floor(iy).reshape(n, points)
    right, left = ix_t - x0, (x0 + 1) - ix_t  # bilinear weights along x of the two columns
    down, up = iy_t - y0, (y0 + 1) - iy_t
    # (column, row, dw/dix, dw/diy, cross slope) of each corner
    corners = (
        (x0, y0, -up, -left, 1.0),
        (x0 + 1, y0, up, -right, -1.0),
        (x0, y0 + 1, -down, left, -1.0),
        (x0 + 1, y0 + 1, down, right, 1.0),
    )
    flat_x = F.reshape(x, (n, c, h * w))
    g = F.reshape(grad, (n, c, points))
    d_grad = d_input = cross = None
    for cx, cy, dwx, dwy, slope in corners:
        inside = (cx >= 0) & (cx <= w - 1) & (cy >= 0) & (cy <= h - 1)
        index = np.where(inside, cy * w + cx, 0).astype(np.intp).reshape(n, 1, points)
        index = np.broadcast_to(index, (n, c, points))
        mask = inside.reshape(n, 1, points).astype(x_arr.dtype)
        weight = F.unsqueeze(gg_x * dwx + gg_y * dwy, 1) * mask
        values = GatherBackward0.call(flat_x, dim=2, index=index)
        if needs[0]:
            d_grad = sum_defined(d_grad, values * weight)
        if needs[1]:
            spread = ScatterAddZerosBackward0.call(
                g * weight, shape=(n, c, h * w), dim=2, index=index
            )
            d_input = sum_defined(d_input, spread)
        if needs[2]:
            seen = F.sum(values * mask * g, 1) * slope
            cross = sum_defined(cross, seen)
    if d_grad is not None:
        d_grad = F.reshape(d_grad, array_of(grad).shape)
    if d_input is not None:
        d_input = F.reshape(d_input, x_arr.shape)
    d_grid = None
    if cross is not None:
        d_grid = F.reshape(F.stack([gg_y * gx * cross, gg_x * gy * cross], -1), grid_arr.shape)
    return d_grad, d_input, d_grid


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """Sample (N, C, H, W) ``input`` at the (N, Ho, Wo, 2) normalised points of ``grid``
    (x, y in [-1, 1]; outside uses ``padding_mode``: "zeros", "border" or "reflection"),
    interpolating with ``mode`` "bilinear" or "nearest". 5-d inputs and "bicubic" are not
    supported (they raise NotImplementedError).

    Example::

        >>> x = glassgrad.arange(4.0).reshape(1, 1, 2, 2)
        >>> grid = glassgrad.zeros(1, 1, 1, 2)  # the centre
        >>> glassgrad.nn.functional.grid_sample(x, grid, align_corners=False)
        tensor([[[[1.5000]]]])
    """
    op = "grid_sample"
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    check_tensor(input, op)
    check_tensor(grid, op, "grid", 2)
    x, g = input._data, grid._data
    if x.dtype != g.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(x.dtype)} but found "
            f"{scalar_type_name(g.dtype)}"
        )
    if x.ndim != g.ndim or x.ndim not in (4, 5):
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got input with sizes {list(x.shape)} and grid with sizes {list(g.shape)}"
        )
    if x.shape[0] != g.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(x.shape)} and grid with sizes {list(g.shape)}"
        )
    if g.shape[-1] != x.ndim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {x.ndim - 2} in last dimension, but "
            f"got grid with sizes {list(g.shape)}"
        )
    if x.ndim == 5 or mode == "bicubic":
        raise NotImplementedError(
            f"grid_sample(): glassgrad samples 4-D inputs with mode 'bilinear' or 'nearest' "
            f"only (got a {x.ndim}-D input, mode '{mode}')"
        )
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f"\"grid_sampler_2d_cpu_kernel_impl\" not implemented for '{scalar_type_name(x.dtype)}'"
        )
    return GridSampler2DBackward0.apply(
        input, grid, mode=mode, padding_mode=padding_mode, align_corners=bool(align_corners)
    )


# --- registry ---------------------------------------------------------------------------


def _affine_grid_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 2, 3), [2, 3, 4, 5]), {"align_corners": False}),
        Sample((randn(rng, 1, 2, 3), [1, 1, 3, 1]), {"align_corners": True}),
        Sample((randn(rng, 2, 3, 4), [2, 1, 2, 3, 4]), {"align_corners": False}),
    ]


def _grid_sample_samples(rng: np.random.Generator) -> list[Sample]:
    def grid(*shape: int) -> np.ndarray:
        return rng.uniform(-1.3, 1.3, (*shape, 2))

    samples = []
    for padding in ("zeros", "border", "reflection"):
        for align in (False, True):
            samples.append(
                Sample(
                    (randn(rng, 2, 3, 4, 5), grid(2, 3, 6)),
                    {"padding_mode": padding, "align_corners": align},
                )
            )
    samples.append(
        Sample(
            (randn(rng, 1, 2, 4, 4), NoGrad(grid(1, 5, 3))),
            {"mode": "nearest", "align_corners": False},
            note="nearest: no gradient for the grid",
        )
    )
    return samples


_NF = "nn.functional"
register(
    "affine_grid",
    affine_grid,
    nodes=(AffineGridGeneratorBackward0,),
    samples=_affine_grid_samples,
    namespace=_NF,
)
register(
    "grid_sample",
    grid_sample,
    nodes=(GridSampler2DBackward0, GridSampler2DBackwardBackward0),
    samples=_grid_sample_samples,
    namespace=_NF,
)

__all__ = ["affine_grid", "grid_sample"]
