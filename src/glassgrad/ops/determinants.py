"""Determinants: ``linalg.det``, ``linalg.slogdet`` and the top-level det, slogdet and logdet.

Their backward formulas call ``inv`` and matmul, so under ``create_graph=True`` they record
differentiable ops and second derivatives come for free.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import return_types
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor
from ._linalg_common import (
    adjoint,
    all_finite,
    check_full_precision,
    check_square,
    constant_like,
    invertible,
    spd,
    swap,
)
from ._out import out_result
from ._registry import Sample, register
from ._samples import randn
from .decompositions import diag_embed, svd
from .inverses import LinalgInvExBackward0
from .linear_solve import LinalgSolveExBackward0
from .lu_solve import lu_of, lu_solve_arrays
from .pointwise import log, where
from .reduction_math import _exclusive_products
from .shape import stack

__all__ = ["det", "slogdet", "logdet"]


linalg_slogdet: type = return_types.linalg_slogdet


slogdet_result: type = return_types.slogdet


def _unsqueeze2(F: Any, x: Any) -> Any:
    return F.unsqueeze(F.unsqueeze(x, -1), -1)


def _cofactor(a: np.ndarray) -> np.ndarray:
    """The cofactor matrix adj(A)^T = det(A) A^-T, from the SVD A = U S Vh, defined for
    singular A too: det(U) det(Vh) conj(U) diag(prod of the other s) conj(Vh)."""
    u, s, vh = np.linalg.svd(a)
    ones = np.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    sign = np.linalg.det(u) * np.linalg.det(vh)
    products = np.matmul(np.conj(u) * np.expand_dims(before * after, -2), np.conj(vh))
    return _unsqueeze_arr(sign) * products


def _unsqueeze_arr(x: np.ndarray) -> np.ndarray:
    return np.expand_dims(np.asarray(x), (-1, -2))


# A matrix holding a NaN or inf: PyTorch's determinants come from its LU (``lu_of``), whose
# spread of them NumPy's LAPACK build does not share; finite matrices keep NumPy's.


def _lu_parts(a: np.ndarray) -> tuple[Any, ...]:
    """``(diagonal of U, sign of P, LU, pivots, transposed)`` of ``lu_of(a)``."""
    lu_data, pivots, _, transposed = lu_of(a)
    swaps = np.count_nonzero(pivots != np.arange(1, pivots.shape[-1] + 1), axis=-1)
    diagonal = np.diagonal(lu_data, axis1=-2, axis2=-1)
    return diagonal, np.where(swaps % 2, -1, 1), lu_data, pivots, transposed


def _sgn(x: np.ndarray) -> np.ndarray:
    """PyTorch's sgn: x / |x| (0 at 0); a real NaN's is 0."""
    if x.dtype.kind == "c":
        size = np.abs(x)
        return np.where(size == 0, 0, x / np.where(size == 0, 1, size))
    return np.where(np.isnan(x), 0, np.sign(x))


def _adjoint_solve(a: np.ndarray, values: np.ndarray, perturb: bool) -> np.ndarray:
    """PyTorch's det and slogdet gradients without a graph: X with A^H X = diag(values) by
    ``lu_solve`` on the forward's LU, ``lu_of`` (for det, a zero pivot moved to machine
    epsilon), so a singular or non-finite A gives its infinities and NaNs."""
    _, _, lu_data, pivots, transposed = _lu_parts(a)
    eye = np.eye(a.shape[-1], dtype=bool)
    if perturb:
        zero = np.diagonal(lu_data, 0, -2, -1) == 0
        lu_data = lu_data + np.where(eye, np.where(zero, np.finfo(a.dtype).eps, 0)[..., None], 0)
    # a select, not a product with I: an inf value leaves zeros off the diagonal
    d = np.where(eye, np.asarray(values, a.dtype)[..., None, None], 0).astype(a.dtype)
    d = np.broadcast_to(d, pivots.shape[:-1] + d.shape[-2:])
    with np.errstate(all="ignore"):
        return lu_solve_arrays(lu_data, pivots, d, True, not transposed)


def _solve_adjoint(F: Any, a: Tensor, values: Tensor) -> Tensor:
    """The same under ``create_graph``: PyTorch's ``linalg.solve(A^H, diag(values))``."""
    ones = constant_like(values, np.ones(a.shape[-1], dtype=a._data.dtype))
    return LinalgSolveExBackward0.call(adjoint(F, a), diag_embed(F, F.unsqueeze(values, -1) * ones))


