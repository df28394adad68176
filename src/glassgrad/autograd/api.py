"""``backward`` and ``grad``: the entry points that check the roots and their starting
gradients, then hand the graph to the engine (``engine.run_backward``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._warn_once import warn_once
from . import graph
from .engine import run_backward


def _as_list(x: Any) -> list:
    if type(x) is list:
        return x
    if x is None:
        return []
    if isinstance(x, (list, tuple)) and type(x) is not graph.GradientEdge:
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
        data = _output_array(out)
        if g is None:
            if data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if data.dtype.kind != "f":
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"{graph.Tensor._from_array(data).dtype}"
                )
            g_data = np.ones(data.shape, dtype=data.dtype)
            made.append(Tensor._from_array(g_data) if create_graph else g_data)
            continue
        if not isinstance(g, Tensor):
            g = Tensor._from_array(np.asarray(g, dtype=data.dtype))
        elif g._data.dtype == data.dtype and g._data.shape == data.shape:
            made.append(g if create_graph else g._data)  # the usual case: nothing to check
            continue
        if g._data.shape != data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of "
                f"glassgrad.Size({list(g._data.shape)}) and output[{i}] has a shape of "
                f"glassgrad.Size({list(data.shape)})."
            )
        if (g._data.dtype.kind == "c") != (data.dtype.kind == "c"):
            raise RuntimeError(
                f"For complex Tensors, both grad_output and output are required to have the "
                f"same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                f"{g.dtype} and output[{i}] has a dtype of "
                f"{graph.Tensor._from_array(data).dtype}."
            )
        if g._data.dtype != data.dtype:
            # Another real (or complex) dtype is cast to the output's, as PyTorch's engine
            # casts the gradient its root sends.
            g = g.to(graph.Tensor._from_array(data).dtype)
        made.append(g if create_graph else g._data)
    return made


def _output_array(out: Any) -> np.ndarray:
    """An output's array, or for a GradientEdge an empty stand-in of the node's output
    shape and dtype (what the checks of the starting gradient read)."""
    if type(out) is graph.GradientEdge:
        shape, dtype = out.node._output_meta[out.output_nr]
        return np.broadcast_to(np.zeros((), dtype=dtype), shape)
    return out._data


def _check_roots(outputs: list) -> None:
    Tensor = graph.Tensor
    for i, out in enumerate(outputs):
        if type(out) is graph.GradientEdge:
            continue
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
    input_list = None
    if inputs is not None:
        input_list = _as_list(inputs)
        if not input_list:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for t in input_list:
            if isinstance(t, graph.Tensor) and t.grad_fn is not None:
                t.retain_grad()  # as PyTorch: a non-leaf input gets its .grad that way
    if create_graph:  # once per process, as PyTorch's engine (TORCH_WARN_ONCE)
        warn_once(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after use "
            "to break the cycle and avoid the leak.",
            UserWarning,
            stacklevel=2,
        )
    run_backward(outputs, grads, retain_graph, create_graph, input_list, accumulate_grad=True)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs`` (``.grad`` is untouched).

    With ``is_grads_batched``, the first dimension of every ``grad_outputs`` entry is a batch:
    one vector-Jacobian product per entry, stacked (PyTorch vectorizes this with vmap;
    glassgrad runs the backward once per entry).

    Example::

        >>> x = glassgrad.tensor(3.0, requires_grad=True)
        >>> (dx,) = glassgrad.autograd.grad(x ** 3, x, create_graph=True)
        >>> dx, glassgrad.autograd.grad(dx, x)[0]
        (tensor(27., grad_fn=<MulBackward0>), tensor(18.))
    """
    if is_grads_batched:
        return _batched_grad(
            outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
            materialize_grads,
        )  # fmt: skip
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
        if type(t) is graph.GradientEdge:
            continue
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
    for index, (t, g) in enumerate(zip(input_list, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                if type(t) is graph.GradientEdge:
                    raise RuntimeError(
                        "materialize_grads cannot be used when the given input is a GradientEdge"
                    )
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


def _batched_grad(
    outputs: Any, inputs: Any, grad_outputs: Any, retain_graph: bool | None, create_graph: bool,
    allow_unused: bool | None, materialize_grads: bool,
) -> tuple:  # fmt: skip
    """``grad`` for each index of the batch dimension of ``grad_outputs``, stacked."""
    stack = graph.tensor_namespace.stack  # glassgrad.stack, without importing the package

    output_list = _as_list(outputs)
    batched = _as_list(grad_outputs)
    for i, (out, g) in enumerate(zip(output_list, batched)):
        shape = _output_array(out).shape
        if g is None or tuple(g.shape[1:]) != tuple(shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of "
                f"{None if g is None else g.shape} and output[{i}] has a shape of "
                f"glassgrad.Size({list(shape)}). If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap."
            )
    size = batched[0].shape[0] if batched else 0
    keep = create_graph if retain_graph is None else retain_graph
    rows = [
        grad(
            output_list,
            inputs,
            [g[b] for g in batched],
            retain_graph=keep or b < size - 1,
            create_graph=create_graph,
            allow_unused=allow_unused,
            materialize_grads=materialize_grads,
        )  # fmt: skip
        for b in range(size)
    ]
    return tuple(None if column[0] is None else stack(list(column)) for column in zip(*rows))
