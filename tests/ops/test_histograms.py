"""Histograms against PyTorch where the registry's samples don't reach: the bin edges
(PyTorch's linspace in the data's dtype, widened by 0.5 for constant data, 0 to 1 without
data), ``histogram`` with an empty range, ``histogramdd``'s bins forms, and the errors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from .test_linalg import assert_same_error

POINTS = [[0.0, 1.0], [1.0, 2.0], [2.0, 2.5], [3.0, 3.0], [0.3, 0.7]]

CALLS = {
    "histogram constant data": lambda m: m.histogram(m.ones(3), bins=2),
    "histogram range of one value": lambda m: m.histogram(
        m.tensor([0.0, 1.0, 3.0]), bins=3, range=(1.0, 1.0)
    ),
    "histogram no data": lambda m: m.histogram(m.empty(0), bins=2),
    "histogram float32 edges": lambda m: m.histogram(m.tensor([0.1, 0.7, 0.3]), bins=7),
    "histogramdd bins per dim": lambda m: m.histogramdd(m.tensor(POINTS), bins=[2, 3]),
    "histogramdd range and density": lambda m: m.histogramdd(
        m.tensor(POINTS), bins=2, range=[0.0, 4.0, 0.0, 4.0], density=True
    ),
    "histogramdd edges and weight": lambda m: m.histogramdd(
        m.tensor(POINTS),
        bins=[m.tensor([0.0, 1.5, 3.0]), m.tensor([0.0, 2.0, 4.0])],
        weight=m.tensor([1.0, 2.0, 3.0, 4.0, 5.0]),
    ),
    "histogramdd constant data": lambda m: m.histogramdd(m.ones(3, 2), bins=2),
    "histogramdd batched points": lambda m: m.histogramdd(
        m.tensor(POINTS, dtype=m.float64).reshape(1, 5, 2).expand(2, 5, 2), bins=3
    ),
}


def _arrays(result: Any) -> list:
    hist, edges = result
    return [hist, *(edges if isinstance(edges, (list, tuple)) else [edges])]


@pytest.mark.parametrize("name", list(CALLS))
def test_histograms_and_edges_match_pytorch(name: str) -> None:
    ours, theirs = CALLS[name](gg), CALLS[name](torch)
    assert type(ours).__name__ == type(theirs).__name__
    (hist, *edges), (their_hist, *their_edges) = _arrays(ours), _arrays(theirs)
    np.testing.assert_array_equal(hist.numpy(), their_hist.numpy())
    for a, b in zip([hist, *edges], [their_hist, *their_edges], strict=True):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        # float32 edges may differ in the last bit: PyTorch's linspace steps in float32 (in
        # vector lanes), glassgrad's rounds the float64 values
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-7)


ERRORS = {
    "bins per dim": (
        lambda m: m.histogramdd(m.tensor(POINTS), bins=[2]),
        "The size of bins must be equal to the innermost dimension of the input.",
    ),
    "integer points": (
        lambda m: m.histogramdd(m.tensor(POINTS).long(), bins=2),
        "not implemented for 'Long'",
    ),
    "range length": (
        lambda m: m.histogramdd(m.tensor(POINTS), bins=2, range=[0.0, 1.0]),
        "for a 2-dimensional histogram range should have 4 elements, but got 2",
    ),
    "no bins": (
        lambda m: m.histogramdd(m.tensor(POINTS), bins=0),
        "bins must be > 0, but got 0 for dimension 0",
    ),
    "range reversed": (
        lambda m: m.histogramdd(m.tensor(POINTS), bins=2, range=[1.0, 0.0, 0.0, 1.0]),
        "min should not exceed max, but got min 1 max 0 for dimension 0",
    ),
    "one-dimensional points": (
        lambda m: m.histogramdd(m.ones(3), bins=2),
        "input tensor should have at least 2 dimensions",
    ),
    "infinite range": (
        lambda m: m.histogram(m.ones(3), bins=2, range=(0.0, math.inf)),
        "dimension 0's range [0, inf] is not finite",
    ),
    "nan data": (
        lambda m: m.histogram(m.tensor([1.0, math.nan]), bins=2),
        "dimension 0's range [nan, nan] is not finite",
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(name: str) -> None:
    program, words = ERRORS[name]
    assert_same_error(program, words)


def _edges(L: Any, requires_grad: bool = False) -> list:
    return [
        L.tensor([-2.0, 0.0, 2.0], dtype=L.float64, requires_grad=requires_grad),
        L.tensor([-1.0, 1.0], dtype=L.float64),
    ]


NOT_DIFFERENTIABLE = {
    "histogramdd, edges": lambda L, x, w: L.histogramdd(x, _edges(L)),
    "histogramdd, edges and weight": lambda L, x, w: L.histogramdd(x, _edges(L), weight=w),
    "histogramdd, counts": lambda L, x, w: L.histogramdd(x, [2, 3]),
    "histogramdd, weight only": lambda L, x, w: L.histogramdd(x.detach(), [2, 2], weight=w),
    "histogramdd, edges only": lambda L, x, w: L.histogramdd(x.detach(), _edges(L, True)),
    "histogram, count": lambda L, x, w: L.histogram(x[:, 0], 3),
    "histogram, weight only": lambda L, x, w: L.histogram(x[:, 0].detach(), 3, weight=w),
    "histogram, edges": lambda L, x, w: L.histogram(x[:, 0], _edges(L)[0]),
}


@pytest.mark.parametrize("name", sorted(NOT_DIFFERENTIABLE))
def test_histograms_are_recorded_without_a_derivative_as_pytorch(name: str) -> None:
    """PyTorch records hist (and computed edges) by NotImplemented nodes when the input, the
    weight or an edge tensor requires grad: they require grad, their backward raises."""
    seen = []
    for L in (gg, torch):
        x = L.tensor(np.linspace(-1.5, 1.5, 12).reshape(6, 2), requires_grad=True)
        w = L.tensor(np.linspace(0.1, 0.6, 6), requires_grad=True)
        results = NOT_DIFFERENTIABLE[name](L, x, w)
        hist, edges = results[0], results[1]
        edges = list(edges) if isinstance(edges, tuple) else [edges]
        flags = [(t.requires_grad, type(t.grad_fn).__name__) for t in (hist, *edges)]
        with pytest.raises(RuntimeError) as info:
            hist.sum().backward()
        seen.append((flags, str(info.value), hist.detach().numpy().tolist()))
    assert seen[0] == seen[1]


def test_histogram_edges_of_another_dtype_refused_as_pytorch() -> None:
    messages = []
    for L in (gg, torch):
        x = L.zeros(4, dtype=L.float64)
        with pytest.raises(RuntimeError) as info:
            L.histogram(x, L.tensor([0.0, 1.0]))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_bincount_with_weights_recorded_without_a_derivative_as_pytorch(dtype: str) -> None:
    """bincount's weighted counts require grad when the weights do, by a NotImplemented node
    whose backward raises (fuzz seed 110096: the result did not require grad); the repr names
    the node by its class, as PyTorch's."""
    seen = []
    for L in (gg, torch):
        weights = L.tensor([0.5, -1.0, 2.0], dtype=getattr(L, dtype))
        weights.requires_grad_(dtype != "int64")
        counts = L.bincount(L.tensor([1, 1, 3]), weights, minlength=5)
        with L.no_grad():
            plain = L.bincount(L.tensor([1, 1, 3]), weights)
        flags = (counts.requires_grad, type(counts.grad_fn).__name__, plain.requires_grad)
        error = None
        if counts.requires_grad:
            with pytest.raises(RuntimeError) as info:
                counts.sum().backward()
            error = str(info.value)
        shown = repr(counts).replace("glassgrad.", "torch.")
        seen.append((flags, error, shown, str(counts.dtype).split(".")[-1]))
    assert seen[0] == seen[1]


