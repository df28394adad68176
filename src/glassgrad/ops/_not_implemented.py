"""PyTorch's ``NotImplemented`` grad_fn (an op whose output is recorded and whose backward
raises), and the small operand checks the elementwise families share.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import result_numpy_dtype, scalar_type_name
from .._strides import like_operands
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import ACCUMULATE_PRIORITY
from ..autograd.op import Op, drop_edges_without_grad
from ._common import (
    broadcast_error,
    check_tensor,
)


def _not_implemented_for(kernel: str, dtype: np.dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(dtype)}'")


def any_complex(*operands: Any) -> bool:
    """Whether an operand (an array, a Tensor or a Python number) is complex."""
    for x in operands:
        if isinstance(x, Tensor):
            x = x._data
        if isinstance(x, np.ndarray):
            if x.dtype.kind == "c":
                return True
        elif isinstance(x, (complex, np.complexfloating)):
            return True
    return False


def refuse_complex(kernel: str, *operands: Any) -> None:
    """PyTorch's dtype dispatch of ``kernel`` has no complex case: raise its
    NotImplementedError, naming the operands' common dtype, when that dtype is complex."""
    if any_complex(*operands):
        arrays = [x._data if isinstance(x, Tensor) else x for x in operands]
        raise _not_implemented_for(kernel, result_numpy_dtype(arrays))


def check_no_requires_grad(tensor: Tensor | None, name: str, function: str) -> None:
    """PyTorch's check on a tensor argument its derivative formula does not cover: with grad
    mode on, it must not require grad (the error names PyTorch's function and argument)."""
    if tensor is not None and tensor._requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{function}' is not differentiable with respect to argument "
            f"'{name}'. This input cannot have requires_grad True."
        )


def _check_tensor_other(other: Any, op: str) -> Tensor:
    return check_tensor(other, op, "other", 2)


def _binary(op: str, a: Any, b: Any, fn: Any) -> np.ndarray:
    """``fn(a, b)`` (a NumPy ufunc or a composite of them) in the layout PyTorch's
    TensorIterator gives it; a broadcast failure named as PyTorch names it."""
    try:
        return like_operands(np.asarray(fn(a, b)), (a, b))
    except ValueError:
        raise broadcast_error(op, a, b) from None


_ABSENT = object()


def _not_implemented_node(
    op: str, compute: Any, name: str | None = None, aten: bool = True
) -> type[Op]:
    """PyTorch's ``NotImplemented`` grad_fn: the output is recorded, its backward raises.

    Tensor operands are positional; as in PyTorch, only those that require grad are graph
    edges (``Op.edges_of_grad_inputs_only``, out of place and in place). A Python-number
    operand is passed as ``before=`` or ``after=``.

    With ``name``, the node is instead one PyTorch generates for a ``not_implemented``
    formula (``GeqrfBackward0``): an ordinary node whose backward raises NotImplementedError.
    ``aten=False``: PyTorch's message names the op without its ``aten::`` namespace (set_).
    """
    if name is not None:
        return _named_not_implemented_node(op, compute, name)

    def forward(self: Op, *arrays: Any, before: Any = _ABSENT, after: Any = _ABSENT) -> Any:
        return compute(*(v for v in (before, *arrays, after) if v is not _ABSENT))

    def backward(self: Op, F: Any, grad: Any) -> Any:
        raise RuntimeError(f"derivative for {type(self).aten_name} is not implemented")

    def apply(cls: type, *inputs: Any, **params: Any) -> Any:
        result = Op.apply.__func__(cls, *inputs, **params)
        node = result._node
        if type(node) is cls:
            drop_edges_without_grad(node)  # edges_of_grad_inputs_only (in place: apply_inplace)
            # PyTorch gives NotImplemented nodes the largest sequence number: the backward
            # reaches them, and raises, before the nodes recorded after them.
            node._seq = ACCUMULATE_PRIORITY
        return result

    return type(
        "NotImplemented",
        (Op,),
        {
            "__slots__": (),
            "forward": forward,
            "backward": backward,
            "apply": classmethod(apply),
            "records_out": True,
            "edges_of_grad_inputs_only": True,
            "cpp_node": True,  # PyTorch's C++ class: name() is qualified
            "aten_name": f"{'aten::' if aten else ''}{op}",
            "__doc__": f"{op}: no gradient",
        },
    )


def in_place(node: type[Op]) -> type[Op]:
    """The NotImplemented node of the in-place variant of ``node``'s op (``floor_divide_``):
    the same node, whose backward's error names the in-place op, as PyTorch's does."""
    return type("NotImplemented", (node,), {"__slots__": (), "aten_name": node.aten_name + "_"})


def computed_result(*arrays: np.ndarray) -> np.ndarray:
    """A not-implemented node's ``compute`` for a result computed before recording (passed
    last, as ``after=``): the op's other results and its error checks need the arrays first."""
    return arrays[-1]


def _named_not_implemented_node(op: str, compute: Any, name: str) -> type[Op]:
    def forward(self: Op, *arrays: Any, after: Any = _ABSENT) -> Any:
        return compute(*arrays) if after is _ABSENT else compute(*arrays, after)

    def backward(self: Op, F: Any, grad: Any) -> Any:
        raise NotImplementedError(f"the derivative for '{op}' is not implemented.")

    return type(
        name,
        (Op,),
        {
            "__slots__": (),
            "forward": forward,
            "backward": backward,
            "__doc__": f"{op}: no gradient",
        },
    )


def _apply_not_implemented(node: type, input: Any, other: Any) -> Tensor:
    if not isinstance(input, Tensor):
        return node.apply(other, before=input)
    if not isinstance(other, Tensor):
        return node.apply(input, after=other)
    return node.apply(input, other)


def refuse_complex_autograd(name: str, *tensors: Any) -> None:
    """PyTorch's error for an op whose autograd has no complex formula, where it would
    record one (grad mode on, a complex input that requires grad); the forward alone
    computes."""
    for t in tensors:
        if t._data.dtype.kind == "c" and t.requires_grad and is_grad_enabled():
            raise RuntimeError(
                f"{name} does not support automatic differentiation for outputs with complex dtype."
            )
