"""Max unpooling and power-average pooling: ``max_unpool1d/2d/3d lp_pool1d/2d/3d`` (public in
``glassgrad.nn.functional``).

``max_unpool`` puts each value back at the flat index ``max_pool(..., return_indices=True)``
recorded, zeros elsewhere; its gradient reads the output gradient at those indices (a gather
whose own gradient scatters again). The 1-d form is the 2-d op on a unit width, as PyTorch.
``lp_pool`` is PyTorch's composite: ``(sum over the window of x**p) ** (1/p)`` through
average pooling (max pooling for p = +-inf).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.op import Op, keep_versions
from . import arithmetic, pointwise, powers, shape
from ._common import check_tensor
from ._not_implemented import refuse_complex
from ._pool_geometry import gather_flat
from ._registry import Sample, register
from ._samples import randn
from .nn_activation import relu
from .nn_pool import max_pool1d, max_pool2d, max_pool3d
from .nn_pool_avg import avg_pool1d, avg_pool2d, avg_pool3d


class MaxUnpool2DBackward0(Op):
    """out = zeros of ``output_size`` with each input value written at its flat index."""

    __slots__ = ("_indices",)

    def forward(self, x: Any, indices: Any, output_size: Any) -> Any:
        nd = len(output_size)
        self._indices = indices
        lead = x.shape[:-nd]
        planes = int(np.prod(lead, dtype=np.int64))
        volume = int(np.prod(output_size, dtype=np.int64))
        out = np.zeros((planes, volume), x.dtype)
        rows = np.repeat(np.arange(planes), indices.size // planes if planes else 0)
        out[rows, indices.reshape(-1)] = x.reshape(-1)
        return out.reshape(*lead, *output_size)

    def backward(self, F: Any, grad: Any) -> Any:
        return gather_flat(F, grad, self._indices, _SPATIAL[type(self)]), None


class MaxUnpool3DBackward0(MaxUnpool2DBackward0):
    """``max_unpool3d``: as ``MaxUnpool2DBackward0`` over (D, H, W) volumes."""

    __slots__ = ()


_SPATIAL = {MaxUnpool2DBackward0: 2, MaxUnpool3DBackward0: 3}


def _ntuple(value: Any, n: int) -> tuple:
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(value)
    return (value,) * n


def _unpool_output_size(
    input: Tensor, kernel: tuple, stride: tuple, padding: tuple, output_size: Any
) -> tuple:
    """PyTorch's ``_unpool_output_size``: the default size, or the requested one checked."""
    nd = len(kernel)
    sizes = input.shape[-nd:]
    default = [(sizes[d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(nd)]
    if output_size is None:
        result = default
    else:
        output_size = list(output_size)
        if len(output_size) == nd + 2:
            output_size = output_size[2:]
        if len(output_size) != nd:
            raise ValueError(
                f"output_size should be a sequence containing {nd} or {nd + 2} elements, but "
                f"it has a length of '{len(output_size)}'"
            )
        for d in range(nd):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(
                    f'invalid output_size "{tuple(output_size)}" (dim {d} must be between '
                    f"{low} and {high})"
                )
        result = output_size
    for d, size in enumerate(result):
        if size < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but "
                f"got output_size[{d}]={size}"
            )
    return tuple(int(s) for s in result)


def _max_unpool(op: str, nd: int, input: Tensor, indices: Tensor, output_size: tuple) -> Tensor:
    check_tensor(input, op)
    check_tensor(indices, op, "indices", 2)
    idx = indices._data
    if idx.dtype != np.int64:
        raise RuntimeError(
            f"elements in indices should be type int64 but got: {scalar_type_name(idx.dtype)}"
        )
    if idx.shape != input._data.shape:
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(input._data.shape)}) but got indices tensor with shape: {list(idx.shape)}"
        )
    volume = int(np.prod(output_size, dtype=np.int64))
    if idx.size and (idx.min() < 0 or idx.max() >= volume):
        bad = int(idx.max() if idx.max() >= volume else idx.min())
        sizes = "x".join(str(s) for s in output_size)
        raise RuntimeError(
            f"Found an invalid max index: {bad} (output volumes are of size {sizes})"
        )
    refuse_complex("max_unpool3d" if nd == 3 else "max_unpool2d", input)
    node = MaxUnpool3DBackward0 if nd == 3 else MaxUnpool2DBackward0
    return keep_versions(node.apply(input, indices, output_size=output_size), indices)


def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """Undo ``max_pool1d``: each value back at its recorded position, zeros elsewhere.

    Example::

        >>> F = glassgrad.nn.functional
        >>> out, idx = F.max_pool1d(glassgrad.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2, return_indices=True)
        >>> F.max_unpool1d(out, idx, 2)
        tensor([[[0., 3., 2., 0.]]])
    """
    kernel = _ntuple(kernel_size, 1)
    stride = kernel if stride is None else _ntuple(stride, 1)
    size = _unpool_output_size(input, kernel, stride, _ntuple(padding, 1), output_size)
    out = _max_unpool(
        "max_unpool1d", 2, shape.unsqueeze(input, -1), shape.unsqueeze(indices, -1), (*size, 1)
    )
    return shape.squeeze(out, -1)


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """Undo ``max_pool2d``: each value back at its recorded flat ``h*W + w`` position, zeros
    elsewhere (``output_size`` picks among the sizes that pool to the input's).

    Example::

        >>> F = glassgrad.nn.functional
        >>> x = glassgrad.arange(16.0).reshape(1, 1, 4, 4)
        >>> out, idx = F.max_pool2d(x, 2, return_indices=True)
        >>> F.max_unpool2d(out, idx, 2)[0, 0]
        tensor([[ 0.,  0.,  0.,  0.],
                [ 0.,  5.,  0.,  7.],
                [ 0.,  0.,  0.,  0.],
                [ 0., 13.,  0., 15.]])
    """
    kernel = _ntuple(kernel_size, 2)
    stride = kernel if stride is None else _ntuple(stride, 2)
    size = _unpool_output_size(input, kernel, stride, _ntuple(padding, 2), output_size)
    return _max_unpool("max_unpool2d", 2, input, indices, size)


