"""Result memory layouts against PyTorch: a ratchet over every registry row's samples.

For each op, the forward result of every sample (float64) is compared with PyTorch's by
``stride()``, ignoring dimensions of size 1 (their stride is arbitrary), once as sampled and
once with every float input of two or more dimensions column-major (same values, transposed
memory order). The ops listed in ``KNOWN`` (as sampled) and ``KNOWN_COLUMN_MAJOR`` (column-major
inputs) still differ, each for the reason given; the lists may only shrink. The test fails when
an op not listed differs (a regression, or a new op with NumPy's layout where PyTorch chooses
another) and when a listed op now agrees (remove it from the list).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad._strides import like_operands
from glassgrad.ops import REGISTRY
from glassgrad.ops._registry import Sample

from .test_registry import _assert_ratchet, _output_differences, _run, _samples

_ROW_MAJOR = "PyTorch's kernel returns a row-major result; the composite here keeps the layout"
_QUANTILE = "PyTorch's quantile sorts a permuted copy and permutes the result back"

KNOWN: dict[str, str] = {
    "nanquantile": _QUANTILE,
    "quantile": _QUANTILE,
}

KNOWN_COLUMN_MAJOR: dict[str, str] = {
    **{name: _ROW_MAJOR for name in ("cdist", "linalg.norm", "nn.functional.rms_norm")},
    "masked_fill": _ROW_MAJOR + " (index_fill, built on it, keeps it as PyTorch's)",
}


def _strides(t: object) -> tuple:
    """The strides of the dimensions of size > 1."""
    return tuple(s for s, n in zip(t.stride(), t.shape) if n > 1)  # type: ignore[attr-defined]


def _column_major(value: object) -> object:
    if isinstance(value, np.ndarray) and value.ndim >= 2 and value.dtype.kind in "fc":
        return np.asfortranarray(value)
    if isinstance(value, list):
        return [_column_major(v) for v in value]
    return value


def _outputs_of(info: Any, sample: Sample, lib: Any) -> list:
    return _run(info, sample, lib)[0]


def _differ(ours: Any, theirs: Any) -> str | None:
    if tuple(ours.shape) != tuple(theirs.shape) or ours.numel() <= 1:
        return None
    if _strides(ours) == _strides(theirs):
        return None
    return f"{tuple(ours.shape)}: {ours.stride()} != torch {theirs.stride()}"


def _differences(key: str, column_major: bool = False) -> list[str]:
    """One line per result whose strides differ from PyTorch's, over the op's samples (with
    their matrix inputs column-major if asked)."""
    info = REGISTRY[key]
    samples = _samples(info)
    if column_major:
        samples = [
            Sample(
                tuple(_column_major(a) for a in s.args),
                {k: _column_major(v) for k, v in s.kwargs.items()},
            )
            for s in samples
        ]
    return _output_differences(info, samples, _outputs_of, _differ)


def test_known_ops_are_registry_ops() -> None:
    assert sorted((set(KNOWN) | set(KNOWN_COLUMN_MAJOR)) - set(REGISTRY)) == []
    assert sorted(set(KNOWN) & set(KNOWN_COLUMN_MAJOR)) == []


@pytest.mark.parametrize("key", sorted(k for k, info in REGISTRY.items() if info.samples))
def test_result_strides_match_torch(key: str) -> None:
    _assert_ratchet(key, _differences(key), KNOWN, "result strides")


@pytest.mark.parametrize(
    "key", sorted(k for k, info in REGISTRY.items() if info.samples and k not in KNOWN)
)
def test_result_strides_of_column_major_inputs_match_torch(key: str) -> None:
    _assert_ratchet(
        key, _differences(key, column_major=True), KNOWN_COLUMN_MAJOR, "column-major strides"
    )


def test_column_major_lapack_results_allow_torch_views() -> None:
    """The user program of the issue: an upper Cholesky factor is column-major, so its
    transpose is contiguous and ``.view(-1)`` works, as in PyTorch."""
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    ours = gg.linalg.cholesky(gg.tensor(a), upper=True).mT.view(-1)
    theirs = torch.linalg.cholesky(torch.tensor(a), upper=True).mT.view(-1)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("op", ["linalg.cholesky", "linalg.inv", "exp of a transpose", "add"])
def test_out_resized_from_empty_takes_the_result_layout(op: str) -> None:
    def strides(lib):
        a = lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], dtype=lib.float64)
        out = lib.empty(0, dtype=lib.float64)
        calls = {
            "linalg.cholesky": lambda: lib.linalg.cholesky(a, out=out),
            "linalg.inv": lambda: lib.linalg.inv(a, out=out),
            "exp of a transpose": lambda: lib.exp(a.t(), out=out),
            "add": lambda: lib.add(a, 1, out=out),
        }
        calls[op]()
        return out.stride()

    assert strides(gg) == strides(torch)


def _random_layout(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Zeros of ``shape`` in a random memory order, some dims broadcast or every other
    element skipped."""
    order = rng.permutation(len(shape))
    grown = [shape[d] * (2 if rng.random() < 0.2 else 1) for d in order]
    base = np.zeros(grown).transpose(np.argsort(order))
    array = base[
        tuple(
            slice(0, n * 2, 2) if g > n else slice(0, n)
            for g, n in zip((base.shape[d] for d in range(len(shape))), shape)
        )
    ]
    return array[tuple(slice(0, 1) if rng.random() < 0.25 else slice(None) for _ in shape)]


