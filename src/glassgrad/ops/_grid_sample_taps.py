"""Where ``grid_sample`` reads its input, and with what weights: the array side of
``nn_grid_sample.py``, for 4-d and 5-d inputs alike.

Each grid coordinate k (x, y, z) is mapped to a pixel coordinate along spatial axis
``nd - 1 - k`` of the input (x along W, the last axis), as ATen's ``grid_sampler_unnormalize``
does, then folded into the image by the padding mode (bilinear and nearest), together with the
slope of that map. Along each axis a point reads a few "taps": 1 (nearest: the rounded
coordinate), 2 (bilinear: floor and floor + 1) or 4 (bicubic: floor - 1 ... floor + 2, each
folded by the padding mode on its own, as ATen's ``get_value_bounded``). A point reads every
combination of one tap per axis (a corner) with the product of the taps' weights.

The taps are gathered and their gradients scattered, never multiplied through a dense matrix,
so a NaN in the input reaches only the points that read it. A NaN grid coordinate goes where
PyTorch's kernels send it: 4-d (vectorised kernel) clips it to 0 and spreads a NaN weight over
the out-of-image corners too; 5-d (scalar kernel) clips it to the far edge and skips the
corners outside.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ._common import take_along_axis

_A = -0.75  # the cubic convolution's parameter (ATen's get_cubic_upsample_coefficients)


def unnormalize(coord: np.ndarray, size: int, align_corners: bool) -> tuple:
    """ATen's ``grid_sampler_unnormalize_set_grad``: pixel coordinates and their slope."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


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
    with np.errstate(invalid="ignore"):
        even = np.floor(shifted / span) % 2 == 0
    folded = np.where(even, extra + low, span - extra + low).astype(x.dtype)
    return folded, np.where(even, sign, -sign).astype(x.dtype)


def fold(x: np.ndarray, size: int, padding: str, align_corners: bool, nan_to: Any) -> tuple:
    """ATen's ``compute_coordinates`` with its gradient factor: ``x`` clipped (border) or
    reflected and clipped (reflection) into the image; a NaN clips to ``nan_to``."""
    factor = np.ones(x.shape, x.dtype)
    if padding == "zeros":
        return x, factor
    if padding == "reflection":
        low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        x, flip = _reflect(x, low, high)
        factor *= flip
    factor *= (x > 0) & (x < size - 1)
    clipped = np.clip(x, 0, size - 1)
    if nan_to is not None:
        clipped = np.where(np.isnan(x), x.dtype.type(nan_to), clipped)
    return clipped, factor


def cubic_weights(t: Any, order: int) -> list:
    """The four cubic convolution weights of taps floor - 1 ... floor + 2 at fraction ``t``
    (array or Tensor), or their first (order 1) or second (order 2) derivatives in ``t``."""
    a = _A
    if order == 0:
        near = lambda s: ((a + 2) * s - (a + 3)) * s * s + 1  # noqa: E731  |s| <= 1
        far = lambda s: ((a * s - 5 * a) * s + 8 * a) * s - 4 * a  # noqa: E731  1 < |s| < 2
    elif order == 1:
        near = lambda s: (3 * (a + 2) * s - 2 * (a + 3)) * s  # noqa: E731
        far = lambda s: (3 * a * s - 10 * a) * s + 8 * a  # noqa: E731
    else:
        near = lambda s: 6 * (a + 2) * s - 2 * (a + 3)  # noqa: E731
        far = lambda s: 6 * a * s - 10 * a  # noqa: E731
    back = 1 - t
    sign = -1 if order == 1 else 1  # d/dt of a function of (1 - t)
    return [far(t + 1), near(t), sign * near(back), sign * far(back + 1)]


def axis_weights(mode: str, x: Any, base: Any, order: int) -> list:
    """Weights (order 0) of one axis's taps at pixel coordinate ``x`` (array or Tensor, its
    floor ``base`` an array), or their derivatives in ``x``; Python numbers where constant."""
    if mode == "nearest":
        return [1.0 if order == 0 else 0.0]
    if mode == "bilinear":
        return [[(base + 1) - x, x - base], [-1.0, 1.0], [0.0, 0.0]][order]
    return cubic_weights(x - base, order)


