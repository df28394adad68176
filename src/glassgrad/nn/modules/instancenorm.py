"""Instance normalization: ``InstanceNorm1d``, ``InstanceNorm2d``, ``InstanceNorm3d``."""

from __future__ import annotations

import warnings
from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .batchnorm import _BatchNorm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_BatchNorm):
    """Normalise each channel of each sample over its spatial positions (``F.instance_norm``);
    parameters and buffers as batch norm's, but ``affine`` and ``track_running_stats`` default
    to False and the running statistics are used only in eval mode when tracked."""

    _spatial_dims = 1

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features,
            eps,
            momentum,
            affine,
            track_running_stats,
            device=device,
            dtype=dtype,
            bias=bias,
        )

    def _check_input_dim(self, input: Tensor) -> None:
        dims = self._spatial_dims
        if input.dim() not in (dims + 1, dims + 2):
            raise ValueError(
                f"expected {dims + 1}D or {dims + 2}D input (got {input.dim()}D input)"
            )

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        unbatched = self._spatial_dims + 1
        feature_dim = input.dim() - unbatched
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features"
                    f" ({self.num_features}), but got: {input.size(feature_dim)}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        if input.dim() == unbatched:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        version = local_metadata.get("version", None)
        if version is None and not self.track_running_stats:
            # Before version 1, instance norm kept running statistics it did not use.
            keys = [prefix + n for n in ("running_mean", "running_var") if prefix + n in state_dict]
            if keys:
                name = type(self).__name__
                error_msgs.append(
                    "Unexpected running stats buffer(s) {names} for {klass} with "
                    "track_running_stats=False. If state_dict is a checkpoint saved before "
                    "0.4.0, this may be expected because {klass} does not track running stats "
                    "by default since 0.4.0. Please remove these keys from state_dict. If the "
                    "running stats are actually needed, instead set track_running_stats=True "
                    "in {klass} to enable them. See the documentation of {klass} for "
                    "details.".format(names=" and ".join(f'"{k}"' for k in keys), klass=name)
                )
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or (C, L): each channel of each sample normalised
    over L, ``y = (x - mean) / sqrt(var + eps) * weight + bias``.

    Example::

        >>> nn.InstanceNorm1d(4)(glassgrad.randn(2, 4, 10)).shape
        glassgrad.Size([2, 4, 10])
    """

    _spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or (C, H, W) over H x W (see ``InstanceNorm1d``).

    Example::

        >>> nn.InstanceNorm2d(3, affine=True)(glassgrad.randn(2, 3, 8, 8)).shape
        glassgrad.Size([2, 3, 8, 8])
    """

    _spatial_dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, T, H, W) or (C, T, H, W) over T x H x W.

    Example::

        >>> nn.InstanceNorm3d(3)(glassgrad.randn(2, 3, 2, 4, 4)).shape
        glassgrad.Size([2, 3, 2, 4, 4])
    """

    _spatial_dims = 3
