"""Higher-level derivatives of functions: ``vjp``, ``jvp``, ``jacobian``, ``hessian``,
``hvp``, ``vhp`` (PyTorch's ``torch.autograd.functional``), built on ``autograd.grad``, with
PyTorch's input checks, ``strict`` checks and ``create_graph`` rules.

glassgrad has neither vmap nor forward-mode AD. ``vectorize=True`` computes the same result
through ``autograd.grad(is_grads_batched=True)`` (one backward per row); the forward-mode
strategy computes each column ``J e_i`` with the double-backward trick (as ``jvp`` does), so
its results (dtypes included) are those of forward mode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import graph
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(value: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """``value`` as a tuple of Tensors (and whether it was one), or PyTorch's TypeError."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, graph.Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                f"but the {where} has type {type(item)}."
            )
    return is_tuple, items


def _unpack(result: Any, to_unpack: Any) -> Any:
    """Undo the tuple wrapping of single inputs / outputs (PyTorch's _tuple_postprocess)."""
    if isinstance(to_unpack, tuple):
        outputs_tuple, inputs_tuple = to_unpack
        if not inputs_tuple:
            result = tuple(row[0] for row in result)
        if not outputs_tuple:
            result = result[0]
        return result
    return result if to_unpack else result[0]


def _preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Inputs the function will differentiate against: a view of an input that requires grad
    when ``create_graph`` (so the result stays connected to it), else a fresh leaf."""
    return tuple(
        x.view_as(x) if create_graph and x.requires_grad else x.detach().requires_grad_(need_graph)
        for x in inputs
    )


def _postprocess(values: tuple, create_graph: bool) -> tuple:
    if values and isinstance(values[0], graph.Tensor):
        return values if create_graph else tuple(v.detach() for v in values)
    return tuple(_postprocess(v, create_graph) for v in values)


def _validate_v(v: tuple, other: tuple, other_is_tuple: bool) -> None:
    if len(other) != len(v):
        if other_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(
                f"{prefix}v has invalid size: should be {b.shape} but got {a.shape}."
            )


def _check_requires_grad(values: tuple, kind: str, strict: bool) -> None:
    """In strict mode: every value must exist and require grad (PyTorch's messages)."""
    if not strict:
        return
    for i, x in enumerate(values):
        if x is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode."
            )
        if x.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."
            )
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example)."
            )
        if kind == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode."
            )
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in "
            "strict mode."
        )


def _grad(
    outputs: tuple, inputs: tuple, grad_outputs: Any = None, create_graph: bool = False,
    retain_graph: bool | None = None, is_grads_batched: bool = False,
) -> tuple:  # fmt: skip
    """``autograd.grad`` over the outputs that require grad (None for every input if none)."""
    from .api import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad(
        [o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=retain_graph,
        create_graph=create_graph, allow_unused=True, is_grads_batched=is_grads_batched,
    )  # fmt: skip


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. This "
    "is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
    "in the grad_jacobian. This is not allowed in strict mode as it prevents from using the "
    "double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str):
    """Zeros where a gradient is missing (strict mode refuses it, and a gradient that does
    not require grad under create_graph)."""
    result = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = _zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode when create_graph=True."
            )
        result.append(g)
    return tuple(result)


def _zeros_like(t: Any, requires_grad: bool = False) -> Any:
    zeros = graph.Tensor._from_array(np.zeros(t._data.shape, dtype=t._data.dtype))
    return zeros.requires_grad_(True) if requires_grad else zeros


def _single_element_v(inputs: tuple) -> None:
    if len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )


