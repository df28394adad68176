"""``x[key] = value`` and ``index_put(_)``: a view of the target plus ``copy_`` (so the base
gets CopySlices), advanced keys through IndexPutBackward0. Reading, ``x[key]``, is in
``indexing.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import checked_scalar, scalar_type_name, tensor_type_name
from .._tensor import Tensor
from ..autograd.kernel_order import stopped, write_at_in_order
from ..autograd.op import Op, apply_inplace, keep_versions
from ._common import check_tensor
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .indexing import (
    SelectBackward0,
    SliceBackward0,
    _normalize_key,
    _release_index_key,
    _split_key,
)


class IndexPutBackward0(Op):
    """x[key] = values (or += with accumulate), written into x. ``cast``: a single-element
    value set through one boolean mask is cast, as PyTorch's masked_fill_ path casts it."""

    accumulate: Any
    key: Any

    refuses_full_overlap = True
    # PyTorch's index_put_ checks the overlap before it validates the indices (make_info)
    # and runs its kernel: an invalid key with the target as value raises the overlap error.
    errors_after_overlap = "all"

    __slots__ = ("key", "accumulate")
    overlap_warning = (
        "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
        "performing this operation. This also applies to advanced indexing e.g. "
        "tensor[indices] = tensor"
    )

    def forward(
        self,
        x: Any,
        values: Any,
        key: Any,
        accumulate: Any = False,
        cast: Any = False,
        invalid: Any = None,
    ) -> Any:
        # ``invalid``: the error of an index that does not fit (_split_key's ``deferred``,
        # or the key's own); a mask's is make_info's, before the kernel; an index out of
        # bounds is found by the kernel, after the value's shape is checked against the
        # result's.
        if invalid is not None and invalid[0] != "bounds":
            raise invalid[1]
        self.key, self.accumulate = key, accumulate
        if cast:
            values = np.asarray(values).astype(x.dtype)
        if isinstance(values, np.ndarray) and values.dtype != x.dtype:
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{scalar_type_name(x.dtype)} for the destination and "
                f"{scalar_type_name(values.dtype)} for the source."
            )
        out = x.copy()
        values = np.asarray(values, dtype=x.dtype) if not isinstance(values, np.ndarray) else values
        try:
            if accumulate:
                np.add.at(out, key, values)
            else:
                out[key] = values
        except ValueError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(np.shape(values))} cannot be "
                f"broadcast to indexing result of shape {list(x[key].shape)}"
            ) from None
        if invalid is not None:
            raise _out_of_bounds(x, key, values, accumulate, invalid[1:])
        return out

    @staticmethod
    def write_overlapping(
        data: np.ndarray,
        values: Any,
        key: Any,
        accumulate: bool = False,
        cast: bool = False,
        invalid: Any = None,
    ) -> None:
        write_at_in_order(data, key, values, np.add if accumulate else None)

    def backward(self, F: Any, grad: Any) -> Any:
        grad_values = grad[self.key] if self.needs_input_grad[1] else None
        if self.accumulate:
            return grad, grad_values
        mask = np.ones(grad.shape, dtype=bool)
        mask[self.key] = False
        # PyTorch writes zeros over the overwritten elements: a NaN gradient there is 0 too
        return F.where(mask, grad, 0.0), grad_values

    def _release(self) -> None:
        _release_index_key(self)


def _out_of_bounds(x: np.ndarray, key: tuple, values: Any, accumulate: bool, bad: tuple) -> Any:
    """The error of PyTorch's index_put kernel at its first index out of bounds (``bad``:
    each such index tensor as ``_split_key`` defers it), having written the elements before
    it in its order: each element checks the index tensors in turn ("dimension" counts
    them)."""
    shape = x.shape
    laid = []  # each bad index tensor's values laid out as the indexing result
    for position, index, size in (entry for _, _, entry in bad):
        sizes = list(shape)
        sizes[position] = index.size
        spread = [-1 if d == position else 1 for d in range(len(shape))]
        values_along = np.broadcast_to(index.reshape(spread), sizes)
        along = list(key)
        along[position] = np.arange(index.size).reshape(index.shape)
        laid.append((position, values_along[tuple(along)], size))
    outside = [(v >= size) | (v < -size) for _, v, size in laid]
    stop = np.logical_or.reduce(outside)

    def write(data: np.ndarray) -> Any:
        return write_at_in_order(data, key, values, np.add if accumulate else None, stop=stop)

    first = write(np.empty_like(x))  # where the kernel stops: its first element out of bounds
    position, v, size = next(entry for entry, out in zip(laid, outside) if out[first])
    ordinal = sum(isinstance(k, np.ndarray) for k in key[:position])
    error = IndexError(
        f"index {v[first]} is out of bounds for dimension {ordinal} with size {size}"
    )
    return stopped(error, write)


