"""Higher-level derivatives of functions: ``vjp``, ``jvp``, ``jacobian``, ``hessian``,
``hvp``, ``vhp`` (PyTorch's ``torch.autograd.functional``), built on ``autograd.grad``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import graph
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tuple(x: Any) -> tuple[tuple, bool]:
    return (tuple(x), True) if isinstance(x, (tuple, list)) else ((x,), False)


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    """Fresh leaves (or graph-connected copies) of the inputs that require grad."""
    prepared = []
    for x in inputs:
        if not isinstance(x, graph.Tensor):
            raise TypeError(
                f"The inputs given to functional must be Tensors, got {type(x).__name__}"
            )
        if create_graph and x._requires_grad:
            prepared.append(x.view(x.shape))
        else:
            prepared.append(x.detach().requires_grad_(True))
    return tuple(prepared)


def _grad(outputs: tuple, inputs: tuple, grad_outputs: tuple, create_graph: bool) -> tuple:
    from . import grad

    needs = [o for o in outputs if o._requires_grad]
    if not needs:
        return tuple(graph.Tensor._from_array(np.zeros_like(x._data)) for x in inputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o._requires_grad]
    grads = grad(
        [o for o, _ in pairs],
        inputs,
        [g for _, g in pairs],
        retain_graph=True,
        create_graph=create_graph,
        allow_unused=True,
    )
    return tuple(
        graph.Tensor._from_array(np.zeros_like(x._data)) if g is None else g
        for g, x in zip(grads, inputs)
    )


def _vector(v: Any, like: tuple, message: str) -> tuple:
    """``v`` as a tuple; None means ones shaped like ``like`` (single elements only)."""
    if v is not None:
        return _tuple(v)[0]
    if any(t.numel() != 1 for t in like):
        raise RuntimeError(message)
    return tuple(graph.Tensor._from_array(np.ones_like(t._data)) for t in like)


def _finish(values: tuple, was_tuple: bool, create_graph: bool) -> Any:
    values = tuple(v if create_graph else v.detach() for v in values)
    return values if was_tuple else values[0]


def vjp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), v^T J)``: the vector-Jacobian product.

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0])
        >>> glassgrad.autograd.functional.vjp(lambda x: x ** 2, x, glassgrad.ones(2))[1]
        tensor([2., 4.])
    """
    inputs_t, inputs_tuple = _tuple(inputs)
    with enable_grad():
        prepared = _prepare(inputs_t, create_graph)
        outputs = func(*prepared)
        outputs_t, outputs_tuple = _tuple(outputs)
        v_t = _vector(
            v,
            outputs_t,
            "The vector v can only be None if the user-provided function returns a single "
            "Tensor with a single element.",
        )
        result = _grad(outputs_t, prepared, v_t, create_graph)
    return (
        _finish(outputs_t, outputs_tuple, create_graph),
        _finish(result, inputs_tuple, create_graph),
    )


def jvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), J v)``: the Jacobian-vector product (by the double-vjp trick).

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0])
        >>> glassgrad.autograd.functional.jvp(lambda x: x ** 2, x, glassgrad.ones(2))[1]
        tensor([2., 4.])
    """
    inputs_t, inputs_tuple = _tuple(inputs)
    with enable_grad():
        prepared = _prepare(inputs_t, create_graph)
        outputs = func(*prepared)
        outputs_t, outputs_tuple = _tuple(outputs)
        v_t = _vector(
            v,
            inputs_t,
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element.",
        )
        # u is a dummy cotangent; d(u^T J)/du applied to v is J v.
        dummies = tuple(
            graph.Tensor._from_array(np.zeros_like(o._data)).requires_grad_(True) for o in outputs_t
        )
        vjps = _grad(outputs_t, prepared, dummies, create_graph=True)
        result = _grad(vjps, dummies, v_t, create_graph)
    return (
        _finish(outputs_t, outputs_tuple, create_graph),
        _finish(result, outputs_tuple, create_graph),
    )


def jacobian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``: shape ``output.shape + input.shape`` for each
    (output, input) pair, nested as PyTorch nests it.

    Example::

        >>> glassgrad.autograd.functional.jacobian(lambda x: x ** 2, glassgrad.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    inputs_t, inputs_tuple = _tuple(inputs)
    with enable_grad():
        prepared = _prepare(inputs_t, create_graph)
        outputs = func(*prepared)
        outputs_t, outputs_tuple = _tuple(outputs)
        rows = []
        for out in outputs_t:
            per_input: list[list] = [[] for _ in prepared]
            flat = out.reshape(-1)
            for k in range(flat.numel()):
                if out._requires_grad:
                    grads = _grad((flat[k],), prepared, (None,), create_graph)
                else:
                    grads = tuple(
                        graph.Tensor._from_array(np.zeros_like(x._data)) for x in prepared
                    )
                for j, g in enumerate(grads):
                    per_input[j].append(g)
            blocks = []
            for j, x in enumerate(prepared):
                from .. import stack, zeros

                if per_input[j]:
                    block = stack(per_input[j]).reshape(*out.shape, *x.shape)
                else:
                    block = zeros(*out.shape, *x.shape, dtype=x.dtype)
                blocks.append(block if create_graph else block.detach())
            rows.append(tuple(blocks) if inputs_tuple else blocks[0])
    return tuple(rows) if outputs_tuple else rows[0]


def hessian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar function ``func`` at ``inputs``.

    Example::

        >>> cube = lambda x: (x ** 3).sum()
        >>> glassgrad.autograd.functional.hessian(cube, glassgrad.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    inputs_t, inputs_tuple = _tuple(inputs)

    def gradient(*xs: Any) -> Any:
        out = func(*xs)
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        grads = _grad((out.reshape(()),), xs, (None,), create_graph=True)
        return grads if inputs_tuple else grads[0]

    return jacobian(gradient, inputs_t if inputs_tuple else inputs_t[0], create_graph=create_graph)


def vhp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), v^T H)`` for a scalar function.

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0])
        >>> glassgrad.autograd.functional.vhp(lambda x: (x ** 3).sum(), x, glassgrad.ones(2))[1]
        tensor([ 6., 12.])
    """
    inputs_t, inputs_tuple = _tuple(inputs)
    with enable_grad():
        prepared = _prepare(inputs_t, create_graph)
        out = func(*prepared)
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hvp should contain a single element"
            )
        v_t = _vector(
            v,
            inputs_t,
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element.",
        )
        grads = _grad((out,), prepared, (None,), create_graph=True)
        result = _grad(grads, prepared, v_t, create_graph)
    return (out if create_graph else out.detach()), _finish(result, inputs_tuple, create_graph)


def hvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), H v)``; H is symmetric, so this equals ``vhp``.

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0])
        >>> glassgrad.autograd.functional.hvp(lambda x: (x ** 3).sum(), x, glassgrad.ones(2))[1]
        tensor([ 6., 12.])
    """
    return vhp(func, inputs, v, create_graph, strict)
