"""Resampling: ``interpolate`` (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
area; antialiased bilinear, bicubic and lanczos) and PyTorch's deprecated ``upsample``,
``upsample_nearest``, ``upsample_bilinear`` (public in ``glassgrad.nn.functional``).

Every mode but area is separable: along each spatial axis, output position ``i`` reads a few
input positions ("taps", 1 for nearest, 2 for linear, 4 for cubic, the filter's support for
antialiased modes) with fixed weights, so the op is that axis by axis. Taps and weights follow
ATen's CPU kernels exactly (its index rules in float32 for nearest, the source-index formula
with and without ``align_corners``, the clamped cubic taps with A = -0.75, the normalised
stretched filters of antialiasing), so values match PyTorch's and a NaN or inf in the input
spreads only where PyTorch's does. The op is linear: its backward is the adjoint (each tap's
gradient scattered back, so a NaN gradient reaches only the positions it was read from),
itself an op whose backward is the forward again, so ``create_graph=True`` gives second
derivatives. Area mode is adaptive average pooling.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._axis_taps import apply_taps, apply_taps_adjoint
from ._common import check_tensor
from ._registry import Sample, register
from ._samples import randn
from .nn_pool_adaptive import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

# --- taps: which input positions each output position reads, and with what weight ----------


def _scale(size: int, out: int, align_corners: bool, scale: float | None, dtype) -> Any:
    """ATen's ``area_pixel_compute_scale``: the source step per output step."""
    if align_corners:
        return dtype.type((size - 1) / (out - 1) if out > 1 else 0)
    if scale is not None and scale > 0:
        return dtype.type(1.0 / scale)
    return dtype.type(size) / dtype.type(out)


def _source(step: Any, out: int, align_corners: bool, cubic: bool, dtype) -> np.ndarray:
    """ATen's ``area_pixel_compute_source_index`` for every output position."""
    i = np.arange(out).astype(dtype)
    if align_corners:
        return step * i
    src = step * (i + dtype.type(0.5)) - dtype.type(0.5)
    return src if cubic else np.maximum(src, dtype.type(0))


def _nearest_taps(size: int, out: int, scale: float | None, exact: bool) -> np.ndarray:
    """Source position of each output position (ATen's ``nearest_idx``/``nearest_exact_idx``:
    float32 arithmetic, and the shortcuts for equal and doubled sizes)."""
    i = np.arange(out)
    if not exact and out == size:
        return i
    if not exact and out == 2 * size:
        return i >> 1
    step = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(size / out)
    if exact:
        src = np.floor(((i + 0.5) * np.float64(step)).astype(np.float32))
    else:
        src = np.floor(i.astype(np.float32) * step)
    return np.minimum(src.astype(np.int64), size - 1)


def _linear_taps(size: int, out: int, align_corners: bool, scale: float | None, dtype) -> tuple:
    """Two source positions and weights per output position (ATen's
    ``compute_source_index_and_lambda``)."""
    if out == size:  # ATen copies
        i = np.arange(out)
        return np.stack([i, i], 1), np.stack([np.ones(out, dtype), np.zeros(out, dtype)], 1)
    src = _source(_scale(size, out, align_corners, scale, dtype), out, align_corners, False, dtype)
    low = np.minimum(np.floor(src).astype(np.int64), size - 1)
    lam = np.clip(src - low.astype(dtype), 0, 1).astype(dtype)
    high = low + (low < size - 1)
    return np.stack([low, high], 1), np.stack([dtype.type(1) - lam, lam], 1)


def _cubic_taps(size: int, out: int, align_corners: bool, scale: float | None, dtype) -> tuple:
    """Four clamped source positions and the cubic convolution weights (A = -0.75) per output
    position (ATen's ``get_cubic_upsample_coefficients``)."""
    src = _source(_scale(size, out, align_corners, scale, dtype), out, align_corners, True, dtype)
    base = np.minimum(np.floor(src).astype(np.int64), size - 1)
    t = np.clip(src - base.astype(dtype), 0, 1).astype(dtype)
    a = dtype.type(-0.75)

    def near(x: np.ndarray) -> np.ndarray:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: np.ndarray) -> np.ndarray:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    one = dtype.type(1)
    weights = np.stack([far(t + one), near(t), near(one - t), far(2 * one - t)], 1)
    index = np.clip(base[:, None] + np.arange(-1, 3), 0, size - 1)
    return index, weights.astype(dtype)


