"""Layers' functional forms: ``linear bilinear embedding one_hot dropout`` (public in
``glassgrad.nn.functional``).

``linear`` is composed from ``addmm``/``matmul`` exactly as PyTorch records it (so graphs read
``AddmmBackward0`` and ``TBackward0``); ``bilinear`` is one trilinear node; ``embedding`` a
row gather whose gradient scatters back with repeated rows accumulating; ``dropout`` a product
with a random mask drawn from glassgrad's generator, so forward and backward use the same mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _factories
from .._dtype import c_type_name, type_string
from .._strides import like_operands
from .._tensor import Tensor
from ..autograd.inplace_record import note_write
from ..autograd.mutation import before_write, write_hooks
from ..autograd.op import Op, keep_versions
from . import arithmetic, blas, linalg, shape
from ._common import check_tensor
from ._namespace import ArrayNamespace
from ._registry import NoGrad, Sample, register
from ._samples import randn

# --- linear --------------------------------------------------------------------------------


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: ``input`` (*, in), ``weight`` (out, in), ``bias`` (out,).

    Example::

        >>> x, w = glassgrad.ones(2, 3), glassgrad.ones(4, 3)
        >>> glassgrad.nn.functional.linear(x, w, glassgrad.zeros(4)).shape
        glassgrad.Size([2, 4])
    """
    op = "linear"
    check_tensor(input, op)
    check_tensor(weight, op, "weight", 2)
    if bias is not None:
        check_tensor(bias, op, "bias", 3)
    x, w = input._data, weight._data
    if x.ndim == 0 or w.ndim == 0:
        raise RuntimeError(
            f"both arguments to {op} need to be at least 1D, but they are {x.ndim}D and {w.ndim}D"
        )
    if x.shape[-1] != w.shape[-1]:
        rows = int(np.prod(x.shape[:-1], dtype=np.int64))
        columns = w.shape[0] if w.ndim == 2 else 1
        raise RuntimeError(
            f"{op}(): mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} and "
            f"{w.shape[-1]}x{columns})"
        )
    if w.ndim == 1:
        out = linalg.matmul(input, weight)
        return out if bias is None else arithmetic.add(out, bias)
    weight_t = shape.t(weight)
    if x.ndim == 1 and bias is None:
        return shape.squeeze(linalg.mm(shape.unsqueeze(input, 0), weight_t), 0)
    if x.ndim == 2:
        if bias is None:
            return linalg.mm(input, weight_t)
        b = bias._data
        if b.shape == w.shape[:1] and x.dtype == w.dtype == b.dtype:
            # Shapes and dtypes checked above: addmm's own checks would repeat them.
            return blas.AddmmBackward0.apply(bias, input, weight_t)
        return blas.addmm(bias, input, weight_t)
    # PyTorch flattens the leading dims into one matrix product and views the result back.
    flat = shape.reshape(input, (-1, x.shape[-1]))
    out_shape = (*x.shape[:-1], w.shape[0])
    if bias is None:
        return shape.UnsafeViewBackward0.apply(linalg.mm(flat, weight_t), shape=out_shape)
    return shape.reshape(blas.addmm(bias, flat, weight_t), out_shape)


# --- bilinear ------------------------------------------------------------------------------


