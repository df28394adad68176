"""Triangles and diagonals of matrices: tril, triu (and their in-place forms),
diagonal, diagonal_scatter, diag; the Node of diag_embed.

``diagonal`` is a view; its gradient is a ``diagonal_scatter`` into zeros, and the other way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import check_tensor, wrap_dim
from ._registry import Sample, register
from ._samples import randn

__all__ = ["tril", "triu", "diag", "diagonal", "diagonal_scatter"]


# --- tril, triu ---------------------------------------------------------------------------


def _triangle_mask(shape: tuple, diagonal: int, lower: bool) -> np.ndarray:
    rows, cols = shape[-2:]
    below = np.tri(rows, cols, diagonal, dtype=bool)
    return below if lower else ~np.tri(rows, cols, diagonal - 1, dtype=bool)


class TrilBackward0(Op):
    """out = input with entries above diagonal ``diagonal`` set to zero"""

    diagonal: Any

    __slots__ = ("diagonal",)
    lower = True
    # PyTorch's tril_/triu_ write only the zeros, without checking for overlap (the backward
    # through the write then refuses it, in CopySlices).
    allows_internal_overlap = True

    @classmethod
    def write_overlapping(cls, data: np.ndarray, diagonal: int) -> None:
        zero = np.zeros((), data.dtype)  # a typed zero: a Python 0 is refused for bool
        np.copyto(data, zero, where=~_triangle_mask(data.shape, diagonal, cls.lower))

    @row_major
    def forward(self, x: Any, diagonal: Any) -> Any:
        self.diagonal = diagonal
        return np.where(_triangle_mask(x.shape, diagonal, self.lower), x, x.dtype.type(0))

    def backward(self, F: Any, grad: Any) -> Any:
        return F.where(_triangle_mask(grad.shape, self.diagonal, self.lower), grad, 0.0)


class TriuBackward0(TrilBackward0):
    """out = input with entries below diagonal ``diagonal`` set to zero"""

    __slots__ = ()
    lower = False


def _triangle(node: type[Op], name: str) -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    def op(input: Tensor, diagonal: int = 0) -> Tensor:
        n = check_tensor(input, name)._data.ndim
        if n < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return node.apply(input, diagonal=int(diagonal))

    def inplace(input: Tensor, diagonal: int = 0) -> Tensor:
        if check_tensor(input, name + "_")._data.ndim < 2:
            raise RuntimeError(f"{name}_: input tensor must have at least 2 dimensions")
        return apply_inplace(node, input, diagonal=int(diagonal))

    side, keep = ("lower", "on and below") if name == "tril" else ("upper", "on and above")
    rows = ("[1., 0.]", "[1., 1.]") if name == "tril" else ("[1., 1.]", "[0., 1.]")
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"The {side} triangle of the matrices in the last two dims: entries {keep} diagonal\n"
        f"``diagonal`` (0: main, >0 above, <0 below) are kept, the others become zero.\n\n"
        f"Example::\n\n    >>> glassgrad.ones(2, 2).{name}()\n"
        f"    tensor([{rows[0]},\n            {rows[1]}])\n"
    )
    inplace.__name__ = inplace.__qualname__ = name + "_"
    inplace.__doc__ = f"In-place ``{name}``."
    return op, inplace


tril: Callable[..., Tensor]
tril_: Callable[..., Tensor]
tril, tril_ = _triangle(TrilBackward0, "tril")


triu: Callable[..., Tensor]
triu_: Callable[..., Tensor]
triu, triu_ = _triangle(TriuBackward0, "triu")


# --- diagonal, diag, diagonal_scatter ---------------------------------------------------


def _diagonal_view(x: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """The diagonal as a view that is writable when ``x`` is (NumPy returns it read-only)."""
    out = np.diagonal(x, offset, dim1, dim2)
    if x.flags.writeable:
        out.flags.writeable = True
    return out


class DiagonalBackward0(Op):
    """out = the diagonal ``offset`` of the planes (dim1, dim2), as a last dimension (a view)"""

    dim1: Any
    dim2: Any
    offset: Any
    self_sizes: Any

    __slots__ = ("self_sizes", "offset", "dim1", "dim2")
    is_view = True

    def forward(self, x: Any, offset: Any, dim1: Any, dim2: Any) -> Any:
        self.self_sizes, self.offset, self.dim1, self.dim2 = x.shape, offset, dim1, dim2
        return _diagonal_view(x, offset, dim1, dim2)

    def backward(self, F: Any, grad: Any) -> Any:
        return DiagonalBackwardBackward0.call(
            grad, shape=self.self_sizes, offset=self.offset, dim1=self.dim1, dim2=self.dim2
        )


class DiagonalBackwardBackward0(Op):
    """PyTorch's diagonal_backward (the gradient of ``diagonal``, recorded under
    create_graph): zeros of the input's shape holding ``grad`` on the diagonal. Its gradient
    is that diagonal of the incoming one."""

    dim1: Any
    dim2: Any
    offset: Any

    __slots__ = ("offset", "dim1", "dim2")

    def forward(self, grad: Any, shape: Any, offset: Any, dim1: Any, dim2: Any) -> Any:
        self.offset, self.dim1, self.dim2 = offset, dim1, dim2
        out = np.zeros(shape, dtype=grad.dtype)
        _diagonal_view(out, offset, dim1, dim2)[...] = grad
        return out

    def backward(self, F: Any, gg: Any) -> Any:
        return DiagonalBackward0.call(gg, offset=self.offset, dim1=self.dim1, dim2=self.dim2)


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801 - PyTorch's name for diag(2-D)
    """out = a copy of the diagonal ``offset`` of a matrix (``diag`` of a 2-D input)"""

    __slots__ = ()
    is_view = False

    def forward(self, x: Any, offset: Any, dim1: Any, dim2: Any) -> Any:
        return DiagonalBackward0.forward(self, x, offset, dim1, dim2).copy()


class DiagonalScatterBackward0(Op):
    """out = input with ``src`` written on the diagonal ``offset`` of the planes (dim1, dim2)"""

    dim1: Any
    dim2: Any
    offset: Any

    __slots__ = ("offset", "dim1", "dim2")

    def forward(self, x: Any, src: Any, offset: Any, dim1: Any, dim2: Any) -> Any:
        self.offset, self.dim1, self.dim2 = offset, dim1, dim2
        out = x.copy(order="K")  # PyTorch's clone keeps x's layout
        _diagonal_view(out, offset, dim1, dim2)[...] = src
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        needs = self.needs_input_grad
        params = {"offset": self.offset, "dim1": self.dim1, "dim2": self.dim2}
        grad_self = grad_src = None
        if needs[0]:
            keep = np.ones(grad.shape, dtype=bool)
            _diagonal_view(keep, **params)[...] = False
            grad_self = F.where(keep, grad, 0.0)
        if needs[1]:
            grad_src = DiagonalBackward0_copy.call(grad, **params)
        return grad_self, grad_src


class DiagEmbedBackward0(Op):
    """out: zeros with ``input``'s last dim on the diagonal (``offset``) of dims ``dim1``,
    ``dim2``; the gradient is that diagonal of ``grad``"""

    dim1: Any
    dim2: Any
    offset: Any

    __slots__ = ("offset", "dim1", "dim2")

    def forward(self, x: Any, offset: Any, dim1: Any, dim2: Any) -> Any:
        self.offset, self.dim1, self.dim2 = offset, dim1, dim2
        n = x.shape[-1] + abs(offset) if x.ndim else abs(offset) + 1
        batch = x.shape[:-1]
        out_ndim = len(batch) + 2
        plane = np.zeros((*batch, n, n), x.dtype)
        rows = np.arange(x.shape[-1]) + max(-offset, 0)
        plane[..., rows, rows + offset] = x
        order = [d for d in range(out_ndim) if d not in (dim1, dim2)]
        inverse = np.empty(out_ndim, int)
        inverse[[*order, dim1, dim2]] = np.arange(out_ndim)
        return np.ascontiguousarray(np.transpose(plane, inverse))

    def backward(self, F: Any, grad: Any) -> Any:
        if isinstance(grad, Tensor):
            return grad.diagonal(self.offset, self.dim1, self.dim2)
        return np.diagonal(grad, self.offset, self.dim1, self.dim2)


def _diagonal_dims(op: str, n: int, dim1: int, dim2: int) -> tuple:
    d1, d2 = wrap_dim(dim1, n, op), wrap_dim(dim2, n, op)
    if d1 == d2:
        raise RuntimeError(f"{op}: diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal ``offset`` of the planes spanned by ``dim1`` and ``dim2``, appended as
    the last dimension (a view).

    Example::

        >>> glassgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).diagonal()
        tensor([1., 4.])
    """
    n = check_tensor(input, "diagonal")._data.ndim
    if n < 2:
        raise RuntimeError(f"diagonal: input must have at least 2 dimensions, got {n}")
    d1, d2 = _diagonal_dims("diagonal", n, dim1, dim2)
    return DiagonalBackward0.apply(input, offset=int(offset), dim1=d1, dim2=d2)


