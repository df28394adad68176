"""BLAS-style products added to a tensor: ``addmv`` (matrix-vector), ``addr`` (outer product)
and ``addbmm`` (a batch of matrix products, summed), each ``beta * input + alpha * product``
with ``input`` broadcast to the product's shape (and ignored, NaN included, when beta is 0),
and their in-place forms. Gradients are PyTorch's (derivatives.yaml).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import result_numpy_dtype, scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import check_tensor
from ._out import out_result
from ._registry import Sample, register
from ._samples import randn

__all__ = ["addmv", "addr", "addbmm"]


def _accumulate(x: np.ndarray, product: np.ndarray, beta: Any, alpha: Any) -> np.ndarray:
    """beta * x + alpha * product, x broadcast; beta == 0 ignores x (NaN and inf too)."""
    if alpha != 1:
        product = product * alpha
    shape = product.shape
    if beta == 0:
        return np.array(np.broadcast_to(product, shape))
    return product + (x if beta == 1 else x * beta)


def _broadcast_error(target: tuple, shape: tuple) -> RuntimeError:
    lead = len(target) - len(shape)
    bad = next(
        (i for i in range(max(lead, 0), len(target)) if shape[i - lead] not in (1, target[i])),
        0,
    )
    return RuntimeError(
        f"The expanded size of the tensor ({target[bad]}) must match the existing size "
        f"({shape[bad - lead] if bad >= lead else 0}) at non-singleton dimension {bad}.  "
        f"Target sizes: {list(target)}.  Tensor sizes: {list(shape)}"
    )


def _check_input(x: np.ndarray, target: tuple) -> None:
    try:
        if np.broadcast_shapes(x.shape, target) != target:
            raise ValueError
    except ValueError:
        raise _broadcast_error(target, x.shape) from None


class AddmvBackward0(Op):
    """out = beta * input + alpha * mat @ vec"""

    saved_inputs = (1, 2)
    saved_for = ((2,), (1,))
    __slots__ = ("beta", "alpha")

    def forward(self, x, mat, vec, beta=1, alpha=1):
        self.beta, self.alpha = beta, alpha
        return _accumulate(x, np.matmul(mat, vec), beta, alpha)

    def backward(self, F, grad):
        mat, vec = self.saved
        needs = self.needs_input_grad
        grad_x = (grad if self.beta == 1 else grad * self.beta) if needs[0] else None
        grad_mat = F.unsqueeze(grad, -1) * F.unsqueeze(vec, -2) * self.alpha if needs[1] else None
        grad_vec = F.matmul(F.mT(mat), grad) * self.alpha if needs[2] else None
        return grad_x, grad_mat, grad_vec


def _check_addmv(x: Tensor, mat: Tensor, vec: Tensor) -> None:
    a, m, v = x._data, mat._data, vec._data
    if m.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {a.ndim}, {m.ndim}, {v.ndim}")
    try:
        fits = np.broadcast_shapes(a.shape, (m.shape[0],)) == (m.shape[0],)
    except ValueError:
        fits = False
    if m.shape[1] != v.shape[0] or not fits:
        raise RuntimeError(
            f"size mismatch, got input ({'x'.join(map(str, a.shape))}), mat "
            f"({m.shape[0]}x{m.shape[1]}), vec ({v.shape[0]})"
        )
    if not (a.dtype == m.dtype == v.dtype):
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got "
            f"{scalar_type_name(a.dtype)}, {scalar_type_name(m.dtype)}, and "
            f"{scalar_type_name(v.dtype)}"
        )


def addmv(
    input: Tensor,
    mat: Tensor,
    vec: Tensor,
    *,
    beta: float = 1,
    alpha: float = 1,
    out: Any = None,
) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``.

    Example::

        >>> glassgrad.addmv(glassgrad.ones(2), glassgrad.eye(2), glassgrad.tensor([1.0, 2.0]))
        tensor([2., 3.])
    """
    check_tensor(input, "addmv")
    check_tensor(mat, "addmv", "mat", 2)
    check_tensor(vec, "addmv", "vec", 3)
    _check_addmv(input, mat, vec)
    result = AddmvBackward0.apply(input, mat, vec, beta=beta, alpha=alpha)
    return out_result("addmv", out, result, (input, mat, vec))


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1):
    """In-place ``addmv``."""
    _check_addmv(input, mat, vec)
    return apply_inplace(AddmvBackward0, input, mat, vec, beta=beta, alpha=alpha)


class AddrBackward0(Op):
    """out = beta * input + alpha * outer(vec1, vec2)"""

    saved_inputs = (1, 2)
    saved_for = ((2,), (1,))
    __slots__ = ("beta", "alpha")

    def forward(self, x, vec1, vec2, beta=1, alpha=1):
        self.beta, self.alpha = beta, alpha
        dtype = result_numpy_dtype((x, vec1, vec2))
        product = np.multiply.outer(vec1, vec2).astype(dtype, copy=False)
        return _accumulate(x.astype(dtype, copy=False), product, beta, alpha)

    def backward(self, F, grad):
        vec1, vec2 = self.saved
        needs = self.needs_input_grad
        grad_x = (grad if self.beta == 1 else grad * self.beta) if needs[0] else None
        grad_vec1 = F.matmul(grad, vec2) * self.alpha if needs[1] else None
        grad_vec2 = F.matmul(F.mT(grad), vec1) * self.alpha if needs[2] else None
        return grad_x, grad_vec1, grad_vec2


