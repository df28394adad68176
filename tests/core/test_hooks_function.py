"""Hooks on tensors and nodes, custom autograd Functions, legacy (pre-0.4) spellings."""

from __future__ import annotations

import re

import pytest
import torch

import glassgrad as gg


def test_tensor_hook_replaces_gradient_and_can_be_removed(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        seen = []
        h1 = y.register_hook(lambda g: seen.append(g.tolist()))
        h2 = x.register_hook(lambda g: g * 10)
        y.sum().backward()
        h1.remove()
        h2.remove()
        (x * 3).sum().backward()
        return [x.grad, seen]

    parity(program)


def test_node_hooks_and_prehooks(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        log = []
        y.grad_fn.register_prehook(lambda go: log.append(("pre", go[0].tolist())))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 1,))
        y.sum().backward()
        return [x.grad, log]

    parity(program)


def test_hook_on_tensor_without_grad_errors() -> None:
    with pytest.raises(
        RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"
    ):
        gg.ones(2).register_hook(lambda g: g)


class Exp(gg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


def test_custom_function_exp() -> None:
    x = gg.tensor([0.0, 1.0], dtype=gg.float64, requires_grad=True)
    y = Exp.apply(x)
    assert type(y.grad_fn).__name__ == "ExpBackward"
    assert y.grad_fn.next_functions[0][0].variable is x
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([1.0, 2.718281828459045])
    assert gg.autograd.gradcheck(Exp.apply, (gg.randn(3, dtype=gg.float64, requires_grad=True),))
    assert gg.autograd.gradgradcheck(
        Exp.apply, (gg.randn(3, dtype=gg.float64, requires_grad=True),)
    )


class ScaleAndIndex(gg.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale, flag):
        ctx.scale = scale
        ctx.seen = ctx.needs_input_grad
        idx = gg.argmax_like = (x * 0).long()
        ctx.mark_non_differentiable(idx)
        return x * scale, idx

    @staticmethod
    def backward(ctx, grad, grad_idx):
        return grad * ctx.scale, None, None


def test_custom_function_needs_input_grad_and_non_differentiable() -> None:
    x = gg.ones(2, requires_grad=True)
    y, idx = ScaleAndIndex.apply(x, 3.0, True)
    assert y.grad_fn.seen == (True, False, False)
    assert not idx.requires_grad and y.requires_grad
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


class AddOneInPlace(gg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


def test_mark_dirty() -> None:
    a = gg.ones(2, requires_grad=True)
    b = a * 2
    c = AddOneInPlace.apply(b)
    assert c is b and type(b.grad_fn).__name__ == "AddOneInPlaceBackward"
    b.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        AddOneInPlace.apply(gg.ones(2, requires_grad=True))


class OnceCube(gg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @gg.autograd.once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2


def test_once_differentiable() -> None:
    x = gg.tensor([2.0], requires_grad=True)
    seed = gg.ones(1, requires_grad=True)  # a grad_output that itself requires grad
    (g,) = gg.autograd.grad(OnceCube.apply(x), x, seed, create_graph=True)
    assert g.item() == 12.0 and type(g.grad_fn).__name__ == "Error"
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        g.backward()


class WrongGrad(gg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 3


def test_gradcheck_catches_wrong_gradient() -> None:
    x = gg.randn(3, dtype=gg.float64, requires_grad=True)
    with pytest.raises(
        gg.autograd.gradcheck.__globals__["GradcheckError"], match="Jacobian mismatch"
    ):
        gg.autograd.gradcheck(WrongGrad.apply, (x,))
    assert not gg.autograd.gradcheck(WrongGrad.apply, (x,), raise_exception=False)


def test_custom_function_wrong_number_of_gradients() -> None:
    class TwoInputs(gg.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, grad):
            return grad

    a, b = gg.ones(2, requires_grad=True), gg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        TwoInputs.apply(a, b).sum().backward()


def test_legacy_variable_creator_and_volatile() -> None:
    with pytest.warns(DeprecationWarning, match="requires_grad_"):
        x = gg.autograd.Variable(gg.ones(1), requires_grad=True)
    y = 0.5 * (x + 1).pow(2)
    with pytest.warns(DeprecationWarning, match="grad_fn"):
        assert y.creator is y.grad_fn
    with pytest.warns(DeprecationWarning, match="next_functions"):
        assert y.grad_fn.previous_functions == y.grad_fn.next_functions
    with pytest.warns(DeprecationWarning, match="gradient"):
        y.backward(grad_variables=gg.ones(1))
    assert x.grad.tolist() == [2.0]
    with pytest.warns(DeprecationWarning, match="no_grad"):
        v = gg.autograd.Variable(gg.ones(2), volatile=True)
    w = gg.ones(2, requires_grad=True)
    z = v * w
    assert not z.requires_grad and z.grad_fn is None
    assert (z + 1)._volatile  # results of volatile computations are volatile too
    assert (w * 2).requires_grad  # nothing else is affected


def test_functional_matches_pytorch(parity) -> None:
    import numpy as np

    data = np.array([0.3, -1.2, 2.0])

    def program(lib):
        F = lib.autograd.functional
        x = lib.tensor(data, dtype=lib.float64)
        f = lambda t: (t**3).sin()  # noqa: E731
        s = lambda t: (t.exp() * t).sum()  # noqa: E731
        v = lib.tensor([1.0, 0.5, -1.0], dtype=lib.float64)
        return [
            F.jacobian(f, x),
            F.hessian(s, x),
            F.vjp(f, x, v)[1],
            F.jvp(f, x, v)[1],
            F.hvp(s, x, v)[1],
            F.vhp(s, x, v)[1],
        ]

    parity(program)


def test_gradcheck_and_gradgradcheck_on_composites() -> None:
    x = gg.randn(2, 3, dtype=gg.float64, requires_grad=True)
    w = gg.randn(3, 2, dtype=gg.float64, requires_grad=True)
    f = lambda a, b: (a @ b).tanh().sum(0) / (1 + (a * a).sum())  # noqa: E731
    assert gg.autograd.gradcheck(f, (x, w))
    assert gg.autograd.gradgradcheck(f, (x, w))


def test_detect_anomaly_names_node_and_forward_line() -> None:
    # As PyTorch: the error names the node; a warning shows where the forward made it.
    x = gg.zeros(1, requires_grad=True)
    with pytest.warns(UserWarning) as record, gg.autograd.detect_anomaly():
        y = gg.log(x) * 0
        with pytest.raises(
            RuntimeError, match=r"^Function 'LogBackward0' returned nan values in its 0th output.$"
        ):
            y.sum().backward()
    messages = [str(w.message) for w in record if "Error detected" in str(w.message)]
    assert len(messages) == 1 and re.search(
        r"(?s)^Error detected in LogBackward0. Traceback of forward call that caused the error:"
        r".*test_hooks_function.py.*gg.log\(x\)",
        messages[0],
    )


def test_gradcheck_on_non_contiguous_input() -> None:
    x = gg.randn(3, 2, dtype=gg.float64).t().requires_grad_()
    assert not x.is_contiguous()
    assert gg.autograd.gradcheck(lambda t: (t * t).sum(0), (x,))


def test_assigned_backward_hooks_run_on_leaves_only(parity) -> None:
    # PyTorch runs a dict assigned to a leaf's _backward_hooks (its AccumulateGrad reads it) and
    # keeps one assigned to a non-leaf without running it, registered hooks included.
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        x._backward_hooks = {0: lambda g: g * 3}
        y.register_hook(lambda g: g * 7)
        y._backward_hooks = {0: lambda g: g * 5}
        y.sum().backward()
        kept = sorted(y._backward_hooks)
        x._backward_hooks = None
        (x * 1).sum().backward()
        return [x.grad, kept]

    parity(program)


@pytest.mark.parametrize("name", ["_grad_fn", "_backward_hooks", "data", "requires_grad"])
def test_deleting_tensor_attributes_is_refused(name: str) -> None:
    errors = []
    for lib in (gg, torch):
        x = lib.ones(2, requires_grad=True) * 2
        with pytest.raises(RuntimeError) as error:
            delattr(x, name)
        errors.append(str(error.value))
    assert errors[0] == errors[1]