def diagonal_scatter(
    input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    """A copy of ``input`` with ``src`` written on its diagonal (see ``diagonal``).

    Example::

        >>> glassgrad.zeros(2, 2).diagonal_scatter(glassgrad.ones(2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    x = check_tensor(input, "diagonal_scatter")._data
    src_array = check_tensor(src, "diagonal_scatter", "src", 2)._data
    if x.ndim < 2:
        raise RuntimeError(f"diagonal_scatter: input must have at least 2 dimensions, got {x.ndim}")
    d1, d2 = _diagonal_dims("diagonal_scatter", x.ndim, dim1, dim2)
    expected = np.diagonal(x, offset, d1, d2).shape
    if src_array.shape != expected:
        raise RuntimeError(
            f"diagonal_scatter: expected src to have a size equal to the slice of self. src "
            f"size = {list(src_array.shape)}, slice size = {list(expected)}"
        )
    return DiagonalScatterBackward0.apply(input, src, offset=int(offset), dim1=d1, dim2=d2)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """For a vector, the square matrix with it on diagonal ``diagonal``; for a matrix, a
    copy of its diagonal ``diagonal``.

    Example::

        >>> glassgrad.diag(glassgrad.tensor([1.0, 2.0]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    n = check_tensor(input, "diag")._data.ndim
    if n == 1:
        return DiagEmbedBackward0.apply(input, offset=int(diagonal), dim1=0, dim2=1)
    if n == 2:
        return DiagonalBackward0_copy.apply(input, offset=int(diagonal), dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


_triangle_samples = lambda rng: [  # noqa: E731
    Sample((randn(rng, 4, 4),)),
    Sample((randn(rng, 3, 5), 1)),
    Sample((randn(rng, 2, 4, 3), -1), note="batched"),
    Sample((randn(rng, 4, 3).T,), {"diagonal": 2}, note="non-contiguous"),
    Sample((randn(rng, 0, 3),)),
]


register("tril", tril, samples=_triangle_samples)


register("triu", triu, samples=_triangle_samples)


register(
    "diagonal",
    diagonal,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), -2)),
        Sample((randn(rng, 2, 3, 4),), {"offset": 1, "dim1": 2, "dim2": 0}),
        Sample((randn(rng, 4, 3).T, 0, -1, -2), note="non-contiguous"),
        Sample((randn(rng, 3, 4), 5)),
    ],
)


register(
    "diagonal_scatter",
    diagonal_scatter,
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3))),
        Sample((randn(rng, 3, 4), randn(rng, 2), -1)),
        Sample((randn(rng, 2, 3, 4), randn(rng, 3, 1), 1, 2, 0)),
    ],
)


register(
    "diag",
    diag,
    nodes=(DiagEmbedBackward0, DiagonalBackward0_copy),
    samples=lambda rng: [
        Sample((randn(rng, 3),)),
        Sample((randn(rng, 3), -2)),
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 4, 3).T, -1), note="non-contiguous"),
        Sample((randn(rng, 0),)),
    ],
)


TENSOR_METHODS: dict[str, Any] = {
    "tril_": tril_,
    "triu_": triu_,
}
