"""Stacking, grids, broadcasting helpers and comparisons beyond the registry's samples:
argument forms, bool results, in-place comparisons, and the errors."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import glassgrad as gg

from ._parity import LIBS, same, same_error


def test_allclose_and_equal() -> None:
    a, b = [1.0, 2.0, float("nan")], [1.0, 2.0 + 1e-9, float("nan")]
    same(lambda lib: lib.allclose(lib.tensor(a), lib.tensor(b)))
    same(lambda lib: lib.allclose(lib.tensor(a), lib.tensor(b), equal_nan=True))
    same(lambda lib: lib.allclose(lib.tensor([1.0]), lib.tensor([1.0, 1.0])))
    same(lambda lib: lib.tensor(a).allclose(lib.tensor(b), rtol=0, atol=1e-12, equal_nan=True))
    same(lambda lib: lib.equal(lib.tensor([1.0, 2.0]), lib.tensor([1, 2])))
    same(lambda lib: lib.equal(lib.tensor([1.0]), lib.tensor([1.0, 1.0])))
    same(lambda lib: lib.tensor(a).equal(lib.tensor(a)))
    same_error(lambda lib: lib.isclose(lib.tensor([1.0]), lib.tensor([1.0], dtype=lib.float64)))
    same_error(lambda lib: lib.isclose(lib.tensor([1.0]), lib.tensor([1.0]), rtol=-1))


def test_inplace_comparisons_record_zero_gradients() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        z = lib.tensor([1.0, 3.0, 2.0], requires_grad=True)
        y.le_(z)
        (y * x).sum().backward()
        ints = lib.tensor([1, 2, 3])
        ints.greater_equal_(2)
        return y, y.grad_fn.name(), x.grad, z.grad, ints

    same(program)


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
def test_stacks_take_out_and_refuse_a_tensor(name: str) -> None:
    def program(lib: Any) -> Any:
        out = lib.empty(0)
        getattr(lib, name)([lib.ones(2), lib.zeros(2)], out=out)
        return out

    same(program)
    same_error(lambda lib: getattr(lib, name)(lib.ones(2)))


def test_grids_and_broadcasting() -> None:
    same(lambda lib: lib.meshgrid(lib.arange(2), lib.arange(3), indexing="xy"))
    same(lambda lib: lib.meshgrid([lib.arange(2), lib.tensor(5)], indexing="ij"))
    same(lambda lib: lib.broadcast_shapes((2, 1), (3,), 1))
    same(lambda lib: lib.broadcast_tensors(lib.ones(2, 1), lib.zeros(3))[0].shape)
    same(lambda lib: lib.tensor([1, 2]).broadcast_to((2, 2)))
    same(lambda lib: lib.block_diag(lib.tensor([[1, 2]]), lib.tensor([[3.0]])))
    same(lambda lib: lib.atleast_2d(lib.tensor(1.0), lib.ones(2)))
    for lib in LIBS:
        xs, _ = lib.meshgrid(lib.arange(2.0), lib.arange(3.0), indexing="ij")
        assert xs._is_view()
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor in the tensor list"):
            lib.meshgrid(lib.ones(2, 2), indexing="ij")
    same_error(lambda lib: lib.meshgrid(lib.ones(2), indexing="ji"))
    same_error(lambda lib: lib.block_diag(lib.ones(1, 1, 1)))
    same_error(lambda lib: lib.cartesian_prod(lib.ones(2, 2)))
    with pytest.raises(RuntimeError):
        gg.broadcast_tensors(gg.ones(2), gg.ones(3))
    with pytest.raises(RuntimeError):
        torch.broadcast_tensors(torch.ones(2), torch.ones(3))


def test_block_diag_dtype_ranks_a_0d_block_below_dimensioned_ones() -> None:
    """ATen's block_diag takes ``result_type`` of its inputs as given, so a float64 0-d block
    beside float32 matrices gives float32 (fuzz seeds 116348, 98248: float64 here, from the
    blocks reshaped to matrices first); each gradient has its input's dtype."""

    def program(lib: Any) -> Any:
        a = lib.tensor([1.5, -2.0], requires_grad=True)
        b = lib.tensor(0.25, dtype=lib.float64, requires_grad=True)
        out = lib.block_diag(a, b, lib.ones(2, 2))
        (out * lib.arange(20.0).reshape(4, 5)).sum().backward()
        return out, a.grad, b.grad

    same(program)
    same(lambda lib: lib.block_diag(lib.tensor([1]), lib.tensor(2.5, dtype=lib.float64)))


@pytest.mark.parametrize("call", ["meshgrid", "cartesian_prod"])
def test_meshgrid_of_tensors_of_different_dtypes_refused_as_pytorch(call: str) -> None:
    """PyTorch refuses tensors of different dtypes (fuzz seeds 50516, 72960, 73260); they
    were broadcast together here."""
    messages = []
    for lib in (gg, torch):
        tensors = (lib.zeros(2), lib.zeros(3, dtype=lib.float64))
        with pytest.raises(RuntimeError) as caught:
            if call == "meshgrid":
                lib.meshgrid(*tensors, indexing="ij")
            else:
                lib.cartesian_prod(*tensors)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_cat_records_the_empty_vectors_it_skips() -> None:
    # PyTorch's legacy rule leaves 1-D empty tensors out of the result, but they take part
    # in the result's dtype and in autograd (each gets a fresh empty gradient): a split of an
    # empty tensor differentiated twice goes through such a cat (fuzz seed 97783).
    def program(lib: Any) -> Any:
        a = lib.zeros(0, dtype=lib.float64, requires_grad=True)
        b = lib.ones(2, 3, requires_grad=True)
        out = lib.cat([a * 2, b * 3])
        out.sum().backward()
        empty = lib.cat([lib.zeros(0), a * 1, lib.zeros(0)])
        nodes = [fn is not None for fn, _ in empty.grad_fn.next_functions]
        x = lib.zeros(0, requires_grad=True)
        _, y = x.chunk(2)
        (first,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        return out, a.grad, b.grad, empty, nodes, first.requires_grad

    same(program)
    same_error(lambda lib: lib.cat([lib.zeros(0), lib.tensor(1.0)]))
