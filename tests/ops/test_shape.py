"""Shape and selection ops: what the registry's parity tests can't say.

Errors (type and PyTorch's message words, the lead's cat/stack included), views that share
storage with their base (split, chunk, diagonal) and in-place writes through them, the
in-place variants (scatter_, scatter_add_, index_add_, masked_fill_, tril_, triu_), graph
structure (grad_fn names and edges), scatter with a source larger than its index (PyTorch's
own backward fails there, so finite differences are the oracle), and property tests over
random shapes. PyTorch runs the same program; results are compared element by element.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import glassgrad as gg

LIBS = (gg, torch)
_BUILTIN_ERRORS = (IndexError, TypeError, ValueError, NotImplementedError, RuntimeError)


def numpy_of(t: Any) -> np.ndarray:
    return t.detach().numpy()


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    a, b = numpy_of(ours), numpy_of(theirs)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def run_both(program: Callable[[Any, list], Any], *arrays: np.ndarray) -> tuple:
    """``program(lib, leaves)`` in glassgrad and PyTorch; float arrays become leaves that
    require grad. Returns ((our output, our leaves), (their output, their leaves))."""
    runs = []
    for lib in LIBS:
        leaves = [lib.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]
        runs.append((program(lib, leaves), leaves))
    return runs[0], runs[1]


def compare(program: Callable[[Any, list], Any], *arrays: np.ndarray) -> None:
    """Values and first derivatives (of sum(out * c) for a fixed random c) agree."""
    (ours, our_leaves), (theirs, their_leaves) = run_both(program, *arrays)
    assert_same(ours, theirs)
    c = np.random.default_rng(7).standard_normal(tuple(theirs.shape))
    grads = []
    for lib, out, leaves in ((gg, ours, our_leaves), (torch, theirs, their_leaves)):
        wanted = [x for x in leaves if x.requires_grad]
        got = lib.autograd.grad(
            (out * lib.tensor(c, dtype=out.dtype)).sum(), wanted, allow_unused=True
        )
        grads.append([lib.zeros_like(x) if g is None else g for g, x in zip(got, wanted)])
    for a, b in zip(*grads):
        assert_same(a, b)


def builtin_base(error: BaseException) -> type:
    return next(t for t in _BUILTIN_ERRORS if isinstance(error, t))


def assert_same_error(program: Callable[[Any], Any], *words: str) -> None:
    """Both libraries raise the same kind of error, and both messages contain ``words``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            program(torch)
    with pytest.raises(Exception) as ours:
        program(gg)
    assert isinstance(ours.value, builtin_base(theirs.value)), (ours.value, theirs.value)
    for word in words:
        assert word in str(theirs.value), f"torch says: {theirs.value}"
        assert word in str(ours.value), f"glassgrad says: {ours.value}"


def pad_of(lib: Any) -> Callable:
    return lib.nn.functional.pad


# --- errors -------------------------------------------------------------------------------

