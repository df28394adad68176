"""Matrix products of the core set: matmul (every 1-D/2-D/batched case), mm, bmm, mv, dot."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import c_type_name, scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op
from ..autograd.views import own_temporary_view
from . import broadcasting, shape
from ._common import check_tensor, infer_size
from ._registry import Sample, register
from ._samples import randn
from .conversion import contiguous


def _check_dtypes(op: str, a: np.ndarray, b: np.ndarray) -> None:
    """PyTorch's dtype check of the dot, mv and mm kernels, each with its own message
    (bmm's: ``_check_bmm_dtypes``)."""
    if a.dtype == b.dtype:
        return
    first, second = scalar_type_name(a.dtype), scalar_type_name(b.dtype)
    if op == "dot":
        message = f"dot : expected both vectors to have same dtype, but found {first} and {second}"
    elif op == "mv":
        message = (
            f"addmv input tensors must have the same dtype, but got {second}, {first}, and {second}"
        )
    else:
        message = (
            "expected m1 and m2 to have the same dtype, but got: "
            f"{c_type_name(a.dtype)} != {c_type_name(b.dtype)}"
        )
    raise RuntimeError(message)


def _check_operands(op: str, a: np.ndarray, b: np.ndarray) -> None:
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"{op}: both arguments need to be at least 1D, but they are {a.ndim}D and {b.ndim}D"
        )
    k_a = a.shape[-1]
    k_b = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if k_a != k_b:
        raise RuntimeError(
            f"{op}: mat1 and mat2 shapes cannot be multiplied "
            f"({'x'.join(map(str, a.shape))} and {'x'.join(map(str, b.shape))})"
        )


class _Matmul(Op):
    """out = a @ b with NumPy's matmul rules (1-D operands are promoted and squeezed)."""

    holomorphic = True

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0,))
    __slots__ = ("_ranks", "_b_transposed")
    op_name = "matmul"

    def forward(self, a: Any, b: Any) -> Any:
        # Kept apart from the operands, which are saved only for the other's gradient.
        self._ranks = (a.ndim, b.ndim)
        self._b_transposed = is_transposed_matrix(b)
        try:
            return np.matmul(a, b)
        except ValueError as error:
            raise RuntimeError(
                f"{self.op_name}: shapes {list(a.shape)} and {list(b.shape)} cannot be "
                f"multiplied ({error})"
            ) from None

    def backward(self, F: Any, grad: Any) -> Any:
        a, b = self.saved
        a_vector, b_vector = self._ranks[0] == 1, self._ranks[1] == 1
        needs = self.needs_input_grad
        if a_vector and b_vector:
            return (grad * b if needs[0] else None, grad * a if needs[1] else None)
        if a_vector:
            grad = F.unsqueeze(grad, -2)  # (..., 1, m)
        if b_vector:
            grad = F.unsqueeze(grad, -1)  # (..., n, 1)
        grad_a = grad_b = None
        if needs[0]:
            b2 = F.unsqueeze(b, -1) if b_vector else b
            grad_a = F.matmul(grad, transposed(F, b2))
            if a_vector:
                grad_a = grad_a[..., 0, :]
        if needs[1]:
            a2 = F.unsqueeze(a, 0) if a_vector else a
            grad_b = mat2_grad(F, a2, grad, self._b_transposed)
            if b_vector:
                grad_b = grad_b[..., 0]
        return grad_a, grad_b


def is_transposed_matrix(x: np.ndarray) -> bool:
    """A matrix laid out column-major only: a transposed view such as a Linear layer's
    ``weight.t()``."""
    return x.ndim == 2 and x.flags.f_contiguous and not x.flags.c_contiguous


def mat2_grad(F: Any, mat1: Any, grad: Any, mat2_transposed: bool) -> Any:
    """``mat1^T @ grad``, laid out like ``mat2``: when ``mat2`` was a transposed view
    (``is_transposed_matrix``), computed as ``(grad^T @ mat1)^T`` so that the gradient reaching
    the weight through TBackward0 is C-contiguous (PyTorch's mm_mat2_backward does the same)."""
    if mat2_transposed:
        return transposed(F, F.matmul(transposed(F, grad), mat1))
    return F.matmul(transposed(F, mat1), grad)


def transposed(F: Any, x: Any) -> Any:
    """``x.mT`` as PyTorch's product formulas take it: ``t()`` of a matrix (mm's
    TBackward0 under create_graph), ``transpose(-2, -1)`` of a batch (bmm's)."""
    return F.t(x) if x.ndim == 2 else F.mT(x)


class MmBackward0(_Matmul):
    op_name = "mm"


class MvBackward0(_Matmul):
    op_name = "mv"


class DotBackward0(_Matmul):
    op_name = "dot"


