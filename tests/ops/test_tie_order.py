"""Where sort, topk, mode, nanmedian and unique put equal values: the order libstdc++'s
algorithms leave on PyTorch's CPU queues (``ops/_tie_order.py``, ``ops/_std_sort.py``), on
inputs full of ties: all equal, two or five values, NaNs, zeros of both signs, at the sizes
where the algorithms change (3, 16, k * 64), several rows, float and integer dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import _std_sort
from glassgrad.ops._std_sort import nth_element_rows, partial_sort_rows, sort_rows

SIZES = (1, 2, 3, 4, 5, 16, 17, 18, 33, 64, 65, 129, 200)


@pytest.fixture(autouse=True)
def _one_torch_thread() -> Any:
    """PyTorch's mode kernel parallelises over rows: on a loaded machine every call waits on
    its thread pool (milliseconds). One thread changes no order (each row is one task)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _tied_rows(rng: np.random.Generator, n: int, dtype: str) -> list[np.ndarray]:
    """Three rows each of: all equal, two values, five values, and for floats values with
    NaNs and zeros of both signs."""
    inputs = [
        np.zeros((3, n)),
        rng.integers(0, 2, (3, n)).astype(float),
        rng.integers(0, 5, (3, n)).astype(float),
    ]
    if dtype.startswith("float"):
        with_nan = rng.integers(0, 3, (3, n)).astype(float)
        with_nan[rng.random((3, n)) < 0.4] = np.nan
        with_nan[0] = np.nan
        inputs += [with_nan, rng.choice(np.array([0.0, -0.0, 1.0]), (3, n))]
    return [a.astype(dtype) for a in inputs]


def _each_input(dtype: str, sizes: tuple = SIZES) -> list[np.ndarray]:
    rng = np.random.default_rng(sizes[-1])
    return [a for n in sizes for a in _tied_rows(rng, n, dtype)]


def _numpy(value: Any) -> list[np.ndarray]:
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _numpy(v)]
    return [value.numpy()]


def agree(op: str, a: np.ndarray, *args: Any, **kwargs: Any) -> None:
    """``op(tensor(a), *args, **kwargs)`` gives the same values, signs of zeros, indices and
    dtypes in glassgrad and PyTorch."""
    ours = _numpy(getattr(gg, op)(gg.from_numpy(a.copy()), *args, **kwargs))
    theirs = _numpy(getattr(torch, op)(torch.from_numpy(a.copy()), *args, **kwargs))
    for mine, want in zip(ours, theirs, strict=True):
        assert mine.dtype == want.dtype and mine.shape == want.shape, (op, args, kwargs)
        assert np.array_equal(mine, want, equal_nan=mine.dtype.kind == "f"), (op, a, args, kwargs)
        if mine.dtype.kind == "f":
            assert (np.signbit(mine) == np.signbit(want)).all(), (op, a, args, kwargs)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int16", "uint8"])
def test_sort_orders_ties_as_std_sort(dtype: str) -> None:
    for a in _each_input(dtype):
        for descending in (False, True):
            agree("sort", a, descending=descending)
            agree("sort", a.T.copy(), 0, descending)
            agree("argsort", a, descending=descending, stable=False)
        agree("msort", a.T.copy())
        agree("sort", a, stable=None)


