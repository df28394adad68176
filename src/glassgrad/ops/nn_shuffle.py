"""Channel rearrangements: ``pixel_shuffle``, ``pixel_unshuffle``, ``channel_shuffle``
(public in ``glassgrad.nn.functional``). Each is one reshape-transpose-reshape copy; the
gradient of each shuffle is its inverse, itself an op, so ``create_graph=True`` works."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor
from ._registry import Sample, register
from ._samples import randn


def _shuffle(x: np.ndarray, r: int) -> np.ndarray:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    *lead, c, h, w = x.shape
    blocks = x.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    order = (*range(n), n, n + 3, n + 1, n + 4, n + 2)
    # A copy even when r == 1 (the transpose is then the identity): never the input's memory.
    return np.array(blocks.transpose(order), order="C").reshape(*lead, c // (r * r), h * r, w * r)


def _unshuffle(x: np.ndarray, r: int) -> np.ndarray:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    *lead, c, h, w = x.shape
    blocks = x.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    order = (*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return np.array(blocks.transpose(order), order="C").reshape(*lead, c * r * r, h // r, w // r)


class PixelShuffleBackward0(Op):
    """out = the input's channel blocks of r*r spread into r x r pixel blocks."""

    upscale_factor: Any

    __slots__ = ("upscale_factor",)

    def forward(self, x: Any, upscale_factor: Any) -> Any:
        self.upscale_factor = upscale_factor
        return _shuffle(x, upscale_factor)

    def backward(self, F: Any, grad: Any) -> Any:
        return PixelUnshuffleBackward0.call(grad, downscale_factor=self.upscale_factor)


class PixelUnshuffleBackward0(Op):
    """out = each r x r pixel block gathered into r*r channels (pixel_shuffle's inverse)."""

    downscale_factor: Any

    __slots__ = ("downscale_factor",)

    def forward(self, x: Any, downscale_factor: Any) -> Any:
        self.downscale_factor = downscale_factor
        return _unshuffle(x, downscale_factor)

    def backward(self, F: Any, grad: Any) -> Any:
        return PixelShuffleBackward0.call(grad, upscale_factor=self.downscale_factor)


def _check(op: str, input: Tensor, factor: int, name: str) -> None:
    check_tensor(input, op)
    x = input._data
    if x.ndim < 3:
        raise RuntimeError(
            f"{op} expects input to have at least 3 dimensions, but got input with {x.ndim} "
            "dimension(s)"
        )
    if factor <= 0:
        raise RuntimeError(f"{op} expects a positive {name}, but got {factor}")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Rearrange (*, C*r^2, H, W) into (*, C, H*r, W*r): ``out[..., c, h*r + i, w*r + j] =
    input[..., c*r*r + i*r + j, h, w]`` (sub-pixel convolution's upsampling).

    Example::

        >>> glassgrad.nn.functional.pixel_shuffle(glassgrad.randn(1, 8, 3, 3), 2).shape
        glassgrad.Size([1, 2, 6, 6])
    """
    op, r = "pixel_shuffle", int(upscale_factor)
    _check(op, input, r, "upscale_factor")
    c = input._data.shape[-3]
    if c % (r * r):
        raise RuntimeError(
            f"{op} expects its input's 'channel' dimension to be divisible by the square of "
            f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    return PixelShuffleBackward0.apply(input, upscale_factor=r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """Rearrange (*, C, H*r, W*r) into (*, C*r^2, H, W), the inverse of ``pixel_shuffle``.

    Example::

        >>> glassgrad.nn.functional.pixel_unshuffle(glassgrad.randn(1, 2, 6, 6), 2).shape
        glassgrad.Size([1, 8, 3, 3])
    """
    op, r = "pixel_unshuffle", int(downscale_factor)
    _check(op, input, r, "downscale_factor")
    h, w = input._data.shape[-2:]
    for name, size, dim in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(
                f"{op} expects {name} to be divisible by downscale_factor, but "
                f"input.size({dim})={size} is not divisible by {r}"
            )
    return PixelUnshuffleBackward0.apply(input, downscale_factor=r)


class ChannelShuffleBackward0(Op):
    """out = the channels, seen as (groups, C/groups), transposed to (C/groups, groups)."""

    groups: Any

    __slots__ = ("groups",)

    def forward(self, x: Any, groups: Any) -> Any:
        self.groups = groups
        return _channel_shuffle(x, groups)

    def backward(self, F: Any, grad: Any) -> Any:
        channels = grad.shape[1]
        return ChannelShuffleBackward0.call(grad, groups=channels // self.groups)


def _channel_shuffle(x: np.ndarray, groups: int) -> np.ndarray:
    n, c, *rest = x.shape
    blocks = x.reshape(n, groups, c // groups, *rest).swapaxes(1, 2)
    return np.array(blocks, order="C").reshape(x.shape)  # a copy even for one group


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels of (N, C, *) from ``groups`` groups: channel ``g*(C/groups) +
    i`` goes to ``i*groups + g`` (ShuffleNet).

    Example::

        >>> x = glassgrad.arange(4.0).reshape(1, 4, 1)
        >>> glassgrad.nn.functional.channel_shuffle(x, 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    op = "channel_shuffle"
    check_tensor(input, op)
    x, groups = input._data, int(groups)
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if x.ndim < 3:
        raise RuntimeError(
            f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{x.ndim} dimension(s)"
        )
    if x.shape[1] % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {x.shape[1]} channels and "
            f"{groups} groups."
        )
    return ChannelShuffleBackward0.apply(input, groups=groups)


def _pixel_shuffle_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 8, 3, 2), 2)),
        Sample((randn(rng, 9, 2, 3), 3), note="unbatched"),
        Sample((randn(rng, 2, 1, 4, 2, 2), 1), note="two leading dims, factor 1"),
    ]


def _pixel_unshuffle_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 2, 4, 6), 2)),
        Sample((randn(rng, 1, 6, 3), 3), note="unbatched"),
    ]


def _channel_shuffle_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 2, 6, 3, 2), 3)),
        Sample((randn(rng, 2, 4, 5), 2)),
    ]


_NF = "nn.functional"
register(
    "pixel_shuffle",
    pixel_shuffle,
    nodes=(PixelShuffleBackward0,),
    samples=_pixel_shuffle_samples,
    namespace=_NF,
)
register(
    "pixel_unshuffle",
    pixel_unshuffle,
    nodes=(PixelUnshuffleBackward0,),
    samples=_pixel_unshuffle_samples,
    namespace=_NF,
)
register(
    "channel_shuffle",
    channel_shuffle,
    nodes=(ChannelShuffleBackward0,),
    samples=_channel_shuffle_samples,
    namespace=_NF,
)
register("native_channel_shuffle", channel_shuffle, nodes=(ChannelShuffleBackward0,), namespace=_NF)

native_channel_shuffle = channel_shuffle

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]