class BmmBackward0(_Matmul):
    op_name = "bmm"

    def forward(self, a: Any, b: Any) -> Any:
        # Operands of two dtypes get here only for an empty result or contraction, which
        # PyTorch allocates with batch2's options (``common_checks_baddbmm_bmm``).
        return super().forward(a, b).astype(b.dtype, copy=False)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with broadcasting of batch dims; 1-D operands act as vectors.

    Composed as PyTorch composes it (``_matmul_impl``): ``dot``, ``mv`` or ``mm`` for 1-D and
    2-D operands; a batch folded into the rows of one ``mm``/``mv`` when the other operand is
    a matrix or vector; else both expanded to the broadcast batch and multiplied by ``bmm``.
    So the gradient graph, and which operands are saved (or copies of them), are PyTorch's.

    Example::

        >>> a = glassgrad.ones(2, 3); b = glassgrad.ones(3, 4)
        >>> glassgrad.matmul(a, b).shape
        glassgrad.Size([2, 4])
    """
    check_tensor(input, "matmul")
    check_tensor(other, "matmul", "other", 2)
    _check_operands("matmul", input._data, other._data)
    a, b = input._data, other._data
    d1, d2 = a.ndim, b.ndim
    if d1 == 1 and d2 == 1:
        _check_dtypes("dot", a, b)
        return DotBackward0.apply(input, other)
    if d1 == 2 and d2 == 1:
        _check_dtypes("mv", a, b)
        return MvBackward0.apply(input, other)
    if d1 <= 2 and d2 <= 2:
        _check_dtypes("mm", a, b)
        if d1 == 1:
            # PyTorch squeezes its mm result in place (squeeze_): no view of a temporary
            product = MmBackward0.apply(shape.unsqueeze(input, 0), other)
            return own_temporary_view(shape.squeeze(product, 0))
        return MmBackward0.apply(input, other)
    if _should_fold(input, other):
        return _folded_matmul(input, other)
    return _batched_matmul(input, other)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """PyTorch's ``should_fold``: the larger operand's batch folds into the rows of one mm."""
    larger = a._data.ndim >= b._data.ndim
    t1 = a._data if larger else np.swapaxes(b._data, -1, -2)
    t2_ndim = b._data.ndim if larger else a._data.ndim
    if not (t1.ndim >= 3 and t2_ndim <= 2):
        return False
    if (b if larger else a).requires_grad:
        return True
    if a._data.ndim == 2:
        return False
    if t1.size == 0:
        return True
    strides, sizes = t1.strides, t1.shape
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(t1.ndim - 2))


def _folded_matmul(a: Tensor, b: Tensor) -> Tensor:
    transpose = b._data.ndim > a._data.ndim
    t1 = shape.transpose(b, -1, -2) if transpose else a
    t2 = b if not transpose else (shape.t(a) if a._data.ndim == 2 else a)
    sizes = t1._data.shape
    output_shape = sizes[:-1]
    _check_dtypes("mm" if t2._data.ndim == 2 else "mv", t1._data, t2._data)
    folded = shape.reshape(t1, (math.prod(output_shape), sizes[-1]))
    if t2._data.ndim == 2:
        output_shape += (t2._data.shape[1],)
        output = shape.unsafe_view(MmBackward0.apply(folded, t2), output_shape)
        return contiguous(shape.transpose(output, -1, -2)) if transpose else output
    return shape.unsafe_view(MvBackward0.apply(folded, t2), output_shape)


def _batched_matmul(a: Tensor, b: Tensor) -> Tensor:
    d1, d2 = a._data.ndim, b._data.ndim
    size1, size2 = a._data.shape, b._data.shape
    if d1 == 3 and d2 == 3 and size1[0] != size2[0]:
        # A batch of one that requires grad is squeezed rather than expanded (PyTorch).
        if size1[0] == 1 and a.requires_grad:
            return matmul(shape.squeeze(a, 0), b)
        if size2[0] == 1 and b.requires_grad:
            return matmul(a, shape.squeeze(b, 0))
    n = size1[-2] if d1 > 1 else 1
    m1, m2 = size1[-1], (size2[-2] if d2 > 1 else size2[0])
    p = size2[-1] if d2 > 1 else 1
    batch = infer_size(size1[: max(d1 - 2, 0)], size2[: max(d2 - 2, 0)])
    count = math.prod(batch)
    _check_bmm_dtypes(a._data.dtype, b._data.dtype, count * n * p, m1)
    left = shape.reshape(broadcasting.expand(a, (*batch, n, m1)), (count, n, m1))
    if d2 == 1:
        right = shape.unsqueeze(shape.reshape(broadcasting.expand(b, (*batch, m2)), (count, m2)), 2)
    else:
        right = shape.reshape(broadcasting.expand(b, (*batch, m2, p)), (count, m2, p))
    output_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    product = BmmBackward0.apply(left, right)
    if d2 == 1:
        product = shape.squeeze(product, -1)
    return shape.unsafe_view(product, output_shape)


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """Product of two 2-D matrices.

    Example::

        >>> glassgrad.mm(glassgrad.eye(2), glassgrad.ones(2, 3)).shape
        glassgrad.Size([2, 3])
    """
    for name, t in (("self", check_tensor(input, "mm")), ("mat2", check_tensor(mat2, "mm"))):
        if t._data.ndim != 2:
            raise RuntimeError(f"mm: {name} must be a matrix, got {t._data.ndim}-D tensor")
    _check_operands("mm", input._data, mat2._data)
    _check_dtypes("mm", input._data, mat2._data)
    return MmBackward0.apply(input, mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched product of 3-D tensors ``(b, n, k) @ (b, k, m)``.

    Example::

        >>> glassgrad.bmm(glassgrad.ones(5, 2, 3), glassgrad.ones(5, 3, 4)).shape
        glassgrad.Size([5, 2, 4])
    """
    for name, t in (("batch1", check_tensor(input, "bmm")), ("batch2", check_tensor(mat2, "bmm"))):
        if t._data.ndim != 3:
            raise RuntimeError(f"bmm: {name} must be a 3D tensor, got {t._data.ndim}-D")
    if input._data.shape[0] != mat2._data.shape[0]:
        raise RuntimeError(
            f"bmm: batch1 and batch2 must have the same batch size, got "
            f"{list(input._data.shape)} and {list(mat2._data.shape)}"
        )
    _check_operands("bmm", input._data, mat2._data)
    (b, n, k), p = input._data.shape, mat2._data.shape[2]
    _check_bmm_dtypes(input._data.dtype, mat2._data.dtype, b * n * p, k)
    return BmmBackward0.apply(input, mat2)


