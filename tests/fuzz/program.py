"""Check one program: run it under glassgrad and PyTorch and compare; save a regression."""

from __future__ import annotations

import hashlib
import re
import textwrap
from pathlib import Path

import numpy as np
import torch

import glassgrad

from .compare import Difference, first_difference, is_float32_program, reference_arrays
from .execute import Trace, replay, run

REGRESSIONS = Path(__file__).parent / "regressions"


def check(statements: list[str], seed: int) -> Difference | None:
    """The first difference between glassgrad's and PyTorch's runs of ``statements``.

    A float32 program whose first difference is a value is run again in float64 under both
    libraries; if they agree there, each float32 value beyond the tolerance is weighed
    against the float64 one: glassgrad's at least as close as PyTorch's is no difference
    (both carry float32 rounding amplified by the problem), and a program whose only
    differences are such is ill-conditioned, with no verdict."""
    ours = run(statements, glassgrad, seed)
    theirs = run(statements, torch, seed)

    def on_our_inputs(i: int) -> dict | None:
        return replay(statements[i], ours.steps[i - 1][1], torch, ours.aliases[i - 1])

    found = first_difference(ours, theirs, statements, on_our_inputs)
    if found is None or found.aspect != "value" or not is_float32_program(theirs):
        return found
    wide = in_float64(statements)
    exact = run(wide, torch, seed, default_dtype="float64")
    if _holds_float32(exact) or first_difference(
        run(wide, glassgrad, seed, default_dtype="float64"), exact, wide
    ):
        return found  # not a float64 program, or one that differs itself: no reference
    again = first_difference(
        ours, theirs, statements, on_our_inputs, reference_arrays(exact, statements)
    )
    if again is not None:
        return again
    detail = f"glassgrad's float32 values no farther than PyTorch's from float64: {found.detail}"
    return Difference(found.where, "float32", detail, ill_conditioned=True)


# The same program in float64: float32 and complex64 named as such (default-dtype tensors
# follow the default, set to float64 for the run), and the literals of float32 tensors
# rounded to float32 first, so both programs start from the same values.
_WIDER = [
    (re.compile(r"torch\.float32\b|torch\.float\b"), "torch.float64"),
    (re.compile(r"torch\.complex64\b|torch\.cfloat\b"), "torch.complex128"),
    (re.compile(r"\.float\(\)"), ".double()"),
    (re.compile(r"\.cfloat\(\)"), ".cdouble()"),
]
_LITERAL = re.compile(r"(?<![\w.])-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_FLOAT32_LEAF = re.compile(r"torch\.tensor\((.*), dtype=torch\.float32\b")


def in_float64(statements: list[str]) -> list[str]:
    """``statements`` with float32 replaced by float64, float32 leaves' values kept exact."""
    wide = []
    for statement in statements:
        leaf = _FLOAT32_LEAF.search(statement)
        if leaf is not None:
            values = _LITERAL.sub(lambda m: _float32_literal(m.group()), leaf.group(1))
            statement = statement[: leaf.start(1)] + values + statement[leaf.end(1) :]
        for pattern, replacement in _WIDER:
            statement = pattern.sub(replacement, statement)
        wide.append(statement)
    return wide


def _float32_literal(text: str) -> str:
    value = float(np.float32(float(text)))
    return repr(value) if np.isfinite(value) else f"float('{value}')"


def _holds_float32(trace: Trace) -> bool:
    return any(
        len(observation) == 5 and observation[1] in ("float32", "complex64")
        for _, observed in trace.steps
        for observation in observed.values()
    )


def save_regression(
    statements: list[str], seed: int, difference: Difference, found_by: str
) -> Path:
    """Write a shrunk program as a regression file read by ``test_fuzz.py``."""
    source = "\n".join(statements)
    digest = hashlib.sha1(f"{seed}\n{source}".encode()).hexdigest()[:10]
    path = REGRESSIONS / f"program_{digest}.py"
    description = textwrap.fill(str(difference), 96, subsequent_indent="    ")
    path.write_text(
        f'"""Fuzzer regression ({found_by}).\n\nBefore the fix: {description}\n"""\n\n'
        f"SEED = {seed}\n"
        f'PROGRAM = """\n{source}\n"""\n'
    )
    return path


def load_regression(path: Path) -> tuple[list[str], int]:
    """The statements and weight seed of a regression file."""
    namespace: dict = {}
    exec(path.read_text(), namespace)
    statements = [line for line in namespace["PROGRAM"].splitlines() if line.strip()]
    return statements, namespace["SEED"]