def vjp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, ...]:
    """``(func(inputs), v^T J)``: the vector-Jacobian product.

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0])
        >>> glassgrad.autograd.functional.vjp(lambda x: x ** 2, x, glassgrad.ones(2))[1]
        tensor([2., 4.])
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            v = _preprocess(_as_tuple(v, "v", "vjp")[1], create_graph, need_graph=False)
            _validate_v(v, outputs, outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        result = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(result, inputs, strict, create_graph, "back")
    return (
        _unpack(_postprocess(outputs, create_graph), outputs_tuple),
        _unpack(_postprocess(result, create_graph), inputs_tuple),
    )


def jvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, ...]:
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-backward trick
    (``J v`` is the gradient of ``u^T J v`` with respect to a dummy ``u``).

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0])
        >>> glassgrad.autograd.functional.jvp(lambda x: x ** 2, x, glassgrad.ones(2))[1]
        tensor([2., 4.])
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _preprocess(_as_tuple(v, "v", "jvp")[1], create_graph, need_graph=False)
            _validate_v(v, inputs, inputs_tuple)
        else:
            _single_element_v(inputs)
        outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        dummies = tuple(_zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        result = _grad(grad_inputs, dummies, v, create_graph=create_graph)
        result = _fill_in_zeros(result, outputs, strict, create_graph, "back_trick")
    return (
        _unpack(_postprocess(outputs, create_graph), outputs_tuple),
        _unpack(_postprocess(result, create_graph), outputs_tuple),
    )


def _standard_basis(tensors: tuple) -> tuple:
    """For each tensor, its block of the identity over all their elements: block ``k`` has
    shape ``(total, numel_k)`` (PyTorch's _construct_standard_basis_for)."""
    numels = [t.numel() for t in tensors]
    total, start = sum(numels), 0
    blocks = []
    for t, n in zip(tensors, numels):
        block = np.zeros((total, n), dtype=t._data.dtype)
        block[np.arange(start, start + n), np.arange(n)] = 1
        blocks.append(graph.Tensor._from_array(block))
        start += n
    return tuple(blocks)


def _jacobian_forward(func: Callable, inputs: Any, strict: bool, vectorize: bool) -> Any:
    """The Jacobian column by column: ``J e_i`` for each element of the inputs (forward mode,
    here through ``jvp``); in the output's dtype."""
    stack = graph.tensor_namespace.stack  # glassgrad.stack, without importing the package

    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
            "are not supported together (yet). Please either set `strict=False` or "
            '`strategy="reverse-mode"`.'
        )
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
            "implemented for `vectorize=True`."
        )
    basis = _standard_basis(inputs)
    columns = []
    for k in range(sum(t.numel() for t in inputs)):
        tangent = tuple(b[k].reshape(x.shape) for b, x in zip(basis, inputs))
        outputs, jv = jvp(func, inputs, tangent)
        outputs_tuple = isinstance(outputs, tuple)
        columns.append(jv if outputs_tuple else (jv,))
    outputs = outputs if outputs_tuple else (outputs,)
    numels = [x.numel() for x in inputs]
    rows = []
    for j, out in enumerate(outputs):
        stacked = stack([col[j] for col in columns])  # (total input elements, *out.shape)
        per_input, start = [], 0
        for x, n in zip(inputs, numels):
            part = stacked[start : start + n].reshape(n, -1).t()
            per_input.append(part.reshape(*out.shape, *x.shape))
            start += n
        rows.append(tuple(per_input))
    return _unpack(tuple(rows), (outputs_tuple, inputs_tuple))


def jacobian(
    func: Callable[..., Any],
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
    stack = graph.tensor_namespace.stack  # glassgrad.stack, without importing the package

    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacobian_forward(func, inputs, strict, vectorize)
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize:
            if strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                    "not supported together. Please either set `strict=False` or "
                    "`vectorize=False`."
                )
            return _unpack(
                _postprocess(_jacobian_batched(outputs, inputs, create_graph), create_graph),
                (outputs_tuple, inputs_tuple),
            )
        rows = []
        for i, out in enumerate(outputs):
            per_input: tuple = tuple([] for _ in inputs)
            flat = out.reshape(-1)
            for j in range(out.numel()):
                grads = _grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (column, g, x) in enumerate(zip(per_input, grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode."
                            )
                        g = _zeros_like(x)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of input "
                            f"{i}. This is not allowed in strict mode when create_graph=True."
                        )
                    column.append(g)
            rows.append(
                tuple(
                    stack(column).reshape(*out.shape, *x.shape)
                    if column  # an output without elements has an empty Jacobian
                    else graph.Tensor._from_array(
                        np.zeros((*out.shape, *x.shape), dtype=x._data.dtype)
                    )
                    for column, x in zip(per_input, inputs)
                )
            )
        return _unpack(_postprocess(tuple(rows), create_graph), (outputs_tuple, inputs_tuple))


