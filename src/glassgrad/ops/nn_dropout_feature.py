"""Channel-wise and self-normalising dropout: ``dropout1d dropout2d dropout3d alpha_dropout
feature_alpha_dropout`` (public in ``glassgrad.nn.functional``).

As ATen's ``_dropout_impl``: a "feature" dropout draws one keep/drop per (sample, channel) and
broadcasts it over the spatial dimensions; alpha dropout keeps the mean and variance of SELU
activations by sending dropped values to ``-alpha * scale`` and applying an affine correction
``a * x + b``. The masks come from glassgrad's default generator; the result is ``input *
noise (+ b)``, so gradients use the same mask.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _factories
from .._tensor import Tensor
from . import arithmetic
from ._common import check_tensor
from ._registry import Sample, register
from ._samples import randn

_ALPHA = 1.7580993408473766  # SELU's alpha * scale


def _dropout_impl(
    input: Tensor, p: float, train: bool, feature: bool, alpha: bool, inplace: bool
) -> Tensor:
    x = input._data
    if p == 0 or not train or x.size == 0:
        return input
    zero = Tensor._from_array(np.zeros((), x.dtype))
    if p == 1:
        return input.mul_(zero) if inplace else arithmetic.mul(input, zero)
    if feature and x.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    size = (x.shape[0], x.shape[1], *([1] * (x.ndim - 2))) if feature else x.shape
    keep = (_factories.default_generator.rng.random(size) < 1 - p).astype(x.dtype)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        shift = Tensor._from_array(((keep - 1) * (_ALPHA * a) + _ALPHA * a * p).astype(x.dtype))
        noise = Tensor._from_array((keep * a).astype(x.dtype))
        if inplace:
            return input.mul_(noise).add_(shift)
        return arithmetic.add(arithmetic.mul(input, noise), shift)
    noise = Tensor._from_array((keep / (1 - p)).astype(x.dtype))
    return input.mul_(noise) if inplace else arithmetic.mul(input, noise)


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) with probability ``p`` (scale the rest by
    ``1 / (1 - p)``), in training only.

    Example::

        >>> glassgrad.nn.functional.dropout1d(glassgrad.ones(1, 2, 3), 0.5, training=False)
        tensor([[[1., 1., 1.],
                 [1., 1., 1.]]])
    """
    check_tensor(input, "dropout1d")
    _check_p(p)
    ndim = input.dim()
    if ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    batched = ndim == 3
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, True, False, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, H, W) with probability ``p`` (scale the rest by
    ``1 / (1 - p)``), in training only; a 3-d input is read as (N, C, L), as PyTorch warns.

    Example::

        >>> glassgrad.nn.functional.dropout2d(glassgrad.ones(1, 1, 2, 2), 1.0)
        tensor([[[[0., 0.],
                  [0., 0.]]]])
    """
    check_tensor(input, "dropout2d")
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _dropout_impl(input, p, training, True, False, inplace)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) with probability ``p`` (scale
    the rest by ``1 / (1 - p)``), in training only.

    Example::

        >>> glassgrad.nn.functional.dropout3d(glassgrad.ones(1, 1, 1, 1, 2), 0.0)
        tensor([[[[[1., 1.]]]]])
    """
    check_tensor(input, "dropout3d")
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {ndim}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    batched = ndim == 5
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, True, False, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Dropout that keeps SELU's self-normalisation: dropped elements become
    ``-alpha * scale``, then ``a * x + b`` restores mean 0 and variance 1.

    Example::

        >>> glassgrad.nn.functional.alpha_dropout(glassgrad.ones(3), 0.5)
        tensor([1., 1., 1.])
    """
    check_tensor(input, "alpha_dropout")
    _check_p(p)
    return _dropout_impl(input, p, training, False, True, inplace)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """``alpha_dropout`` of whole channels (one draw per sample and channel).

    Example::

        >>> glassgrad.nn.functional.feature_alpha_dropout(glassgrad.ones(1, 2), 0.5)
        tensor([[1., 1.]])
    """
    check_tensor(input, "feature_alpha_dropout")
    _check_p(p)
    return _dropout_impl(input, p, training, True, True, inplace)


def _samples(shape: tuple):
    def samples(rng: np.random.Generator) -> list[Sample]:
        return [
            Sample((randn(rng, *shape),), {"p": 0.5, "training": False}),
            Sample((randn(rng, *shape), 0.0, True)),
            Sample((randn(rng, *shape), 1.0, True), note="everything dropped"),
        ]

    return samples


_NF = "nn.functional"
for _fn, _shape in (
    (dropout1d, (2, 3, 4)),
    (dropout2d, (2, 3, 2, 2)),
    (dropout3d, (2, 3, 2, 2, 2)),
    (alpha_dropout, (3, 4)),
    (feature_alpha_dropout, (2, 3, 4)),
):
    register(_fn.__name__, _fn, samples=_samples(_shape), namespace=_NF)

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]
