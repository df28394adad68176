"""Finite-difference checks of gradients (``gradcheck``) and of second derivatives
(``gradgradcheck``), independent of any reference library, with PyTorch's options and checks:

- slow mode compares the whole Jacobian, column by column (central differences) against row
  by row (backward); fast mode (``fast_mode=True``) compares ``v^T J u`` for random unit
  vectors ``u``, ``v``, as PyTorch's random-projection check does;
- every backward is run twice: results further apart than ``nondet_tol`` mean the backward is
  not reentrant;
- a function whose outputs need no gradient must have a zero numerical gradient;
- zero ``grad_outputs`` must give zero gradients of the input's dtype and shape;
- ``check_undefined_grad``: backward must accept undefined (None) output gradients.

Jacobians are NumPy arrays laid out as PyTorch's: ``(input.numel(), output.numel())``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import graph
from .function import Function

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised when analytical and numerical gradients disagree."""


_NONDET_NOTE = (
    "\n\nNOTE: If your op relies on non-deterministic operations, this failure might be "
    "expected: call gradcheck/gradgradcheck with `nondet_tol=<tol>` as a keyword argument."
)
_FAST_FAIL_SLOW_OK = (
    "Fast gradcheck failed but element-wise differences are small. This means that the test "
    "might've passed in slow_mode! Call gradcheck/gradgradcheck with `fast_mode=False`."
)


def _as_tuple(x: Any) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _tensors(values: tuple) -> list:
    return [v for v in values if isinstance(v, graph.Tensor)]


def _differentiable(values: tuple) -> tuple:
    return tuple(v for v in _tensors(values) if v.requires_grad)


def _check_inputs(inputs: tuple) -> None:
    any_requires_grad = False
    for i, x in enumerate(inputs):
        if not (isinstance(x, graph.Tensor) and x.requires_grad):
            continue
        if x._data.dtype not in (np.float64, np.complex128):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=4,
            )
        data = x._data
        if any(st == 0 and n > 1 for st, n in zip(data.strides, data.shape)):
            raise RuntimeError(
                f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs "
                "that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )
        any_requires_grad = True
    if not any_requires_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the "
            "them have requires_grad=True."
        )


def _reals(values: np.ndarray) -> np.ndarray:
    """An array as the real numbers it holds, flattened: complex values as all real parts,
    then all imaginary parts. Complex inputs and outputs are checked in these coordinates."""
    flat = values.reshape(-1)
    if values.dtype.kind == "c":
        return np.concatenate([flat.real, flat.imag]).astype(np.float64)
    return flat.astype(np.float64)


def _from_reals(vector: np.ndarray, like: np.ndarray) -> np.ndarray:
    """The inverse of ``_reals``: ``vector`` as an array of ``like``'s shape and dtype."""
    if like.dtype.kind == "c":
        half = vector.size // 2
        vector = vector[:half] + 1j * vector[half:]
    return vector.reshape(like.shape).astype(like.dtype)


def _real_size(values: np.ndarray) -> int:
    return 2 * values.size if values.dtype.kind == "c" else values.size


def _check_same_dtype_and_shape(a: Any, b: Any, eps: float, index: Any = None) -> None:
    """The outputs at ``x - eps`` and ``x + eps`` must agree in shape and dtype."""
    where = f"on index {index} " if index is not None else ""
    if a.shape != b.shape:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape when inputs are perturbed "
            f"{where}by {eps}, but got: shapes {a.shape} and {b.shape}."
        )
    if a.dtype != b.dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
            f"{where}by {eps}, but got: dtypes {a.dtype} and {b.dtype}."
        )


def _perturbed_outputs(func: Callable, inputs: tuple, data: np.ndarray, index: Any, delta: Any):
    """The tensor outputs of ``func`` with ``data[index]`` moved by ``delta`` (then restored).
    Grad mode stays on: gradgradcheck's function itself calls autograd.grad."""
    original = data[index].copy() if isinstance(data[index], np.ndarray) else data[index]
    data[index] = original + delta
    # Copies: an output may share the perturbed memory (an input returned as it is).
    outs = [graph.Tensor._from_array(o._data.copy()) for o in _tensors(_as_tuple(func(*inputs)))]
    data[index] = original
    return outs


