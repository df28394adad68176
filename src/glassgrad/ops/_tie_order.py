"""Which of several equal elements PyTorch's CPU kernels of sort, topk, mode, nanmedian and
unique put where: the order libstdc++'s algorithms (``_std_sort.py``) leave on ATen's queue.

A row without equal elements has one answer, which a stable NumPy sort gives: each op takes
that path first and replays the C++ algorithm only on the rows where ties change the answer.
For the replay, each element's key is its class of equal values (NaNs one class, ``-0.0`` and
``0.0`` one class) numbered along the comparator's order, so the kernel's comparator is ``<``
on the keys.
"""

from __future__ import annotations

import numpy as np

from ._common import moveaxis, take_along_axis
from ._std_sort import nth_element_rows, partial_sort_rows, sort_rows, std_sort


def stable_argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices that sort ``x`` along ``axis``, ties in their original order and NaN as the
    largest value (first when descending), as PyTorch's stable sort."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # Sorting the reversed array ascending and reading the result backwards keeps equal
    # elements in their original order and puts NaN first.
    n = x.shape[axis]
    # np.flip(a, axis) as the view it returns, without its argument handling
    reverse = (slice(None),) * (axis % x.ndim) + (slice(None, None, -1),)
    return (n - 1 - np.argsort(x[reverse], axis=axis, kind="stable"))[reverse]


def _class_starts(ordered: np.ndarray, nan_class: bool = True) -> np.ndarray:
    """For rows sorted by a comparator, where a new class of equal values starts (NaNs are
    one class, unless not ``nan_class``)."""
    starts = np.ones(ordered.shape, bool)
    same = ordered[:, 1:] == ordered[:, :-1]
    if nan_class and ordered.dtype.kind == "f":
        nan = ordered != ordered
        same |= nan[:, 1:] & nan[:, :-1]
    starts[:, 1:] = ~same
    return starts


