"""Reshaping and splitting ops built, as PyTorch builds them, from the core views and copies:
ravel, fliplr, flipud, rot90, tensor_split, hsplit, vsplit, dsplit, diagflat,
repeat_interleave; plus diag_embed and Tensor.unfold, ops of their own (take, put, index_fill,
index_copy, select_scatter and slice_scatter are in ``indexed_copies.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._layout import contiguous_format
from .._tensor import Tensor
from ..autograd.op import Op
from ..autograd.views import own_temporary_view
from ._common import array_of, check_tensor, moveaxis, wrap_dim
from ._namespace import ArrayNamespace
from ._registry import Sample, register
from ._samples import complex_randn, randn
from .broadcasting import expand
from .complex import conj
from .conversion import clone, contiguous
from .diagonals import DiagEmbedBackward0, diag
from .gather_scatter import index_select
from .pointwise import where
from .shape import reshape, transpose, unsqueeze, view
from .shape_reorder import flip
from .shape_views import flatten, narrow


def ravel(input: Tensor) -> Tensor:
    """The elements as a 1-d tensor (a view when the layout allows).

    Example::

        >>> glassgrad.ravel(glassgrad.zeros(2, 3)).shape
        glassgrad.Size([6])
    """
    # PyTorch's ravel: a view of the contiguous tensor, of a copy when the input is not.
    return view(contiguous(check_tensor(input, "ravel")), -1)


def fliplr(input: Tensor) -> Tensor:
    """Reverse the order of the columns (dim 1).

    Example::

        >>> glassgrad.fliplr(glassgrad.tensor([[1, 2], [3, 4]]))
        tensor([[2, 1],
                [4, 3]])
    """
    if check_tensor(input, "fliplr")._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    """Reverse the order of the rows (dim 0).

    Example::

        >>> glassgrad.flipud(glassgrad.tensor([1, 2, 3]))
        tensor([3, 2, 1])
    """
    if check_tensor(input, "flipud")._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards the
    second).

    Example::

        >>> glassgrad.rot90(glassgrad.tensor([[1, 2], [3, 4]]))
        tensor([[2, 4],
                [1, 3]])
    """
    n = check_tensor(input, "rot90")._data.ndim
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = (wrap_dim(d, n, "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    k %= 4
    # PyTorch transposes the flipped copy in place (transpose_): no view of a temporary.
    if k == 1:
        return own_temporary_view(transpose(flip(input, (d1,)), d0, d1))
    if k == 2:
        return flip(input, (d0, d1))
    if k == 3:
        return own_temporary_view(transpose(flip(input, (d0,)), d0, d1))
    return clone(input, memory_format=contiguous_format)  # as PyTorch: row-major


def tensor_split(
    input: Tensor,
    *positional: Any,
    dim: int | None = None,
    sections: int | None = None,
    indices: Any = None,
    tensor_indices_or_sections: Tensor | None = None,
) -> tuple[Tensor, ...]:
    """Split into ``n`` nearly equal parts (the first ``size % n`` one element longer), or
    at the given indices; the parts are views. (PyTorch's overloads name the second
    argument ``sections``, ``indices`` or ``tensor_indices_or_sections``.)

    Example::

        >>> [t.tolist() for t in glassgrad.tensor_split(glassgrad.arange(5), 2)]
        [[0, 1, 2], [3, 4]]
    """
    check_tensor(input, "tensor_split")
    # (input, indices_or_sections, dim) by position: PyTorch has no keyword of that name.
    if len(positional) > 2 or (len(positional) == 2 and dim is not None):
        raise TypeError("tensor_split() received an invalid combination of arguments")
    indices_or_sections = positional[0] if positional else None
    dim = positional[1] if len(positional) == 2 else 0 if dim is None else dim
    given = [v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections)]
    given = [v for v in given if v is not None]
    if len(given) != 1:
        raise TypeError("tensor_split() takes one of indices_or_sections, sections or indices")
    indices_or_sections = given[0]
    if input._data.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = wrap_dim(dim, input._data.ndim, "tensor_split")
    size = input._data.shape[d]
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        if spec._data.dtype.kind not in "iu":
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have integer dtype"
            )
        spec = spec._data.tolist()
    if isinstance(spec, (int, np.integer)):
        sections = int(spec)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(size, sections)
        bounds, start = [], 0
        for i in range(sections):
            stop = start + small + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        points = [0, *[int(i) for i in spec], size]
        bounds = [(points[i], points[i + 1]) for i in range(len(points) - 1)]
    parts = []
    for start, stop in bounds:
        start = min(max(start if start >= 0 else start + size, 0), size)
        stop = min(max(stop if stop >= 0 else stop + size, start), size)
        parts.append(narrow(input, d, start, stop - start))
    return tuple(parts)


