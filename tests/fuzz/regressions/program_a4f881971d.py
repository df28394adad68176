"""Fuzzer regression (seed 2527).

Before the fix: found: before: phase gradgrad[0]: value: NaN where the other has none: [[[  0.   0.  -0.   0.]
"""

SEED = 2527
PROGRAM = """
[-inf -inf -inf   0.]
[ inf -inf   0.  inf]]
"""
