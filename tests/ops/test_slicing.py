"""Splits, rotations, take/put, index_fill/index_copy, slice writes, repeat_interleave,
diag_embed and Tensor.unfold beyond the registry: argument forms, views, errors."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch

import glassgrad as gg

from ._parity import same, same_error


def test_argument_forms() -> None:
    same(lambda lib: lib.tensor_split(lib.arange(7), sections=3))
    same(lambda lib: lib.tensor_split(lib.arange(7), indices=[2, 5]))
    same(lambda lib: lib.arange(7).tensor_split(lib.tensor([1, 3])))
    same(lambda lib: lib.arange(8).reshape(2, 4).hsplit(1, 3))
    same(lambda lib: lib.vsplit(lib.arange(8).reshape(4, 2), [1]))
    same(lambda lib: lib.arange(8.0).reshape(2, 2, 2).dsplit(2))
    same(lambda lib: lib.rot90(lib.arange(6).reshape(2, 3), k=3, dims=(1, 0)))
    same(lambda lib: lib.arange(6).reshape(2, 3).repeat_interleave(2, dim=0))
    same(lambda lib: lib.repeat_interleave(lib.tensor([1, 2]), lib.tensor([2, 3]), output_size=5))
    same(lambda lib: lib.repeat_interleave(lib.tensor([2, 0, 1])))
    same(lambda lib: lib.arange(10).unfold(0, 3, 2))
    same(lambda lib: lib.diag_embed(lib.tensor([[1, 2], [3, 4]]), offset=-1, dim1=0, dim2=2))

    def in_place(lib: Any) -> Any:
        x = lib.zeros(2, 3)
        x.index_fill_(1, lib.tensor([0, 2]), 5.0)
        x.put_(lib.tensor([1]), lib.tensor([7.0]))
        x.index_copy_(0, lib.tensor([1]), lib.ones(1, 3))
        return x

    same(in_place)


def test_views() -> None:
    def program(lib: Any) -> Any:
        x = lib.arange(6.0)
        window = x.unfold(0, 2, 2)
        parts = lib.tensor_split(x, 3)
        x.add_(1)
        return window, parts[1], window._is_view(), parts[0]._is_view()

    same(program)


def test_gradients_through_writes() -> None:
    def program(lib: Any) -> Any:
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        src = lib.tensor([10.0, 20.0, 30.0], requires_grad=True)
        y = lib.select_scatter(x, src, 0, 1) * lib.tensor([1.0, 2.0, 3.0])
        z = lib.slice_scatter(x, lib.ones(2, 2) * src[:2], 1, 0, 2)
        (y.sum() + z.sum()).backward()
        return x.grad, src.grad

    same(program)


def test_errors() -> None:
    same_error(lambda lib: lib.fliplr(lib.ones(3)))
    same_error(lambda lib: lib.rot90(lib.ones(2, 2), 1, [0, 0]))
    same_error(lambda lib: lib.tensor_split(lib.ones(3), 0))
    same_error(lambda lib: lib.hsplit(lib.ones(2, 3), 2))
    same_error(lambda lib: lib.vsplit(lib.ones(3), 1))
    same_error(lambda lib: lib.take(lib.ones(3), lib.tensor([1.0])))
    same_error(lambda lib: lib.put(lib.ones(3), lib.tensor([1]), lib.ones(2)))
    same_error(lambda lib: lib.put(lib.ones(3), lib.tensor([1]), lib.ones(1, dtype=lib.float64)))
    same_error(lambda lib: lib.ones(3).put_(lib.tensor([1, 2]), lib.ones(1, dtype=lib.int64)))
    same_error(lambda lib: lib.arange(5).unfold(0, 6, 1))
    same_error(lambda lib: lib.arange(5).unfold(0, 2, 0))
    same_error(lambda lib: lib.select_scatter(lib.ones(2, 2), lib.ones(3), 0, 0))
    same_error(lambda lib: lib.repeat_interleave(lib.ones(2), lib.tensor([-1, 1])))
    same_error(lambda lib: lib.diag_embed(lib.ones(2), dim1=0, dim2=0))


def test_index_add_and_copy_take_a_0d_index_as_torch() -> None:
    # ATen reads a 0-d index as one position (AdaptiveLogSoftmaxWithLoss relies on it).
    for name in ("index_add", "index_copy"):

        def program(lib: Any, name: str = name) -> Any:
            source = lib.ones(1, 2, dtype=lib.float64, requires_grad=True)
            out = getattr(lib.zeros(3, 2, dtype=lib.float64), name)(0, lib.tensor(1), source * 2)
            out.sum().backward()
            return out, source.grad

        same(program)


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: x.put_(L.tensor([0, 0, 1]), x),
        lambda L, x: x.index_copy_(0, L.tensor([2, 1, 0]), x),
        lambda L, x: x.scatter_reduce_(0, L.tensor([0, 0, 1]), x, "amax"),
        lambda L, x: x.index_reduce_(0, L.tensor([0, 0, 1]), x, "prod"),
    ],
    ids=["put_", "index_copy_", "scatter_reduce_", "index_reduce_"],
)
def test_inplace_source_sharing_self_memory_refused_as_torch(call: Any) -> None:
    """PyTorch's assert_no_overlap: the source of these in-place writes may not be self."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # index_reduce is in beta
        same_error(lambda L: call(L, L.ones(3)))


@pytest.mark.parametrize(
    "program",
    [
        "v = L.tensor([1.0, 2.0]); v[None] = v[1:2]",
        "v = L.tensor([1.0, 2.0]); v[None] = v",
        "v = L.arange(4.0); v[1:3] = v[0:2]",
        "v = L.zeros(2, 2); v[0] = v[1]",
        "v = L.zeros(3, 2); v[0] = L.ones(1, 1, 2)",
        "v = L.zeros(3); v[0:1] = L.tensor([[5.0]])",
        "v = L.zeros(3); v[:] = L.ones(2)",
        "v = L.zeros(3, 2); v[:] = L.ones(3, 1, 2)",
    ],
)
def test_setitem_expands_the_value_as_pytorch_copy_to(program: str) -> None:
    """``x[key] = value`` of another shape: PyTorch drops the value's leading 1s and expands it
    to the target's shape before copy_, so an expanded value in the target's memory is not
    refused (its memory is not dense), and the shape errors are expand's."""

    def run(lib: Any) -> Any:
        namespace = {"L": lib}
        exec(program, namespace)
        return namespace["v"]

    try:
        expected = run(torch)
    except RuntimeError:
        same_error(run)
    else:
        assert run(gg).tolist() == expected.tolist()