def _split_along(name: str, dim: int, minimum: int) -> Any:
    def op(input: Tensor, *args: Any, sections: Any = None, indices: Any = None) -> tuple:
        data = check_tensor(input, name)._data
        given = [*args, *(v for v in (sections, indices) if v is not None)]
        if not given:
            raise TypeError(f"{name}() missing 1 required argument: 'indices_or_sections'")
        # x.hsplit(1, 2) passes the indices one by one.
        indices_or_sections = given[0] if len(given) == 1 else list(given)
        if data.ndim < minimum:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {minimum} dimension, but got a "
                f"tensor with {data.ndim} dimensions!"
            )
        d = 0 if name == "hsplit" and data.ndim == 1 else dim
        if isinstance(indices_or_sections, (int, np.integer)):
            n = int(indices_or_sections)
            if n == 0 or data.shape[d] % n:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {d}, but the size of the "
                    f"dimension {data.shape[d]} is not divisible by the split_size {n}!"
                )
        return tensor_split(input, indices_or_sections, d)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"""``tensor_split`` along dim {dim}{" (0 for a 1-d tensor)" if name == "hsplit" else ""};
a number of sections must divide the size.

Example::

    >>> len(glassgrad.{name}(glassgrad.zeros(4, 4, 4), 2))
    2
"""
    return op


hsplit: Callable[..., Any] = _split_along("hsplit", 1, 1)


vsplit: Callable[..., Any] = _split_along("vsplit", 0, 2)


dsplit: Callable[..., Any] = _split_along("dsplit", 2, 3)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Place the last dim of ``input`` on a diagonal of two new dims (``dim1``, ``dim2`` of
    the result).

    Example::

        >>> glassgrad.diag_embed(glassgrad.tensor([1, 2]))
        tensor([[1, 0],
                [0, 2]])
    """
    n = check_tensor(input, "diag_embed")._data.ndim + 1
    d1, d2 = wrap_dim(dim1, n, "diag_embed"), wrap_dim(dim2, n, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbedBackward0.apply(input, offset=int(offset), dim1=d1, dim2=d2)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A 2-d tensor with the flattened ``input`` on its diagonal ``offset``.

    Example::

        >>> glassgrad.diagflat(glassgrad.tensor([[1, 2]]))
        tensor([[1, 0],
                [0, 2]])
    """
    return diag(ravel(check_tensor(input, "diagflat")), offset)


_REPEAT_INTERLEAVE_OVERLOADS = (
    "(Tensor input, Tensor repeats, int dim = None, *, int output_size = None), "
    "(Tensor repeats, *, int output_size = None), "
    "(Tensor input, int repeats, int dim = None, *, int output_size = None)"
)


def repeat_interleave(
    input: Tensor, repeats: Any = None, dim: int | None = None, *, output_size: int | None = None
) -> Tensor:
    """Repeat each element (or slice along ``dim``) ``repeats`` times (an int, or a tensor of
    one count per element); ``repeat_interleave(counts)`` alone gives the repeated indices.

    Example::

        >>> glassgrad.repeat_interleave(glassgrad.tensor([1, 2]), 2)
        tensor([1, 1, 2, 2])
    """
    check_tensor(input, "repeat_interleave")
    if repeats is None:  # repeat_interleave(counts): the indices 0, 1 ... each counts[i] times
        counts = input._data
        if counts.ndim != 1 or counts.dtype.kind not in "iu":
            raise RuntimeError("repeats has to be a 1D tensor of integers")
        return Tensor._from_array(np.repeat(np.arange(counts.size), counts))
    if isinstance(repeats, Tensor):
        return _repeat_by_counts(input, repeats, dim, output_size)
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)):
        raise TypeError(
            "repeat_interleave() received an invalid combination of arguments - got (Tensor, "
            f"{type(repeats).__name__}), but expected one of: {_REPEAT_INTERLEAVE_OVERLOADS}"
        )
    # PyTorch's int overload: each slice expanded along a new dim, copied, the two dims merged
    # (so the result is a view of that copy).
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    d = wrap_dim(0 if dim is None else dim, input._data.ndim, "repeat_interleave")
    x = unsqueeze(input if dim is not None else flatten(input), d + 1)
    shape = list(x._data.shape)
    shape[d + 1] = int(repeats)
    if output_size is not None and output_size != shape[d] * repeats:
        raise RuntimeError(
            f"repeat_interleave: Invalid output_size, expected {shape[d] * repeats} but got "
            f"{output_size}"
        )
    return flatten(clone(expand(x, shape), memory_format=contiguous_format), d, d + 1)


