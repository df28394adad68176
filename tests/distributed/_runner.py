"""Runs inside every rank of ``mpiexec -n N python -m tests.distributed._runner MODULE OUT``:
imports ``tests.distributed.MODULE``, runs each of its ``CHECKS`` in order on every rank,
and writes ``OUT/rank<r>.json``: check name -> "ok" or that rank's traceback.

Checks run in one job, so each costs milliseconds rather than an interpreter start; a check
that fails on one rank is still reported by the others, as they raise or finish.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback
import warnings

import glassgrad.distributed as dist


def main() -> None:
    module_name, out_dir = sys.argv[1], sys.argv[2]
    checks = importlib.import_module(f"tests.distributed.{module_name}").CHECKS
    dist.init_process_group(backend="mpi")
    rank = dist.get_rank()
    results = {}
    trace = os.environ.get("GLASSGRAD_TRACE_CHECKS")
    for name, check in checks.items():
        if trace:
            print(rank, name, flush=True)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # an unexpected warning fails the check
                check()
            results[name] = "ok"
        except BaseException:  # pytest.fail's exception too, which is no Exception
            results[name] = traceback.format_exc()
        if not dist.is_initialized():  # a check that tears the group down leaves it up again
            dist.init_process_group(backend="mpi")
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(results, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
