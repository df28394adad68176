"""Normalisation: ``batch_norm layer_norm group_norm`` (public in ``glassgrad.nn.functional``).

All three standardise ``x`` over some dims, ``x_hat = (x - mean) / sqrt(var + eps)`` (biased
variance), then scale and shift per channel or element. They share one backward: with batch
statistics, for ``g = dL/dx_hat``,

    dL/dx = invstd * (g - mean(g) - x_hat * mean(g * x_hat))

(means over the standardised dims). The formula recomputes the statistics from the saved input
with the namespace ``F``, so under ``create_graph=True`` it is itself differentiable and second
derivatives match PyTorch's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op, keep_versions
from . import arithmetic, conversion, shape_views
from ._common import array_of, check_tensor
from ._namespace import ArrayNamespace
from ._norm_double_backward import (
    NativeBatchNormBackwardBackward0,
    NativeLayerNormBackwardBackward0,
    kernel_grad_input,
    var_mean_backward,
)
from ._not_implemented import check_no_requires_grad, refuse_complex
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn
from .reduction import mean_and_biased_var, mean_array


def _statistics(F: Any, x: Any, dims: tuple, count: int, eps: float) -> tuple:
    """``(mean, invstd)`` of ``x`` over ``dims`` (biased variance, dims kept), arrays or
    Tensors."""
    mean = F.sum(x, dims, True) / count
    centered = x - mean
    return mean, (F.sum(centered * centered, dims, True) / count + eps) ** -0.5


def _standardized(x: np.ndarray, dims: tuple, eps: float) -> np.ndarray:
    """``(x - mean) / sqrt(var + eps)`` over ``dims`` (biased variance): a fresh array."""
    centered = x - mean_array(x, dims, True)
    centered *= 1.0 / np.sqrt(mean_array(centered * centered, dims, True) + eps)
    return centered


def _moments(x: np.ndarray, dims: tuple, eps: float) -> tuple:
    """``(mean, invstd)`` of ``x`` over ``dims`` (biased variance), dims kept."""
    mean = mean_array(x, dims, True)
    centered = x - mean
    var = mean_array(np.multiply(centered, centered, out=centered), dims, True)
    return mean, 1.0 / np.sqrt(var + eps)


def _folded(x: np.ndarray, mean: Any, invstd: Any, w: Any, b: Any) -> np.ndarray:
    """``x * scale + shift`` with ``scale = invstd * w`` and ``shift = b - mean * scale``, the
    per-channel terms PyTorch's batch and group norm CPU kernels fold the statistics and the
    affine parameters into (``batch_norm_cpu_collect_linear_and_constant_terms``,
    ``GroupNormKernelImplInternal``): an infinite weight gives NaN where ``x * scale`` and
    ``shift`` are infinities of opposite signs, as PyTorch's, not ``(x - mean) * inf``.
    ``mean``, ``invstd``, ``w`` and ``b`` broadcast against ``x``; ``w``, ``b`` may be None."""
    scale = invstd if w is None else invstd * w
    shift = -(mean * scale) if b is None else b - mean * scale
    out = x * scale
    out += shift
    return out


def _dense(x: np.ndarray) -> bool:
    """Whether ``x`` is contiguous or channels-last contiguous, where PyTorch's batch norm
    takes its folded kernel (``batch_norm_cpu_transform_input_template``)."""
    return x.flags.c_contiguous or (x.ndim in (4, 5) and np.moveaxis(x, 1, -1).flags.c_contiguous)


def _affine(normed: np.ndarray, w: np.ndarray | None, b: np.ndarray | None, shape: tuple):
    # ``normed`` is a fresh array: scaled and shifted in place where the dtypes agree.
    if w is not None:
        w = w.reshape(shape)
        normed = np.multiply(normed, w, out=normed) if w.dtype == normed.dtype else normed * w
    if b is not None:
        b = b.reshape(shape)
        normed = np.add(normed, b, out=normed) if b.dtype == normed.dtype else normed + b
    return normed


# --- batch norm ------------------------------------------------------------------------------


class NativeBatchNormBackward0(Op):
    """out = (x - mean) * invstd * weight + bias per channel (dim 1); batch statistics over
    all other dims when training, the running ones otherwise."""

    eps: Any
    training: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    __slots__ = ("training", "eps", "_running_mean", "_running_invstd", "_running_stats")

    @row_major
    def forward(
        self,
        x: Any,
        w: Any,
        b: Any,
        training: Any,
        eps: Any,
        running_mean: Any = None,
        running_var: Any = None,
    ) -> Any:
        # Kept for backward's requires_grad check (their versions: keep_versions in batch_norm).
        self._running_stats = (running_mean, running_var)
        running_mean = None if running_mean is None else running_mean._data
        running_var = None if running_var is None else running_var._data
        self.training, self.eps = training, eps
        dims = _channel_dims(x)
        shape = _channel_shape(x)
        if training:
            mean, invstd = _moments(x, dims, eps) if x.size else (np.zeros(shape, x.dtype),) * 2
        else:
            mean = running_mean.reshape(shape).astype(x.dtype, copy=False)
            invstd = (1.0 / np.sqrt(running_var + eps)).reshape(shape).astype(x.dtype, copy=False)
            self._running_mean, self._running_invstd = mean, invstd
        w = None if w is None else w.reshape(shape)
        b = None if b is None else b.reshape(shape)
        if not _dense(x):  # PyTorch's TensorIterator path: ((x - mean) * invstd) * w + b
            return _affine((x - mean) * invstd, w, b, shape).astype(x.dtype, copy=False)
        return _folded(x, mean, invstd, w, b).astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        x, w = self.saved
        for name, stat in zip(("running_mean", "running_var"), self._running_stats):
            if F is not ArrayNamespace and stat is not None and stat.requires_grad:
                # Under create_graph PyTorch's backward is an op of its own, which refuses them.
                raise RuntimeError(
                    "The function 'native_batch_norm_backward' is not differentiable with "
                    f"respect to argument '{name}'. This input cannot have requires_grad True."
                )
        values = array_of(x)
        if self.training:
            dims = _channel_dims(values)
            count = values.size // values.shape[1] if values.shape[1] else 0
            mean, invstd = _statistics(ArrayNamespace, values, dims, count, self.eps)
        else:
            mean, invstd = self._running_mean, self._running_invstd
        grads = NativeBatchNormBackwardBackward0.call(
            grad, x, w, mean=mean, invstd=invstd, training=self.training
        )
        return tuple(g if need else None for g, need in zip(grads, self.needs_input_grad))


def _channel_dims(x: Any) -> tuple:
    return (0, *range(2, len(x.shape)))


def _channel_shape(x: Any) -> tuple:
    return (1, x.shape[1]) + (1,) * (len(x.shape) - 2)


def _check_parameter_dtypes(x: np.ndarray, *parameters: Tensor | None) -> bool:
    """PyTorch's CPU normalisation kernels' mixed-precision check (``check_mixed_data_type``):
    the parameters must have the input's dtype, except float32 parameters of a float16 input.
    The first parameter given decides which check (and message) applies. Returns whether the
    call is a mixed-precision one; otherwise the caller checks each parameter's dtype as its
    kernel reads it (:func:`_check_same_dtype`)."""
    given = [p._data.dtype for p in parameters if p is not None]
    if not given or given[0] == x.dtype:
        return False
    if any(d != np.float32 for d in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if x.dtype != np.float16:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return True


def _check_same_dtype(x: np.ndarray, *parameters: Tensor | None) -> None:
    """The kernel's typed read of each parameter (``data_ptr<scalar_t>``)."""
    for p in parameters:
        if p is not None and p._data.dtype != x.dtype:
            raise RuntimeError(
                f"expected scalar type {scalar_type_name(x.dtype)} but found "
                f"{scalar_type_name(p._data.dtype)}"
            )


