"""``grid_sample`` (public in ``glassgrad.nn.functional``): read (N, C, H, W) or
(N, C, D, H, W) input at the normalised points of a grid.

Bilinear (trilinear for 5-d), nearest and, on 4-d input, bicubic interpolation; zeros, border
or reflection padding; with and without ``align_corners``. The taps and weights follow ATen's
CPU kernels step by step (``_grid_sample_taps.py``), so values and both gradients (input and
grid) are PyTorch's; so are the second derivatives (PyTorch's
``grid_sampler_{2,3}d_double_backward``) and, as those are written with differentiable ops,
the third.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor, sum_defined
from ._grid_sample_taps import Sampling, product, sample, sample_backward
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .gather_scatter import GatherBackward0
from .indexing import ScatterAddZerosBackward0
from .nn_affine_grid import ALIGN_WARNING


class _GridSampler(Op):
    """out[n, c, *p] = input[n, c] interpolated at grid[n, *p] (normalised x, y (, z))."""

    mode: str
    padding_mode: str
    align_corners: bool

    saved_inputs: tuple[int, ...] = (0, 1)
    __slots__ = ("mode", "padding_mode", "align_corners")

    def forward(self, x: Any, grid: Any, mode: Any, padding_mode: Any, align_corners: Any) -> Any:
        self.mode, self.padding_mode, self.align_corners = mode, padding_mode, align_corners
        return sample(x, grid, mode, padding_mode, align_corners)

    def backward(self, F: Any, grad: Any) -> Any:
        x, grid = self.saved
        return _BACKWARD[type(self)].call(
            grad,
            x,
            grid,
            mode=self.mode,
            padding_mode=self.padding_mode,
            align_corners=self.align_corners,
            needs=self.needs_input_grad,
        )


class _GridSamplerBackward(Op):
    """(grad_input, grad_grid) of ``grid_sample`` from (grad, input, grid).

    grad_input = S^T grad, with S the sampling (linear in the input, weights set by the
    grid); grad_grid = per point, the slopes of the interpolant along each axis dotted with
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
        grad_x, grad_grid = sample_backward(
            grad, x, grid, mode, padding_mode, align_corners, needs[0]
        )
        return (np.zeros(x.shape, x.dtype) if grad_x is None else grad_x), grad_grid

    def backward(self, F: Any, grads: Any) -> Any:
        """PyTorch's ``grid_sampler_{2,3}d_double_backward``: the gradients of
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
                d_grad = _FORWARD[type(self)].call(gg_input, grid, **params)
            if needs[2]:
                d_grid = type(self).call(grad, gg_input, grid, needs=(False, True), **params)[1]
        if gg_grid is not None and self.mode != "nearest":  # nearest: grad_grid is zero
            terms = _grid_gradient_terms(F, grad, x, grid, gg_grid, needs, params)
            d_grad, d_input, d_grid = (
                sum_defined(a, b) for a, b in zip((d_grad, d_input, d_grid), terms)
            )
        return d_grad, d_input, d_grid


class GridSampler2DBackward0(_GridSampler):
    __slots__ = ()


class GridSampler3DBackward0(_GridSampler):
    __slots__ = ()


class GridSampler2DBackwardBackward0(_GridSamplerBackward):
    __slots__ = ()


class GridSampler3DBackwardBackward0(_GridSamplerBackward):
    __slots__ = ()


_BACKWARD: dict[type[Op], type[Op]] = {
    GridSampler2DBackward0: GridSampler2DBackwardBackward0,
    GridSampler3DBackward0: GridSampler3DBackwardBackward0,
}
_FORWARD: dict[type[Op], type[Op]] = {b: f for f, b in _BACKWARD.items()}


def _tracking(grid_coord: Any, value: np.ndarray, slope: np.ndarray) -> Any:
    """The pixel coordinate ``value`` as a function of the grid coordinate (affine with
    ``slope`` between kinks): under ``create_graph`` its derivatives reach the grid."""
    if not isinstance(grid_coord, Tensor):
        return value
    return grid_coord * slope + (value - grid_coord._data * slope)


def _replaced(weights: list, replaced: dict) -> Any:
    """The product of a corner's per-axis weights, some replaced by their derivatives."""
    return product([replaced.get(k, w) for k, w in enumerate(weights)])