def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """Undo ``max_pool3d``: each value back at its recorded flat position, zeros elsewhere.

    Example::

        >>> F = glassgrad.nn.functional
        >>> out, idx = F.max_pool3d(glassgrad.ones(1, 1, 2, 2, 2), 2, return_indices=True)
        >>> F.max_unpool3d(out, idx, 2).sum()
        tensor(1.)
    """
    kernel = _ntuple(kernel_size, 3)
    stride = kernel if stride is None else _ntuple(stride, 3)
    size = _unpool_output_size(input, kernel, stride, _ntuple(padding, 3), output_size)
    return _max_unpool("max_unpool3d", 3, input, indices, size)


# --- power-average pooling -----------------------------------------------------------------


def _lp_pool(
    nd: int, input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool
) -> Tensor:
    max_pool = (max_pool1d, max_pool2d, max_pool3d)[nd - 1]
    avg_pool = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    if norm_type == float("inf"):
        return max_pool(pointwise.abs(input), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return arithmetic.neg(
            max_pool(arithmetic.neg(pointwise.abs(input)), kernel_size, stride, 0, 1, ceil_mode)
        )
    powered = powers.pow(input, norm_type)
    if stride is not None:
        out = avg_pool(powered, kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(powered, kernel_size, padding=0, ceil_mode=ceil_mode)
    count = int(np.prod(_ntuple(kernel_size, nd)))
    signed = arithmetic.mul(pointwise.sign(out), relu(pointwise.abs(out)))
    return powers.pow(arithmetic.mul(signed, count), 1.0 / norm_type)


def lp_pool1d(
    input: Tensor, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling over (N, C, L): ``(sum over the window of x**p) ** (1/p)``
    (``p = inf``: the max of ``|x|``).

    Example::

        >>> glassgrad.nn.functional.lp_pool1d(glassgrad.tensor([[[3.0, 4.0]]]), 2, 2)
        tensor([[[5.]]])
    """
    return _lp_pool(1, check_tensor(input, "lp_pool1d"), norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling over (N, C, H, W) (see ``lp_pool1d``).

    Example::

        >>> glassgrad.nn.functional.lp_pool2d(glassgrad.ones(1, 1, 2, 2), 2, 2)
        tensor([[[[2.]]]])
    """
    return _lp_pool(2, check_tensor(input, "lp_pool2d"), norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling over (N, C, D, H, W) (see ``lp_pool1d``).

    Example::

        >>> glassgrad.nn.functional.lp_pool3d(glassgrad.ones(1, 1, 2, 2, 2), 1, 2)
        tensor([[[[[8.]]]]])
    """
    return _lp_pool(3, check_tensor(input, "lp_pool3d"), norm_type, kernel_size, stride, ceil_mode)


# --- registry ---------------------------------------------------------------------------


def _unpool_samples(nd: int) -> Any:
    def samples(rng: np.random.Generator) -> list[Sample]:
        pool = (max_pool1d, max_pool2d, max_pool3d)[nd - 1]
        spatial = {1: (6,), 2: (4, 6), 3: (4, 2, 4)}[nd]
        x = Tensor._from_array(randn(rng, 2, 3, *spatial))
        values, indices = pool(x, 2, return_indices=True)
        padded_size = tuple(s + 1 for s in spatial)
        return [
            Sample((values._data, indices._data, 2)),
            Sample((values._data, indices._data, 2), {"output_size": padded_size}),
        ]

    return samples


def _lp_samples(nd: int) -> Any:
    def samples(rng: np.random.Generator) -> list[Sample]:
        spatial = {1: (6,), 2: (4, 5), 3: (4, 3, 4)}[nd]
        positive = 0.5 + np.abs(randn(rng, 2, 3, *spatial))
        return [
            Sample((positive, 2, 2)),
            Sample((positive, 3.0, 2), {"stride": 1, "ceil_mode": True}),
            Sample((randn(rng, 2, 3, *spatial), float("inf"), 2)),
        ]

    return samples


_NF = "nn.functional"
for _nd, _unpool, _lp in (
    (1, max_unpool1d, lp_pool1d),
    (2, max_unpool2d, lp_pool2d),
    (3, max_unpool3d, lp_pool3d),
):
    _node = MaxUnpool3DBackward0 if _nd == 3 else MaxUnpool2DBackward0
    register(_unpool.__name__, _unpool, nodes=(_node,), samples=_unpool_samples(_nd), namespace=_NF)
    register(_lp.__name__, _lp, samples=_lp_samples(_nd), namespace=_NF)

__all__ = [
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
]