class Sampling:
    """The taps of every grid point: per axis its pixel coordinate, slope, floor and tap
    positions; the corners as flat indices into the (prod spatial) input with their masks.
    Shapes are (N, P) for P grid points per batch element."""

    __slots__ = ("mode", "coords", "slopes", "bases", "corners", "clamped", "spread_nan")

    def __init__(self, grid: np.ndarray, spatial: tuple, mode: str, padding: str, align: bool):
        nd, n, points = len(spatial), grid.shape[0], math.prod(grid.shape[1:-1])
        self.mode, self.spread_nan = mode, nd == 2
        self.coords, self.slopes, self.bases, taps = [], [], [], []
        for k in range(nd):
            size = spatial[nd - 1 - k]
            x, slope = unnormalize(grid[..., k].reshape(n, points), size, align)
            slope = np.full(x.shape, slope, x.dtype)
            if mode != "bicubic":
                x, factor = fold(x, size, padding, align, 0 if nd == 2 else size - 1)
                slope = slope * factor
            self.coords.append(x)
            self.slopes.append(slope)
            taps.append(self._taps(x, size, padding, align, nd))
        strides = [int(np.prod(spatial[nd - k :])) for k in range(nd)]
        self.corners, self.clamped = [], []
        for combo in itertools.product(*(range(len(t)) for t in taps)):
            index, inside, clamped = 0, True, 0
            for k, j in enumerate(combo):
                position, within, nearest = taps[k][j]
                index = index + position * strides[k]
                clamped = clamped + nearest * strides[k]
                inside = inside & within
            index = np.where(inside, index, 0).astype(np.intp)
            self.corners.append((combo, index, inside))
            self.clamped.append(clamped)

    def _taps(self, x: np.ndarray, size: int, padding: str, align: bool, nd: int) -> list:
        """(position, inside, clamped) of each tap along one axis: its position where
        inside the image (else 0), and clamped into it (where PyTorch's double backward
        reads and writes a corner outside, multiplied by a zero mask)."""
        if self.mode == "nearest":
            self.bases.append(None)
            positions = [np.rint(x)]
        else:
            base = np.floor(x)
            self.bases.append(base)
            offsets = (0, 1) if self.mode == "bilinear" else (-1, 0, 1, 2)
            positions = [base + o for o in offsets]
            if self.mode == "bicubic":
                nan_to = 0 if nd == 2 else size - 1
                positions = [np.trunc(fold(p, size, padding, align, nan_to)[0]) for p in positions]
        taps = []
        for p in positions:
            inside = (p >= 0) & (p <= size - 1)
            # PyTorch converts to int64 first: NaN, infinities and the out-of-range give
            # INT64_MIN, which clamps to 0.
            clamped = np.where(np.abs(p) < 2.0**63, np.clip(p, 0, size - 1), 0).astype(np.intp)
            taps.append((np.where(inside, p, 0).astype(np.intp), inside, clamped))
        return taps

    def weights(self, order: int, coords: list | None = None) -> list:
        """Per axis, the taps' weights (order 0) or derivatives, at ``coords`` (the pixel
        coordinates as arrays or tracked Tensors; default the arrays)."""
        coords = self.coords if coords is None else coords
        return [axis_weights(self.mode, x, b, order) for x, b in zip(coords, self.bases)]


def product(factors: list) -> Any:
    """The product of weights (arrays, Tensors or Python numbers), 1.0 for none."""
    out: Any = 1.0
    for f in factors:
        out = f if isinstance(out, float) and out == 1.0 else out * f
    return out


def _per_channel(weight: Any) -> Any:
    """An (N, P) weight as (N, 1, P), to broadcast over channels (a number as it is)."""
    return weight[:, None] if isinstance(weight, np.ndarray) else weight