def _repeat_by_counts(
    input: Tensor, repeats: Tensor, dim: int | None, output_size: int | None
) -> Tensor:
    """PyTorch's Tensor overload: an index_select of the positions each repeated its count."""
    x, d = (
        (flatten(input), 0)
        if dim is None
        else (input, wrap_dim(dim, input._data.ndim, "repeat_interleave"))
    )
    if x._data.ndim == 0:
        x = reshape(x, (1,))
    size = x._data.shape[d]
    counts = array_of(repeats)
    if counts.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if counts.ndim == 1 and counts.size not in (1, size):
        raise RuntimeError(
            "repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{counts.size} and input.size({d}) = {size}"
        )
    if np.any(counts < 0):
        raise RuntimeError("repeats can not be negative")
    positions = np.repeat(np.arange(size), np.broadcast_to(counts.reshape(-1), (size,)))
    if output_size is not None and output_size != positions.size:
        raise RuntimeError("allocated size does not match required size")
    return index_select(x, d, Tensor._from_array(positions.astype(np.int64)))


class UnfoldBackward0(Op):
    """out: the windows of ``size`` every ``step`` along ``dim`` (a new last dim); the
    gradient adds each window back where it came from"""

    dim: Any
    shape: Any
    size: Any
    step: Any

    __slots__ = ("dim", "size", "step", "shape")
    is_view = True

    def forward(self, x: Any, dim: Any, size: Any, step: Any) -> Any:
        self.dim, self.size, self.step, self.shape = dim, size, step, x.shape
        if x.ndim == 0:
            return x.reshape(1)
        count = (x.shape[dim] - size) // step + 1
        shape = (*x.shape[:dim], count, *x.shape[dim + 1 :], size)
        strides = (*x.strides[:dim], x.strides[dim] * step, *x.strides[dim + 1 :], x.strides[dim])
        return np.lib.stride_tricks.as_strided(x, shape, strides)

    def backward(self, F: Any, grad: Any) -> Any:
        return UnfoldBackwardBackward0.call(
            grad, shape=self.shape, dim=self.dim, size=self.size, step=self.step
        )


class UnfoldBackwardBackward0(Op):
    """PyTorch's unfold_backward (the gradient of ``unfold``, recorded under create_graph):
    each window added back where it came from. Its gradient is the unfold of the incoming
    one."""

    dim: Any
    size: Any
    step: Any

    __slots__ = ("dim", "size", "step")

    def forward(self, grad: Any, shape: Any, dim: Any, size: Any, step: Any) -> Any:
        self.dim, self.size, self.step = dim, size, step
        if not shape:
            return grad.reshape(())
        count = (shape[dim] - size) // step + 1
        # The window dim next to dim, the two merged: each element with its input position.
        merged_shape = (*shape[:dim], count * size, *shape[dim + 1 :])
        values = moveaxis(grad, -1, dim + 1).reshape(merged_shape)
        positions = (np.arange(count)[:, None] * step + np.arange(size)[None, :]).reshape(-1)
        key = (slice(None),) * dim + (positions,)
        return ArrayNamespace.index_zeros_add(shape, key, values, False)

    def backward(self, F: Any, gg: Any) -> Any:
        return UnfoldBackward0.call(gg, dim=self.dim, size=self.size, step=self.step)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The windows of ``size`` elements every ``step`` along ``dimension``, as a view with
    the window as a new last dim.

    Example::

        >>> glassgrad.arange(5).unfold(0, 2, 2)
        tensor([[0, 1],
                [2, 3]])
    """
    n = check_tensor(input, "unfold")._data.ndim
    d = wrap_dim(dimension, n, "unfold")
    length = input._data.shape[d] if n else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return UnfoldBackward0.apply(input, dim=d, size=int(size), step=int(step))


def _fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Fill the main diagonal in place (of a matrix, or of a tensor whose dims are all equal);
    with ``wrap``, a tall matrix's diagonal restarts every ``cols + 1`` rows."""
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(shape, bool)
    if len(shape) == 2:
        rows, cols = shape
        flat = mask.reshape(-1)
        end = rows * cols if wrap else min(rows, cols) * cols
        flat[0 : end : cols + 1] = True
    else:
        index = np.arange(shape[0])
        mask[(index,) * len(shape)] = True
    return self.masked_fill_(Tensor._from_array(mask), fill_value)


def _where_method(self: Tensor, condition: Tensor, other: Any) -> Tensor:
    # x.where(condition, other) is where(condition, x, other).
    return where(condition, self, other)


def _h(self: Tensor) -> Tensor:
    if self._data.ndim not in (0, 2):
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {self._data.ndim}-D tensor."
        )
    return _conjugate_transpose(self) if self._data.ndim == 2 else conj(self)


