"""``python -m bench``: run every workload in glassgrad, PyTorch and the peers; print the table.

Usage
-----
    .venv/bin/python -m bench                 # full mode: measurements, writes docs/benchmarks.md
    .venv/bin/python -m bench --quick         # tiny sizes, seconds; asserts nothing about time
    .venv/bin/python -m bench --only lstm,import --json out/bench.json

Each library runs in its own fresh worker process (:mod:`bench.worker`), one after another;
in full mode glassgrad and PyTorch take turns per workload, for several rounds (``--rounds``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import ddp, explorer, probes
from bench.document import render_document
from bench.libraries import (
    CANDIDATE,
    FLOOR,
    PEERS,
    REFERENCE,
    REPO_ROOT,
    child_env,
    supported_workloads,
)
from bench.machine import load_average, machine_facts
from bench.report import (
    checkpoint_row,
    ddp_row,
    import_row,
    memory_row,
    render_text,
    sweep_row,
    timed_rows,
    viz_row,
)
from bench.workloads import WORKLOADS

SWEEPS = {"op_sweep_1": 1, "op_sweep_1000": 1000}
PROBES = (*SWEEPS, "import", "memory", "checkpoint", "ddp", "viz")
ALL_NAMES = (*WORKLOADS, *PROBES)
DOCS_PATH = REPO_ROOT / "docs" / "benchmarks.md"
WORKER_TIMEOUT_S = {"full": 3600, "quick": 300}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="glassgrad against PyTorch (and peers), measured in the same run.",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a few seconds")
    parser.add_argument(
        "--only",
        default="",
        help=f"comma-separated rows to run (default: all): {', '.join(ALL_NAMES)}",
    )
    parser.add_argument("--json", type=Path, help="write the results as JSON to this path")
    parser.add_argument(
        "--peers",
        default="all",
        help="comma-separated peers to run, 'all' or 'none' (default: all that are installed)",
    )
    parser.add_argument(
        "--candidate",
        default=CANDIDATE,
        help="module to benchmark in glassgrad's place (must follow PyTorch's API)",
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        help="write the Markdown report here (a full run of every row writes docs/benchmarks.md)",
    )
    parser.add_argument(
        "--src",
        type=Path,
        help="import glassgrad from this directory instead of this checkout's src/",
    )
    parser.add_argument(
        "--reuse-peers",
        type=Path,
        metavar="JSON",
        help="take the peers' figures from an earlier run's JSON instead of running them again "
        "(they are checked against this run's PyTorch outputs all the same)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="full mode: times glassgrad and PyTorch take turns on each workload; every "
        "repetition of every round counts (default 3: a slow minute on a shared machine then "
        "moves both sides of a ratio)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        help="cap every library's threads (OMP/OpenBLAS/MKL); default: each library's own default."
        " On a machine busy with other work, 1 thread gives steadier figures",
    )
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds: at least 1")
    names = [n for n in args.only.split(",") if n] or list(ALL_NAMES)
    unknown = [n for n in names if n not in ALL_NAMES]
    if unknown:
        parser.error(f"--only: unknown {', '.join(unknown)}; choose from {', '.join(ALL_NAMES)}")
    args.names = names
    peers = {"all": list(PEERS), "none": []}.get(args.peers, args.peers.split(","))
    bad = [p for p in peers if p not in PEERS]
    if bad:
        parser.error(f"--peers: unknown {', '.join(bad)}; choose from {', '.join(PEERS)}")
    args.peer_list = peers
    return args


def run_worker(
    library: str, workloads: list[str], mode: str, candidate: str, scratch: Path
) -> dict[str, Any]:
    """Run one library's worker process and return its report (or why it produced none)."""
    out = scratch / f"{library}.json"
    command = [
        sys.executable,
        "-m",
        "bench.worker",
        "--library",
        library,
        "--mode",
        mode,
        "--workloads",
        ",".join(workloads),
        "--out",
        str(out),
        "--candidate",
        candidate,
    ]
    env = child_env(library)
    print(f"[{library}] running {len(workloads)} workload(s)", file=sys.stderr, flush=True)
    try:
        completed = subprocess.run(
            command, env=env, timeout=WORKER_TIMEOUT_S[mode], stdout=subprocess.PIPE, text=True
        )
    except subprocess.TimeoutExpired:
        return {"status": "failed", "error": f"worker timed out after {WORKER_TIMEOUT_S[mode]} s"}
    if not out.exists():
        error = f"worker exited with {completed.returncode} and wrote no report"
        return {"status": "failed", "error": error}
    return json.loads(out.read_text())


