"""Convolution layers: ``Conv1d``, ``Conv2d``, ``ConvTranspose2d``."""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Size, Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._utils import new_parameter, pair, single, triple
from .module import Module

__all__ = ["Conv1d", "Conv2d", "ConvTranspose2d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """What the convolution layers share: arguments, checks, weights, init and repr."""

    weight: Parameter
    bias: Parameter | None

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: tuple[int, ...],
        stride: tuple[int, ...],
        padding: str | tuple[int, ...],
        dilation: tuple[int, ...],
        transposed: bool,
        output_padding: tuple[int, ...],
        groups: int,
        bias: bool,
        padding_mode: str,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's argument for the non-zero padding modes: last dimension first.
        if isinstance(padding, str):
            reversed_padding = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    reversed_padding[2 * i] = total // 2
                    reversed_padding[2 * i + 1] = total - total // 2
        else:
            reversed_padding = [p for p in reversed(padding) for _ in range(2)]
        self._reversed_padding_repeated_twice = reversed_padding
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = new_parameter(*shape, dtype=dtype, device=device)
        if bias:
            self.bias = new_parameter(out_channels, dtype=dtype, device=device)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw fresh weights with PyTorch's default scheme (Kaiming uniform, a = sqrt(5);
        bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)))."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class Conv1d(_ConvNd):
    """1-D convolution over an input of shape (N, C_in, L) or (C_in, L).

    Parameters
    ----------
    in_channels, out_channels : int
        Channels of the input and of the output.
    kernel_size, stride, dilation : int or tuple
        Window size, step and spacing of the kernel taps.
    padding : int, tuple or {"valid", "same"}
        Zero padding on both sides (or the padding that keeps the length, for "same").
    groups : int
        Blocked connections: ``in_channels`` and ``out_channels`` are split into groups.
    bias : bool
        Whether to learn a bias per output channel.
    padding_mode : {"zeros", "reflect", "replicate", "circular"}

    Example::

        >>> m = nn.Conv1d(16, 33, 3, stride=2)
        >>> m(glassgrad.randn(20, 16, 50)).shape
        glassgrad.Size([20, 33, 24])
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] = 1,
        padding: str | int | tuple[int, ...] = 0,
        dilation: int | tuple[int, ...] = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            single(kernel_size),
            single(stride),
            padding if isinstance(padding, str) else single(padding),
            single(dilation),
            False,
            single(0),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv1d(
                padded, self.weight, self.bias, self.stride, single(0), self.dilation, self.groups
            )
        return F.conv1d(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )


class Conv2d(_ConvNd):
    """2-D convolution over an input of shape (N, C_in, H, W) or (C_in, H, W).

    Parameters are those of ``Conv1d``, with pairs (height, width) for the sizes.

    Attributes
    ----------
    weight : Parameter of shape (out_channels, in_channels / groups, kH, kW)
    bias : Parameter of shape (out_channels,) or None

    Example::

        >>> m = nn.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2))
        >>> m(glassgrad.randn(2, 16, 10, 12)).shape
        glassgrad.Size([2, 33, 8, 12])
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] = 1,
        padding: str | int | tuple[int, ...] = 0,
        dilation: int | tuple[int, ...] = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            pair(kernel_size),
            pair(stride),
            padding if isinstance(padding, str) else pair(padding),
            pair(dilation),
            False,
            pair(0),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv2d(
                padded, self.weight, self.bias, self.stride, pair(0), self.dilation, self.groups
            )
        return F.conv2d(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )


class Conv3d(_ConvNd):
    """3-D convolution over an input of shape (N, C_in, D, H, W) or (C_in, D, H, W).

    Parameters are those of ``Conv1d``, with triples (depth, height, width) for the sizes.

    Attributes
    ----------
    weight : Parameter of shape (out_channels, in_channels / groups, kD, kH, kW)
    bias : Parameter of shape (out_channels,) or None

    Example::

        >>> m = nn.Conv3d(4, 6, (3, 2, 2), stride=(2, 1, 1), padding=(1, 0, 1))
        >>> m(glassgrad.randn(2, 4, 5, 6, 6)).shape
        glassgrad.Size([2, 6, 3, 5, 7])
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] = 1,
        padding: str | int | tuple[int, ...] = 0,
        dilation: int | tuple[int, ...] = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            triple(kernel_size),
            triple(stride),
            padding if isinstance(padding, str) else triple(padding),
            triple(dilation),
            False,
            triple(0),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv3d(
                padded, self.weight, self.bias, self.stride, triple(0), self.dilation, self.groups
            )
        return F.conv3d(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )


