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


def _strided_gradient_runs(gradient_view) -> tuple[np.ndarray, np.ndarray]:
    """Adam over one parameter, once with C-contiguous gradients and once with the same
    values through ``gradient_view`` (a strided layout); returns both results."""
    rng = np.random.default_rng(11)
    start = rng.standard_normal((6, 5, 4)).astype(np.float32)
    grads = [rng.standard_normal(start.shape).astype(np.float32) for _ in range(3)]
    results = []
    for view in (np.ascontiguousarray, gradient_view):
        p = gg.tensor(start.copy(), requires_grad=True)
        opt = gg.optim.Adam([p], lr=0.1, weight_decay=0.1)
        for g in grads:
            array = view(g)
            assert array.shape == g.shape and np.array_equal(array, g)
            p.grad = gg.from_numpy(array)
            opt.step()
        results.append(p.detach().numpy().copy())
    return results[0], results[1]


@pytest.mark.parametrize(
    "layout",
    [
        lambda g: np.asfortranarray(g),
        lambda g: np.ascontiguousarray(g.transpose(2, 0, 1)).transpose(1, 2, 0),
        lambda g: np.stack([g, -g], axis=-1)[..., 0],
    ],
    ids=["fortran", "permuted", "every-other"],
)
@pytest.mark.parametrize("chunk, threads", [(1 << 16, 1), (7, 2), (40, 3)])
def test_strided_gradients_are_gathered_chunk_by_chunk(monkeypatch, layout, chunk, threads):
    monkeypatch.setattr(_elementwise, "CHUNK", chunk)
    monkeypatch.setattr(_elementwise, "PARALLEL_MIN", 1)
    monkeypatch.setattr(_elementwise, "num_threads", lambda: threads)
    contiguous, strided = _strided_gradient_runs(layout)
    np.testing.assert_array_equal(strided, contiguous)


def test_a_transposed_weight_gradient_is_read_where_it_lies(monkeypatch) -> None:
    # glassgrad's Linear gives weight gradients as transposed (Fortran-ordered) arrays.
    calls = []
    original = np.ascontiguousarray
    monkeypatch.setattr(np, "ascontiguousarray", lambda a, *k, **kw: calls.append(1) or original(a))
    layer = gg.nn.Linear(300, 500)
    opt = gg.optim.Adam(layer.parameters())
    layer(gg.ones(8, 300)).sum().backward()
    before = layer.weight.detach().numpy().copy()
    opt.step()
    assert not np.array_equal(before, layer.weight.detach().numpy())
    assert calls == []  # no whole-array copy of the gradient


def test_empty_parameters() -> None:
    for shape in [(0,), (0, 3), (3, 0)]:
        p = gg.zeros(shape, requires_grad=True)
        opt = gg.optim.Adam([p])
        p.grad = gg.zeros(shape)
        opt.step()
        assert p.shape == shape and opt.state[p]["step"].item() == 1.0


@pytest.mark.parametrize(
    "chunk, gather_rows, strip, threads",
    [(1 << 16, 256, 16, 1), (370, 8, 3, 2), (370, 64, 5, 3), (100, 64, 50, 3)],
)
def test_transposed_matrix_gradients_gathered_in_strips(
    monkeypatch, chunk, gather_rows, strip, threads
):
    monkeypatch.setattr(_elementwise, "CHUNK", chunk)
    monkeypatch.setattr(_elementwise, "GATHER_ROWS", gather_rows)
    monkeypatch.setattr(_elementwise, "STRIP", strip)
    monkeypatch.setattr(_elementwise, "PARALLEL_MIN", 1)
    monkeypatch.setattr(_elementwise, "num_threads", lambda: threads)
    rng = np.random.default_rng(2)
    start = rng.standard_normal((300, 37)).astype(np.float32)
    grads = [rng.standard_normal(start.shape).astype(np.float32) for _ in range(3)]
    results = []
    for layout in (np.ascontiguousarray, np.asfortranarray):
        p = gg.tensor(start.copy(), requires_grad=True)
        opt = gg.optim.RMSprop([p], lr=0.01, centered=True, momentum=0.5)
        for g in grads:
            p.grad = gg.from_numpy(layout(g))
            opt.step()
        results.append(p.detach().numpy().copy())
    np.testing.assert_array_equal(results[1], results[0])
