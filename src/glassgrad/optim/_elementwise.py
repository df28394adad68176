"""Run an optimizer's elementwise update over one parameter's arrays, in place, fast.

An update such as Adam's is a dozen NumPy ufunc calls on arrays of the parameter's size.
Called on whole arrays, every call streams megabytes through memory and allocates a
temporary. Here the arrays are cut into chunks of ``CHUNK`` elements that stay in the CPU's
cache, every temporary is written into a reused scratch buffer (``out=``), and large
parameters are split between threads (NumPy releases the GIL inside ufunc loops). Every
element still sees exactly the same sequence of float operations, so the result does not
depend on the chunk size or the number of threads.

A *kernel* is a plain function ``kernel(arrays, scratch, *args)``: ``arrays`` are same-shape
views of the parameter, its gradient and its state (it writes the parameter and state in
place), ``scratch`` are buffers of the same shape it may overwrite. A gradient that is not
C-contiguous (glassgrad's ``Linear`` gives a transposed weight gradient) is copied chunk by
chunk into a buffer, so the kernel always sees contiguous one-dimensional chunks.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np

__all__ = ["for_each_chunk", "num_threads"]

# Chunks of 65536 elements: small enough that the arrays a kernel touches stay in cache
# between its ufunc calls, large enough that the calls' fixed cost (about 1 us each) is
# small. Measured on Adam over 1.9M float32 parameters, one thread: 16 ms per step at 2048,
# 6.5 ms at 16384, 5.7 ms at 65536 (the plateau runs to 262144), 7-8 ms unchunked.
CHUNK = 1 << 16
# Below this many elements a second thread costs more (hand-off, wake-up) than it saves.
PARALLEL_MIN = 1 << 17
# A strided (e.g. transposed) gradient is copied into contiguous chunks. NumPy copies a
# transposed block fastest as tall strips a few columns wide (about 1.1-1.7 ns per element
# for strips of 8-16 columns by 256+ rows, against 5.5 ns for whole rows), so such chunks are
# made of at least GATHER_ROWS rows and copied STRIP columns at a time.
GATHER_ROWS = 256
STRIP = 16

Kernel = Callable[..., None]

_local = threading.local()  # per-thread scratch buffers
_pool: ThreadPoolExecutor | None = None
_pool_pid = -1
_pool_size = 0
_pool_lock = threading.Lock()


def num_threads() -> int:
    """Threads an update may use: ``OMP_NUM_THREADS`` if set (as PyTorch), else the CPUs
    this process may run on."""
    configured = os.environ.get("OMP_NUM_THREADS", "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def for_each_chunk(
    kernel: Kernel,
    arrays: Sequence[np.ndarray],
    scratch_count: int,
    *args: Any,
    wide_scratch: int = 0,
    inputs: tuple[int, ...] = (1,),
) -> None:
    """Apply ``kernel`` to ``arrays`` (same shape and dtype) chunk by chunk, in place.

    Parameters
    ----------
    kernel : callable
        ``kernel(arrays, scratch, *args)``; updates some of ``arrays`` in place.
    arrays : sequence of ndarray
        Parameter, gradient and state arrays, all of one shape.
    scratch_count : int
        How many scratch buffers of the arrays' dtype the kernel needs.
    *args
        Scalars passed on to the kernel.
    wide_scratch : int
        How many float64 scratch buffers the kernel needs besides (they follow the others),
        for float32 sums that must be rounded once, as a fused multiply-add rounds.
    inputs : tuple of int
        Positions of the arrays the kernel only reads (default: the gradient, ``arrays[1]``).
        These may have any strides (a transposed weight gradient, say): each chunk of them
        is copied into a contiguous buffer while it is in cache. The arrays the kernel writes
        are cut into views when C-contiguous; otherwise the kernel runs once on whole arrays.

    Example
    -------
    >>> def scale(arrays, scratch, factor):
    ...     np.multiply(arrays[0], factor, out=arrays[0])
    >>> x = np.ones(5, np.float32)
    >>> for_each_chunk(scale, [x], 0, 3.0)
    >>> x.tolist()
    [3.0, 3.0, 3.0, 3.0, 3.0]
    """
    first = arrays[0]
    size = first.size
    if size <= CHUNK and all(a.flags.c_contiguous for a in arrays):
        # One chunk (biases, small layers): the kernel runs on flat views at once.
        buffers = _scratch(first.dtype, scratch_count, 0, size)
        scratch = [b[:size] for b in buffers]
        if wide_scratch:
            scratch += [w[:size] for w in _scratch(np.dtype(np.float64), wide_scratch, 1, size)]
        kernel([a.reshape(-1) for a in arrays], scratch, *args)
        return
    strided = tuple(i for i, a in enumerate(arrays) if not a.flags.c_contiguous)
    if any(i not in inputs for i in strided):
        # A strided parameter or state cannot be cut into views: one whole-array pass.
        scratch = [np.empty(first.shape, first.dtype) for _ in range(scratch_count)]
        scratch += [np.empty(first.shape, np.float64) for _ in range(wide_scratch)]
        kernel(list(arrays), scratch, *args)
        return
    # Chunks are blocks of rows (first-axis slices), which are views of every array; when
    # all arrays are contiguous the rows are single elements of the flattened arrays.
    if strided:
        rows = first.shape[0]
        row_len = first.size // rows if rows else 0
    else:
        rows, row_len = first.size, 1
    rows_per_chunk = max(1, CHUNK // max(row_len, 1))
    if strided and first.ndim == 2:
        rows_per_chunk = max(rows_per_chunk, GATHER_ROWS)
    views = [a if i in strided else a.reshape(-1) for i, a in enumerate(arrays)]
    layout = _Layout(strided, first.shape[1:] if strided else (), row_len, rows_per_chunk)
    workers = num_threads() if first.size >= PARALLEL_MIN else 1
    chunks = -(-rows // rows_per_chunk)
    # One iterator of chunk indices, shared: each thread takes the next chunk when it is done
    # with one (its ``next`` is atomic under the GIL), so a thread slowed down by a busy core
    # (another process, or BLAS threads still spinning after a product) simply takes fewer.
    chunk_indices = iter(range(chunks))
    work = (kernel, views, layout, chunk_indices, rows, scratch_count, wide_scratch, args)
    if workers == 1:
        _run_chunks(*work)
        return
    pool = _thread_pool(workers - 1)
    futures: list[Future] = [pool.submit(_run_chunks, *work) for _ in range(1, workers)]
    try:
        _run_chunks(*work)
    finally:
        for future in futures:
            future.result()


class _Layout(NamedTuple):
    strided: tuple[int, ...]  # positions of the arrays gathered chunk by chunk
    row_shape: tuple[int, ...]  # shape of one row (first-axis slice) of a strided array
    row_len: int  # elements per row
    rows_per_chunk: int


def _run_chunks(
    kernel: Kernel,
    views: list[np.ndarray],
    layout: _Layout,
    chunk_indices: Iterator[int],
    rows: int,
    scratch_count: int,
    wide_scratch: int,
    args: tuple,
) -> None:
    size = layout.rows_per_chunk * layout.row_len
    buffers = _scratch(views[0].dtype, scratch_count + len(layout.strided), 0, size)
    wide = _scratch(np.dtype(np.float64), wide_scratch, 1, size) if wide_scratch else []
    gather = buffers[scratch_count:]
    for index in chunk_indices:
        first_row = index * layout.rows_per_chunk
        end_row = min(first_row + layout.rows_per_chunk, rows)
        begin, end = first_row * layout.row_len, end_row * layout.row_len
        n = end - begin
        chunk = [view[begin:end] for view in views]  # flat views; strided ones replaced:
        for position, buffer in zip(layout.strided, gather):
            block = buffer[:n]
            _gather(
                block.reshape((end_row - first_row, *layout.row_shape)),
                views[position][first_row:end_row],
            )
            chunk[position] = block
        kernel(chunk, [b[:n] for b in buffers[:scratch_count]] + [w[:n] for w in wide], *args)


def _gather(block: np.ndarray, rows: np.ndarray) -> None:
    """Copy the strided ``rows`` into the contiguous ``block`` (same shape)."""
    if block.ndim == 2 and block.shape[0] >= GATHER_ROWS // 4 and block.shape[1] > STRIP:
        for column in range(0, block.shape[1], STRIP):
            np.copyto(block[:, column : column + STRIP], rows[:, column : column + STRIP])
    else:
        np.copyto(block, rows)


def _scratch(dtype: np.dtype, count: int, slot: int, size: int) -> list[np.ndarray]:
    """This thread's ``count`` scratch buffers of at least ``size`` elements of ``dtype``;
    ``slot`` keeps the wide buffers of a float64 update apart from its ordinary ones."""
    cache = getattr(_local, "buffers", None)
    if cache is None:
        cache = _local.buffers = {}
    buffers = cache.get((dtype, slot))
    if buffers is None or len(buffers) < count or buffers[0].size < size:
        count = max(count, len(buffers) if buffers else 0, 1)
        buffers = cache[dtype, slot] = [np.empty(max(size, CHUNK), dtype) for _ in range(count)]
    return buffers[:count]


def _thread_pool(size: int) -> ThreadPoolExecutor:
    # Built on first use; rebuilt in a forked child, whose copy has no live threads.
    global _pool, _pool_pid, _pool_size
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid() or _pool_size < size:
            _pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="glassgrad-optim")
            _pool_pid, _pool_size = os.getpid(), size
        return _pool