class TrilinearBackward0(Op):
    """PyTorch's ``_trilinear``: ``(i1.unsqueeze(expand1) * i2.unsqueeze(expand2) *
    i3.unsqueeze(expand3)).sum(sumdim)``, unrolled along ``unroll_dim`` as its kernel is (one
    ``sumproduct_pair`` of i1 and i2, then one with i3, per index there, added in order).

    ``bilinear`` is ``_trilinear(x1, weight, x2, (1, 3), (0,), (1, 2), (2, 3))``; each
    gradient is ``_trilinear`` again with the roles of one input's expanded and summed dims
    swapped (``_trilinear_backward``), so an infinite incoming gradient meets the operands in
    PyTorch's order (``bilinear``'s input1 gradient multiplies it into the weight before
    contracting over input2), and second derivatives are this node again."""

    dims: tuple
    unroll_dim: int

    saved_inputs: tuple[int, ...] = (0, 1, 2)
    saved_for: tuple[tuple[int, ...], ...] = ((1, 2), (0, 2), (0, 1))
    __slots__ = ("dims", "unroll_dim")

    def forward(
        self,
        i1: Any,
        i2: Any,
        i3: Any,
        expand1: Any,
        expand2: Any,
        expand3: Any,
        sumdim: Any,
        unroll_dim: int = 1,
    ) -> Any:
        self.dims, self.unroll_dim = (expand1, expand2, expand3, sumdim), unroll_dim
        total = i1.ndim + len(expand1)
        operands = [
            np.expand_dims(x, tuple(e)) for x, e in ((i1, expand1), (i2, expand2), (i3, expand3))
        ]
        sizes = np.broadcast_shapes(*(x.shape for x in operands))
        summed = set(sumdim)
        by_third = [d for d in range(total) if d in summed and d != unroll_dim]
        sum_12 = [d for d in by_third if d in expand3]
        sum_23 = [d for d in by_third if d not in expand3]
        out = np.zeros([1 if d in summed else n for d, n in enumerate(sizes)], np.result_type(i1))
        if all(x.size for x in operands):
            lead = (slice(None),) * unroll_dim
            for k in range(sizes[unroll_dim]):
                # An operand expanded at unroll_dim takes its one slice every time.
                a, b, c = (
                    x[(*lead, slice(k, k + 1) if x.shape[unroll_dim] > 1 else slice(0, 1))]
                    for x in operands
                )
                buf = _sumproduct_pair(_sumproduct_pair(a, b, sum_12), c, sum_23)
                if unroll_dim in summed:
                    out += buf
                else:
                    out[(*lead, slice(k, k + 1))] += buf
        return out.squeeze(tuple(sorted(summed))) if summed else out

    def backward(self, F: Any, grad: Any) -> Any:
        i1, i2, i3 = self.saved
        expand1, expand2, expand3, sumdim = self.dims
        needs = self.needs_input_grad
        g1 = g2 = g3 = None
        # _trilinear_backward: each input's gradient swaps its expanded and summed dims.
        if needs[0]:
            g1 = _trilinear(grad, i2, i3, (sumdim, expand2, expand3, expand1))
        if needs[1]:
            g2 = _trilinear(i1, grad, i3, (expand1, sumdim, expand3, expand2))
        if needs[2]:
            g3 = _trilinear(i1, i2, grad, (expand1, expand2, sumdim, expand3))
        return g1, g2, g3


def _trilinear(i1: Any, i2: Any, i3: Any, dims: tuple) -> Any:
    expand1, expand2, expand3, sumdim = dims
    return TrilinearBackward0.call(
        i1, i2, i3, expand1=expand1, expand2=expand2, expand3=expand3, sumdim=sumdim
    )