ERROR_CASES = {
    # the lead's cat and stack, checked against PyTorch's words
    "cat sizes": (
        lambda lib: lib.cat([lib.zeros(2, 3), lib.zeros(2, 4)]),
        [
            "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 "
            "for tensor number 1 in the list."
        ],
    ),
    "cat ndim": (
        lambda lib: lib.cat([lib.zeros(2, 3), lib.zeros(3)]),
        ["Tensors must have same number of dimensions: got 2 and 1"],
    ),
    "cat dim": (
        lambda lib: lib.cat([lib.zeros(2, 3), lib.zeros(2, 3)], 2),
        ["Dimension out of range (expected to be in range of [-2, 1], but got 2)"],
    ),
    "cat 0-d": (
        lambda lib: lib.cat([lib.tensor(1.0), lib.tensor(2.0)]),
        ["zero-dimensional tensor (at position 0) cannot be concatenated"],
    ),
    "stack sizes": (
        lambda lib: lib.stack([lib.zeros(2, 3), lib.zeros(2, 4)]),
        [
            "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, 4] at "
            "entry 1"
        ],
    ),
    "flatten dim": (
        lambda lib: lib.zeros(2, 3, 4).flatten(5),
        ["Dimension out of range (expected to be in range of [-3, 2], but got 5)"],
    ),
    "flatten order": (
        lambda lib: lib.zeros(2, 3, 4).flatten(2, 1),
        ["flatten() has invalid args: start_dim cannot come after end_dim"],
    ),
    "unflatten sizes": (
        lambda lib: lib.zeros(2, 3, 4).unflatten(2, (3, 2)),
        ["Provided sizes [3, 2] don't multiply up to the size of dim 2 (4) in the input tensor"],
    ),
    "movedim dim": (
        lambda lib: lib.zeros(2, 3, 4).movedim(3, 0),
        ["Dimension out of range (expected to be in range of [-3, 2], but got 3)"],
    ),
    "movedim repeated": (
        lambda lib: lib.zeros(2, 3, 4).movedim((0, 0), (1, 2)),
        ["movedim: repeated dim in `source` ([0, 0])"],
    ),
    "movedim lengths": (
        lambda lib: lib.zeros(2, 3, 4).movedim((0, 1), (1,)),
        ["should contain the same number of dims as destination"],
    ),
    "repeat too few": (
        lambda lib: lib.zeros(2, 3, 4).repeat(2, 2),
        [
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
            "tensor"
        ],
    ),
    "repeat negative": (
        lambda lib: lib.zeros(2, 3).repeat(2, -1),
        ["Trying to create tensor with negative dimension -3"],
    ),
    "flip repeated": (
        lambda lib: lib.zeros(2, 3).flip(0, 0),
        ["dim 0 appears multiple times in the list of dims"],
    ),
    "roll mismatch": (
        lambda lib: lib.zeros(2, 3).roll((1, 2), 0),
        ["shifts and dimensions must align. shifts: 2, dims:1"],
    ),
    "split sizes sum": (
        lambda lib: lib.zeros(2, 3, 4).split([1, 1], 2),
        [
            "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size at "
            "dimension 2), but got split_sizes=[1, 1]"
        ],
    ),
    "split negative": (
        lambda lib: lib.zeros(2, 3, 4).split([5, -1], 2),
        [
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            "split_sizes=[5, -1]"
        ],
    ),
    "split zero": (
        lambda lib: lib.zeros(2, 3, 4).split(0, 2),
        ["split_size can only be 0 if dimension size is 0, but got dimension size of 4"],
    ),
    "split dim": (
        lambda lib: lib.zeros(2, 3).split(1, 2),
        ["Dimension out of range (expected to be in range of [-2, 1], but got 2)"],
    ),
    "chunk zero": (
        lambda lib: lib.zeros(4).chunk(0),
        ["chunk expects `chunks` to be greater than 0, got: 0"],
    ),
    "narrow past end": (
        lambda lib: lib.zeros(2, 4).narrow(1, 3, 2),
        ["start (3) + length (2) exceeds dimension size (4)."],
    ),
    "narrow length": (
        lambda lib: lib.zeros(2, 4).narrow(1, 1, -1),
        ["narrow(): length must be non-negative."],
    ),
    "select index": (
        lambda lib: lib.zeros(2, 3, 4).select(2, 4),
        ["select(): index 4 out of range for tensor of size [2, 3, 4] at dimension 2"],
    ),
    "select 0-d": (
        lambda lib: lib.tensor(1.0).select(0, 0),
        ["select() cannot be applied to a 0-dim tensor."],
    ),
    "index_select range": (
        # (PyTorch words this differently for 2-D inputs: its kernel differs by rank)
        lambda lib: lib.zeros(2, 3, 4).index_select(2, lib.tensor([0, 4])),
        ["index out of range in self"],
    ),
    "index_select 2-d index": (
        lambda lib: lib.zeros(2, 4).index_select(1, lib.tensor([[0, 1]])),
        ["index_select(): Index is supposed to be a vector"],
    ),
    "index_select float index": (
        lambda lib: lib.zeros(2, 4).index_select(1, lib.tensor([0.0, 1.0])),
        ["index_select(): Expected dtype int32 or int64 for index"],
    ),
    "gather index too large": (
        lambda lib: lib.zeros(2, 3, 4).gather(2, lib.tensor([[[0, 7]]])),
        ["index 7 is out of bounds for dimension 2 with size 4"],
    ),
    "gather negative index": (
        lambda lib: lib.zeros(2, 3, 4).gather(2, lib.tensor([[[0, -1]]])),
        ["index -1 is out of bounds for dimension 2 with size 4"],
    ),
    "gather ndim": (
        lambda lib: lib.zeros(2, 3, 4).gather(2, lib.tensor([[0, 1]])),
        ["Index tensor must have the same number of dimensions as input tensor"],
    ),
    "gather index larger than self": (
        lambda lib: lib.zeros(2, 3, 4).gather(2, lib.zeros(3, 3, 1, dtype=lib.int64)),
        [
            "Size does not match at dimension 0 expected index [3, 3, 1] to be no larger than "
            "self [2, 3, 4] apart from dimension 2"
        ],
    ),
    "scatter index range": (
        lambda lib: lib.zeros(2, 3, 4).scatter(2, lib.tensor([[[0, 7]]]), 1.0),
        ["index 7 is out of bounds for dimension 2 with size 4"],
    ),
    "scatter src smaller": (
        lambda lib: lib.zeros(2, 3).scatter(1, lib.zeros(2, 3, dtype=lib.int64), lib.zeros(1, 1)),
        [
            "Expected index [2, 3] to be no larger than self [2, 3] apart from dimension 1 and to "
            "be no larger size than src [1, 1]"
        ],
    ),
    "scatter_add index range": (
        lambda lib: lib.zeros(2, 4).scatter_add(1, lib.tensor([[0, 7]]), lib.ones(1, 2)),
        ["index 7 is out of bounds for dimension 1 with size 4"],
    ),
    "index_add index range": (
        lambda lib: lib.zeros(2, 4).index_add(1, lib.tensor([0, 7]), lib.ones(2, 2)),
        ["index 7 is out of bounds for dimension 1 with size 4"],
    ),
    "index_add source size": (
        lambda lib: lib.zeros(2, 4).index_add(1, lib.tensor([0, 1]), lib.ones(2, 3)),
        ["Number of indices (2) should be equal to source.size(dim): (3), for dim: 1"],
    ),
    "masked_fill mask dtype": (
        lambda lib: lib.zeros(2, 3).masked_fill(lib.ones(2, 3), 1.0),
        ["only supports boolean masks, but got mask with dtype float"],
    ),
    "masked_fill mask shape": (
        lambda lib: lib.zeros(2, 3, 4).masked_fill(lib.ones(5, dtype=lib.bool), 1.0),
        [
            "The size of tensor a (5) must match the size of tensor b (4) at non-singleton "
            "dimension 2"
        ],
    ),
    "masked_fill value dims": (
        lambda lib: lib.zeros(2, 3).masked_fill(lib.ones(2, 3, dtype=lib.bool), lib.ones(2)),
        [
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
            "dimension(s)."
        ],
    ),
    "masked_fill_ broadcast self": (
        lambda lib: lib.ones(3, 1).masked_fill_(lib.ones(3, 4, dtype=lib.bool), 2.0),
        ["output with shape [3, 1] doesn't match the broadcast shape [3, 4]"],
    ),
    "masked_scatter_ broadcast self": (
        lambda lib: lib.ones(3, 1).masked_scatter_(lib.ones(3, 4, dtype=lib.bool), lib.ones(12)),
        [
            "The expanded size of the tensor (1) must match the existing size (4) at "
            "non-singleton dimension 1.  Target sizes: [3, 1].  Tensor sizes: [3, 4]"
        ],
    ),
    "masked_scatter_ short source": (
        lambda lib: lib.ones(3, 4).masked_scatter_(lib.ones(3, 4, dtype=lib.bool), lib.ones(5)),
        ["Number of elements of source < number of ones in mask"],
    ),
    "masked_scatter short source": (
        lambda lib: lib.ones(3, 1).masked_scatter(lib.ones(3, 4, dtype=lib.bool), lib.ones(5)),
        ["Number of elements of source < number of ones in mask"],
    ),
    "masked_scatter source dtype": (
        lambda lib: lib.ones(3, 1).masked_scatter(
            lib.ones(4, dtype=lib.bool), lib.ones(12).double()
        ),
        ["masked_scatter: expected self and source to have same dtypes but gotFloat and Double"],
    ),
    "masked_select shape": (
        lambda lib: lib.zeros(2, 3, 4).masked_select(lib.ones(5, dtype=lib.bool)),
        [
            "The size of tensor a (5) must match the size of tensor b (4) at non-singleton "
            "dimension 2"
        ],
    ),
    "tril 1-d": (
        lambda lib: lib.zeros(3).tril(),
        ["tril: input tensor must have at least 2 dimensions"],
    ),
    "triu 1-d": (
        lambda lib: lib.zeros(3).triu(),
        ["triu: input tensor must have at least 2 dimensions"],
    ),
    "diag 3-d": (
        lambda lib: lib.zeros(2, 3, 4).diag(),
        ["diag(): Supports 1D or 2D tensors. Got 3D"],
    ),
    "diagonal same dims": (
        lambda lib: lib.zeros(2, 3, 4).diagonal(0, 1, 1),
        ["diagonal dimensions cannot be identical 1, 1"],
    ),
    "view_as size": (
        lambda lib: lib.zeros(2, 3, 4).view_as(lib.zeros(5)),
        ["shape '[5]' is invalid for input of size 24"],
    ),
    "pad odd": (
        lambda lib: pad_of(lib)(lib.zeros(2, 3), (1,)),
        ["Padding length must be divisible by 2"],
    ),
    "pad too long": (
        lambda lib: pad_of(lib)(lib.zeros(2, 3, 4), (1, 1) * 4),
        [
            "Padding length should be less than or equal to two times the input dimension but "
            "got padding length 8 and input of dimension 3"
        ],
    ),
    "pad reflect too wide": (
        lambda lib: pad_of(lib)(lib.zeros(2, 3, 4), (4, 4), mode="reflect"),
        [
            "Padding size should be less than the corresponding input dimension, but got: "
            "padding (4, 4) at dimension 2 of input [2, 3, 4]"
        ],
    ),
    "pad reflect dims": (
        lambda lib: pad_of(lib)(lib.zeros(2, 3, 4), (1, 1) * 3, mode="reflect"),
        ["Padding size 6 is not supported for 3D input tensor"],
    ),
    "pad replicate 1-d": (
        lambda lib: pad_of(lib)(lib.zeros(4), (1, 1), mode="replicate"),
        ["Padding size 2 is not supported for 1D input tensor"],
    ),
    "pad circular wraps twice": (
        lambda lib: pad_of(lib)(lib.zeros(1, 2, 4), (5, 5), mode="circular"),
        ["Padding value causes wrapping around more than once"],
    ),
    "pad mode": (
        lambda lib: pad_of(lib)(lib.zeros(1, 2, 4), (1, 1), mode="foo"),
        ["Unrecognised padding mode foo"],
    ),
    "pad value with replicate": (
        lambda lib: pad_of(lib)(lib.zeros(1, 2, 4), (1, 1), mode="replicate", value=1.0),
        ['Padding mode "replicate" doesn\'t take in value argument'],
    ),
    "pad crops more than there is": (
        lambda lib: pad_of(lib)(lib.zeros(2, 3), (4, -4)),
        ["narrow(): length must be non-negative."],
    ),
    "pad empty replicate": (
        lambda lib: pad_of(lib)(lib.zeros(2, 3, 0), (1, 1), mode="replicate"),
        [
            "2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero "
            "dimensions for input, but got: [2, 3, 0]"
        ],
    ),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors_match_pytorch(name: str) -> None:
    program, words = ERROR_CASES[name]
    assert_same_error(program, *words)


def test_errors_name_the_op() -> None:
    """Beyond PyTorch's words, messages say which op failed."""
    with pytest.raises(RuntimeError, match=r"^gather\(\)"):
        gg.zeros(2, 4).gather(1, gg.tensor([[0, 9]]))
    with pytest.raises(RuntimeError, match=r"^split_with_sizes"):
        gg.zeros(4).split([1, 2])
    with pytest.raises(RuntimeError, match=r"^pad: "):
        gg.nn.functional.pad(gg.zeros(1, 2, 4), (4, 4), mode="reflect")
    with pytest.raises(IndexError, match=r"^flatten: "):
        gg.zeros(2).flatten(3)


# --- views and in-place writes -----------------------------------------------------------


def test_flatten_of_one_dim_is_the_input_itself() -> None:
    for lib in LIBS:
        x = lib.zeros(2, 3)
        assert x.flatten(1, 1) is x
        assert x.flatten(-1, 1) is x


def test_split_and_chunk_pieces_are_views_of_the_input() -> None:
    x = gg.arange(10.0).view(5, 2)
    first, second = x.split([2, 3])
    second[0, 0] = -1.0
    assert x[2, 0].item() == -1.0
    assert all(np.shares_memory(p.numpy(), x.numpy()) for p in x.chunk(3))


@pytest.mark.parametrize("use", [0, 1, 2])
def test_split_piece_used_alone_gets_zeros_elsewhere(use: int) -> None:
    compare(lambda lib, t: lib.tanh(t[0] * 2).chunk(3, 1)[use] * 3, np.random.randn(2, 7))


def test_diagonal_is_a_writable_view() -> None:
    def program(lib: Any, t: list) -> Any:
        base = t[0] * 1.0
        base.diagonal(1).add_(t[1])
        return base

    compare(program, np.random.randn(3, 4), np.random.randn(3))
    x = gg.zeros(3, 3)
    x.diagonal().fill_(2.0)
    np.testing.assert_array_equal(x.numpy(), 2 * np.eye(3, dtype=np.float32))


INPLACE_CASES = {
    "scatter_": lambda lib, t: t[0].scatter_(1, lib.tensor([[2, 0], [1, 3]]), t[1]),
    "scatter_ value": lambda lib, t: t[0].scatter_(1, lib.tensor([[2, 0], [1, 3]]), 1.5),
    "scatter_add_": lambda lib, t: t[0].scatter_add_(1, lib.tensor([[2, 2], [1, 3]]), t[1]),
    "index_add_": lambda lib, t: t[0].index_add_(1, lib.tensor([3, 3]), t[1], alpha=2.0),
    "masked_fill_": lambda lib, t: t[0].masked_fill_(t[0] > 0, 0.5),
    "masked_fill_ tensor": lambda lib, t: t[0].masked_fill_(t[0] > 0, t[1][0, 0]),
    "masked_scatter_": lambda lib, t: t[0].masked_scatter_(t[0] > 0, t[1].repeat(1, 2)),
    "masked_scatter_ broadcast mask": lambda lib, t: t[0].masked_scatter_(
        lib.tensor([True, False, True, True]), t[1].repeat(2, 2)
    ),
    "tril_": lambda lib, t: t[0].tril_(1),
    "triu_": lambda lib, t: t[0].triu_(-1),
}


@pytest.mark.parametrize("name", list(INPLACE_CASES))
def test_inplace_variants_match_pytorch(name: str) -> None:
    def program(lib: Any, t: list) -> Any:
        a = t[0] * 1.0  # a non-leaf, so in-place is allowed
        out = INPLACE_CASES[name](lib, [a, t[1]])
        assert out is a
        return a * 2

    compare(program, np.random.randn(2, 4), np.random.randn(2, 2))
    (ours, _), (theirs, _) = run_both(program, np.random.randn(2, 4), np.random.randn(2, 2))
    inner = (ours.grad_fn.next_functions[0][0], theirs.grad_fn.next_functions[0][0])
    assert type(inner[0]).__name__ == type(inner[1]).__name__


MASKING_CASES = {
    "masked_fill": lambda lib, x: x.masked_fill(x > 0, 1.0),
    "masked_fill tensor value": lambda lib, x: x.masked_fill(x > 0, x[0, 0]),
    "scatter": lambda lib, x: x.scatter(1, lib.tensor([[0], [2]]), 0.0),
    "tril": lambda lib, x: x.tril(),
    "triu": lambda lib, x: x.triu(1),
    "diagonal_scatter": lambda lib, x: x.diagonal_scatter(lib.zeros(2, dtype=x.dtype)),
    "masked_scatter": lambda lib, x: x.masked_scatter(x > 0, x * 2),
    "pad crop": lambda lib, x: lib.nn.functional.pad(x, (-1, 0)),
}


@pytest.mark.parametrize("name", list(MASKING_CASES))
def test_masked_out_entries_get_exact_zero_gradient(name: str) -> None:
    """An inf upstream gradient at a position the op masked out gives 0, not nan (PyTorch
    zeroes with where/masked_fill, it does not multiply by a 0/1 mask)."""
    x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    grads = []
    for lib in LIBS:
        leaf = lib.tensor(x, requires_grad=True)
        out = MASKING_CASES[name](lib, leaf)
        upstream = lib.full(tuple(out.shape), math.inf, dtype=lib.float64)
        (grad,) = lib.autograd.grad(out, leaf, upstream)
        grads.append(grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    assert np.any(grads[0] == 0) or name == "masked_scatter"


def test_inplace_on_leaf_that_requires_grad_is_refused() -> None:
    for lib in LIBS:
        x = lib.zeros(2, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            x.masked_fill_(lib.ones(2, 3, dtype=lib.bool), 1.0)


# --- graph structure -----------------------------------------------------------------------


GRAPH_CASES = {
    "scatter": lambda lib, x, y: x.scatter(1, lib.tensor([[1, 0]]), y),
    "scatter value": lambda lib, x, y: x.scatter(1, lib.tensor([[1, 0]]), 2.0),
    "scatter_add": lambda lib, x, y: x.scatter_add(1, lib.tensor([[1, 1]]), y),
    "index_add": lambda lib, x, y: x.index_add(1, lib.tensor([0, 2]), y.expand(2, 2)),
    "masked_fill tensor": lambda lib, x, y: x.masked_fill(x > 0, y.sum()),
    "diag of vector": lambda lib, x, y: lib.diag(x[0]),
    "diag of matrix": lambda lib, x, y: lib.diag(x),
    "split": lambda lib, x, y: x.split([1, 2], 1)[1],
    "chunk": lambda lib, x, y: x.chunk(2, 1)[0],
    "narrow": lambda lib, x, y: x.narrow(1, 1, 1),
    "movedim": lambda lib, x, y: x.movedim(0, 1),
    "tile": lambda lib, x, y: x.tile((2,)),
    "stack": lambda lib, x, y: lib.stack([x, x * 2], 1),
    "stack mixed dtypes": lambda lib, x, y: lib.stack([x, lib.ones(2, 3, dtype=lib.int64)]),
    "cat mixed dtypes": lambda lib, x, y: lib.cat([x, lib.ones(1, 3, dtype=lib.int64)]),
    "take_along_dim broadcast": lambda lib, x, y: lib.take_along_dim(
        x[:1], lib.tensor([[0, 2], [1, 1]]), 1
    ),
    "take_along_dim flat": lambda lib, x, y: lib.take_along_dim(x, lib.tensor([5, 0])),
    "pad circular": lambda lib, x, y: lib.nn.functional.pad(
        x.unsqueeze(0), (1, 1), mode="circular"
    ),
    "pad reflect 2d": lambda lib, x, y: lib.nn.functional.pad(
        x.unsqueeze(0), (1, 1, 1, 1), mode="reflect"
    ),
    "pad replicate": lambda lib, x, y: lib.nn.functional.pad(
        x.unsqueeze(0), (1, 2), mode="replicate"
    ),
}


def _structure(node: Any, depth: int = 2) -> Any:
    """grad_fn name and, to ``depth``, the names of its next functions."""
    if node is None:
        return None
    name = type(node).__name__
    if depth == 0:
        return name
    return (name, tuple(_structure(n, depth - 1) for n, _ in node.next_functions))


@pytest.mark.parametrize("name", list(GRAPH_CASES))
def test_graph_structure_matches_pytorch(name: str) -> None:
    x, y = np.random.randn(2, 3), np.random.randn(1, 2)
    (ours, _), (theirs, _) = run_both(lambda lib, t: GRAPH_CASES[name](lib, *t), x, y)
    assert _structure(ours.grad_fn) == _structure(theirs.grad_fn)


# --- scatter with a source larger than its index -------------------------------------------


def test_scatter_src_larger_than_index_gradient_by_finite_differences() -> None:
    """PyTorch's own backward fails here ("invalid gradient"); the gradient of the unused
    part of src is zero, and finite differences agree."""
    index = gg.tensor([[1, 0, 2], [2, 1, 0]])
    for op in ("scatter", "scatter_add"):

        def f(x: Any, src: Any, op: str = op) -> Any:
            return getattr(x, op)(0, index, src) * 1.0

        x = gg.tensor(np.random.randn(3, 4), requires_grad=True)
        src = gg.tensor(np.random.randn(3, 5), requires_grad=True)
        assert gg.autograd.gradcheck(f, (x, src))
        f(x, src).sum().backward()
        np.testing.assert_array_equal(src.grad.numpy()[2:], 0)
        np.testing.assert_array_equal(src.grad.numpy()[:, 3:], 0)


# --- properties over random shapes --------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    pads=st.lists(st.integers(-2, 3), min_size=2, max_size=6),
    value=st.floats(-3, 3),
)
def test_constant_pad_matches_pytorch(shape: list, pads: list, value: float) -> None:
    pads = pads[: 2 * len(shape)]
    if len(pads) % 2:
        pads = pads[:-1]
    x = np.random.randn(*shape)
    kept = [
        shape[-1 - i] + min(pads[2 * i], 0) + min(pads[2 * i + 1], 0) for i in range(len(pads) // 2)
    ]
    if any(k < 0 for k in kept):  # cropping more than there is: both refuse
        assert_same_error(
            lambda lib: lib.nn.functional.pad(lib.tensor(x), tuple(pads), value=value),
            "narrow(): length must be non-negative.",
        )
        return
    compare(lambda lib, t: lib.nn.functional.pad(t[0], tuple(pads), value=value), x)


@settings(max_examples=30, deadline=None)
@given(
    batch=st.integers(1, 2),
    sizes=st.lists(st.integers(2, 5), min_size=1, max_size=2),
    mode=st.sampled_from(["reflect", "replicate", "circular"]),
    data=st.data(),
)
def test_non_constant_pad_matches_pytorch(batch: int, sizes: list, mode: str, data: Any) -> None:
    pads = []
    for size in reversed(sizes):
        top = size - 1 if mode == "reflect" else size
        pads += [data.draw(st.integers(-1, top)), data.draw(st.integers(-1, top))]
    if any(s + pads[2 * i] + pads[2 * i + 1] <= 0 for i, s in enumerate(reversed(sizes))):
        return
    x = np.random.randn(batch, 2, *sizes)
    kept = [
        s + min(pads[2 * i], 0) + min(pads[2 * i + 1], 0) for i, s in enumerate(reversed(sizes))
    ]
    if mode == "circular" and any(max(pads[2 * i : 2 * i + 2]) > k for i, k in enumerate(kept)):
        # A pad wider than the cropped input: PyTorch reads overlapping or uninitialized
        # memory here (see test_circular_pad_wider_than_cropped_input_is_refused).
        with pytest.raises(RuntimeError, match="wrapping around more than once"):
            gg.nn.functional.pad(gg.tensor(x), tuple(pads), mode=mode)
        return
    compare(lambda lib, t: lib.nn.functional.pad(t[0], tuple(pads), mode=mode), x)


def test_circular_pad_wider_than_cropped_input_is_refused() -> None:
    """PyTorch only checks pads against the uncropped size; past the cropped size it fails
    with an overlap error or returns uninitialized memory. glassgrad refuses clearly."""
    x = np.arange(1.0, 3.0).reshape(1, 1, 2)
    with pytest.raises(RuntimeError, match="single memory location"):
        torch.nn.functional.pad(torch.tensor(x), (-1, 2), mode="circular")
    for pads in ((-1, 2), (2, -1), (-2, 1)):
        with pytest.raises(RuntimeError, match="wrapping around more than once"):
            gg.nn.functional.pad(gg.tensor(x), pads, mode="circular")
    kept = gg.nn.functional.pad(gg.tensor(x), (-1, 1), mode="circular")
    np.testing.assert_array_equal(kept.numpy(), [[[2.0, 2.0]]])


@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    data=st.data(),
)
def test_gather_and_scatter_add_match_pytorch(shape: list, data: Any) -> None:
    dim = data.draw(st.integers(0, len(shape) - 1))
    index_shape = [data.draw(st.integers(0, s)) for s in shape]
    index_shape[dim] = data.draw(st.integers(0, 5))
    index = np.random.randint(0, shape[dim], size=index_shape)
    x, src = np.random.randn(*shape), np.random.randn(*index_shape)
    compare(lambda lib, t: t[0].gather(dim, lib.tensor(index)), x)
    compare(lambda lib, t: t[0].scatter_add(dim, lib.tensor(index), t[1]), x, src)


@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    data=st.data(),
)
def test_split_flip_roll_repeat_match_pytorch(shape: list, data: Any) -> None:
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    size = shape[dim]
    cuts = sorted(data.draw(st.lists(st.integers(0, size), max_size=3)))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, size])]
    shifts = data.draw(st.integers(-5, 5))
    repeats = data.draw(st.lists(st.integers(0, 2), min_size=len(shape), max_size=4))
    x = np.random.randn(*shape)
    compare(
        lambda lib, t: lib.cat([p * (i + 1) for i, p in enumerate(t[0].split(sizes, dim))], dim), x
    )
    compare(lambda lib, t: t[0].flip(dim).roll(shifts, dim), x)
    compare(lambda lib, t: t[0].repeat(*repeats), x)