def _central_differences(
    func: Callable, inputs: tuple, data: np.ndarray, index: Any, delta: Any, norm: float,
    eps: float, where: Any,
) -> list[np.ndarray]:  # fmt: skip
    minus = _perturbed_outputs(func, inputs, data, index, -delta)
    plus = _perturbed_outputs(func, inputs, data, index, delta)
    columns = []
    for a, b in zip(minus, plus):
        _check_same_dtype_and_shape(a, b, eps, where)
        columns.append((_reals(b._data) - _reals(a._data)) / (2 * norm))
    return columns


def _numerical_jacobians(func: Callable, inputs: tuple, outputs: list, eps: float) -> list:
    """``[input][output]`` Jacobians (input reals, output reals) of every tensor output, for
    each input that requires grad, by central differences element by element (a complex
    element along its real, then its imaginary direction: ``_reals``'s order)."""
    jacobians = []
    for x in _differentiable(inputs):
        data = x._data
        per_output = [np.zeros((_real_size(data), _real_size(o._data))) for o in outputs]
        steps = (eps, 1j * eps) if data.dtype.kind == "c" else (eps,)
        k = 0
        for step in steps:
            for index in np.ndindex(data.shape):
                columns = _central_differences(func, inputs, data, index, step, eps, eps, index)
                for jac, col in zip(per_output, columns):
                    jac[k] = col
                k += 1
        jacobians.append(per_output)
    return jacobians


def _vjps(output: Any, diff_inputs: tuple, grad_output: np.ndarray) -> tuple:
    from .api import grad

    return grad(
        output,
        diff_inputs,
        graph.Tensor._from_array(grad_output),
        retain_graph=True,
        allow_unused=True,
    )


def _stack(vjps: list, diff_inputs: tuple, rows: int) -> tuple[list, bool, bool]:
    """Jacobians ``(input.numel(), rows)`` from ``vjps[row][input]``; and whether every
    gradient had its input's size and dtype."""
    jacobians = [np.zeros((_real_size(x._data), rows)) for x in diff_inputs]
    sizes_ok = types_ok = True
    for j, grads in enumerate(vjps):
        for jac, x, g in zip(jacobians, diff_inputs, grads):
            if g is None:
                continue
            if g._data.shape != x._data.shape:
                sizes_ok = False
                continue
            if g._data.dtype != x._data.dtype:
                types_ok = False
            jac[:, j] = _reals(g._data.astype(x._data.dtype))
    return jacobians, sizes_ok, types_ok


def _analytical_jacobians(
    inputs: tuple, output: Any, nondet_tol: float, check_grad_dtypes: bool, v: Any = None
) -> list:
    """d(output)/d(each input) by backward, twice (the backward must be reentrant): row by
    row (slow mode), or the single row ``v^T J`` (fast mode). A complex output's real part k
    is the loss seeded with 1 at k, its imaginary part the one seeded with 1j (PyTorch's
    gradient of a real loss L is dL/dRe x + i dL/dIm x)."""
    diff_inputs = _differentiable(inputs)
    data = output._data
    if v is not None:
        seeds = [_from_reals(v, data)]
    else:
        seeds = []
        for k in range(_real_size(data)):
            unit = np.zeros(_real_size(data))
            unit[k] = 1
            seeds.append(_from_reals(unit, data))
    first = [_vjps(output, diff_inputs, s) for s in seeds]
    second = [_vjps(output, diff_inputs, s) for s in seeds]
    jacobians, sizes_ok, types_ok = _stack(first, diff_inputs, len(seeds))
    again, _, _ = _stack(second, diff_inputs, len(seeds))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    for a, b in zip(jacobians, again):
        if a.size and np.abs(a - b).max() > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                "gradient matches numerical gradient.The tolerance for nondeterminism was "
                f"{nondet_tol}." + _NONDET_NOTE
            )
    return jacobians


def _mismatch(
    analytical: Any, numerical: Any, output_idx: int, input_idx: int, part: tuple = ()
) -> str:
    """PyTorch's message; ``part``: ``(name, indices)`` while the ``name`` ("real" or
    "imaginary") part of the complex outputs at ``indices`` is checked."""
    show = graph.Tensor._from_array
    prefix = ""
    if part and output_idx in part[1]:
        prefix = f"While considering the {part[0]} part of complex outputs only, "
    return prefix + (
        f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
        f"numerical:{show(np.asarray(numerical))}\nanalytical:{show(np.asarray(analytical))}\n"
    )


