"""BLAS-style products added to a tensor: ``addmm`` and ``baddbmm`` (matrix and batched
matrix products), ``addmv`` (matrix-vector), ``addr`` (outer product)
and ``addbmm`` (a batch of matrix products, summed), each ``beta * input + alpha * product``
with ``input`` broadcast to the product's shape (and ignored, NaN included, when beta is 0),
and their in-place forms. Gradients are PyTorch's (derivatives.yaml).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import result_numpy_dtype, scalar_type_name
from .._strides import like_operands
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import array_of, check_numbers, check_tensor
from ._out import out_result
from ._registry import Sample, register
from ._samples import randn
from .linalg import _check_dtypes, is_transposed_matrix, mat2_grad, transposed

# --- addmm, baddbmm -------------------------------------------------------------------------


class AddmmBackward0(Op):
    """out = beta * input + alpha * (mat1 @ mat2); with beta == 0 input is ignored"""

    alpha: Any
    beta: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (1, 2)
    saved_for: tuple[tuple[int, ...], ...] = ((2,), (1,))
    __slots__ = ("beta", "alpha", "_m2_transposed")

    def forward(self, x: Any, m1: Any, m2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        self.beta, self.alpha = beta, alpha
        self._m2_transposed = is_transposed_matrix(m2)  # m2 itself is saved only for m1's gradient
        product = np.matmul(m1, m2)
        if alpha != 1:
            product = product * alpha
        if beta == 0:
            return np.array(np.broadcast_to(product, np.broadcast_shapes(x.shape, product.shape)))
        if beta == 1 and x.ndim <= product.ndim and product.dtype == x.dtype:
            product += x  # a fresh array: no second allocation
            return product
        return product + (x if beta == 1 else x * beta)

    def backward(self, F: Any, grad: Any) -> Any:
        m1, m2 = self.saved
        needs = self.needs_input_grad
        grad_input = grad_m1 = grad_m2 = None
        if needs[0]:
            grad_input = grad if self.beta == 1 else grad * self.beta
        if needs[1]:
            grad_m1 = F.matmul(grad, transposed(F, m2))
            grad_m1 = grad_m1 if self.alpha == 1 else grad_m1 * self.alpha
        if needs[2]:
            grad_m2 = mat2_grad(F, m1, grad, self._m2_transposed)
            grad_m2 = grad_m2 if self.alpha == 1 else grad_m2 * self.alpha
        return grad_input, grad_m1, grad_m2


class BaddbmmBackward0(AddmmBackward0):
    """out = beta * input + alpha * (batch1 @ batch2), batched over the first dim"""

    __slots__ = ()


def _check_add_product(op: str, x: Tensor, m1: Tensor, m2: Tensor, rank: int) -> None:
    names = ("mat1", "mat2") if rank == 2 else ("batch1", "batch2")
    a, b, c = x._data, m1._data, m2._data
    for name, array in zip(names, (b, c)):
        if array.ndim != rank:
            kind = "a matrix" if rank == 2 else "a 3D tensor"
            raise RuntimeError(f"{op}: {name} must be {kind}, got {array.ndim}-D tensor")
    for name, array in (("self", a), (names[0], b)):
        if array.dtype != c.dtype:
            raise RuntimeError(
                f"{op}: {name} and {names[1]} must have the same dtype, but got "
                f"{scalar_type_name(array.dtype)} and {scalar_type_name(c.dtype)}"
            )
    if rank == 2 and b.shape[1] != c.shape[0]:
        raise RuntimeError(
            f"{op}: mat1 and mat2 shapes cannot be multiplied ({b.shape[0]}x{b.shape[1]} and "
            f"{c.shape[0]}x{c.shape[1]})"
        )
    if rank == 3 and c.shape[:2] != (b.shape[0], b.shape[2]):
        raise RuntimeError(
            f"{op}: Expected size for first two dimensions of batch2 tensor to be: "
            f"[{b.shape[0]}, {b.shape[2]}] but got: [{c.shape[0]}, {c.shape[1]}]."
        )
    target = b.shape[:-1] + c.shape[-1:]
    try:
        if np.broadcast_shapes(a.shape, target) != target:
            raise ValueError
    except ValueError:
        lead = len(target) - a.ndim
        bad = next(
            (
                i
                for i in range(max(lead, 0), len(target))
                if a.shape[i - lead] not in (1, target[i])
            ),
            0,
        )
        raise RuntimeError(
            f"{op}: The expanded size of the tensor ({target[bad]}) must match the existing size "
            f"({a.shape[bad - lead] if bad >= lead else 0}) at non-singleton dimension {bad}.  "
            f"Target sizes: {list(target)}.  Tensor sizes: {list(a.shape)}"
        ) from None


def addmm(
    input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the product's shape.

    Example::

        >>> glassgrad.addmm(glassgrad.ones(2), glassgrad.eye(2), glassgrad.eye(2), beta=0.5)
        tensor([[1.5000, 0.5000],
                [0.5000, 1.5000]])
    """
    check_tensor(input, "addmm")
    check_tensor(mat1, "addmm", "mat1", 2)
    check_tensor(mat2, "addmm", "mat2", 3)
    _check_add_product("addmm", input, mat1, mat2, 2)
    check_numbers("addmm", beta=beta, alpha=alpha)
    return AddmmBackward0.apply(input, mat1, mat2, beta=beta, alpha=alpha)