@pytest.mark.parametrize("count", [1, 2, 3])
def test_pointwise_results_take_tensor_iterators_layout(count: int) -> None:
    """``like_operands`` (every composite pointwise kernel's result) against the layout of
    PyTorch's pointwise results, for operands in random memory orders, with gaps and
    broadcasting: PyTorch's TensorIterator rules (the first operand decides, a broadcast dim
    defers to the next, equal strides put the smaller dim first)."""
    rng = np.random.default_rng(count)
    ops = {1: torch.sigmoid, 2: torch.add, 3: torch.addcmul}
    for _ in range(150):
        shape = tuple(int(n) for n in rng.integers(1, 4, rng.integers(2, 5)))
        arrays = [_random_layout(rng, shape) for _ in range(count)]
        full = np.broadcast_shapes(*(a.shape for a in arrays))
        theirs = ops[count](*(torch.from_numpy(a) for a in arrays))
        ours = like_operands(np.zeros(full), arrays)
        assert _strides(gg.from_numpy(ours)) == _strides(theirs), [a.strides for a in arrays]


_BINARY = ["add", "sub", "mul", "div", "atan2", "maximum", "hypot", "eq", "fmod", "pow"]


@pytest.mark.parametrize("name", [*_BINARY, "addcmul", "lerp"])
def test_pointwise_ops_of_operands_in_conflicting_layouts(name: str) -> None:
    """Seed 620344: ``(v3 / v5).mT.view(-1)``, v3 transposed and v5 row-major, raised in
    glassgrad: NumPy's ufunc gave the quotient a row-major layout where PyTorch's
    TensorIterator takes the first operand's. The ops themselves (recorded or not, two
    operands on the hot path, three on the general one) now give TensorIterator's layout."""
    rng = np.random.default_rng(len(name))
    count = 3 if name in ("addcmul", "lerp") else 2

    def call(lib: Any, arrays: list, grad: bool) -> Any:
        tensors = [lib.from_numpy(a) for a in arrays]  # their memory orders
        if grad:
            tensors = [t.detach().requires_grad_() for t in tensors]
        return getattr(lib, name)(*tensors)

    for trial in range(40):
        shape = tuple(int(n) for n in rng.integers(1, 4, rng.integers(2, 4)))
        arrays = [_random_layout(rng, shape) for _ in range(count)]
        for a in arrays:
            a += 0.5  # in place: the layout (gaps, order) stays
        grad = trial % 2 == 1
        ours, theirs = call(gg, arrays, grad), call(torch, arrays, grad)
        assert _strides(ours) == _strides(theirs), [a.strides for a in arrays]


def _transposed_leaf(lib):
    return lib.tensor(np.arange(12.0).reshape(4, 3)).T.detach().requires_grad_()


def _leaf_with_gaps(lib):
    return lib.zeros(4, 6)[:, ::2].detach().requires_grad_()


# Each program: a leaf and the loss whose backward gives the leaf its first .grad.
_GRAD_PROGRAMS = {
    "transposed leaf, row-major gradient": (
        _transposed_leaf,
        lambda w: w.contiguous() * 2,
    ),
    "transposed leaf, its own layout": (_transposed_leaf, lambda w: w * 2),
    "row-major leaf, transposed gradient": (
        lambda lib: lib.ones(3, 4, requires_grad=True),
        lambda x: x.t() * 2,
    ),
    "leaf with gaps": (_leaf_with_gaps, lambda x: x.t().contiguous() * 2),
}


@pytest.mark.parametrize("program", sorted(_GRAD_PROGRAMS))
@pytest.mark.parametrize("create_graph", [False, True])
def test_first_grad_follows_the_gradient_layout_contract(program: str, create_graph: bool):
    """A leaf's first ``.grad`` has the leaf's strides when the leaf is dense and is
    row-major otherwise (PyTorch's AccumulateGrad, ``obeys_layout_contract``); a retained
    gradient of a non-leaf is row-major (``retain_grad``'s clone)."""
    make_leaf, body = _GRAD_PROGRAMS[program]

    def strides(lib):
        leaf = make_leaf(lib)
        y = lib.ones(3, 4, requires_grad=True) * 1
        y.retain_grad()
        (body(leaf).sum() + (y.t() * 3).sum()).backward(create_graph=create_graph)
        return leaf.grad.stride(), y.grad.stride()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backward(create_graph=True)'s reference-cycle warning
        assert strides(gg) == strides(torch)