def _aa_filter(mode: str, x: np.ndarray) -> np.ndarray:
    """The antialiasing filters (ATen's ``aa_filter``): triangle, cubic convolution with
    A = -0.5 (Keys, as PIL) and Lanczos-3."""
    x = np.abs(x)
    one, zero = x.dtype.type(1), x.dtype.type(0)
    if mode == "bilinear":
        return np.where(x < 1, one - x, zero)
    if mode == "bicubic":
        a = x.dtype.type(-0.5)
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return np.where(x < 1, near, np.where(x < 2, far, zero))
    return np.where(x < 3, np.sinc(x) * np.sinc(x / 3), zero)


_AA_WIDTH = {"bilinear": 2, "bicubic": 4, "lanczos": 6}  # ATen's interp_size


def _aa_taps(
    mode: str, size: int, out: int, align_corners: bool, scale, dtype, copy: bool, stretch=True
) -> tuple:
    """Antialiased taps (ATen's ``_compute_weights_aa``): output position i averages the
    inputs within the filter's support around its centre, the filter stretched by the
    downsampling factor, the weights normalised to sum to one. With ``copy`` an axis whose
    size does not change is copied: ATen's forward skips it, its backward does not (with a
    ``scale_factor`` the weights then differ from a copy). Without ``stretch`` (ATen's uint8
    bilinear without antialiasing) the filter keeps its width and ``align_corners`` shifts
    the centres by half a pixel."""
    if copy and out == size:
        return np.arange(out)[:, None], np.ones((out, 1), dtype)
    step = _scale(size, out, align_corners, scale, dtype)
    half = dtype.type(_AA_WIDTH[mode] * 0.5)
    stretched = stretch and step >= 1
    support = half * step if stretched else half
    inverse = 1 / step if stretched else dtype.type(1)
    delta = dtype.type(0.5 if align_corners and not stretch else 0)
    width = int(math.ceil(support)) * 2 + 1
    centre = step * (np.arange(out).astype(dtype) + dtype.type(0.5) - delta)
    low = np.maximum((centre - support + dtype.type(0.5) + delta).astype(np.int64), 0)
    count = np.minimum((centre + support + dtype.type(0.5) + delta).astype(np.int64), size) - low
    count = np.clip(count, 0, width)
    offsets = np.arange(width)
    index = low[:, None] + offsets
    used = offsets < count[:, None]
    distance = (index - centre[:, None] + dtype.type(0.5) - delta).astype(dtype) * inverse
    weights = np.where(used, _aa_filter(mode, distance), dtype.type(0))
    total = weights.sum(axis=1, keepdims=True)
    weights = np.where(total != 0, weights / np.where(total != 0, total, 1), weights)
    return np.where(used, index, -1), weights.astype(dtype)


def _uint8_taps(index: np.ndarray, weights: np.ndarray) -> tuple:
    """Float taps as PyTorch's uint8 kernels use them (after PIL): repeated positions merged,
    weights in fixed point with as many fraction bits as keep the largest under 2**15."""
    index, weights = index.copy(), weights.astype(np.float64)
    for t in range(1, index.shape[1]):
        for u in range(t):
            same = (index[:, t] == index[:, u]) & (index[:, t] >= 0)
            weights[same, u] += weights[same, t]
            weights[same, t], index[same, t] = 0, -1
    largest, bits = float(weights.max(initial=0)), 0
    while bits < 21 and int(0.5 + largest * (1 << (bits + 1))) < (1 << 15):
        bits += 1
    scaled = weights * (1 << bits)
    fixed = np.where(scaled >= 0, np.trunc(scaled + 0.5), np.trunc(scaled - 0.5))
    return index, fixed.astype(np.int64), bits


def _resample_uint8(x: np.ndarray, mode: str, out: tuple, align: bool, scales, aa: bool):
    """PyTorch's uint8 bilinear / bicubic / antialiased resampling: width then height, each
    pass in fixed point, rounded and clamped to [0, 255]; unchanged axes copied."""
    f64 = np.dtype(np.float64)
    for axis in (x.ndim - 1, x.ndim - 2):
        size, o, scale = x.shape[axis], out[axis - 2], scales[axis - 2]
        if size == o:
            continue
        if mode == "bicubic" and not aa:  # the float kernel's clamped taps
            taps = _cubic_taps(size, o, align, scale, f64)
        else:
            taps = _aa_taps(mode, size, o, align, scale, f64, True, stretch=aa)
        index, fixed, bits = _uint8_taps(*taps)
        moved = np.moveaxis(x, axis, -1).astype(np.int64)
        total = np.full((*moved.shape[:-1], o), 1 << (bits - 1), np.int64)
        for t in range(index.shape[1]):
            column = index[:, t]
            total += np.where(column >= 0, moved[..., column] * fixed[:, t], 0)
        x = np.moveaxis(np.clip(total >> bits, 0, 255).astype(np.uint8), -1, axis)
    return np.ascontiguousarray(x)