def addmm_(
    input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """In-place ``addmm``."""
    _check_add_product("addmm_", input, mat1, mat2, 2)
    check_numbers("addmm_", beta=beta, alpha=alpha)
    return apply_inplace(AddmmBackward0, input, mat1, mat2, beta=beta, alpha=alpha)


def baddbmm(
    input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices (3-D tensors).

    Example::

        >>> x = glassgrad.zeros(5, 2, 4)
        >>> glassgrad.baddbmm(x, glassgrad.ones(5, 2, 3), glassgrad.ones(5, 3, 4)).shape
        glassgrad.Size([5, 2, 4])
    """
    check_tensor(input, "baddbmm")
    check_tensor(batch1, "baddbmm", "batch1", 2)
    check_tensor(batch2, "baddbmm", "batch2", 3)
    _check_add_product("baddbmm", input, batch1, batch2, 3)
    check_numbers("baddbmm", beta=beta, alpha=alpha)
    return BaddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha)


def baddbmm_(
    input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """In-place ``baddbmm``."""
    _check_add_product("baddbmm_", input, batch1, batch2, 3)
    check_numbers("baddbmm_", beta=beta, alpha=alpha)
    return apply_inplace(BaddbmmBackward0, input, batch1, batch2, beta=beta, alpha=alpha)


register(
    "addmm",
    addmm,
    samples=lambda rng: [
        Sample((randn(rng, 2, 4), randn(rng, 2, 3), randn(rng, 3, 4))),
        Sample((randn(rng, 4), randn(rng, 2, 3), randn(rng, 3, 4)), {"beta": 0.5, "alpha": 2}),
        Sample((randn(rng), randn(rng, 2, 3), randn(rng, 4, 3).T), note="0-d input, mT"),
        Sample((randn(rng, 2, 1), randn(rng, 2, 0), randn(rng, 0, 3)), {"beta": 0}),
    ],
)


register(
    "baddbmm",
    baddbmm,
    samples=lambda rng: [
        Sample((randn(rng, 2, 3, 4), randn(rng, 2, 3, 5), randn(rng, 2, 5, 4))),
        Sample((randn(rng, 4), randn(rng, 2, 3, 5), randn(rng, 2, 5, 4)), {"alpha": -1.5}),
        Sample(
            (randn(rng, 2, 3, 1), randn(rng, 2, 5, 3).transpose(0, 2, 1), randn(rng, 2, 5, 2)),
            {"beta": 2, "alpha": 0.5},
            note="non-contiguous",
        ),
    ],
)


__all__ = [
    "addmm",
    "baddbmm",
    "addmv",
    "addr",
    "addbmm",
]


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

    alpha: Any
    beta: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (1, 2)
    saved_for: tuple[tuple[int, ...], ...] = ((2,), (1,))
    __slots__ = ("beta", "alpha")

    def forward(self, x: Any, mat: Any, vec: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        self.beta, self.alpha = beta, alpha
        return _accumulate(x, np.matmul(mat, vec), beta, alpha)

    def backward(self, F: Any, grad: Any) -> Any:
        mat, vec = self.saved
        needs = self.needs_input_grad
        grad_x = (grad if self.beta == 1 else grad * self.beta) if needs[0] else None
        grad_mat = F.unsqueeze(grad, -1) * F.unsqueeze(vec, -2) * self.alpha if needs[1] else None
        grad_vec = F.matmul(transposed(F, mat), grad) * self.alpha if needs[2] else None
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
    check_numbers("addmv", beta=beta, alpha=alpha)
    result = AddmvBackward0.apply(input, mat, vec, beta=beta, alpha=alpha)
    return out_result("addmv", out, result, (input, mat, vec))


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """In-place ``addmv``."""
    _check_addmv(input, mat, vec)
    check_numbers("addmv_", beta=beta, alpha=alpha)
    return apply_inplace(AddmvBackward0, input, mat, vec, beta=beta, alpha=alpha)


class AddrBackward0(Op):
    """out = beta * input + alpha * outer(vec1, vec2)"""

    alpha: Any
    beta: Any

    holomorphic = True

    saved_inputs: tuple[int, ...] = (1, 2)
    saved_for: tuple[tuple[int, ...], ...] = ((2,), (1,))
    __slots__ = ("beta", "alpha")

    def forward(self, x: Any, vec1: Any, vec2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        self.beta, self.alpha = beta, alpha
        dtype = result_numpy_dtype((x, vec1, vec2))
        product = np.multiply.outer(vec1, vec2).astype(dtype, copy=False)
        out = _accumulate(x.astype(dtype, copy=False), product, beta, alpha)
        # PyTorch's kernel iterates over (input, vec1 as a column, vec2 as a row).
        return like_operands(out, (x, vec1[:, None], vec2[None, :]))

    def backward(self, F: Any, grad: Any) -> Any:
        vec1, vec2 = self.saved
        needs = self.needs_input_grad
        grad_x = (grad if self.beta == 1 else grad * self.beta) if needs[0] else None
        # PyTorch's formulas are grad.mv(vec2) and grad.t().mv(vec1): mv's dtype check applies
        # (the forward promotes mixed dtypes, its backward then raises)
        if needs[1]:
            _check_dtypes("mv", array_of(grad), array_of(vec2))
        if needs[2]:
            _check_dtypes("mv", array_of(grad), array_of(vec1))
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
    check_numbers("addr", beta=beta, alpha=alpha)
    result = AddrBackward0.apply(input, vec1, vec2, beta=beta, alpha=alpha)
    return out_result("addr", out, result, (input, vec1, vec2))


def addr_(
    input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """In-place ``addr``."""
    _check_addr(input, vec1, vec2)
    check_numbers("addr_", beta=beta, alpha=alpha)
    return apply_inplace(AddrBackward0, input, vec1, vec2, beta=beta, alpha=alpha)


class AddbmmBackward0(Op):
    """out = beta * input + alpha * sum_b batch1[b] @ batch2[b]"""

    alpha: Any
    beta: Any
    batches: int

    holomorphic = True

    saved_inputs: tuple[int, ...] = (1, 2)
    saved_for: tuple[tuple[int, ...], ...] = ((2,), (1,))
    # The batch count is kept: each batch tensor is saved only for the other's gradient.
    __slots__ = ("beta", "alpha", "batches")

    def forward(self, x: Any, batch1: Any, batch2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        self.beta, self.alpha, self.batches = beta, alpha, batch1.shape[0]
        return _accumulate(x, np.matmul(batch1, batch2).sum(axis=0), beta, alpha)

    def backward(self, F: Any, grad: Any) -> Any:
        batch1, batch2 = self.saved
        needs = self.needs_input_grad
        grad_x = (grad if self.beta == 1 else grad * self.beta) if needs[0] else None
        shape = (self.batches, grad.shape[0], grad.shape[1])
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
    check_numbers("addbmm", beta=beta, alpha=alpha)
    result = AddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha)
    inputs = (input, batch1, batch2)
    return out_result("addbmm", out, result, inputs, resize_warning=False)


def addbmm_(
    input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1
) -> Tensor:
    """In-place ``addbmm``."""
    _check_addbmm(input, batch1, batch2)
    check_numbers("addbmm_", beta=beta, alpha=alpha)
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

TENSOR_METHODS: dict[str, Any] = {
    "addmm_": addmm_,
    "baddbmm_": baddbmm_,
    "addmv_": addmv_,
    "addr_": addr_,
    "addbmm_": addbmm_,
}
