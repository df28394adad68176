"""Tensor.grad_dtype against PyTorch: the default (the tensor's dtype), a set dtype that the
engine casts a leaf's incoming gradients to (before its hooks, for backward and
autograd.grad, looked up at backward time), None for any dtype, and the errors: non-leaf
access, a non-dtype value, a change that contradicts an existing .grad, and assigning a .grad
of another dtype."""

from __future__ import annotations

from typing import Any

import pytest

from ..ops._parity import same, same_error


def _name(dtype: Any) -> str | None:
    return None if dtype is None else str(dtype).split(".")[-1]


def _leaf(L: Any, grad_dtype: Any = "unset") -> Any:
    x = L.tensor([1.0, 2.0], requires_grad=True)
    if grad_dtype != "unset":
        x.grad_dtype = grad_dtype
    return x


def test_default_is_the_tensors_dtype() -> None:
    same(lambda L: tuple(_name(t.grad_dtype) for t in (_leaf(L), L.tensor([1, 2]), L.ones(2))))


@pytest.mark.parametrize(
    "name, program",
    [
        (
            "backward casts to it",
            lambda L: _run(L, L.float64, lambda x: (x * 3).sum().backward()),
        ),
        (
            "accumulates in it",
            lambda L: _run(L, L.float64, lambda x: [(x * k).sum().backward() for k in (2.0, 3.0)]),
        ),
        ("autograd.grad casts too", lambda L: _grad_of(L, L.float16)),
        (
            "a root that is the leaf itself",
            lambda L: _run(L, L.float64, lambda x: x.backward(L.ones(2))),
        ),
        (
            "looked up when backward runs",
            lambda L: _set_after_recording(L),
        ),
        (
            "None keeps the gradient's own dtype",
            lambda L: _run(
                L, None, lambda x: (x * L.tensor([2.0, 3.0], dtype=L.float64)).sum().backward()
            ),
        ),
        (
            "None: a dtype copy's gradient comes back in the source dtype",
            lambda L: _run(L, None, lambda x: (x.double() * 2).sum().backward()),
        ),
        (
            "None: an existing .grad keeps its dtype as gradients add in",
            lambda L: _accumulate_into(L),
        ),
    ],
)
def test_gradients_reaching_the_leaf(name: str, program: Any) -> None:
    same(program)


def _grad_of(L: Any, grad_dtype: Any) -> Any:
    x = _leaf(L, grad_dtype)
    return L.autograd.grad((x * 2).sum(), x)[0]


def _run(L: Any, grad_dtype: Any, step: Any) -> Any:
    x = _leaf(L, grad_dtype)
    seen = []
    x.register_hook(lambda g: seen.append(str(g.dtype).split(".")[-1]))
    step(x)
    return x.grad, _name(x.grad_dtype), tuple(seen)


def _set_after_recording(L: Any) -> Any:
    x = _leaf(L, L.float64)
    y = (x * 2).sum()
    x.grad_dtype = L.float32  # what counts is the value when backward reaches the leaf
    z = (x * 3).sum()
    x.grad_dtype = L.float64
    y.backward()
    first = x.grad
    x.grad = None
    x.grad_dtype = L.float32
    z.backward()
    return first, x.grad


def _accumulate_into(L: Any) -> Any:
    x = _leaf(L, None)
    x.grad = L.ones(2, dtype=L.float16)
    (x * L.tensor([2.0, 3.0], dtype=L.float64)).sum().backward()
    return x.grad


def test_create_graph_keeps_the_cast_in_the_graph() -> None:
    def program(L: Any) -> Any:
        x = _leaf(L, L.float64)
        (g,) = L.autograd.grad((x**3).sum(), x, create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), x)
        return g, gg

    same(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda L: (_leaf(L) * 2).grad_dtype,
        lambda L: setattr(_leaf(L) * 2, "grad_dtype", L.float64),
        lambda L: setattr(_leaf(L), "grad_dtype", "float"),
        lambda L: setattr(_leaf(L), "grad", L.ones(2, dtype=L.float64)),
        lambda L: setattr(_leaf(L, L.float64), "grad", L.ones(2)),
        lambda L: _change_with_a_grad(L),
    ],
)
def test_errors(program: Any) -> None:
    same_error(program)


def _change_with_a_grad(L: Any) -> None:
    x = _leaf(L)
    x.grad = L.ones(2)
    x.grad_dtype = L.float32  # the same dtype as the gradient: allowed
    x.grad_dtype = L.float64


def test_any_dtype_may_be_assigned_with_none() -> None:
    def program(L: Any) -> Any:
        x = _leaf(L, None)
        x.grad = L.ones(2, dtype=L.float64)
        y = _leaf(L, L.float16)
        y.grad = L.ones(2, dtype=L.float16)
        return x.grad, y.grad, _name(x.grad_dtype), _name(y.grad_dtype)

    same(program)


def test_grad_dtype_on_integer_leaf_and_after_requires_grad_off() -> None:
    def program(L: Any) -> Any:
        n = L.tensor([1, 2])
        n.grad_dtype = L.float64
        x = _leaf(L, L.float64)
        x.requires_grad_(False)
        w = L.tensor([1.0, 2.0])
        w.grad_dtype = L.float64
        w.requires_grad_()
        (w * 2).sum().backward()
        return _name(n.grad_dtype), _name(x.grad_dtype), w.grad

    same(program)
