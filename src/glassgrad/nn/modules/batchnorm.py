"""Batch normalization: ``BatchNorm1d``, ``BatchNorm2d``, ``BatchNorm3d``, ``SyncBatchNorm``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _factories
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._utils import new_parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _BatchNorm(Module):
    """Normalise each channel (dim 1) with the batch's statistics in training mode and the
    running estimates in eval mode, then scale and shift (``affine``)."""

    weight: Parameter | None
    bias: Parameter | None

    _version = 2

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = new_parameter(num_features, dtype=dtype, device=device)
            if bias:
                self.bias = new_parameter(num_features, dtype=dtype, device=device)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer(
                "running_mean", _factories.zeros(num_features, dtype=dtype, device=device)
            )
            self.register_buffer(
                "running_var", _factories.ones(num_features, dtype=dtype, device=device)
            )
            self.register_buffer("num_batches_tracked", Tensor._from_array(np.array(0)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches counted."""
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def reset_parameters(self) -> None:
        """Reset the running statistics; weight 1 and bias 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                average_factor = 1.0 / float(self.num_batches_tracked)
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        keep_stats = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if keep_stats else None,
            self.running_var if keep_stats else None,
            self.weight,
            self.bias,
            use_batch_stats,
            average_factor,
            self.eps,
        )

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
        if (version is None or version < 2) and self.track_running_stats:
            # Checkpoints older than version 2 have no num_batches_tracked.
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (
                    self.num_batches_tracked
                    if self.num_batches_tracked is not None
                    else Tensor._from_array(np.array(0))
                )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization over an (N, C) or (N, C, L) input, per channel C.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with the batch mean and (biased)
    variance in training mode, where the running estimates are updated with ``momentum``
    (unbiased variance), and the running estimates in eval mode.

    Parameters
    ----------
    num_features : int
        C, the number of channels.
    eps : float
        Added to the variance for stability.
    momentum : float or None
        Weight of the new batch in the running estimates (None: cumulative average).
    affine : bool
        Learn ``weight`` and (with ``bias``) ``bias``.
    track_running_stats : bool
        Keep running estimates (else batch statistics are used in eval mode too).
    bias : bool
        Learn the additive bias (keyword only; when ``affine``).

    Example::

        >>> bn = nn.BatchNorm1d(100)
        >>> bn(glassgrad.randn(20, 100)).shape
        glassgrad.Size([20, 100])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization over an (N, C, H, W) input, per channel C (see ``BatchNorm1d``).

    Example::

        >>> bn = nn.BatchNorm2d(16)
        >>> bn(glassgrad.randn(4, 16, 5, 5)).shape
        glassgrad.Size([4, 16, 5, 5])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization over an (N, C, D, H, W) input, per channel C (see ``BatchNorm1d``).

    Example::

        >>> bn = nn.BatchNorm3d(16)
        >>> bn(glassgrad.randn(4, 16, 2, 5, 5)).shape
        glassgrad.Size([4, 16, 2, 5, 5])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch norm over an input of any rank (at least 2-d) whose statistics PyTorch would
    gather across processes. In one process it is ``BatchNorm``, as in PyTorch; under an
    initialised process group PyTorch syncs only GPU inputs and refuses CPU ones, and so does
    glassgrad (which runs on the CPU).

    Example::

        >>> nn.SyncBatchNorm(3)(glassgrad.randn(4, 3, 2)).shape
        glassgrad.Size([4, 3, 2])
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group: Any = None,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        from ... import distributed  # read at call time: no MPI import with glassgrad.nn

        if self.training and distributed.is_available() and distributed.is_initialized():
            raise ValueError(
                "SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone"
            )
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every ``BatchNorm*d`` inside replaced by a ``SyncBatchNorm``
        holding the same parameters and statistics (instance norms are left alone).

        Example::

            >>> model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
            >>> nn.SyncBatchNorm.convert_sync_batchnorm(model)[1]
            SyncBatchNorm(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        """
        output = module
        # PyTorch's test is isinstance(module, _BatchNorm), which its instance norms fail.
        if isinstance(module, (BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm)):
            output = cls(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
            )
            if module.affine:
                with no_grad():
                    output.weight = module.weight
                    output.bias = module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
            if hasattr(module, "qconfig"):
                output.qconfig = module.qconfig
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return output
