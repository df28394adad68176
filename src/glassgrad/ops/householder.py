"""Householder reflectors, LAPACK's representation of Q in a QR factorization:
``torch.geqrf`` (the reflectors and their scales), ``linalg.householder_product`` /
``torch.orgqr`` (Q from them) and ``torch.ormqr`` (Q applied to a matrix).

Reflector i is ``H_i = I - tau_i v_i v_i^T`` with ``v_i`` the i-th column of the input below
the diagonal and 1 on it. The gradient of the product is PyTorch's
``householder_product_backward``; ``geqrf`` has none (as in PyTorch).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor
from ._linalg_common import check_kernel_dtype, column_major, constant_like, swap
from ._not_implemented import _not_implemented_node
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn

__all__ = ["householder_product", "orgqr", "geqrf", "ormqr"]


def _reflector_vectors(a: np.ndarray, k: int) -> np.ndarray:
    """The first k reflector vectors: below-diagonal columns of ``a`` with 1 on the diagonal."""
    m = a.shape[-2]
    v = np.tril(a[..., :, :k], -1)
    return v + np.eye(m, k, dtype=a.dtype)


def householder_product_arrays(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """The first n columns of H_1 ... H_k, applied right to left to the m x n identity."""
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    v = _reflector_vectors(a, k)
    batch = np.broadcast_shapes(a.shape[:-2], tau.shape[:-1])
    q = np.array(np.broadcast_to(np.eye(m, n, dtype=a.dtype), (*batch, m, n)))
    for i in range(k - 1, -1, -1):
        vi = v[..., :, i : i + 1]
        q -= tau[..., i, None, None] * vi * np.matmul(swap(vi), q)
    return q


class LinalgHouseholderProductBackward0(Op):
    """Q = (H_1 ... H_k)[:, :n]; the gradient is PyTorch's ``householder_product_backward``"""

    saved_inputs: tuple[int, ...] = (0, 1)
    saves_output = True
    __slots__ = ()

    def forward(self, a: Any, tau: Any) -> Any:
        return column_major(householder_product_arrays(a, tau))

    def backward(self, F: Any, grad: Any) -> Any:
        a, tau, q = self.saved
        return householder_backward(F, grad, a, tau, q)


def householder_backward(
    F: Any, grad: Any, a: Any, tau: Any, q: Any, flip_order: bool = False
) -> tuple[Any, ...]:
    """PyTorch's ``householder_product_backward``: the gradients of A and tau from that of
    Q = householder_product(A, tau), updating K = H_(i+1)^-1 K H_i reflector by reflector.

    K starts as ``q @ grad^T``: with ``q`` the product applied to some C and ``grad`` that
    product's gradient, it is the same K. ``flip_order``: the product is H_k ... H_1."""
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    if m == 0 or n == 0 or k == 0:
        return None, None
    dtype = array_of(a).dtype
    lower = F.where(np.tril(np.ones((m, n), bool), -1), a, 0.0)
    v_all = F.where(np.eye(m, n, dtype=bool), 1.0, lower)
    vectors = [v_all[..., :, i : i + 1] for i in range(k)]
    taus = [F.unsqueeze(tau[..., i : i + 1], -1) for i in range(k)]  # (..., 1, 1)
    # sigma_i with H(sigma_i) = H(tau_i)^-1
    sigmas = [t / (t * F.sum(v * v, -2, True) - 1.0) for v, t in zip(vectors, taus)]

    def reflect_left(v: Any, t: Any, x: Any) -> Any:
        return x - t * v * F.matmul(F.mT(v), x)

    def reflect_right(v: Any, t: Any, x: Any) -> Any:
        return x - t * F.matmul(x, v) * F.mT(v)

    order = list(reversed(range(k))) if flip_order else list(range(k))
    big_k = reflect_left(vectors[order[0]], sigmas[order[0]], F.matmul(q, F.mT(grad)))
    grad_columns, grad_taus = [None] * k, [None] * k
    for step, i in enumerate(order):
        v, t = vectors[i], taus[i]
        v_k = F.matmul(F.mT(v), big_k)  # (..., 1, m)
        k_v = F.matmul(big_k, v)  # (..., m, 1)
        grad_columns[i] = -(t * F.mT(v_k)) - t * k_v
        grad_taus[i] = -F.matmul(v_k, v)
        if step != k - 1:
            following = order[step + 1]
            big_k = reflect_left(vectors[following], sigmas[following], big_k)
            big_k = reflect_right(v, t, big_k)
    columns = F.stack([c[..., :, 0] for c in grad_columns], -1)  # (..., m, k)
    grad_a = F.matmul(columns, constant_like(columns, np.eye(k, n, dtype=dtype)))
    grad_a = F.where(np.tril(np.ones((m, n), bool), -1), grad_a, 0.0)
    grad_tau = F.stack([g[..., 0, 0] for g in grad_taus], -1)
    return grad_a, grad_tau


