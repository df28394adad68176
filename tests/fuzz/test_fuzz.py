"""The differential fuzzer in the test suite: a short fixed-seed run and every saved regression.

Long runs are ``python -m tests.fuzz --seed S --budget-s T`` (docs/fuzzing.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .isolate import fuzz_seed
from .program import REGRESSIONS, check, load_regression

# Seeds 0..FIXED_SEEDS-1 in chunks, so pytest-xdist spreads them over its workers.
FIXED_SEEDS = 120
CHUNK = 10


@pytest.mark.parametrize("first", range(0, FIXED_SEEDS, CHUNK))
def test_fixed_seed_programs_agree_with_pytorch(first: int) -> None:
    failures = []
    for seed in range(first, first + CHUNK):
        outcome = fuzz_seed(seed)
        if outcome.status in ("differ", "harness"):
            shown = "\n    ".join(outcome.statements)
            failures.append(
                f"seed {seed}: {outcome.difference or outcome.detail}\n    {shown}\n"
                f"  (reproduce: python -m tests.fuzz --seed {seed} --programs 1)"
            )
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("path", sorted(REGRESSIONS.glob("program_*.py")), ids=lambda p: p.stem)
def test_saved_regression_agrees_with_pytorch(path: Path) -> None:
    statements, seed = load_regression(path)
    assert check(statements, seed) is None