class _MaskedFillIndexPut(IndexPutBackward0):
    """``index_put_`` that PyTorch hands to ``masked_fill_`` with ``value.item()``
    (``_dispatches_to_masked_fill``): the value is cast, and read before the write, so it may
    lie in the target's memory. Recorded as IndexPutBackward0 all the same."""

    __slots__ = ()
    checks_source_overlap = False


_MaskedFillIndexPut.__name__ = _MaskedFillIndexPut.__qualname__ = "IndexPutBackward0"


def _dispatches_to_masked_fill(key: tuple, value: Any, accumulate: bool) -> bool:
    """PyTorch's ``canDispatchToMaskedFill``: without accumulate, a one-element value written
    through exactly one index tensor, a boolean mask (the other indices basic)."""
    if accumulate or np.size(value._data if isinstance(value, Tensor) else value) != 1:
        return False
    tensors = [k for k in key if isinstance(k, np.ndarray)]
    return len(tensors) == 1 and tensors[0].dtype == np.bool_ and tensors[0].ndim > 0


class _TooManyIndices(IndexPutBackward0):
    """``index_put_`` given more index tensors than the target has dims: PyTorch's
    ``_index_put_impl_`` refuses it after the autograd checks, before the overlap checks."""

    __slots__ = ()
    errors_after_overlap = "none"


def _invalid(deferred: list) -> Any:
    """The key's error: a mask's (make_info's, before the kernel), else every index out of
    bounds (``("bounds", *entries)``, found by the kernel), else None."""
    for entry in deferred:
        if entry[0] != "bounds":
            return entry
    return ("bounds", *deferred) if deferred else None


def _check_arguments(op: str, input: Any, indices: Any, values: Any, accumulate: Any) -> None:
    """index_put(_)'s arguments as PyTorch's parser takes them: a sequence of tensors only
    (None, numbers and slices are ``x[key] = v``'s), a tensor value, a bool."""
    check_tensor(input, op)
    if isinstance(indices, Tensor) or not isinstance(indices, (list, tuple)):
        raise TypeError(
            f"{op}(): argument 'indices' (position 2) must be tuple of Tensors, not "
            f"{type(indices).__name__}"
        )
    for i, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 1, but got {type(index).__name__}"
            )
    check_tensor(values, op, "values", 3)
    if not isinstance(accumulate, (bool, np.bool_)):
        raise TypeError(
            f"{op}(): argument 'accumulate' (position 4) must be bool, not "
            f"{type(accumulate).__name__}"
        )


def index_put_(
    input: Tensor, indices: tuple[Any, ...], values: Any, accumulate: bool = False
) -> Tensor:
    """In place, ``input[indices] = values`` (``+=`` with ``accumulate``, which sums repeats).
    ``indices``: a tuple of index tensors (integer or boolean), one per leading dim.

    Example::

        >>> x = glassgrad.zeros(3)
        >>> x.index_put_((glassgrad.tensor([0, 0]),), glassgrad.tensor(1.0), accumulate=True)
        tensor([2., 0., 0.])
    """
    _check_arguments("index_put_", input, indices, values, accumulate)
    return _index_put(input, tuple(indices), values, bool(accumulate))


def _index_put(input: Tensor, indices: tuple, values: Tensor, accumulate: bool) -> Tensor:
    # PyTorch's order: the autograd checks (apply_inplace), the count of indices, the
    # overlap checks, then each index (make_info), then the kernel's bounds check.
    if len(indices) > input.dim():
        error = IndexError(
            f"too many indices for tensor of dimension {input.dim()} (got {len(indices)})"
        )
        return apply_inplace(_TooManyIndices, input, values, key=(), invalid=("count", error))
    deferred: list = []
    try:
        normalized = _normalize_key(indices)
        _, key = _split_key(input, normalized, deferred)
    except IndexError as error:
        return apply_inplace(IndexPutBackward0, input, values, key=(), invalid=("index", error))
    key = key if key is not None else normalized
    invalid = _invalid(deferred)
    if invalid is None and _dispatches_to_masked_fill(normalized, values, accumulate):
        result = apply_inplace(_MaskedFillIndexPut, input, values, key=key, cast=True)
    else:
        result = apply_inplace(
            IndexPutBackward0, input, values, key=key, accumulate=accumulate, invalid=invalid
        )
    # PyTorch saves the index tensors (masked_fill_ its mask): one changed in place before
    # the backward raises instead of moving the gradient.
    return keep_versions(result, *indices)


def index_put(
    input: Tensor, indices: tuple[Any, ...], values: Any, accumulate: bool = False
) -> Tensor:
    """Out-of-place ``index_put_``.

    Example::

        >>> glassgrad.zeros(3).index_put((glassgrad.tensor([1]),), glassgrad.tensor(5.0))
        tensor([0., 5., 0.])
    """
    _check_arguments("index_put", input, indices, values, accumulate)
    return _index_put(input.clone(), tuple(indices), values, bool(accumulate))


