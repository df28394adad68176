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


# --- views taken before as_strided_ changed their base's geometry ---------------------------
# (geometry for as_strided_, the view taken before it, what is done then)
EARLIER_VIEW_CASES = {
    "view inside the new geometry": (((2, 2), (1, 2)), lambda b: b[1:4], "view"),
    "view outside it": (((2,), (1,)), lambda b: b[3:6], "view"),
    "base moved past the view's start": (((2,), (2,), 2), lambda b: b[1:5], "view"),
    "base moved, view taken first": (((3,), (1,), 3), lambda b: b[1:5], "view"),
    "base with gaps": (((3,), (3,)), lambda b: b[1:5], "view"),
    "2-d view": (((2, 3), (3, 1)), lambda b: b.view(2, 4)[:, 1:3], "view"),
    "transposed view of a view": (((3, 2), (1, 3)), lambda b: b.view(4, 2).t()[0], "view"),
    "base written": (((2, 2), (1, 2)), lambda b: b[1:4], "base"),
    "base written, view outside": (((2,), (1,)), lambda b: b[3:6], "base"),
    "base written, gaps": (((3,), (3,)), lambda b: b[1:5], "base"),
}


def _earlier_view_program(lib, geometry, make_view, written) -> list:
    out: list = []
    leaf = lib.arange(1.0, 9.0, requires_grad=True)
    b = leaf * 1
    v = make_view(b)
    b.as_strided_(*geometry)
    out.append(v.tolist())  # reading: the view keeps its own geometry
    if written == "view":
        v.mul_(lib.arange(2.0, 2.0 + v.numel()).reshape(v.shape))
    else:
        b.mul_(3)
    out += [b.tolist(), v.tolist(), type(v.grad_fn).__name__, type(b.grad_fn).__name__]
    loss = (v * lib.arange(float(v.numel())).reshape(v.shape)).sum() + (b * 100).sum()
    try:
        (grad,) = lib.autograd.grad(loss, leaf)
    except RuntimeError as e:  # PyTorch's as_strided of a view beyond the base's storage
        out.append(str(e))
    else:
        out.append(grad.tolist())
    return out


@pytest.mark.parametrize("name", sorted(EARLIER_VIEW_CASES))
def test_views_taken_before_as_strided_changed_the_base_as_pytorch(name: str) -> None:
    geometry, make_view, written = EARLIER_VIEW_CASES[name]
    ours = _earlier_view_program(gg, geometry, make_view, written)
    theirs = _earlier_view_program(torch, geometry, make_view, written)
    assert ours == theirs


def _graph(fn) -> object:
    if fn is None:
        return None
    return (type(fn).__name__, [(nr, _graph(f)) for f, nr in fn.next_functions])


GRAPH_CASES = {
    "mul_ through a slice": lambda t: t.clone()[1:].mul_(t[1:]),
    "exp_ through a slice, the base out": lambda t: (lambda b: (b[1:].exp_(), b)[1])(t.clone()),
    "through an expanded dim": lambda t: t.clone().view(2, 2)[:, :1].expand(2, 3)[:, 0].exp_(),
    "through a view with a size-1 dim": lambda t: t.clone().view(4, 1)[1:3].mul_(2.0),
    "through as_strided with overlap": lambda t: t.clone().as_strided((2, 2), (1, 1)).mul_(t[:2]),
    "base changed by as_strided_ first": lambda t: (
        lambda b, v: (b.as_strided_((2,), (2,), 1), v.exp_())[1]
    )(*(lambda c: (c, c[1:3]))(t.clone())),
}


@pytest.mark.parametrize("name", sorted(GRAPH_CASES))
def test_first_derivative_graph_below_copyslices_is_pytorchs(name: str) -> None:
    # Under create_graph, CopySlices and a view's regenerated AsStridedBackward0 record
    # PyTorch's ops (new_empty_strided + copy_: CopyBackwards; as_strided; clone; copy_ into
    # the slice: CopySlices; as_strided_backward's squeeze, sum, index_add_, div_): the graph
    # a user walks through next_functions is PyTorch's, and so are both derivatives.
    seen = []
    for lib in (gg, torch):
        x = lib.tensor([-1.0, 0.5, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        a = x * 2
        try:
            out = GRAPH_CASES[name](a)
        except RuntimeError as e:
            seen.append(str(e))
            continue
        up = lib.ones_like(out, requires_grad=True)
        (g,) = lib.autograd.grad(out, a, up, create_graph=True)
        second = lib.autograd.grad((g * g).sum(), (x, up), allow_unused=True)
        seen.append(
            (_graph(g.grad_fn), g.tolist(), [None if s is None else s.tolist() for s in second])
        )
    assert seen[0] == seen[1]
