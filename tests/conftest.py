"""Test-session report: how much of the op registry the parity tests cover; the warnings of
the registry's PyTorch spellings silenced once (``ORACLE_WARNINGS``)."""

from __future__ import annotations

from glassgrad.ops._samples import silence_oracle_warnings

silence_oracle_warnings()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001
    from glassgrad.ops import REGISTRY

    rows = list(REGISTRY.values())
    samples = first = second = 0
    import numpy as np

    for info in rows:
        if not info.samples:
            continue
        for s in info.samples(np.random.default_rng(0)):
            samples += 1
            first += bool(info.differentiable and s.grad)
            second += bool(info.differentiable and s.grad and info.second_order and s.gradgrad)
    terminalreporter.write_sep("-", "op registry coverage")
    terminalreporter.write_line(
        f"ops in the registry: {len(rows)}; samples: {samples}; checked for first order: "
        f"{first}; for second order: {second}"
    )
