"""Functions of matrices: ``linalg.matrix_power``, ``matrix_exp``, ``cond``, ``vander`` (and
``torch.vander``), ``diagonal``, and ``torch.trace``.

``matrix_power``, ``cond`` and ``vander`` are PyTorch's composites of other ops (so their
graphs are PyTorch's); ``matrix_exp`` and ``trace`` are nodes of their own. ``matrix_exp`` is computed by
scaling and squaring with a degree-13 Pade approximant (Higham 2005); its gradient is
PyTorch's: the exponential of the block matrix [[A^T, G], [0, A^T]], upper right block.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import from_numpy_dtype
from .._layout import contiguous_format
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor
from ._linalg_common import check_square, constant_like, invertible
from ._out import composite_out, out_result
from ._registry import Sample, register
from ._samples import randn
from .broadcasting import expand
from .conversion import clone, to
from .decompositions import svdvals
from .diagonals import diagonal as diagonal_view
from .inverses import inv_ex
from .linalg import matmul
from .norms import matrix_norm
from .pointwise import where
from .scan import cumprod
from .shape import cat, squeeze, unsqueeze
from .shape_reorder import flip
from .shape_views import narrow

__all__ = [
    "matrix_power",
    "matrix_power_top",
    "matrix_exp",
    "matrix_exp_top",
    "cond",
    "vander",
    "trace",
]


# --- matrix_power ----------------------------------------------------------------------------


def matrix_power(A: Tensor, n: int, *, out: Any = None) -> Tensor:
    """``A`` multiplied by itself ``n`` times (the identity for 0, powers of the inverse for
    negative ``n``), by repeated squaring as PyTorch does.

    Example::

        >>> glassgrad.linalg.matrix_power(glassgrad.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
        tensor([[1., 3.],
                [0., 1.]])
    """
    data = check_tensor(A, "linalg.matrix_power", "A")._data
    check_square("linalg.matrix_power", data, floating=False)  # integer powers are exact
    if out is not None:
        return _matrix_power_out(A, n, out)
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(
            f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}"
        )
    if n == 0:  # PyTorch's: a copy of A overwritten by the identity (CopyBackwards)
        eye = np.eye(data.shape[-1], dtype=data.dtype)
        identity = Tensor._from_array(np.array(np.broadcast_to(eye, data.shape)))
        return clone(A, memory_format=contiguous_format).copy_(identity)
    if n < 0:
        from .inverses import inv

        A, n = inv(A), -n
    if n == 1:
        return clone(A, memory_format=contiguous_format)  # row-major, as PyTorch's
    if n == 2:
        return matmul(A, A)
    if n == 3:
        return matmul(matmul(A, A), A)
    # Binary decomposition of n: z runs through A^(2^k), result collects the set bits.
    result = z = None
    while n > 0:
        z = A if z is None else matmul(z, z)
        if n % 2:
            result = z if result is None else matmul(result, z)
        n //= 2
    return result


def _matrix_power_out(A: Tensor, n: int, out: Any) -> Tensor:
    """PyTorch's out= of matrix_power: the identity written without history (n = 0), A
    copied in (CopyBackwards, n = 1), else the out= of the last kernel (inv_ex, matmul),
    whose autograd check refuses inputs or an ``out`` that require grad."""
    if n == 1:
        return composite_out("linalg.matrix_power", out, lambda: matrix_power(A, n))
    if n == 0:
        if isinstance(out, Tensor) and out.requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
        return out_result("linalg_matrix_power", out, matrix_power(A, n).detach())
    kernel = "linalg_inv_ex" if n == -1 else "matmul"
    return out_result(kernel, out, matrix_power(A, n), (A,))


def matrix_power_top(input: Tensor, n: int, *, out: Any = None) -> Tensor:
    """``torch.matrix_power``: ``linalg.matrix_power``.

    Example::

        >>> glassgrad.matrix_power(glassgrad.eye(2) * 2, 3)
        tensor([[8., 0.],
                [0., 8.]])
    """
    return matrix_power(input, n, out=out)


# --- matrix_exp ------------------------------------------------------------------------------

_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = 5.371920351148152


def matrix_exp_arrays(a: np.ndarray) -> np.ndarray:
    """exp(A) for a (batch of) square matrices: each matrix scaled by 2^-s so that its
    1-norm is at most theta_13, the [13/13] Pade approximant, then squared s times."""
    if a.size == 0:
        return np.array(a)
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    work = a.astype(wide).reshape(-1, *a.shape[-2:])
    n = a.shape[-1]
    norms = np.abs(work).sum(axis=-2).max(axis=-1)
    with np.errstate(divide="ignore"):
        squarings = np.maximum(0, np.ceil(np.log2(norms / _THETA13))).astype(int)
    squarings[~np.isfinite(norms)] = 0
    work = work / (2.0**squarings)[:, None, None]
    b = _PADE13
    eye = np.eye(n)
    a2 = work @ work
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = work @ (
        a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye
    )
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    result = np.linalg.solve(v - u, v + u)
    for step in range(int(squarings.max(initial=0))):
        more = squarings > step
        result[more] = result[more] @ result[more]
    return result.reshape(a.shape).astype(a.dtype)


class LinalgMatrixExpBackward0(Op):
    """out = exp(A); gA = the upper right block of exp([[A^T, grad], [0, A^T]]) (A^H for
    complex A: the op is holomorphic)"""

    holomorphic = True
    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ()

    def forward(self, a: Any) -> Any:
        return matrix_exp_arrays(a)

    def backward(self, F: Any, grad: Any) -> Any:
        (a,) = self.saved
        n = a.shape[-1]
        dtype = array_of(grad).dtype
        top = constant_like(grad, np.eye(2 * n, n, dtype=dtype))  # embeds the upper blocks
        bottom = constant_like(grad, np.eye(2 * n, n, -n, dtype=dtype))  # and the lower ones
        a_t = F.mT(a)
        blocks = (
            F.matmul(F.matmul(top, a_t), F.mT(top))
            + F.matmul(F.matmul(top, grad), F.mT(bottom))
            + F.matmul(F.matmul(bottom, a_t), F.mT(bottom))
        )
        return LinalgMatrixExpBackward0.call(blocks)[..., :n, n:]


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential ``sum A^k / k!`` of a (batch of) square matrices.

    Example::

        >>> glassgrad.linalg.matrix_exp(glassgrad.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    data = check_tensor(A, "linalg.matrix_exp", "A")._data
    check_square("linalg.matrix_exp", data, complex_ok=True)
    return LinalgMatrixExpBackward0.apply(A)


def matrix_exp_top(input: Tensor) -> Tensor:
    """``torch.matrix_exp`` (and the method): ``linalg.matrix_exp`` of ``input``.

    Example::

        >>> glassgrad.matrix_exp(glassgrad.zeros(1, 1))
        tensor([[1.]])
    """
    return matrix_exp(input)


# --- cond --------------------------------------------------------------------------------------


def cond(A: Tensor, p: Any = None, *, out: Any = None) -> Tensor:
    """The condition number of a (batch of) matrices in the norm ``p``: the ratio of the
    largest to the smallest singular value for ``p`` None or 2 (-2: its inverse), else
    ``norm(A, p) * norm(A^-1, p)`` for square A (inf where A is singular; for ``"nuc"``
    the sums of the singular values and of their reciprocals, NaN for a singular A).

    Example::

        >>> glassgrad.linalg.cond(glassgrad.tensor([[4.0, 0.0], [0.0, 2.0]]))
        tensor(2.)
    """
    data = check_tensor(A, "linalg.cond", "A")._data
    if out is not None:
        return composite_out("linalg.cond", out, lambda: cond(A, p))
    if data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if isinstance(p, str):
        check_square(f"linalg.cond(ord={p})", data)  # before the norm's name, as PyTorch
    if p is not None and p not in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if data.size == 0:
        # Undefined in NumPy; PyTorch's 0 for each matrix, a new tensor outside the graph.
        return Tensor._from_array(np.zeros(data.shape[:-2], np.empty(0, data.dtype).real.dtype))
    if p is None or p in (2, -2):
        # PyTorch's: the extreme singular values as narrowed views, divided, squeezed.
        values = svdvals(A)
        largest, smallest = narrow(values, -1, 0, 1), narrow(values, -1, -1, 1)
        ratio = largest / smallest if p != -2 else smallest / largest
        return squeeze(ratio, -1)
    if p == "nuc":
        # PyTorch's: both nuclear norms from A's singular values, no inverse (a singular A
        # gives 0 * inf = NaN; the SVD of an inverse full of inf or NaN would fail).
        values = svdvals(A)
        return values.sum(-1) * values.reciprocal().sum(-1)
    check_square(f"linalg.cond(ord={p})", data)
    inverse, info = inv_ex(A)
    value = matrix_norm(A, p) * matrix_norm(inverse, p)
    return where(info._data > 0, math.inf, value)


# --- vander ----------------------------------------------------------------------------------


def _powers(x: Tensor, n: int) -> Tensor:
    """[1, x, x^2, ..., x^(n-1)] along a new last dim, by a cumulative product."""
    data = x._data
    ones = Tensor._from_array(np.ones(data.shape + (1,), data.dtype))
    if n == 1:
        return ones
    repeated = expand(unsqueeze(x, -1), (*data.shape, n - 1))
    return cat([ones, cumprod(repeated, -1)], -1)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of ``x`` (batched over leading dims): column j is ``x ** j``,
    j = 0 .. N-1 (N defaults to x's last size).

    Example::

        >>> glassgrad.linalg.vander(glassgrad.tensor([1.0, 2.0, 3.0]))
        tensor([[1., 1., 1.],
                [1., 2., 4.],
                [1., 3., 9.]])
    """
    data = check_tensor(x, "linalg.vander", "x")._data
    n = data.shape[-1] if N is None and data.ndim else (1 if N is None else N)
    if n < 2:
        raise RuntimeError("N must be greater than 1.")
    if data.dtype == np.bool_:
        raise RuntimeError("linalg.vander: x must not be a boolean tensor")
    if data.dtype == np.float16:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got Half"
        )
    return _powers(x, n)


