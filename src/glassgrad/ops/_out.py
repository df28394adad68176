"""PyTorch's ``out=`` rules, in one place: a function computes its result as usual, then
``out_result`` writes it into the caller's tensor(s).

- Under grad mode, an input or an ``out`` tensor that requires grad is refused (PyTorch:
  out= functions do not support automatic differentiation), except for ops PyTorch records
  with a ``NotImplemented`` node: ``out`` then takes that node as its history.
- The result must cast to ``out``'s dtype in the same kind (float into double, not float
  into long); it is cast.
- An ``out`` of another shape is resized (with PyTorch's deprecation warning when it held
  elements); its history and ``requires_grad`` stay as they were.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any

import numpy as np

from .._dtype import c_type_name, scalar_type_name
from .._tensor import Tensor
from ..autograd.grad_mode import state as grad_state
from ..autograd.inplace_record import note_write
from ..autograd.mutation import before_write, write_hooks
from ..autograd.views import rebase_history

__all__ = ["out_result", "write_into", "with_out"]


def _autograd_error(op: str) -> RuntimeError:
    return RuntimeError(
        f"{op}(): functions with out=... arguments don't support automatic differentiation, "
        "but one of the arguments requires grad."
    )


def write_into(op: str, out: Any, values: np.ndarray, exact: bool = False) -> Tensor:
    """Write ``values`` into the Tensor ``out`` with PyTorch's dtype and resize rules
    (``exact``: ``out`` must have the result's dtype, as sort's or max's)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    values = np.asarray(values)
    target = out._data
    if exact and target.dtype != values.dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {c_type_name(values.dtype)}, but got "
            f"{c_type_name(target.dtype)} instead"
        )
    if target.dtype != values.dtype and not np.can_cast(values.dtype, target.dtype, "same_kind"):
        raise RuntimeError(
            f"result type {scalar_type_name(values.dtype)} can't be cast to the desired output "
            f"type {scalar_type_name(target.dtype)}"
        )
    if write_hooks:
        before_write(out)
    if target.shape != values.shape:
        if target.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(target.shape)}, which does not match the required output shape "
                f"{list(values.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).",
                UserWarning,
                stacklevel=4,
            )
        out._data = np.empty_like(values, dtype=target.dtype)  # the result's layout, as PyTorch
    elif not target.flags.writeable:
        raise RuntimeError(f"{op}(): the 'out' tensor's memory is read-only")
    np.copyto(out._data, values, casting="unsafe")
    out._vc[0] += 1
    note_write(out._vc, f"{op}(..., out=...)")
    return out


def out_result(
    op: str,
    out: Any,
    result: Any,
    inputs: tuple = (),
    exact: bool = False,
    autograd_op: str | None = None,
) -> Any:
    """``result`` itself when ``out`` is None; else ``result`` written into ``out`` (a Tensor,
    or a tuple of Tensors for an op with several results), which is returned. ``exact``:
    the dtypes must match (no casting), as for PyTorch's sort and max. ``autograd_op``: the
    ATen op PyTorch's autograd error names, where it is not ``op`` (``_linalg_svd`` for
    ``linalg_svdvals``)."""
    if out is None:
        return result
    several = isinstance(result, tuple)
    results = result if several else (result,)
    if several:
        if not isinstance(out, (tuple, list)) or not all(isinstance(o, Tensor) for o in out):
            raise TypeError(
                f"{op}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
            )
        if len(out) != len(results):
            raise TypeError(f"expected tuple of {len(results)} elements but got {len(out)}")
    elif not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    outs = tuple(out) if several else (out,)
    histories = ()
    if grad_state.enabled:
        # An op PyTorch records with a NotImplemented node passes it on to ``out`` as an
        # in-place op would (its backward raises there): only a leaf ``out`` is refused.
        recorded = [r._node for r in results if r.requires_grad]
        not_implemented = bool(recorded) and all(
            getattr(fn, "records_out", False) for fn in recorded
        )
        if any(o.requires_grad and (o._node is None or not not_implemented) for o in outs) or (
            not not_implemented and any(isinstance(x, Tensor) and x.requires_grad for x in inputs)
        ):
            raise _autograd_error(autograd_op or op)
        histories = tuple((o, r._node) for o, r in zip(outs, results) if r.requires_grad)
    written = tuple(write_into(op, o, r._data, exact) for o, r in zip(outs, results))
    for target, node in histories:
        rebase_history(target, node)
    if not several:
        return written[0]
    return type(result)(*written) if hasattr(result, "_fields") else written


def composite_out(op: str, out: Any, compute: Any) -> Tensor:
    """``out=`` of an op PyTorch composes from others (``linalg.matrix_norm``, ``cond``):
    ``out`` must have the result's dtype (PyTorch's message), is resized if needed and gets
    the result by ``copy_``, which autograd records (CopyBackwards), as in PyTorch."""
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{op.replace('.', '_')}(): argument 'out' must be Tensor, not {type(out).__name__}"
        )
    result = compute()
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(
            f"{op} expected out tensor dtype {scalar_type_name(result._data.dtype)} but got: "
            f"{scalar_type_name(out._data.dtype)}"
        )
    if out._data.shape != result._data.shape:
        write_into(op, out, np.zeros(result._data.shape, out._data.dtype))
    return out.copy_(result)


def with_out(fn: Any, name: str | None = None) -> Any:
    """``fn`` taking PyTorch's keyword-only ``out=`` (written by ``out_result``); ``fn``
    itself when it already has an ``out`` parameter or takes ``**kwargs``."""
    signature = inspect.signature(fn)
    params = list(signature.parameters.values())
    if "out" in signature.parameters or any(p.kind is p.VAR_KEYWORD for p in params):
        return fn
    op = name or fn.__name__

    @functools.wraps(fn)
    def wrapper(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        return out_result(op, out, fn(*args, **kwargs), (*args, *kwargs.values()))

    out_param = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
    wrapper.__signature__ = signature.replace(parameters=[*params, out_param])
    return wrapper
