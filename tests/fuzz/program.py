"""Check one program: run it under glassgrad and PyTorch and compare; save a regression."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import torch

import glassgrad

from .compare import Difference, first_difference
from .execute import replay, run

REGRESSIONS = Path(__file__).parent / "regressions"


def check(statements: list[str], seed: int) -> Difference | None:
    """The first difference between glassgrad's and PyTorch's runs of ``statements``."""
    ours = run(statements, glassgrad, seed)
    theirs = run(statements, torch, seed)

    def on_our_inputs(i: int) -> dict | None:
        return replay(statements[i], ours.steps[i - 1][1], torch)

    return first_difference(ours, theirs, statements, on_our_inputs)


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
