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


@pytest.mark.parametrize(
    "size, layout", [((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (1, 2, 0)), ((5,), (0,)), ((), ())]
)
def test_empty_permuted_lays_out_dims_as_pytorch(size: tuple, layout: tuple) -> None:
    ours = gg.empty_permuted(size, layout, dtype=gg.float64, requires_grad=True)
    theirs = torch.empty_permuted(size, layout, dtype=torch.float64, requires_grad=True)
    assert (tuple(ours.shape), ours.stride(), ours.requires_grad) == (
        tuple(theirs.shape),
        theirs.stride(),
        theirs.requires_grad,
    )


@pytest.mark.parametrize("layout", [(0, 1, 2), (0, 0, 1), (0, 1, 5)])
def test_empty_permuted_errors_match_pytorch(layout: tuple) -> None:
    size = (2, 3) if len(layout) == 3 and layout == (0, 1, 2) else (2, 3, 4)
    with pytest.raises(RuntimeError) as theirs:
        torch.empty_permuted(size, layout)
    with pytest.raises(RuntimeError) as ours:
        gg.empty_permuted(size, layout)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("mode", [0, 1, 2, "default", "warn", "error"])
def test_deterministic_debug_mode_as_pytorch(mode: Any) -> None:
    try:
        for lib in (gg, torch):
            lib.set_deterministic_debug_mode(mode)
        assert gg.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
        assert gg.are_deterministic_algorithms_enabled() == (
            torch.are_deterministic_algorithms_enabled()
        )
        assert gg.is_deterministic_algorithms_warn_only_enabled() == (
            torch.is_deterministic_algorithms_warn_only_enabled()
        )
    finally:
        for lib in (gg, torch):
            lib.set_deterministic_debug_mode(0)


@pytest.mark.parametrize("mode", [3, "loud", 1.0])
def test_deterministic_debug_mode_errors_as_pytorch(mode: Any) -> None:
    with pytest.raises(Exception) as theirs:
        torch.set_deterministic_debug_mode(mode)
    with pytest.raises(type(theirs.value), match="debug_mode"):
        gg.set_deterministic_debug_mode(mode)


@pytest.mark.parametrize(
    "kind", ["DoubleTensor", "FloatTensor", "torch.DoubleTensor", "LongTensor", "torch.IntTensor"]
)
def test_set_default_tensor_type_as_pytorch(kind: str) -> None:
    outcomes = []
    for lib in (gg, torch):
        t = kind if kind.startswith("torch.") else getattr(lib, kind)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # PyTorch's deprecation warning is given once
                lib.set_default_tensor_type(t)
            outcomes.append(str(lib.get_default_dtype()).split(".")[-1])
        except TypeError as error:
            outcomes.append(str(error))
        finally:
            lib.set_default_dtype(lib.float32)
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("rank, name", [(4, "channels_last"), (5, "channels_last_3d")])
def test_contiguous_channels_last_as_pytorch(rank: int, name: str) -> None:
    shape = (2, 3, 4, 5, 2)[:rank]
    results = []
    for lib in (gg, torch):
        x = lib.tensor(np.arange(float(np.prod(shape))).reshape(shape), requires_grad=True)
        y = x.contiguous(memory_format=getattr(lib, name))
        (y * lib.arange(float(y.numel())).reshape(shape)).sum().backward()
        again = y.contiguous(memory_format=getattr(lib, name))
        with pytest.raises(RuntimeError) as error:
            lib.ones(2, 3).contiguous(memory_format=getattr(lib, name))
        results.append((y.stride(), y.tolist(), x.grad.tolist(), again is y, str(error.value)))
    assert results[0] == results[1]


@pytest.mark.parametrize(
    "dtype",
    ["float32", "float64", "float16", "int64", "int16", "uint8", "complex64", "complex128"],
)
def test_linspace_is_bit_exact(dtype: str) -> None:
    # PyTorch's kernel computes in the result's dtype from both ends, with fused
    # multiply-adds: NumPy's linspace differs in the last bit (float32: ~1 value in 5).
    rng = np.random.default_rng(sum(map(ord, dtype)))
    low = 0.0 if dtype == "uint8" else -100.0
    for steps in [0, 1, 2, 3, 10, 17, 100, 257]:
        start, end = rng.uniform(low, 100.0, 2)
        if dtype.startswith("complex"):
            start, end = complex(start, rng.uniform(-5, 5)), complex(end, -0.0)
        ours = gg.linspace(start, end, steps, dtype=getattr(gg, dtype)).numpy()
        theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_array_equal(ours.view(np.uint8), theirs.view(np.uint8))
    # Ends given as 0-d tensors, and the default dtype.
    _same(lambda L: L.linspace(L.tensor(-1.5), L.tensor(2.25), 7), atol=0)
