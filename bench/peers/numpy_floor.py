"""The NumPy floor: only the matrix products of one step of the wide MLP, done directly in NumPy.

A library built on NumPy performs at least these eight products per step (forward: three;
backward: a weight gradient per layer and an input gradient for the two upper layers), so their
time is a floor no NumPy library can beat. Its summary is empty: there is nothing to compare.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from bench.workloads import Inputs, Prepared, Size


def load() -> ModuleType:
    return np


def mlp_wide_matmuls(numpy: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """The eight products of one forward + backward pass, on arrays of the true shapes."""
    w1, _, w2, _, w3, _ = inputs["weights"]
    x = inputs["x"]
    rng = np.random.default_rng(0)
    a1 = np.maximum(x @ w1.T, 0)
    a2 = np.maximum(a1 @ w2.T, 0)
    g3 = rng.standard_normal((x.shape[0], w3.shape[0])).astype(np.float32)

    def step() -> None:
        x @ w1.T
        a1 @ w2.T
        a2 @ w3.T
        g2 = g3 @ w3
        g3.T @ a2
        g1 = g2 @ w2
        g2.T @ a1
        g1.T @ x

    return Prepared(step, lambda: [])


IMPLEMENTATIONS = {"mlp_wide_adam": mlp_wide_matmuls}