@pytest.mark.parametrize("repeats", [(0, 2), (2, 1, 0), (1, 1), (3, 1, 2), (2, 2, 1, 1)])
def test_repeat_gradient_under_create_graph_is_pytorchs(repeats: tuple) -> None:
    """Seed 620462: PyTorch's repeat_backward gives zeros outside the graph when a repeat is
    0 (the first derivative under create_graph then does not require grad); otherwise it
    sums the new leading dims, then each repeated dim."""

    def run(lib: Any) -> tuple:
        x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        w = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        y = x.repeat(*repeats) * w
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        return g.requires_grad, g.detach().numpy()

    ours, theirs = run(gg), run(torch)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1])


def test_docstring_examples_run() -> None:
    import doctest

    from glassgrad.ops import (
        broadcasting,
        diagonals,
        gather_scatter,
        masking,
        padding,
        shape_reorder,
        shape_views,
    )

    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    modules = (
        broadcasting,
        shape_views,
        shape_reorder,
        gather_scatter,
        masking,
        diagonals,
        padding,
    )
    results = [doctest.testmod(m, extraglobs={"glassgrad": gg}, optionflags=flags) for m in modules]
    assert sum(r.attempted for r in results) > 10
    assert sum(r.failed for r in results) == 0


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_T_reverses_the_dims_as_a_permute_view(shape: tuple) -> None:
    values = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    results = []
    for lib in (gg, torch):
        x = lib.tensor(values, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # PyTorch deprecates .T beyond 2-D
            y = x.T
        weights = lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)))
        (y * weights).sum().backward()
        results.append(
            (tuple(y.shape), y.detach().numpy().tolist(), x.grad.numpy().tolist(), y.grad_fn.name())
        )
    assert results[0] == results[1]
    assert results[0][3] == "PermuteBackward0"


