"""Summary statistics of a tensor or array: what a person needs to judge a gradient at a glance."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "TensorStats",
    "tensor_stats",
    "tensor_stats_many",
    "as_array",
    "dtype_name",
    "format_shape",
    "json_number",
]


class TensorStats(NamedTuple):
    """Shape, dtype and value statistics of one tensor.

    ``norm`` is the L2 norm over all entries (NaN if any entry is NaN); ``min``, ``max`` and
    ``mean`` are over the finite entries only (None if there are none), so one NaN does not hide
    the scale of the rest. (A named tuple: a traced backward makes two per node.)
    """

    shape: tuple[int, ...]
    dtype: str
    numel: int
    norm: float | None
    min: float | None
    max: float | None
    mean: float | None
    num_nan: int
    num_inf: int
    num_zero: int

    @property
    def finite(self) -> bool:
        return self.num_nan == 0 and self.num_inf == 0

    def as_dict(self) -> dict[str, Any]:
        return self._asdict()

    def summary(self) -> str:
        """One line, e.g. ``"(2, 3) float32 norm=1.2 min=-0.5 max=0.9 nan=0 inf=0 zero=1"``."""
        parts = [format_shape(self.shape), self.dtype]
        parts.append(f"norm={_fmt(self.norm)} min={_fmt(self.min)} max={_fmt(self.max)}")
        parts.append(f"nan={self.num_nan} inf={self.num_inf} zero={self.num_zero}")
        return " ".join(parts)


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4g}"


def as_array(value: Any) -> np.ndarray:
    """The NumPy array behind a tensor (no copy for glassgrad tensors), or ``np.asarray``."""
    if isinstance(value, np.ndarray):
        return value
    data = getattr(value, "_data", None)
    if isinstance(data, np.ndarray):
        return data
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return np.asarray(value.detach().numpy())
    return np.asarray(value)


# np.dtype.name is computed on each read, slow enough to show in a traced backward: names are
# looked up once per dtype object.
_DTYPE_NAMES: dict[Any, str] = {}


def _numpy_dtype_name(dtype: np.dtype) -> str:
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = dtype.name
    return name


def dtype_name(dtype: Any) -> str:
    """``"float32"`` for a NumPy dtype, a glassgrad dtype or any ``"lib.float32"`` object."""
    try:
        return _DTYPE_NAMES[dtype]
    except (KeyError, TypeError):  # not seen yet, or unhashable
        pass
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = str(dtype).rsplit(".", 1)[-1]
    try:
        _DTYPE_NAMES[dtype] = name
    except TypeError:
        pass
    return name


def json_number(value: float | None) -> float | str | None:
    """``value`` for JSON, which has no NaN/Infinity: those become the strings ``"nan"``,
    ``"inf"``, ``"-inf"`` (the explorer prints them as they are)."""
    if value is None or math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def format_shape(shape: Any) -> str:
    """``(2, 3)`` for a shape, ``()`` for a scalar, ``?`` if unknown."""
    if shape is None:
        return "?"
    dims = tuple(int(d) for d in shape)
    if len(dims) == 1:
        return f"({dims[0]},)"
    return "(" + ", ".join(str(d) for d in dims) + ")"


def tensor_stats(value: Any) -> TensorStats:
    """Statistics of a tensor or array.

    Examples
    --------
    >>> tensor_stats(np.array([3.0, 4.0, np.nan])).num_nan
    1
    """
    return tensor_stats_many([value])[0]


# Arrays up to this size are reduced together (a few NumPy calls for all of them: the call
# overhead, not the arithmetic, is the cost of small tensors); larger ones one by one.
BATCH_NUMEL = 1 << 16


def tensor_stats_many(values: Sequence[Any]) -> list[TensorStats]:
    """:func:`tensor_stats` of each value, small ones in one vectorized pass (a big graph has a
    saved tensor and two gradients per node, mostly small)."""
    arrays = [as_array(value) for value in values]
    out: list[TensorStats | None] = [None] * len(arrays)
    batch: list[int] = []
    for index, array in enumerate(arrays):
        if 0 < array.size <= BATCH_NUMEL and array.dtype.kind in "biuf":
            batch.append(index)
        else:
            out[index] = _one_stats(array)
    if batch:
        _batch_stats([arrays[i] for i in batch], batch, out)
    return out  # type: ignore[return-value]


def _batch_stats(arrays: list[np.ndarray], positions: list[int], out: list) -> None:
    # One flat float64 copy; each array a segment of it: per-segment min, max, sum, sum of
    # squares and zero count by reduceat / cumulative sums.
    sizes = [array.size for array in arrays]
    flat = np.concatenate([array.reshape(-1) for array in arrays], dtype=np.float64)
    ends = np.cumsum(sizes)
    starts = ends - sizes
    low = np.minimum.reduceat(flat, starts).tolist()
    high = np.maximum.reduceat(flat, starts).tolist()
    total = np.add.reduceat(flat, starts).tolist()
    squares = np.add.reduceat(flat * flat, starts).tolist()
    zeros_before = np.concatenate(([0], np.cumsum(flat == 0)))
    zeros = (zeros_before[ends] - zeros_before[starts]).tolist()
    isfinite = math.isfinite
    for k, array in enumerate(arrays):
        if not (isfinite(low[k]) and isfinite(high[k])):  # NaN/Inf: counted one by one
            out[positions[k]] = _one_stats(array)
            continue
        numel = sizes[k]
        out[positions[k]] = TensorStats(
            tuple(array.shape),
            _numpy_dtype_name(array.dtype),
            numel,
            math.sqrt(squares[k]),
            low[k],
            high[k],
            total[k] / numel,
            0,
            0,
            zeros[k],
        )


def _one_stats(array: np.ndarray) -> TensorStats:
    shape = tuple(int(d) for d in array.shape)
    numel = int(array.size)
    dtype = _numpy_dtype_name(array.dtype)
    kind = array.dtype.kind
    if numel == 0 or kind not in "biufc":
        return TensorStats(
            shape, dtype, numel, 0.0 if numel == 0 else None, None, None, None, 0, 0, 0
        )
    if kind == "b":
        array = array.astype(np.int8)
    elif kind == "c":
        array = np.abs(array)
    wide = array.astype(np.float64, copy=False).reshape(-1)
    low, high = float(np.minimum.reduce(wide)), float(np.maximum.reduce(wide))
    num_zero = numel - int(np.count_nonzero(wide))
    if math.isfinite(low) and math.isfinite(high):
        norm = math.sqrt(float(np.dot(wide, wide)))
        mean = float(np.add.reduce(wide)) / numel
        return TensorStats(shape, dtype, numel, norm, low, high, mean, 0, 0, num_zero)
    is_nan = np.isnan(wide)
    num_nan = int(np.count_nonzero(is_nan))
    num_inf = int(np.count_nonzero(np.isinf(wide)))
    finite = wide[np.isfinite(wide)]
    norm = float(np.sqrt(np.sum(np.square(wide)))) if num_nan == 0 else math.nan
    if finite.size:
        low, high, mean = float(finite.min()), float(finite.max()), float(finite.mean())
    else:
        low = high = mean = None
    return TensorStats(shape, dtype, numel, norm, low, high, mean, num_nan, num_inf, num_zero)