def _slow_gradcheck(
    func: Callable, func_out: tuple, inputs: tuple, outputs: tuple, eps: float, rtol: float,
    atol: float, check_grad_dtypes: bool, nondet_tol: float, part: tuple = (),
) -> None:  # fmt: skip
    tensors_out = _tensors(func_out)
    numerical = _numerical_jacobians(func, inputs, tensors_out, eps)
    if not outputs:
        # No output needs a gradient: the function must not depend on its inputs.
        for per_output in numerical:
            for jac in per_output:
                if np.count_nonzero(jac):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    keep = [k for k, o in enumerate(tensors_out) if o.requires_grad]
    diff_inputs = _differentiable(inputs)
    for i, output in enumerate(outputs):
        analytical = _analytical_jacobians(inputs, output, nondet_tol, check_grad_dtypes)
        for j, (a, per_output) in enumerate(zip(analytical, numerical)):
            n = per_output[keep[i]]
            if diff_inputs[j]._data.dtype.kind == "c":
                a, n = _wirtinger(a), _wirtinger(n)
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                raise GradcheckError(_mismatch(a, n, i, j, part))


def _wirtinger(jacobian: np.ndarray) -> np.ndarray:
    """A complex input's Jacobian rows (real directions, then imaginary ones) as PyTorch's
    entries ``ds/dx + 1j * ds/dy`` (the conjugate Wirtinger derivative, doubled): PyTorch
    compares those complex numbers, so an entry's tolerance is on its modulus."""
    half = jacobian.shape[0] // 2
    return jacobian[:half] + 1j * jacobian[half:]


def _real_dtype(t: Any) -> np.dtype:
    dtype = t._data.dtype
    return np.dtype(np.float64) if dtype.kind == "c" else dtype


def _unit_vector(rng: np.random.Generator, size: int, dtype: np.dtype) -> np.ndarray:
    vec = rng.random(size).astype(dtype)
    norm = np.linalg.norm(vec)
    return vec / norm if norm else vec


def _fast_gradcheck(
    func: Callable, func_out: tuple, inputs: tuple, outputs: tuple, eps: float, rtol: float,
    atol: float, check_grad_dtypes: bool, nondet_tol: float, part: tuple = (),
) -> None:  # fmt: skip
    """PyTorch's fast mode: compare ``v^T (J u)`` (finite differences along ``u``) with
    ``(v^T J) u`` (one backward per output) for random non-negative unit vectors."""
    rng = np.random.default_rng(67280421310721)  # its own stream: the user's RNG is untouched
    diff_inputs = _differentiable(inputs)
    tensors_out = _tensors(func_out)
    all_u = [_unit_vector(rng, _real_size(x._data), _real_dtype(x)) for x in diff_inputs]
    all_v = [_unit_vector(rng, _real_size(o._data), _real_dtype(o)) for o in outputs]
    keep = [k for k, o in enumerate(tensors_out) if o.requires_grad]
    numerical = []  # [input][output]: v^T (J u)
    for x, u in zip(diff_inputs, all_u):
        data = x._data
        ju = _central_differences(
            func, inputs, data, Ellipsis, _from_reals(eps * u, data), eps, eps, None
        )
        if not outputs:
            for column in ju:
                if column.size and np.abs(column).max() > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
            continue
        numerical.append([v.astype(np.float64) @ ju[k] for v, k in zip(all_v, keep)])
    if not outputs:
        return
    for j, (output, v) in enumerate(zip(outputs, all_v)):
        vjs = _analytical_jacobians(inputs, output, nondet_tol, check_grad_dtypes, v)
        for i, (vj, u) in enumerate(zip(vjs, all_u)):
            a, n = vj[:, 0] @ u.astype(np.float64), numerical[i][j]
            scaled_atol = atol * float(u.sum()) * float(v.sum())
            if not np.allclose(a, n, rtol=rtol, atol=scaled_atol):
                raise GradcheckError(
                    _mismatch(a, n, j, i, part) + _slow_comparison(func, inputs, output, i, j, keep,
                                                             rtol, atol, eps)
                )  # fmt: skip