class LinalgDetBackward0(Op):
    """out = det(A); gA = grad * det(A) * A^-T (the cofactor matrix if A is singular);
    holomorphic, so complex A gets grad * conj(det(A) A^-T)"""

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    holomorphic = True

    def forward(self, a: Any) -> Any:
        if all_finite(a):
            return np.asarray(np.linalg.det(a))
        diagonal, sign, *_ = _lu_parts(a)
        return np.asarray(np.prod(diagonal, axis=-1) * sign, dtype=a.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        a, det_a = self.saved
        if a.shape[-1] <= 1:
            # det of a 1x1 matrix is its entry (a 0x0 one is 1): the gradient is grad itself,
            # as PyTorch's shortcut gives it (not tied to A under create_graph).
            if a.shape[-1]:
                return F.reshape(grad, (*grad.shape, 1, 1))
            return F.zeros(tuple(a.shape), array_of(a).dtype)
        finite = all_finite(array_of(a))
        if not finite and isinstance(a, Tensor):  # PyTorch: solve(A^H, diag(grad det))
            return _solve_adjoint(F, a, grad * F.conj(det_a))
        if not finite:
            return _adjoint_solve(a, grad * np.conj(det_a), perturb=True)
        if isinstance(a, Tensor):
            return _det_gradient_with_graph(F, a, det_a, grad)
        try:
            inverse = np.linalg.inv(a)
        except np.linalg.LinAlgError:
            return _unsqueeze_arr(grad) * _cofactor(a)
        return _unsqueeze_arr(grad * det_a) * swap(inverse)


def _det_gradient_with_graph(F: Any, a: Tensor, det_a: Tensor, grad: Tensor) -> Tensor:
    """PyTorch's linalg_det_backward under create_graph: det(A) A^-T where |det A| is at
    least 100 eps, else the cofactor matrix from the SVD (Higham's adjugate of a singular
    matrix), matrix by matrix (its masked_fmap)."""
    eps = np.finfo(array_of(a).dtype).eps
    singular = np.abs(array_of(det_a)) < 100 * eps

    def gradient(a: Tensor, det_a: Tensor, grad: Tensor, is_singular: bool) -> Tensor:
        if is_singular:
            return _cofactor_with_graph(a, grad)
        return _unsqueeze2(F, grad * det_a) * F.mT(LinalgInvExBackward0.apply(a))

    if singular.all() or not singular.any():
        return gradient(a, det_a, grad, bool(singular.any()))
    n = a.shape[-1]
    matrices, dets, grads = a.reshape(-1, n, n), det_a.reshape(-1), grad.reshape(-1)
    parts = [
        gradient(matrices[i], dets[i], grads[i], is_singular)
        for i, is_singular in enumerate(singular.reshape(-1))
    ]
    return stack(parts).reshape(a.shape)


def _cofactor_with_graph(a: Tensor, grad: Tensor) -> Tensor:
    """``_cofactor`` with differentiable ops: U diag(alpha * exclusive products of S) Vh,
    alpha = conj(det U det Vh) grad (PyTorch's ``singular`` lambda)."""
    u, s, vh = svd(a)
    alpha = (det(u) * det(vh)).conj() * grad
    products = alpha.unsqueeze(-1) * _exclusive_products(s, s.ndim - 1)
    return (u * products.unsqueeze(-2)) @ vh


def det(A: Tensor, *, out: Any = None) -> Tensor:
    """The determinant of a square matrix (or of each in a batch).

    Example::

        >>> glassgrad.linalg.det(glassgrad.tensor([[2.0, 1.0], [1.0, 3.0]]))
        tensor(5.)
    """
    check_square(
        "linalg.det", check_tensor(A, "linalg.det", "A")._data, kernel="lu_cpu", complex_ok=True
    )
    result = LinalgDetBackward0.apply(A)
    return out_result("linalg_det", out, result, (A,), exact=True, autograd_op="_linalg_det")


class LinalgSlogdetBackward0(Op):
    """(sign, log|det A|); the gradient of log|det A| is A^-T. For complex A (sign = det/|det|
    on the unit circle) both outputs have one: with g = grad_logabsdet - i Im(grad_sign
    conj(sign)), gA = conj(g) A^-H, PyTorch's slogdet_backward."""

    saved_inputs: tuple[int, ...] = (0,)
    saved_outputs: tuple[int, ...] = (0,)  # the sign, as PyTorch saves it

    def forward(self, a: Any) -> Any:
        if all_finite(a):
            sign, logabsdet = np.linalg.slogdet(a)
        else:
            diagonal, p_sign, *_ = _lu_parts(a)
            sign = np.prod(_sgn(diagonal), axis=-1) * p_sign
            logabsdet = np.sum(np.log(np.abs(diagonal)), axis=-1)
        return np.asarray(sign, dtype=a.dtype), np.asarray(logabsdet, dtype=a.real.dtype)

    takes_undefined_grads = True

    def backward(self, F: Any, grads: Any) -> Any:
        a, sign = self.saved
        grad_sign, grad = grads
        if array_of(a).dtype.kind != "c":
            if grad is None:  # the sign of a real determinant has no gradient
                return None
            if not all_finite(array_of(a)) and isinstance(a, Tensor):
                return _solve_adjoint(F, a, grad)  # PyTorch's solve(A^H, diag(grad))
            if not isinstance(a, Tensor):
                return _lu_solve_adjoint(a, grad)
            return _unsqueeze2(F, grad) * F.mT(LinalgInvExBackward0.call(a))
        # Im(w) as Re(-i w): the namespace has real and conj only.
        g = grad
        if grad_sign is not None:
            phase = -1j * F.real(-1j * (grad_sign * F.conj(sign)))
            g = phase if g is None else g + phase
        if g is None:
            return None
        if not isinstance(a, Tensor):
            return _lu_solve_adjoint(a, np.conj(g))
        return F.conj(_unsqueeze2(F, g) * F.mT(LinalgInvExBackward0.call(a)))


def _lu_solve_adjoint(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """g A^-H as PyTorch's slogdet_backward computes it without a graph: ``lu_solve`` with the
    LU factorisation its forward made (of A^T when A is real and contiguous, as det(A^T) =
    det(A)), so a singular A gives its infinities and NaNs instead of an error."""
    if all_finite(a):  # LAPACK's solve where A is invertible (the same values, faster)
        d = np.expand_dims(g, (-1, -2)) * np.eye(a.shape[-1], dtype=a.dtype)
        with np.errstate(all="ignore"):
            try:
                solved = np.linalg.solve(np.conj(swap(a)), d)
                if np.isfinite(solved).all():
                    return solved
            except np.linalg.LinAlgError:
                pass
    return _adjoint_solve(a, g, perturb=False)


def _slogdet(A: Tensor, op: str) -> tuple:
    data = check_tensor(A, op, "A")._data
    check_square(op, data, complex_ok=True)
    check_full_precision("logdet" if op == "logdet" else "linalg.slogdet", data)
    return LinalgSlogdetBackward0.apply(A)


def slogdet(A: Tensor, *, out: Any = None) -> tuple[Tensor, ...]:
    """``(sign, logabsdet)`` with ``det(A) = sign * exp(logabsdet)``, stable for large or
    tiny determinants.

    Example::

        >>> glassgrad.linalg.slogdet(glassgrad.tensor([[-2.0, 0.0], [0.0, 3.0]])).logabsdet
        tensor(1.7918)
    """
    result = linalg_slogdet(*_slogdet(A, "linalg.slogdet"))
    return out_result(
        "linalg_slogdet", out, result, (A,), exact=True, autograd_op="_linalg_slogdet"
    )


def _slogdet_top(input: Tensor, *, out: Any = None) -> tuple[Tensor, ...]:
    """``torch.slogdet``: as ``linalg.slogdet``, named ``slogdet``."""
    result = slogdet_result(*_slogdet(input, "linalg.slogdet"))
    return out_result("slogdet", out, result, (input,), exact=True, autograd_op="_linalg_slogdet")


def logdet(input: Tensor) -> Tensor:
    """``log(det(input))``: nan for a negative determinant, -inf for a zero one (for complex
    input, ``log(sign) + logabsdet``, the principal logarithm).

    Example::

        >>> glassgrad.logdet(glassgrad.tensor([[2.0, 0.0], [0.0, 3.0]]))
        tensor(1.7918)
    """
    sign, logabsdet = _slogdet(input, "logdet")
    if sign._data.dtype.kind == "c":
        return log(sign) + logabsdet
    return where(sign._data < 0, math.nan, logabsdet)


def _det(input: Tensor) -> Tensor:
    """``torch.det``: the same as ``linalg.det``."""
    return det(input)


_det_samples = lambda rng: [  # noqa: E731
    Sample((invertible(rng, 3, 3),)),
    Sample((randn(rng, 2, 3, 3),), note="batched"),
    Sample((randn(rng, 4, 4).T,), note="non-contiguous"),
    Sample((randn(rng, 1, 1),)),
    Sample((np.zeros((0, 0)),)),
]


register("det", det, nodes=(LinalgDetBackward0,), namespace="linalg", samples=_det_samples)


register("det", _det, nodes=(LinalgDetBackward0,), samples=_det_samples)


_slogdet_samples = lambda rng: [  # noqa: E731
    Sample((invertible(rng, 3, 3),)),
    Sample((randn(rng, 2, 3, 3),), note="batched, signs"),
    Sample((randn(rng, 4, 4).T,), note="non-contiguous"),
]


register(
    "slogdet",
    slogdet,
    nodes=(LinalgSlogdetBackward0,),
    namespace="linalg",
    samples=_slogdet_samples,
)


register("slogdet", _slogdet_top, nodes=(LinalgSlogdetBackward0,), samples=_slogdet_samples)


register(
    "logdet",
    logdet,
    samples=lambda rng: [
        Sample((spd(rng, 3, 3),)),
        Sample((spd(rng, 2, 3, 3),)),
        Sample((np.diag([-1.0, 2.0, 3.0]),), grad=False, note="negative det: nan"),
    ],
)


for _alias, _public in ((_det, "det"), (_slogdet_top, "slogdet")):
    _alias.__name__ = _alias.__qualname__ = _public
