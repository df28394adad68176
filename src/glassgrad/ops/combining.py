"""Ops that lay several tensors out together: hstack, vstack (row_stack), dstack,
column_stack, block_diag, cartesian_prod, combinations, kron, meshgrid, broadcast_to,
broadcast_tensors and atleast_1d/2d/3d.

All but block_diag are PyTorch's own composites of cat, stack, reshape and expand, so their
graphs (``CatBackward0``, ``ExpandBackward0`` ...) and gradients are those ops'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import default_numpy_float, result_numpy_dtype
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, varargs_or_keyword
from ._out import out_result
from ._registry import Sample, register
from ._samples import randn
from .broadcasting import expand
from .masking import masked_select
from .shape import cat, reshape, stack, unsafe_view, unsqueeze


def _tensor_list(tensors: Any, op: str) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    for t in tensors:
        check_tensor(t, op, "tensors")
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return list(tensors)


def _at_least(ndim: int, name: str) -> Any:
    def op(*tensors: Any) -> Any:
        single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        results = []
        for t in tensors:
            check_tensor(t, name)
            d = t._data.ndim
            if d >= ndim:
                results.append(t)
            elif ndim == 3 and d == 2:
                results.append(unsqueeze(t, -1))
            elif ndim == 3 and d == 1:
                results.append(unsqueeze(unsqueeze(t, 0), -1))
            else:  # PyTorch: 0-d -> reshape, 1-d -> unsqueeze(0)
                results.append(reshape(t, (1,) * ndim) if d == 0 else unsqueeze(t, 0))
        return results[0] if single else tuple(results)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"""Each tensor with at least {ndim} dims (size-1 dims added as PyTorch adds
them); one tensor in, one out, else a tuple.

Example::

    >>> glassgrad.{name}(glassgrad.tensor(1.0)).shape
    glassgrad.Size({[1] * ndim})
