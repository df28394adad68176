"""``Variable``: the pre-0.4 wrapper, kept so old tutorials run (with a DeprecationWarning)."""

from __future__ import annotations

import warnings
import weakref
from typing import Any

from . import engine, graph
from .op import special_inputs

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, graph.Tensor)


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 wrapper: calling it returns a Tensor (Variables and Tensors merged in
    PyTorch 0.4), and every Tensor is an instance of it, as in PyTorch.

    ``volatile=True`` is the old spelling of ``no_grad``: nothing computed from the result
    records a graph, and results are volatile too.

    Example::

        >>> x = glassgrad.autograd.Variable(glassgrad.ones(2), requires_grad=True)
        >>> type(x).__name__, x.requires_grad, isinstance(x, glassgrad.autograd.Variable)
        ('Tensor', True, True)
    """

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:
        return _make_variable(data, requires_grad, volatile)


def _make_variable(data: Any, requires_grad: bool, volatile: bool) -> Any:
    Tensor = graph.Tensor
    if volatile:
        warnings.warn(
            "Variable(..., volatile=True) is deprecated; use `with glassgrad.no_grad():` "
            "(results computed from a volatile tensor record no graph)",
            DeprecationWarning,
            stacklevel=3,
        )
    else:
        warnings.warn(
            "autograd.Variable(t) is deprecated: tensors are variables; use t.requires_grad_()",
            DeprecationWarning,
            stacklevel=3,
        )
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    t = Tensor._from_array(data._data)
    t._vc = data._vc
    if volatile:
        t._volatile = True
        special_inputs.alive += 1
        weakref.finalize(t, special_inputs.release)
        return t
    if requires_grad:
        t.requires_grad = True
    return t


class _ExecutionEngine:
    """``Variable._execution_engine``: where PyTorch code reaches the backward engine."""

    @staticmethod
    def queue_callback(callback: Any) -> None:
        engine.queue_callback(callback)


Variable._execution_engine = _ExecutionEngine()
