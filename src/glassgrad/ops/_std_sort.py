"""libstdc++'s ``std::sort``, step by step, for ATen kernels that sort with a comparator that
is not a strict weak order (rows holding NaN compare "equivalent" to every row): the order
such a sort leaves is the algorithm's, so it is followed exactly (introsort: median-of-three
quicksort down to runs of 16, heapsort past a depth of 2 log2 n, then insertion sort)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    n = last - first
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(a, first, parent, n, a[first + parent], less)
    while n > 1:
        n -= 1
        value = a[first + n]
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
