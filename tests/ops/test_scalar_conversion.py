"""A Python number written into a tensor (fill_, masked_fill, full, full_like, index_fill_)
is converted as PyTorch's checked conversion does: a number that does not fit the dtype (an
imaginary part into a real dtype, NaN or infinity into an integer one, a value beyond the
range) raises PyTorch's error instead of being silently truncated; a negative integer wraps
into uint8."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool", "complex64"]
VALUES = [1j, 1 + 0j, float("inf"), float("nan"), 300, -1, -300, 1e40, 2.5, 65504.0, 70000.0]
WRITERS = ["fill_", "masked_fill_", "masked_fill", "full", "full_like", "index_fill_"]


def _write(lib: Any, dtype: str, value: Any, writer: str) -> Any:
    dt = getattr(lib, dtype)
    x = lib.zeros(2, dtype=dt)
    try:
        if writer == "fill_":
            result = x.fill_(value)
        elif writer == "masked_fill_":
            result = x.masked_fill_(lib.tensor([True, False]), value)
        elif writer == "masked_fill":
            result = x.masked_fill(lib.tensor([True, False]), value)
        elif writer == "full":
            result = lib.full((2,), value, dtype=dt)
        elif writer == "full_like":
            result = lib.full_like(x, value)
        else:
            result = x.index_fill_(0, lib.tensor([0]), value)
    except RuntimeError as exc:
        return str(exc)
    return result.numpy().tolist()


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_number_written_into_a_tensor_as_pytorch(dtype: str, writer: str) -> None:
    with np.errstate(all="ignore"):
        for value in VALUES:
            ours, theirs = _write(gg, dtype, value, writer), _write(torch, dtype, value, writer)
            if isinstance(theirs, str):
                assert ours == theirs, f"{writer}({value!r}) into {dtype}"
            else:
                np.testing.assert_array_equal(ours, theirs, err_msg=f"{writer}({value!r}) {dtype}")
