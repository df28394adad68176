"""The ``ddp`` row: data-parallel training across processes (issue 21).

One Adam step (lr 1e-3) of the 784-1024-1024-10 ReLU MLP on a global batch of 256, each
process with one BLAS thread, timed four ways:

- glassgrad, one process, the whole batch (no DDP);
- glassgrad ``DistributedDataParallel`` on 2 ranks (``mpiexec -n 2``), 128 rows each;
- PyTorch, one process, the whole batch;
- PyTorch ``DistributedDataParallel`` with the gloo backend on 2 ranks, launched the same way.

Targets: glassgrad's throughput on 2 ranks >= 1.8x its one process (90% scaling), and its
2-rank step <= 1.1x PyTorch's. The four take turns for several rounds (a shared machine's
load moves them alike); every timed block of steps counts. Before any time is compared, the
global losses of the first steps must agree across the four.

Run alone: ``python -m bench.ddp --mode full`` (prints the JSON of :func:`measure`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.libraries import THREAD_VARIABLES, child_env
from bench.workloads import _WIDE_SIZES, assign, mlp_wide_inputs, nn_functional

RANKS = 2
CHECK_STEPS = 3
# (blocks, steps per block) after CHECK_STEPS untimed steps
TIMING = {"full": (5, 8), "quick": (2, 2)}
ROUNDS = {"full": 3, "quick": 1}
CONFIGS = (("glassgrad", 1), ("glassgrad", RANKS), ("torch", 1), ("torch", RANKS))
TIMEOUT_S = {"full": 900, "quick": 180}


def _worker(library: str, ranks: int, mode: str, out: Path) -> None:
    """One process of one configuration; rank 0 writes the result to ``out``."""
    if library == "torch":
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP

        torch.set_num_threads(1)
        if ranks > 1:
            dist.init_process_group(
                "gloo", rank=int(os.environ["PMI_RANK"]), world_size=int(os.environ["PMI_SIZE"])
            )
    else:
        import glassgrad as torch
        import glassgrad.distributed as dist
        from glassgrad.nn.parallel import DistributedDataParallel as DDP

        if ranks > 1:
            dist.init_process_group("mpi")
    rank = dist.get_rank() if ranks > 1 else 0
    size = _WIDE_SIZES[mode]
    inputs = mlp_wide_inputs(size)
    widths = inputs["widths"]
    nn, functional = torch.nn, nn_functional(torch)
    model = nn.Sequential(
        nn.Linear(widths[0], widths[1]),
        nn.ReLU(),
        nn.Linear(widths[1], widths[2]),
        nn.ReLU(),
        nn.Linear(widths[2], widths[3]),
    )
    assign(torch, list(model.parameters()), inputs["weights"])
    if ranks > 1:
        model = DDP(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    share = size["batch"] // ranks
    rows = slice(rank * share, (rank + 1) * share)
    x = torch.from_numpy(np.ascontiguousarray(inputs["x"][rows]))
    y = torch.from_numpy(np.ascontiguousarray(inputs["y"][rows]))

    def step() -> Any:
        optimizer.zero_grad()
        loss = functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    def global_loss(loss: Any) -> float:
        value = loss.detach().clone()
        if ranks > 1:
            dist.all_reduce(value)  # the shards are equal: the mean of their means
        return value.item() / ranks

    check = [global_loss(step()) for _ in range(CHECK_STEPS)]
    blocks, steps = TIMING[mode]
    times, cpu_times, comm_times = [], [], []
    for _ in range(blocks):
        if ranks > 1:
            dist.barrier()
        begin, cpu_begin = time.perf_counter(), time.process_time()
        for _ in range(steps):
            step()
        if ranks > 1:
            dist.barrier()
        times.append((time.perf_counter() - begin) / steps)
        cpu_times.append((time.process_time() - cpu_begin) / steps)
    if ranks > 1:
        # The communication alone: one all-reduce of as many floats as the model has.
        flat = torch.zeros(sum(p.numel() for p in model.parameters()))
        for _ in range(blocks):
            dist.barrier()
            begin = time.perf_counter()
            dist.all_reduce(flat)
            comm_times.append(time.perf_counter() - begin)
    if rank == 0:
        result = {"status": "ok", "times_s": times, "cpu_times_s": cpu_times, "check": check}
        out.write_text(json.dumps({**result, "allreduce_times_s": comm_times}))
    if ranks > 1:
        dist.barrier()  # nobody tears down while another rank still communicates
        dist.destroy_process_group()
    if library == "torch":
        # Measured and written: skip the interpreter's teardown, where PyTorch's gloo threads
        # now and then abort the process ("terminate called without an active exception").
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _mpiexec() -> str | None:
    beside = Path(sys.executable).parent / "mpiexec"
    return str(beside) if beside.exists() else shutil.which("mpiexec")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(library: str, ranks: int, mode: str, scratch: Path) -> dict[str, Any]:
    out = scratch / f"{library}-{ranks}.json"
    out.unlink(missing_ok=True)
    command = [sys.executable, "-m", "bench.ddp", "worker", library, str(ranks), mode, str(out)]
    env = child_env()
    for variable in THREAD_VARIABLES:
        env[variable] = "1"
    if ranks > 1:
        mpiexec = _mpiexec()
        if mpiexec is None:
            return {"status": "unavailable", "error": "mpiexec not found (glassgrad[distributed])"}
        command = [mpiexec, "-n", str(ranks), *command]
        env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()))
    try:
        completed = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=TIMEOUT_S[mode]
        )
    except subprocess.TimeoutExpired:
        return {"status": "failed", "error": f"timed out after {TIMEOUT_S[mode]} s"}
    if completed.returncode != 0 or not out.exists():
        tail = (completed.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": "failed", "error": f"exit {completed.returncode}: {tail}"}
    return json.loads(out.read_text())


def measure(mode: str) -> dict[str, dict[str, Any]]:
    """The four configurations, keyed ``"glassgrad-1"``, ``"glassgrad-2"``, ``"torch-1"``,
    ``"torch-2"``: each ``{"status", "median_s", "min_s", "max_s", "times_s", "check",
    "cpu_median_s"}`` (rank 0's CPU time per step) and, on 2 ranks, ``"allreduce_median_s"``:
    one all-reduce of as many float32 values as the model has parameters, alone."""
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ddp-") as scratch:
        for _ in range(ROUNDS[mode]):
            for library, ranks in CONFIGS:
                key = f"{library}-{ranks}"
                print(f"[ddp] {key}", file=sys.stderr, flush=True)
                result = _run(library, ranks, mode, Path(scratch))
                earlier = results.get(key)
                if earlier is None or earlier["status"] != "ok":
                    results[key] = result
                elif result["status"] != "ok":
                    results[key] = result
                else:
                    for series in ("times_s", "cpu_times_s", "allreduce_times_s"):
                        earlier[series] += result[series]
    for result in results.values():
        if result["status"] == "ok":
            times = result["times_s"]
            result.update(
                median_s=statistics.median(times),
                min_s=min(times),
                max_s=max(times),
                repetitions=len(times),
                cpu_median_s=statistics.median(result["cpu_times_s"]),
            )
            if result["allreduce_times_s"]:
                result["allreduce_median_s"] = statistics.median(result["allreduce_times_s"])
    return results


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "worker":
        library, ranks, mode, out = argv[1:]
        _worker(library, int(ranks), mode, Path(out))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["full", "quick"], default="quick")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.mode), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
