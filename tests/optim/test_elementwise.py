"""The chunked, multi-threaded update driver: the result does not depend on the chunk size or
the number of threads, errors surface, and a forked child process can still step."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.optim import _elementwise


def _adam_run(size: int) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    p = gg.tensor(rng.standard_normal(size).astype(np.float32), requires_grad=True)
    q = gg.tensor(rng.standard_normal((3, size // 3)), requires_grad=True)  # float64
    opt = gg.optim.Adam([p, q], lr=0.01, weight_decay=0.1, amsgrad=True)
    for _ in range(3):
        p.grad = gg.tensor(rng.standard_normal(size).astype(np.float32))
        q.grad = gg.tensor(rng.standard_normal((3, size // 3)))
        opt.step()
    return [p.detach().numpy().copy(), q.detach().numpy().copy()] + [
        s["exp_avg_sq"].numpy().copy() for s in opt.state.values()
    ]


@pytest.mark.parametrize("chunk, threads", [(1 << 14, 1), (1000, 3), (7, 2), (1 << 20, 4)])
def test_result_is_independent_of_chunks_and_threads(monkeypatch, chunk, threads) -> None:
    reference = _adam_run(30_000)
    monkeypatch.setattr(_elementwise, "CHUNK", chunk)
    monkeypatch.setattr(_elementwise, "PARALLEL_MIN", 1000)
    monkeypatch.setattr(_elementwise, "num_threads", lambda: threads)
    for ours, expected in zip(_adam_run(30_000), reference):
        np.testing.assert_array_equal(ours, expected)


def test_an_error_in_a_worker_thread_is_raised(monkeypatch) -> None:
    monkeypatch.setattr(_elementwise, "CHUNK", 1024)
    monkeypatch.setattr(_elementwise, "PARALLEL_MIN", 10)
    monkeypatch.setattr(_elementwise, "num_threads", lambda: 2)

    def kernel(arrays, scratch):
        if arrays[0][0] > 0.5:  # only the second half (the worker's part)
            raise FloatingPointError("boom")

    data = np.linspace(0.0, 1.0, 1 << 16)
    with pytest.raises(FloatingPointError, match="boom"):
        _elementwise.for_each_chunk(kernel, [data], 0)


def test_scratch_buffers_have_the_arrays_dtype_and_float64_for_wide() -> None:
    seen = []

    def kernel(arrays, scratch):
        seen.append(tuple(s.dtype for s in scratch) + (scratch[0].shape,))

    _elementwise.for_each_chunk(kernel, [np.zeros(10, np.float32)], 2, wide_scratch=1)
    _elementwise.for_each_chunk(kernel, [np.zeros((3, 4), np.float64).T], 1, wide_scratch=1)
    assert seen == [
        (np.float32, np.float32, np.float64, (10,)),
        (np.float64, np.float64, (4, 3)),  # strided: one whole-array call
    ]


def test_num_threads_follows_omp_num_threads(monkeypatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert _elementwise.num_threads() == 3
    monkeypatch.setenv("OMP_NUM_THREADS", "")
    assert _elementwise.num_threads() >= 1


def _step_in_child(queue) -> None:
    p = gg.zeros(1 << 18, requires_grad=True)
    opt = gg.optim.SGD([p], lr=0.5)
    p.grad = gg.ones(1 << 18)
    opt.step()
    queue.put(float(p.sum()))


def test_a_forked_child_can_step_large_parameters(monkeypatch) -> None:
    monkeypatch.setattr(_elementwise, "num_threads", lambda: 2)
    _adam_run(1 << 18)  # the parent's thread pool exists now
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_step_in_child, args=(queue,))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0
    assert queue.get(timeout=5) == -(1 << 17)
