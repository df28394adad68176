"""``nn.utils.rnn``: variable-length sequences for the recurrent layers.

A ``PackedSequence`` holds the time steps of a batch of sequences sorted by decreasing length,
step after step: ``data`` (sum of lengths, *) and ``batch_sizes[t]``, the number of sequences
still running at step ``t``. ``sorted_indices`` / ``unsorted_indices`` map between the caller's
batch order and the sorted one. ``RNN``, ``LSTM`` and ``GRU`` accept one and return one.

Example::

    >>> a, b = glassgrad.tensor([1, 2, 3]), glassgrad.tensor([4, 5])
    >>> packed = nn.utils.rnn.pack_sequence([a, b])
    >>> packed.data, packed.batch_sizes
    (tensor([1, 4, 2, 5, 3]), tensor([2, 2, 1]))
    >>> nn.utils.rnn.pad_packed_sequence(packed, batch_first=True)
    (tensor([[1, 2, 3],
            [4, 5, 0]]), tensor([3, 2]))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from ... import _dtype, _factories
from ..._tensor import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]

# The functional form keeps PyTorch's class name, PackedSequence_.
_PackedSequenceBase = NamedTuple(  # noqa: UP014
    "PackedSequence_",
    [
        ("data", Tensor),
        ("batch_sizes", Tensor),
        ("sorted_indices", "Tensor | None"),
        ("unsorted_indices", "Tensor | None"),
    ],
)


def _index_tensor(values: np.ndarray) -> Tensor:
    return Tensor._from_array(np.asarray(values, dtype=np.int64))


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (None stays None).

    Example::

        >>> nn.utils.rnn.invert_permutation(glassgrad.tensor([2, 0, 1]))
        tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    order = np.asarray(permutation.numpy())
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return _index_tensor(inverse)


class PackedSequence(_PackedSequenceBase):
    """The data and ``batch_sizes`` of a packed batch of sequences (see the module doc);
    made by ``pack_padded_sequence`` / ``pack_sequence``, accepted by the recurrent layers.

    Example::

        >>> a, b = glassgrad.ones(3, 2), glassgrad.ones(1, 2)
        >>> packed = nn.utils.rnn.pack_sequence([a, b])
        >>> packed.batch_sizes
        tensor([2, 1, 1])
    """

    def __new__(
        cls,
        data: Any,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should "
                    "never be created manually. They should be instantiated by functions like "
                    "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
                )
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        # PackedSequence((data, batch_sizes)): the form the recurrent kernels return.
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise TypeError("PackedSequence(data) needs a (data, batch_sizes) pair")
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """``data.to(*args, **kwargs)``; ``self`` if nothing changes (indices stay int64)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return self.to("cpu", *args, **kwargs)

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return self.to("cuda", *args, **kwargs)

    def double(self) -> PackedSequence:
        return self.to(dtype=_dtype.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=_dtype.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=_dtype.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=_dtype.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=_dtype.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=_dtype.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=_dtype.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=_dtype.uint8)

    @property
    def is_cuda(self) -> bool:
        """Whether ``data`` is on a GPU (never, in glassgrad)."""
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        """Whether ``data`` is in pinned memory."""
        return self.data.is_pinned()


def _lengths_array(lengths: Any) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return np.asarray(lengths.numpy(), dtype=np.int64).reshape(-1)
    return np.asarray(list(lengths), dtype=np.int64).reshape(-1)


def _packed_positions(batch_sizes: np.ndarray, batch: int) -> np.ndarray:
    """Flat (time * batch + b) position in a (T, B, ...) tensor of each packed row."""
    return np.concatenate([t * batch + np.arange(n) for t, n in enumerate(batch_sizes)])


