"""libstdc++'s sorting algorithms, step by step, for ATen kernels whose result among equivalent
elements is the algorithm's: ``std::sort`` (introsort: median-of-three quicksort down to runs
of 16, heapsort past a depth of 2 log2 n, then insertion sort), ``std::nth_element``
(introselect: the same partition down to 3 elements, heap select past the depth) and
``std::partial_sort`` (heap select, then heap sort). Which of equal values lands where is
what these steps leave, so they are followed exactly.

``std_sort`` takes any comparator, one element at a time. The ``*_rows`` functions take rows
of integer keys compared with ``<`` (a strict weak order: equal keys are the equivalent
elements) and run every row at once: each partition is a few array operations over all the
segments the loop has open (the segments are disjoint, so the order the C++ recursion visits
them in does not matter), and the final insertion sort, stable, is a stable sort.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

_THRESHOLD = 16  # libstdc++'s _S_threshold


def std_sort(items: list, less: Callable[[Any, Any], bool]) -> list:
    """``items`` sorted in place as ``std::sort(begin, end, less)`` would, and returned."""
    n = len(items)
    if n > 1:
        _introsort_loop(items, 0, n, 2 * (n.bit_length() - 1), less)
        _final_insertion_sort(items, 0, n, less)
    return items


def _introsort_loop(a: list, first: int, last: int, depth: int, less: Callable) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _partition_pivot(a: list, first: int, last: int, less: Callable) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    pivot = a[first]
    lo, hi = first + 1, last
    while True:
        while less(a[lo], pivot):
            lo += 1
        hi -= 1
        while less(pivot, a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _move_median_to_first(a: list, result: int, x: int, y: int, z: int, less: Callable) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            median = y
        elif less(a[x], a[z]):
            median = z
        else:
            median = x
    elif less(a[x], a[z]):
        median = x
    elif less(a[y], a[z]):
        median = z
    else:
        median = y
    a[result], a[median] = a[median], a[result]


def _final_insertion_sort(a: list, first: int, last: int, less: Callable) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _insertion_sort(a: list, first: int, last: int, less: Callable) -> None:
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            a[first : i + 1] = [a[i], *a[first:i]]
        else:
            _linear_insert(a, i, less)


def _linear_insert(a: list, last: int, less: Callable) -> None:
    """``__unguarded_linear_insert``: no bound check, as libstdc++ (a smaller element than
    the one moved always lies before it there)."""
    value = a[last]
    while less(value, a[last - 1]):
        a[last] = a[last - 1]
        last -= 1
    a[last] = value


def _heap_sort(a: list, first: int, last: int, less: Callable) -> None:
    """``std::__partial_sort(first, last, last)``: make_heap, then sort_heap."""
    _make_heap(a, first, last, less)
    _sort_heap(a, first, last, less)


def _make_heap(a: list, first: int, last: int, less: Callable) -> None:
    n = last - first
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(a, first, parent, n, a[first + parent], less)


def _sort_heap(a: list, first: int, last: int, less: Callable) -> None:
    n = last - first
    while n > 1:
        n -= 1
        value = a[first + n]  # __pop_heap(first, first + n, first + n)
        a[first + n] = a[first]
        _adjust_heap(a, first, 0, n, value, less)


def _adjust_heap(a: list, first: int, hole: int, length: int, value: Any, less: Callable) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2  # __push_heap
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _key_less(x: tuple, y: tuple) -> bool:
    return x[0] < y[0]


def _heap_select(keys: np.ndarray, places: np.ndarray, middle: int) -> list:
    """``std::__heap_select(first, first + middle, last)`` of one row, as ``(key, place)``
    pairs: the heap ``[first, middle)`` it leaves (what lies past it is not read after).

    An element enters the heap only if it is below the heap's top, which only decreases: the
    rest of the row is filtered by the top in blocks (of doubling size), and only the
    elements below it walk the heap one by one."""
    heap = list(zip(keys[:middle].tolist(), places[:middle].tolist()))
    _make_heap(heap, 0, middle, _key_less)
    at, block = middle, 64
    while at < keys.size:
        chunk = keys[at : at + block]
        for i in np.flatnonzero(chunk < heap[0][0]).tolist():
            key = int(chunk[i])
            if key < heap[0][0]:  # __pop_heap(first, middle, i)
                _adjust_heap(heap, 0, 0, middle, (key, int(places[at + i])), _key_less)
        at += block
        block *= 2
    return heap


# --- every row at once, integer keys compared with < ---------------------------------------


def _swap(keys: np.ndarray, places: np.ndarray, i: np.ndarray, j: np.ndarray) -> None:
    keys[i], keys[j] = keys[j], keys[i].copy()
    places[i], places[j] = places[j], places[i].copy()


def _partition_segments(
    keys: np.ndarray, places: np.ndarray, first: np.ndarray, last: np.ndarray
) -> np.ndarray:
    """``__unguarded_partition_pivot`` of every segment ``[first, last)`` (4 or more
    elements each) of the flat arrays, in place: the cuts.

    Its scans are Hoare's: ``lo`` stops at the elements not below the pivot (G, left to
    right), ``hi`` at those not above it (S, right to left), and the i-th stop of each is
    swapped while G's is left of S's. An element a swap moved never stops a later scan
    early: ``lo`` meets one only at S's previous stop, where the loop ends (and returns it).
    So the swaps pair G and S in order, and the cut is G's first unpaired stop or S's last
    paired one, whichever comes first."""
    count = first.size
    mid = first + (last - first) // 2
    a, b, c = keys[first + 1], keys[mid], keys[last - 1]
    ab, bc, ac = a < b, b < c, a < c
    median = np.where(
        ab,
        np.where(bc, mid, np.where(ac, last - 1, first + 1)),
        np.where(ac, first + 1, np.where(bc, last - 1, mid)),
    )
    _swap(keys, places, first, median)
    lengths = last - first - 1
    segment = np.repeat(np.arange(count), lengths)
    offset = np.arange(segment.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    forward = first[segment] + 1 + offset
    backward = last[segment] - 1 - offset
    pivot = keys[first][segment]
    stops_lo = ~(keys[forward] < pivot)
    stops_hi = ~(pivot < keys[backward])
    g, g_segment = forward[stops_lo], segment[stops_lo]
    s, s_segment = backward[stops_hi], segment[stops_hi]
    g_count = np.bincount(g_segment, minlength=count)
    s_count = np.bincount(s_segment, minlength=count)
    g_start, s_start = np.cumsum(g_count) - g_count, np.cumsum(s_count) - s_count
    rank = np.arange(g.size) - g_start[g_segment]
    paired = np.flatnonzero(rank < s_count[g_segment])
    partner = s[s_start[g_segment[paired]] + rank[paired]]
    swapped = g[paired] < partner
    _swap(keys, places, g[paired][swapped], partner[swapped])
    m = np.bincount(g_segment[paired][swapped], minlength=count)
    g_next = np.where(m < g_count, g[np.minimum(g_start + m, g.size - 1)], last)
    s_previous = np.where(m > 0, s[np.maximum(s_start + m - 1, 0)] if s.size else last, last)
    return np.minimum(g_next, s_previous)


def _flat(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows, n = keys.shape
    places = np.tile(np.arange(n, dtype=np.int64), rows)
    return keys.astype(np.int64).reshape(-1), places, np.arange(rows, dtype=np.int64) * n


def _depth_limit(n: int) -> int:
    return 2 * (n.bit_length() - 1)  # 2 * std::__lg(n)


def _heap_sort_segment(keys: np.ndarray, places: np.ndarray, first: int, last: int) -> None:
    pairs = list(zip(keys[first:last].tolist(), places[first:last].tolist()))
    _heap_sort(pairs, 0, len(pairs), _key_less)
    keys[first:last], places[first:last] = zip(*pairs)


def sort_rows(keys: np.ndarray) -> np.ndarray:
    """Where ``std::sort`` with ``<`` on the keys puts each element of each row: the
    (rows, n) positions taken from, as ATen's (value, index) queue keeps them.

    Example::

        >>> sort_rows(np.zeros((1, 17), np.int64))[0, :4]
        array([ 8, 16, 15, 14])
    """
    rows, n = keys.shape
    flat, places, first = _flat(keys)
    last, depth = first + n, np.full(rows, _depth_limit(max(n, 1)))
    while first.size:
        open_ = last - first > _THRESHOLD
        first, last, depth = first[open_], last[open_], depth[open_]
        if not first.size:
            break
        spent = depth == 0
        for f, l in zip(first[spent].tolist(), last[spent].tolist()):
            _heap_sort_segment(flat, places, f, l)
        first, last, depth = first[~spent], last[~spent], depth[~spent] - 1
        cut = _partition_segments(flat, places, first, last)
        first, last = np.concatenate([first, cut]), np.concatenate([cut, last])
        depth = np.concatenate([depth, depth])
    # The final insertion sort moves an element past greater ones only: a stable sort.
    order = np.argsort(flat.reshape(rows, n), axis=1, kind="stable")
    return np.take_along_axis(places.reshape(rows, n), order, axis=1)


def nth_element_rows(keys: np.ndarray, nth: int) -> np.ndarray:
    """Where ``std::nth_element(first, first + nth, last)`` with ``<`` on the keys puts each
    element of each row (``0 <= nth < n``), as :func:`sort_rows`.

    Example::

        >>> nth_element_rows(np.zeros((1, 4), np.int64), 3)[0]
        array([2, 3, 0, 1])
    """
    rows, n = keys.shape
    flat, places, first = _flat(keys)
    last, target = first + n, first + nth
    depth = np.full(rows, _depth_limit(n))
    live = np.arange(rows)
    while live.size:
        live = live[last[live] - first[live] > 3]
        spent = live[depth[live] == 0]
        for row in spent.tolist():
            f, l, t = int(first[row]), int(last[row]), int(target[row])
            heap = _heap_select(flat[f:l], places[f:l], t + 1 - f)
            heap[0], heap[t - f] = heap[t - f], heap[0]
            flat[f : t + 1], places[f : t + 1] = zip(*heap)
            first[row] = last[row] = t  # done: nothing left for the insertion sort
        live = live[depth[live] > 0]
        depth[live] -= 1
        cut = _partition_segments(flat, places, first[live], last[live])
        right = cut <= target[live]
        first[live[right]], last[live[~right]] = cut[right], cut[~right]
    # The final __insertion_sort of the last 3 or fewer: stable, as above.
    lengths = last - first
    segment = np.repeat(np.arange(rows), lengths)
    at = first[segment] + np.arange(segment.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    order = at[np.lexsort((at, flat[at], segment))]
    flat[at], places[at] = flat[order], places[order]
    return places.reshape(rows, n)


def partial_sort_rows(keys: np.ndarray, k: int) -> np.ndarray:
    """Where ``std::partial_sort(first, first + k, last)`` with ``<`` on the keys puts the
    first ``k`` of each row (``1 <= k <= n``): (rows, k) positions, as :func:`sort_rows`.

    Example::

        >>> partial_sort_rows(np.zeros((1, 64), np.int64), 1)[0]
        array([0])
    """
    rows, n = keys.shape
    result = np.empty((rows, k), np.int64)
    places = np.arange(n, dtype=np.int64)
    for row in range(rows):
        heap = _heap_select(keys[row], places, k)
        _sort_heap(heap, 0, k, _key_less)
        result[row] = [place for _, place in heap]
    return result
