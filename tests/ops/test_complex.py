"""Complex dtypes, as far as glassgrad offers them (the results of glassgrad.fft and the ops
on them): promotion, creation, requires_grad, the parts and the conjugate, and the gradient
of a real leaf used in complex arithmetic (its real part). PyTorch is the oracle.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

NAMES = ["bool", "uint8", "int64", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("a, b", itertools.product(NAMES, NAMES))
def test_promote_types(a: str, b: str) -> None:
    ours = gg.promote_types(getattr(gg, a if a != "bool" else "bool"), getattr(gg, b))
    assert ours.name == str(torch.promote_types(getattr(torch, a), getattr(torch, b)))[6:]


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.tensor([1.0, 2.0]) * 1j,
        lambda L: L.tensor([1.0, 2.0], dtype=L.float64) * (2 - 1j),
        lambda L: L.tensor([1, 2]) + 1j,
        lambda L: L.tensor([1 + 1j]) + L.tensor(2.0, dtype=L.float64),
        lambda L: L.tensor([1.0]) * L.tensor(1j, dtype=L.complex128),
        lambda L: L.tensor([1 + 2j, 3j]),
        lambda L: L.tensor([1, 2], dtype=L.complex128),
        lambda L: L.zeros(2, dtype=L.cfloat),
        lambda L: L.tensor([1.0, 2.0]).to(L.cdouble),
        lambda L: L.tensor([3 + 4j]).abs(),
        lambda L: L.tensor([1 + 2j]).real,
        lambda L: L.tensor([1 + 2j]).imag,
        lambda L: L.real(L.tensor([1.0])),
        lambda L: L.tensor([1 + 2j]).conj(),
        lambda L: L.conj(L.tensor([1.5])),
        lambda L: L.tensor([-1.0, 2.0, 0.0]).angle(),
        lambda L: L.tensor([1j, -1 + 0j]).angle(),
        lambda L: L.tensor([3 + 4j, 0j]).sgn(),
        lambda L: L.complex(L.tensor([1.0]), L.tensor([2.0])),
        lambda L: L.tensor([1 + 2j]) / L.tensor([3 - 1j]),
    ],
)
def test_values_and_dtypes(call: Any) -> None:
    ours, theirs = call(gg), call(torch)
    assert ours.dtype.name == str(theirs.dtype)[6:]
    assert gg.is_complex(ours) == torch.is_complex(theirs) == ours.is_complex()
    np.testing.assert_allclose(ours.numpy(), theirs.resolve_conj().numpy(), rtol=1e-6)


def test_complex_leaves_require_grad_and_accumulate() -> None:
    values = np.array([1 + 2j, -0.5 + 1j])
    grads = []
    for lib in (gg, torch):
        z = lib.tensor(values, requires_grad=True)
        for _ in range(2):
            (z * (2 - 1j)).abs().sum().backward()
        grads.append(z.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_a_real_leaf_gets_the_real_part_of_its_complex_gradient() -> None:
    grads = []
    for lib in (gg, torch):
        x = lib.tensor([0.5, -1.5], dtype=lib.float64, requires_grad=True)
        z = lib.tensor([1 + 2j, 2 - 1j], requires_grad=True)
        ((x * z + x / z - z).abs() ** 2).sum().backward()
        grads.append((x.grad.dtype, x.grad.numpy(), z.grad.numpy()))
    assert str(grads[0][0])[10:] == str(grads[1][0])[6:]
    for a, b in zip(grads[0][1:], grads[1][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.tensor([1 + 1j], requires_grad=True).sum().backward(),
        lambda L: L.tensor([1.0]).imag,
        lambda L: L.tensor([1 + 1j], requires_grad=True).abs().backward(L.tensor([1j])),
    ],
)
def test_errors_match_pytorch(call: Any) -> None:
    with pytest.raises(Exception) as ours:
        call(gg)
    with pytest.raises(Exception) as theirs:
        call(torch)
    assert type(ours.value) is type(theirs.value)
    assert str(theirs.value) == str(ours.value).replace("glassgrad", "torch")
