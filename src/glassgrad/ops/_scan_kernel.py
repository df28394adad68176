"""PyTorch's scan kernels where they write over memory they read: cumsum, cumprod and
logcumsumexp (``cpu_cum_base_kernel``) and cummax/cummin (``tensor_dim_apply3``), written in
place into overlapping windows or into an ``out=`` that shares the input's memory, element
after element in the kernel's order (autograd/kernel_order.py); and the accumulator their
running values are kept in."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.kernel_order import lines_in_kernel_order
from ..autograd.op import check_source_overlap
from ..autograd.views import OVERLAP_WRITE_ERROR, internal_overlap
from ._common import wrap_dim
from .pointwise_binary import log_add_exp_complex

__all__ = [
    "WIDER",
    "accumulated",
    "check_scan_out",
    "extremum_in_kernel_order",
    "scan_in_kernel_order",
    "scan_out",
    "write_scan_overlapping",
]

# PyTorch's CPU accumulator (``at::acc_type<T, false>``) where it is wider than the dtype: its
# scans add up in it and cast each running value back.
WIDER = {
    np.dtype(np.float16): np.dtype(np.float32),
    np.dtype(np.float32): np.dtype(np.float64),
    np.dtype(np.complex64): np.dtype(np.complex128),
}


def accumulated(scan: Any, x: np.ndarray, dim: int) -> np.ndarray:
    """``scan`` (np.cumsum, np.cumprod) of ``x`` along ``dim`` in PyTorch's accumulator."""
    wide = WIDER.get(x.dtype)
    if wide is None:
        return scan(x, axis=dim, dtype=x.dtype)  # int32 stays int32 (NumPy: int64)
    return scan(x, axis=dim, dtype=wide).astype(x.dtype)


def _log_add_exp_step(acc: Any, x: Any) -> Any:
    """PyTorch's real ``_log_add_exp_helper(x, acc)``: std::min/max keep ``x`` for a NaN."""
    if np.isnan(acc):
        low = high = acc
    else:
        low, high = (acc if acc < x else x), (acc if x < acc else x)
    if low != high or np.isfinite(low):
        return np.log1p(np.exp(low - high)) + high
    return x


def _log_add_exp_complex_step(acc: Any, x: Any) -> Any:
    """PyTorch's complex ``_log_add_exp_helper(x, acc)``."""
    return log_add_exp_complex(np.asarray(x), np.asarray(acc))[()]


def scan_in_kernel_order(kind: str, out: np.ndarray, x: np.ndarray, dim: int) -> None:
    """cumsum, cumprod or logcumsumexp (``kind``) of ``x`` written into ``out`` as PyTorch's
    ``cpu_cum_base_kernel`` writes it where the two share memory (an unfold's windows written
    in place): line after line in TensorIterator's order, each element read from ``x`` as the
    writes before it left the memory and its running value written at once, in PyTorch's
    accumulator (autograd/kernel_order.py)."""
    acc_type = WIDER.get(out.dtype, np.dtype(np.int64) if out.dtype.kind in "iu" else out.dtype)
    if kind == "logcumsumexp":
        init = -np.inf
        step = _log_add_exp_complex_step if out.dtype.kind == "c" else _log_add_exp_step
    else:
        init, step = (0, np.add) if kind == "cumsum" else (1, np.multiply)
    convert, cast = acc_type.type, out.dtype
    with np.errstate(all="ignore"):
        for line in lines_in_kernel_order(out.shape, dim, [out, x]):
            written, read = out[line], x[line]
            acc = convert(init)
            for i in range(written.shape[0]):
                acc = step(acc, convert(read[i]))
                written[i] = acc.astype(cast)


def check_scan_out(kind: str) -> Any:
    """An Op's ``check_out`` for scan ``kind`` (``scan_out``)."""

    def check(out: Tensor, values: np.ndarray, input: Tensor, dim: int, **_: Any) -> np.ndarray:
        d = wrap_dim(dim, input._data.ndim, kind)
        return scan_out(kind, input._data, d)(out, values)

    return staticmethod(check)


def write_scan_overlapping(kind: str) -> Any:
    """An Op's ``write_overlapping`` for the in-place scan ``kind``."""

    def write(data: np.ndarray, dim: int, dtype: Any = None) -> None:
        scan_in_kernel_order(kind, data, data, dim)

    return staticmethod(write)


def scan_out(kind: str, x: np.ndarray, dim: int) -> Any:
    """``out_result``'s ``pointwise`` for scan ``kind`` of ``x``: TensorIterator's checks of
    ``out`` against the input (its elements sharing memory, a partial overlap: refused); an
    ``out`` sharing the input's memory otherwise is computed in the kernel's order."""

    def check_and_compute(out: Tensor, values: np.ndarray) -> np.ndarray:
        target = out._data
        if target.shape != values.shape or not x.ndim or not x.size:
            return values  # resized into fresh memory; 0-d: fill_; empty: zero_
        if internal_overlap(target):
            raise RuntimeError(OVERLAP_WRITE_ERROR)
        check_source_overlap(out, Tensor._from_array(x), refuses_full=False)
        if target.dtype != x.dtype or not np.may_share_memory(target, x):
            return values  # PyTorch scans a copy cast to out's dtype
        scan_in_kernel_order(kind, target, x, dim)
        return target.copy()

    return check_and_compute


def extremum_in_kernel_order(
    values: np.ndarray, indices: np.ndarray, x: np.ndarray, dim: int, better: Any
) -> None:
    """cummax or cummin (``better``) of ``x`` written into ``values`` and ``indices`` as
    PyTorch's ``cummax_cummin_helper`` writes them, line after line (``tensor_dim_apply3``:
    the first dim fastest), each element read as the writes before it left the memory."""
    floating = x.dtype.kind == "f"
    for line in lines_in_kernel_order(x.shape, dim, [], iterator=False):
        read, written, at = x[line], values[line], indices[line]
        best, where = read[0], 0
        for i in range(read.shape[0]):
            current = read[i]
            if (floating and np.isnan(current)) or (
                not (floating and np.isnan(best)) and (better(current, best) or current == best)
            ):
                best, where = current, i
            written[i] = best
            at[i] = where