def _taps(
    mode: str, size: int, out: int, align_corners: bool, scale, dtype, adjoint=False
) -> tuple:
    """(index, weights) of one axis: (out, taps) arrays; weights None for nearest modes.
    ``adjoint``: those the backward transposes (antialiased modes: no copied axes)."""
    if mode.endswith("-aa"):
        return _aa_taps(mode[:-3], size, out, align_corners, scale, dtype, not adjoint)
    if mode in ("nearest", "nearest-exact"):
        return _nearest_taps(size, out, scale, mode == "nearest-exact")[:, None], None
    if mode == "bicubic":
        return _cubic_taps(size, out, align_corners, scale, dtype)
    return _linear_taps(size, out, align_corners, scale, dtype)


# --- applying the taps, and their adjoint ---------------------------------------------------


class _Upsample(Op):
    """out = the input resampled axis by axis with fixed taps (linear in the input; PyTorch
    saves nothing for its backward). The backward transposes ``adjoint_taps`` (default the
    same taps; PyTorch's antialiased backward resamples axes its forward copies)."""

    __slots__ = ("_taps", "_adjoint_taps", "_sizes")

    def forward(self, x: Any, taps: Any, adjoint_taps: Any = None) -> Any:
        self._taps, self._adjoint_taps = taps, taps if adjoint_taps is None else adjoint_taps
        self._sizes = x.shape[-len(taps) :]
        return apply_taps(x, taps)

    def backward(self, F: Any, grad: Any) -> Any:
        return _BACKWARD[type(self)].call(
            grad, taps=self._adjoint_taps, sizes=self._sizes, forward_taps=self._taps
        )


class _UpsampleBackward(Op):
    """grad_input = the adjoint of the resampling; its own gradient is the resampling."""

    __slots__ = ("_taps", "_forward_taps")

    def forward(self, grad: Any, taps: Any, sizes: Any, forward_taps: Any) -> Any:
        self._taps, self._forward_taps = taps, forward_taps
        return apply_taps_adjoint(grad, taps, sizes)

    def backward(self, F: Any, grad: Any) -> Any:
        return _FORWARD[type(self)].apply(grad, taps=self._forward_taps, adjoint_taps=self._taps)


_FORWARD: dict[type[Op], type[Op]] = {}
_BACKWARD: dict[type[Op], type[Op]] = {}
# (mode, spatial dims) -> the nodes PyTorch names for it (backward, double backward)
NODES: dict[tuple[str, int], tuple[type[Op], type[Op]]] = {}


def _node_classes(name: str) -> tuple:
    forward = type(
        f"{name}Backward0", (_Upsample,), {"__slots__": (), "__doc__": _Upsample.__doc__}
    )
    backward = type(
        f"{name}BackwardBackward0",
        (_UpsampleBackward,),
        {"__slots__": (), "__doc__": _UpsampleBackward.__doc__},
    )
    forward.__module__ = backward.__module__ = __name__
    _FORWARD[backward], _BACKWARD[forward] = forward, backward
    return forward, backward


for _mode, _nd, _name in (
    ("nearest", 1, "UpsampleNearest1D"),
    ("nearest", 2, "UpsampleNearest2D"),
    ("nearest", 3, "UpsampleNearest3D"),
    ("nearest-exact", 1, "UpsampleNearestExact1D"),
    ("nearest-exact", 2, "UpsampleNearestExact2D"),
    ("nearest-exact", 3, "UpsampleNearestExact3D"),
    ("linear", 1, "UpsampleLinear1D"),
    ("bilinear", 2, "UpsampleBilinear2D"),
    ("bicubic", 2, "UpsampleBicubic2D"),
    ("trilinear", 3, "UpsampleTrilinear3D"),
    ("bilinear-aa", 2, "UpsampleBilinear2DAa"),
    ("bicubic-aa", 2, "UpsampleBicubic2DAa"),
    ("lanczos-aa", 2, "UpsampleLanczos2DAa"),
):
    NODES[_mode, _nd] = _node_classes(_name)
    globals()[f"{_name}Backward0"], globals()[f"{_name}BackwardBackward0"] = NODES[_mode, _nd]


