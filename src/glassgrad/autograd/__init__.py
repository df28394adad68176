"""Reverse-mode automatic differentiation: ``backward``, ``grad``, custom ``Function``,
grad modes, ``functional`` (jacobian, hessian, vjp, jvp, hvp), ``gradcheck``, anomaly mode.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import functional, graph, profiler
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import run_backward
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import gradcheck, gradgradcheck
from .variable import Variable

__all__ = [
    "backward",
    "grad",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "Variable",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "gradcheck",
    "gradgradcheck",
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "functional",
    "graph",
    "profiler",
]


def _as_list(x: Any) -> list:
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _make_grads(outputs: list, grads: list, create_graph: bool) -> list:
    """The gradient to start from for each output (ones for a scalar), checked."""
    Tensor = graph.Tensor
    if len(grads) < len(outputs):
        grads = grads + [None] * (len(outputs) - len(grads))
    if len(grads) != len(outputs):
        raise RuntimeError(
            f"grad can be implicitly created only for scalar outputs (got {len(grads)} "
            f"gradients for {len(outputs)} outputs)"
        )
    made = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        data = out._data
        if g is None:
            if data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if data.dtype.kind != "f":
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"{out.dtype}"
                )
            g_data = np.ones(data.shape, dtype=data.dtype)
            made.append(Tensor._from_array(g_data) if create_graph else g_data)
            continue
        if not isinstance(g, Tensor):
            g = Tensor._from_array(np.asarray(g, dtype=data.dtype))
        if g._data.shape != data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of "
                f"glassgrad.Size({list(g._data.shape)}) and output[{i}] has a shape of "
                f"glassgrad.Size({list(data.shape)})."
            )
        if g._data.dtype.kind != data.dtype.kind:
            raise RuntimeError(
                f"For complex Tensors, both grad_output and output are required to have the "
                f"same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                f"{g.dtype} and output[{i}] has a dtype of {out.dtype}."
            )
        made.append(g if create_graph else g._data)
    return made


def _check_roots(outputs: list) -> None:
    Tensor = graph.Tensor
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(
                f"backward: expected a Tensor as element {i} of tensors, got {type(out).__name__}"
            )
        if not out.requires_grad:  # the property: a view requires grad through its base too
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves.

    ``grad_tensors`` holds the gradient with respect to each tensor (implicit ones for
    scalars); ``inputs`` restricts which tensors accumulate.

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> glassgrad.autograd.backward([(x * x).sum()])
        >>> x.grad
        tensor([2., 4.])
    """
    if grad_variables is not None:
        warnings.warn(
            "backward(grad_variables=...) is deprecated; use grad_tensors",
            DeprecationWarning,
            stacklevel=2,
        )
        grad_tensors = grad_variables
    outputs = _as_list(tensors)
    _check_roots(outputs)
    grads = _make_grads(outputs, _as_list(grad_tensors), create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after use "
            "to break the cycle and avoid the leak.",
            UserWarning,
            stacklevel=2,
        )
    input_list = None
    if inputs is not None:
        input_list = _as_list(inputs)
        if not input_list:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for t in input_list:
            if isinstance(t, graph.Tensor) and t.grad_fn is not None:
                t.retain_grad()  # as PyTorch: a non-leaf input gets its .grad that way
    run_backward(outputs, grads, retain_graph, create_graph, input_list, accumulate_grad=True)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs`` (``.grad`` is untouched).

    Example::

        >>> x = glassgrad.tensor(3.0, requires_grad=True)
        >>> (dx,) = glassgrad.autograd.grad(x ** 3, x, create_graph=True)
        >>> dx, glassgrad.autograd.grad(dx, x)[0]
        (tensor(27., grad_fn=<MulBackward0>), tensor(18.))
    """
    Tensor = graph.Tensor
    output_list = _as_list(outputs)
    input_list = _as_list(inputs)
    if not input_list:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    for t in input_list:
        if not isinstance(t, Tensor):
            raise TypeError(f"grad: inputs must be Tensors, got {type(t).__name__}")
        if not t.requires_grad:  # the property: a view requires grad through its base too
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    _check_roots(output_list)
    grads = _make_grads(output_list, _as_list(grad_outputs), create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    captured = run_backward(
        output_list, grads, retain_graph, create_graph, input_list, accumulate_grad=False
    )
    results = []
    for t, g in zip(input_list, captured):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                # Zeros that require grad under create_graph, as PyTorch's zeros_like(input,
                # requires_grad=create_graph): a later derivative of them is zeros too.
                results.append(
                    Tensor._from_array(np.zeros_like(t._data)).requires_grad_(create_graph)
                )
                continue
        if g is not None and not isinstance(g, Tensor):
            g = Tensor._from_array(g if g.flags.writeable else np.array(g))
        results.append(g)
    return tuple(results)