def _keys(order: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each element's class number, at its own place in the row."""
    keys = np.empty(order.shape, np.int64)
    np.put_along_axis(keys, order, np.cumsum(starts, axis=1), axis=1)
    return keys


def _rows(a: np.ndarray, axis: int) -> np.ndarray:
    return moveaxis(a, axis, -1).reshape(-1, a.shape[axis])


def _unrows(rows: np.ndarray, like: np.ndarray, axis: int) -> np.ndarray:
    shape = moveaxis(like, axis, -1).shape[:-1] + (rows.shape[1],)
    return moveaxis(rows.reshape(shape), -1, axis)


def _head(axis: int, stop: int | None, start: int | None = None) -> tuple:
    """``[start:stop]`` along ``axis``, as basic slicing (a view)."""
    return (slice(None),) * axis + (slice(start, stop),)


def _may_hold_tie(ordered: np.ndarray, axis: int, descending: bool) -> bool:
    """Whether two neighbours along ``axis`` of values in the comparator's order may be equal
    (or both NaN): the one comparison that keeps the stable path cheap. In that order each
    value is below the next (above, descending) unless they are equal or one is NaN, so a
    single NaN answers yes as well; the caller then finds the rows that do hold a tie."""
    n = ordered.shape[axis]
    if n < 2:
        return False
    if axis == ordered.ndim - 1 and ordered.flags.c_contiguous:
        # one comparison over the flat rows (a strided one costs twice as much); the pairs
        # that straddle two rows, at n - 1, 2n - 1 ..., are taken out of the count
        flat = ordered.reshape(-1)
        below = flat[:-1] > flat[1:] if descending else flat[:-1] < flat[1:]
        within = np.count_nonzero(below) - np.count_nonzero(below[n - 1 :: n])
        return within < ordered.size // n * (n - 1)
    earlier, later = ordered[_head(axis, -1)], ordered[_head(axis, None, 1)]
    below = earlier > later if descending else earlier < later
    return np.count_nonzero(below) < below.size


def sort_order(x: np.ndarray, axis: int, descending: bool, stable: bool) -> tuple:
    """The indices of PyTorch's CPU ``sort`` along ``axis``, and the values at them where
    they were gathered on the way (else None): ``std::sort`` of the (value, index) queue
    unless ``stable``. At 16 elements or fewer it is an insertion sort, stable; an input
    whose sorted dim has stride 0 (expanded) keeps its order (ATen returns there)."""
    axis %= x.ndim
    order = stable_argsort(x, axis, descending)
    if stable or x.shape[axis] <= 16 or x.strides[axis] == 0:
        return order, None
    ordered = take_along_axis(x, order, axis)
    if not _may_hold_tie(ordered, axis, descending):
        return order, ordered
    rows = _rows(order, axis)
    starts = _class_starts(_rows(ordered, axis))
    tied = np.flatnonzero(~starts.all(axis=1))
    if not tied.size:
        return order, ordered
    rows = rows.copy()
    rows[tied] = sort_rows(_keys(rows[tied], starts[tied]))
    return _unrows(rows, x, axis), None


def topk_order(x: np.ndarray, axis: int, k: int, largest: bool, sorted: bool) -> tuple:
    """The indices of PyTorch's CPU ``topk`` along ``axis`` (``topk_impl_loop``), and the
    values at them: for ``k * 64 <= n`` ``std::partial_sort`` of the queue, else
    ``std::nth_element`` at ``k - 1`` and, if ``sorted``, ``std::sort`` of the first
    ``k - 1``."""
    axis %= x.ndim
    order = stable_argsort(x, axis, largest)
    n = x.shape[axis]
    # nth_element leaves the first k - 1 in its own order, ties or not
    every_row = k * 64 > n and not sorted and k > 2 and n > 3
    if not every_row:
        head = order[_head(axis, k + 1)].copy()  # NumPy gathers faster by a dense index
        values = take_along_axis(x, head, axis)
        first_k = _head(axis, k)
        stable = head[first_k], values[first_k].copy()  # values in a fresh row-major array
        if k == 0 or not _may_hold_tie(values, axis, largest):
            return stable
    rows = _rows(order, axis)
    starts = _class_starts(take_along_axis(_rows(x, axis), rows, 1))
    if every_row:
        replay = np.arange(rows.shape[0])
    else:  # the first k are the stable ones unless two of the first k + 1 are equal
        replay = np.flatnonzero(~starts[:, : k + 1].all(axis=1))
        if not replay.size:
            return stable
    keys = _keys(rows[replay], starts[replay])
    if k * 64 <= n:
        picked = partial_sort_rows(keys, k)
    else:
        picked = nth_element_rows(keys, k - 1)[:, :k]
        if sorted and k > 2:
            head = picked[:, : k - 1]
            picked[:, : k - 1] = take_along_axis(head, sort_rows(take_along_axis(keys, head, 1)), 1)
    rows = rows[:, :k].copy()
    rows[replay] = picked
    order = _unrows(rows, x, axis)
    return order, take_along_axis(x, order, axis)


def mode_index(rows: np.ndarray) -> np.ndarray:
    """For each row, the index PyTorch's CPU ``mode`` returns: ``std::sort`` of the (value,
    index) pairs by ``<`` on the values, then the last pair of the first longest run of
    values that ``==`` each other (the smallest most frequent value).

    Without NaN, a stable sort gives the runs' places; which of a run's indices is last is
    ``std::sort``'s, so rows longer than 16 whose mode repeats are replayed. ``<`` with NaN
    is not an order (a NaN is "equivalent" to every value) and ``NaN != NaN`` makes each NaN a
    run of its own: rows holding NaN follow ``std::sort`` one comparison at a time.
    """
    count, n = rows.shape
    order = np.argsort(rows, axis=1, kind="stable")
    ordered = take_along_axis(rows, order, 1)
    nan = np.isnan(ordered[:, -1]) if rows.dtype.kind == "f" else np.zeros(count, bool)
    starts = _class_starts(ordered, nan_class=False)  # rows holding NaN are replayed apart
    positions = np.arange(n)
    run_start = np.maximum.accumulate(np.where(starts, positions, 0), axis=1)
    ends = np.ones(rows.shape, dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    run_length = np.where(ends, positions - run_start + 1, 0)
    last = np.argmax(run_length, axis=1)
    replay = (run_length[np.arange(count), last] > 1) & (n > 16)
    tied = np.flatnonzero(replay & ~nan)
    if tied.size:
        order[tied] = sort_rows(_keys(order[tied], starts[tied]))
    index = order[np.arange(count), last]
    for row in np.flatnonzero(nan).tolist():
        index[row] = _mode_of_row_with_nan(rows[row].tolist())
    return index


def _mode_of_row_with_nan(values: list) -> int:
    order = std_sort(list(range(len(values))), lambda i, j: values[i] < values[j])
    best = best_count = run = 0
    for at, i in enumerate(order):
        run += 1
        if at == len(order) - 1 or values[i] != values[order[at + 1]]:
            if run > best_count:
                best, best_count = i, run
            run = 0
    return best


def all_nan_median_index(rows: int, n: int) -> np.ndarray:
    """The index PyTorch's CPU ``nanmedian`` along a dim returns for a row of ``n`` NaNs:
    ``std::nth_element`` at 0 of the indices, all equivalent under its comparator."""
    return nth_element_rows(np.zeros((rows, n), np.int64), 0)[:, 0]


def unique_sorted(x: np.ndarray, dim: int | None) -> tuple:
    """PyTorch's CPU ``unique`` (sorted; over the flattened input, or of the slices along
    ``dim``): ``(values, inverse, counts)``.

    Without ``dim`` ATen sorts with ``sort()`` (``std::sort``) and keeps the first of each run
    of values that ``!=`` separates (each NaN alone); with ``dim`` it ``std::sort``s the
    slices by a lexicographic ``<`` and keeps the first of each run of ``at::equal`` slices.
    NumPy's ``unique`` gives the same classes; which element stands for a class shows only
    where equal values differ in their bits, ``-0.0`` and ``0.0``, and there it is replayed.
    """
    both_zeros = x.dtype.kind == "f" and _holds_both_zeros(x)
    if dim is None:
        # every NaN is a value of its own (equal_nan=False), as ATen's != between neighbours
        values, inverse, counts = np.unique(
            x, return_inverse=True, return_counts=True, equal_nan=False
        )
        if both_zeros:
            flat = x.reshape(-1)
            ordered = flat[sort_order(flat, 0, False, False)[0]]
            values = ordered[np.r_[True, ordered[1:] != ordered[:-1]]]
        inverse = inverse.reshape(x.shape)
    elif x.dtype.kind in "fc" and x.shape[dim] and np.isnan(x).any():
        return _unique_slices_with_nan(x, dim)
    else:
        values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim)
        inverse = inverse.reshape(-1)
        if both_zeros:
            # the classes are numbered in the comparator's order: keys for std::sort
            order = sort_rows(inverse[None].astype(np.int64))[0]
            values = np.take(x, order[np.cumsum(counts) - counts], axis=dim)
    return values, inverse.astype(np.int64), counts.astype(np.int64)


def _holds_both_zeros(x: np.ndarray) -> bool:
    zeros = x[x == 0]
    return 0 < np.signbit(zeros).sum() < zeros.size


def _unique_slices_with_nan(x: np.ndarray, dim: int) -> tuple:
    """ATen's ``_unique_dim_cpu_template`` where slices hold NaN: ``std::sort`` of the
    slices by a lexicographic ``<`` (a NaN slice is "equivalent" to every slice, so the
    order is the algorithm's), then each slice is kept unless equal (``at::equal``: NaN
    never is) to the last kept one."""
    rows = np.moveaxis(x, dim, 0)
    flat = rows.reshape(rows.shape[0], -1)

    def less(a: int, b: int) -> bool:
        for left, right in zip(flat[a], flat[b]):
            if left < right:
                return True
            if left > right:
                return False
        return False

    order = std_sort(list(range(flat.shape[0])), less)
    kept, counts = [order[0]], []
    inverse = np.zeros(flat.shape[0], np.int64)
    previous = 0
    for position in range(1, len(order)):
        row = order[position]
        if not np.array_equal(flat[row], flat[kept[-1]]):
            kept.append(row)
            counts.append(position - previous)
            previous = position
        inverse[row] = len(kept) - 1
    counts.append(len(order) - previous)
    return np.moveaxis(rows[kept], 0, dim), inverse, np.array(counts, np.int64)