def householder_product(A: Tensor, tau: Tensor, *, out: Any = None) -> Tensor:
    """The first n columns of the product of Householder reflectors ``H_1 ... H_k`` given as
    by ``geqrf``: reflector i from column i of A below the diagonal (1 on it) and ``tau[i]``.

    Example::

        >>> a, tau = glassgrad.geqrf(glassgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> glassgrad.linalg.householder_product(a, tau)
        tensor([[-0.6000, -0.8000],
                [-0.8000,  0.6000]])
    """
    op = "torch.linalg.householder_product"
    a = check_tensor(A, "linalg.householder_product", "A")._data
    t = check_tensor(tau, "linalg.householder_product", "tau", 2)._data
    if a.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    m, n = a.shape[-2:]
    if m < n:
        raise RuntimeError(
            f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if t.ndim < 1 or t.shape[-1] > n:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if t.ndim != a.ndim - 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal "
            f"to {t.ndim} and input.ndim is equal to {a.ndim}"
        )
    if t.shape[:-1] != a.shape[:-2]:
        raise RuntimeError(
            f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{list(t.shape[:-1])}"
        )
    if t.dtype != a.dtype:
        raise RuntimeError(
            f"{op}: tau dtype {scalar_type_name(t.dtype)} does not match input dtype "
            f"{scalar_type_name(a.dtype)}"
        )
    check_kernel_dtype("orgqr_cpu", a)
    result = LinalgHouseholderProductBackward0.apply(A, tau)
    return out_result("linalg_householder_product", out, result, (A, tau), exact=True)


def orgqr(input: Tensor, input2: Tensor) -> Tensor:
    """``torch.orgqr``: ``linalg.householder_product`` (``input2`` holds the scales tau).

    Example::

        >>> a, tau = glassgrad.geqrf(glassgrad.eye(2))
        >>> glassgrad.orgqr(a, tau)
        tensor([[1., 0.],
                [0., 1.]])
    """
    return householder_product(input, input2)


def geqrf(input: Tensor, *, out: Any = None) -> tuple[Tensor, ...]:
    """``(a, tau)``: LAPACK's QR factorization: R on and above the diagonal of ``a``, the
    Householder reflectors of Q below it with their scales in ``tau`` (not differentiable:
    as in PyTorch, the results require grad and their backward raises).

    Example::

        >>> a, tau = glassgrad.geqrf(glassgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> a[0]
        tensor([-5.0000, -2.2000])
    """
    data = check_tensor(input, "geqrf")._data
    if data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    check_kernel_dtype("geqrf_cpu", data)
    result = return_types.geqrf(*GeqrfBackward0.apply(input))
    return out_result("geqrf", out, result, (input,), exact=True)


def _geqrf_arrays(data: np.ndarray) -> tuple:
    if data.size == 0:
        k = min(data.shape[-2:])
        h, t = np.array(data), np.zeros(data.shape[:-2] + (k,), data.dtype)
    else:
        raw, t = np.linalg.qr(data, mode="raw")
        h = swap(raw)
    return column_major(h.astype(data.dtype, copy=False)), np.asarray(t, dtype=data.dtype)