def _check_vector(op: str, name: str, t: Tensor | None, size: int) -> None:
    if t is not None and t._data.size != size:
        raise RuntimeError(f"{op}(): {name} should contain {size} elements not {t._data.size}")


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Batch normalisation over dim 1 (channels) of ``input`` (N, C, ...).

    ``out = (x - mean) / sqrt(var + eps) * weight + bias``. When ``training``, mean and biased
    variance are taken over the batch and spatial dims, and the running statistics (if given)
    are updated in place: ``running = (1 - momentum) * running + momentum * batch`` (the
    unbiased variance for ``running_var``). Otherwise the running statistics are used.

    Example::

        >>> x = glassgrad.tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> glassgrad.nn.functional.batch_norm(x, None, None, training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
    """
    op = "batch_norm"
    check_tensor(input, op)
    x = input._data
    if x.ndim < 2:
        raise RuntimeError(
            f"{op}(): expected input of at least 2 dimensions (N, C, ...), but got input of size "
            f"{list(x.shape)}"
        )
    if momentum is None or isinstance(momentum, bool):
        raise TypeError(f"{op}(): argument 'momentum' must be float, not {type(momentum).__name__}")
    channels = x.shape[1]
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        _check_vector(op, name, t, channels)
    if training:
        per_channel = x.size // channels if channels else 0
        if per_channel == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{list(x.shape)}"
            )
    elif running_mean is None or running_var is None:
        missing = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{op}(): {missing} must be defined in evaluation mode")
    if x.size:  # PyTorch's empty-input path never reaches native_batch_norm
        check_no_requires_grad(running_mean, "running_mean", "native_batch_norm")
        check_no_requires_grad(running_var, "running_var", "native_batch_norm")
    refuse_complex("batch_norm", x)
    if x.size == 0:
        # PyTorch's _batch_norm_impl_index for an empty input: a clone scaled by the first
        # weight and shifted by the first bias (the gradient chain stays), statistics alone.
        out = conversion.clone(input)
        if weight is not None:
            out = arithmetic.mul(out, shape_views.select(weight, 0, 0))
        if bias is not None:
            out = arithmetic.add(out, shape_views.select(bias, 0, 0))
        return out
    mixed_precision = _check_parameter_dtypes(x, weight, bias, running_mean, running_var)
    if not mixed_precision:
        _check_same_dtype(x, weight, running_mean, running_var)
    if training and (running_mean is not None or running_var is not None):
        _update_running_stats(x, running_mean, running_var, float(momentum))
    if not mixed_precision:
        # The kernel reads the bias only after it has updated the running statistics.
        _check_same_dtype(x, bias)
    out = NativeBatchNormBackward0.apply(
        input,
        weight,
        bias,
        training=bool(training),
        eps=eps,
        running_mean=running_mean,
        running_var=running_var,
    )
    # The running statistics (tensors, no gradient) are saved as PyTorch saves them, in
    # training mode too: changing one in place before the backward is an error.
    return keep_versions(out, running_mean, running_var)


def _update_running_stats(
    x: np.ndarray, running_mean: Tensor | None, running_var: Tensor | None, momentum: float
) -> None:
    """In-place exponential averages, as PyTorch's kernel writes them: without bumping the
    version counters (the op saves them afterwards)."""
    dims = _channel_dims(x)
    count = x.size // x.shape[1]
    mean, biased_var = mean_and_biased_var(x, dims)
    if running_mean is not None:
        stats = running_mean._data
        stats[...] = (1 - momentum) * stats + momentum * mean
    if running_var is not None:
        unbiased = biased_var * (count / max(count - 1, 1))
        stats = running_var._data
        stats[...] = (1 - momentum) * stats + momentum * unbiased


# --- layer norm ------------------------------------------------------------------------------


class NativeLayerNormBackward0(Op):
    """out = (x - mean) * invstd * weight + bias, statistics over the trailing
    ``normalized_shape`` dims."""

    eps: Any
    normalized_shape: Any

    # The bias too, as PyTorch's native_layer_norm saves it: its backward takes it (its
    # derivative for it is undefined), so a first derivative under create_graph requires grad
    # when the bias does.
    saved_inputs: tuple[int, ...] = (0, 1, 2)
    __slots__ = ("normalized_shape", "eps")

    @row_major
    def forward(self, x: Any, w: Any, b: Any, normalized_shape: Any, eps: Any) -> Any:
        self.normalized_shape, self.eps = normalized_shape, eps
        dims = tuple(range(x.ndim - len(normalized_shape), x.ndim))
        normed = _standardized(x, dims, eps)
        return _affine(normed, w, b, normalized_shape).astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        x, w, b = self.saved
        values = array_of(x)
        dims = tuple(range(values.ndim - len(self.normalized_shape), values.ndim))
        count = math.prod(self.normalized_shape)
        mean, rstd = _statistics(ArrayNamespace, values, dims, count, self.eps)
        grads = NativeLayerNormBackwardBackward0.call(
            grad, x, w, b, mean=mean, rstd=rstd, normalized_shape=self.normalized_shape
        )
        return tuple(g if need else None for g, need in zip(grads, self.needs_input_grad))


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int] | int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Layer normalisation over the trailing ``normalized_shape`` dims of ``input``.

    ``out = (x - mean) / sqrt(var + eps) * weight + bias`` with mean and biased variance over
    those dims; ``weight`` and ``bias`` have shape ``normalized_shape``.

    Example::

        >>> x = glassgrad.tensor([[1.0, 3.0], [2.0, 2.0]])
        >>> glassgrad.nn.functional.layer_norm(x, (2,))
        tensor([[-1.0000,  1.0000],
                [ 0.0000,  0.0000]])
    """
    op = "layer_norm"
    check_tensor(input, op)
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (int(normalized_shape),)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    x = input._data
    k = len(normalized_shape)
    if k == 0 or x.ndim < k or tuple(x.shape[x.ndim - k :]) != normalized_shape:
        raise RuntimeError(
            f"{op}(): Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size"
            f"{list(x.shape)}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t._data.shape) != normalized_shape:
            raise RuntimeError(
                f"{op}(): Expected {name} to be of same shape as normalized_shape, but got {name} "
                f"of shape {list(t._data.shape)} and normalized_shape = {list(normalized_shape)}"
            )
    if not _check_parameter_dtypes(x, weight, bias):
        _check_same_dtype(x, weight, bias)
    refuse_complex("LayerNormKernelImpl", x)
    return NativeLayerNormBackward0.apply(
        input, weight, bias, normalized_shape=normalized_shape, eps=eps
    )


# --- group norm ------------------------------------------------------------------------------


class NativeGroupNormBackward0(Op):
    """out = (x - mean) * invstd * weight + bias; statistics per sample over each group of
    ``C / num_groups`` channels and all spatial dims; weight and bias per channel. Like
    PyTorch's ``native_group_norm`` it also returns the statistics (mean, rstd: (N, G)), which
    it saves: ``group_norm`` hands out the normalised output only."""

    eps: Any
    group: Any

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_outputs: tuple[int, ...] = (1, 2)
    takes_undefined_grads = True  # an undefined gradient's terms are left out, as in PyTorch
    __slots__ = ("group", "eps")

    @row_major
    def forward(self, x: Any, w: Any, b: Any, group: Any, eps: Any) -> Any:
        self.group, self.eps = group, eps
        n, c = x.shape[:2]
        # The group size spelled out: -1 is ambiguous for an empty batch.
        grouped = x.reshape(n, group, math.prod(x.shape[1:]) // group)
        with np.errstate(invalid="ignore", divide="ignore"):  # an empty group: NaN, as PyTorch
            mean, rstd = _moments(grouped, (2,), eps)
        stats = mean.reshape(n, group), rstd.reshape(n, group)
        if (w is None and b is None) or not x.size:
            normed = _standardized(grouped, (2,), eps).reshape(x.shape)
            out = _affine(normed, w, b, _channel_shape(x)[1:]).astype(x.dtype, copy=False)
            return (out, *stats)
        # Per sample and channel: the group's statistics, repeated over its channels.
        mean, invstd = (
            np.repeat(m, c // group, axis=1).reshape((n, c) + (1,) * (x.ndim - 2)) for m in stats
        )
        shape = _channel_shape(x)
        w = None if w is None else w.reshape(shape)
        b = None if b is None else b.reshape(shape)
        if not _dense(x):  # PyTorch's TensorIterator path: ((x - mean) * invstd) * w + b
            return _affine((x - mean) * invstd, w, b, shape).astype(x.dtype, copy=False), *stats
        return _folded(x, mean, invstd, w, b).astype(x.dtype, copy=False), *stats

    def backward(self, F: Any, grads: Any) -> Any:
        grad, grad_mean, grad_rstd = grads
        x, w, mean, rstd = self.saved
        if F is ArrayNamespace and grad_mean is None and grad_rstd is None:
            return self._kernel_backward(grad, x, w, mean, rstd)
        return self._composite_backward(F, grad, grad_mean, grad_rstd, x, w, mean, rstd)

    def _kernel_backward(self, grad: Any, x: Any, w: Any, mean: Any, rstd: Any) -> tuple:
        """``native_group_norm_backward``'s kernel order (no graph of the backward)."""
        if grad is None:
            return None, None, None
        F = ArrayNamespace
        needs = self.needs_input_grad
        shape = tuple(x.shape)
        n, c = shape[:2]
        count = math.prod(shape[1:]) // self.group
        grouped_shape = (n, self.group, count)
        mean, rstd = mean.reshape(n, self.group, 1), rstd.reshape(n, self.group, 1)
        grad_input = grad_weight = grad_bias = None
        if needs[0]:
            grad_gamma = grad if w is None else grad * w.reshape(_channel_shape(x)[1:])
            grad_gamma = grad_gamma.reshape(grouped_shape)
            grouped = x.reshape(grouped_shape)
            grad_input = kernel_grad_input(F, grad_gamma, grouped, mean, rstd, (2,), count)
            grad_input = grad_input.reshape(shape)
        if needs[1]:
            # Per sample and channel (ds - db * mean) * rstd, summed over the samples (ds, db:
            # sums of dy * x and of dy over the channel's positions).
            per_channel = (n, c, math.prod(shape[2:]))
            ds = np.sum((grad * x).reshape(per_channel), 2)
            db = np.sum(grad.reshape(per_channel), 2)
            group_size = (n, self.group, c // self.group)
            mean_c, rstd_c = (np.broadcast_to(t, group_size).reshape(n, c) for t in (mean, rstd))
            grad_weight = np.sum((ds - db * mean_c) * rstd_c, 0)
        if needs[2]:
            grad_bias = np.sum(grad, _channel_dims(x))
        return grad_input, grad_weight, grad_bias

    def _composite_backward(self, F, grad, grad_mean, grad_rstd, x, w, mean, rstd) -> tuple:
        """PyTorch's ``infinitely_differentiable_native_group_norm_backward``, in its order:
        the backward under ``create_graph``, and the one that gets the statistics' gradients."""
        needs = self.needs_input_grad
        shape = tuple(x.shape)
        n, c = shape[:2]
        g = self.group
        d, hxw = c // g, math.prod(shape[2:])
        s = 1.0 / (d * hxw) if d * hxw else math.inf
        grouped = F.reshape(x, (n, g, d, hxw))
        mean_t, rstd_t = F.reshape(mean, (n, g, 1, 1)), F.reshape(rstd, (n, g, 1, 1))
        ds = db = None
        if grad is not None:
            grad_t = F.reshape(grad, (n, g, d, hxw))
            ds = F.sum(grad_t * grouped, 3, True)
            db = F.sum(grad_t, 3, True)
        grad_input = grad_weight = grad_bias = None
        if needs[0]:
            gamma = None if w is None else F.reshape(w, (1, g, d, 1))
            rstd_cube = rstd_t * rstd_t * rstd_t
            both = grad_mean is not None and grad_rstd is not None
            if grad is not None:
                a = rstd_t if gamma is None else rstd_t * gamma
                b = F.sum(ds if gamma is None else ds * gamma, 2, True)
                c_ = F.sum(db if gamma is None else db * gamma, 2, True)
                b = (c_ * mean_t - b) * rstd_cube * s
                c_ = -b * mean_t - c_ * rstd_t * s
                grad_input = a * grad_t + b * grouped + c_
            if both:
                d_var = -0.5 * rstd_cube * F.reshape(grad_rstd, (n, g, 1, 1))
                d_mean = F.reshape(grad_mean, (n, g, 1, 1))
                statistics = var_mean_backward(F, d_var, d_mean, grouped, d * hxw)
                grad_input = statistics if grad_input is None else grad_input + statistics
            if grad_input is not None:
                grad_input = F.reshape(grad_input, shape)
        if needs[1] and grad is not None:
            grad_weight = F.reshape(F.sum((ds - db * mean_t) * rstd_t, 0), (c,))
        if needs[2] and grad is not None:
            grad_bias = F.reshape(F.sum(db, 0), (c,))
        return grad_input, grad_weight, grad_bias


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Group normalisation of ``input`` (N, C, ...): channels split into ``num_groups`` groups,
    each standardised per sample over its channels and all spatial positions, then
    ``* weight[c] + bias[c]``.

    Example::

        >>> x = glassgrad.tensor([[1.0, 3.0, 5.0, 9.0]])
        >>> glassgrad.nn.functional.group_norm(x, 2)
        tensor([[-1.0000,  1.0000, -1.0000,  1.0000]])
    """
    op = "group_norm"
    check_tensor(input, op)
    x = input._data
    if x.ndim < 2:
        raise RuntimeError(
            f"{op}(): Expected at least 2 dimensions for input tensor but received {x.ndim}"
        )
    channels = x.shape[1]
    if not isinstance(num_groups, (int, np.integer)) or num_groups <= 0 or channels % num_groups:
        raise RuntimeError(
            f"{op}(): Expected number of channels in input to be divisible by num_groups, but "
            f"got input of shape {list(x.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t._data.shape[0] != channels):
            raise RuntimeError(
                f"{op}(): Expected {name} to be a vector of size equal to the number of channels "
                f"in input, but got {name} of shape {list(t._data.shape)} and input of shape "
                f"{list(x.shape)}"
            )
    if not _check_parameter_dtypes(x, weight, bias):
        _check_same_dtype(x, weight, bias)
    refuse_complex("GroupNormKernelImpl", x)
    out, _, _ = NativeGroupNormBackward0.apply(input, weight, bias, group=int(num_groups), eps=eps)
    return out


# --- registry --------------------------------------------------------------------------------


def _batch_norm_samples(rng: np.random.Generator) -> list[Sample]:
    def stats(c: int) -> tuple:
        return NoGrad(randn(rng, c)), NoGrad(positive(rng, c) + 0.5)

    return [
        Sample((randn(rng, 4, 3), *stats(3), randn(rng, 3), randn(rng, 3)), {"training": True}),
        Sample((randn(rng, 2, 3, 4, 3), *stats(3), randn(rng, 3), randn(rng, 3), True, 0.3)),
        Sample((randn(rng, 3, 2, 5), None, None), {"training": True, "eps": 0.1}),
        Sample((randn(rng, 2, 3, 4), *stats(3), randn(rng, 3), randn(rng, 3)), note="eval"),
        Sample((randn(rng, 2, 3, 2, 2), *stats(3)), {"training": False}, note="eval, no affine"),
        Sample(
            (randn(rng, 4, 2, 3).transpose(1, 0, 2), None, None, randn(rng, 4)),
            {"training": True},
            note="non-contiguous, weight only",
        ),
    ]


def _layer_norm_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), (4,), randn(rng, 4), randn(rng, 4))),
        Sample((randn(rng, 2, 3, 4), (3, 4), randn(rng, 3, 4), randn(rng, 3, 4)), {"eps": 0.1}),
        Sample((randn(rng, 2, 5), [5])),
        Sample((randn(rng, 5), (5,), randn(rng, 5)), note="no batch dims, weight only"),
        Sample(
            (randn(rng, 4, 3).T, (4,), None, randn(rng, 4)),
            gradgrad=False,
            note="non-contiguous, bias only (PyTorch's double backward fails without a weight)",
        ),
    ]


def _group_norm_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 6, 3), 3, randn(rng, 6), randn(rng, 6))),
        Sample((randn(rng, 2, 4, 2, 3), 2, randn(rng, 4), randn(rng, 4)), {"eps": 0.1}),
        Sample((randn(rng, 3, 4), 4), note="one channel per group"),
        Sample((randn(rng, 2, 4, 3), 1, randn(rng, 4)), note="one group, weight only"),
    ]


_NF = "nn.functional"
register(
    "batch_norm",
    batch_norm,
    nodes=(NativeBatchNormBackward0,),
    samples=_batch_norm_samples,
    namespace=_NF,
    atol=1e-9,
)
register(
    "layer_norm",
    layer_norm,
    nodes=(NativeLayerNormBackward0,),
    samples=_layer_norm_samples,
    namespace=_NF,
    atol=1e-9,
)
register(
    "group_norm",
    group_norm,
    nodes=(NativeGroupNormBackward0,),
    samples=_group_norm_samples,
    namespace=_NF,
    atol=1e-9,
)

__all__ = ["batch_norm", "layer_norm", "group_norm"]