def gather(x: np.ndarray, index: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """(N, C, L) ``x`` at the (N, P) flat ``index``: (N, C, P), zero outside the image."""
    values = take_along_axis(x, index[:, None, :], axis=2)
    return np.where(inside[:, None, :], values, values.dtype.type(0))


def sample(x: np.ndarray, grid: np.ndarray, mode: str, padding: str, align: bool) -> np.ndarray:
    """grid_sample's forward on arrays: (N, C, *spatial) at (N, *out, nd): (N, C, *out)."""
    n, c, *spatial = x.shape
    s = Sampling(grid, tuple(spatial), mode, padding, align)
    flat = x.reshape(n, c, math.prod(spatial))
    weights = s.weights(0)
    out = np.zeros((n, c, math.prod(grid.shape[1:-1])), x.dtype)
    for combo, index, inside in s.corners:
        weight = _per_channel(product([weights[k][j] for k, j in enumerate(combo)]))
        values = take_along_axis(flat, index[:, None, :], axis=2)
        zero = values.dtype.type(0)
        if s.spread_nan:  # the masked value times the weight (a NaN weight stays NaN)
            out += np.where(inside[:, None], values, zero) * weight
        else:  # corners outside skipped
            out += np.where(inside[:, None], values * weight, zero)
    return out.reshape(n, c, *grid.shape[1:-1])


def sample_backward(grad, x, grid, mode, padding, align, needs_input: bool) -> tuple:
    """(grad_input, grad_grid) of grid_sample on arrays; grad_input None unless
    ``needs_input``. grad_input scatters each point's gradient to its corners; grad_grid is,
    per coordinate k, the slope of the interpolant along axis k dotted with ``grad`` over the
    channels, times the slope of the pixel coordinate."""
    n, c, *spatial = x.shape
    s = Sampling(grid, tuple(spatial), mode, padding, align)
    nd, points, length = len(spatial), math.prod(grid.shape[1:-1]), math.prod(spatial)
    flat, g = x.reshape(n, c, length), grad.reshape(n, c, points)
    weights, slopes = s.weights(0), s.weights(1)
    grad_x = np.zeros(n * c * length, np.float64) if needs_input else None
    offsets = (np.arange(n * c) * length).reshape(n, c, 1)
    moving = [np.zeros((n, points), x.dtype) for _ in range(nd)]
    # PyTorch's kernels (GridSamplerKernel.cpp, GridSampler.cpp) order the grid gradient three
    # ways: 2-D bilinear combines the corners' values with the weights' slopes per channel and
    # multiplies by the gradient last ((ne - nw) * s + (se - sw) * n) * gOut; 3-D adds
    # val * weights * gOut for the corners inside the volume only; 2-D bicubic multiplies
    # every tap's (zero-padded) value by the gradient. An infinite gradient then gives inf
    # or NaN where PyTorch's does.
    combine_first = mode == "bilinear" and nd == 2
    per_channel = [np.zeros((n, c, points), x.dtype) for _ in range(nd)] if combine_first else []
    for combo, index, inside in s.corners:
        chosen = [weights[k][j] for k, j in enumerate(combo)]
        if grad_x is not None:
            weight = _per_channel(product(chosen))
            contribution = np.where(inside[:, None], g * weight, 0)
            cells = np.broadcast_to(index[:, None, :] + offsets, g.shape)
            grad_x += np.bincount(
                cells.reshape(-1), contribution.reshape(-1), minlength=grad_x.size
            )
        if mode == "nearest":
            continue
        values = gather(flat, index, inside)
        seen = None if combine_first or nd == 3 else (values * g).sum(axis=1)
        for k in range(nd):
            others = product(chosen[:k] + [slopes[k][combo[k]]] + chosen[k + 1 :])
            if combine_first:
                per_channel[k] += values * _per_channel(others)
            elif nd == 3:  # corners outside are skipped, not multiplied by a zero value
                term = values * _per_channel(others) * g
                moving[k] += np.where(inside[:, None], term, 0).sum(axis=1)
            else:
                moving[k] += seen * others
    if combine_first:
        moving = [(slope_c * g).sum(axis=1) for slope_c in per_channel]
    grad_grid = np.stack([m * slope for m, slope in zip(moving, s.slopes)], -1)
    grad_grid = grad_grid.reshape(grid.shape).astype(grid.dtype, copy=False)
    if grad_x is not None:
        grad_x = grad_x.reshape(x.shape).astype(x.dtype, copy=False)
    return grad_x, grad_grid
