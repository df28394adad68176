"""torch.gradient beyond the registry's samples: integer inputs, the spacing and dim forms,
and PyTorch's errors (its OpInfo error inputs)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from .test_linalg import assert_same_error

VALUES = [[1, 2, 4, 8], [10, 20, 40, 80], [2, 3, 5, 7]]

CALLS = {
    "integer input": lambda m: m.gradient(m.tensor(VALUES)),
    "integer step": lambda m: m.gradient(m.tensor(VALUES, dtype=m.float64), spacing=2),
    "one dim as int": lambda m: m.gradient(m.tensor(VALUES, dtype=m.float64), dim=1),
    "negative dim": lambda m: m.gradient(m.tensor(VALUES, dtype=m.float64), dim=-1, spacing=0.5),
    "steps per dim": lambda m: m.gradient(m.tensor(VALUES, dtype=m.float32), spacing=[1.0, 3.0]),
    "coordinates per dim": lambda m: m.gradient(
        m.tensor(VALUES, dtype=m.float64),
        spacing=[m.tensor([0.0, 1.0, 3.0]), m.tensor([0.0, 2.0, 3.0, 7.0])],
        edge_order=2,
    ),
    "empty dim list": lambda m: m.gradient(m.tensor(VALUES, dtype=m.float64), dim=[]),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_values_and_dtypes_match_pytorch(name: str) -> None:
    ours, theirs = CALLS[name](gg), CALLS[name](torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def _square(m: Any, dtype: Any = None) -> Any:
    return m.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=dtype)


ERRORS = {
    "spacing list length": (
        lambda m: m.gradient(_square(m), spacing=[0.1], dim=(1, 0)),
        "torch.gradient expected spacing to be unspecified, a scalar",
    ),
    "spacing list without dim": (
        lambda m: m.gradient(_square(m), spacing=[0.1, 0.2, 0.3]),
        "torch.gradient expected spacing to be unspecified, a scalar",
    ),
    "edge order": (
        lambda m: m.gradient(_square(m, m.float32), edge_order=3),
        "torch.gradient only supports edge_order=1 and edge_order=2.",
    ),
    "repeated dim": (
        lambda m: m.gradient(_square(m), spacing=0.1, dim=(1, 1)),
        "dim 1 appears multiple times in the list of dims",
    ),
    "dim out of range": (lambda m: m.gradient(_square(m), dim=3), "Dimension out of range"),
    "too short": (
        lambda m: m.gradient(m.tensor([[1], [2], [3]])),
        "torch.gradient expected each dimension size to be at least",
    ),
    "too short for edge order 2": (
        lambda m: m.gradient(m.tensor([[1, 2], [3, 4]]), edge_order=2),
        "torch.gradient expected each dimension size to be at least",
    ),
    "uint8": (
        lambda m: m.gradient(_square(m, m.uint8)),
        "torch.gradient does not support uint8 input.",
    ),
    "2-d coordinates": (
        lambda m: m.gradient(_square(m, m.float32), spacing=[m.ones(3, 1)], dim=0),
        "torch.gradient expected each element of spacing to have one dimension",
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(name: str) -> None:
    program, words = ERRORS[name]
    assert_same_error(program, words)