def pack_padded_sequence(
    input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded (T, B, *) batch (``batch_first``: (B, T, *)) of sequences of
    ``lengths``. Unless ``enforce_sorted``, the batch is sorted by decreasing length first
    (``sorted_indices``); with it, the lengths must already decrease.

    Example::

        >>> x = glassgrad.tensor([[1, 2, 3], [4, 5, 0]])
        >>> nn.utils.rnn.pack_padded_sequence(x, [3, 2], batch_first=True).data
        tensor([1, 4, 2, 5, 3])
    """
    values = _lengths_array(lengths)
    if enforce_sorted:
        if values.size > 1 and np.any(values[:-1] < values[1:]):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
        sorted_indices = None
    else:
        order = np.argsort(-values, kind="stable")
        values = values[order]
        sorted_indices = _index_tensor(order)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if values.size and values.min() <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if values.size != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {values.size} "
            f"(batch_size={batch})"
        )
    if values.size and values[0] > steps:
        raise RuntimeError(
            f"Expected sequence length to be at most {steps}, but got {int(values[0])}"
        )
    batch_sizes = np.array([(values > t).sum() for t in range(int(values.max()))], np.int64)
    flat = input.reshape(steps * batch, *input.shape[2:])
    data = flat[_index_tensor(_packed_positions(batch_sizes, batch))]
    return PackedSequence(data, _index_tensor(batch_sizes), sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo ``pack_padded_sequence``: the padded (T, B, *) batch (``batch_first``: (B, T, *))
    in the caller's order and the lengths (int64); ``total_length`` pads T further.

    Example::

        >>> a, b = glassgrad.tensor([1, 2]), glassgrad.tensor([3])
        >>> nn.utils.rnn.pad_packed_sequence(nn.utils.rnn.pack_sequence([a, b]))
        (tensor([[1, 3],
                [2, 0]]), tensor([2, 1]))
    """
    batch_sizes = np.asarray(sequence.batch_sizes.numpy(), dtype=np.int64)
    steps, batch = batch_sizes.size, int(batch_sizes[0])
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = total_length
    data = sequence.data
    flat = _factories.full(
        (steps * batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device
    )
    flat[_index_tensor(_packed_positions(batch_sizes, batch))] = data
    padded = flat.reshape(steps, batch, *data.shape[1:])
    lengths = np.array([(batch_sizes > b).sum() for b in range(batch)], np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[np.asarray(sequence.unsorted_indices.numpy())]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, _index_tensor(lengths)


def pad_sequence(
    sequences: Tensor | Iterable[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of shape (L_i, *) into (T, B, *) (``batch_first``: (B, T, *)), padding
    each with ``padding_value`` on the ``padding_side`` ("right" or "left") to the longest.

    Example::

        >>> a, b = glassgrad.tensor([1, 2, 3]), glassgrad.tensor([4])
        >>> nn.utils.rnn.pad_sequence([a, b], batch_first=True)
        tensor([[1, 2, 3],
                [4, 0, 0]])
    """
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    first = sequences[0]
    out = _factories.full(
        (len(sequences), longest, *first.shape[1:]),
        padding_value,
        dtype=first.dtype,
        device=first.device,
    )
    for i, seq in enumerate(sequences):
        n = seq.shape[0]
        if padding_side == "right":
            out[i, :n] = seq
        else:
            out[i, longest - n :] = seq
    return out if batch_first else out.transpose(0, 1)


def unpad_sequence(
    padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False
) -> list[Tensor]:
    """Undo ``pad_sequence``: the ``lengths[i]`` first steps of each sequence.

    Example::

        >>> padded = glassgrad.tensor([[1, 2, 3], [4, 0, 0]])
        >>> nn.utils.rnn.unpad_sequence(padded, glassgrad.tensor([3, 1]), batch_first=True)
        [tensor([1, 2, 3]), tensor([4])]
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[: int(n)] for seq, n in zip(padded_sequences, _lengths_array(lengths))]


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """``pack_padded_sequence(pad_sequence(sequences), lengths)``.

    Example::

        >>> a, b = glassgrad.tensor([1, 2]), glassgrad.tensor([3])
        >>> nn.utils.rnn.pack_sequence([a, b]).data
        tensor([1, 3, 2])
    """
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """Undo ``pack_sequence``: the list of sequences, in the caller's order.

    Example::

        >>> a, b = glassgrad.tensor([1, 2]), glassgrad.tensor([3])
        >>> nn.utils.rnn.unpack_sequence(nn.utils.rnn.pack_sequence([a, b]))
        [tensor([1, 2]), tensor([3])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