def _check_addr(x: Tensor, vec1: Tensor, vec2: Tensor) -> None:
    for name, v in (("vec1", vec1._data), ("vec2", vec2._data)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    _check_input(x._data, (vec1._data.shape[0], vec2._data.shape[0]))


def addr(
    input: Tensor,
    vec1: Tensor,
    vec2: Tensor,
    *,
    beta: float = 1,
    alpha: float = 1,
    out: Any = None,
) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``.

    Example::

        >>> glassgrad.addr(glassgrad.zeros(2, 2), glassgrad.ones(2), glassgrad.tensor([1.0, 2.0]))
        tensor([[1., 2.],
                [1., 2.]])
    """
    check_tensor(input, "addr")
    check_tensor(vec1, "addr", "vec1", 2)
    check_tensor(vec2, "addr", "vec2", 3)
    _check_addr(input, vec1, vec2)
    result = AddrBackward0.apply(input, vec1, vec2, beta=beta, alpha=alpha)
    return out_result("addr", out, result, (input, vec1, vec2))


def addr_(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: float = 1, alpha: float = 1):
    """In-place ``addr``."""
    _check_addr(input, vec1, vec2)
    return apply_inplace(AddrBackward0, input, vec1, vec2, beta=beta, alpha=alpha)


class AddbmmBackward0(Op):
    """out = beta * input + alpha * sum_b batch1[b] @ batch2[b]"""

    saved_inputs = (1, 2)
    saved_for = ((2,), (1,))
    __slots__ = ("beta", "alpha")

    def forward(self, x, batch1, batch2, beta=1, alpha=1):
        self.beta, self.alpha = beta, alpha
        return _accumulate(x, np.matmul(batch1, batch2).sum(axis=0), beta, alpha)

    def backward(self, F, grad):
        batch1, batch2 = self.saved
        needs = self.needs_input_grad
        grad_x = (grad if self.beta == 1 else grad * self.beta) if needs[0] else None
        shape = (batch1.shape[0], grad.shape[0], grad.shape[1])
        expanded = F.expand(F.unsqueeze(grad, 0), shape)
        grad_1 = F.matmul(expanded, F.mT(batch2)) * self.alpha if needs[1] else None
        grad_2 = F.matmul(F.mT(batch1), expanded) * self.alpha if needs[2] else None
        return grad_x, grad_1, grad_2


def _check_addbmm(x: Tensor, batch1: Tensor, batch2: Tensor) -> None:
    b1, b2 = batch1._data, batch2._data
    for name, b in (("batch1", b1), ("batch2", b2)):
        if b.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if b1.shape[0] != b2.shape[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {b1.shape[0]} and "
            f"{b2.shape[0]}"
        )
    if b1.shape[2] != b2.shape[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({b1.shape[1]}x{b1.shape[2]} and "
            f"{b2.shape[1]}x{b2.shape[2]})"
        )
    if not (x._data.dtype == b1.dtype == b2.dtype):
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(x._data.dtype)} but found "
            f"{scalar_type_name(b1.dtype if b1.dtype != x._data.dtype else b2.dtype)}"
        )
    _check_input(x._data, (b1.shape[1], b2.shape[2]))


def addbmm(
    input: Tensor,
    batch1: Tensor,
    batch2: Tensor,
    *,
    beta: float = 1,
    alpha: float = 1,
    out: Any = None,
) -> Tensor:
    """``beta * input + alpha * sum_b (batch1[b] @ batch2[b])``.

    Example::

        >>> glassgrad.addbmm(glassgrad.zeros(2, 2), glassgrad.ones(3, 2, 1), glassgrad.ones(3, 1, 2))
        tensor([[3., 3.],
                [3., 3.]])
    """
    check_tensor(input, "addbmm")
    check_tensor(batch1, "addbmm", "batch1", 2)
    check_tensor(batch2, "addbmm", "batch2", 3)
    _check_addbmm(input, batch1, batch2)
    result = AddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha)
    return out_result("addbmm", out, result, (input, batch1, batch2))


def addbmm_(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1):
    """In-place ``addbmm``."""
    _check_addbmm(input, batch1, batch2)
    return apply_inplace(AddbmmBackward0, input, batch1, batch2, beta=beta, alpha=alpha)


register(
    "addmv",
    addmv,
    nodes=(AddmvBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3), randn(rng, 3, 4), randn(rng, 4))),
        Sample((randn(rng), randn(rng, 3, 4), randn(rng, 4)), {"beta": 0.5, "alpha": 2.0}),
        Sample((randn(rng, 1), randn(rng, 4, 3).T, randn(rng, 4)), note="non-contiguous"),
        Sample((np.full(3, np.nan), randn(rng, 3, 2), randn(rng, 2)), {"beta": 0}),
    ],
)
register(
    "addr",
    addr,
    nodes=(AddrBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3), randn(rng, 4))),
        Sample((randn(rng, 4), randn(rng, 3), randn(rng, 4)), {"beta": 2.0, "alpha": -1.0}),
        Sample((np.full((2, 3), np.nan), randn(rng, 2), randn(rng, 3)), {"beta": 0}),
    ],
)
register(
    "addbmm",
    addbmm,
    nodes=(AddbmmBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 2, 4), randn(rng, 3, 2, 5), randn(rng, 3, 5, 4))),
        Sample((randn(rng, 4), randn(rng, 3, 2, 5), randn(rng, 3, 5, 4)), {"alpha": 0.5}),
        Sample((randn(rng, 2, 1), randn(rng, 2, 2, 3), randn(rng, 2, 3, 4)), {"beta": -1.0}),
    ],
)

TENSOR_METHODS = {"addmv_": addmv_, "addr_": addr_, "addbmm_": addbmm_}
