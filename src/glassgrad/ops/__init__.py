"""Differentiable primitives. Importing this package registers every op, attaches the
Tensor methods named in the registry, and builds the Tensor namespace for backward formulas.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd import graph
from . import (
    broadcasting,
    complex,
    complex_views,
    conversion,
    index_put,
    indexing,
    linalg,
    pointwise,
    reduction,
    shape,
)
from ._common import operator_refusal
from ._namespace import ArrayNamespace, build_tensor_namespace
from ._numpy_names import with_numpy_names
from ._out import with_out, without_out
from ._registry import REGISTRY

# Every op module of this package registers its rows on import; new modules need no edit here.
_OP_MODULES = [
    importlib.import_module(f"{__name__}.{m.name}")
    for m in pkgutil.iter_modules(__path__)
    if not m.name.startswith("_")
]


__all__ = ["REGISTRY", "public_functions"]


def _unsqueeze_dims(x: Tensor, dims: tuple) -> Tensor:
    if not dims:
        return x
    new_shape = list(x._data.shape)
    for d in sorted(dims):
        new_shape.insert(d, 1)
    return shape.reshape(x, tuple(new_shape))


def _zeros(size: tuple, dtype: np.dtype) -> Tensor:
    return Tensor._from_array(np.zeros(size, dtype=dtype))


_BACKWARD_FUNCTIONS: dict[str, Any] = {
    "sum_to_size": broadcasting.sum_to_size,
    "cast": conversion.to,
    "clone": conversion.clone,
    "zeros": _zeros,
    "index_zeros_add": indexing.index_zeros_add,
    "scatter_zeros": indexing.scatter_zeros,
    "unsqueeze_dims": _unsqueeze_dims,
    "exp": pointwise.exp,
    "log": pointwise.log,
    "sqrt": pointwise.sqrt,
    "sin": pointwise.sin,
    "cos": pointwise.cos,
    "sign": pointwise.sign,
    "sgn": complex.sgn,
    "abs": pointwise.abs,
    "real": complex_views.real,
    "imag": complex_views.imag,
    "conj": complex.conj,
    "where": pointwise.where,
    "sum": reduction.sum,
    "expand": broadcasting.expand,
    "reshape": shape.reshape,
    "matmul": linalg.matmul,
    "mT": lambda x: shape.transpose(x, -2, -1),
    "t": shape.t,
    "permute": shape.permute,
    "transpose": shape.transpose,
    "squeeze": shape.squeeze,
    "unsqueeze": shape.unsqueeze,
    "stack": shape.stack,
    "cat": shape.cat,
}

graph.array_namespace = ArrayNamespace
graph.tensor_namespace = build_tensor_namespace(_BACKWARD_FUNCTIONS)


def attach_methods() -> None:
    """Bind every registry row's methods, the in-place and cast methods, to Tensor."""
    for info in REGISTRY.values():
        if info.methods:
            method_fn = with_numpy_names(info.function)  # x.sum(axis=1), as PyTorch takes
            for method in info.methods:
                setattr(Tensor, method, without_out(method_fn, method))
    for name, fn in {**conversion.INPLACE_METHODS, **conversion.CAST_METHODS}.items():
        setattr(Tensor, name, fn)
    # Extra methods (in-place variants, aliases) an op module lists in TENSOR_METHODS.
    for module in _OP_MODULES:
        for name, fn in getattr(module, "TENSOR_METHODS", {}).items():
            setattr(Tensor, name, fn)
    Tensor.__setitem__ = index_put.setitem
    Tensor.type = conversion.type_
    Tensor.type_as = conversion.type_as
    Tensor.index_put_ = index_put.index_put_
    Tensor.T = property(shape.reversed_dims)
    Tensor.mT = property(lambda self: shape.transpose(self, -2, -1))
    for name in _BINARY_OPERATORS:
        setattr(Tensor, name, _not_implemented_on_type_error(getattr(Tensor, name)))


# PyTorch's binary operators return NotImplemented where the op raises a TypeError (see
# ``_common.operator_refusal``).
_BINARY_OPERATORS = tuple(
    f"__{prefix}{name}__"
    for name in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift".split())
    for prefix in ("", "r", "i")
    if not (name == "matmul" and prefix == "i")
) + ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")


def _not_implemented_on_type_error(operator: Any) -> Any:
    if getattr(operator, "refuses_by_itself", False):
        return operator

    def wrapped(self: Tensor, other: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return operator(self, other, *args, **kwargs)
        except (TypeError, ValueError) as error:
            return operator_refusal(error, other)

    # Named and signed as the operator, without ``__wrapped__`` (the profiler's mark of its
    # own wrappers).
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__"):
        setattr(wrapped, attribute, getattr(operator, attribute))
    wrapped.__signature__ = inspect.signature(operator)  # type: ignore[attr-defined]
    return wrapped


def public_functions(namespace: str = "") -> dict[str, Any]:
    """Registry functions public in ``namespace`` ("" is ``glassgrad.<name>``), each taking
    ``out=`` where PyTorch's does (the Tensor methods, which have none, are the functions as
    they are)."""
    private = ("getitem", "rtruediv", "rpow", "rmatmul")  # operators PyTorch has no name for
    return {
        info.name: with_numpy_names(with_out(info.function, info.name, namespace))
        for info in REGISTRY.values()
        if info.namespace == namespace
        and info.name not in private
        and not info.name.startswith("_")  # rows that exist only to carry test samples
    }


attach_methods()