# --- the public functions -------------------------------------------------------------------

_MODE_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _output_size(x: np.ndarray, size: Any, scale_factor: Any, recompute: Any) -> tuple:
    """PyTorch's rules: exactly one of ``size`` and ``scale_factor``; the output size and the
    scales the kernel uses (None where it derives them from the sizes)."""
    dim = x.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(x.shape[2:])} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format."
                )
            if not all(isinstance(s, (int, np.integer)) for s in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}"
                )
            return tuple(int(s) for s in size), (None,) * dim
        return (int(size),) * dim, (None,) * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {list(x.shape[2:])} and scale_factor of "
                f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                "format and scale_factor in (s1, s2, ...,sK) format."
            )
        scales = tuple(float(s) for s in scale_factor)
    else:
        scales = (float(scale_factor),) * dim
    out = tuple(int(math.floor(n * s)) for n, s in zip(x.shape[2:], scales))
    return out, (None,) * dim if recompute else scales


def _check_dtype(dtype: np.dtype, mode: str, kernel: str, spatial_dims: int) -> None:
    """PyTorch's dtype errors: the name of the kernel without one for ``dtype`` (uint8
    bilinear and bicubic are resampled before)."""
    name, antialias = scalar_type_name(dtype), kernel.endswith("-aa")
    if antialias and (dtype.kind != "f" or dtype.itemsize < 4):
        raise NotImplementedError(f"\"compute_index_ranges_weights\" not implemented for '{name}'")
    nearest = mode in ("nearest", "nearest-exact")
    if dtype.kind == "f" or (nearest and dtype == np.uint8):
        return
    if nearest and spatial_dims == 2:
        raise NotImplementedError(
            f"\"upsample_nearest2d_channels_last\" not implemented for '{name}'"
        )
    if mode == "bilinear":
        raise NotImplementedError(
            f"\"upsample_bilinear2d_channels_last\" not implemented for '{name}'"
        )
    kind = {"bicubic": "cubic", "nearest": "nearest", "nearest-exact": "nearest"}
    raise NotImplementedError(
        f"\"compute_indices_weights_{kind.get(mode, 'linear')}\" not implemented for '{name}'"
    )