def _conjugate_transpose(x: Tensor, name: str = "") -> Tensor:
    """``x`` with its last two dims swapped, conjugated when complex: a view."""
    if name and x._data.ndim < 2:
        raise RuntimeError(
            f"tensor.{name} is only supported on matrices or batches of matrices. Got "
            f"{x._data.ndim}-D tensor."
        )
    swapped = transpose(x, -2, -1)
    return conj(swapped) if x._data.dtype.kind == "c" else swapped


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of a matrix or of each matrix in a batch (its last two dims
    swapped, conjugated when complex): a view, as ``input.mH``.

    Example::

        >>> glassgrad.adjoint(glassgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([[1., 3.],
                [2., 4.]])
    """
    return _conjugate_transpose(check_tensor(input, "adjoint"), "adjoint()")


# --- registry ------------------------------------------------------------------------------


register(
    "ravel", ravel, samples=lambda rng: [Sample((randn(rng, 2, 3),)), Sample((randn(rng, 3, 2).T,))]
)


register(
    "fliplr",
    fliplr,
    samples=lambda rng: [Sample((randn(rng, 2, 3),)), Sample((randn(rng, 2, 3, 2),))],
)


register(
    "flipud", flipud, samples=lambda rng: [Sample((randn(rng, 3),)), Sample((randn(rng, 2, 3),))]
)


register(
    "rot90",
    rot90,
    samples=lambda rng: [
        Sample((randn(rng, 2, 3),)),
        Sample((randn(rng, 2, 3), 2)),
        Sample((randn(rng, 2, 3), -1)),
        Sample((randn(rng, 2, 3, 4), 1, [2, 0])),
        Sample((randn(rng, 2, 3), 4)),
    ],
)


register(
    "tensor_split",
    tensor_split,
    samples=lambda rng: [
        Sample((randn(rng, 7, 2), 3)),
        Sample((randn(rng, 2, 7), [1, 4], 1)),
        Sample((randn(rng, 5), [-2, 10])),
        Sample((randn(rng, 4, 3), np.array([1, 2]))),
        Sample((randn(rng, 2, 3), 5, -1)),
    ],
)


for _fn, _shape in ((hsplit, (4, 4)), (vsplit, (4, 4)), (dsplit, (2, 2, 4))):
    register(
        _fn.__name__,
        _fn,
        samples=lambda rng, _shape=_shape: [
            Sample((randn(rng, *_shape), 2)),
            Sample((randn(rng, *_shape), [1, 3])),
        ],
    )


register(
    "diag_embed",
    diag_embed,
    nodes=(DiagEmbedBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3),)),
        Sample((randn(rng, 2, 3), 1)),
        Sample((randn(rng, 2, 3), -1, 0, 2)),
        Sample((randn(rng, 2, 3),), {"dim1": 0, "dim2": 1}),
        Sample((np.array([1, 2]),)),
    ],
)


register(
    "diagflat",
    diagflat,
    samples=lambda rng: [
        Sample((randn(rng, 2, 2),)),
        Sample((randn(rng, 3), -1)),
        Sample((randn(rng, 3), 2)),
    ],
)


register(
    "repeat_interleave",
    repeat_interleave,
    samples=lambda rng: [
        Sample((randn(rng, 2, 3), 2)),
        Sample((randn(rng, 2, 3), 2, 1)),
        Sample((randn(rng, 3, 2), np.array([1, 0, 2]), 0)),
        Sample((randn(rng, 2, 2), np.array([2])), {"dim": 1}),
        Sample((np.array([2, 0, 1]),)),
        Sample((randn(rng), 3)),
    ],
)


register(
    "adjoint",
    adjoint,
    samples=lambda rng: [
        Sample((randn(rng, 2, 3),)),
        Sample((randn(rng, 2, 3, 4),), note="batched"),
        Sample((complex_randn(rng, 3, 2),), note="complex: conjugated"),
    ],
)


register(
    "unfold",
    unfold,
    nodes=(UnfoldBackward0,),
    methods=(),  # a Tensor method only (torch.unfold does not exist)
    torch=lambda torch, x, *args: x.unfold(*args),
    samples=lambda rng: [
        Sample((randn(rng, 7), 0, 2, 1)),
        Sample((randn(rng, 3, 7), 1, 3, 2)),
        Sample((randn(rng, 5, 2), 0, 2, 3)),
        Sample((randn(rng, 4, 3).T, -1, 4, 1)),
        Sample((randn(rng), 0, 1, 1)),
    ],
)


TENSOR_METHODS: dict[str, Any] = {
    "H": property(_h, doc="The conjugate transpose of a matrix (its transpose if real)."),
    "mH": property(
        lambda self: _conjugate_transpose(self, "mH"),
        doc="The conjugate transpose of the last two dims (a view, as ``adjoint()``).",
    ),
    "where": _where_method,
    "fill_diagonal_": _fill_diagonal_,
    "unfold": unfold,
}
