"""``embedding_bag``: sums, means or maxima of bags of embedding rows, without building the
rows (public in ``glassgrad.nn.functional``; ``nn.EmbeddingBag`` wraps it).

One node, ``EmbeddingBagBackward0``, as in PyTorch, with edges to ``weight`` and to
``per_sample_weights``. PyTorch's gradients have no derivatives: under ``create_graph=True``
the weight's gradient is recorded by ``EmbeddingBagBackwardBackward0`` (from the incoming
gradient and ``per_sample_weights``; its backward raises NotImplementedError) and that of
``per_sample_weights`` by a ``NotImplemented`` node (from the incoming gradient and the
weight; its backward raises RuntimeError), as PyTorch records them.

``scale_grad_by_freq`` divides each entry's gradient by how often its index occurs in the
input, as ``F.embedding`` does and as PyTorch documents. PyTorch 2.13's CPU kernel divides by
the count of another index in some cases (``embedding_bag(tensor([[1, 2, 4], [5, 4, 3]]), w,
mode="sum", scale_grad_by_freq=True)`` halves row 3's gradient and not row 4's); glassgrad
does not copy that.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._dtype import _promote_np, type_string
from .._runtime import get_num_threads
from .._tensor import Tensor
from ..autograd.op import Op, keep_versions
from ._common import array_of, check_tensor
from ._namespace import ArrayNamespace
from ._not_implemented import _not_implemented_node, computed_result
from ._registry import Sample, register
from ._samples import randn
from .nn_misc import _renorm_rows


class EmbeddingBagBackward0(Op):
    """out[b] = sum / mean / max over the entries i of bag b (padding left out) of
    weight[indices[i]] (times per_sample_weights[i] for sums); an empty bag gives zeros."""

    counts: np.ndarray
    max_rows: np.ndarray

    bag_of: Any
    indices: Any
    mode: Any
    num_weights: Any
    scale_grad_by_freq: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    # weight for the gradient of per_sample_weights; per_sample_weights always, as PyTorch's
    # EmbeddingBagBackward0 keeps it whichever gradient is wanted
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0, 1))
    __slots__ = (
        "indices", "bag_of", "mode", "scale_grad_by_freq", "max_rows", "counts", "num_weights"
    )  # fmt: skip

    def forward(
        self,
        weight: Any,
        per_sample_weights: Any,
        indices: Any,
        bag_of: Any,
        bags: Any,
        mode: Any,
        scale: Any,
    ) -> Any:
        # bag_of[i]: the bag of entry i, or -1 (padding, or past the last bag's end).
        self.indices, self.bag_of, self.mode, self.scale_grad_by_freq = indices, bag_of, mode, scale
        self.num_weights = weight.shape[0]
        used = bag_of >= 0
        rows = weight[indices[used]]
        out = np.zeros((bags, weight.shape[1]), weight.dtype)
        self.counts = np.bincount(bag_of[used], minlength=bags)
        if mode == "max":
            self.max_rows = np.full(out.shape, -1, np.int64)
            for entry, bag in zip(np.flatnonzero(used), bag_of[used]):
                row = weight[indices[entry]]
                first = self.max_rows[bag] < 0
                better = first | (row > out[bag])  # strictly larger: the first maximum wins
                out[bag] = np.where(better, row, out[bag])
                self.max_rows[bag] = np.where(better, indices[entry], self.max_rows[bag])
            return out
        if per_sample_weights is not None:
            rows = rows * per_sample_weights[used][:, None]
        np.add.at(out, bag_of[used], rows)
        if mode == "mean":
            out /= np.maximum(self.counts, 1)[:, None].astype(weight.dtype)
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        saved_weight, saved_psw = self.saved
        g = array_of(grad)
        needs = self.needs_input_grad
        used = self.bag_of >= 0
        entries, bags = np.flatnonzero(used), self.bag_of[used]
        grad_weight = grad_psw = None
        if needs[0]:
            grad_weight = np.zeros((self.num_weights, g.shape[1]), g.dtype)
            if self.mode == "max":
                bag, column = np.nonzero(self.max_rows >= 0)
                np.add.at(grad_weight, (self.max_rows[bag, column], column), g[bag, column])
            else:
                rows = g[bags]
                if self.mode == "mean":
                    rows = rows / self.counts[bags][:, None].astype(g.dtype)
                elif saved_psw is not None:
                    rows = rows * array_of(saved_psw)[entries][:, None]
                if self.scale_grad_by_freq:
                    frequency = np.bincount(self.indices, minlength=self.num_weights)
                    rows = rows / frequency[self.indices[entries]][:, None].astype(g.dtype)
                np.add.at(grad_weight, self.indices[entries], rows)
        if needs[1]:
            grad_psw = np.zeros(self.indices.shape, g.dtype)
            rows = array_of(saved_weight)[self.indices[entries]]
            grad_psw[entries] = np.sum(g[bags] * rows, axis=1)
        if F is ArrayNamespace:
            return grad_weight, grad_psw
        if grad_weight is not None:
            sources = (grad,) if saved_psw is None else (grad, saved_psw)
            grad_weight = _WeightGradient.apply(*sources, after=grad_weight)
        if grad_psw is not None:
            grad_psw = _PerSampleWeightsGradient.apply(grad, saved_weight, after=grad_psw)
        return grad_weight, grad_psw


_WeightGradient: type[Op] = _not_implemented_node(
    "_embedding_bag_backward", computed_result, "EmbeddingBagBackwardBackward0"
)
_PerSampleWeightsGradient: type[Op] = _not_implemented_node(
    "_embedding_bag_per_sample_weights_backward", computed_result
)


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """Sums, means or maxima (``mode``) of bags of rows of ``weight`` (num_embeddings, dim),
    without the intermediate embeddings.

    A 2-D ``input`` (B, N) is B bags of N indices. A 1-D ``input`` is cut into bags at
    ``offsets`` (the start of each bag; with ``include_last_offset`` the last entry is the
    end of the last bag, the input's length in PyTorch's CSR convention). Entries equal to ``padding_idx`` are left out (not counted by a
    mean); an empty bag gives zeros. ``per_sample_weights`` (``mode="sum"`` only) scales each
    entry's row; ``max_norm`` and ``scale_grad_by_freq`` act as in ``embedding``.

    Example::

        >>> w = glassgrad.arange(8.0).reshape(4, 2)
        >>> glassgrad.nn.functional.embedding_bag(glassgrad.tensor([0, 2, 3, 1]), w,
        ...                                       glassgrad.tensor([0, 1]), mode="sum")
        tensor([[ 0.,  1.],
                [12., 15.]])
    """
    op = "embedding_bag"
    check_tensor(input, op)
    check_tensor(weight, op, "weight", 2)
    if per_sample_weights is not None:
        check_tensor(per_sample_weights, op, "per_sample_weights", 9)
    # torch.nn.functional.embedding_bag's checks, in its order
    if weight._data.dtype == np.int64 and input.is_floating_point():
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage "
            "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
            "`embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    indices = input._data
    psw = None if per_sample_weights is None else per_sample_weights._data
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)}"
            )
        if indices.shape[1] == 0:  # PyTorch's offsets: arange(0, numel, input.size(1))
            raise RuntimeError("step must be nonzero")
        starts = np.arange(0, indices.size, indices.shape[1], dtype=indices.dtype)
        include_last_offset = False
        indices = indices.reshape(-1)
        psw = None if psw is None else psw.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = offsets._data
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        _renorm_rows(weight, indices, float(max_norm), float(norm_type))
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    if sparse:
        raise NotImplementedError(
            f"{op}(): sparse=True is not supported: glassgrad has no sparse gradients"
        )
    num_weights = weight.shape[0]
    if padding_idx is not None:  # aten::embedding_bag
        if not -num_weights <= padding_idx < num_weights:
            raise RuntimeError(
                f"padding_idx must be within the number of embeddings, -{num_weights} through "
                f"{num_weights - 1}, but got {padding_idx}"
            )
        padding_idx %= num_weights
    _check_arguments(weight._data, indices, starts, psw, include_last_offset)
    _check_indices(weight, indices, starts, psw, mode, include_last_offset, padding_idx)
    bag_of, bags = _bags(indices, starts.astype(np.int64), include_last_offset, padding_idx)
    return keep_versions(
        EmbeddingBagBackward0.apply(
            weight,
            per_sample_weights,
            indices=indices.astype(np.int64, copy=False),
            bag_of=bag_of,
            bags=bags,
            mode=mode,
            scale=bool(scale_grad_by_freq),
        ),
        input,
        offsets,
    )


def _checking(message: str) -> RuntimeError:
    return RuntimeError(f"{message} (while checking arguments for embedding_bag)")


def _check_arguments(
    weight: np.ndarray,
    indices: np.ndarray,
    offsets: np.ndarray,
    psw: np.ndarray | None,
    include_last_offset: bool,
) -> None:
    """ATen's ``check_arguments`` of ``_embedding_bag_cpu_impl``, after its
    ``promoteIndicesAndOffsets`` (indices and offsets as their common dtype)."""
    common = _promote_np(indices.dtype, offsets.dtype)
    if common not in (np.int64, np.int32):
        raise _checking(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {type_string(common)} instead"
        )
    if weight.dtype not in (np.float16, np.float32, np.float64):
        raise _checking(
            "Expected tensor for argument #1 'weight' to have one of the following scalar "
            f"types: Half, BFloat16, Float, Double; but got {type_string(weight.dtype)} instead"
        )
    if offsets.size and offsets[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {offsets[0]}"
        )
    if offsets.size and offsets[-1] > indices.size:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {indices.size} but got "
            f"offsets[-1] of {offsets[-1]}"
        )
    if psw is not None and psw.dtype != weight.dtype:
        raise _checking(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for "
            f"argument #1 'per_sample_weights'; but type {type_string(weight.dtype)} does not "
            f"equal {type_string(psw.dtype)}"
        )
    if include_last_offset and not offsets.size:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")


def _check_indices(
    weight: Tensor,
    indices: np.ndarray,
    offsets: np.ndarray,
    psw: np.ndarray | None,
    mode: str,
    include_last_offset: bool,
    padding_idx: int | None,
) -> None:
    """The kernels' range check of the indices. PyTorch's fast path (FBGEMM: float32 or
    float16 weights with unit column stride, sums and means, no padding) reads the bags'
    entries only and names the first bad one by position; the other kernels read every
    entry and name its value."""
    bad = (indices < 0) | (indices >= weight.shape[0])
    if not bad.any():
        return
    fast = (
        weight._data.dtype in (np.float32, np.float16)
        and weight.stride(1) == 1
        and mode != "max"
        and padding_idx is None
        and (psw is None or psw.strides[0] == psw.itemsize)
    )
    if not fast:
        raise RuntimeError(
            "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
            f"{indices[bad][0]}"
        )
    _report_fast_path_error(indices, offsets.astype(np.int64), include_last_offset, weight.shape[0])


def _report_fast_path_error(
    indices: np.ndarray, offsets: np.ndarray, include_last_offset: bool, num_weights: int
) -> None:
    """PyTorch's ``fbgemm_spmdm_report_error_`` for a bad index. The bags are split among
    ``get_num_threads()`` threads (``at::parallel_for``, grain 1); a chunk of bags that reads a
    bad index walks its bags' offsets as they are but its indices from its first bag's
    start, so past the first chunk the position it names is shifted, or past its end
    ("Expected i < index_size"). The first chunk that fails is reported."""
    if not include_last_offset:
        offsets = np.append(offsets, indices.size)
    bags = offsets.size - 1
    threads = get_num_threads() if bags > 1 else 1
    size = -(-bags // threads) if bags else 1
    for begin in range(0, bags, size):
        end = min(begin + size, bags)
        start, span = offsets[begin], offsets[end] - offsets[begin]
        read = indices[start : offsets[end]]
        if not ((read < 0) | (read >= num_weights)).any():
            continue
        for bag in range(begin, end):
            for i in range(offsets[bag], offsets[bag + 1]):
                if i >= span:
                    raise RuntimeError(
                        "Expected i < index_size to be true, but got false.  (Could this error "
                        "message be improved?  If so, please report an enhancement request to "
                        "PyTorch.)"
                    )
                value = indices[start + i]
                if not 0 <= value < num_weights:
                    raise RuntimeError(
                        f"Index {i} of input takes value {value} which is not in the valid "
                        f"range [0, {num_weights})"
                    )
        raise RuntimeError(
            "Your input appears to be incorrect: the last offset value should be the size of "
            "the indices tensor, but it seems not to be the case."
        )


def _bags(
    indices: np.ndarray, starts: np.ndarray, include_last_offset: bool, padding_idx: int | None
) -> tuple[np.ndarray, int]:
    """The bag of each entry (-1 for padding and entries past the last bag) and the count."""
    n = indices.size
    bags = max(starts.size - 1, 0) if include_last_offset else starts.size
    ends = np.append(starts[1:], n) if not include_last_offset else starts[1:]
    bag_of = np.full(n, -1, np.int64)
    for bag in range(bags):
        bag_of[starts[bag] : ends[bag]] = bag
    if padding_idx is not None:
        bag_of[indices == padding_idx] = -1
    return bag_of, bags


def _embedding_bag_samples(rng: np.random.Generator) -> list[Sample]:
    flat = np.array([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = np.array([0, 3, 3, 6])  # the second bag is empty
    return [
        Sample((rng.integers(0, 10, (3, 4)), randn(rng, 10, 3))),
        Sample((flat, randn(rng, 10, 3), offsets), {"mode": "sum"}),
        Sample((flat, randn(rng, 10, 3), offsets), {"mode": "max"}),
        Sample(
            (flat, randn(rng, 10, 3), np.array([0, 2, 5, 8])),
            {"include_last_offset": True, "padding_idx": 4},
        ),
        Sample(
            (flat, randn(rng, 10, 3), offsets),
            {"mode": "sum", "per_sample_weights": randn(rng, 8)},
        ),
        Sample((np.array([[0, 3], [3, 1]]), randn(rng, 4, 2)), {"padding_idx": 3}),
    ]


register(
    "embedding_bag",
    embedding_bag,
    nodes=(EmbeddingBagBackward0,),
    samples=_embedding_bag_samples,
    namespace="nn.functional",
    second_order=False,  # PyTorch's gradient is a constant (no graph of the backward)
)

__all__ = ["embedding_bag"]
