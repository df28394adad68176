"""In-place view ops (t_, squeeze_, unsqueeze_, transpose_, swapaxes_, swapdims_) against
PyTorch: the history they extend, on leaves, non-leaves and views, the errors, and views made
before a base changed its own geometry; resize/resize_as (deprecated, out of place)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ._parity import same, same_error


def _first_and_second(L, x, y):
    (g,) = L.autograd.grad((y * y).sum(), x, create_graph=True)
    (h,) = L.autograd.grad(g.sum(), x)
    return g, h


def test_history_on_non_leaves_and_views() -> None:
    def program(L):
        out = []
        x = L.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        y = x * 2
        out.append((y.t_() is y, tuple(y.shape), y.grad_fn.name(), y._version))
        out.append(y.grad_fn.next_functions[0][0].name())
        (y * L.arange(6.0).view(3, 2)).sum().backward()
        out.append(x.grad)
        x.grad = None
        b = x * 1
        v = b[0:1]
        v.unsqueeze_(0)
        out.append((tuple(v.shape), v.grad_fn.name(), b._version, v._version, v._is_view()))
        (v * L.tensor([1.0, 2.0, 3.0])).sum().backward()
        out.append(x.grad)
        x.grad = None
        b = x * 1
        w, u = b.view(3, 2), b[1]
        w.t_()
        out.append((tuple(w.shape), w.grad_fn.name(), b._version, u.grad_fn.name()))
        (w * L.arange(6.0).view(2, 3)).sum().backward()
        out.append(x.grad)
        return out

    same(program)


@pytest.mark.parametrize(
    "chain",
    [
        lambda y: y.squeeze_(0).unsqueeze_(1).transpose_(0, 2),
        lambda y: y.squeeze_().t_(),
        lambda y: y.squeeze_((0, 2)).swapaxes_(0, 1),
        lambda y: y.swapdims_(-1, 0).squeeze_(dim=2),
    ],
)
def test_gradients_first_and_second_order(chain) -> None:
    def program(L):
        x = L.tensor(np.arange(1.0, 7.0).reshape(1, 2, 1, 3), requires_grad=True)
        y = chain(x**3)
        return (tuple(y.shape), y.grad_fn.name(), *_first_and_second(L, x, y))

    same(program)


def test_views_made_before_the_base_changed_its_geometry() -> None:
    def program(L):
        out = []
        x = L.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        b = x * 1
        w, w2 = b[0], b.view(3, 2)
        b.t_()
        b.unsqueeze_(0)
        b.squeeze_()
        w3 = w2[1:]
        (w * L.tensor([1.0, 2.0, 3.0])).sum().backward(retain_graph=True)
        out.append(x.grad)
        b.transpose_(0, 1)
        w3.mul_(3)
        w2.t_()
        (b * L.arange(6.0).view(2, 3) + w2.sum()).sum().backward()
        out.append(x.grad)
        with L.no_grad():
            c = L.arange(6.0).view(2, 3)
            d = c[1]
            c.t_()
            d.add_(1)
        out.append(c)
        x = L.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
        b = x**2
        v = b[:, 1]
        b.t_()
        v.mul_(x[:, 0])
        out.extend(_first_and_second(L, x, b))
        return out

    same(program)


def test_retained_grad_stays_with_the_old_history() -> None:
    def program(L):
        x = L.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        b = x * 1
        b.retain_grad()
        b.t_()
        (b * L.arange(6.0).view(3, 2)).sum().backward()
        return b.grad

    same(program)


def test_no_grad_and_integer_tensors() -> None:
    def program(L):
        with L.no_grad():
            leaf = L.ones(2, 3, requires_grad=True)
            leaf.t_()
        i = L.arange(6).view(2, 3)
        i.t_()
        return (tuple(leaf.shape), leaf._version, tuple(i.shape), i._version, i.stride())

    same(program)


@pytest.mark.parametrize(
    ("make", "call"),
    [
        ("x.view(1, 4).transpose(0, 1)", "squeeze_()"),  # seed 620156: AxisError in backward
        ("x.view(1, 4).transpose(0, 1)", "t_()"),
        ("x.view(2, 2)", "transpose_(0, 1)"),  # silently the untransposed gradient before
        ("x.view(2, 2)", "swapdims_(0, 1)"),
        ("(x * 1).view(1, 4).transpose(0, 1)", "unsqueeze_(0)"),
        ("x.view(1, 4)[0]", "unsqueeze_(1)"),
    ],
)
def test_a_view_changed_in_no_grad_mode_gets_its_history_from_the_base(
    make: str, call: str
) -> None:
    # PyTorch's version bump leaves the view's grad_fn stale; it is derived again from the
    # base with the new geometry (AsStridedBackward0), also for views made of it afterwards.
    def program(L):
        x = L.tensor([0.5, 1.5, -2.0, 3.0], requires_grad=True)
        v = eval(make)
        with L.no_grad():
            eval("v." + call)
        first = v[0]
        (v * L.arange(4.0).view(v.shape)).sum().backward(retain_graph=True)
        gradient = x.grad.clone()
        (first * first).sum().backward()
        return v.grad_fn.name(), tuple(v.shape), first.grad_fn.name(), gradient, x.grad

    same(program)


@pytest.mark.parametrize(
    "call",
    [
        "t_()",
        "squeeze_()",
        "squeeze_(0)",
        "unsqueeze_(0)",
        "transpose_(0, 1)",
        "swapaxes_(0, 1)",
        "swapdims_(1, 0)",
    ],
)
def test_refused_on_leaves_and_views_of_leaves(call: str) -> None:
    same_error(lambda L: eval("L.ones(1, 3, requires_grad=True)." + call))
    same_error(lambda L: eval("L.ones(2, 1, 3, requires_grad=True)[0]." + call))


def test_refused_on_forbidden_views() -> None:
    def no_grad_view(L):
        x = L.ones(2, 3, requires_grad=True)
        with L.no_grad():
            v = x[0]
        v.unsqueeze_(0)

    same_error(no_grad_view)
    same_error(lambda L: (L.ones(2, 3, requires_grad=True) * 1).unbind(0)[0].unsqueeze_(0))


@pytest.mark.parametrize(
    "call", ["t_()", "squeeze_(5)", "squeeze_((0, 3))", "unsqueeze_(4)", "transpose_(0, 3)"]
)
def test_argument_errors(call: str) -> None:
    same_error(lambda L: eval("L.ones(2, 3, 4)." + call))


def test_resize_and_resize_as() -> None:
    def program(L):
        x = L.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = x.resize(3, 2)
            z = x.resize_as(L.ones(6))
        (y.sum() + (z * L.arange(6.0)).sum()).backward()
        messages = [str(w.message) for w in caught]
        return (y, z, y.grad_fn.name(), z._is_view(), x.grad, messages)

    same(program)
    same_error(lambda L: L.ones(2, 3).resize(4))
    same_error(lambda L: L.ones(2, 3).resize((3, 2)))  # PyTorch takes the sizes unpacked only


def test_resize_in_place_arguments_as_pytorch() -> None:
    """``resize_`` takes its size positionally or as ``size=``; none at all is PyTorch's
    parser error (before its autograd check)."""
    same(lambda L: L.arange(4.0).resize_(size=(2, 2)))
    same(lambda L: L.arange(4.0).resize_((2,)))
    same_error(lambda L: L.ones(2).resize_())
    same_error(lambda L: L.ones(2, requires_grad=True).resize_())
    same_error(lambda L: L.ones(2).resize_(3, size=(3,)))


@pytest.mark.parametrize(
    ("make", "call", "backward"),
    [
        ("x * 1", "squeeze_()", "y.sum().backward()"),  # docs/fuzzing.md's known difference
        ("x * 1", "squeeze_()", "y.backward(L.ones(4))"),  # a root gradient is checked too
        ("x * 1", "squeeze_()", "L.autograd.grad(y, x, L.ones(4))"),
        ("x.exp()", "t_()", "(y * L.arange(4.0).view(4, 1)).sum().backward()"),
        ("x", "squeeze_()", "(y.sum() + (x * 3).sum()).backward()"),  # the leaf's accumulator
    ],
)
def test_a_tensor_changed_in_no_grad_mode_keeps_its_producers_shape(
    make: str, call: str, backward: str
) -> None:
    # PyTorch's validate_outputs checks each gradient against the shape the producing node
    # recorded for its output ([1, 4]), not the tensor's shape now ([4]).
    def program(L):
        x = L.ones(1, 4, requires_grad=True)
        names = {"L": L, "x": x, "keep": x * 2}  # keep: the leaf's accumulator stays alive
        names["y"] = eval(make, names)
        with L.no_grad():
            eval("y." + call, names)
        eval(backward, names)

    same_error(program)


@pytest.mark.parametrize(
    ("call", "backward"),
    [
        ("unsqueeze_(0)", "y.sum().backward()"),  # [1, 4] broadcasts to [1, 1, 4]: reduced
        ("unsqueeze_(0)", "y.backward(L.ones(1, 1, 4))"),
        ("squeeze_(); y.unsqueeze_(0)", "(y * L.arange(4.0)).sum().backward()"),
        ("t_()", "y.sum().backward()"),  # a square matrix: the same shape, no check fails
    ],
)
def test_a_gradient_that_fits_the_producers_shape_is_reduced(call: str, backward: str) -> None:
    def program(L):
        x = L.ones(4, 4, requires_grad=True) if call == "t_()" else L.ones(1, 4, requires_grad=True)
        names = {"L": L, "y": x * L.arange(1.0, 5.0)}
        with L.no_grad():
            exec("y." + call, names)
        eval(backward, names)
        return x.grad

    same(program)
