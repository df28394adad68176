"""Window functions (torch.hann_window ...) against PyTorch's: lengths 0, 1, even and odd,
periodic and symmetric, both float dtypes, their parameters, flags and errors."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

WINDOWS = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]


@pytest.mark.parametrize(
    "name, length, periodic, dtype",
    list(itertools.product(WINDOWS, [0, 1, 2, 5, 8], [True, False], ["float32", "float64"])),
)
def test_values(name: str, length: int, periodic: bool, dtype: str) -> None:
    ours = getattr(gg, name)(length, periodic, dtype=getattr(gg, dtype)).numpy()
    theirs = getattr(torch, name)(length, periodic, dtype=getattr(torch, dtype)).numpy()
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    tolerance = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(ours, theirs, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.hamming_window(7, True, 0.6, 0.4),
        lambda L: L.hamming_window(6, periodic=False, alpha=0.5, beta=0.25, dtype=L.float64),
        lambda L: L.kaiser_window(9, False, 5.0, dtype=L.float64),
        lambda L: L.hann_window(4, requires_grad=True),
        lambda L: L.blackman_window(5, dtype=L.float64),
    ],
)
def test_parameters_and_flags(call: Any) -> None:
    ours, theirs = call(gg), call(torch)
    assert ours.requires_grad == theirs.requires_grad
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.hann_window(-1),
        lambda L: L.kaiser_window(-2),
        lambda L: L.hamming_window(4.5),
    ],
)
def test_errors_match_pytorch(call: Any) -> None:
    with pytest.raises(Exception) as ours:
        call(gg)
    with pytest.raises(Exception) as theirs:
        call(torch)
    assert type(ours.value) is type(theirs.value)
    if isinstance(theirs.value, RuntimeError):
        assert str(ours.value) == str(theirs.value)


def test_an_integer_dtype_is_refused() -> None:
    with pytest.raises(RuntimeError, match="hann_window expects floating point dtypes"):
        gg.hann_window(4, dtype=gg.int64)