def source_revision() -> str:
    """``git describe`` of this checkout, with "+dirty" when src/ has uncommitted changes."""
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--", "src"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head or "unknown") + ("+dirty" if dirty else "")


def merge_report(
    workers: dict[str, dict[str, Any]], library: str, report: dict[str, Any], names: list[str]
) -> None:
    """Add one worker's report (for the workloads ``names``) to the library's combined report.

    A worker that could not run (library not installed, crash) marks only its own workloads.
    """
    if report.get("status") != "ok":
        failure = {"status": report["status"], "error": report.get("error", "")}
        report = {**report, "results": {name: dict(failure) for name in names}}
    merged = workers.setdefault(library, {**report, "results": {}})
    if merged.get("status") != "ok" and report.get("status") == "ok":
        merged.update(status="ok", facts=report["facts"], error=None)
    for name, result in report["results"].items():
        earlier = merged["results"].get(name)
        merged["results"][name] = result if earlier is None else pool_rounds(earlier, result)


def pool_rounds(earlier: dict[str, Any], later: dict[str, Any]) -> dict[str, Any]:
    """One result from two rounds of a workload: every repetition counts; a round that failed
    (or gave other outputs) makes the result fail."""
    if earlier.get("status") != "ok":
        return earlier
    if later.get("status") != "ok":
        return later
    if later.get("check") != earlier.get("check"):
        return {
            "status": "failed",
            "error": f"outputs differ between rounds: {earlier.get('check')} then "
            f"{later.get('check')}",
        }
    times = earlier["times_s"] + later["times_s"]
    cpu_times = earlier["cpu_times_s"] + later["cpu_times_s"]
    return {
        **earlier,
        "median_s": statistics.median(times),
        "cpu_median_s": statistics.median(cpu_times),
        "min_s": min(times),
        "max_s": max(times),
        "repetitions": len(times),
        "times_s": times,
        "cpu_times_s": cpu_times,
        "rounds": earlier.get("rounds", 1) + 1,
    }


