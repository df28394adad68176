"""micrograd (Karpathy): a scalar engine, so only the chains on one element or a 0-d value.

Its ``backward`` sorts the graph recursively, so chains deeper than Python's recursion limit fail
with RecursionError; the harness reports that as the peer's result (the limit is left as is).
"""

from __future__ import annotations

from types import ModuleType

from bench.workloads import Inputs, Prepared, Size


def load() -> ModuleType:
    import micrograd
    import micrograd.engine  # noqa: F401

    return micrograd


def chain(micrograd: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """``y = y * a + b`` on Values; summary ``[y, da, db]`` like the PyTorch version."""
    value = micrograd.engine.Value
    a, b = value(float(inputs["a"].sum())), value(float(inputs["b"].sum()))
    start = float(inputs["x"].sum())
    iterations = size["ops"] // 2
    last: list = []

    def step() -> None:
        a.grad = 0.0
        b.grad = 0.0
        y = value(start)
        for _ in range(iterations):
            y = y * a + b
        y.backward()
        last[:] = [y]

    return Prepared(step, lambda: [last[0].data, a.grad, b.grad])


IMPLEMENTATIONS = {"chain_1": chain, "scalar_chain_100k": chain, "scalar_chain_1m": chain}
