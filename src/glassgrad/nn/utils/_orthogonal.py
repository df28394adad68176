"""``orthogonal``: the parametrization of ``nn.utils.parametrizations`` that keeps a matrix (or
a batch of them) orthogonal, as PyTorch's ``_Orthogonal``.

A weight of shape (..., n, k) is the image of an unconstrained tensor ``X`` of the same shape
under a map onto the orthogonal (n >= k: orthonormal columns) matrices:

- ``"matrix_exp"``: ``exp(A)`` of the skew-symmetric ``A = tril(X) - tril(X)^T``;
- ``"cayley"``: ``(I - A/2)^{-1} (I + A/2)``;
- ``"householder"``: the product of the reflections in the columns of ``tril(X, -1)``.

With ``use_trivialization`` (the default) the map is applied around a base: ``Q = B map(X)``,
and assigning a matrix sets ``B`` to it (made orthogonal by a QR step, completed randomly when
not square) and ``X`` to ``-I``, whose image is the identity, as PyTorch does.
"""

from __future__ import annotations

from ... import _factories, linalg
from ..._tensor import Tensor
from ..._type_info import finfo
from ...autograd.grad_mode import no_grad
from ...ops.householder import geqrf
from ...ops.shape import cat
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal"]

_MAPS = ("matrix_exp", "cayley", "householder")


def _is_orthogonal(Q: Tensor) -> bool:
    n, k = Q.size(-2), Q.size(-1)
    identity = _factories.eye(k, dtype=Q.dtype)
    eps = 10.0 * n * finfo(Q.dtype).eps
    return bool(Q.mH.matmul(Q).allclose(identity, atol=eps))


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A's QR decomposition with R's diagonal made positive."""
    X, tau = geqrf(A)
    Q = linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    base: Tensor

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                zeros = X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)
                X = cat([X, zeros], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = linalg.matrix_exp(A)
            else:
                identity = _factories.eye(n, dtype=A.dtype)
                Q = linalg.solve(identity.add(A, alpha=-0.5), identity.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor "
                    f"of shape {Q.shape}."
                )
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in ("matrix_exp", "cayley"):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False."
                    )
                A, tau = geqrf(Q)
                A.diagonal(dim1=-2, dim2=-1).sign_()
                A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                N = _factories.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype)
                Q = _make_orthogonal(cat([Q, N], dim=-1))
            self.base = Q
            neg_identity = _factories.zeros_like(Q_init)
            neg_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_identity


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """Keep ``module.<name>`` orthogonal (orthonormal rows or columns when not square) by a
    parametrization; see the module notes for the three maps. The default map is
    ``"matrix_exp"`` for square matrices, else ``"householder"``.

    Example::

        >>> layer = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3))
        >>> w = layer.weight
        >>> bool((w.T @ w).allclose(glassgrad.eye(3), atol=1e-5))
        True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: '
            f"{orthogonal_map}"
        )
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
