"""Fractional max pooling (Graham, 2014): ``fractional_max_pool2d fractional_max_pool3d`` and
their ``_with_indices`` forms (public in ``glassgrad.nn.functional``).

Windows of ``kernel_size`` start at pseudo-random, increasing offsets so that the output has
``output_size``: along each axis, with a sample ``u`` in [0, 1) per plane and
``alpha = (in - k) / (out - 1)``, window ``i`` starts at ``int((i + u) * alpha) - int(u *
alpha)`` (the last at ``in - k``), computed in the input's dtype as ATen does. The samples
are ``_random_samples`` (N, C, 2 or 3) when given, else drawn from glassgrad's generator
(uniform, the input's dtype): PyTorch's order of the samples is (W, H) in 2-d and (T, H, W)
in 3-d. The gradient of each output goes to its window's maximum (accumulated where windows
overlap); its own gradient gathers from there (``FractionalMaxPool2DBackwardBackward0``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _factories
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, input_zeros
from ._not_implemented import check_no_requires_grad, refuse_complex
from ._pool_geometry import gather_flat
from ._registry import NoGrad, Sample, register
from ._samples import randn


def _starts(samples: np.ndarray, size: int, out: int, pool: int) -> np.ndarray:
    """Window starts (planes, out) along one axis, from one sample per plane."""
    dtype = samples.dtype.type
    starts = np.zeros((samples.size, out), np.int64)
    if out > 1:
        alpha = dtype(size - pool) / dtype(out - 1)
        steps = np.arange(out - 1).astype(samples.dtype)
        first = (samples * alpha).astype(np.int64)
        starts[:, :-1] = ((steps[None, :] + samples[:, None]) * alpha).astype(np.int64)
        starts[:, :-1] -= first[:, None]
    if out > 0:
        starts[:, -1] = size - pool
    return starts


def _pool(x: np.ndarray, kernel: tuple, out_size: tuple, samples: np.ndarray) -> tuple:
    """(values, flat indices) of (planes, *spatial) ``x``; ``samples`` (planes, nd) in the
    axes' order (T, H, W)."""
    nd = len(kernel)
    planes, spatial = x.shape[0], x.shape[1:]
    # One advanced index per axis, shaped to broadcast to (planes, *out, *kernel).
    keys = [np.arange(planes).reshape((planes,) + (1,) * (2 * nd))]
    flat = np.zeros((planes,) + tuple(out_size) + tuple(kernel), np.int64)
    for axis in range(nd):
        starts = _starts(samples[:, axis], spatial[axis], out_size[axis], kernel[axis])
        shape_out = [1] * nd
        shape_out[axis] = out_size[axis]
        shape_k = [1] * nd
        shape_k[axis] = kernel[axis]
        position = starts.reshape((planes, *shape_out, *([1] * nd))) + np.arange(
            kernel[axis]
        ).reshape((1, *([1] * nd), *shape_k))
        keys.append(position)
        flat = flat * spatial[axis] + position
    windows = x[tuple(keys)].reshape(planes, *out_size, -1)
    count = windows.shape[-1]
    # Each window's first maximum, read from the flat arrays (row offset + choice).
    chosen = np.argmax(windows, axis=-1) + np.arange(0, windows.size, count).reshape(
        windows.shape[:-1]
    )
    flat = np.broadcast_to(flat, windows.shape[:-1] + tuple(kernel)).reshape(-1)
    return windows.reshape(-1).take(chosen), flat.take(chosen)


class FractionalMaxPool2DBackward0(Op):
    """out = the maximum of each fractional window; the indices (flat in each plane) too."""

    kernel_size: Any
    output_size: Any

    saved_inputs: tuple[int, ...] = (0,)
    grad_reads_saved = True  # PyTorch's backward node takes the input: under create_graph
    nondiff_outputs: tuple[int, ...] = (1,)
    saved_outputs: tuple[int, ...] = (1,)
    __slots__ = ("kernel_size", "output_size", "_indices", "_shape")

    def forward(self, x: Any, kernel_size: Any, output_size: Any, samples: Any) -> Any:
        nd = len(kernel_size)
        self.kernel_size, self.output_size, self._shape = kernel_size, output_size, x.shape
        lead = x.shape[:-nd]
        planes = x.reshape(-1, *x.shape[-nd:])
        order = samples.reshape(-1, nd)
        if nd == 2:
            order = order[:, ::-1]  # PyTorch's 2-d samples are (W, H)
        values, indices = _pool(planes, kernel_size, output_size, order)
        self._indices = indices.reshape(*lead, *output_size)
        return values.reshape(*lead, *output_size), self._indices

    def backward(self, F: Any, grads: Any) -> Any:
        grad = grads[0] if type(grads) is tuple else grads
        x = self.saved[0]
        return _BACKWARD[type(self)].call(grad, x, indices=self._indices, shape=self._shape)