def _per_channel(F: Any, weight: Any) -> Any:
    """An (N, P) weight as (N, 1, P), to broadcast over channels (a number as it is)."""
    return weight if isinstance(weight, float) else F.unsqueeze(weight, 1)


def _grid_gradient_terms(F, grad, x, grid, gg_grid, needs, params) -> tuple:
    """The derivative of <gg_grid, grad_grid> for (grad, input, grid).

    With i_k the pixel coordinate along axis k (slope m_k in the grid), D_k(corner) the
    derivative in i_k of the corner's weight and G_k = gg_k m_k, grad_grid paired with
    gg_grid is sum over corners of <input at corner, grad> sum_k G_k D_k. Its gradients,
    grouped as PyTorch's ``grid_sampler_{2,3}d_double_backward`` groups them (so that an
    infinite or NaN value meets the same zeros and sums): for grad, sum_k (sum over corners of
    input at corner times D_k) G_k; for the input, grad times a(corner) = sum_k G_k D_k,
    scattered to the corners; for grid coordinate j, m_j sum_k G_k S_jk with S_jk the channel
    sum of grad times the corners' inputs weighted by dD_k/di_j (bilinear: corners combined
    first; bicubic: each corner's channel sum first; the cross terms, and for bicubic the
    diagonal too). A corner outside the image is read and written at its position clamped
    into the image, times a zero mask, as PyTorch's gather and scatter_add do.
    """
    x_arr, grid_arr = array_of(x), array_of(grid)
    n, c, *spatial = x_arr.shape
    nd, mode = len(spatial), params["mode"]
    s = Sampling(grid_arr, tuple(spatial), mode, params["padding_mode"], params["align_corners"])
    points = math.prod(grid_arr.shape[1:-1])

    def per_point(t: Any) -> Any:
        return F.reshape(t, (n, points))

    coords = [
        _tracking(per_point(grid[..., k]) if isinstance(grid, Tensor) else None, x_k, m_k)
        for k, (x_k, m_k) in enumerate(zip(s.coords, s.slopes))
    ]
    w, dw = s.weights(0, coords), s.weights(1, coords)
    d2w = s.weights(2, coords) if mode == "bicubic" else None  # bilinear: linear per axis
    gg = [per_point(gg_grid[..., k]) * s.slopes[k] for k in range(nd)]
    flat_x = F.reshape(x, (n, c, math.prod(spatial)))
    g = F.reshape(grad, (n, c, points))
    along: list = [None] * nd  # per axis k: sum over corners of the input times D_k
    d_input = None
    cross: dict = {}  # (j, k): S_jk before its channel sum (bilinear) or S_jk (bicubic)
    for (combo, _, inside), clamped in zip(s.corners, s.clamped):
        chosen = [w[k][j] for k, j in enumerate(combo)]
        slopes = [dw[k][j] for k, j in enumerate(combo)]
        derivatives = [_replaced(chosen, {k: slopes[k]}) for k in range(nd)]
        mask = inside[:, None, :].astype(x_arr.dtype)
        index_b = np.broadcast_to(clamped[:, None, :], (n, c, points))
        values = GatherBackward0.call(flat_x, dim=2, index=index_b) * mask
        if needs[0]:
            for k in range(nd):
                along[k] = sum_defined(along[k], values * _per_channel(F, derivatives[k]))
        if needs[1]:
            a = None
            for k in range(nd):
                a = sum_defined(a, gg[k] * derivatives[k])
            spread = ScatterAddZerosBackward0.call(
                g * _per_channel(F, a) * mask,
                shape=tuple(array_of(flat_x).shape),
                dim=2,
                index=index_b,
            )
            d_input = sum_defined(d_input, spread)
        if not needs[2]:
            continue
        seen = F.sum(values * g, 1) if mode == "bicubic" else None
        for j in range(nd):
            for k in range(nd):
                if j != k:
                    term = _replaced(chosen, {k: slopes[k], j: slopes[j]})
                elif d2w is not None:
                    term = _replaced(chosen, {k: d2w[k][combo[k]]})
                else:
                    continue
                part = values * _per_channel(F, term) if seen is None else seen * term
                cross[j, k] = sum_defined(cross.get((j, k)), part)
    d_grad = None
    if needs[0]:
        for k in range(nd):
            d_grad = sum_defined(d_grad, along[k] * _per_channel(F, gg[k]))
        d_grad = F.reshape(d_grad, array_of(grad).shape)
    if d_input is not None:
        d_input = F.reshape(d_input, x_arr.shape)
    d_grid = None
    if needs[2]:
        moving = []
        for j in range(nd):
            h = None
            for k in range(nd):
                if (j, k) in cross:
                    total = cross[j, k] if mode == "bicubic" else F.sum(g * cross[j, k], 1)
                    h = sum_defined(h, gg[k] * total)
            moving.append(h * s.slopes[j])
        d_grid = F.reshape(F.stack(moving, -1), grid_arr.shape)
    return d_grad, d_input, d_grid