def _check_bmm_dtypes(a: np.dtype, b: np.dtype, size: int, contraction: int) -> None:
    """bmm's dtype check, which is its kernel's: an empty result, or zeros from an empty
    contraction, returns first (``bmm_out_or_baddbmm_``), in batch2's dtype whatever
    batch1's (``BmmBackward0.forward``)."""
    if size and contraction and a != b:
        first, second = scalar_type_name(a), scalar_type_name(b)
        raise RuntimeError(f"expected scalar type {first} but found {second}")


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix-vector product.

    Example::

        >>> glassgrad.mv(glassgrad.eye(2), glassgrad.tensor([1.0, 2.0]))
        tensor([1., 2.])
    """
    if check_tensor(input, "mv")._data.ndim != 2 or check_tensor(vec, "mv")._data.ndim != 1:
        raise RuntimeError(
            f"mv: vector + matrix @ vector expected, got {input._data.ndim}, {vec._data.ndim}"
        )
    _check_operands("mv", input._data, vec._data)
    _check_dtypes("mv", input._data, vec._data)
    return MvBackward0.apply(input, vec)


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """Inner product of two 1-D tensors.

    Example::

        >>> glassgrad.dot(glassgrad.tensor([1.0, 2.0]), glassgrad.tensor([3.0, 4.0]))
        tensor(11.)
    """
    a, b = check_tensor(input, "dot")._data, check_tensor(tensor, "dot")._data
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape != b.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
            f"to have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
            "elements respectively"
        )
    _check_dtypes("dot", a, b)
    return DotBackward0.apply(input, tensor)


def _rmatmul(self: Tensor, other: Tensor) -> Tensor:
    return matmul(other, self)


def _matmul_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), randn(rng, 4, 5))),
        Sample((randn(rng, 4), randn(rng, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 4))),
        Sample((randn(rng, 4), randn(rng, 4, 2))),
        Sample((randn(rng, 2, 3, 4), randn(rng, 2, 4, 5))),
        Sample((randn(rng, 2, 3, 4), randn(rng, 4, 5))),
        Sample((randn(rng, 2, 1, 3, 4), randn(rng, 5, 4, 2))),
        Sample((randn(rng, 2, 3, 4), randn(rng, 4))),
        Sample((randn(rng, 4), randn(rng, 2, 4, 3))),
        Sample((randn(rng, 4, 3).T, randn(rng, 5, 4).T), note="non-contiguous"),
    ]


register(
    "matmul",
    matmul,
    nodes=(MmBackward0, MvBackward0, DotBackward0, BmmBackward0),
    methods=("matmul", "__matmul__"),
    samples=_matmul_samples,
)
register(
    "rmatmul",
    _rmatmul,
    methods=("__rmatmul__",),
    torch=lambda torch, a, b: b @ a,
    samples=lambda rng: [Sample((randn(rng, 4, 2), randn(rng, 3, 4)))],
)
register(
    "mm",
    mm,
    nodes=(MmBackward0,),
    samples=lambda rng: [Sample((randn(rng, 3, 4), randn(rng, 4, 2)))],
)
register(
    "bmm",
    bmm,
    nodes=(BmmBackward0,),
    samples=lambda rng: [Sample((randn(rng, 2, 3, 4), randn(rng, 2, 4, 2)))],
)
register(
    "mv", mv, nodes=(MvBackward0,), samples=lambda rng: [Sample((randn(rng, 3, 4), randn(rng, 4)))]
)
register(
    "dot", dot, nodes=(DotBackward0,), samples=lambda rng: [Sample((randn(rng, 4), randn(rng, 4)))]
)