class FractionalMaxPool3DBackward0(FractionalMaxPool2DBackward0):
    """``fractional_max_pool3d``: as ``FractionalMaxPool2DBackward0`` over (T, H, W)."""

    __slots__ = ()


class FractionalMaxPool2DBackwardBackward0(Op):
    """grad_input = each output gradient added at its window's maximum (the input is taken for
    an edge only, as PyTorch's node takes it: its gradient is zeros); its own gradient
    gathers from there."""

    __slots__ = ("_indices",)

    def forward(self, grad: Any, x: Any, indices: Any, shape: Any) -> Any:
        self._indices = indices
        return _scatter_add(grad, indices, shape, _SPATIAL[type(self)])

    def backward(self, F: Any, grad: Any) -> Any:
        return gather_flat(F, grad, self._indices, _SPATIAL[type(self)]), input_zeros(F, self, 1)


class FractionalMaxPool3DBackwardBackward0(FractionalMaxPool2DBackwardBackward0):
    """``fractional_max_pool3d``'s backward as an op."""

    __slots__ = ()


_BACKWARD = {
    FractionalMaxPool2DBackward0: FractionalMaxPool2DBackwardBackward0,
    FractionalMaxPool3DBackward0: FractionalMaxPool3DBackwardBackward0,
}
_SPATIAL = {FractionalMaxPool2DBackwardBackward0: 2, FractionalMaxPool3DBackwardBackward0: 3}


def _scatter_add(grad: np.ndarray, indices: np.ndarray, shape: tuple, nd: int) -> np.ndarray:
    planes, volume = math.prod(shape[:-nd]), math.prod(shape[-nd:])
    out = np.zeros(planes * volume, grad.dtype)
    # Flat targets, in the order of the gradient's elements (add.at sums repeats in order).
    per_plane = indices.size // planes if planes else 0
    targets = indices.reshape(planes, per_plane) + np.arange(0, planes * volume, volume)[:, None]
    np.add.at(out, targets.reshape(-1), grad.reshape(-1))
    return out.reshape(shape)


def _tuple(value: Any, nd: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * nd


def _fractional(
    op: str,
    nd: int,
    input: Tensor,
    kernel_size: Any,
    output_size: Any,
    output_ratio: Any,
    samples: Tensor | None,
) -> tuple:
    check_tensor(input, op)
    x = input._data
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if isinstance(output_ratio, (tuple, list)) and len(output_ratio) > nd:
            raise ValueError(
                f"{op} requires output_ratio to either be a single Int or tuple of Ints."
            )
        ratio = _tuple(output_ratio, nd)
        output_size = [int(x.shape[-nd + i] * ratio[i]) for i in range(nd)]
    kernel, out = _tuple(kernel_size, nd), _tuple(output_size, nd)
    check_no_requires_grad(samples, "random_samples", op)
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{op}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(x.shape)}"
        )
    names = ("time", "height", "width")[-nd:]
    for axis in range(nd):
        if out[axis] + kernel[axis] - 1 > x.shape[-nd + axis]:
            raise RuntimeError(
                f"{op}(): pool {names[axis]} {kernel[axis]} too large relative to input "
                f"{names[axis]} {x.shape[-nd + axis]}"
            )
    refuse_complex(f"fractional_max_pool{nd}d_out_frame", input)
    batch, channels = (1 if x.ndim == nd + 1 else x.shape[0]), x.shape[-nd - 1]
    if samples is None:
        samples = _factories.rand(batch, channels, nd, dtype=input.dtype)
    s = samples._data
    if s.shape != (batch, channels, nd):
        raise RuntimeError(
            f"{op}(): expected _random_samples of shape {[batch, channels, nd]}, got "
            f"{list(s.shape)}"
        )
    if s.dtype != x.dtype:  # PyTorch's kernel reads them in the input's type: no cast
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    node = FractionalMaxPool2DBackward0 if nd == 2 else FractionalMaxPool3DBackward0
    return node.apply(input, kernel_size=kernel, output_size=out, samples=s)


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, ...]:
    """``fractional_max_pool2d`` returning the values and the flat indices of the maxima.

    Example::

        >>> x = glassgrad.arange(25.0).reshape(1, 1, 5, 5)
        >>> samples = glassgrad.tensor([[[0.3, 0.8]]])
        >>> F = glassgrad.nn.functional
        >>> F.fractional_max_pool2d_with_indices(x, 2, 3, _random_samples=samples)[1]
        tensor([[[[ 6,  7,  9],
                  [11, 12, 14],
                  [21, 22, 24]]]])
    """
    return _fractional(
        "fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio, _random_samples
    )


