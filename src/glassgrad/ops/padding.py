"""``nn.functional.pad``: constant, reflect, replicate and circular padding, with
PyTorch's Node names (ConstantPadNdBackward0, ReflectionPad2DBackward0, ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, input_zeros
from ._namespace import ArrayNamespace
from ._registry import Sample, register
from ._samples import randn

__all__ = ["pad"]


# --- nn.functional.pad --------------------------------------------------------------------


class ConstantPadNdBackward0(Op):
    """out = input padded (or cropped, for negative pads) with ``value`` on the last dims"""

    pad: Any
    self_sizes: Any

    __slots__ = ("self_sizes", "pad")

    def forward(self, x: Any, pad: Any, value: Any) -> Any:
        self.self_sizes, self.pad = x.shape, pad
        src, dst, shape = _constant_pad_keys(x.shape, pad)
        out = np.full(shape, value, dtype=x.dtype)
        out[dst] = x[src]
        return out

    def backward(self, F: Any, grad: Any) -> Any:
        # PyTorch's constant_pad_nd_backward: constant_pad_nd(grad, -pad), one node again.
        return ConstantPadNdBackward0.call(grad, pad=tuple(-p for p in self.pad), value=0)


def _constant_pad_keys(shape: tuple, pad: tuple) -> tuple:
    """Keys of the kept part in the input and in the output, and the output shape."""
    src, dst, out = [slice(None)] * len(shape), [slice(None)] * len(shape), list(shape)
    for i in range(len(pad) // 2):
        d = len(shape) - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        out[d] = shape[d] + left + right
        kept = shape[d] - max(-left, 0) - max(-right, 0)
        src[d] = slice(max(-left, 0), max(-left, 0) + max(kept, 0))
        dst[d] = slice(max(left, 0), max(left, 0) + max(kept, 0))
    return tuple(src), tuple(dst), tuple(out)


class _IndexPad(Op):
    """out = input gathered at padded positions on the last dims (reflect / replicate)"""

    # Saved as PyTorch saves it (its backward node takes the input): in-place changes to the
    # input are caught, and under create_graph the gradient depends on it.
    saved_inputs: tuple[int, ...] = (0,)
    double_backward: type[Op]
    __slots__ = ("self_sizes", "key")

    def forward(self, x: Any, key: Any) -> Any:
        self.self_sizes, self.key = x.shape, key
        return np.ascontiguousarray(x[key])  # a fresh row-major tensor, as PyTorch's

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return type(self).double_backward.call(grad, x, key=self.key)


class _IndexPadBackward(Op):
    """PyTorch's ``reflection_pad1d_backward(grad, self)`` (and the other five): the padded
    gradient summed back onto the input's positions. Its derivatives are derivatives.yaml's:
    the pad again for ``grad`` and ``zeros_like(self)`` for the input, which it takes for its
    shape only."""

    forward_node: type[Op]
    __slots__ = ("self_sizes", "key")

    def forward(self, grad: Any, x: Any, key: Any) -> Any:
        self.self_sizes, self.key = x.shape, key
        return ArrayNamespace.index_zeros_add(x.shape, key, grad, False)

    def backward(self, F: Any, gg: Any) -> Any:
        needs = self.needs_input_grad
        d_grad = type(self).forward_node.call(gg, key=self.key) if needs[0] else None
        return d_grad, input_zeros(F, self, 1) if needs[1] else None


def _pad_nodes(name: str) -> type[Op]:
    """The pad's node ``<name>Backward0`` and its backward's ``<name>BackwardBackward0``."""
    node = type(f"{name}Backward0", (_IndexPad,), {"__slots__": (), "__module__": __name__})
    twice = f"{name}BackwardBackward0"
    node.double_backward = type(
        twice, (_IndexPadBackward,), {"__slots__": (), "__module__": __name__}
    )
    node.double_backward.forward_node = node
    node.__qualname__, node.double_backward.__qualname__ = node.__name__, twice
    return node


_PAD_NODES: dict[tuple[str, int], type[Op]] = {
    (mode, k): _pad_nodes(f"{prefix}Pad{k}D")
    for mode, prefix in (("reflect", "Reflection"), ("replicate", "Replication"))
    for k in (1, 2, 3)
}


ReflectionPad1DBackward0: type[Op] = _PAD_NODES["reflect", 1]


ReflectionPad2DBackward0: type[Op] = _PAD_NODES["reflect", 2]


ReflectionPad3DBackward0: type[Op] = _PAD_NODES["reflect", 3]


ReplicationPad1DBackward0: type[Op] = _PAD_NODES["replicate", 1]


ReplicationPad2DBackward0: type[Op] = _PAD_NODES["replicate", 2]


ReplicationPad3DBackward0: type[Op] = _PAD_NODES["replicate", 3]


def _padded_positions(size: int, left: int, right: int, mode: str) -> np.ndarray:
    """Input position of every output position of one padded dimension."""
    p = np.arange(-left, size + right)
    if mode == "reflect":
        return np.abs(p) - 2 * np.maximum(p - (size - 1), 0)
    if mode == "replicate":
        return np.clip(p, 0, size - 1)
    return p % size


def _check_pad_dims(pad: tuple, shape: tuple, mode: str) -> int:
    k = len(pad) // 2
    if k not in (1, 2, 3) or not k + 1 <= len(shape) <= k + 2:
        raise NotImplementedError(
            f"pad: Padding size {len(pad)} is not supported for {len(shape)}D input tensor "
            f"(mode {mode!r} pads the last 1, 2 or 3 dims of a (batched) (N, C, ...) input)."
        )
    for i in range(k):
        d = len(shape) - 1 - i
        left, right, size = pad[2 * i], pad[2 * i + 1], shape[d]
        if mode == "reflect" and (left >= size or right >= size):
            raise RuntimeError(
                f"pad: Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({left}, {right}) at dimension {d} of input "
                f"{list(shape)}"
            )
        kept = size + min(left, 0) + min(right, 0)  # negative pads crop first
        if mode == "circular" and (left > kept or right > kept):
            # (PyTorch checks against the uncropped size and then reads overlapping or
            # uninitialized memory when a pad exceeds the cropped size; glassgrad refuses.)
            raise RuntimeError(
                f"pad: Padding value causes wrapping around more than once (padding "
                f"({left}, {right}) at dimension {d} of input {list(shape)}, {kept} kept)."
            )
        if size == 0 or size + left + right < 0:
            raise RuntimeError(
                f"pad: Expected {len(shape) - 1}D or {len(shape)}D (batch mode) tensor with "
                f"possibly 0 batch size and other non-zero dimensions for input, but got: "
                f"{list(shape)} (padding ({left}, {right}) at dimension {d})"
            )
    return k


def _circular_pad(input: Tensor, pad: tuple) -> Tensor:
    """Circular padding written as PyTorch does: copy the input into the middle, then copy
    wrapped slices into the borders (so the graph is a chain of CopySlices)."""
    from .._factories import zeros

    shape = input._data.shape
    k = len(pad) // 2
    src, dst, out_shape = _constant_pad_keys(shape, pad)
    out = zeros(out_shape, dtype=input.dtype)
    out[dst] = input[src]
    for i in range(k):
        d = len(shape) - 1 - i
        left, right, size = pad[2 * i], pad[2 * i + 1], shape[d]
        lead = (slice(None),) * d
        begin = max(left, 0)  # where the kept input starts along d
        kept = size + min(left, 0) + min(right, 0)  # negative pads crop before wrapping
        if left > 0:
            out[lead + (slice(0, left),)] = out[lead + (slice(begin + kept - left, begin + kept),)]
        if right > 0:
            end = out_shape[d]
            out[lead + (slice(end - right, end),)] = out[lead + (slice(begin, begin + right),)]
    return out


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims: ``pad = (left_last, right_last, left_2nd_last,
    ...)``. Modes: ``"constant"`` (with ``value``, negative pads crop), ``"reflect"``
    (mirror without repeating the edge), ``"replicate"`` (repeat the edge) and
    ``"circular"`` (wrap around).

    Example::

        >>> import glassgrad.nn.functional as F
        >>> F.pad(glassgrad.tensor([[1.0, 2.0, 3.0]]), (1, 1), mode="reflect")
        tensor([[2., 1., 2., 3., 2.]])
    """
    shape = check_tensor(input, "pad")._data.shape
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("pad: Padding length must be divisible by 2")
    if len(pad) // 2 > len(shape):
        raise RuntimeError(
            "pad: Padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(pad)} and input of dimension {len(shape)}"
        )
    if mode == "constant":
        for i in range(len(pad) // 2):
            d, left, right = len(shape) - 1 - i, pad[2 * i], pad[2 * i + 1]
            if shape[d] + min(left, 0) + min(right, 0) < 0:
                # PyTorch crops (narrows) first, so cropping more than there is fails even
                # when positive padding on the other side would make up for it.
                raise RuntimeError(
                    f"pad: narrow(): length must be non-negative. (The input size {shape[d]} at "
                    f"dimension {d} cannot be cropped by the negative padding ({left}, {right}).)"
                )
        fill = 0 if value is None else value
        return ConstantPadNdBackward0.apply(input, pad=pad, value=fill)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"pad: Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'pad: Padding mode "{mode}" doesn\'t take in value argument')
    k = _check_pad_dims(pad, shape, mode)
    if mode == "circular":
        return _circular_pad(input, pad)
    positions = []
    for i in range(k):
        d = len(shape) - 1 - i
        index = _padded_positions(shape[d], pad[2 * i], pad[2 * i + 1], mode)
        positions.insert(0, index.reshape((-1,) + (1,) * i))
    key = (slice(None),) * (len(shape) - k) + tuple(positions)
    return _PAD_NODES[mode, k].apply(input, key=key)


register(
    "pad",
    pad,
    nodes=(ConstantPadNdBackward0, *_PAD_NODES.values()),
    namespace="nn.functional",
    samples=lambda rng: [
        Sample((randn(rng, 2, 3), (1, 2))),
        Sample((randn(rng, 2, 3, 4), (1, 0, 2, 1)), {"value": 1.5}),
        Sample((randn(rng, 2, 3, 4), (-1, 2, 0, -2, 1, 1)), note="negative pads crop"),
        Sample((randn(rng, 4, 3).T, (2, 2)), note="non-contiguous"),
        Sample((randn(rng), ())),
        Sample((randn(rng, 0, 3), (1, 1))),
        Sample((randn(rng, 2, 3, 5), (2, 3)), {"mode": "reflect"}),
        Sample((randn(rng, 1, 2, 4, 5), (1, 2, 3, 0)), {"mode": "reflect"}),
        Sample((randn(rng, 2, 3, 3, 4), (1, -1, 2, 1, 0, 2)), {"mode": "reflect"}),
        Sample((randn(rng, 2, 3, 4), (3, 5)), {"mode": "replicate"}),
        Sample((randn(rng, 3, 4, 5), (1, 2, 2, 1)), {"mode": "replicate"}),
        Sample((randn(rng, 1, 2, 2, 3, 2), (1, 1, 2, 0, 0, 3)), {"mode": "replicate"}),
        Sample((randn(rng, 2, 3, 4), (2, 4)), {"mode": "circular"}),
        Sample((randn(rng, 1, 2, 3, 4), (1, 2, 3, 1)), {"mode": "circular"}),
        Sample((randn(rng, 3, 2, 4).transpose(1, 0, 2), (1, 1)), {"mode": "reflect"}),
    ],
)