def _bad_histograms(L: Any) -> dict:
    x = L.tensor([0.5, 1.5, 2.0, 3.0])
    x64 = x.double()
    points = L.tensor([[0.5, 1.0], [1.5, 2.0], [2.0, 0.0]], dtype=L.float64)
    edges = L.tensor([0.0, 1.0], dtype=L.float64)
    return {
        "weight dtype": lambda: L.histogram(x, 3, weight=L.ones(4, dtype=L.float64)),
        "weight dtype, edges": lambda: L.histogram(x64, edges, weight=L.ones(4)),
        "weight length": lambda: L.histogram(x, 3, weight=L.ones(5)),
        "weight length and dtype": lambda: L.histogram(x, 3, weight=L.ones(5).double()),
        "one edge": lambda: L.histogram(x64, edges[:1]),
        "no edges": lambda: L.histogram(x64, edges[:0]),
        "2-d edges": lambda: L.histogram(x64, L.ones(2, 2, dtype=L.float64)),
        "no bins and a bad weight": lambda: L.histogram(x, 0, weight=L.ones(4).double()),
        "reversed range and a bad weight": lambda: L.histogram(
            x, 3, range=(2.0, 1.0), weight=L.ones(4).double()
        ),
        "integer data": lambda: L.histogram(L.tensor([1, 2]), 3),
        "integer data, range": lambda: L.histogram(L.tensor([1, 2]), 3, range=(0.0, 3.0)),
        "dd weight dtype": lambda: L.histogramdd(points, [2, 3], weight=L.ones(3)),
        "dd weight length": lambda: L.histogramdd(points, [2, 3], weight=L.ones(4).double()),
        "dd weight shape": lambda: L.histogramdd(points, [2, 3], weight=L.ones(3, 1).double()),
        "dd bins -1": lambda: L.histogramdd(points, [2, -1]),
        "dd 2-d edges": lambda: L.histogramdd(points, [L.ones(2, 2).double(), edges]),
        "dd one edge": lambda: L.histogramdd(points, [edges[:1], edges]),
        "dd edges, weight dtype": lambda: L.histogramdd(points, [edges, edges], weight=L.ones(3)),
        "dd edges for another dimension count": lambda: L.histogramdd(points[:, :1], [edges] * 2),
        "dd integer data, range": lambda: L.histogramdd(
            L.ones(3, 2, dtype=L.int64), [2, 3], range=[0.0, 1.0, 0.0, 1.0]
        ),
    }