def _slow_comparison(
    func: Callable, inputs: tuple, output: Any, i: int, j: int, keep: list, rtol: float,
    atol: float, eps: float,
) -> str:  # fmt: skip
    """The fast-mode failure's Jacobians, recomputed in slow mode for the message."""
    tensors_out = _tensors(_as_tuple(func(*inputs)))
    numerical = _numerical_jacobians(func, inputs, tensors_out, eps)[i][keep[j]]
    analytical = _analytical_jacobians(inputs, output, float("inf"), False)[i]
    show = graph.Tensor._from_array
    message = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background "
        "\nabout fast mode. Below, we recompute numerical and analytical jacobians in slow "
        f"mode:\n\nNumerical:\n {show(numerical)}\nAnalytical:\n{show(analytical)}\n\n"
        f"The max per-element difference (slow mode) is: {np.abs(numerical - analytical).max()}"
        ".\n"
    )
    if np.allclose(analytical, numerical, rtol=rtol, atol=atol):
        message += _FAST_FAIL_SLOW_OK
    return message


def _complex_part(func: Callable, attribute: str) -> Callable:
    """``func`` with its complex outputs replaced by their ``attribute`` ("real", "imag")."""

    def part_fn(*args: Any) -> tuple:
        outs = _as_tuple(func(*args))
        return tuple(
            getattr(o, attribute)
            if isinstance(o, graph.Tensor) and o._data.dtype.kind == "c"
            else o
            for o in outs
        )

    return part_fn


def _zeros_like(t: Any) -> Any:
    return graph.Tensor._from_array(np.zeros(t._data.shape, dtype=t._data.dtype))