class ConvTranspose2d(_ConvNd):
    """2-D transposed convolution (the gradient of Conv2d with respect to its input), over
    an input of shape (N, C_in, H, W) or (C_in, H, W).

    ``output_padding`` adds rows/columns on one side of the output, to pick among the output
    sizes a strided convolution maps to the same input size; ``forward(input, output_size)``
    computes it from a requested size.

    Attributes
    ----------
    weight : Parameter of shape (in_channels, out_channels / groups, kH, kW)
    bias : Parameter of shape (out_channels,) or None

    Example::

        >>> up = nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1)
        >>> up(glassgrad.randn(1, 16, 6, 6), output_size=[12, 12]).shape
        glassgrad.Size([1, 8, 12, 12])
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] = 1,
        padding: int | tuple[int, ...] = 0,
        output_padding: int | tuple[int, ...] = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: int | tuple[int, ...] = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels,
            out_channels,
            pair(kernel_size),
            pair(stride),
            pair(padding),
            pair(dilation),
            True,
            pair(output_padding),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _output_padding(self, input: Tensor, output_size: Any, spatial_dims: int) -> tuple:
        if output_size is None:
            return self.output_padding
        non_spatial = 2 if input.dim() == spatial_dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != spatial_dims:
            raise ValueError(
                f"ConvTranspose{spatial_dims}D: for {input.dim()}D input, output_size must have "
                f"{spatial_dims} or {non_spatial + spatial_dims} elements (got "
                f"{len(output_size)})"
            )
        min_sizes, max_sizes = [], []
        for d in range(spatial_dims):
            size = (
                (input.size(d + non_spatial) - 1) * self.stride[d]
                - 2 * self.padding[d]
                + self.dilation[d] * (self.kernel_size[d] - 1)
                + 1
            )
            min_sizes.append(size)
            max_sizes.append(size + self.stride[d] - 1)
        for d in range(spatial_dims):
            if not min_sizes[d] <= output_size[d] <= max_sizes[d]:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{min_sizes} to {max_sizes} (for an input of {Size(input.shape[non_spatial:])})"
                )
        return tuple(output_size[d] - min_sizes[d] for d in range(spatial_dims))

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        output_padding = self._output_padding(input, output_size, 2)
        return F.conv_transpose2d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(ConvTranspose2d):
    """1-D transposed convolution (the gradient of Conv1d with respect to its input), over an
    input of shape (N, C_in, L) or (C_in, L); arguments as ``ConvTranspose2d``.

    Attributes
    ----------
    weight : Parameter of shape (in_channels, out_channels / groups, k)
    bias : Parameter of shape (out_channels,) or None

    Example::

        >>> up = nn.ConvTranspose1d(16, 8, 3, stride=2, padding=1)
        >>> up(glassgrad.randn(1, 16, 6), output_size=[12]).shape
        glassgrad.Size([1, 8, 12])
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] = 1,
        padding: int | tuple[int, ...] = 0,
        output_padding: int | tuple[int, ...] = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: int | tuple[int, ...] = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        _ConvNd.__init__(
            self,
            in_channels,
            out_channels,
            single(kernel_size),
            single(stride),
            single(padding),
            single(dilation),
            True,
            single(output_padding),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        output_padding = self._output_padding(input, output_size, 1)
        return F.conv_transpose1d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose3d(ConvTranspose2d):
    """3-D transposed convolution (the gradient of Conv3d with respect to its input), over an
    input of shape (N, C_in, D, H, W) or (C_in, D, H, W); arguments as ``ConvTranspose2d``.

    Attributes
    ----------
    weight : Parameter of shape (in_channels, out_channels / groups, kD, kH, kW)
    bias : Parameter of shape (out_channels,) or None

    Example::

        >>> up = nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1)
        >>> up(glassgrad.randn(1, 4, 3, 3, 3), output_size=[6, 6, 6]).shape
        glassgrad.Size([1, 2, 6, 6, 6])
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] = 1,
        padding: int | tuple[int, ...] = 0,
        output_padding: int | tuple[int, ...] = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: int | tuple[int, ...] = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        _ConvNd.__init__(
            self,
            in_channels,
            out_channels,
            triple(kernel_size),
            triple(stride),
            triple(padding),
            triple(dilation),
            True,
            triple(output_padding),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        output_padding = self._output_padding(input, output_size, 3)
        return F.conv_transpose3d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )
