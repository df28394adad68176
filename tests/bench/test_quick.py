"""The benchmark harness stays alive: quick mode runs, its output has the promised structure, and a
wrong answer is flagged INVALID instead of being timed. Nothing here asserts anything about time."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench import worker  # noqa: E402
from bench.cli import ALL_NAMES, pool_rounds  # noqa: E402
from bench.libraries import CANDIDATE, REFERENCE  # noqa: E402
from bench.report import compare_outputs, render_markdown, timed_rows  # noqa: E402
from bench.workloads import WORKLOADS  # noqa: E402

LIBRARY_STATUSES = {"ok", "INVALID", "unavailable", "failed", "not installed", "n/a"}

# Stands in for glassgrad: PyTorch whose `tensor()` skews float data by 1% (the chains build their
# leaves with it, so they must be flagged INVALID), whose `from_numpy` is exact (the MLP loads its
# weights with it, so it stays valid and compared), and which has no nn.LSTM (unavailable).
WRONG_TORCH = textwrap.dedent(
    """
    import types
    import numpy as np
    import torch

    def tensor(data, **kwargs):
        array = np.asarray(data)
        return torch.tensor(array * np.float32(1.01) if array.dtype.kind == "f" else data, **kwargs)

    nn = types.SimpleNamespace(**{k: getattr(torch.nn, k) for k in dir(torch.nn) if k != "LSTM"})

    def __getattr__(name):
        return getattr(torch, name)
    """
)


def run_bench(*args: str, pythonpath: Path | None = None) -> tuple[dict, str]:
    """Run ``python -m bench --quick --peers none ARGS`` and return (JSON, stdout)."""
    out = Path(args[args.index("--json") + 1])
    env = None
    if pythonpath is not None:
        import os

        env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    completed = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--peers", "none", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(out.read_text()), completed.stdout


def test_quick_mode_runs_every_row_and_reports_machine(tmp_path: Path) -> None:
    """One quick run (the harness's keep-alive in CI), checked from three sides."""
    result, stdout = run_bench("--json", str(tmp_path / "quick.json"))
    check_every_row_reported(result, stdout)
    check_pytorch_timed_on_every_workload(result)
    check_machine_and_threads(result)


def check_every_row_reported(result: dict, stdout: str) -> None:
    assert result["mode"] == "quick"
    assert [row["name"] for row in result["rows"]] == list(ALL_NAMES)
    for row in result["rows"]:
        assert {"title", "target", "verdict", "ratio", "results", "kind"} <= set(row)
        assert row["name"] in stdout
        for library, cell in row["results"].items():
            assert cell["status"] in LIBRARY_STATUSES, (row["name"], library, cell)
        if row["ratio"] is not None:
            assert row["results"][CANDIDATE]["status"] == "ok"
            assert row["ratio"] > 0
        else:
            assert row["meets"] is None or row["kind"] != "timed"
    header = stdout.splitlines()[0]
    assert "ratio" in header and "target" in header


def check_pytorch_timed_on_every_workload(result: dict) -> None:
    timed = [row for row in result["rows"] if row["kind"] == "timed"]
    assert len(timed) == len(WORKLOADS)
    for row in timed:
        reference = row["results"][REFERENCE]
        assert reference["status"] == "ok", (row["name"], reference)
        assert 0 < reference["min_s"] <= reference["median_s"] <= reference["max_s"]
        assert len(reference["times_s"]) == reference["repetitions"] >= 2
        check_units = WORKLOADS[row["name"]].check_units
        assert reference["check"] and len(reference["check"]) % check_units == 0
        assert all(math.isfinite(value) for value in reference["check"])
    import_row = next(row for row in result["rows"] if row["name"] == "import")
    assert import_row["results"][REFERENCE]["peak_rss_bytes"] > 50 * 2**20


def check_machine_and_threads(result: dict) -> None:
    machine = result["machine"]
    assert machine["logical_cores"] >= 1 and machine["numpy_blas"] != "unknown"
    torch_facts = result["libraries"][REFERENCE]
    assert torch_facts["status"] == "ok"
    assert torch_facts["threads"] >= 1 and torch_facts["blas"] not in ("", "unknown")


def test_wrong_result_is_invalid_right_one_compared_missing_op_unavailable(tmp_path: Path) -> None:
    (tmp_path / "wrong_torch.py").write_text(WRONG_TORCH)
    result, stdout = run_bench(
        "--candidate",
        "wrong_torch",
        "--only",
        "chain_1,mlp_digits_sgd,lstm",
        "--json",
        str(tmp_path / "r.json"),
        pythonpath=tmp_path,
    )
    rows = {row["name"]: row for row in result["rows"]}
    chain = rows["chain_1"]
    assert chain["results"][CANDIDATE]["status"] == "INVALID"
    assert chain["verdict"].startswith("INVALID (output[")
    assert chain["ratio"] is None and chain["meets"] is None
    assert "INVALID" in stdout

    mlp = rows["mlp_digits_sgd"]
    assert mlp["results"][CANDIDATE]["status"] == "ok", mlp
    assert mlp["results"][CANDIDATE]["check"] == mlp["results"][REFERENCE]["check"]
    assert mlp["ratio"] is not None and mlp["verdict"] in ("meets", "misses")

    assert rows["lstm"]["verdict"].startswith("unavailable in glassgrad (AttributeError")
    assert "LSTM" in rows["lstm"]["verdict"] and rows["lstm"]["ratio"] is None


@pytest.mark.parametrize(
    ("candidate", "agree"),
    [
        ([1.0, 2.0], True),
        ([1.0, 2.0 * (1 + 5e-5)], True),
        ([1.0, 2.0 * (1 + 5e-4)], False),
        ([1.0], False),
        ([1.0, float("nan")], False),
    ],
)
def test_compare_outputs_tolerance(candidate: list[float], agree: bool) -> None:
    assert compare_outputs([1.0, 2.0], candidate, rtol=1e-4, atol=1e-6)[0] is agree


def test_report_marks_wrong_result_invalid_without_ratio() -> None:
    ok = {"status": "ok", "median_s": 1.0, "min_s": 1.0, "max_s": 1.0}
    workers = {
        REFERENCE: {"status": "ok", "results": {"chain_1": {**ok, "check": [1.0, 2.0, 3.0]}}},
        CANDIDATE: {"status": "ok", "results": {"chain_1": {**ok, "check": [1.0, 2.0, 3.1]}}},
    }
    (row,) = timed_rows(workers, ["chain_1"])
    assert row["results"][CANDIDATE]["status"] == "INVALID"
    assert row["ratio"] is None and row["verdict"].startswith("INVALID (output[2]")
    assert "INVALID" in render_markdown([row], [CANDIDATE, REFERENCE])


def test_missing_peer_is_reported_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "micrograd", None)  # makes `import micrograd` fail
    out = tmp_path / "micrograd.json"
    worker.main(["--library", "micrograd", "--workloads", "chain_1", "--out", str(out)])
    report = json.loads(out.read_text())
    assert report["status"] == "not installed" and "micrograd" in report["error"]
    workers = {REFERENCE: {"status": "ok", "results": {}}, "micrograd": report}
    (row,) = timed_rows(workers, ["chain_1"])
    assert row["results"]["micrograd"]["status"] == "not installed"


