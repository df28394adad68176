"""The gradient of ``lobpcg`` (B = I): PyTorch's ``_symeig_backward`` of ``torch/_lobpcg.py``,
written with glassgrad Tensor ops so that it is differentiable again.

For k eigenpairs ``A U = U diag(D)`` of symmetric m x m ``A``, the gradient within
``span(U)`` is the complete eigendecomposition's,
``U (diag(gD) + (U^T gU) * F) U^T`` with ``F[i, j] = 1 / (D[j] - D[i])`` off the diagonal.
When k < m, the part in the orthogonal complement solves the Sylvester equation
``U_o^T A U_o dX - dX diag(D) = -U_o^T A U``; Hu and Cheng's polynomial solution writes it
with ``p``, the characteristic polynomial of ``diag(D)``:
``U_o (U_o^T p(A) U_o)^-1 U_o^T sum_k c_k sum_i A^(k-1-i) gU diag(D)^i U^T``.
``U_o`` is a basis of the complement: the projection of a Gaussian draw from a generator of
fixed seed (glassgrad's stream, not PyTorch's; the result does not depend on the basis).
"""

from __future__ import annotations

from typing import Any

from .._dtype import bool_
from .._factories import Generator, eye, randn
from .._tensor import Tensor
from .cholesky import cholesky, cholesky_solve
from .shape import cat

__all__ = ["symeig_backward"]


def _complete_eigenspace(D_grad: Tensor, U_grad: Tensor, D: Tensor, U: Tensor) -> Tensor:
    k = D.shape[-1]
    diagonal = eye(k, dtype=bool_)
    gaps = D.unsqueeze(-2) - D.unsqueeze(-1)
    F = gaps.masked_fill(diagonal, float("inf")).pow(-1)
    Ut = U.mT.contiguous()
    return U @ ((D_grad.diag_embed() + (Ut @ U_grad) * F) @ Ut)


def _polynomial_coefficients_given_roots(roots: Tensor) -> Tensor:
    """``(a_0, ..., a_n = 1)`` with ``prod_i (x - r_i) = sum_j a_j x^j``, by Horner's steps
    on whole tensors (each step a new node, so the coefficients are differentiable in the
    roots without finding roots again). One leading slot more keeps every step the same
    shape; it is dropped at the end."""
    order = roots.shape[-1]
    coefficients = roots.new_zeros((*roots.shape[:-1], order + 2))
    coefficients[..., 0] = 1
    coefficients[..., -1] = 1
    for i in range(1, order + 1):
        lo = order - i
        root = roots.narrow(-1, i - 1, 1)
        updated = coefficients[..., lo : order + 1] - root * coefficients[..., lo + 1 :]
        coefficients = cat((coefficients[..., :lo], updated, coefficients[..., order + 1 :]), -1)
    return coefficients.narrow(-1, 1, order + 1)


def _vector_polynomial_value(poly: Tensor, x: Tensor) -> Tensor:
    """``sum_j poly[..., j] x^j`` elementwise (Horner)."""
    result = x.new_ones(1).expand(x.shape)
    for k in range(poly.shape[-1] - 2, -1, -1):
        result = poly[..., k].unsqueeze(-1) + x * result
    return result


def _matrix_polynomial_value(poly: Tensor, x: Tensor) -> Tensor:
    """``sum_j poly[..., j] x^j`` for (batches of) square matrices ``x`` (Horner)."""
    m = x.shape[-1]
    identity = eye(m, m, dtype=x.dtype)
    result = identity.view(*([1] * (x.dim() - 2)), m, m)
    for k in range(poly.shape[-1] - 2, -1, -1):
        result = x @ result + poly[..., k].unsqueeze(-1).unsqueeze(-1) * identity
    return result


def _partial_eigenspace(
    D_grad: Tensor, U_grad: Tensor, A: Tensor, D: Tensor, U: Tensor, largest: bool
) -> Tensor:
    m, k = A.shape[-1], D.shape[-1]
    Ut = U.mT.contiguous()
    complement = eye(m, dtype=A.dtype) - U @ Ut
    draw = randn((*A.shape[:-1], m - k), dtype=A.dtype, generator=Generator())
    U_ortho = complement @ draw
    U_ortho_t = U_ortho.mT.contiguous()
    chr_poly_D = _polynomial_coefficients_given_roots(D)
    # sum_k c_k sum_i A^(k-1-i) gU D^i, grouped by powers of A: A^j gU (sum_{i>j} c_i D^(i-1-j))
    projected = U_grad
    series = U_grad.new_zeros(U_grad.shape)
    for j in range(1, chr_poly_D.shape[-1]):
        series = series + projected * _vector_polynomial_value(chr_poly_D[..., j:], D).unsqueeze(-2)
        projected = A @ projected
    at_A = U_ortho_t @ (_matrix_polynomial_value(chr_poly_D, A) @ U_ortho)
    # p(A) restricted to the complement is definite: positive unless the k largest
    # eigenvalues are its roots with k odd.
    sign = -1 if (largest and k % 2 == 1) else 1
    L = cholesky(sign * at_A)
    res = _complete_eigenspace(D_grad, U_grad, D, U)
    return res - (U_ortho @ (sign * cholesky_solve(U_ortho_t @ series, L))) @ Ut


def symeig_backward(
    D_grad: Tensor, U_grad: Tensor, A: Tensor, D: Tensor, U: Tensor, largest: bool
) -> Any:
    """A's gradient from those of the eigenvalues ``D`` and eigenvectors ``U`` (columns)."""
    if U.shape[-1] == U.shape[-2]:
        return _complete_eigenspace(D_grad, U_grad, D, U)
    return _partial_eigenspace(D_grad, U_grad, A, D, U, largest)
