"""The op sweep (bench/sweep.py): samples are sized as promised, a case whose values differ from
PyTorch's is refused before any timing, and the row judges the distribution against its three
targets. Nothing here asserts anything about time."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import torch

import glassgrad

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench import sweep  # noqa: E402
from bench.libraries import CANDIDATE  # noqa: E402
from bench.report import sweep_row  # noqa: E402


def test_registry_ops_are_sized_to_one_and_to_a_thousand_elements() -> None:
    keys = ["add", "mul", "sum", "linalg.inv"]
    for target in sweep.SIZES:
        cases, left_out = sweep.registry_cases(glassgrad, torch, target, keys)
        by_name = {case.name: case for case in cases}
        assert not left_out
        # mul's samples have a Python number operand: it gets a case of its own.
        assert {"add", "add [scalar]", "mul", "mul [scalar]", "sum", "linalg.inv"} == set(by_name)
        for case in cases:
            assert target <= case.elements <= 2 * target + 64, (case.name, case.elements)
            assert case.sizing != "as registered"
        if target > 1:
            assert by_name["linalg.inv"].sizing == "block-diagonal matrix"


def test_a_case_with_other_values_than_pytorch_is_refused() -> None:
    # PyTorch whose mul is off by 1%: the check must catch it, through outputs or gradients.
    skewed = types.ModuleType("skewed")
    skewed.__getattr__ = lambda name: getattr(torch, name)  # type: ignore[method-assign]
    skewed.mul = lambda a, b: torch.mul(a, b) * 1.01  # type: ignore[attr-defined]
    case = sweep.registry_cases(torch, torch, 1, ["mul"])[0][0]
    assert sweep.check(case, torch, torch) is None
    assert "differs from PyTorch" in (sweep.check(case, skewed, torch) or "")
    extra = next(make(1000) for make in sweep.EXTRA_CASES if make(1).name == "x[mask]")
    assert sweep.check(extra, glassgrad, torch) is None
    assert extra.elements == 1000


def test_row_judges_median_percentile_and_worst_op() -> None:
    def result(ratios: list[float]) -> dict:
        cases = [
            {"name": f"op{i}", "ratio": r, "glassgrad_s": r, "torch_s": 1.0, "elements": 1}
            for i, r in enumerate(sorted(ratios, reverse=True))
        ]
        return {
            "status": "ok",
            "cases": cases,
            "distribution": sweep.distribution(ratios),
            "registry_ops": len(ratios),
        }

    good = sweep_row("op_sweep_1", result([0.5] * 9 + [1.9]))
    assert good["meets"] and good["ratio"] == 0.5
    assert "op0 1.90" in good["notes"][0]
    assert not sweep_row("op_sweep_1", result([0.5] * 9 + [2.1]))["meets"]  # one op above 2.0
    assert not sweep_row("op_sweep_1", result([0.5] * 8 + [1.4, 1.4]))["meets"]  # p90
    assert not sweep_row("op_sweep_1000", result([1.1] * 10))["meets"]  # median
    assert sweep_row("op_sweep_1000", result([1.0] * 10))["meets"]
    unavailable = sweep_row("op_sweep_1", {"status": "unavailable", "error": "boom"})
    assert unavailable["ratio"] is None and "boom" in unavailable["verdict"]
    assert unavailable["results"][CANDIDATE]["status"] == "unavailable"