def test_measure_counts_a_long_check_unit_as_warm_up() -> None:
    from bench.timing import TimingPlan, measure

    calls = []
    plan = TimingPlan(
        warmup_units=1,
        warmup_s=0.01,
        repetitions=7,
        min_repetitions=3,
        min_repetition_s=0.001,
        budget_s=0.0,
    )
    result = measure(lambda: calls.append(1), plan, warm_s=1.0)
    assert len(calls) == 3 == result["repetitions"] and result["units_per_rep"] == 1
    calls.clear()
    result = measure(lambda: calls.append(1), plan, warm_s=0.0)
    assert len(calls) > result["repetitions"] * result["units_per_rep"]  # it warmed up first
    assert result["min_s"] <= result["median_s"] <= result["max_s"]


def test_document_keeps_the_hand_written_part(tmp_path: Path) -> None:
    from bench.document import KEEP_MARKER, render_document
    from bench.machine import machine_facts

    ok = {"status": "ok", "median_s": 2.0, "min_s": 1.0, "max_s": 3.0, "check": [1.0, 2.0, 3.0]}
    workers = {
        REFERENCE: {"status": "ok", "results": {"chain_1": dict(ok)}, "facts": {"threads": 2}},
        CANDIDATE: {"status": "ok", "results": {"chain_1": {**ok, "median_s": 1.0}}},
    }
    result = {
        "mode": "full",
        "created": "now",
        "duration_s": 1.0,
        "machine": {**machine_facts(), "load_average_at_start": [99.0]},
        "libraries": {REFERENCE: {"status": "ok", "version": "2.13.0", "threads": 2}},
        "rows": timed_rows(workers, ["chain_1"]),
    }
    page = tmp_path / "benchmarks.md"
    page.write_text(f"old table\n{KEEP_MARKER}\n## Profiles\nhand-written notes\n")
    text = render_document(result, [CANDIDATE, REFERENCE], existing=page)
    assert "old table" not in text and text.endswith("## Profiles\nhand-written notes\n")
    assert "| chain_1 | 1 s [1 s-3 s] | 2 s [1 s-3 s] | 0.50 | <= 0.7 | meets |" in text
    assert "Caveat" in text and "intra-op threads: 2" in text


