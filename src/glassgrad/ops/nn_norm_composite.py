"""Normalisations PyTorch composes from other ops, with the same graphs:
``instance_norm`` (batch norm of a (1, N*C, ...) view), ``rms_norm`` and
``local_response_norm`` (public in ``glassgrad.nn.functional``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import arithmetic, conversion, division, padding, powers, reduction, shape, unary_math
from ._common import check_tensor
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn
from .nn_norm import batch_norm
from .nn_pool_avg import avg_pool2d, avg_pool3d


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel of each sample of (N, C, ...) over its spatial positions, then
    scale and shift per channel (``weight``, ``bias``).

    As PyTorch: batch norm of the input viewed as (1, N*C, ...) with the per-channel
    parameters and running statistics repeated N times; the running statistics (if given and
    ``use_input_stats``) are then updated with the mean over the batch of the per-sample ones.

    Example::

        >>> x = glassgrad.tensor([[[1.0, 3.0], [2.0, 2.0]]])
        >>> glassgrad.nn.functional.instance_norm(x)
        tensor([[[-1.0000,  1.0000],
                 [ 0.0000,  0.0000]]])
    """
    op = "instance_norm"
    check_tensor(input, op)
    sizes = tuple(input._data.shape)
    if use_input_stats and int(np.prod(sizes[2:], dtype=np.int64)) == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size "
            f"glassgrad.Size({list(sizes)})"
        )
    if len(sizes) < 2:
        raise RuntimeError(
            f"{op}(): expected input of at least 2 dimensions (N, C, ...), but got input of "
            f"size {list(sizes)}"
        )
    n, c = sizes[0], sizes[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t._data.size != c:
            raise RuntimeError(f"{name} should contain {n * c} elements not {t._data.size}")

    def repeated(t: Tensor | None) -> Tensor | None:
        return None if t is None else t.repeat(n)

    stats_mean, stats_var = repeated(running_mean), repeated(running_var)
    # As PyTorch's: running statistics whose mean has another dtype than the weight (the
    # input without a weight) are normalised in that dtype, and the updated means copied
    # back into them (rounded, for integer statistics).
    # A conversion that keeps requires_grad: batch_norm refuses statistics that require grad
    # as native_batch_norm does (fuzz seed 804812: float64 statistics, a float32 input).
    target = (weight if weight is not None else input).dtype
    if stats_mean is not None and stats_mean.dtype != target:
        stats_mean = stats_mean.to(target)
        if stats_var is not None:
            stats_var = stats_var.to(target)
    out = batch_norm(
        shape.view(input, (1, n * c, *sizes[2:])),
        stats_mean,
        stats_var,
        repeated(weight),
        repeated(bias),
        bool(use_input_stats),
        momentum,
        eps,
    )
    if use_input_stats:
        with no_grad():
            for target, stats in ((running_mean, stats_mean), (running_var, stats_var)):
                if target is not None:
                    target.copy_(reduction.mean(shape.view(stats, (n, c)), 0))
    return shape.view(out, sizes)


def rms_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """Root-mean-square normalisation over the last ``len(normalized_shape)`` dimensions:
    ``x / sqrt(mean(x**2) + eps) * weight``; ``eps`` defaults to the dtype's machine epsilon.

    Example::

        >>> glassgrad.nn.functional.rms_norm(glassgrad.tensor([[3.0, 4.0]]), (2,))
        tensor([[0.8485, 1.1314]])
    """
    op = "rms_norm"
    check_tensor(input, op)
    normalized = (
        (int(normalized_shape),)
        if isinstance(normalized_shape, (int, np.integer))
        else tuple(int(s) for s in normalized_shape)
    )
    x = input._data
    if x.shape[x.ndim - len(normalized) :] != normalized or len(normalized) > x.ndim:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in normalized)}], but got input of size"
            f"{list(x.shape)}"
        )
    if weight is not None and tuple(weight._data.shape) != normalized:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight._data.shape)} and normalized_shape = {list(normalized)}"
        )
    if eps is None:
        eps = float(np.finfo(x.dtype).eps) if x.dtype.kind == "f" else 1.1920928955078125e-07
    dims = tuple(range(-len(normalized), 0))
    mean_square = reduction.mean(powers.pow(input, 2), dims, keepdim=True)
    out = arithmetic.mul(input, unary_math.rsqrt(arithmetic.add(mean_square, eps)))
    if weight is None:
        return out
    out = arithmetic.mul(out, weight)
    # PyTorch's composite ends with type_as(input): a wider weight does not widen the result
    return out if out._data.dtype == x.dtype else conversion.to(out, input.dtype)


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """Normalise each element by the energy of its ``size`` neighbouring channels:
    ``x / (k + alpha * mean_{neighbours} x**2) ** beta`` (zero-padded channel windows).

    Example::

        >>> x = glassgrad.ones(1, 3, 1)
        >>> glassgrad.nn.functional.local_response_norm(x, 2, alpha=1.0, k=1.0)
        tensor([[[0.7378],
                 [0.5946],
                 [0.5946]]])
    """
    op = "local_response_norm"
    check_tensor(input, op)
    dim = input._data.ndim
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            "dimensions)"
        )
    if input._data.size == 0:
        return input
    div = arithmetic.mul(input, input)
    if dim == 3:
        div = shape.unsqueeze(div, 1)
        div = padding.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = shape.squeeze(avg_pool2d(div, (size, 1), stride=1), 1)
    else:
        sizes = tuple(input._data.shape)
        div = shape.view(div, (sizes[0], 1, sizes[1], sizes[2], -1))
        div = padding.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = shape.squeeze(avg_pool3d(div, (size, 1, 1), stride=1), 1)
        div = shape.view(div, sizes)
    div = powers.pow(arithmetic.add(arithmetic.mul(div, alpha), k), beta)
    return division.div(input, div)


# --- registry ---------------------------------------------------------------------------


def _instance_norm_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 3, 5),)),
        Sample(
            (randn(rng, 2, 3, 4, 3), NoGrad(randn(rng, 3)), NoGrad(positive(rng, 3))),
            {"weight": randn(rng, 3), "bias": randn(rng, 3), "momentum": 0.2},
        ),
        Sample(
            (randn(rng, 2, 2, 3, 2, 2), NoGrad(randn(rng, 2)), NoGrad(positive(rng, 2))),
            {"use_input_stats": False, "eps": 1e-3},
        ),
    ]


def _rms_norm_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), (4,))),
        Sample((randn(rng, 2, 3, 4), (3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 2, 5), [5]), {"weight": randn(rng, 5), "eps": 1e-3}),
    ]


def _lrn_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 5, 4), 3)),
        Sample((randn(rng, 2, 6, 3, 4), 2), {"alpha": 0.1, "beta": 0.5, "k": 2.0}),
        Sample((randn(rng, 1, 4, 2, 3, 2), 3), {"alpha": 0.5}),
    ]


_NF = "nn.functional"
register("instance_norm", instance_norm, samples=_instance_norm_samples, namespace=_NF)
register("rms_norm", rms_norm, samples=_rms_norm_samples, namespace=_NF)
register("local_response_norm", local_response_norm, samples=_lrn_samples, namespace=_NF)

__all__ = ["instance_norm", "rms_norm", "local_response_norm"]
