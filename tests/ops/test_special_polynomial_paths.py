"""The fast paths of the special polynomials give the fused kernels' bits (issue 18).

A float32 array recurs in double, each step rounded once to float32 (``_float32_at``), with
the exact path (error-free transforms, ``_fma.fma``) for the elements whose double lies
halfway between two float32 or in float32's subnormal range and is not exact; one element
recurs in Python floats (``fms_float32``, ``fms_float64``). Each is checked against exact
rational arithmetic or the exact path, bit for bit, on inputs built to reach every branch.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad import _fma
from glassgrad.ops import special_polynomials as sp


def _float32_exact(value: Fraction) -> float:
    """``value`` rounded once to float32 (to nearest, ties to even; inf from halfway between
    the largest float32 and 2**128 on)."""
    if abs(value) >= Fraction(2) ** 128 - Fraction(2) ** 103:
        return float("inf") if value > 0 else float("-inf")
    with np.errstate(over="ignore"):
        near = np.float32(float(value))  # within an ulp of the answer
    steps = [np.nextafter(near, np.float32(t)) for t in (np.inf, -np.inf)]
    candidates = [float(c) for c in (near, *steps) if np.isfinite(c)]
    even = {c: int(np.float32(c).view(np.uint32)) & 1 for c in candidates}
    return min(candidates, key=lambda c: (abs(Fraction(c) - value), even[c]))


# a * b - c of float32 values: ties that are exact, halfway doubles that are not (c tiny
# beside a * b, or a * b tiny beside c), subnormal results, overflow past the largest float32.
_TRIPLES = [
    (1 + 2.0**-12, 1 + 2.0**-12, -(2.0**-60)),  # a * b halfway, c below half a double's ulp
    (1 + 2.0**-12, 1 + 2.0**-12, 2.0**-60),
    (2.0**-12 + 2.0**-35, 2.0**-12 - 2.0**-35, -(1 + 2.0**-23)),  # a * b tiny beside c
    (2.0**-12 + 2.0**-35, 2.0**-12 - 2.0**-35, -1.0),
    (1 + 2.0**-12, 1 + 2.0**-12, 0.0),  # a true tie
    (2.0**-70, 2.0**-70 * 3, 2.0**-139),  # subnormal
    (2.0**-75, 2.0**-75, -(2.0**-149)),
    (2.0**64, 2.0**64 * 1.5, -(2.0**127)),  # past 2**128: inf
    (1.8446743e19, 1.8446743e19, 0.0),
    (0.1, 0.3, 0.7),
]


@pytest.mark.parametrize("a, b, c", _TRIPLES)
def test_fused_float32_rounds_the_exact_value_once(a: float, b: float, c: float) -> None:
    a, b, c = (float(np.float32(v)) for v in (a, b, c))
    exact = _float32_exact(Fraction(a) * Fraction(b) - Fraction(c))
    assert _fma.fms_float32(a, b, c) == exact
    for sign in (1, -1):  # both signs of c, as arrays: the error-free path
        array = _fma.fma(np.float32([a]), np.float32([b]), np.float32([-sign * c]), np.float32)
        assert float(array[0]) == _float32_exact(Fraction(a) * Fraction(b) - sign * Fraction(c))


def test_fused_float64_rounds_the_exact_value_once() -> None:
    rng = np.random.default_rng(0)
    for a, b, c in rng.standard_normal((200, 3)) * [1, 1, 1e-3]:
        exact = Fraction(a) * Fraction(b) - Fraction(c)
        assert Fraction(_fma.fms_float64(a, b, c)) == Fraction(float(exact))  # nearest double


def test_doubtful_doubles_are_found() -> None:
    halfway = 1 + 2.0**-24  # between 1 and 1 + 2**-23
    doubles = np.array([[0.1, halfway, -halfway * 2.0**40], [0.0, 2.0**-130, -(2.0**-149)]])
    assert _fma.float32_doubtful(doubles).tolist() == [[False, True, True], [False, True, True]]
    assert _fma.float32_doubtful(np.array([[0.1, 0.0, np.inf, np.nan, 3.0]])) is None


def _candidates() -> np.ndarray:
    # 2**e (1 + j 2**-k): products of these are float32 halfway points, so some steps' doubles
    # are halfway and rounded (the exact path), others exact ties
    e, k, j = np.meshgrid(np.arange(-40, 44, 3), [8, 12], np.arange(1, 40, 2))
    x = (2.0**e * (1 + j * 2.0**-k)).ravel()
    rng = np.random.default_rng(1)
    return np.concatenate([x, -x, rng.random(200) * 2 - 1, [0.0, -0.0, 1.0, -1.0, 3e-39]])


@pytest.mark.parametrize("name", sorted(sp._KERNELS))
def test_float32_in_double_is_the_exact_path(name: str) -> None:
    kind = name[-1] if "chebyshev" in name else name
    x = _candidates().astype(np.float32)
    if name.startswith("shifted"):
        x = x + x - 1
    redone = 0
    for n in (2, 3, 5, 9):
        with np.errstate(all="ignore"):
            fast = sp._float32_at(x, n, kind)
            exact = sp._run(*sp._exact_parts(kind, x), n)
        np.testing.assert_array_equal(fast.view(np.uint32), exact.view(np.uint32))
    # the exact path was reached: some doubles were halfway and not exact
    with np.errstate(all="ignore"):
        twice = x.astype(np.float64) * 2
        doubles = (twice * x - 1)[None, :]
    redone = len(sp._inexact_doubtful(doubles, (twice * x)[None, :], [1.0]))
    assert redone > 0


def test_one_element_overflow_past_the_largest_float32_is_inf() -> None:
    # T_3(x) = 2x T_2(x) - x lies past 2**128 - 2**103 here: inf (the one-element path gave
    # the largest float32, its halfway test reading a double past 2**128 as halfway)
    x = np.float32(4.4152264e12)
    for values in ([x], [x, np.float32(0.5)]):
        ours = gg.special.chebyshev_polynomial_t(gg.tensor(values), 3).numpy()
        theirs = torch.special.chebyshev_polynomial_t(torch.tensor(values), 3).numpy()
        np.testing.assert_array_equal(ours, theirs)
        assert np.isinf(ours[0])