def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resample (N, C, *spatial) to ``size`` or by ``scale_factor``, as PyTorch.

    ``mode``: ``nearest`` (ATen's legacy rule ``floor(i * in/out)``), ``nearest-exact``
    (``floor((i + 0.5) * in/out)``), ``linear`` (3-d input), ``bilinear`` / ``bicubic`` (4-d),
    ``trilinear`` (5-d), ``area`` (adaptive average pooling). With ``align_corners`` the corner
    samples of input and output coincide; without it, the pixel areas do. A ``scale_factor``
    given (and not recomputed) sets the sampling step ``1/scale_factor``. ``antialias=True``
    (4-d bilinear or bicubic; ``lanczos`` needs it) widens the filter by the downsampling
    factor, as PIL: triangle, Keys cubic (A = -0.5) or Lanczos-3, normalised per output.
    uint8 input (bilinear, bicubic, antialiased) is resampled in fixed point as PyTorch's.

    Example::

        >>> x = glassgrad.tensor([[[1.0, 2.0]]])
        >>> glassgrad.nn.functional.interpolate(x, scale_factor=2, mode="linear")
        tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    """
    op = "interpolate"
    check_tensor(input, op)
    x = input._data
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    if x.ndim < 3:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.ndim}D) for the "
            f"modes: {_MODES} (got {mode})"
        )
    out, scales = _output_size(x, size, scale_factor, recompute_scale_factor)
    if mode == "area" and scale_factor is not None:
        scales = (None,) * len(out)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and x.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    if mode == "lanczos" and x.ndim == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    nd = x.ndim - 2
    if mode == "area" and nd <= 3:
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[nd - 1]
        return pool(input, out)
    needed = _MODE_DIMS.get(mode)
    if needed is not None and needed != nd and mode != "bicubic":
        raise NotImplementedError(f"Got {x.ndim}D input, but {mode} mode needs {needed + 2}D input")
    # the kernel: lanczos only exists antialiased (its 3-d and 5-d forms fail just below)
    kernel = f"{mode}-aa" if antialias or mode == "lanczos" else mode
    if (kernel, nd) not in NODES:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.ndim}D) for the "
            f"modes: {_MODES} (got {mode})"
        )
    if min(x.shape[2:]) <= 0 or min(out) <= 0:
        names = "DHW"[3 - nd :]
        given = ", ".join(f"{a}: {n}" for a, n in zip(names, x.shape[2:]))
        wanted = ", ".join(f"{a}: {n}" for a, n in zip(names, out))
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({given}) output "
            f"({wanted})"
        )
    if x.dtype == np.uint8 and (kernel.endswith("-aa") or mode in ("bilinear", "bicubic")):
        return Tensor._from_array(
            _resample_uint8(
                x, kernel.removesuffix("-aa"), out, bool(align_corners), scales, antialias
            )
        )
    _check_dtype(x.dtype, mode, kernel, x.ndim - 2)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    taps = [
        _taps(kernel, n, o, bool(align_corners), s, dtype)
        for n, o, s in zip(x.shape[2:], out, scales)
    ]
    adjoint = None
    if kernel.endswith("-aa") and any(n == o for n, o in zip(x.shape[2:], out)):
        adjoint = [
            _taps(kernel, n, o, bool(align_corners), s, dtype, adjoint=True)
            for n, o, s in zip(x.shape[2:], out, scales)
        ]
    return NODES[kernel, nd][0].apply(input, taps=taps, adjoint_taps=adjoint)


def upsample(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """Deprecated alias of ``interpolate`` (warns, as PyTorch)."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: ``interpolate(input, size, scale_factor, mode="nearest")`` (warns)."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: ``interpolate(..., mode="bilinear", align_corners=True)`` (warns)."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- registry ---------------------------------------------------------------------------


def _interpolate_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 5),), {"scale_factor": 2}),
        Sample((randn(rng, 2, 3, 5),), {"size": 7, "mode": "nearest"}),
        Sample((randn(rng, 1, 2, 4, 5),), {"size": (7, 3), "mode": "nearest-exact"}),
        Sample((randn(rng, 1, 2, 3, 4, 5),), {"scale_factor": (1.5, 2, 0.5)}),
        Sample((randn(rng, 2, 3, 5),), {"scale_factor": 2.5, "mode": "linear"}),
        Sample((randn(rng, 2, 3, 5),), {"size": 9, "mode": "linear", "align_corners": True}),
        Sample((randn(rng, 1, 2, 4, 5),), {"size": (7, 3), "mode": "bilinear"}),
        Sample(
            (randn(rng, 1, 2, 4, 5),),
            {"scale_factor": (1.7, 2.3), "mode": "bilinear", "align_corners": True},
        ),
        Sample(
            (randn(rng, 1, 2, 4, 5),),
            {"scale_factor": 1.6, "mode": "bilinear", "recompute_scale_factor": True},
        ),
        Sample((randn(rng, 1, 2, 4, 5),), {"size": (8, 3), "mode": "bicubic"}),
        Sample(
            (randn(rng, 1, 2, 4, 5),),
            {"scale_factor": 1.5, "mode": "bicubic", "align_corners": True},
        ),
        Sample((randn(rng, 1, 2, 3, 4, 5),), {"size": (5, 3, 6), "mode": "trilinear"}),
        Sample(
            (randn(rng, 1, 1, 3, 4, 2),),
            {"scale_factor": 2, "mode": "trilinear", "align_corners": True},
        ),
        Sample((randn(rng, 1, 2, 6, 5),), {"size": (3, 2), "mode": "area"}),
        Sample((randn(rng, 1, 2, 6, 5),), {"scale_factor": 0.5, "mode": "area"}),
        Sample((randn(rng, 1, 2, 7, 6),), {"size": (3, 8), "mode": "bilinear", "antialias": True}),
        Sample(
            (randn(rng, 1, 2, 3, 7),),
            {"scale_factor": 1.3, "mode": "bicubic", "align_corners": True, "antialias": True},
        ),
        Sample((randn(rng, 1, 2, 8, 5),), {"size": (3, 4), "mode": "lanczos", "antialias": True}),
    ]


_NF = "nn.functional"
register(
    "interpolate",
    interpolate,
    nodes=tuple(node for pair in NODES.values() for node in pair),
    samples=_interpolate_samples,
    namespace=_NF,
)
for _fn in (upsample, upsample_nearest, upsample_bilinear):
    register(_fn.__name__, _fn, namespace=_NF)

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]