def vander_top(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """``torch.vander``: NumPy's Vandermonde matrix of a 1-D ``x``, powers decreasing from
    N-1 to 0 unless ``increasing``.

    Example::

        >>> glassgrad.vander(glassgrad.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
    """
    data = check_tensor(x, "vander", "x")._data
    if data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = data.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if n == 0:
        return Tensor._from_array(np.zeros((data.shape[0], 0), np.result_type(data, np.int64)))
    promoted = x if data.dtype.kind == "f" else to(x, from_numpy_dtype(np.dtype(np.int64)))
    result = _powers(promoted, n)
    return result if increasing else flip(result, -1)


# --- trace, linalg.diagonal ------------------------------------------------------------


class TraceBackward0(Op):
    """out = sum of the diagonal; grad flows to the diagonal"""

    shape: Any

    __slots__ = ("shape",)

    def forward(self, a: Any) -> Any:
        self.shape = a.shape
        dtype = np.int64 if a.dtype.kind in "biu" else a.dtype
        return np.asarray(np.trace(a), dtype=dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        eye = np.eye(*self.shape, dtype=bool)
        return F.where(eye, F.expand(grad, self.shape), 0.0)


def trace(input: Tensor) -> Tensor:
    """The sum of the diagonal of a 2-D tensor.

    Example::

        >>> glassgrad.trace(glassgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor(5.)
    """
    data = check_tensor(input, "trace")._data
    if data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {data.ndim}")
    return TraceBackward0.apply(input)


def linalg_diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``linalg.diagonal``: ``torch.diagonal`` with the last two dims by default.

    Example::

        >>> glassgrad.linalg.diagonal(glassgrad.eye(3))
        tensor([1., 1., 1.])
    """
    return diagonal_view(A, offset, dim1, dim2)


# --- registry ----------------------------------------------------------------------------

register(
    "matrix_power",
    matrix_power,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 3), 0)),
        Sample((randn(rng, 3, 3), 1)),
        Sample((randn(rng, 3, 3), 2)),
        Sample((randn(rng, 2, 3, 3), 3)),
        Sample((randn(rng, 3, 3) / 2, 6)),
        Sample((invertible(rng, 3, 3), -2)),
    ],
)
register("matrix_power", matrix_power_top, samples=lambda rng: [Sample((randn(rng, 3, 3), 5))])
_exp_samples = lambda rng: [  # noqa: E731
    Sample((randn(rng, 3, 3),)),
    Sample((randn(rng, 2, 3, 3),), note="batched"),
    Sample((4 * randn(rng, 3, 3),), note="scaled and squared"),
    Sample((randn(rng, 4, 4).T,), note="non-contiguous"),
]
register(
    "matrix_exp",
    matrix_exp,
    nodes=(LinalgMatrixExpBackward0,),
    namespace="linalg",
    samples=_exp_samples,
)
register(
    "matrix_exp",
    matrix_exp_top,
    nodes=(LinalgMatrixExpBackward0,),
    samples=lambda rng: [Sample((randn(rng, 3, 3),))],
)
register(
    "cond",
    cond,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 3),)),
        Sample((randn(rng, 4, 3), -2)),
        Sample((randn(rng, 2, 3, 3), 2)),
        # PyTorch's backward fails for these norms (inv_ex's output changed in place): values
        Sample((invertible(rng, 3, 3), "fro"), grad=False),
        Sample((invertible(rng, 3, 3), "nuc"), grad=False),
        Sample((invertible(rng, 3, 3), 1), grad=False),
        Sample((invertible(rng, 3, 3), -math.inf), grad=False),
    ],
)
register(
    "vander",
    vander,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 4),)),
        Sample((randn(rng, 2, 3),), {"N": 5}),
        Sample((np.arange(4),), grad=False),
    ],
)
register(
    "vander",
    vander_top,
    methods=(),
    samples=lambda rng: [
        # PyTorch's own backward of torch.vander fails (its in-place cumprod): values only
        Sample((randn(rng, 4),), grad=False),
        Sample((randn(rng, 3), 4, True), grad=False),
        Sample((np.arange(4), 2), grad=False),
    ],
)
register(
    "trace",
    trace,
    nodes=(TraceBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 3),)),
        Sample((randn(rng, 2, 4),)),
        Sample((np.arange(9).reshape(3, 3),), grad=False),
    ],
)
register(
    "diagonal",
    linalg_diagonal,
    namespace="linalg",
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 2, 3, 3),), {"offset": 1}),
        Sample((randn(rng, 3, 4, 2),), {"dim1": 0, "dim2": 2, "offset": -1}),
    ],
)
linalg_diagonal.__name__ = linalg_diagonal.__qualname__ = "diagonal"
