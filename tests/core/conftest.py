"""Run one program under glassgrad and under PyTorch and compare what it returns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg


def to_numpy(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().numpy(force=True)
    if isinstance(value, gg.Tensor):
        return value.detach().numpy()
    if isinstance(value, (list, tuple)):
        return type(value)(to_numpy(v) for v in value)
    return value


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    ours, theirs = to_numpy(ours), to_numpy(theirs)
    if isinstance(ours, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b, rtol, atol)
    elif isinstance(ours, np.ndarray):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, (ours, theirs)
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)
    else:
        assert ours == theirs


@pytest.fixture
def parity() -> Callable:
    """``parity(program)`` runs ``program(lib)`` for glassgrad and torch and compares."""

    def check(program: Callable[[Any], Any], rtol: float = 1e-10, atol: float = 1e-12) -> Any:
        ours, theirs = program(gg), program(torch)
        assert_same(ours, theirs, rtol, atol)
        return ours

    return check


def structure(fn: Any, depth: int = 6) -> Any:
    """Names of a grad_fn graph as nested tuples: (name, (child structures or None...))."""
    if fn is None:
        return None
    name = type(fn).__name__
    if depth == 0:
        return name
    return (name, tuple(structure(n, depth - 1) for n, _ in fn.next_functions))