def _check(x: np.ndarray, g: np.ndarray, mode: str) -> None:
    """PyTorch's ``check_grid_sampler_common`` / ``_2d`` / ``_3d``, in its order."""
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
    for axis in range(2, x.ndim):
        if x.shape[axis] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {list(x.shape)} with dimension {axis} being empty"
            )
    if x.ndim == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if x.dtype.kind != "f":
        kernel = "grid_sampler_2d_cpu_kernel_impl" if x.ndim == 4 else "grid_sampler3d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(x.dtype)}'")


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """Sample (N, C, H, W) ``input`` at the (N, Ho, Wo, 2) normalised points of ``grid``, or
    (N, C, D, H, W) input at (N, Do, Ho, Wo, 3) points (x, y, z in [-1, 1]: x along the last
    axis). Outside the image ``padding_mode`` rules: "zeros", "border" or "reflection";
    ``mode`` "bilinear" (trilinear on 5-d input), "nearest" or, on 4-d input, "bicubic"
    (cubic convolution, A = -0.75). With ``align_corners`` -1 and 1 are the centres of the
    corner pixels, else their outer edges.

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
        warnings.warn(ALIGN_WARNING, stacklevel=2)
        align_corners = False
    check_tensor(input, op)
    check_tensor(grid, op, "grid", 2)
    _check(input._data, grid._data, mode)
    node = GridSampler2DBackward0 if input.dim() == 4 else GridSampler3DBackward0
    return node.apply(
        input, grid, mode=mode, padding_mode=padding_mode, align_corners=bool(align_corners)
    )


# --- registry ---------------------------------------------------------------------------


def _grid_sample_samples(rng: np.random.Generator) -> list[Sample]:
    def grid(*shape: int) -> np.ndarray:
        return rng.uniform(-1.3, 1.3, shape)

    samples = []
    for padding in ("zeros", "border", "reflection"):
        for align in (False, True):
            samples.append(
                Sample(
                    (randn(rng, 2, 3, 4, 5), grid(2, 3, 6, 2)),
                    {"padding_mode": padding, "align_corners": align},
                )
            )
            samples.append(
                Sample(
                    (randn(rng, 1, 2, 4, 5), grid(1, 2, 3, 2)),
                    {"mode": "bicubic", "padding_mode": padding, "align_corners": align},
                )
            )
            samples.append(
                Sample(
                    (randn(rng, 1, 2, 3, 4, 3), grid(1, 2, 2, 3, 3)),
                    {"padding_mode": padding, "align_corners": align},
                )
            )
    samples.append(
        Sample(
            (randn(rng, 1, 2, 4, 4), NoGrad(grid(1, 5, 3, 2))),
            {"mode": "nearest", "align_corners": False},
            note="nearest: no gradient for the grid",
        )
    )
    samples.append(
        Sample(
            (randn(rng, 1, 2, 3, 4, 4), NoGrad(grid(1, 2, 3, 2, 3))),
            {"mode": "nearest", "padding_mode": "reflection", "align_corners": True},
            note="nearest: no gradient for the grid",
        )
    )
    return samples


register(
    "grid_sample",
    grid_sample,
    nodes=(
        GridSampler2DBackward0,
        GridSampler2DBackwardBackward0,
        GridSampler3DBackward0,
        GridSampler3DBackwardBackward0,
    ),
    samples=_grid_sample_samples,
    namespace="nn.functional",
)

__all__ = ["grid_sample"]
