"""Factories beyond the basic ones (logspace, range, triangle indices ...) and the
process-wide settings and queries (threads, determinism, RNG state, dtype queries),
against PyTorch."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

LIBS = (gg, torch)


def _same(program: Any, atol: float = 1e-6) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = program(gg), program(torch)
    ours, theirs = (
        (ours if isinstance(ours, tuple) else (ours,)),
        (theirs if isinstance(theirs, tuple) else (theirs,)),
    )
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=atol)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.logspace(0, 2, 3),
        lambda lib: lib.logspace(-1, 1, 4, base=2, dtype=lib.float64),
        lambda lib: lib.range(0, 2, 0.5),
        lambda lib: lib.scalar_tensor(3),
        lambda lib: lib.tril_indices(3, 4, -1),
        lambda lib: lib.triu_indices(4, 3, 1),
        lambda lib: lib.unravel_index(lib.tensor([4, -1]), (2, 3)),
        lambda lib: lib.fill(lib.zeros(2), 3.0),
        lambda lib: lib.arange(6.0).resize_(2, 2),
        lambda lib: lib.zeros(5, 3).fill_diagonal_(1, wrap=True),
        lambda lib: lib.ones(2, 2, 2).fill_diagonal_(7),
    ],
)
def test_factories(program: Any) -> None:
    _same(program)


def test_empty_strided_has_the_strides() -> None:
    for lib in LIBS:
        t = lib.empty_strided((2, 3), (1, 2))
        assert t.stride() == (1, 2) and tuple(t.shape) == (2, 3)


def test_queries() -> None:
    for lib in LIBS:
        assert lib.result_type(lib.tensor([1]), 1.0) == lib.float32
        assert lib.can_cast(lib.float64, lib.float32) and not lib.can_cast(lib.float32, lib.int32)
        assert lib.is_signed(lib.tensor([1])) and not lib.is_signed(
            lib.tensor([1], dtype=lib.uint8)
        )
        assert lib.is_nonzero(lib.tensor([2.0])) and not lib.is_nonzero(lib.tensor(0))
        assert lib.typename(lib.ones(1)) == "torch.FloatTensor"
        with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
            lib.is_nonzero(lib.ones(2))
        t = lib.ones(2, 3)
        assert t.H.shape == (3, 2) and t.itemsize == 4 and t.nbytes == 24
        assert t.is_cpu and t.get_device() == -1
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            lib.ones(2, requires_grad=True).resize_(3)


def test_settings() -> None:
    before = gg.get_num_threads()
    gg.set_num_threads(1)
    assert gg.get_num_threads() == 1
    gg.set_num_threads(before)
    gg.use_deterministic_algorithms(True, warn_only=True)
    assert gg.are_deterministic_algorithms_enabled()
    assert gg.is_deterministic_algorithms_warn_only_enabled()
    gg.use_deterministic_algorithms(False)
    assert gg.get_float32_matmul_precision() == "highest"
    gg.set_float32_matmul_precision("high")
    with pytest.raises(RuntimeError):
        gg.set_float32_matmul_precision("low")
    state = gg.get_rng_state()
    first = gg.rand(3)
    gg.set_rng_state(state)
    assert gg.equal(first, gg.rand(3))


def test_errors() -> None:
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="only supported on matrices"):
            _ = lib.ones(2, 2, 2).H