def test_reused_peer_figures_are_judged_again(tmp_path: Path) -> None:
    from bench.cli import reused_peer_reports

    check = [1.0, 2.0, 3.0]
    timing = {"median_s": 1.0, "min_s": 1.0, "max_s": 1.0}
    earlier = {
        "created": "earlier",
        "libraries": {"mygrad": {"status": "ok", "version": "2.5.0"}},
        "rows": [
            {
                "name": "chain_1",
                "results": {"mygrad": {"status": "INVALID", "check": check, **timing}},
            }
        ],
    }
    path = tmp_path / "earlier.json"
    path.write_text(json.dumps(earlier))
    reports = reused_peer_reports(path, ["chain_1"])
    assert set(reports) == {"mygrad"} and "earlier" in reports["mygrad"]["facts"]["reused_from"]
    reference = {"status": "ok", "results": {"chain_1": {"status": "ok", "check": check, **timing}}}
    (row,) = timed_rows({REFERENCE: reference, **reports}, ["chain_1"])
    assert row["results"]["mygrad"]["status"] == "ok"
    reference["results"]["chain_1"]["check"] = [1.0, 2.0, 4.0]
    (row,) = timed_rows(
        {REFERENCE: reference, **reused_peer_reports(path, ["chain_1"])}, ["chain_1"]
    )
    assert row["results"]["mygrad"]["status"] == "INVALID"


def test_figures_reused_twice_name_the_run_that_measured_them(tmp_path: Path) -> None:
    from bench.cli import reused_peer_reports

    first = {
        "created": "first",
        "libraries": {"mygrad": {"status": "ok", "version": "2.5.0"}},
        "rows": [{"name": "chain_1", "results": {"mygrad": {"status": "ok", "check": [1.0]}}}],
    }
    path = tmp_path / "first.json"
    path.write_text(json.dumps(first))
    second = dict(first, created="second")
    second["libraries"] = {
        "mygrad": {"status": "ok", **reused_peer_reports(path, ["chain_1"])["mygrad"]["facts"]}
    }
    again = tmp_path / "second.json"
    again.write_text(json.dumps(second))
    facts = reused_peer_reports(again, ["chain_1"])["mygrad"]["facts"]
    assert facts["reused_from"] == "first.json (first)"


def _round(times: list[float], check: list[float]) -> dict:
    return {
        "status": "ok",
        "check": check,
        "median_s": sorted(times)[len(times) // 2],
        "cpu_median_s": 0.0,
        "min_s": min(times),
        "max_s": max(times),
        "repetitions": len(times),
        "times_s": times,
        "cpu_times_s": [0.0] * len(times),
    }


def test_rounds_pool_every_repetition_and_fail_on_a_failed_round() -> None:
    first, second = _round([3.0, 1.0, 2.0], [1.5]), _round([10.0, 4.0, 5.0], [1.5])
    pooled = pool_rounds(first, second)
    assert pooled["times_s"] == [3.0, 1.0, 2.0, 10.0, 4.0, 5.0]
    assert (pooled["median_s"], pooled["min_s"], pooled["max_s"]) == (3.5, 1.0, 10.0)
    assert pooled["repetitions"] == 6 and pooled["rounds"] == 2
    assert pool_rounds(pooled, _round([1.0], [1.5]))["rounds"] == 3
    failed = {"status": "failed", "error": "timed out"}
    assert pool_rounds(first, failed) is failed and pool_rounds(failed, second) is failed
    differ = pool_rounds(first, _round([1.0], [2.5]))
    assert differ["status"] == "failed" and "differ between rounds" in differ["error"]