"""
    return op


atleast_1d: Callable[..., Any] = _at_least(1, "atleast_1d")
atleast_2d: Callable[..., Any] = _at_least(2, "atleast_2d")
atleast_3d: Callable[..., Any] = _at_least(3, "atleast_3d")


def hstack(tensors: Any, *, out: Any = None) -> Tensor:
    """Concatenate along dim 1 (dim 0 for 1-d tensors).

    Example::

        >>> glassgrad.hstack([glassgrad.ones(2), glassgrad.zeros(1)])
        tensor([1., 1., 0.])
    """
    tensors = atleast_1d(_tensor_list(tensors, "hstack"))
    result = cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)
    return out_result("hstack", out, result, tensors)


def vstack(tensors: Any, *, out: Any = None) -> Tensor:
    """Concatenate along dim 0, 1-d tensors as rows.

    Example::

        >>> glassgrad.vstack([glassgrad.ones(2), glassgrad.zeros(2)]).shape
        glassgrad.Size([2, 2])
    """
    return _vstack(tensors, out, "vstack")


def row_stack(tensors: Any, *, out: Any = None) -> Tensor:
    """Alias of ``vstack``."""
    return _vstack(tensors, out, "row_stack")


def _vstack(tensors: Any, out: Any, name: str) -> Tensor:
    tensors = atleast_2d(_tensor_list(tensors, name))
    return out_result(name, out, cat(tensors, 0), tensors)


def dstack(tensors: Any, *, out: Any = None) -> Tensor:
    """Concatenate along dim 2 (depth), after ``atleast_3d``.

    Example::

        >>> glassgrad.dstack([glassgrad.ones(2), glassgrad.zeros(2)]).shape
        glassgrad.Size([1, 2, 2])
    """
    tensors = atleast_3d(_tensor_list(tensors, "dstack"))
    return out_result("dstack", out, cat(tensors, 2), tensors)


def column_stack(tensors: Any, *, out: Any = None) -> Tensor:
    """Concatenate along dim 1, 0-d and 1-d tensors as columns.

    Example::

        >>> glassgrad.column_stack([glassgrad.ones(2), glassgrad.zeros(2)]).shape
        glassgrad.Size([2, 2])
    """
    tensors = _tensor_list(tensors, "column_stack")
    columns = [reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in tensors]
    return out_result("column_stack", out, cat(columns, 1), tensors)


class BlockDiagBackward0(Op):
    """out = the inputs (as matrices) along the diagonal of a zero matrix"""

    spans: list[tuple[int, int, int, int, tuple[int, ...]]]

    __slots__ = ("spans",)

    def forward(self, *blocks: Any) -> Any:
        if not blocks:  # PyTorch's result for no tensors: (1, 0) of the default dtype
            return np.zeros((1, 0), default_numpy_float())
        arrays = tuple(np.asarray(b) for b in blocks)
        # ATen's result_type over the inputs as given: a 0-d block ranks below dimensioned ones
        dtype = result_numpy_dtype(arrays)
        matrices = [a.reshape(_matrix_shape(a.shape)) for a in arrays]
        rows = sum(m.shape[0] for m in matrices)
        cols = sum(m.shape[1] for m in matrices)
        out = np.zeros((rows, cols), dtype)
        spans, r, c = [], 0, 0
        for m, b in zip(matrices, blocks):
            out[r : r + m.shape[0], c : c + m.shape[1]] = m
            spans.append((r, r + m.shape[0], c, c + m.shape[1], np.shape(b)))
            r, c = r + m.shape[0], c + m.shape[1]
        self.spans = spans
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        return tuple(F.reshape(grad[r0:r1, c0:c1], shape) for r0, r1, c0, c1, shape in self.spans)


def _matrix_shape(shape: tuple) -> tuple:
    return {0: (1, 1), 1: (1, shape[0] if shape else 1)}.get(len(shape), shape)


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix of the inputs (0-d and 1-d ones as one-row matrices).

    Example::

        >>> glassgrad.block_diag(glassgrad.ones(1, 1), glassgrad.ones(1, 2))
        tensor([[1., 0., 0.],
                [0., 1., 1.]])
    """
    for i, t in enumerate(tensors):
        check_tensor(t, "block_diag", "tensors")
        if t._data.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} "
                f"has {t._data.ndim} dimensions"
            )
    return BlockDiagBackward0.apply(*tensors)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids from 1-d tensors: ``indexing="ij"`` (matrix, PyTorch's default) or
    ``"xy"`` (Cartesian: the first two inputs' dims swapped). The results are expanded views.

    Example::

        >>> xs, ys = glassgrad.meshgrid(glassgrad.arange(2), glassgrad.arange(3), indexing="ij")
        >>> xs.shape
        glassgrad.Size([2, 3])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        indexing = "ij"  # PyTorch warns that the default will change; the result is "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in tensors:
        check_tensor(t, "meshgrid", "tensors")
        if t._data.ndim > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                f"{t._data.ndim}D tensor"
            )
    if not tensors:
        raise RuntimeError("torch.meshgrid: Expected at least one tensor")
    if any(t._data.dtype != tensors[0]._data.dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(tensors) >= 2
    ordered = list(tensors)
    if swap:
        ordered[0], ordered[1] = ordered[1], ordered[0]
    shape = tuple(t._data.size for t in ordered)
    grids = []
    for i, t in enumerate(ordered):
        view = [1] * len(shape)
        view[i] = shape[i]
        grids.append(expand(reshape(t, tuple(view)), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """All combinations of the elements of 1-d tensors, one per row (one tensor: itself).

    Example::

        >>> glassgrad.cartesian_prod(glassgrad.tensor([1, 2]), glassgrad.tensor([3]))
        tensor([[1, 3],
                [2, 3]])
    """
    for t in tensors:
        check_tensor(t, "cartesian_prod", "tensors")
        if t._data.ndim != 1:
            raise RuntimeError("Expect a 1D vector, but got shape " + str(list(t._data.shape)))
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


def broadcast_to(input: Tensor, *args: Any, size: Any = None) -> Tensor:
    """``input`` expanded to ``size`` (a view; -1 keeps a dim), given as a sequence or, on
    the method, as separate sizes.

    Example::

        >>> glassgrad.broadcast_to(glassgrad.tensor([1, 2]), (2, 2))
        tensor([[1, 2],
                [1, 2]])
    """
    check_tensor(input, "broadcast_to")
    return expand(input, *varargs_or_keyword("broadcast_to", args, size, "size"))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape.

    Example::

        >>> a, b = glassgrad.broadcast_tensors(glassgrad.ones(2, 1), glassgrad.ones(3))
        >>> a.shape
        glassgrad.Size([2, 3])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        check_tensor(t, "broadcast_tensors", "tensors")
    try:
        shape = np.broadcast_shapes(*(t._data.shape for t in tensors))
    except ValueError:
        shapes = [list(t._data.shape) for t in tensors]
        raise RuntimeError(
            f"broadcast_tensors: shapes {shapes} cannot be broadcast together"
        ) from None
    # As PyTorch's expand_outplace: a tensor of the broadcast shape is returned as it is.
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


def broadcast_shapes(*shapes: Any) -> Any:
    """The shape the given shapes broadcast to.

    Example::

        >>> glassgrad.broadcast_shapes((2, 1), (3,))
        glassgrad.Size([2, 3])
    """
    from .._tensor import Size

    normalized = [(s,) if isinstance(s, (int, np.integer)) else tuple(s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*normalized))
    except ValueError:
        raise RuntimeError(
            f"Shape mismatch: objects cannot be broadcast to a single shape: {shapes}"
        ) from None


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times the whole of ``other``, laid
    out in blocks.

    Example::

        >>> glassgrad.kron(glassgrad.tensor([1, 2]), glassgrad.tensor([1, 10]))
        tensor([ 1, 10,  2, 20])
    """
    check_tensor(input, "kron")
    check_tensor(other, "kron", "other", 2)
    n = max(input._data.ndim, other._data.ndim)
    a = (1,) * (n - input._data.ndim) + input._data.shape
    b = (1,) * (n - other._data.ndim) + other._data.shape
    # a's dims interleaved with size-1 dims, b's after them: their product has the blocks.
    # PyTorch reshapes with _unsafe_view: the operands are not views of the inputs.
    a_shape, b_shape = [], []
    for sa, sb in zip(a, b):
        a_shape += [sa, 1]
        b_shape += [1, sb]
    product = unsafe_view(input, tuple(a_shape)) * unsafe_view(other, tuple(b_shape))
    return unsafe_view(product, tuple(sa * sb for sa, sb in zip(a, b)))


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of the elements of a 1-d tensor, one per row (as
    ``itertools.combinations``, or ``combinations_with_replacement``).

    Example::

        >>> glassgrad.combinations(glassgrad.tensor([1, 2, 3]))
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
    """
    check_tensor(input, "combinations")
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._from_array(np.empty((0,), input._data.dtype))
    # PyTorch's composite: r grids of the input, each masked to the index tuples in order
    # (i < j < ..., or i <= j <= ... with replacement), stacked as columns.
    n = input._data.size
    grids = meshgrid(*([input] * r), indexing="ij")
    index = np.indices((n,) * r)
    mask = np.ones((n,) * r, bool)
    for k in range(r - 1):
        mask &= index[k] <= index[k + 1] if with_replacement else index[k] < index[k + 1]
    chosen = Tensor._from_array(mask)
    return stack([masked_select(grid, chosen) for grid in grids], 1)


# --- samples ------------------------------------------------------------------------------


def _stack_samples(rng):
    return [
        Sample(([randn(rng, 3), randn(rng, 2)],)),
        Sample(([randn(rng, 2, 3), randn(rng, 2, 1)],)),
        Sample(([randn(rng), randn(rng)],)),
        Sample(([randn(rng, 2, 3, 2), randn(rng, 2, 1, 2)],)),
        Sample(([np.array([1, 2]), np.array([3])],), grad=False),
    ]


def _same_shape_samples(rng):
    return [
        Sample(([randn(rng, 3), randn(rng, 3)],)),
        Sample(([randn(rng, 2, 3), randn(rng, 1, 3)],)),
        Sample(([randn(rng), randn(rng)],)),
        Sample(([randn(rng, 2, 3, 2), randn(rng, 2, 3, 2)],)),
        Sample(([randn(rng, 2, 2)],)),
    ]


def _dstack_samples(rng):
    return [
        Sample(([randn(rng, 3), randn(rng, 3)],)),
        Sample(([randn(rng, 2, 3), randn(rng, 2, 3)],)),
        Sample(([randn(rng, 2, 3, 2), randn(rng, 2, 3, 1)],)),
        Sample(([randn(rng), randn(rng)],)),
    ]


def _column_samples(rng):
    return [
        Sample(([randn(rng, 3), randn(rng, 3, 2)],)),
        Sample(([randn(rng), randn(rng, 1)],)),
        Sample(([randn(rng, 2, 3), randn(rng, 2)],)),
    ]


register("hstack", hstack, methods=(), samples=_stack_samples)
register("vstack", vstack, methods=(), samples=_same_shape_samples)
register("row_stack", row_stack, methods=(), samples=_same_shape_samples)
register("dstack", dstack, methods=(), samples=_dstack_samples)
register("column_stack", column_stack, methods=(), samples=_column_samples)
register(
    "block_diag",
    block_diag,
    nodes=(BlockDiagBackward0,),
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 2, 3), randn(rng, 1, 2))),
        Sample((randn(rng, 2), randn(rng), randn(rng, 2, 2))),
        Sample((randn(rng, 0, 2), randn(rng, 2, 0), randn(rng, 1, 1))),
        Sample((randn(rng, 2, 2), np.array([[1, 2]]))),
        Sample((np.array([[1, 2]]), np.array([3]))),
        Sample(()),
    ],
)
register(
    "meshgrid",
    meshgrid,
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 3), randn(rng, 2)), {"indexing": "ij"}),
        Sample((randn(rng, 3), randn(rng, 2), randn(rng, 4)), {"indexing": "xy"}),
        Sample((randn(rng, 3), randn(rng)), {"indexing": "xy"}),
        Sample(([randn(rng, 2), randn(rng, 2)],), {"indexing": "ij"}),
        Sample((randn(rng, 3),), {"indexing": "xy"}),
    ],
)
register(
    "cartesian_prod",
    cartesian_prod,
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 3), randn(rng, 2))),
        Sample((randn(rng, 2), randn(rng, 2), randn(rng, 3))),
        Sample((randn(rng, 3),)),
        Sample((np.array([1, 2]), np.array([3, 4, 5])), grad=False),
    ],
)
register(
    "broadcast_to",
    broadcast_to,
    samples=lambda rng: [
        Sample((randn(rng, 3), (2, 3))),
        Sample((randn(rng, 3, 1), [3, -1, 4])),
        Sample((randn(rng), (2,))),
        Sample((randn(rng, 2, 2), (2, 2))),
    ],
)
register(
    "broadcast_tensors",
    broadcast_tensors,
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 3, 1), randn(rng, 4))),
        Sample((randn(rng), randn(rng, 2, 1), randn(rng, 1, 3))),
        Sample((randn(rng, 2),)),
    ],
)
for _n, _f in (("atleast_1d", atleast_1d), ("atleast_2d", atleast_2d), ("atleast_3d", atleast_3d)):
    register(
        _n,
        _f,
        methods=(),
        samples=lambda rng: [
            Sample((randn(rng),)),
            Sample((randn(rng, 3),)),
            Sample((randn(rng, 2, 3),)),
            Sample((randn(rng, 2, 3, 2),)),
            Sample((randn(rng), randn(rng, 2))),
            Sample(([randn(rng, 2), randn(rng, 2, 1)],)),
        ],
    )
register(
    "kron",
    kron,
    samples=lambda rng: [
        Sample((randn(rng, 2, 3), randn(rng, 3, 2))),
        Sample((randn(rng, 2), randn(rng, 3))),
        Sample((randn(rng, 2, 2), randn(rng, 2, 1, 2))),
        Sample((randn(rng), randn(rng, 2))),
        Sample((np.array([[1, 2]]), np.array([[1], [10]]))),
    ],
)


register(
    "combinations",
    combinations,
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 4),)),
        Sample((randn(rng, 4), 3)),
        Sample((randn(rng, 3),), {"with_replacement": True}),
        Sample((randn(rng, 3), 1)),
        Sample((np.array([1, 2, 3]), 2)),
    ],
)
