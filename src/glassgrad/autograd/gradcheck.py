"""Finite-difference checks of gradients (``gradcheck``) and of second derivatives
(``gradgradcheck``), independent of any reference library.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import graph

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised when analytical and numerical gradients disagree."""


def _outputs(func: Callable, inputs: tuple) -> tuple:
    out = func(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return tuple(o for o in outs if isinstance(o, graph.Tensor))


def _numerical(func: Callable, inputs: tuple, x: Any, eps: float) -> list[np.ndarray]:
    """d(output)/d(x) by central differences, one Jacobian per output: (out.size, x.size)."""
    data = x._data
    columns: list[list[np.ndarray]] | None = None
    # Perturb element by element in place (works for non-contiguous inputs too). Grad mode
    # stays on: gradgradcheck's function itself calls autograd.grad.
    for index in np.ndindex(data.shape):
        original = data[index]
        data[index] = original + eps
        plus = [o._data.astype(np.float64).reshape(-1).copy() for o in _outputs(func, inputs)]
        data[index] = original - eps
        minus = [o._data.astype(np.float64).reshape(-1).copy() for o in _outputs(func, inputs)]
        data[index] = original
        if columns is None:
            columns = [[] for _ in plus]
        for j, (p, m) in enumerate(zip(plus, minus)):
            columns[j].append((p - m) / (2 * eps))
    if columns is None:
        return [np.zeros((o.numel(), 0)) for o in _outputs(func, inputs)]
    return [np.stack(c, axis=1) if c else np.zeros((0, 0)) for c in columns]


def _analytical(func: Callable, inputs: tuple, x: Any) -> list[np.ndarray]:
    """d(output)/d(x) by backward, one row per output element."""
    from . import grad

    jacobians = []
    outs = _outputs(func, inputs)
    for out in outs:
        rows = []
        flat_size = out._data.size
        for k in range(flat_size):
            if not out._requires_grad:
                rows.append(np.zeros(x._data.size))
                continue
            seed = np.zeros(flat_size, dtype=out._data.dtype)
            seed[k] = 1.0
            (g,) = grad(
                out,
                x,
                graph.Tensor._from_array(seed.reshape(out._data.shape)),
                retain_graph=True,
                allow_unused=True,
            )
            rows.append(np.zeros(x._data.size) if g is None else g._data.reshape(-1))
        jacobians.append(np.array(rows).reshape(flat_size, x._data.size))
    return jacobians


def gradcheck(
    func: Callable,
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **unused: Any,
) -> bool:
    """Compare the gradients of ``func`` at ``inputs`` with central finite differences.

    Inputs that require grad are checked (use float64). Returns True, or raises
    ``GradcheckError`` naming the output, input and the two Jacobians.

    Example::

        >>> x = glassgrad.randn(3, dtype=glassgrad.float64, requires_grad=True)
        >>> glassgrad.autograd.gradcheck(glassgrad.sin, (x,))
        True
    """
    inputs_t = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    checked = [x for x in inputs_t if isinstance(x, graph.Tensor) and x._requires_grad]
    if not checked:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for i, x in enumerate(checked):
        if x._data.dtype != np.float64:
            import warnings

            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point. "
                "This check will likely fail if all the inputs are not of double precision "
                "floating point.",
                UserWarning,
                stacklevel=2,
            )
        numerical = _numerical(func, inputs_t, x, eps)
        analytical = _analytical(func, inputs_t, x)
        for j, (a, n) in enumerate(zip(analytical, numerical)):
            if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                )
    return True


def gradgradcheck(
    func: Callable,
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    seed: int = 0,
    **unused: Any,
) -> bool:
    """Check second derivatives: gradcheck of the gradient of ``func`` (with random
    ``grad_outputs``, themselves checked as inputs).

    Example::

        >>> x = glassgrad.randn(3, dtype=glassgrad.float64, requires_grad=True)
        >>> glassgrad.autograd.gradgradcheck(lambda x: x ** 3, (x,))
        True
    """
    from . import grad

    inputs_t = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    outs = _outputs(func, inputs_t)
    rng = np.random.default_rng(seed)
    if grad_outputs is None:
        grad_outputs = tuple(
            graph.Tensor._from_array(
                rng.standard_normal(o._data.shape).astype(o._data.dtype)
            ).requires_grad_(True)
            for o in outs
        )
    else:
        grad_outputs = (
            tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) else (grad_outputs,)
        )
    differentiable = [x for x in inputs_t if isinstance(x, graph.Tensor) and x._requires_grad]
    n_inputs = len(inputs_t)

    def first_derivatives(*args: Any) -> tuple:
        xs, gos = args[:n_inputs], args[n_inputs:]
        outputs = _outputs(func, xs)
        wrt = [x for x in xs if isinstance(x, graph.Tensor) and x._requires_grad]
        grads = grad(outputs, wrt, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    if not differentiable:
        raise ValueError("gradgradcheck expects at least one input tensor to require gradient")
    return gradcheck(
        first_derivatives,
        inputs_t + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