def test_histogram_checks_in_pytorchs_order() -> None:
    """ATen's histogramdd_check_inputs (edges, then weights: dtype, then shape) and
    prepare_out (bins > 0), in the order each entry point calls them; the kernels' dtype
    dispatch last (fuzz seeds 90369, 90407: a weight of another dtype was accepted)."""
    outcomes = []
    for L in (gg, torch):
        seen = {}
        for name, call in _bad_histograms(L).items():
            with pytest.raises((RuntimeError, NotImplementedError)) as info:
                call()
            seen[name] = (type(info.value).__name__, str(info.value).split("\n")[0])
        outcomes.append(seen)
    assert outcomes[0] == outcomes[1]


def _kernel_cases(seed: int) -> list:
    """Points (some NaN, some on edges), weights, bin counts and edges (sorted or not) of
    ATen's histogram kernel's three bin selections."""
    rng = np.random.default_rng(seed)
    cases = []
    for trial in range(24):
        dtype = (np.float32, np.float64)[trial % 2]
        points = rng.standard_normal((int(rng.integers(1, 30)), 2)).astype(dtype)
        points[:, 1] = np.round(points[:, 1], 1)  # many points on the edges below
        if trial % 3 == 0:
            points[rng.integers(len(points)), 0] = np.nan
        bins = int(rng.integers(1, 7))
        edges = np.sort(rng.standard_normal(bins + 1)).astype(dtype)
        if trial % 4 == 0:
            rng.shuffle(edges)  # PyTorch searches them as they are, never refuses them
        low, high = sorted(np.round(rng.standard_normal(2), 1))
        cases.append((points, rng.random(len(points)).astype(dtype), bins, edges, low, high))
    return cases


KERNEL_CALLS = {
    "histogramdd edges": lambda m, p, w, n, e, lo, hi: (
        m.histogramdd(
            m.tensor(p),
            [m.tensor(e), m.tensor(np.linspace(-1, 1, 5).round(1).astype(p.dtype))],
            weight=m.tensor(w),
        ).hist
    ),
    "histogram edges density": lambda m, p, w, n, e, lo, hi: (
        m.histogram(m.tensor(p[:, 1].copy()), m.tensor(e), density=True).hist
    ),
    "histogram count": lambda m, p, w, n, e, lo, hi: (
        m.histogram(m.tensor(p[:, 1].copy()), n, weight=m.tensor(w)).hist
    ),
    "histogramdd counts": lambda m, p, w, n, e, lo, hi: (
        m.histogramdd(m.tensor(np.nan_to_num(p)), [n, n + 1]).hist
    ),
    "histc range": lambda m, p, w, n, e, lo, hi: m.histc(m.tensor(p.reshape(-1)), n, lo, hi),
    "histc reversed range": lambda m, p, w, n, e, lo, hi: m.histc(m.tensor(p), n, hi, lo),
    "histc data range": lambda m, p, w, n, e, lo, hi: m.histc(m.tensor(p), n),
}


@pytest.mark.parametrize("name", list(KERNEL_CALLS))
def test_bin_selection_matches_pytorchs_kernel(name: str) -> None:
    """Each point in the bin ATen's kernel puts it in (linear interpolation for histc, with a
    local search for counted bins, upper_bound over given edges, sorted or not), NaN and
    out-of-range points skipped, or PyTorch's error (a NaN or infinite histc range)."""
    for points, weight, bins, edges, low, high in _kernel_cases(len(name)):
        args = (points, weight, bins, edges, low, high)
        try:
            theirs = KERNEL_CALLS[name](torch, *args).numpy()
        except RuntimeError as error:
            with pytest.raises(RuntimeError) as ours:
                KERNEL_CALLS[name](gg, *args)
            assert str(ours.value) == str(error)
            continue
        ours = KERNEL_CALLS[name](gg, *args).numpy()
        assert ours.dtype == theirs.dtype
        # densities divide by a float32 total PyTorch sums in another order
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=0)