# PyTorch records geqrf with a node whose backward raises: both results require grad.
GeqrfBackward0: type[Op] = _not_implemented_node("geqrf", _geqrf_arrays, "GeqrfBackward0")


def _square(F: Any, a: Any) -> Any:
    """The m x m reflector matrix of an m x n ``a``: columns cut, or zero columns added (the
    identity's columns of Q beyond the reflectors)."""
    m, n = a.shape[-2:]
    if n == m:
        return a
    return F.matmul(a, constant_like(a, np.eye(n, m, dtype=array_of(a).dtype)))


def _unsquare(F: Any, grad: Any, n: int) -> Any:
    """The gradient of an m x n ``a`` from that of ``_square(a)``."""
    m = grad.shape[-1]
    if n == m:
        return grad
    return F.matmul(grad, constant_like(grad, np.eye(m, n, dtype=array_of(grad).dtype)))


def _apply_q(F: Any, q: Any, c: Any, left: bool, transpose: bool) -> Any:
    q = F.mT(q) if transpose else q
    return F.matmul(q, c) if left else F.matmul(c, q)


class OrmqrBackward0(Op):
    """op(Q) C or C op(Q), Q the full product of the reflectors (input, tau); gC by the
    transposed product, the reflectors' gradients by ``householder_product_backward``"""

    left: Any
    transpose: Any

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    saves_output = True
    __slots__ = ("left", "transpose")

    def forward(self, a: Any, tau: Any, c: Any, left: Any = True, transpose: Any = False) -> Any:
        self.left, self.transpose = left, transpose
        q = householder_product_arrays(_square(_ArrayOps, a), tau)
        return column_major(_apply_q(_ArrayOps, q, c, left, transpose))

    def backward(self, F: Any, grad: Any) -> Any:
        a, tau, _, result = self.saved
        needs = self.needs_input_grad
        square = _square(F, a)
        q = LinalgHouseholderProductBackward0.call(square, tau)
        left, trans = self.left, self.transpose
        grad_c = _apply_q(F, q, grad, left, not trans) if needs[2] else None
        if not (needs[0] or needs[1]):
            return None, None, grad_c
        # PyTorch's ormqr_backward reads the result (a hook on it sees the second derivative):
        # the result is op(Q) C, or its transpose C^T op(Q)^T, and op(Q) is H_1 ... H_k, or
        # H_k ... H_1 for Q^T; householder_product_backward's K is the result times grad^T.
        g, r = (grad, result) if left else (F.mT(grad), F.mT(result))
        grad_a, grad_tau = householder_backward(F, g, square, tau, r, flip_order=left == trans)
        grad_a = _unsquare(F, grad_a, a.shape[-1])
        return (grad_a if needs[0] else None), (grad_tau if needs[1] else None), grad_c


class _ArrayOps:
    """``matmul`` and ``mT`` on arrays, for the forward's use of ``_apply_q``."""

    matmul = staticmethod(np.matmul)
    mT = staticmethod(swap)


