"""An elementwise op written in place into a tensor whose elements share memory without a zero
stride (``x.unfold(0, 2, 1).mul_(y)``: the windows overlap).

PyTorch's overlap check cannot classify such a tensor (``MemOverlap::TooHard``), so it lets the
write through, and its TensorIterator kernel visits the elements one after the other: each
element reads the memory as the elements before it left it, and of several elements sharing a
location the last one visited stays. Computing the whole result first and then writing it (as
for any other target) gives other values. ``write_in_kernel_order`` visits the elements in
TensorIterator's order, one innermost row at a time: within a row the locations are distinct
(a zero stride is refused before), so a row computed at once reads and writes what the kernel's
element-by-element loop would. Tensors past PyTorch's grain size (32768 elements) are split over
threads by PyTorch, in an order no run repeats; glassgrad keeps one order for them too.
"""

from __future__ import annotations

import numpy as np

from .._strides import iterator_order
from .storage import maybe_overlapping

__all__ = ["shares_memory_within", "write_in_kernel_order"]


def shares_memory_within(data: np.ndarray) -> bool:
    """Several elements of ``data`` may share one memory location."""
    itemsize = data.itemsize
    return data.size > 1 and maybe_overlapping(data.shape, [s // itemsize for s in data.strides])


def write_in_kernel_order(cls: type, data: np.ndarray, arrays: list, params: dict) -> None:
    """Run elementwise op ``cls`` on ``data`` (and ``arrays``) and write the result into
    ``data`` row after row in TensorIterator's order, each row reading the current memory."""
    shape = data.shape
    others = [np.broadcast_to(a, shape) if isinstance(a, np.ndarray) else a for a in arrays]
    perm = iterator_order(shape, [data, data, *others])  # the target: output and input
    outer = perm[:0:-1]  # outermost first; perm[0] is the row
    for index in np.ndindex(*(shape[d] for d in outer)):
        key: list = [slice(None)] * len(shape)
        for d, i in zip(outer, index):
            key[d] = i
        row = tuple(key)
        values = [a[row] if isinstance(a, np.ndarray) else a for a in others]
        # a fresh node per row: a forward may keep what it saw
        data[row] = cls.__new__(cls).forward(data[row], *values, **params)
