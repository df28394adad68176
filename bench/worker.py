"""Run the selected workloads for ONE library in this process and write the results as JSON.

Each library runs in its own fresh process, one after another, so that no library's thread pool
or allocator disturbs another's, and each uses its default thread counts. The parent
(:mod:`bench.cli`) starts one worker per library:

    python -m bench.worker --library torch --mode quick --workloads chain_1,lstm --out r.json

For every workload the worker builds the NumPy inputs, prepares the workload, runs
``check_units`` units from the initial state and records their summaries (compared with
PyTorch's by the parent), then warms up and times it. Any exception is recorded with its type and
message instead of stopping the run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
import time
import traceback
from typing import Any

from bench.libraries import CANDIDATE, REFERENCE, NotInstalled, blas_threads, load
from bench.timing import PLANS, measure
from bench.workloads import WORKLOADS

TIME_LIMIT_S = {"full": 1200, "quick": 60}


class WorkloadTimeout(Exception):
    """A workload ran past its time limit in this worker."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise WorkloadTimeout("ran past the worker's time limit")


def describe_error(error: BaseException) -> str:
    """``Type: message`` on one line, short enough for a table cell's tooltip."""
    text = f"{type(error).__name__}: {error}".replace("\n", " ")
    return text if len(text) <= 300 else text[:297] + "..."


def run_workload(library: Any, name: str, mode: str, time_limit_s: int) -> dict[str, Any]:
    """Check and time one workload; never raises for a failure of the library."""
    workload = WORKLOADS[name]
    if name not in library.implementations:
        return {"status": "n/a", "error": f"{library.name} has no implementation of {name}"}
    size = workload.sizes[mode]
    phase = "setup"
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(time_limit_s)
    try:
        inputs = workload.make_inputs(size)
        prepared = library.implementations[name](library.module, inputs, size)
        phase = "check"
        begin = time.perf_counter()
        check: list[float] = []
        for _ in range(workload.check_units):
            prepared.step()
            check.extend(float(value) for value in prepared.summary())
        first_units_s = time.perf_counter() - begin
        phase = "timing"
        plan = PLANS[mode]
        if library.name not in (CANDIDATE, REFERENCE):
            # Peers are context, not a target: one repetition suffices for multi-minute units.
            plan = dataclasses.replace(plan, min_repetitions=1)
        timing = measure(prepared.step, plan, first_units_s / workload.check_units)
    except WorkloadTimeout:
        return {"status": "failed", "error": f"timed out after {time_limit_s} s ({phase})"}
    except Exception as error:
        status = "unavailable" if phase in ("setup", "check") else "failed"
        return {
            "status": status,
            "phase": phase,
            "error": describe_error(error),
            "traceback": traceback.format_exc(limit=-4),
        }
    finally:
        signal.alarm(0)
    return {"status": "ok", "check": check, "check_units_s": first_units_s, **timing}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", required=True)
    parser.add_argument("--mode", choices=sorted(PLANS), default="quick")
    parser.add_argument("--workloads", required=True, help="comma-separated workload names")
    parser.add_argument("--out", required=True, help="path of the JSON file to write")
    parser.add_argument("--candidate", default=CANDIDATE, help="module standing for glassgrad")
    args = parser.parse_args(argv)

    report: dict[str, Any] = {"library": args.library, "results": {}}
    try:
        library = load(args.library, args.candidate)
    except NotInstalled as error:
        report.update(status="not installed", error=str(error))
        print(f"  [{args.library}] not installed: {error}", file=sys.stderr)
    except Exception as error:
        report.update(status="unavailable", error=describe_error(error))
        print(f"  [{args.library}] unavailable: {describe_error(error)}", file=sys.stderr)
    else:
        report.update(status="ok", facts=library.facts)
        for name in args.workloads.split(","):
            print(f"  [{args.library}] {name} ...", file=sys.stderr, flush=True)
            result = run_workload(library, name, args.mode, TIME_LIMIT_S[args.mode])
            report["results"][name] = result
            if result["status"] == "ok":
                note = f"{result['median_s'] * 1e3:.3f} ms"
            else:
                note = result.get("error", "")
            print(f"  [{args.library}] {name}: {result['status']} {note}", file=sys.stderr)
        report["facts"]["blas_pools"] = blas_threads()
    with open(args.out, "w") as handle:
        json.dump(report, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