def _check_backward_mul_by_grad_output(outputs: tuple, inputs: tuple) -> None:
    """Zero output gradients must give zero input gradients of the input's dtype and shape."""
    from .api import grad

    diff_inputs = _differentiable(inputs)
    grads = grad(outputs, diff_inputs, [_zeros_like(o) for o in outputs], allow_unused=True)
    for g, x in zip(grads, diff_inputs):
        if g is None:
            continue
        if np.any(g._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g._data.dtype != x._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if g._data.shape != x._data.shape:
            raise GradcheckError("grad is incorrect size")


class _UndefinedGrad(Function):
    """Identity whose backward sends an undefined (None) gradient on (PyTorch's
    ``torch._C._functions.UndefinedGrad``)."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        return None


def _check_undefined_grad(func: Callable, outputs: tuple, inputs: tuple) -> None:
    """Backward must work when every output gradient (then each one alone) is undefined,
    and give undefined or zero input gradients."""
    from .api import grad

    diff_inputs = _differentiable(inputs)

    def fails(cause: str) -> GradcheckError:
        warnings.warn(
            "Backwards compatibility: New undefined gradient support checking feature is "
            "enabled by default, but it may break existing callers of this function. If this "
            'is true for you, you can call this function with "check_undefined_grad=False" '
            "to disable the feature",
            UserWarning,
            stacklevel=4,
        )
        return GradcheckError(cause)

    cases = [[_UndefinedGrad.apply(o) for o in _differentiable(_as_tuple(func(*inputs)))]]
    if len(cases[0]) > 1:
        for k in range(len(outputs)):
            fresh = _differentiable(_as_tuple(func(*inputs)))
            cases.append([_UndefinedGrad.apply(o) if n == k else o for n, o in enumerate(fresh)])
    for case in cases:
        try:
            grads = grad(case, diff_inputs, [_zeros_like(o) for o in case], allow_unused=True)
        except RuntimeError as error:
            raise fails(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from error
        if any(g is not None and np.any(g._data != 0) for g in grads):
            raise fails(
                "Expected all input grads to be undefined or zero when all output grads are "
                'undefined or zero. Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"'
            )


def _refuse_unsupported(check_forward_ad: bool, check_batched_grad: bool) -> None:
    if check_forward_ad:
        raise NotImplementedError(
            "gradcheck: check_forward_ad=True (and check_batched_forward_grad, "
            "check_fwd_over_rev) test forward-mode AD, which glassgrad does not offer"
        )
    if check_batched_grad:
        raise NotImplementedError(
            "gradcheck: check_batched_grad=True tests gradients batched with vmap, which "
            "glassgrad does not offer; pass check_batched_grad=False"
        )


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against central finite differences.

    Inputs that require grad are checked (use float64 or complex128: complex inputs and
    outputs are checked as pairs of real numbers). Returns True, or raises
    ``GradcheckError`` naming the output, the input and both Jacobians (False instead with
    ``raise_exception=False``). ``fast_mode`` compares random projections of the Jacobians
    instead of whole Jacobians; ``nondet_tol`` is how far two runs of the same backward may
    differ. ``masked`` concerns sparse tensors, which glassgrad does not have: it changes
    nothing. Forward-mode and batched (vmap) checks are refused: glassgrad has neither.

    Example::

        >>> x = glassgrad.randn(3, dtype=glassgrad.float64, requires_grad=True)
        >>> glassgrad.autograd.gradcheck(glassgrad.sin, (x,))
        True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )
    _refuse_unsupported(check_forward_ad or check_batched_forward_grad, check_batched_grad)
    try:
        tupled = _as_tuple(inputs)
        _check_inputs(tupled)
        func_out = _as_tuple(func(*tupled))
        outputs = _differentiable(func_out)
        check = _fast_gradcheck if fast_mode else _slow_gradcheck
        complex_outputs = frozenset(k for k, o in enumerate(outputs) if o._data.dtype.kind == "c")
        if complex_outputs:
            # As PyTorch: the imaginary parts of the complex outputs, then their real parts,
            # each as a function of its own (the other outputs as they are).
            for name, attribute in (("imaginary", "imag"), ("real", "real")):
                part_fn = _complex_part(func, attribute)
                part_out = _as_tuple(part_fn(*tupled))
                check(part_fn, part_out, tupled, _differentiable(part_out), eps, rtol, atol,
                      check_grad_dtypes, nondet_tol, (name, complex_outputs))  # fmt: skip
        else:
            check(func, func_out, tupled, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
        _check_backward_mul_by_grad_output(outputs, tupled)
        if check_undefined_grad:
            _check_undefined_grad(func, outputs, tupled)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _random_grad_output(like: Any, noncontiguous: bool) -> Any:
    """Uniform in [-1, 1) from glassgrad's generator, in the output's floating dtype."""
    from .._factories import default_generator

    data = like._data
    dtype = data.dtype if data.dtype.kind in "fc" else np.dtype(np.float64)
    shape = data.shape
    if noncontiguous and data.size > 1:
        wide = default_generator.rng.uniform(-1, 1, (*shape[:-1], 2 * shape[-1]))
        values = wide.astype(dtype)[..., ::2]
    else:
        values = default_generator.rng.uniform(-1, 1, shape).astype(dtype)
    if dtype.kind == "c":  # a random imaginary part too
        values = values + 1j * default_generator.rng.uniform(-1, 1, shape)
    return graph.Tensor._from_array(values).requires_grad_(True)


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: ``gradcheck`` of the gradient of ``func`` with respect to
    its inputs and to ``grad_outputs`` (random in [-1, 1) from glassgrad's generator when not
    given, non-contiguous with ``gen_non_contig_grad_outputs``).

    Example::

        >>> x = glassgrad.randn(3, dtype=glassgrad.float64, requires_grad=True)
        >>> glassgrad.autograd.gradgradcheck(lambda x: x ** 3, (x,))
        True
    """
    from .api import grad

    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        tupled_grad_outputs = tuple(
            _random_grad_output(o, gen_non_contig_grad_outputs)
            for o in _differentiable(_as_tuple(func(*tupled_inputs)))
        )
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    n_outputs = len(tupled_grad_outputs)
    diff_inputs = {
        i for i, x in enumerate(tupled_inputs) if isinstance(x, graph.Tensor) and x.requires_grad
    }

    def first_derivatives(*args: Any) -> tuple:
        xs = args[: len(args) - n_outputs]
        gos = args[len(args) - n_outputs :]
        outputs = _differentiable(_as_tuple(func(*xs)))
        wrt = tuple(x for i, x in enumerate(xs) if i in diff_inputs)
        grads = grad(outputs, wrt, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivatives,
        tupled_inputs + tupled_grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        fast_mode=fast_mode,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        masked=masked,
    )
