"""Ops indexed by a boolean mask: masked_fill (and masked_fill_), masked_select and
masked_scatter, each the other's gradient partner.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import checked_scalar, scalar_type_name
from .._tensor import Tensor
from ..autograd.kernel_order import stopped, write_at_in_order
from ..autograd.op import Op, apply_inplace
from ._common import array_of, broadcast_error, check_tensor, operand_array
from ._registry import Sample, register
from ._samples import randn

__all__ = ["masked_fill", "masked_select", "masked_scatter"]


# --- masked_fill, masked_select, masked_scatter -----------------------------------------


def _mask_array(mask: Any, op: str) -> np.ndarray:
    array = operand_array(mask, op.rstrip(":_"), "mask", 1)
    if array.dtype != np.bool_:
        kind = {"f": "float", "i": "long", "u": "unsigned char"}.get(array.dtype.kind, array.dtype)
        raise RuntimeError(f"{op} only supports boolean masks, but got mask with dtype {kind}")
    return array


def _broadcast_shape(op: str, a: np.ndarray, b: np.ndarray) -> tuple:
    try:
        return np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error(op, a, b) from None


_MASKED_FILL_OVERLAP = (
    "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar"
)


class MaskedFillBackward0(Op):
    """out = input with ``value`` (a number) where ``mask`` is true"""

    mask: Any

    __slots__ = ("mask",)
    overlap_warning = _MASKED_FILL_OVERLAP

    @staticmethod
    def write_overlapping(data: np.ndarray, mask: np.ndarray, value: Any) -> None:
        data[np.broadcast_to(mask, data.shape)] = value

    def forward(self, x: Any, mask: Any, value: Any) -> Any:
        self.mask = mask
        return np.where(mask, np.asarray(value).astype(x.dtype), x)

    def backward(self, F: Any, grad: Any) -> Any:
        # derivatives.yaml: grad.masked_fill(mask, 0), a MaskedFillBackward0 under create_graph
        return MaskedFillBackward0.call(grad, mask=self.mask, value=0.0)


def masked_zero(value: Any, mask: np.ndarray) -> Any:
    """``value.masked_fill(mask, 0)`` inside a backward formula (PyTorch's formulas mask
    with masked_fill_): a MaskedFillBackward0 under create_graph, the values on arrays."""
    return MaskedFillBackward0.call(value, mask=mask, value=0.0)


class MaskedFillBackward1(Op):
    """out = input with the 0-d tensor ``value`` where ``mask`` is true (PyTorch's kernel
    reads ``value.item()`` first, so the value may lie in the input's memory)"""

    mask: Any

    __slots__ = ("mask",)
    overlap_warning = _MASKED_FILL_OVERLAP
    checks_source_overlap = False

    @staticmethod
    def write_overlapping(data: np.ndarray, value: Any, mask: np.ndarray) -> None:
        data[np.broadcast_to(mask, data.shape)] = value

    def forward(self, x: Any, value: Any, mask: Any) -> Any:
        self.mask = mask
        return np.where(mask, value.astype(x.dtype), x)

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_self = F.where(self.mask, 0.0, grad) if needs[0] else None
        return grad_self, (F.where(self.mask, grad, 0.0) if needs[1] else None)


def _masked_fill_args(op: str, input: Tensor, mask: Any, value: Any) -> np.ndarray:
    m = _mask_array(mask, op)
    _broadcast_shape(op, m, input._data)
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(
            f"{op} only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    return m


def masked_fill(input: Tensor, mask: Any, value: Any) -> Tensor:
    """``input`` with ``value`` where the boolean ``mask`` (broadcast) is true.

    Example::

        >>> x = glassgrad.tensor([1.0, -2.0, 3.0])
        >>> x.masked_fill(x < 0, 0.0)
        tensor([1., 0., 3.])
    """
    m = _masked_fill_args("masked_fill_", check_tensor(input, "masked_fill"), mask, value)
    if isinstance(value, Tensor):
        return MaskedFillBackward1.apply(input, value, mask=m)
    value = checked_scalar(value, input._data.dtype, "masked_fill")
    return MaskedFillBackward0.apply(input, mask=m, value=value)


def masked_fill_(input: Tensor, mask: Any, value: Any) -> Tensor:
    """In-place ``masked_fill`` (the mask must broadcast to ``input``'s shape)."""
    m = _masked_fill_args("masked_fill_", check_tensor(input, "masked_fill_"), mask, value)
    if isinstance(value, Tensor):
        return apply_inplace(MaskedFillBackward1, input, value, mask=m)
    value = checked_scalar(value, input._data.dtype, "masked_fill_")
    return apply_inplace(MaskedFillBackward0, input, mask=m, value=value)


class MaskedSelectBackward0(Op):
    """out = 1-D tensor of the entries of input (broadcast with mask) where mask is true"""

    mask: np.ndarray

    saved_inputs: tuple[int, ...] = (0,)  # unread, but saved as PyTorch saves it (in-place checks)
    __slots__ = ("mask",)

    def forward(self, x: Any, mask: Any) -> Any:
        shape = np.broadcast_shapes(x.shape, mask.shape)
        self.mask = np.broadcast_to(mask, shape)
        return np.broadcast_to(x, shape)[self.mask]

    def backward(self, F: Any, grad: Any) -> Any:
        zeros = np.zeros(self.mask.shape, dtype=array_of(grad).dtype)
        return MaskedScatterBackward0.call(zeros, grad, mask=self.mask)


class MaskedScatterBackward0(Op):
    """out = input with the first entries of ``source`` written where ``mask`` is true"""

    mask: np.ndarray

    source_sizes: Any

    __slots__ = ("mask", "source_sizes")

    @staticmethod
    def write_overlapping(data: np.ndarray, source: Any, mask: np.ndarray) -> None:
        # PyTorch's kernel walks the mask in row-major order (enforce_linear_iteration)
        mask = np.broadcast_to(mask, data.shape)
        write_at_in_order(data, (mask,), source.reshape(-1)[: int(mask.sum())])

    def forward(self, x: Any, source: Any, mask: Any) -> Any:
        self.mask = np.broadcast_to(mask, x.shape)
        self.source_sizes = source.shape
        if source.size < np.count_nonzero(self.mask):
            # PyTorch's kernel finds it on the first true element past the source's end,
            # having written the ones before it (row-major order)
            written = self.mask & (np.cumsum(self.mask).reshape(x.shape) <= source.size)

            def write(data: np.ndarray) -> None:
                write_at_in_order(data, (written,), source.reshape(-1))

            error = RuntimeError("Number of elements of source < number of ones in mask")
            raise stopped(error, write)
        out = x.copy()
        out[self.mask] = source.reshape(-1)[: int(self.mask.sum())]
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_self = grad_source = None
        if needs[0]:  # derivatives.yaml: grad.masked_fill(mask, 0)
            grad_self = MaskedFillBackward0.call(grad, mask=self.mask, value=0.0)
        if needs[1]:
            grad_source = MaskedScatterBackwardBackward0.call(
                grad, mask=self.mask, sizes=self.source_sizes
            )
        return grad_self, grad_source


class MaskedScatterBackwardBackward0(Op):
    """PyTorch's ``masked_scatter_backward(grad, mask, sizes)``: the masked entries of
    ``grad`` in row-major order, zero-padded to the source's size. Its derivative is
    ``zeros_like(grad).masked_scatter(mask, gg)``."""

    mask: np.ndarray
    __slots__ = ("mask",)

    def forward(self, grad: Any, mask: Any, sizes: Any) -> Any:
        self.mask = mask
        selected = grad[mask]
        numel = math.prod(sizes)
        if numel != selected.size:
            selected = np.concatenate((selected, np.zeros(numel - selected.size, grad.dtype)))
        return selected.reshape(sizes)

    def backward(self, F: Any, gg: Any) -> Any:
        zeros = np.zeros(self.mask.shape, array_of(gg).dtype)
        return MaskedScatterBackward0.call(zeros, gg, mask=self.mask)


def masked_select(input: Tensor, mask: Any) -> Tensor:
    """The entries of ``input`` where the boolean ``mask`` is true, as a 1-D tensor (both
    are broadcast first).

    Example::

        >>> x = glassgrad.tensor([[1.0, -2.0], [-3.0, 4.0]])
        >>> x.masked_select(x > 0)
        tensor([1., 4.])
    """
    m = _mask_array(mask, "masked_select:")
    _broadcast_shape("masked_select", m, check_tensor(input, "masked_select")._data)
    return MaskedSelectBackward0.apply(input, mask=m)


def _check_scatter_source(x: np.ndarray, source: np.ndarray) -> None:
    """PyTorch's check of ``source`` against ``x`` (its kernel counts the elements)."""
    if x.dtype != source.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{scalar_type_name(x.dtype)} and {scalar_type_name(source.dtype)}"
        )


def masked_scatter(input: Tensor, mask: Any, source: Tensor) -> Tensor:
    """A copy of ``input`` with consecutive entries of ``source`` written where ``mask`` is
    true (row-major order).

    Example::

        >>> x = glassgrad.zeros(4)
        >>> x.masked_scatter(glassgrad.tensor([True, False, True, False]), glassgrad.ones(2))
        tensor([1., 0., 1., 0.])
    """
    m = _mask_array(mask, "masked_scatter_")
    x = check_tensor(input, "masked_scatter")._data
    src = check_tensor(source, "masked_scatter", "source", 3)._data
    shape = _broadcast_shape("masked_scatter", m, x)
    _check_scatter_source(x, src)
    if shape != x.shape:
        from .broadcasting import expand

        input = expand(input, shape)
    return MaskedScatterBackward0.apply(input, source, mask=m)


def masked_scatter_(input: Tensor, mask: Any, source: Tensor) -> Tensor:
    """In-place ``masked_scatter`` (the mask must broadcast to ``input``'s shape).

    Example::

        >>> x = glassgrad.zeros(4)
        >>> x.masked_scatter_(glassgrad.tensor([True, False, True, False]), glassgrad.ones(2))
        tensor([1., 0., 1., 0.])
    """
    m = _mask_array(mask, "masked_scatter_")
    x = check_tensor(input, "masked_scatter_")._data
    src = check_tensor(source, "masked_scatter_", "source", 2)._data
    if np.broadcast_shapes(m.shape, x.shape) != x.shape or m.ndim > x.ndim:
        from .broadcasting import expand

        expand(Tensor._from_array(m), x.shape)  # raises PyTorch's error
    _check_scatter_source(x, src)
    return apply_inplace(MaskedScatterBackward0, input, source, mask=m)


register(
    "masked_fill",
    masked_fill,
    nodes=(MaskedFillBackward0, MaskedFillBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) > 0, 2.5)),
        Sample((randn(rng, 3, 4), randn(rng, 4) > 0, -1.0), note="broadcast mask"),
        Sample((randn(rng, 3, 1), randn(rng, 3, 4) > 0, 0.0), note="broadcast input"),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) > 0, randn(rng)), note="tensor value"),
        Sample((randn(rng, 4, 3).T, randn(rng, 3, 4) > 0, 1.0), note="non-contiguous"),
        Sample((randn(rng), np.array(True), 1.0)),
    ],
)


register(
    "masked_select",
    masked_select,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) > 0)),
        Sample((randn(rng, 3, 1), randn(rng, 3, 4) > 0), note="broadcast input"),
        Sample((randn(rng, 3, 4), randn(rng, 4) > 0), note="broadcast mask"),
        Sample((randn(rng, 0, 4), np.zeros((0, 4), dtype=bool))),
    ],
)


register(
    "masked_scatter",
    masked_scatter,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) > 0, randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 4) > 0, randn(rng, 20)), note="broadcast mask"),
    ],
)


TENSOR_METHODS: dict[str, Any] = {
    "masked_fill_": masked_fill_,
    "masked_scatter_": masked_scatter_,
}
