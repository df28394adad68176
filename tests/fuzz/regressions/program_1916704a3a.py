"""Fuzzer regression (seed 3364).

Before the fix: found: before: phase gradgrad[1]: value: NaN where the other has none: [[[-1.23002910e-01
    nan             nan]
"""

SEED = 3364
PROGRAM = """
[            nan -1.39132301e-01  4.23549122e-03]
[            nan             nan  1.46627307e-03]]
"""