def _check_ormqr(a: np.ndarray, tau: np.ndarray, other: np.ndarray, side: int) -> None:
    """PyTorch's checks of ormqr's arguments, in its order (``side``: the dimension of
    ``other`` that Q multiplies, -2 from the left)."""
    for name, array in (("input", a), ("other", other)):
        if array.ndim < 2:
            raise RuntimeError(f"torch.ormqr: {name} must have at least 2 dimensions.")
    if other.shape[side] != a.shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if tau.shape[-1] != min(other.shape[side], a.shape[-1]):
        raise RuntimeError(
            f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])"
        )
    for name, array, less in (("tau", tau, 1), ("other", other, 0)):
        if array.ndim != a.ndim - less:
            expectation = "one dimension less than" if less else "the same number of dimensions as"
            raise RuntimeError(
                f"torch.ormqr: Expected {name} to have {expectation} input, but got {name}.ndim "
                f"equal to {array.ndim} and input.ndim is equal to {a.ndim}"
            )
    for name, batch in (("tau", tau.shape[:-1]), ("other", other.shape[:-2])):
        if a.ndim > 2 and batch != a.shape[:-2]:
            raise RuntimeError(
                f"torch.ormqr: Expected batch dimensions of {name} to be equal to "
                f"input.shape[:-2], but got {list(batch)}"
            )
    for name, array in (("tau", tau), ("other", other)):
        if array.dtype != a.dtype:
            raise RuntimeError(
                f"torch.ormqr: Expected input and {name} to have the same dtype, but input has "
                f"dtype{scalar_type_name(a.dtype)} and {name} has dtype "
                f"{scalar_type_name(array.dtype)}"
            )
    check_kernel_dtype("ormqr_cpu", a)


def ormqr(
    input: Tensor,
    input2: Tensor,
    input3: Tensor,
    left: bool = True,
    transpose: bool = False,
    *,
    out: Any = None,
) -> Tensor:
    """``Q @ other`` (``other @ Q`` when not ``left``; Q^T with ``transpose``) for the full
    m x m Q of the reflectors ``(input, tau)`` of ``geqrf`` (``input2`` is tau, ``input3``
    is other, as PyTorch names them), computed as the product of Q
    from ``householder_product`` (so differentiable in all three arguments).

    Example::

        >>> a, tau = glassgrad.geqrf(glassgrad.eye(2))
        >>> glassgrad.ormqr(a, tau, glassgrad.ones(2, 1))
        tensor([[1.],
                [1.]])
    """
    tau, other = input2, input3
    a = check_tensor(input, "ormqr")._data
    t = check_tensor(tau, "ormqr", "input2", 2)._data
    c = check_tensor(other, "ormqr", "input3", 3)._data
    _check_ormqr(a, t, c, -2 if left else -1)
    result = OrmqrBackward0.apply(input, tau, other, left=bool(left), transpose=bool(transpose))
    return out_result("ormqr", out, result, (input, tau, other), exact=True)


# --- registry ----------------------------------------------------------------------------


def _reflectors(rng: np.random.Generator, *shape: int) -> tuple:
    raw, tau = np.linalg.qr(randn(rng, *shape), mode="raw")
    return np.ascontiguousarray(swap(raw)), np.asarray(tau)


register(
    "householder_product",
    householder_product,
    nodes=(LinalgHouseholderProductBackward0,),
    namespace="linalg",
    samples=lambda rng: [
        Sample(_reflectors(rng, 3, 3)),
        Sample(_reflectors(rng, 4, 2)),
        Sample((randn(rng, 4, 3), randn(rng, 2)), note="fewer reflectors than columns"),
        Sample(_reflectors(rng, 2, 4, 3), note="batched"),
        Sample((randn(rng, 3, 3), NoGrad(randn(rng, 3)))),
    ],
)
register(
    "orgqr",
    orgqr,
    nodes=(LinalgHouseholderProductBackward0,),
    samples=lambda rng: [Sample(_reflectors(rng, 4, 3))],
)
register(
    "geqrf",
    geqrf,
    differentiable=False,
    samples=lambda rng: [
        Sample((randn(rng, 4, 3),)),
        Sample((randn(rng, 2, 3, 5),)),
    ],
)
register(
    "ormqr",
    ormqr,
    nodes=(OrmqrBackward0,),
    samples=lambda rng: [
        Sample((*_reflectors(rng, 4, 3), randn(rng, 4, 2))),
        Sample((*_reflectors(rng, 3, 3), randn(rng, 2, 3), False)),
        Sample((*_reflectors(rng, 4, 2), randn(rng, 4, 2), True, True)),
        Sample((*_reflectors(rng, 3, 3), randn(rng, 2, 3), False, True)),
    ],
)
