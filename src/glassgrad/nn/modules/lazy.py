"""Lazy modules: layers whose input size is read from the first batch they see.

``LazyLinear(out_features)`` holds ``UninitializedParameter`` placeholders; its first
``forward`` reads ``in_features`` from the input, gives the parameters their shapes, runs the
layer's own initialisation, and the module becomes a plain ``Linear`` (its class changes), as
in PyTorch. The same for convolutions (``in_channels``) and batch/instance norms
(``num_features``). A state dict of an initialised module loaded into a lazy one gives the
placeholders their shapes first.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear

__all__ = [
    "LazyModuleMixin",
    "LazyLinear",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class LazyModuleMixin:
    """Shape inference for a module's parameters from its first input.

    A subclass (``class LazyX(LazyModuleMixin, X)``) sets ``cls_to_become = X``, creates
    ``UninitializedParameter``/``UninitializedBuffer`` placeholders and implements
    ``initialize_parameters(*args)``, which materializes them. A forward pre-hook calls it
    once, then removes itself and turns the module into ``cls_to_become``.

    Example::

        >>> layer = nn.LazyLinear(3)
        >>> layer.has_uninitialized_params()
        True
        >>> layer(glassgrad.ones(2, 5)).shape, type(layer).__name__
        (glassgrad.Size([2, 3]), 'Linear')
    """

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self.register_load_state_dict_pre_hook(_lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        # Placeholders are saved as they are (detach would make plain empty tensors).
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = (
                    param if is_lazy(param) or keep_vars else param.detach()
                )
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialize the placeholders from the first input (subclasses implement it)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer is still a placeholder."""
        values = itertools.chain(self._parameters.values(), self._buffers.values())
        return any(is_lazy(value) for value in values)


def _lazy_load_hook(module: Any, state_dict: dict, prefix: str, *args: Any) -> None:
    # Loading an initialised state into a lazy module: shape the placeholders first.
    for name, param in itertools.chain(module._parameters.items(), module._buffers.items()):
        key = prefix + name
        if key in state_dict and param is not None and is_lazy(param):
            value = state_dict[key]
            if not is_lazy(value):
                with no_grad():
                    param.materialize(value.shape)


def _infer_parameters(module: Any, args: tuple, kwargs: dict | None = None) -> None:
    module.initialize_parameters(*args, **(kwargs or {}))
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    module._load_hook.remove()
    del module._initialize_hook
    del module._load_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is the last size of its first input.

    Example::

        >>> nn.LazyLinear(4)(glassgrad.ones(2, 7)).shape
        glassgrad.Size([2, 4])
    """

    bias: UninitializedParameter
    in_features: int
    weight: UninitializedParameter

    cls_to_become: type | None = Linear

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """Initialise as ``Linear`` once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # type: ignore[override]
        """Read ``in_features`` from ``input`` and materialize ``weight`` and ``bias``."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    bias: UninitializedParameter
    in_channels: int
    weight: UninitializedParameter

    def __init__(
        self,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
            device=device, dtype=dtype,
        )  # fmt: skip
        self._placeholders(out_channels, bias, device, dtype)

    def _placeholders(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """Initialise as the convolution once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """Read ``in_channels`` from ``input`` and materialize ``weight`` and ``bias``."""
        if not self.has_uninitialized_params():
            return
        no_batch = len(self.kernel_size) + 1  # an unbatched input: channels, spatial dims
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(
                f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        self.in_channels = input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
        self.weight.materialize(shape)
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()


class _LazyConvTransposeXdMixin(_LazyConvXdMixin):
    def __init__(
        self,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        LazyModuleMixin.__init__(
            self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
            padding_mode, device=device, dtype=dtype,
        )  # fmt: skip
        self._placeholders(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """A ``Conv1d`` whose ``in_channels`` is read from its first input.

    Example::

        >>> nn.LazyConv1d(4, 3)(glassgrad.ones(2, 5, 8)).shape
        glassgrad.Size([2, 4, 6])
    """

    cls_to_become: type | None = Conv1d


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """A ``Conv2d`` whose ``in_channels`` is read from its first input."""

    cls_to_become: type | None = Conv2d


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """A ``Conv3d`` whose ``in_channels`` is read from its first input."""

    cls_to_become: type | None = Conv3d


class LazyConvTranspose1d(_LazyConvTransposeXdMixin, ConvTranspose1d):
    """A ``ConvTranspose1d`` whose ``in_channels`` is read from its first input."""

    cls_to_become: type | None = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeXdMixin, ConvTranspose2d):
    """A ``ConvTranspose2d`` whose ``in_channels`` is read from its first input."""

    cls_to_become: type | None = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeXdMixin, ConvTranspose3d):
    """A ``ConvTranspose3d`` whose ``in_channels`` is read from its first input."""

    cls_to_become: type | None = ConvTranspose3d


class _LazyNormBase(LazyModuleMixin):
    bias: UninitializedParameter
    num_batches_tracked: Tensor
    num_features: int
    running_mean: UninitializedBuffer
    running_var: UninitializedBuffer
    weight: UninitializedParameter

    def __init__(
        self,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = Tensor._from_array(np.array(0, np.int64))

    def reset_parameters(self) -> None:
        """Initialise as the norm once ``num_features`` is known."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # type: ignore[override]
        """Read ``num_features`` (``input.shape[1]``) and materialize the placeholders."""
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        for name in ("weight", "bias", "running_mean", "running_var"):
            value = getattr(self, name, None)
            if value is not None:
                value.materialize((self.num_features,))
        self.reset_parameters()


def _norm_doc(base: str) -> str:
    return f"A ``{base}`` whose ``num_features`` is read from its first input (``shape[1]``)."


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    __doc__ = _norm_doc("BatchNorm1d")
    cls_to_become: type | None = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    __doc__ = _norm_doc("BatchNorm2d")
    cls_to_become: type | None = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    __doc__ = _norm_doc("BatchNorm3d")
    cls_to_become: type | None = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    __doc__ = _norm_doc("InstanceNorm1d")
    cls_to_become: type | None = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    __doc__ = _norm_doc("InstanceNorm2d")
    cls_to_become: type | None = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    __doc__ = _norm_doc("InstanceNorm3d")
    cls_to_become: type | None = InstanceNorm3d
