"""Views and shape ops of the core set: view, reshape, transpose, t, permute, squeeze,
unsqueeze, unbind, cat, stack. Views share storage and version counter; expand and
sum_to_size are in ``broadcasting.py``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import result_numpy_dtype
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, varargs_or_keyword, wrap_dim
from ._namespace import ArrayNamespace
from ._registry import Sample, register
from ._samples import randn


def _shape_arg(shape: tuple) -> tuple:
    """``view(2, 3)`` and ``view((2, 3))`` alike."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(map(int, shape))


def _shape_or_keyword(op: str, args: tuple, value: Any, name: str) -> tuple:
    """The sizes given as varargs (``view(2, 3)``, ``view((2, 3))``) or by keyword
    (``view(size=(2, 3))``), as PyTorch's overloads take them."""
    return _shape_arg(varargs_or_keyword(op, args, value, name))


def _view_as_dtype(input: Tensor, dtype: Any) -> Tensor:
    """``view(dtype)``: the same bytes read as another dtype (the last dim rescaled when the
    item sizes differ, as PyTorch)."""
    data = input._data
    target = dtype.numpy
    if target == data.dtype:
        return ViewBackward0.apply(input, shape=data.shape)
    if target.itemsize != data.dtype.itemsize:
        if data.ndim == 0 or (data.strides[-1] != data.itemsize and data.shape[-1] != 1):
            raise RuntimeError(
                "self.stride(-1) must be 1 to view "
                f"{input.dtype} as {dtype} (different element sizes), but got "
                f"{data.strides[-1] // data.itemsize}"
            )
    try:
        return Tensor._from_array(data.view(target))
    except ValueError:
        raise RuntimeError(
            f"self.size(-1) must be divisible by {target.itemsize // data.itemsize} to view "
            f"{input.dtype} as {dtype} (different element sizes), but got {data.shape[-1]}"
        ) from None


