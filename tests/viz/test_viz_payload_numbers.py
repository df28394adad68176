"""The explorer page's short statistics: 4-digit decimals, two int16 per number, read back as
Python's ``'%.4g'`` would print them (NaN, infinities and None kept apart)."""

from __future__ import annotations

import numpy as np

from glassgrad.viz._payload import decimal4, decimal4_value


def test_decimal4_reads_back_as_four_significant_digits():
    rng = np.random.default_rng(0)
    spread = rng.standard_normal(20_000) * 10.0 ** rng.integers(-300, 300, 20_000)
    edges = [0.0, 1000.0, 9999.5, 0.00099995, 1e-310, 1.0, 10.0, 100.0, 1e5, 9.9995e-7, -2.5e-3]
    numbers = np.concatenate([spread, edges]).reshape(-1, 1)
    mantissa, exponent = decimal4(numbers, np.zeros(numbers.shape, dtype=bool))
    assert mantissa.dtype == exponent.dtype == np.int16
    got = [decimal4_value(int(m), int(e)) for m, e in zip(mantissa.ravel(), exponent.ravel())]
    assert got == [float(f"{v:.4g}") for v in numbers.ravel()]


def test_decimal4_keeps_nan_infinities_and_none_apart():
    numbers = np.array([[np.nan, np.inf, -np.inf, np.nan]])
    absent = np.array([[False, False, False, True]])  # None travels as NaN, flagged absent
    mantissa, exponent = decimal4(numbers, absent)
    got = [decimal4_value(int(m), int(e)) for m, e in zip(mantissa.ravel(), exponent.ravel())]
    assert got == ["nan", "inf", "-inf", None]