def test_take_along_dim_gathers_from_an_expand_of_its_input() -> None:
    """PyTorch's broadcast_to makes an ExpandBackward0 view even to the same shape, and gather
    saves that view: the input detached in place afterwards leaves the backward working (fuzz
    seed 856012)."""
    results = []
    for lib in (gg, torch):
        leaf = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
        x = leaf * 2
        y = lib.take_along_dim(x, lib.tensor([[0, 3], [1, 1], [2, 0]]), 1)
        names = [type(f).__name__ for f, _ in y.grad_fn.next_functions]
        x.detach_()
        y.sum().backward()
        results.append((type(y.grad_fn).__name__, names, leaf.grad.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize(
    "shape, index",
    [
        ((2, 0), [5]),
        ((2, 0), [1, 0]),
        ((1, 2, 0), ([3, 0],)),
        ((0, 3), [5]),
        ((2, 0, 3), (slice(None), [7])),
    ],
)
def test_advanced_index_out_of_bounds_in_an_empty_tensor_as_pytorch(shape, index) -> None:
    """PyTorch's index kernel checks each index as it reads it: with no element to read
    (another dim is empty) none is checked (fuzz seed 839339: zeros(2, 0)[None][[1, 0]]); an
    index into a dim of size 0 is refused in words of its own."""
    results = []
    for lib in (gg, torch):
        try:
            results.append(tuple(lib.zeros(shape)[index].shape))
        except IndexError as exc:
            results.append(str(exc))
        for value in (1.0, lib.ones(7)):  # and written: before the value's shape is checked
            try:
                target = lib.zeros(shape)
                target[index] = value
                results.append("written")
            except (IndexError, RuntimeError) as exc:
                results.append(str(exc).split(":")[0])
    assert results[: len(results) // 2] == results[len(results) // 2 :]


@pytest.mark.parametrize(
    "index",
    [[[1, 0]], [1, slice(None)], [None, 1], [1, ...], [[1, 0], [0, 1]], [1, [0, 2]], [0, 1]],
)
def test_a_list_holding_sequences_indexes_several_dims_as_pytorch(index) -> None:
    """PyTorch's treatSequenceAsTuple: a list holding a sequence, a slice, Ellipsis or None
    is a tuple of indices (deprecated, with a warning), so x[[[1, 0]]] is x[[1, 0]]; a list
    of integers stays one index."""
    results = []
    for lib in (gg, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = lib.arange(24.0).reshape(2, 3, 4)
            results.append(x[index].tolist())
            x[index] = -1.0
            results.append(x.tolist())
    assert results[:2] == results[2:]