def _infer_shape(op: str, shape: tuple, numel: int) -> tuple:
    """Resolve one -1 in ``shape``; PyTorch's error if the sizes don't fit."""
    if -1 in shape:
        if shape.count(-1) > 1:
            raise RuntimeError(f"{op}: only one dimension can be inferred")
        known = math.prod([s for s in shape if s != -1])
        if known and not numel % known:
            return tuple(numel // known if s == -1 else s for s in shape)
    elif math.prod(shape) == numel:  # nothing to infer: one product (every view pays this)
        return shape
    raise RuntimeError(f"{op}: shape '{list(shape)}' is invalid for input of size {numel}")


class ViewBackward0(Op):
    shape: Any
    __slots__ = ("shape",)
    is_view = True

    def forward(self, x: Any, shape: Any) -> Any:
        self.shape = x.shape
        shape = _infer_shape("view", shape, x.size)
        try:
            out = x.view()
            out.shape = shape  # raises instead of copying when strides don't allow a view
        except AttributeError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        return F.reshape(grad, self.shape)


class UnsafeViewBackward0(Op):
    """The reshape of a contiguous copy (``reshape`` of a non-contiguous input)."""

    shape: Any

    __slots__ = ("shape",)

    def forward(self, x: Any, shape: Any) -> Any:
        self.shape = x.shape
        return np.reshape(x, shape)

    def backward(self, F: Any, grad: Any) -> Any:
        return F.reshape(grad, self.shape)


def unsafe_view(input: Tensor, shape: tuple[int, ...]) -> Tensor:
    """The reshape of a result that nothing else sees (PyTorch's ``_unsafe_view``): not a
    view in the graph, so nothing is shared with the temporary it reshapes."""
    return UnsafeViewBackward0.apply(input, shape=tuple(shape))


def view(input: Tensor, *args: Any, size: Any = None, dtype: Any = None) -> Tensor:
    """The same data with another shape (no copy; fails when strides don't allow it):
    ``view(2, 3)``, ``view((2, 3))``, ``view(size=(2, 3))``; or the same bytes as another
    dtype, ``view(glassgrad.int32)``.

    Example::

        >>> glassgrad.arange(6.0).view(2, 3).shape
        glassgrad.Size([2, 3])
    """
    check_tensor(input, "view")
    if dtype is not None or (len(args) == 1 and isinstance(args[0], _dtype.dtype)):
        if dtype is not None and args:
            raise TypeError("view() got multiple values for argument 'dtype'")
        return _view_as_dtype(input, dtype if dtype is not None else args[0])
    return ViewBackward0.apply(input, shape=_shape_or_keyword("view", args, size, "size"))


def reshape(input: Tensor, *args: Any, shape: Any = None) -> Tensor:
    """The data with another shape: a view when possible, else a copy.

    Example::

        >>> glassgrad.arange(6.0).reshape(3, -1).shape
        glassgrad.Size([3, 2])
    """
    check_tensor(input, "reshape")
    shape = _shape_or_keyword("reshape", args, shape, "shape")
    shape = _infer_shape("reshape", shape, input._data.size)
    if shape == input._data.shape:
        return ViewBackward0.apply(input, shape=shape)
    try:
        return ViewBackward0.apply(input, shape=shape)
    except RuntimeError:
        # PyTorch: a contiguous clone, then an unsafe view of it.
        from .conversion import clone

        return UnsafeViewBackward0.apply(clone(input), shape=shape)


class TransposeBackward0(Op):
    dim0: Any
    dim1: Any
    __slots__ = ("dim0", "dim1")
    is_view = True

    def forward(self, x: Any, dim0: Any, dim1: Any) -> Any:
        self.dim0, self.dim1 = dim0, dim1
        return np.swapaxes(x, dim0, dim1) if x.ndim else x.view()

    def backward(self, F: Any, grad: Any) -> Any:
        return F.transpose(grad, self.dim0, self.dim1) if grad.ndim else grad


class TBackward0(Op):
    is_view = True

    def forward(self, x: Any) -> Any:
        return x.T

    def backward(self, F: Any, grad: Any) -> Any:
        return F.t(grad) if grad.ndim == 2 else grad


class PermuteBackward0(Op):
    dims: Any
    __slots__ = ("dims",)
    is_view = True

    def forward(self, x: Any, dims: Any) -> Any:
        self.dims = dims
        return np.transpose(x, dims)

    def backward(self, F: Any, grad: Any) -> Any:
        return F.permute(grad, tuple(np.argsort(self.dims)))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dimensions ``dim0`` and ``dim1`` (a view).

    Example::

        >>> glassgrad.zeros(2, 3).transpose(0, 1).shape
        glassgrad.Size([3, 2])
    """
    n = check_tensor(input, "transpose")._data.ndim
    return TransposeBackward0.apply(
        input, dim0=wrap_dim(dim0, n, "transpose"), dim1=wrap_dim(dim1, n, "transpose")
    )


def t(input: Tensor) -> Tensor:
    """Transpose of a tensor of at most 2 dimensions.

    Example::

        >>> glassgrad.zeros(2, 3).t().shape
        glassgrad.Size([3, 2])
    """
    n = check_tensor(input, "t")._data.ndim
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return TBackward0.apply(input)


def permute(input: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """Reorder the dimensions (a view).

    Example::

        >>> glassgrad.zeros(2, 3, 4).permute(2, 0, 1).shape
        glassgrad.Size([4, 2, 3])
    """
    n = check_tensor(input, "permute")._data.ndim
    if not args and dims is None:  # PyTorch's parser: dims is required, even for a 0-d tensor
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = tuple(
        wrap_dim(d, n, "permute") for d in _shape_or_keyword("permute", args, dims, "dims")
    )
    if sorted(dims) != list(range(n)):
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal "
            f"to len(dims) = {len(dims)}"
            if len(dims) != n
            else f"permute: repeated dim in {list(dims)}"
        )
    return PermuteBackward0.apply(input, dims=dims)


def reversed_dims(input: Tensor) -> Tensor:
    """``input.T``: the dimensions in reverse order (a view, recorded as PermuteBackward0 as in
    PyTorch); the order needs none of ``permute``'s checks."""
    return PermuteBackward0.apply(input, dims=tuple(range(input._data.ndim - 1, -1, -1)))


class SqueezeBackward0(Op):
    shape: Any
    __slots__ = ("shape",)
    is_view = True

    def forward(self, x: Any, dim: Any = None) -> Any:
        self.shape = x.shape
        if dim is None:
            return np.squeeze(x)
        dims = tuple(d for d in dim if x.shape[d] == 1)
        return np.squeeze(x, axis=dims) if dims else x.view()

    def backward(self, F: Any, grad: Any) -> Any:
        return F.reshape(grad, self.shape)


class SqueezeBackward1(SqueezeBackward0):
    pass


class UnsqueezeBackward0(Op):
    dim: Any
    __slots__ = ("dim",)
    is_view = True

    def forward(self, x: Any, dim: Any) -> Any:
        self.dim = dim
        return ArrayNamespace.unsqueeze(x, dim)

    def backward(self, F: Any, grad: Any) -> Any:
        return F.squeeze(grad, self.dim)


def squeeze(input: Tensor, *args: Any, dim: Any = None) -> Tensor:
    """Remove dimensions of size 1 (all, or those in ``dim``: an int, a tuple, or several
    ints, ``squeeze(0, 1)``).

    Example::

        >>> glassgrad.zeros(2, 1, 3).squeeze().shape
        glassgrad.Size([2, 3])
    """
    n = check_tensor(input, "squeeze")._data.ndim
    if args:
        if dim is not None:
            raise TypeError("squeeze() got multiple values for argument 'dim'")
        dim = args[0] if len(args) == 1 else args
    if dim is None:
        return SqueezeBackward0.apply(input)
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    return SqueezeBackward1.apply(input, dim=tuple(wrap_dim(d, n, "squeeze") for d in dims))


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dimension of size 1 at ``dim``.

    Example::

        >>> glassgrad.zeros(3).unsqueeze(0).shape
        glassgrad.Size([1, 3])
    """
    n = check_tensor(input, "unsqueeze")._data.ndim
    return UnsqueezeBackward0.apply(input, dim=wrap_dim(dim, n + 1, "unsqueeze"))


class UnbindBackward0(Op):
    dim: Any
    __slots__ = ("dim",)
    is_view = True

    def forward(self, x: Any, dim: Any) -> Any:
        self.dim = dim
        return tuple(_select(x, dim, i) for i in range(x.shape[dim]))

    def backward(self, F: Any, grads: Any) -> Any:
        return F.stack(list(grads), self.dim)


def _select(x: np.ndarray, dim: int, index: int) -> np.ndarray:
    return x[(slice(None),) * dim + (index, Ellipsis)]


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along ``dim`` as a tuple of views.

    Example::

        >>> [t.tolist() for t in glassgrad.tensor([[1, 2], [3, 4]]).unbind(1)]
        [[1, 3], [2, 4]]
    """
    n = check_tensor(input, "unbind")._data.ndim
    if n == 0:
        raise RuntimeError("unbind: Dimension specified as 0 but tensor has no dimensions")
    return UnbindBackward0.apply(input, dim=wrap_dim(dim, n, "unbind"))


class CatBackward0(Op):
    dim: Any
    sizes: list[Any | int]
    __slots__ = ("dim", "sizes")

    @row_major
    def forward(self, *arrays: Any, dim: Any, dtype: Any = None) -> Any:
        # Mixed dtypes are promoted here, as PyTorch does, not by cast nodes on the inputs
        # (the machinery casts each gradient back to its input's dtype).
        # Legacy: 1-D empty tensors are left out of the result (every input is recorded).
        self.dim = dim
        self.sizes = [None if _skipped(a) else a.shape[dim] for a in arrays]
        kept = [a for a in arrays if not _skipped(a)] or arrays[:1]
        return np.concatenate(kept, axis=dim, dtype=dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        grads, start = [], 0
        for i, size in enumerate(self.sizes):
            if size is None:  # PyTorch's cat_tensors_backward: a fresh empty gradient
                grads.append(F.zeros((0,), self._meta[2 * i + 1]))
                continue
            key = (slice(None),) * self.dim + (slice(start, start + size),)
            grads.append(grad[key])
            start += size
        return tuple(grads)


def cat(tensors: Any, dim: int = 0) -> Tensor:
    """Concatenate tensors along an existing dimension.

    Example::

        >>> glassgrad.cat([glassgrad.zeros(2, 3), glassgrad.ones(1, 3)]).shape
        glassgrad.Size([3, 3])
    """
    tensors = [check_tensor(x, "cat", "tensors") for x in tensors]
    if not tensors:
        raise RuntimeError("cat(): expected a non-empty list of Tensors")
    # Legacy: 1-D empty tensors are skipped in the checks and the result, as PyTorch does;
    # they still take part in the dtype and in autograd.
    for i, x in enumerate(tensors):
        if x._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kept = [i for i, x in enumerate(tensors) if not _skipped(x._data)] or [0]
    ref = tensors[kept[0]]._data
    d = wrap_dim(dim, ref.ndim, "cat")
    for i in kept:
        shape = tensors[i]._data.shape
        if len(shape) != ref.ndim:
            raise RuntimeError(
                f"cat(): Tensors must have same number of dimensions: got {ref.ndim} and "
                f"{len(shape)}"
            )
        for axis, (s, r) in enumerate(zip(shape, ref.shape)):
            if axis != d and s != r:
                raise RuntimeError(
                    f"cat(): Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{r} but got size {s} for tensor number {i} in the list."
                )
    from .._dtype import result_numpy_dtype

    dtype = result_numpy_dtype([x._data for x in tensors])
    return CatBackward0.apply(*tensors, dim=d, dtype=dtype)


def _skipped(a: np.ndarray) -> bool:
    """A 1-D empty tensor, which cat leaves out (PyTorch's legacy rule)."""
    return a.ndim == 1 and a.size == 0


class StackBackward0(Op):
    count: int
    dim: Any
    __slots__ = ("dim", "count")

    @row_major
    def forward(self, *arrays: Any, dim: Any) -> Any:
        self.dim, self.count = dim, len(arrays)
        return np.stack(arrays, axis=dim, dtype=result_numpy_dtype(arrays))

    def backward(self, F: Any, grad: Any) -> Any:
        lead = (slice(None),) * self.dim
        return tuple(grad[lead + (i, Ellipsis)] for i in range(self.count))


def stack(tensors: Any, dim: int = 0) -> Tensor:
    """Join tensors of equal shape along a new dimension.

    Example::

        >>> glassgrad.stack([glassgrad.zeros(3), glassgrad.ones(3)]).shape
        glassgrad.Size([2, 3])
    """
    tensors = [check_tensor(x, "stack", "tensors") for x in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._data.shape
    for i, x in enumerate(tensors):
        if x._data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                f"and {list(x._data.shape)} at entry {i}"
            )
    d = wrap_dim(dim, len(shape) + 1, "stack")
    return StackBackward0.apply(*tensors, dim=d)


def _view_samples(rng: np.random.Generator) -> list[Sample]:
    return [Sample((randn(rng, 2, 3, 4), (6, 4))), Sample((randn(rng, 2, 3), (-1,)))]


register("view", view, nodes=(ViewBackward0,), samples=_view_samples)


register(
    "reshape",
    reshape,
    nodes=(ViewBackward0, UnsafeViewBackward0),
    samples=lambda rng: [*_view_samples(rng), Sample((randn(rng, 4, 3).T, (12,)))],
)


register(
    "transpose",
    transpose,
    nodes=(TransposeBackward0,),
    methods=("transpose",),
    samples=lambda rng: [Sample((randn(rng, 2, 3, 4), 0, 2)), Sample((randn(rng, 2, 3), -1, 0))],
)


register(
    "t",
    t,
    nodes=(TBackward0,),
    samples=lambda rng: [Sample((randn(rng, 2, 3),)), Sample((randn(rng, 3),))],
)


register(
    "permute",
    permute,
    nodes=(PermuteBackward0,),
    samples=lambda rng: [Sample((randn(rng, 2, 3, 4), (2, 0, 1)))],
)


register(
    "squeeze",
    squeeze,
    nodes=(SqueezeBackward0, SqueezeBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 2, 1, 3, 1),)),
        Sample((randn(rng, 2, 1, 3), 1)),
        Sample((randn(rng, 2, 1, 3), 0)),
    ],
)


register(
    "unsqueeze",
    unsqueeze,
    nodes=(UnsqueezeBackward0,),
    samples=lambda rng: [Sample((randn(rng, 2, 3), 1)), Sample((randn(rng, 2, 3), -1))],
)


register(
    "unbind",
    unbind,
    nodes=(UnbindBackward0,),
    samples=lambda rng: [Sample((randn(rng, 3, 4),)), Sample((randn(rng, 3, 4), 1))],
)


register(
    "cat",
    cat,
    nodes=(CatBackward0,),
    methods=(),
    samples=lambda rng: [
        Sample(([randn(rng, 2, 3), randn(rng, 1, 3)],)),
        Sample(([randn(rng, 2, 3), randn(rng, 2, 2)], 1)),
    ],
)


register(
    "stack",
    stack,
    nodes=(StackBackward0,),
    methods=(),
    samples=lambda rng: [
        Sample(([randn(rng, 2, 3), randn(rng, 2, 3)],)),
        Sample(([randn(rng, 2, 3), randn(rng, 2, 3)], -1)),
    ],
)