def fractional_max_pool2d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """2-d fractional max pooling over (N, C, H, W) or (C, H, W) to ``output_size`` (or
    ``output_ratio`` of the input size), windows of ``kernel_size`` at pseudo-random
    offsets (see the module notes); with ``return_indices`` also the flat indices.

    Example::

        >>> x = glassgrad.arange(25.0).reshape(1, 1, 5, 5)
        >>> F = glassgrad.nn.functional
        >>> F.fractional_max_pool2d(x, 2, 3, _random_samples=glassgrad.tensor([[[0.3, 0.8]]]))
        tensor([[[[ 6.,  7.,  9.],
                  [11., 12., 14.],
                  [21., 22., 24.]]]])
    """
    values, indices = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, True, _random_samples
    )
    return (values, indices) if return_indices else values


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, ...]:
    """``fractional_max_pool3d`` returning the values and the flat indices of the maxima."""
    return _fractional(
        "fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio, _random_samples
    )


def fractional_max_pool3d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """3-d fractional max pooling over (N, C, T, H, W) or (C, T, H, W); see
    ``fractional_max_pool2d`` (the samples are in (T, H, W) order).

    Example::

        >>> x = glassgrad.randn(1, 2, 5, 5, 5)
        >>> glassgrad.nn.functional.fractional_max_pool3d(x, 2, output_ratio=0.5).shape
        glassgrad.Size([1, 2, 2, 2, 2])
    """
    values, indices = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, True, _random_samples
    )
    return (values, indices) if return_indices else values


def _samples_2d(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample(
            (randn(rng, 2, 3, 7, 6), 2),
            {"output_size": 4, "_random_samples": NoGrad(rng.random((2, 3, 2)))},
        ),  # fmt: skip
        Sample(
            (randn(rng, 2, 9, 8), (3, 2)),
            {"output_size": (4, 5), "_random_samples": NoGrad(rng.random((1, 2, 2)))},
            note="unbatched",
        ),  # fmt: skip
        Sample(
            (randn(rng, 1, 2, 8, 8), 3),
            {
                "output_ratio": (0.5, 0.5),  # (PyTorch's F takes no float here)
                "return_indices": True,
                "_random_samples": NoGrad(rng.random((1, 2, 2))),
            },
        ),  # fmt: skip
    ]


def _samples_3d(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample(
            (randn(rng, 2, 2, 5, 6, 5), 2),
            {"output_size": (3, 4, 2), "_random_samples": NoGrad(rng.random((2, 2, 3)))},
        ),  # fmt: skip
        Sample(
            (randn(rng, 2, 6, 5, 5), (3, 2, 2)),
            {"output_ratio": (0.5, 0.6, 0.5), "_random_samples": NoGrad(rng.random((1, 2, 3)))},
            note="unbatched",
        ),  # fmt: skip
    ]


_NF = "nn.functional"
_NODES2 = (FractionalMaxPool2DBackward0, FractionalMaxPool2DBackwardBackward0)
_NODES3 = (FractionalMaxPool3DBackward0, FractionalMaxPool3DBackwardBackward0)
for _fn, _nodes, _samples in (
    (fractional_max_pool2d, _NODES2, _samples_2d),
    (fractional_max_pool2d_with_indices, _NODES2, _samples_2d),
    (fractional_max_pool3d, _NODES3, _samples_3d),
    (fractional_max_pool3d_with_indices, _NODES3, _samples_3d),
):
    register(_fn.__name__, _fn, nodes=_nodes, samples=_samples, namespace=_NF)

__all__ = [
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
]
