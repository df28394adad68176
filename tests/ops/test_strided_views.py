"""as_strided beyond the registry's samples: it views the storage (writes go through, the
default offset is the input's own), in-place ops through it, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .test_linalg import assert_same_error


def test_views_the_storage_and_writes_go_through() -> None:
    for lib in (gg, torch):
        x = lib.arange(12.0).reshape(3, 4)
        window = x[1:].as_strided((2, 2), (4, 1))  # the offset is x[1:]'s own: 4
        assert window.tolist() == [[4.0, 5.0], [8.0, 9.0]]
        window.mul_(10)
        assert x[1].tolist() == [40.0, 50.0, 6.0, 7.0]
        assert window._base is x._base  # the view of a view has the root as its base


def test_in_place_through_a_view_reaches_the_leaf_as_pytorch() -> None:
    grads = []
    for lib in (gg, torch):
        leaf = lib.tensor(np.arange(1.0, 7.0), requires_grad=True)
        y = leaf * 2
        y.as_strided((2,), (3,), 1).mul_(lib.tensor([5.0, 7.0]))
        (y * lib.arange(6.0)).sum().backward()
        grads.append(leaf.grad.numpy())
    np.testing.assert_array_equal(*grads)


ERRORS = {
    "negative stride": (
        lambda m: m.ones(6).as_strided((3,), (-1,)),
        "Negative strides are not supported",
    ),
    "negative offset": (
        lambda m: m.ones(6).as_strided((3,), (1,), -1),
        "invalid storage offset -1",
    ),
    "ranks": (lambda m: m.ones(6).as_strided((3, 2), (1,)), "mismatch in length of strides"),
    "out of bounds": (
        lambda m: m.ones(3, 4).as_strided((20,), (1,)),
        "requiring a storage size of 80 are out of bounds for storage of size 48",
    ),
    "out of bounds with offset": (
        lambda m: m.ones(6)[2:].as_strided((3,), (1,), 4),
        "are out of bounds for storage of size 24",
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(name: str) -> None:
    program, words = ERRORS[name]
    assert_same_error(program, words)


def _transposed_base(lib: object, leaf: object) -> object:
    # A result that keeps its input's transposed layout (strides (1, 3)), not a view.
    return leaf.t() * 2


def test_view_regenerated_after_in_place_on_a_base_laid_out_transposed() -> None:
    # The view's new grad_fn (AsStridedBackward0 from the base) finds its elements in the
    # base's memory order, as PyTorch's: the storage, not the base's row-major order.
    grads = []
    for lib in (gg, torch):
        leaf = lib.tensor(np.arange(12.0).reshape(4, 3) / 10, requires_grad=True)
        base = _transposed_base(lib, leaf)
        view = base.as_strided((2, 2), (1, 3), 1)
        base.add_(1)
        (view * lib.tensor([[1.0, 10.0], [100.0, 1000.0]], dtype=lib.float64)).sum().backward()
        grads.append(leaf.grad.numpy())
    np.testing.assert_array_equal(*grads)


def test_in_place_through_a_view_of_a_base_laid_out_transposed() -> None:
    # CopySlices lays the base's gradient out as the base (PyTorch's new_empty_strided):
    # first and second derivatives as PyTorch's.
    results = []
    for lib in (gg, torch):
        leaf = lib.tensor(np.arange(12.0).reshape(4, 3) / 10, requires_grad=True)
        base = _transposed_base(lib, leaf)
        base.as_strided((2, 2), (1, 3), 1).mul_(leaf[:2, :2] + 1)
        weights = lib.arange(12.0, dtype=lib.float64).reshape(3, 4)
        (g,) = lib.autograd.grad((base * base * weights).sum(), leaf, create_graph=True)
        (gg2,) = lib.autograd.grad((g * g).sum(), leaf)
        results.append((g.detach().numpy(), gg2.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