def _sumproduct_pair(left: np.ndarray, right: np.ndarray, dims: list) -> np.ndarray:
    """PyTorch's ``sumproduct_pair`` (keepdim): ``(left * right).sum(dims)``, where a summed
    dim that only one side has (the other has 1) is summed on that side first."""
    both = []
    for d in dims:
        in_left, in_right = left.shape[d] != 1, right.shape[d] != 1
        if in_left and in_right:
            both.append(d)
        elif in_left:
            left = left.sum(d, keepdims=True)
        elif in_right:
            right = right.sum(d, keepdims=True)
    product = left * right
    return product.sum(tuple(both), keepdims=True) if both else product


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``out[..., o] = input1[..., :] @ weight[o] @ input2[..., :] + bias[o]`` for ``input1``
    (*, in1), ``input2`` (*, in2), ``weight`` (out, in1, in2).

    Example::

        >>> x1, x2, w = glassgrad.ones(5, 2), glassgrad.ones(5, 3), glassgrad.ones(4, 2, 3)
        >>> glassgrad.nn.functional.bilinear(x1, x2, w).shape
        glassgrad.Size([5, 4])
    """
    op = "bilinear"
    check_tensor(input1, op, "input1", 1)
    check_tensor(input2, op, "input2", 2)
    check_tensor(weight, op, "weight", 3)
    a, b, w = input1._data, input2._data, weight._data
    if w.ndim != 3:
        raise RuntimeError(f"{op}(): weight must be three-dimensional, got {list(w.shape)}")
    if a.ndim != b.ndim:
        raise RuntimeError(f"{op}(): input dimensions do not match: got {a.ndim} and {b.ndim}")
    for d in range(a.ndim - 1):
        if a.shape[d] != b.shape[d]:
            raise RuntimeError(
                f"{op}(): input batch dimensions do not match at dim {d}: got {a.shape[d]} and "
                f"{b.shape[d]}"
            )
    for k, x in ((1, a), (2, b)):
        if x.ndim == 0 or x.shape[-1] != w.shape[k]:
            got = x.shape[-1] if x.ndim else "a scalar"
            raise RuntimeError(
                f"{op}(): input{k} size does not match weight size: got {got} but expected "
                f"{w.shape[k]}"
            )
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != w.shape[0]):
        raise RuntimeError(
            f"{op}(): bias size does not match weight size: got {bias._data.shape[-1]} but "
            f"expected {w.shape[0]}"
        )
    operands = [("input1", a), ("input2", b), ("weight", w)]
    if bias is not None:
        operands.append(("bias", bias._data))
    if len({x.dtype for _, x in operands}) > 1:
        listed = ", ".join(f"{name}: {c_type_name(x.dtype)}" for name, x in operands)
        raise RuntimeError(f"All tensors must have the same dtype, got {listed}")
    # As PyTorch: both inputs viewed as matrices, the product viewed back.
    flat1 = shape.reshape(input1, (-1, a.shape[-1]))
    flat2 = shape.reshape(input2, (-1, b.shape[-1]))
    out = _trilinear(flat1, weight, flat2, ((1, 3), (0,), (1, 2), (2, 3)))
    out = shape.reshape(out, (*a.shape[:-1], w.shape[0]))
    return out if bias is None else arithmetic.add(out, bias)


# --- embedding -----------------------------------------------------------------------------


class EmbeddingBackward0(Op):
    """out = weight[indices]; the gradient of each row is the sum over its occurrences."""

    indices: Any
    padding_idx: Any
    scale_grad_by_freq: Any
    weight_sym_argsize_0: Any

    __slots__ = ("indices", "padding_idx", "scale_grad_by_freq", "weight_sym_argsize_0", "_dim")

    def forward(self, weight: Any, indices: Any, padding_idx: Any, scale_grad_by_freq: Any) -> Any:
        self.indices, self.padding_idx = indices, padding_idx
        self.scale_grad_by_freq = scale_grad_by_freq
        self.weight_sym_argsize_0, self._dim = weight.shape
        return np.take(weight, indices, axis=0)

    def backward(self, F: Any, grad: Any) -> Any:
        flat = self.indices.reshape(-1)
        values = grad._data if isinstance(grad, Tensor) else grad
        scale = np.ones(flat.shape, values.dtype)
        if self.scale_grad_by_freq:
            counts = np.bincount(flat, minlength=self.weight_sym_argsize_0)
            scale = scale / counts[flat]
        if self.padding_idx is not None:
            scale = scale * (flat != self.padding_idx)
        size = (self.weight_sym_argsize_0, self._dim)
        return EmbeddingDenseBackwardBackward0.call(
            grad, indices=self.indices, scale=scale, size=size
        )


class EmbeddingDenseBackwardBackward0(Op):
    """PyTorch's ``embedding_dense_backward``: each row of ``grad`` (times its ``scale``: 0 at
    ``padding_idx``, 1 / count with ``scale_grad_by_freq``) summed into its index's row. Its
    derivative is the rows of the incoming gradient at the indices, times the same scale
    (PyTorch's ``embedding_dense_double_backward`` leaves ``scale_grad_by_freq``'s 1 / count
    out: docs/fuzzing.md)."""

    indices: np.ndarray
    scale: np.ndarray
    __slots__ = ("indices", "scale")

    def forward(self, grad: Any, indices: Any, scale: Any, size: Any) -> Any:
        self.indices, self.scale = indices, scale
        rows = grad.reshape(scale.size, size[1]) * scale.reshape(-1, 1)
        return ArrayNamespace.index_zeros_add(size, (indices.reshape(-1),), rows, False)

    def backward(self, F: Any, gg: Any) -> Any:
        rows = EmbeddingBackward0.call(
            gg, indices=self.indices, padding_idx=None, scale_grad_by_freq=False
        )
        scale = self.scale.reshape(*self.indices.shape, 1)
        return rows * (scale if F is ArrayNamespace else Tensor._from_array(scale))


def _renorm_rows(weight: Tensor, indices: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Scale the referenced rows of ``weight`` whose norm exceeds ``max_norm`` down to it, in
    place and outside autograd (PyTorch's ``embedding_renorm_``: rows in sorted order of the
    indices, each read by ``select``, which wraps a negative index and raises at the first
    index out of range, after renorming the rows before it)."""
    if weight._data.ndim != 2:
        raise RuntimeError(
            f"Expected 2-dimensional tensor, but got {weight._data.ndim}-dimensional tensor for "
            "argument #1 'self' (while checking arguments for embedding_renorm_)"
        )
    if indices.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            "Expected tensor for argument #2 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {type_string(indices.dtype)} instead (while checking "
            "arguments for embedding_renorm_)"
        )
    data = weight._data
    rows = np.unique(indices)
    bad = np.flatnonzero((rows < -data.shape[0]) | (rows >= data.shape[0]))
    valid = rows if not bad.size else rows[: bad[0]]
    valid = np.unique(valid % max(data.shape[0], 1))
    norms = np.linalg.norm(data[valid], ord=norm_type, axis=1)
    over = norms > max_norm
    if over.any():
        if write_hooks:
            before_write(weight)
        scale = max_norm / (norms[over] + 1e-7)
        data[valid[over]] *= scale.astype(data.dtype)[:, None]
        weight._vc[0] += 1
        note_write(weight._vc, f"embedding's max_norm={max_norm:g} renorm (embedding_renorm_)")
    if bad.size:
        raise IndexError(
            f"select(): index {rows[bad[0]]} out of range for tensor of size "
            f"{list(data.shape)} at dimension 0"
        )


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` (num_embeddings, dim) picked by the integer ``input``:
    ``out[..., :] = weight[input[...], :]``.

    ``padding_idx``'s row gets no gradient; ``max_norm`` first rescales (in place) each
    referenced row whose ``norm_type``-norm exceeds it; ``scale_grad_by_freq`` divides each
    row's gradient by how often it occurs in ``input``.

    Example::

        >>> w = glassgrad.arange(6.0).reshape(3, 2)
        >>> glassgrad.nn.functional.embedding(glassgrad.tensor([2, 0]), w)
        tensor([[4., 5.],
                [0., 1.]])
    """
    op = "embedding"
    check_tensor(input, op)
    check_tensor(weight, op, "weight", 2)
    indices, w = input._data, weight._data
    rows = w.shape[0] if w.ndim else 0
    if padding_idx is not None:
        if padding_idx >= max(rows, 1) or padding_idx < -rows:
            raise AssertionError(
                f"{op}(): Padding_idx must be within num_embeddings, got padding_idx="
                f"{padding_idx} for {rows} embeddings"
            )
        padding_idx = int(padding_idx) + (rows if padding_idx < 0 else 0)
    if max_norm is not None:  # before torch.embedding's checks, as in PyTorch
        _renorm_rows(weight, indices, float(max_norm), float(norm_type))
    if w.ndim != 2:
        raise RuntimeError(f"{op}(): 'weight' must be 2-D, got weight of size {list(w.shape)}")
    if indices.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            f"{op}(): Expected tensor for argument #1 'indices' to have one of the following "
            f"scalar types: Long, Int; but got {indices.dtype} instead (while checking arguments "
            f"for embedding)"
        )
    if indices.size and (indices.min() < 0 or indices.max() >= rows):
        bad = indices.min() if indices.min() < 0 else indices.max()
        raise IndexError(
            f"{op}(): index out of range in self: index {bad} for a weight of {rows} rows"
        )
    if sparse:
        raise NotImplementedError(
            f"{op}(): sparse=True is not supported: glassgrad has no sparse gradients"
        )
    return keep_versions(
        EmbeddingBackward0.apply(
            weight,
            indices=indices.astype(np.int64, copy=False),
            padding_idx=padding_idx,
            scale_grad_by_freq=bool(scale_grad_by_freq),
        ),
        input,
    )


# --- one_hot -------------------------------------------------------------------------------


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot codes: ``out[..., k] = 1 if tensor[...] == k``; ``num_classes=-1`` uses
    ``tensor.max() + 1``.

    Example::

        >>> glassgrad.nn.functional.one_hot(glassgrad.tensor([0, 2]), 3)
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    op = "one_hot"
    check_tensor(tensor, op, "tensor")
    labels = tensor._data
    if labels.dtype != np.int64:
        raise RuntimeError(
            f"{op}(): one_hot is only applicable to index tensor of type LongTensor, got "
            f"{labels.dtype}"
        )
    if num_classes == -1:
        if labels.size == 0:
            raise RuntimeError(f"{op}(): Can not infer total number of classes from empty tensor.")
        num_classes = int(labels.max()) + 1
    if labels.size and labels.min() < 0:
        raise RuntimeError(f"{op}(): Class values must be non-negative, got {labels.min()}.")
    if labels.size and labels.max() >= num_classes:
        raise RuntimeError(
            f"{op}(): Class values must be smaller than num_classes, got {labels.max()} for "
            f"num_classes={num_classes}."
        )
    codes = np.zeros((*labels.shape, num_classes), np.int64)
    np.put_along_axis(codes, labels[..., None], 1, axis=-1)
    return Tensor._from_array(codes)


# --- dropout -------------------------------------------------------------------------------


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``
    (training only; otherwise ``input`` itself is returned).

    The mask is drawn from glassgrad's default generator (``glassgrad.manual_seed`` makes it
    reproducible) and the gradient uses the same mask: ``grad_input = grad * mask``.

    Example::

        >>> x = glassgrad.ones(4)
        >>> glassgrad.nn.functional.dropout(x, 0.5, training=False) is x
        True
    """
    op = "dropout"
    check_tensor(input, op)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    data = input._data
    dtype = data.dtype if data.dtype.kind == "f" else np.dtype(np.float32)
    if p == 1:
        mask = np.zeros(data.shape, dtype)
    else:
        draw = _factories.default_generator.rng.random(
            data.shape, dtype=np.float32 if dtype == np.float32 else np.float64
        )
        mask = (draw >= p).astype(dtype) * dtype.type(1.0 / (1.0 - p))
    # In input's layout, as PyTorch's mask (empty_like), so the product keeps it too.
    mask_tensor = Tensor._from_array(like_operands(mask, (data,)))
    if inplace:
        return input.mul_(mask_tensor)
    return arithmetic.mul(input, mask_tensor)


# --- registry ------------------------------------------------------------------------------


def _linear_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 5, 3), randn(rng, 4, 3), randn(rng, 4))),
        Sample((randn(rng, 5, 3), randn(rng, 4, 3))),
        Sample((randn(rng, 2, 5, 3), randn(rng, 4, 3), randn(rng, 4))),
        Sample((randn(rng, 2, 5, 3), randn(rng, 4, 3))),
        Sample((randn(rng, 3), randn(rng, 4, 3), randn(rng, 4)), note="one sample"),
        Sample((randn(rng, 3, 5).T, randn(rng, 3, 4).T), {"bias": randn(rng, 4)}),
        Sample((randn(rng, 5, 3), randn(rng, 3)), note="1-D weight"),
        Sample((randn(rng, 0, 3), randn(rng, 4, 3), randn(rng, 4)), note="empty batch"),
    ]


def _bilinear_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 5, 3), randn(rng, 5, 2), randn(rng, 4, 3, 2), randn(rng, 4))),
        Sample((randn(rng, 2, 3, 3), randn(rng, 2, 3, 2), randn(rng, 4, 3, 2))),
        Sample((randn(rng, 3), randn(rng, 2), randn(rng, 4, 3, 2), randn(rng, 4))),
        Sample((randn(rng, 3, 5).T, NoGrad(randn(rng, 5, 2)), randn(rng, 1, 3, 2))),
    ]


def _embedding_samples(rng: np.random.Generator) -> list[Sample]:
    # The padding row gets no gradient although the output depends on it, and
    # scale_grad_by_freq rescales the gradient: finite differences disagree by design there.
    return [
        Sample((rng.integers(0, 5, (2, 3)), randn(rng, 5, 4))),
        Sample(
            (np.array([[1, 3], [1, 1]]), randn(rng, 4, 2)), {"scale_grad_by_freq": True}, fd=False
        ),
        Sample((np.array(2), randn(rng, 3, 2)), note="0-d index"),
        Sample((np.array([1, 3, 1, 1, 0]), randn(rng, 4, 2)), {"padding_idx": 1}, fd=False),
        Sample((np.array([2, 0, 2]), randn(rng, 3, 2)), {"padding_idx": -1}, fd=False),
        Sample(
            (np.zeros((0,), np.int64), randn(rng, 3, 2)),
            grad=False,
            note="no indices (PyTorch's backward fails on an empty index)",
        ),
    ]


def _one_hot_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((rng.integers(0, 4, (3, 2)),), grad=False),
        Sample((np.array([0, 2, 1]), 5), grad=False),
        Sample((np.zeros((0,), np.int64), 3), grad=False),
    ]


def _dropout_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4),), {"p": 0.5, "training": False}),
        Sample((randn(rng, 3, 4), 0.0)),
        Sample((randn(rng, 3, 4), 1.0), note="everything dropped"),
    ]


_NF = "nn.functional"
register("linear", linear, samples=_linear_samples, namespace=_NF)
register(
    "bilinear", bilinear, nodes=(TrilinearBackward0,), samples=_bilinear_samples, namespace=_NF
)
register(
    "embedding", embedding, nodes=(EmbeddingBackward0,), samples=_embedding_samples, namespace=_NF
)
register("one_hot", one_hot, samples=_one_hot_samples, differentiable=False, namespace=_NF)
register("dropout", dropout, samples=_dropout_samples, namespace=_NF)

__all__ = ["linear", "bilinear", "embedding", "one_hot", "dropout"]