def _jacobian_batched(outputs: tuple, inputs: tuple, create_graph: bool) -> tuple:
    """``vectorize=True``: every row of the Jacobian from one batched ``autograd.grad`` over
    the standard basis of the outputs."""
    numels = [o.numel() for o in outputs]
    flat = tuple(o.reshape(-1) for o in outputs)
    grads = list(
        _grad(flat, inputs, _standard_basis(outputs), create_graph=create_graph,
              is_grads_batched=True)
    )  # fmt: skip
    for k, g in enumerate(grads):
        if g is None:
            x = inputs[k]
            grads[k] = graph.Tensor._from_array(
                np.zeros((sum(numels), *x.shape), dtype=x._data.dtype)
            )
    rows: list = [[] for _ in outputs]
    for g, x in zip(grads, inputs):
        start = 0
        for j, (out, n) in enumerate(zip(outputs, numels)):
            rows[j].append(g[start : start + n].reshape(*out.shape, *x.shape))
            start += n
    return tuple(tuple(r) for r in rows)


def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar function ``func`` at ``inputs`` (the Jacobian of its gradient).

    Example::

        >>> cube = lambda x: (x ** 3).sum()
        >>> glassgrad.autograd.functional.hessian(cube, glassgrad.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*xs: Any) -> Any:
        out = func(*xs)
        out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if out_tuple or not isinstance(out, graph.Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def gradient(*xs: Any) -> Any:
        if outer_jacobian_strategy == "forward-mode":
            xs = tuple(x.requires_grad_(True) for x in xs)
        jac = jacobian(single_output, xs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(
        gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )  # fmt: skip
    return _unpack(result, (inputs_tuple, inputs_tuple))


def _scalar_function_output(func: Callable, inputs: tuple, fn_name: str, strict: bool) -> tuple:
    outputs_tuple, outputs = _as_tuple(
        func(*inputs), "outputs of the user-provided function", fn_name
    )
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )
    return outputs_tuple, outputs


def vhp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, ...]:
    """``(func(inputs), v^T H)`` for a scalar function.

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0])
        >>> glassgrad.autograd.functional.vhp(lambda x: (x ** 3).sum(), x, glassgrad.ones(2))[1]
        tensor([ 6., 12.])
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _preprocess(_as_tuple(v, "v", "vhp")[1], create_graph, need_graph=False)
            _validate_v(v, inputs, inputs_tuple)
        else:
            _single_element_v(inputs)
        outputs_tuple, outputs = _scalar_function_output(func, inputs, "vhp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        result = _grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(result, inputs, strict, create_graph, "double_back")
    return (
        _unpack(_postprocess(outputs, create_graph), outputs_tuple),
        _unpack(_postprocess(result, create_graph), inputs_tuple),
    )


def hvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, ...]:
    """``(func(inputs), H v)`` for a scalar function, by the double-backward trick.

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0])
        >>> glassgrad.autograd.functional.hvp(lambda x: (x ** 3).sum(), x, glassgrad.ones(2))[1]
        tensor([ 6., 12.])
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _preprocess(_as_tuple(v, "v", "hvp")[1], create_graph, need_graph=False)
            _validate_v(v, inputs, inputs_tuple)
        else:
            _single_element_v(inputs)
        outputs_tuple, outputs = _scalar_function_output(func, inputs, "hvp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        grad_jac = tuple(_zeros_like(x, requires_grad=True) for x in inputs)
        double_back = _grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        result = _grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(result, inputs, strict, create_graph, "double_back_trick")
    return (
        _unpack(_postprocess(outputs, create_graph), outputs_tuple),
        _unpack(_postprocess(result, create_graph), inputs_tuple),
    )
