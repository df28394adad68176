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

from ._parity import same_error

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


_INF, _NAN = float("inf"), float("nan")
_POWER_BASES = [0j, -0.0 + 0j, complex(_INF, 0), complex(-_INF, 0), complex(0, _INF),
                complex(_NAN, 0), complex(1, _NAN), -1 + 0j, 1j, 2 + 3j, -2.5 + 0j,
                complex(_INF, _INF), 1 + 0j, complex(_NAN, -_INF), complex(-_INF, _NAN),
                complex(_NAN, _INF)]  # fmt: skip
_POWER_EXPONENTS = [0, 1, 2, 3, 0.5, -0.5, -1, -2, -0.79, 2.5, 0.3 + 0.4j, 1j, 0j, 2 + 0j]


def _same_parts(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.dtype == theirs.dtype
    for mine, reference in ((ours.real, theirs.real), (ours.imag, theirs.imag)):
        np.testing.assert_array_equal(np.isnan(mine), np.isnan(reference))
        np.testing.assert_array_equal(np.isinf(mine), np.isinf(reference))
        infinite = np.isinf(reference)
        np.testing.assert_array_equal(mine[infinite], reference[infinite])
    finite = np.isfinite(theirs)
    np.testing.assert_allclose(ours[finite], theirs[finite], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("exponent", _POWER_EXPONENTS, ids=str)
@pytest.mark.parametrize("kind", ["number", "tensor", "0-d tensor"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_power_at_zero_infinity_and_nan(kind: str, exponent: Any, dtype: str) -> None:
    """Fuzz seed 650712: PyTorch's complex pow is C's cpow, exp(e * log(x)), for tensor
    exponents (0 ** -0.79 is inf + NaN j, 0 ** 0 NaN; NumPy's power gave NaN and 1), and for
    a number exponent its sqrt/rsqrt/reciprocal/product kernels at 0.5, -0.5, -1, 2, 3, -2."""
    results = []
    for lib in (gg, torch):
        x = lib.tensor(_POWER_BASES, dtype=getattr(lib, dtype))
        if kind == "number":
            e = exponent
        elif kind == "tensor":
            e = lib.full((len(_POWER_BASES),), exponent, dtype=x.dtype)
        else:
            e = lib.tensor(
                exponent, dtype=lib.complex128 if isinstance(exponent, complex) else lib.float64
            )
        results.append((x**e).numpy())
    _same_parts(*results)


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
@pytest.mark.parametrize("number", [1, 1.0, 0, -1, 2.5, 2j, 0.3 + 0.4j])
def test_number_to_a_complex_or_real_power(number: Any, dtype: str) -> None:
    # 1 ** x is 1 (pow_Scalar_out fills it, cpow(1, NaN) is NaN); int64 ** 2j is complex64.
    values = [0, 2, -1, 3, 1] if dtype == "int64" else [0.0, 2.0, -1.5, _INF, _NAN]
    results = []
    for lib in (gg, torch):
        x = lib.tensor(values, dtype=getattr(lib, dtype))
        if dtype != "complex64" and not isinstance(number, complex):
            x = x.to(lib.complex64)
        results.append(((number**x).numpy(), (x**number).numpy()))
    for ours, theirs in zip(*results):
        _same_parts(ours, theirs)


_SUM_CASES = {
    "a + b": lambda a, b: a + b,
    "a - b": lambda a, b: a - b,
    "b + a": lambda a, b: b + a,
    "add alpha": lambda a, b: a.add(b, alpha=2),
    "add_": lambda a, b: a.clone().add_(b),
    "sub_": lambda a, b: a.clone().sub_(b),
    "a[i] += b": lambda a, b: _index_add(a, b),
    "rsub": lambda a, b: 2.5 - b if b.dtype.is_complex else 2.5j - b,
    "number + a": lambda a, b: float("nan") + a,
    "index_add": lambda a, b: a.index_add(0, a.real.argsort(), b.to(a.dtype)),
}


def _index_add(a: Any, b: Any) -> Any:
    a = a.clone()
    a[[0, 1, 2, 3, 4, 5, 6, 7, 8]] += b
    return a


@pytest.mark.parametrize("case", list(_SUM_CASES))
@pytest.mark.parametrize("other", ["complex64", "complex128", "float64"])
def test_complex_sums_multiply_the_second_operand_by_alpha(case: str, other: str) -> None:
    """Fuzz seed 704508: PyTorch's add and sub kernels compute a + alpha * b with alpha a
    complex 1 by default, so a NaN or inf part of b (a real NaN promoted: NaN + 0j) makes
    the other part of the sum NaN; b + a with a finite keeps it."""
    bases = [complex(1, 2), complex(-1, 0.5), 0j, complex(3, -1)] * 2 + [1j]
    seconds = [complex(_NAN, 0), complex(_INF, 0), complex(0, _INF), complex(1, _NAN),
               complex(-_INF, _INF), complex(_NAN, _NAN), 2 + 1j, -0.5 + 0j, 0j]  # fmt: skip
    results = []
    for lib in (gg, torch):
        a = lib.tensor(bases, dtype=lib.complex64)
        b = lib.tensor(seconds, dtype=lib.complex128)
        b = b.real.to(lib.float64) if other == "float64" else b.to(getattr(lib, other))
        results.append(_SUM_CASES[case](a, b).numpy())
    _same_parts(*results)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", [1, 2, 0.5j])
def test_complex_addcmul_and_addcdiv_at_nan_and_infinity(op: str, value: Any) -> None:
    """PyTorch's kernels compute self + value * t1 * t2 (/ t2) left to right, the value a
    complex number even when it is 1 (as add's alpha), and their gradients are
    derivatives.yaml's grad * (t2 * value).conj(), grad * (value / t2).conj() and
    -grad * (value * t1 / (t2 * t2)).conj(): values and gradients keep PyTorch's NaN."""
    parts = [complex(_NAN, 0), complex(_INF, 0), complex(0, _INF), complex(1, _NAN), 1 + 2j, 0j]
    grid = np.array(list(itertools.product(parts, repeat=4))).T
    results = []
    for lib in (gg, torch):
        x, t1, t2 = (lib.tensor(v, dtype=lib.complex128, requires_grad=True) for v in grid[:3])
        out = getattr(lib, op)(x, t1, t2, value=value)
        grads = lib.autograd.grad(out, [x, t1, t2], lib.tensor(grid[3]))
        results.append(
            [out.detach().resolve_conj().numpy()] + [g.resolve_conj().numpy() for g in grads]
        )
    for ours, theirs in zip(*results):
        _same_parts(ours, theirs)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_sgn_is_the_kernels_scalar_division(dtype: str) -> None:
    """PyTorch's scalar loop divides z by |z| + 0j (complex division): NaN + NaNj at an
    infinite part, where NumPy's sign gives the unit direction. One element per tensor (its
    vectorized loop, from 2 vectors on, divides the parts by |z| apart: docs/fuzzing.md)."""
    values = [
        complex(a, b) for a in (_NAN, _INF, -_INF, 0.0, 1.5, 1e300) for b in (_NAN, _INF, 0.0, -2.0)
    ]
    results = []
    for lib in (gg, torch):
        kind = getattr(lib, dtype)
        results.append(np.array([lib.sgn(lib.tensor([v], dtype=kind)).numpy()[0] for v in values]))
    _same_parts(*results)


@pytest.mark.parametrize("dim", [0, 1])
def test_complex_cumprod_starts_from_one(dim: int) -> None:
    # PyTorch's scan multiplies its accumulator, 1, by the first element: inf + 0j gives
    # inf + nanj there (NumPy's cumprod copies it).
    parts = [complex(_INF, 0), complex(0, _INF), complex(_NAN, 1), 1 + 2j, 0j, complex(-_INF, 1)]
    grid = np.array(parts * 3).reshape(3, 6)
    results = [lib.cumprod(lib.tensor(grid), dim).numpy() for lib in (gg, torch)]
    _same_parts(*results)


def _complex_gradient_sums(L: Any) -> list:
    """Gradients that the engine sums: of a tensor used twice, into .grad, under create_graph."""
    x = L.tensor([1 + 1j, 2 + 0j], requires_grad=True)
    v1, v2 = L.tensor([1 + 0j, 1 + 0j]), L.tensor([complex(_INF, 0), complex(_NAN, 0)])
    found = list(L.autograd.grad([x * 1, x * 1], [x], [v1, v2]))
    found += L.autograd.grad([x * 1, x * 1], [x], [v1, v2], create_graph=True)
    (x * 1).backward(v1)
    (x * 1).backward(v2)
    return [*found, x.grad]


def test_the_engine_sums_complex_gradients_with_the_add_kernel() -> None:
    # The engine sums gradients as PyTorch's InputBuffer and AccumulateGrad do, with the add
    # kernel: a + 1 * b, so a NaN or inf part of a second gradient makes its other part NaN.
    for ours, theirs in zip(_complex_gradient_sums(gg), _complex_gradient_sums(torch), strict=True):
        _same_parts(ours.detach().numpy(), theirs.detach().resolve_conj().numpy())


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.polar(lib.ones(2), lib.ones(2, dtype=lib.float64)),
        lambda lib: lib.polar(lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64)),
    ],
    ids=["dtypes differ", "integers"],
)
def test_polar_refuses_as_pytorch(program: Any) -> None:
    same_error(program)


@pytest.mark.parametrize("op", ["polar", "complex"])
def test_polar_and_complex_name_shapes_that_do_not_broadcast(op: str) -> None:
    messages = []
    for lib in (gg, torch):
        with pytest.raises(RuntimeError) as info:
            getattr(lib, op)(lib.ones(2, 1), lib.ones(4, 3))
        messages.append(str(info.value))
    ours, theirs = messages
    assert theirs in ours and ours.startswith(op) and "[2, 1] and [4, 3]" in ours