def test_sort_of_bools_and_of_an_expanded_dim() -> None:
    agree("sort", np.random.default_rng(0).random((2, 40)) < 0.5)
    # a sorted dim of stride 0: ATen returns the indices in order
    for lib in (gg, torch):
        x = lib.tensor([[1.0], [2.0]]).expand(2, 40)
        assert lib.sort(x).indices.tolist() == [list(range(40))] * 2
        assert lib.argsort(lib.tensor(3.0).expand(20)).tolist() == list(range(20))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_orders_ties_as_partial_sort_or_nth_element(dtype: str, largest: bool) -> None:
    # k * 64 <= n: partial_sort (k = 1 at 64, 2 at 129, 3 at 200); nth_element past it
    for a in _each_input(dtype, (1, 3, 4, 5, 17, 64, 65, 129, 200)):
        n = a.shape[1]
        for k in sorted({k for k in (0, 1, 2, 3, n // 64, n // 64 + 1, n) if k <= n}):
            agree("topk", a, k, largest=largest)
            agree("topk", a, k, largest=largest, sorted=False)
        agree("topk", a.T.copy(), min(n, 3), 0, largest)


def test_topk_of_all_equal_values_from_the_fuzzer() -> None:
    """Fuzz seed 702202: alpha_dropout_(x, 1.0) made every value equal; PyTorch's
    nth_element leaves indices [2, 3, 0, 1] where a stable sort gives [0, 1, 2, 3]."""
    agree("topk", np.zeros(4), 4, largest=False)
    assert gg.topk(gg.zeros(4), 4, largest=False).indices.tolist() == [2, 3, 0, 1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_mode_index_is_the_last_of_its_run_in_std_sort_order(dtype: str) -> None:
    for a in _each_input(dtype, (1, 4, 16, 17, 65, 129)):
        agree("mode", a)
        agree("mode", a.T.copy(), 0)


def test_mode_with_nan_follows_the_raw_less_than() -> None:
    """``<`` with NaN is no order and ``NaN != NaN`` makes each NaN a run of one: the mode of
    [1, NaN, 1, NaN, NaN] is 1 (PyTorch), not NaN."""
    nan = float("nan")
    agree("mode", np.array([1.0, nan, 1.0, nan, nan]))
    agree("mode", np.array([nan, nan, 1.0]))
    agree("mode", np.array([nan] * 20 + [1.0] * 3))


def test_nanmedian_of_all_nan_rows_is_nth_elements() -> None:
    for n in (1, 3, 4, 5, 8, 17, 40):
        agree("nanmedian", np.full((2, n), np.nan), 1)
        agree("median", np.full((2, n), np.nan), 1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_median_kthvalue_and_extrema_of_ties(dtype: str) -> None:
    """Their kernels' answers among ties do not depend on an unstable algorithm (median's
    comparator breaks ties by index, kthvalue's quickselect is replayed, max/min and the
    cumulative ones scan), checked here on the same inputs."""
    for a in _each_input(dtype, (1, 4, 17, 65)):
        for op in ("median", "nanmedian", "max", "min", "cummax", "cummin", "argmax"):
            agree(op, a, 1)
        agree("argmin", a)
        agree("kthvalue", a, (a.shape[1] + 1) // 2, 1)


def test_unique_keeps_the_zero_std_sort_puts_first() -> None:
    rng = np.random.default_rng(3)
    for n in (5, 17, 40, 129):
        a = rng.choice(np.array([0.0, -0.0, 1.0]), (2, n))
        agree("unique", a, return_inverse=True)
        agree("unique", a.T.copy(), dim=0, return_counts=True)


# --- the replays themselves --------------------------------------------------------------


def test_replays_of_distinct_keys_give_the_sorted_order() -> None:
    """Without equal keys every algorithm's answer is the sorted order: what the stable path
    returns for rows without ties is what the replay would have."""
    rng = np.random.default_rng(1)
    for n in (4, 17, 65, 300):
        keys = np.argsort(rng.random((3, n)), axis=1)
        order = np.argsort(keys, axis=1)
        assert (sort_rows(keys) == order).all()
        for k in {1, 2, max(n // 64, 1), n // 2, n}:
            assert (partial_sort_rows(keys, k) == order[:, :k]).all()
            head = nth_element_rows(keys, k - 1)[:, :k]
            assert (np.sort(head[:, : k - 1], axis=1) == np.sort(order[:, : k - 1], axis=1)).all()
            assert (head[:, k - 1] == order[:, k - 1]).all()


def test_past_the_depth_limit_heapsort_and_heap_select_as_pytorch() -> None:
    """An organ pipe drives introsort past 2 log2 n partitions into heapsort, and introselect
    into heap select; both are followed element by element."""
    pipe = np.minimum(np.arange(1000.0), 1000.0 - np.arange(1000.0))
    heap_sorts, heap_selects = [], []
    sort_segment, select = _std_sort._heap_sort_segment, _std_sort._heap_select
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            _std_sort, "_heap_sort_segment", lambda *a: heap_sorts.append(a) or sort_segment(*a)
        )
        patch.setattr(_std_sort, "_heap_select", lambda *a: heap_selects.append(a) or select(*a))
        agree("sort", pipe)
        for k in (100, 999):
            agree("topk", pipe, k, largest=False, sorted=False)
            agree("topk", pipe, k)
    assert heap_sorts and heap_selects