def reused_peer_reports(path: Path, names: list[str]) -> dict[str, dict[str, Any]]:
    """Rebuild the peers' worker reports from an earlier run's JSON (for ``--reuse-peers``).

    A result marked INVALID then is reset to "ok" so that it is judged again against this run.
    """
    earlier = json.loads(path.read_text())
    reports: dict[str, dict[str, Any]] = {}
    for peer in PEERS:
        facts = earlier["libraries"].get(peer)
        if facts is None or facts.get("status") != "ok":
            continue  # not run then, or its worker failed: run it again
        results = {}
        for row in earlier["rows"]:
            result = row["results"].get(peer)
            if row["name"] in names and result is not None:
                result = dict(result)
                if result.get("status") == "INVALID":
                    result.update(status="ok", error=None)
                results[row["name"]] = result
        status, error = facts.get("status"), facts.get("error")
        facts = {k: v for k, v in facts.items() if k not in ("status", "error")}
        # Figures reused again keep naming the run that measured them.
        facts.setdefault("reused_from", f"{path.name} ({earlier.get('created')})")
        reports[peer] = {"status": status, "error": error, "facts": facts, "results": results}
    return reports


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.src is not None:
        os.environ["BENCH_SRC"] = str(args.src.resolve())
    if args.threads is not None:
        os.environ["BENCH_THREADS"] = str(args.threads)
    mode = "quick" if args.quick else "full"
    started = time.perf_counter()
    timed = [n for n in args.names if n in WORKLOADS]

    libraries = [CANDIDATE, REFERENCE]
    if "mlp_wide_adam" in timed:
        libraries.append(FLOOR)
    libraries += args.peer_list

    load_at_start = load_average()
    workers: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
        # Full mode: glassgrad and PyTorch take turns, one fresh process per workload, for
        # several rounds, so that a change in the machine's load between them shifts both sides
        # of a ratio alike. The NumPy floor runs right after its workload, under the same
        # conditions.
        paired = [CANDIDATE, REFERENCE] if mode == "full" else []
        for _ in range(args.rounds if paired else 0):
            for name in timed:
                for library in paired + ([FLOOR] if name in supported_workloads(FLOOR) else []):
                    report = run_worker(library, [name], mode, args.candidate, Path(scratch))
                    merge_report(workers, library, report, [name])
        paired += [FLOOR] if paired else []
        reused = reused_peer_reports(args.reuse_peers, timed) if args.reuse_peers else {}
        for library in libraries:
            wanted = [n for n in timed if n in supported_workloads(library)]
            if library in reused:
                workers[library] = reused[library]
            elif wanted and library not in paired:
                workers[library] = run_worker(library, wanted, mode, args.candidate, Path(scratch))

    rows = timed_rows(workers, timed)
    for name, elements in SWEEPS.items():
        if name in args.names:
            print(f"[probe] op sweep, {elements} element(s)", file=sys.stderr, flush=True)
            rows.append(sweep_row(name, probes.sweep(args.candidate, mode, elements)))
    if "import" in args.names:
        print("[probe] import cost", file=sys.stderr, flush=True)
        samples = 5 if mode == "full" else 1
        rows.append(
            import_row(
                {
                    CANDIDATE: probes.import_cost(args.candidate, samples),
                    REFERENCE: probes.import_cost(REFERENCE, samples),
                }
            )
        )
    if "memory" in args.names:
        print("[probe] wide-MLP memory", file=sys.stderr, flush=True)
        rows.append(memory_row(probes.memory(args.candidate, mode)))
    if "checkpoint" in args.names:
        print("[probe] deep-MLP memory with activation checkpointing", file=sys.stderr, flush=True)
        rows.append(checkpoint_row(probes.checkpoint(args.candidate, mode)))
    if "ddp" in args.names:
        print("[probe] data-parallel step (mpiexec)", file=sys.stderr, flush=True)
        rows.append(ddp_row(ddp.measure(mode)))
    if "viz" in args.names:
        print(
            "[probe] graph explorer on a long chain (headless Chromium)",
            file=sys.stderr,
            flush=True,
        )
        rows.append(viz_row(explorer.measure(mode)))

    result = {
        "schema": 1,
        "mode": mode,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "candidate_module": args.candidate,
        "candidate_src": os.environ.get("BENCH_SRC", str(REPO_ROOT / "src")),
        "revision": source_revision(),
        "threads_cap": args.threads,
        "machine": {**machine_facts(), "load_average_at_start": load_at_start},
        "libraries": {
            name: {
                "status": report.get("status"),
                "error": report.get("error"),
                **report.get("facts", {}),
            }
            for name, report in workers.items()
        },
        "rows": rows,
    }
    shown = [lib for lib in libraries if lib != FLOOR]
    print(render_text(rows, shown))
    print(f"\n({mode} mode, {result['duration_s']} s)")
    busiest = max([*load_at_start[:1], *result["machine"]["load_average"][:1]], default=0.0)
    if busiest > (result["machine"]["usable_cores"] or 1):
        print(
            f"warning: load average {busiest} exceeds the {result['machine']['usable_cores']} "
            "usable cores: other work on this machine makes these times noisy",
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
    markdown_path = args.markdown
    if markdown_path is None and mode == "full" and len(args.names) == len(ALL_NAMES):
        markdown_path = DOCS_PATH
    if markdown_path is not None:
        markdown_path.parent.mkdir(parents=True, exist_ok=True)
        markdown_path.write_text(render_document(result, shown, existing=markdown_path))
        print(f"wrote {markdown_path}", file=sys.stderr)
    return 0