def _setitem_number(input: Tensor, value: Any) -> np.ndarray:
    """The value of ``input[key] = value`` that is not a tensor, as PyTorch's
    ``valueToTensor``: a Python or NumPy integer, a bool, a float (``np.float64`` is one) or a
    complex number, converted with c10's checked conversion; anything else (a list, a tuple of
    tensors, an array, ``np.float32``) is a TypeError."""
    dtype = input._data.dtype
    if isinstance(value, (bool, np.integer)):
        value = int(value)
    elif not isinstance(value, (int, float, complex)):
        what = type(value)
        # CPython's tp_name: a built-in type is named with its module (numpy.ndarray)
        name = what.__name__
        if not what.__flags__ & _HEAP_TYPE and what.__module__ != "builtins":
            name = f"{what.__module__}.{name}"
        raise TypeError(f"can't assign a {name} to a {tensor_type_name(dtype)}")
    value = checked_scalar(value, dtype, "index_put_")
    if isinstance(value, complex) and dtype.kind != "c":
        value = value.real  # its imaginary part is 0: checked_scalar refuses any other
    return np.asarray(value, dtype=dtype)


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python


def _one_basic_key(input: Tensor, key: Any) -> Tensor | None:
    """The view ``_split_key`` makes for a key of one int or slice that fits (x[i], x[a:b],
    without its key walk), or None for any other key."""
    shape = input._data.shape
    if not shape:
        return None
    if type(key) is int:
        size = shape[0]
        return (
            SelectBackward0.apply(input, dim=0, index=key % size) if -size <= key < size else None
        )
    if type(key) is not slice or (key.step is not None and key.step <= 0):
        return None
    size = shape[0]
    if key.start in (None, 0) and key.step in (None, 1) and (key.stop is None or key.stop >= size):
        return input  # as _split_key: a slice that keeps everything is no view
    start, stop, step = key.indices(size)
    return SliceBackward0.apply(input, dim=0, start=start, end=max(stop, start), step=step)


def _without_leading_ones(value: Tensor) -> tuple:
    """PyTorch's ``slicePrefix1sSize``: the value's shape without its leading 1s."""
    shape = tuple(value.shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def setitem(input: Tensor, key: Any, value: Any) -> None:
    """``input[key] = value``: records CopySlices (or IndexPutBackward0) on ``input``."""
    if not isinstance(value, Tensor):  # PyTorch converts the value before it reads the key
        value = _setitem_number(input, value)
    view = _one_basic_key(input, key)
    if view is None:
        normalized = _normalize_key(key)
        deferred: list = []
        view, advanced = _split_key(input, normalized, deferred)
    else:
        advanced = None
    if advanced is not None:
        if isinstance(value, Tensor) and value.dim() and value.shape[0] == 1:
            # PyTorch's set_item writes a view of the value without its leading 1s: another
            # tensor, so an empty one is no longer the target itself (no overlap: seed 847305)
            value = value.view(_without_leading_ones(value))
        invalid = _invalid(deferred)
        if invalid is None and _dispatches_to_masked_fill(normalized, value, False):
            result = apply_inplace(_MaskedFillIndexPut, view, value, key=advanced, cast=True)
        else:
            result = apply_inplace(IndexPutBackward0, view, value, key=advanced, invalid=invalid)
        # As index_put_: the index tensors of the key are saved (a 0-d integer one is a
        # select, not an index), so one changed in place before the backward raises.
        keys = key if isinstance(key, tuple) else (key,)
        keep_versions(result, *(k for k in keys if isinstance(k, Tensor) and k.dim()))
        return
    from .conversion import copy_, fill_

    # PyTorch's copy_to: a 0-d tensor of another shape fills (FillBackward3, which also
    # records on an integer target), anything else is copied.
    if isinstance(value, Tensor) and value.dim() == 0 and view.dim() != 0:
        fill_(view, value)
        return
    if isinstance(value, Tensor) and value.shape != view.shape:
        # PyTorch's copy_to: the value without its leading 1s, expanded to the target's
        # shape, then copy_; an expanded value has no dense memory, so copy_ checks no
        # overlap with it (v[None] = v[1:2]), and the very same memory returns early.
        value = value.view(_without_leading_ones(value)).expand(tuple(view.shape))
    copy_(view, value)


register(
    "index_put",
    index_put,
    nodes=(IndexPutBackward0,),
    samples=lambda rng: [
        Sample((NoGrad(randn(rng, 4, 3)), [np.array([0, 2])], randn(rng, 2, 3))),
        Sample((randn(rng, 4, 3), [np.array([0, 0])], randn(rng, 3)), {"accumulate": True}),
    ],
    torch=lambda torch, x, idx, v, accumulate=False: x.index_put(
        tuple(torch.as_tensor(i) for i in idx), v, accumulate=accumulate
    ),
)
