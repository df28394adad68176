"""An elementwise op written in place where its elements read memory that other elements of
the same write change: a target whose elements share memory without a zero stride
(``x.unfold(0, 2, 1).mul_(y)``: the windows overlap), or a source that lies in the target's
memory in a way PyTorch's overlap check cannot classify (``x.add_(x.diagonal())``: a source
that is not dense; ``b[:, 1:].add_(b[:, :-1])``).

PyTorch's overlap check answers ``TooHard`` there and lets the write through, and its
TensorIterator kernel visits the elements one after the other: each element reads the memory
as the elements before it left it, and of several elements sharing a location the last one
visited stays. Computing the whole result first and then writing it (as for any other target)
gives other values. ``write_in_kernel_order`` follows the kernel:

- the order: TensorIterator's (``reorder_dimensions``, then ``coalesce_dimensions``), one
  innermost row after the other;
- within a row, PyTorch's ``basic_loop`` reads and writes element after element; where every
  operand's row is contiguous (or one input's is a broadcast scalar) its ``vectorized_loop``
  reads ``2 * Vec::size()`` elements of every input before it writes them, the scalar once per
  row, and the elements left over go through ``basic_loop``. ``Vec::size()`` is the kernel's
  vector width (``Op.vector_bits``: most kernels are registered for AVX2 only, 256 bits; a few
  for AVX512 too, used where the CPU has it) over the dtype's size.

Runs of elements that read nothing written earlier in the same run are computed at once.
Tensors past PyTorch's grain size (32768 elements) are split over threads by PyTorch, in an
order no run repeats; glassgrad keeps one order for them too.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._strides import iterator_order
from .storage import maybe_overlapping

__all__ = [
    "lines_in_kernel_order",
    "reads_written_memory",
    "shares_memory_within",
    "stopped",
    "write_at_in_order",
    "write_in_kernel_order",
]


def shares_memory_within(data: np.ndarray) -> bool:
    """Several elements of ``data`` may share one memory location."""
    itemsize = data.itemsize
    return data.size > 1 and maybe_overlapping(data.shape, [s // itemsize for s in data.strides])


def reads_written_memory(data: np.ndarray, arrays: list) -> bool:
    """Some element of a source in ``arrays`` lies in ``data``'s memory elsewhere than at the
    element it is read for (a source that reads each element's own location, ``x.add_(x)``
    or ``x.add_(x.view(x.shape))``, gives the same result computed at once)."""
    for a in arrays:
        if type(a) is not np.ndarray or not a.size or not np.may_share_memory(data, a):
            continue
        a = np.broadcast_to(a, data.shape)
        if a.__array_interface__["data"][0] != data.__array_interface__["data"][0]:
            return True
        if any(n != 1 and s != own for n, s, own in zip(data.shape, a.strides, data.strides)):
            return True
    return False


def _cpu_has_avx512() -> bool:
    """PyTorch's CPU capability is AVX512 (``ATEN_CPU_CAPABILITY`` overrides what the CPU
    offers, as in PyTorch)."""
    chosen = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if chosen:
        return chosen == "avx512"
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # another NumPy layout: PyTorch's AVX2 kernels are the common case
        return False
    return all(features.get(f) for f in ("AVX512F", "AVX512VL", "AVX512BW", "AVX512DQ", "FMA3"))


_AVX512 = _cpu_has_avx512()


def _chunk(cls: type, dtype: np.dtype) -> int:
    """How many elements PyTorch's vectorized loop reads before it writes (0: none)."""
    bits = cls.vector_bits
    if not bits or dtype.kind in cls.unvectorized_kinds:
        return 0
    if bits > 256 and not _AVX512:
        bits = 256
    return 2 * (bits // 8) // dtype.itemsize


def _coalesced(shape: tuple, perm: list, arrays: list) -> list:
    """TensorIterator's ``coalesce_dimensions`` over dims in ``perm`` (fastest first): a list
    of (size, strides of each array), fastest first."""
    dims: list = []
    for d in perm:
        size, strides = shape[d], [a.strides[d] for a in arrays]
        if dims:
            last_size, last_strides = dims[-1]
            if size == 1:
                continue
            if last_size == 1:
                dims[-1] = (size, strides)
                continue
            if all(s0 * last_size == s1 for s0, s1 in zip(last_strides, strides)):
                dims[-1] = (last_size * size, last_strides)
                continue
        dims.append((size, strides))
    return dims or [(1, [0] * len(arrays))]


def write_in_kernel_order(cls: type, data: np.ndarray, arrays: list, params: dict) -> None:
    """Run elementwise op ``cls`` on ``data`` (and ``arrays``) and write the result into
    ``data`` in the order of PyTorch's TensorIterator kernel, each element reading the memory
    as the elements before it left it."""
    shape = data.shape
    if not data.size:
        return
    sources = [np.broadcast_to(a, shape) if isinstance(a, np.ndarray) else a for a in arrays]
    tensors = [data, *(a for a in sources if isinstance(a, np.ndarray))]
    perm = iterator_order(shape, [data, data, *sources])  # the target: output and input
    dims = _coalesced(shape, perm, tensors)
    outer = dims[:0:-1]  # outermost first
    n, inner = dims[0]
    views = [
        as_strided(t, (*(d[0] for d in outer), n), (*(d[1][k] for d in outer), inner[k]))
        for k, t in enumerate(tensors)
    ]
    out, reads = views[0], views[1:]
    # PyTorch's vectorized_loop: every row contiguous, or one input's a broadcast scalar
    scalars = [k for k, a in enumerate(reads) if a.strides[-1] == 0]
    chunk = 0
    contiguous = all(a.strides[-1] == a.itemsize for a in views if a.strides[-1])
    if contiguous and len(scalars) <= 1:
        chunk = _chunk(cls, data.dtype)
    vector_end = n - n % chunk if chunk else 0
    node = cls.__new__(cls)
    for index in np.ndindex(*(d[0] for d in outer)):
        row_out = out[index]
        row_reads = [a[index] for a in reads]
        scalar = [a[:1].copy() for a in row_reads] if vector_end else None
        start = 0
        while start < n:
            if start < vector_end:
                stop = start + chunk
                # the broadcast scalar as read at the row's start
                values = [
                    np.broadcast_to(scalar[k], (chunk,)) if k in scalars else a[start:stop]
                    for k, a in enumerate(row_reads)
                ]
            else:
                stop = _run_end(row_out, row_reads, start, n)
                values = [a[start:stop] for a in row_reads]
            _apply(node, row_out, start, stop, values, arrays, params)
            start = stop


def _run_end(out: np.ndarray, reads: list, start: int, n: int) -> int:
    """The end of the longest run of elements from ``start`` that reads no location written
    by an element before it in the run (element by element, PyTorch's basic_loop)."""
    written: set = set()
    base = out.__array_interface__["data"][0]
    step = out.strides[0]
    stop = start
    while stop < n:
        address = base + stop * step
        if address in written or any(
            a.__array_interface__["data"][0] + stop * a.strides[0] in written for a in reads
        ):
            break
        written.add(address)
        stop += 1
    return stop


def _apply(
    node: Any, out: np.ndarray, start: int, stop: int, values: list, arrays: list, params: dict
) -> None:
    """Compute elements ``start:stop`` of a row from ``values`` and write them."""
    it = iter(values)
    args = [next(it) if isinstance(a, np.ndarray) else a for a in arrays]
    # a fresh node per run: a forward may keep what it saw
    out[start:stop] = type(node).__new__(type(node)).forward(out[start:stop], *args, **params)


def write_at_in_order(
    data: np.ndarray,
    key: Any,
    values: Any,
    reduce: Any = None,
    operands: tuple = (),
    stop: Any = None,
    order: Any = None,
) -> tuple | None:
    """``data[key] = values`` into a tensor whose elements share memory, as PyTorch's indexing
    kernels write it (index_put_, scatter_, put_ ...): only the indexed elements, one after the
    other in TensorIterator's order over the indexing result, so that of several writes to one
    location the last one stays. With ``reduce`` (a ufunc: ``np.add`` for ``accumulate``)
    each write combines its value with the location as the writes before it left it.
    ``operands``: the other arrays PyTorch's iterator walks (the value is the first);
    ``order``: the result's dims, slowest first, where the kernel's loops are not the
    iterator's (scatter's).

    ``stop``: a boolean array over the indexing result, True where the kernel raises (an
    index out of bounds, ``key`` holding a valid stand-in there): only the elements before
    the first such one in the kernel's order are written, and its position in the result is
    returned (None when there is none)."""
    if not data.size:
        return None
    item = data.itemsize
    strides = [s // item for s in data.strides]
    low = sum((n - 1) * s for n, s in zip(data.shape, strides) if s < 0)
    offsets = np.zeros(data.shape, np.int64)
    for d, (n, s) in enumerate(zip(data.shape, strides)):
        offsets += (np.arange(n, dtype=np.int64) * s - (low if d == 0 else 0)).reshape(
            (n,) + (1,) * (data.ndim - d - 1)
        )
    key = _integer_key(key)
    where = offsets[key]
    if not where.size:
        return None
    values = np.broadcast_to(np.asarray(values).astype(data.dtype, copy=False), where.shape)
    # The restrided target (PyTorch's output operand): a zero stride along the indexed dims.
    probe = offsets[tuple(np.zeros_like(k) if isinstance(k, np.ndarray) else k for k in key)]
    out_strides = [
        int(probe.take(1, d).flat[0] - probe.take(0, d).flat[0]) * item if n > 1 else 0
        for d, n in enumerate(where.shape)
    ]
    standin = as_strided(np.zeros(1, data.dtype), where.shape, out_strides)
    perm = order or iterator_order(where.shape, [standin, values, *operands])[::-1]
    positions = where.transpose(perm).ravel()
    values = values.transpose(perm).ravel()
    first = None
    if stop is not None:
        stops = np.broadcast_to(stop, where.shape).transpose(perm).ravel()
        if stops.any():
            count = int(stops.argmax())
            number = np.arange(where.size).reshape(where.shape).transpose(perm).ravel()[count]
            first = np.unravel_index(number, where.shape)
            positions, values = positions[:count], values[:count]
            if not count:
                return first
    corner = data[
        tuple(slice(n - 1, n) if s < 0 else slice(0, 1) for n, s in zip(data.shape, strides))
    ]
    storage = as_strided(corner.reshape(-1), (int(offsets.max()) + 1,), (item,))
    if reduce is None:
        last = positions.size - 1 - np.unique(positions[::-1], return_index=True)[1]
        storage[positions[last]] = values[last]
    else:
        reduce.at(storage, positions, values)
    return first


def stopped(error: Exception, write: Any) -> Exception:
    """``error``, raised by a kernel after it wrote some elements (an index out of bounds
    found midway): ``write(data)`` writes them into the in-place target (``apply_inplace``
    calls it after its own checks; the version stays, as PyTorch bumps it after the
    kernel)."""
    error.written_before = write  # type: ignore[attr-defined]
    return error


def _integer_key(key: Any) -> tuple:
    """A NumPy index with its boolean masks given as the integer arrays they stand for."""
    key = key if isinstance(key, tuple) else (key,)
    out: list = []
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype == np.bool_ and k.ndim:
            out.extend(k.nonzero())
        else:
            out.append(k)
    return tuple(out)


def lines_in_kernel_order(shape: tuple, dim: int, arrays: list, iterator: bool = True) -> list:
    """The index of each line along ``dim`` (``slice(None)`` there) in the order PyTorch's
    scan kernels visit them, each line scanned whole before the next: TensorIterator's order
    over the other dims with ``dim`` squashed to 1 (``cpu_cum_base_kernel``: cumsum, cumprod,
    logcumsumexp; ``arrays``: its output, then its input), or with ``iterator`` False the
    first dim fastest (``tensor_dim_apply3``: cummax, cummin)."""
    if iterator:
        squashed = tuple(1 if d == dim else n for d, n in enumerate(shape))
        heads = [a[(slice(None),) * dim + (slice(0, 1),)] for a in arrays]
        slowest_first = iterator_order(squashed, heads)[::-1]
    else:
        slowest_first = list(range(len(shape) - 1, -1, -1))
    order = [d for d in slowest_first if d != dim]
    lines = []
    for position in np.ndindex(*(shape[d] for d in order)):
        index: list = [slice(None)] * len(shape)
        for d, k in zip(order, position):
            index[d] = k
        lines.append(tuple(index))
    return lines
