"""Householder reflectors, LAPACK's representation of Q in a QR factorization:
``torch.geqrf`` (the reflectors and their scales), ``linalg.householder_product`` /
``torch.orgqr`` (Q from them) and ``torch.ormqr`` (Q applied to a matrix).

Reflector i is ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` the i-th column of the input below
the diagonal and 1 on it (real or complex). The gradient of the product is PyTorch's
``householder_product_backward`` (conjugate Wirtinger for complex input); ``geqrf`` has none
(as in PyTorch).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import array_of, check_tensor
from ._linalg_common import (
    adjoint,
    all_finite,
    check_kernel_dtype,
    column_major,
    swap,
)
from ._not_implemented import _not_implemented_node, refuse_complex_autograd
from ._out import out_result
from ._qr_replay import geqr2, org2r, orm2r
from ._registry import NoGrad, Sample, register
from ._samples import complex_randn, randn
from .arithmetic import conj_of

__all__ = ["householder_product", "orgqr", "geqrf", "ormqr"]


def _reflector_vectors(a: np.ndarray, k: int) -> np.ndarray:
    """The first k reflector vectors: below-diagonal columns of ``a`` with 1 on the diagonal."""
    m = a.shape[-2]
    v = np.tril(a[..., :, :k], -1)
    return v + np.eye(m, k, dtype=a.dtype)


def householder_product_arrays(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """The first n columns of H_1 ... H_k, applied right to left to the m x n identity (with a
    NaN or inf about, org2r's steps, as PyTorch's MKL takes them)."""
    if a.dtype.kind != "c" and not (all_finite(a) and all_finite(tau)):
        return org2r(a, tau)
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    v = _reflector_vectors(a, k)
    batch = np.broadcast_shapes(a.shape[:-2], tau.shape[:-1])
    q = np.array(np.broadcast_to(np.eye(m, n, dtype=a.dtype), (*batch, m, n)))
    for i in range(k - 1, -1, -1):
        vi = v[..., :, i : i + 1]
        q -= tau[..., i, None, None] * vi * np.matmul(np.conj(swap(vi)), q)
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
        return householder_backward(F, grad, q, a, tau)


def householder_backward(
    F: Any, grad: Any, result: Any, a: Any, tau: Any, flip_order: bool = False
) -> tuple[Any, ...]:
    """PyTorch's ``householder_product_backward``: the gradients of A and tau from that of
    Q = householder_product(A, tau), updating K = H_(i+1)^-1 K H_i reflector by reflector.

    K starts as ``result @ grad^H``: with ``result`` the product applied to some C and
    ``grad`` that product's gradient, it is the same K. ``flip_order``: the reflectors are
    taken last to first and K is updated from the other side (ormqr's products with Q^H)."""
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    if m == 0 or n == 0 or k == 0:
        return None, None
    lower = F.where(np.tril(np.ones((m, n), bool), -1), a, 0.0)
    v_all = F.where(np.eye(m, n, dtype=bool), 1.0, lower)
    vectors = [v_all[..., :, i : i + 1] for i in range(k)]
    taus = [F.unsqueeze(tau[..., i : i + 1], -1) for i in range(k)]  # (..., 1, 1)
    # sigma_i with H(sigma_i) = H(tau_i)^-1
    sigmas = [t / (t * F.sum(v * conj_of(F, v), -2, True) - 1.0) for v, t in zip(vectors, taus)]

    def reflect(v: Any, t: Any, x: Any, left: bool) -> Any:
        """(I - t v v^H) x, or x (I - t v v^H) when not ``left``."""
        if left:
            return x - t * v * F.matmul(adjoint(F, v), x)
        return x - F.matmul(x, t * v) * adjoint(F, v)

    order = list(reversed(range(k))) if flip_order else list(range(k))
    big_k = reflect(
        vectors[order[0]], sigmas[order[0]], F.matmul(result, adjoint(F, grad)), not flip_order
    )
    grad_columns, grad_taus = [None] * k, [None] * k
    for step, i in enumerate(order):
        v, t = vectors[i], taus[i]
        vh_k = F.matmul(adjoint(F, v), big_k)  # (..., 1, m)
        k_v = F.matmul(big_k, v)  # (..., m, 1)
        grad_columns[i] = -conj_of(F, t * F.mT(vh_k)) - t * k_v
        grad_taus[i] = -conj_of(F, F.matmul(vh_k, v))
        if step != k - 1:
            following = order[step + 1]
            big_k = reflect(vectors[following], sigmas[following], big_k, not flip_order)
            big_k = reflect(v, t, big_k, flip_order)
    columns = F.stack([c[..., :, 0] for c in grad_columns], -1)  # (..., m, k)
    if k < n:  # the columns past the reflectors' get zeros (a product with eye(k, n) made
        # 0 * NaN there: fuzz seed 855501)
        padding = F.zeros((*columns.shape[:-1], n - k), array_of(columns).dtype)
        columns = F.cat([columns, padding], -1)
    grad_a = F.where(np.tril(np.ones((m, n), bool), -1), columns, 0.0)
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
    check_kernel_dtype("orgqr_cpu", a, complex_ok=True)
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
    as in PyTorch, the results require grad and their backward raises; a complex input that
    requires grad is refused under grad mode).

    Example::

        >>> a, tau = glassgrad.geqrf(glassgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> a[0]
        tensor([-5.0000, -2.2000])
    """
    data = check_tensor(input, "geqrf")._data
    if data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    check_kernel_dtype("geqrf_cpu", data, complex_ok=True)
    refuse_complex_autograd("geqrf", input)
    result = return_types.geqrf(*GeqrfBackward0.apply(input))
    return out_result("geqrf", out, result, (input,), exact=True)


def _geqrf_arrays(data: np.ndarray) -> tuple:
    if data.size == 0:
        k = min(data.shape[-2:])
        h, t = np.array(data), np.zeros(data.shape[:-2] + (k,), data.dtype)
    elif data.dtype.kind != "c" and not all_finite(data):
        h, t = geqr2(data)  # the NaN and inf where PyTorch's MKL puts them
    else:
        raw, t = np.linalg.qr(data, mode="raw")
        h = swap(raw)
    return column_major(h.astype(data.dtype, copy=False)), np.asarray(t, dtype=data.dtype)


# PyTorch records geqrf with a node whose backward raises: both results require grad.
GeqrfBackward0: type[Op] = _not_implemented_node("geqrf", _geqrf_arrays, "GeqrfBackward0")


def _full_reflectors(a: np.ndarray) -> np.ndarray:
    """The m x m reflector matrix of an m x n ``a``: columns cut, or zero columns added (the
    identity's columns of Q beyond the reflectors)."""
    m, n = a.shape[-2:]
    if n >= m:
        return a[..., :m]
    return np.concatenate([a, np.zeros((*a.shape[:-1], m - n), a.dtype)], -1)


class OrmqrBackward0(Op):
    """op(Q) C or C op(Q), Q the full product of the reflectors (input, tau), op(Q) = Q^H with
    ``transpose``: PyTorch's ``ormqr_backward`` (gC by ormqr with the other op(Q), the
    reflectors' gradients by ``householder_product_backward``)"""

    left: Any
    transpose: Any

    saved_inputs: tuple[int, ...] = (0, 1, 2)  # other too, as PyTorch's node saves it
    saves_output = True
    __slots__ = ("left", "transpose")

    def forward(self, a: Any, tau: Any, c: Any, left: Any = True, transpose: Any = False) -> Any:
        self.left, self.transpose = left, transpose
        if a.dtype.kind != "c" and not (all_finite(a) and all_finite(tau) and all_finite(c)):
            return column_major(orm2r(a, tau, c, left, transpose))  # as PyTorch's MKL
        q = householder_product_arrays(_full_reflectors(a), tau)
        if transpose:
            q = np.conj(swap(q))
        return column_major(np.matmul(q, c) if left else np.matmul(c, q))

    def backward(self, F: Any, grad: Any) -> Any:
        a, tau, _, result = self.saved
        needs = self.needs_input_grad
        left, trans = self.left, self.transpose
        grad_c = None
        if needs[2]:
            grad_c = OrmqrBackward0.call(a, tau, grad, left=left, transpose=not trans)
        if not (needs[0] or needs[1]):
            return None, None, grad_c
        # op(Q) is H_1 ... H_k (Q), or H_k^H ... H_1^H (Q^H): K is the result times grad^H,
        # or grad^H times the result with the reflectors taken last to first.
        if left != trans:
            g, r = (adjoint(F, grad), adjoint(F, result)) if trans else (grad, result)
            grad_a, grad_tau = householder_backward(F, g, r, a, tau)
        else:
            g, r = (result, grad) if trans else (adjoint(F, result), adjoint(F, grad))
            grad_a, grad_tau = householder_backward(F, g, r, a, tau, flip_order=True)
        return (grad_a if needs[0] else None), (grad_tau if needs[1] else None), grad_c


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
    check_kernel_dtype("ormqr_cpu", a, complex_ok=True)


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


def _reflectors(rng: np.random.Generator, *shape: int, complex: bool = False) -> tuple:
    raw, tau = np.linalg.qr((complex_randn if complex else randn)(rng, *shape), mode="raw")
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
        Sample(_reflectors(rng, 4, 3, complex=True), note="complex"),
        Sample(_reflectors(rng, 2, 3, 2, complex=True), note="complex, batched"),
        Sample((complex_randn(rng, 3, 3), complex_randn(rng, 2)), note="complex, any tau"),
    ],
)
register(
    "orgqr",
    orgqr,
    nodes=(LinalgHouseholderProductBackward0,),
    samples=lambda rng: [
        Sample(_reflectors(rng, 4, 3)),
        Sample(_reflectors(rng, 3, 3, complex=True), note="complex"),
    ],
)
register(
    "geqrf",
    geqrf,
    differentiable=False,
    samples=lambda rng: [
        Sample((randn(rng, 4, 3),)),
        Sample((randn(rng, 2, 3, 5),)),
        # PyTorch refuses a complex input that requires grad (no complex autograd for geqrf)
        Sample((NoGrad(complex_randn(rng, 4, 3)),), note="complex"),
        Sample((NoGrad(complex_randn(rng, 2, 3, 4)),), note="complex, batched"),
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
        Sample((*_reflectors(rng, 4, 3, complex=True), complex_randn(rng, 4, 2)), note="complex"),
        Sample(
            (*_reflectors(rng, 3, 3, complex=True), complex_randn(rng, 2, 3), False),
            note="complex, right",
        ),
        Sample(
            (*_reflectors(rng, 4, 2, complex=True), complex_randn(rng, 4, 2), True, True),
            note="complex, Q^H",
        ),
        Sample(
            (*_reflectors(rng, 3, 3, complex=True), complex_randn(rng, 2, 3), False, True),
            note="complex, right, Q^H",
        ),
    ],
)
