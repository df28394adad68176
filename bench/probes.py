"""Measurements that need a fresh process: import cost, peak memory of the wide-MLP step, and
peak memory of a deep MLP's forward + backward with and without activation checkpointing.

``import_cost`` starts a bare interpreter per sample, so nothing is cached in the process.
``memory`` runs ``python -m bench.probes memory --module glassgrad --mode full`` in a fresh process
and reads the JSON it prints: the tracemalloc peak of one Adam step of the wide MLP, next to the
lower bound ``parameters + gradients + Adam state (2 per parameter) + activations saved for
backward`` (the two hidden ReLU outputs and the logits; the input batch is the caller's data,
allocated before tracing starts, and is counted in neither).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.libraries import child_env

# VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over from the forking parent.
_IMPORT_SNIPPET = """
import sys, time
begin = time.perf_counter()
if sys.argv[1]:
    __import__(sys.argv[1])
seconds = time.perf_counter() - begin
with open("/proc/self/status") as status:
    peak_kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(seconds, peak_kib * 1024)
"""


def _import_env() -> dict[str, str]:
    # Measure what a user sees: bytecode is cached after the first import (a caller's
    # PYTHONDONTWRITEBYTECODE would make every run recompile every module).
    env = child_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _import_sample(module: str, python: str) -> tuple[float, int]:
    completed = subprocess.run(
        [python, "-c", _IMPORT_SNIPPET, module],
        capture_output=True,
        text=True,
        timeout=120,
        env=_import_env(),
    )
    if completed.returncode != 0:
        tail = completed.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"import {module} failed in a fresh process: {tail[0]}")
    seconds, peak = completed.stdout.split()
    return float(seconds), int(peak)


def import_cost(module: str, samples: int, python: str = sys.executable) -> dict[str, Any]:
    """Wall time of ``import module`` and the process's peak RSS, in fresh interpreters.

    Returns ``status`` ("ok" or "unavailable"), ``median_s``/``min_s``/``max_s`` of the import
    time, ``peak_rss_bytes`` (median over samples) and ``bare_rss_bytes``, the peak RSS of the
    same interpreter importing nothing.

    Example
    -------
    >>> import_cost("json", samples=1)["status"]
    'ok'
    """
    try:
        _import_sample(module, python)  # warm-up: writes the bytecode caches
        runs = [_import_sample(module, python) for _ in range(samples)]
        bare = _import_sample("", python)[1]
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        return {"status": "unavailable", "error": str(error)}
    times = [seconds for seconds, _ in runs]
    return {
        "status": "ok",
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "repetitions": samples,
        "peak_rss_bytes": int(statistics.median(peak for _, peak in runs)),
        "bare_rss_bytes": bare,
    }


def wide_mlp_memory(module_name: str, mode: str) -> dict[str, Any]:
    """Peak traced memory of one Adam step of the wide MLP, and the lower bound (in-process).

    Uses the same workload function as the timed row (``bench.workloads.mlp_wide_adam``).
    """
    import gc
    import importlib
    import tracemalloc

    from bench.workloads import WORKLOADS

    workload = WORKLOADS["mlp_wide_adam"]
    size = workload.sizes[mode]
    library = importlib.import_module(module_name)
    inputs = workload.make_inputs(size)
    inputs.pop("v")

    # A throwaway run first, so that lazy imports and caches of the library are not counted.
    throwaway = workload.torch_api(library, inputs, size)
    throwaway.step()
    throwaway.step()
    del throwaway
    gc.collect()

    tracemalloc.start()
    prepared = workload.torch_api(library, inputs, size)
    prepared.step()
    prepared.step()
    before_step, _ = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    prepared.step()
    after_step, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    itemsize = 4
    parameter_count = sum(w.size for w in inputs["weights"])
    batch, hidden = size["batch"], size["hidden"]
    saved_activations = (2 * batch * hidden + batch * 10) * itemsize
    bound = {
        "parameters": parameter_count * itemsize,
        "gradients": parameter_count * itemsize,
        "adam_state": 2 * parameter_count * itemsize,
        "saved_activations": saved_activations,
    }
    bound_bytes = sum(bound.values())
    return {
        "status": "ok",
        "peak_bytes": peak,
        "before_step_bytes": before_step,
        "after_step_bytes": after_step,
        "bound_bytes": bound_bytes,
        "bound_parts": bound,
        "peak_over_bound": peak / bound_bytes,
    }


CHECKPOINT_SIZES = {
    "full": {"layers": 32, "width": 1024, "batch": 512, "segments": 4},
    "quick": {"layers": 8, "width": 64, "batch": 32, "segments": 2},
}


def checkpoint_memory(module_name: str, mode: str) -> dict[str, Any]:
    """Peak traced memory of forward + backward of a deep MLP (``layers`` x Linear+ReLU),
    plainly and through ``utils.checkpoint.checkpoint_sequential`` (``segments`` segments,
    ``use_reentrant=False``), in-process. Gradients exist before tracing starts (one throwaway
    run of each form), so the peaks above the traced baseline are the saved activations and
    the transient buffers of backward. The gradients of the two forms must agree.
    """
    import gc
    import importlib
    import tracemalloc

    size = CHECKPOINT_SIZES[mode]
    library = importlib.import_module(module_name)
    checkpoint_sequential = importlib.import_module(
        f"{module_name}.utils.checkpoint"
    ).checkpoint_sequential
    nn = library.nn
    library.manual_seed(0)
    layers: list[Any] = []
    for _ in range(size["layers"]):
        layers += [nn.Linear(size["width"], size["width"]), nn.ReLU()]
    model = nn.Sequential(*layers)
    x = library.randn(size["batch"], size["width"])

    def step(checkpointed: bool) -> None:
        if checkpointed:
            out = checkpoint_sequential(model, size["segments"], x, use_reentrant=False)
        else:
            out = model(x)
        out.sum().backward()

    def measure(checkpointed: bool) -> tuple[int, list[Any]]:
        for p in model.parameters():
            p.grad.zero_()
        gc.collect()
        tracemalloc.start()
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        step(checkpointed)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return peak - before, [p.grad.clone() for p in model.parameters()]

    step(False)  # throwaway runs: lazy imports, caches, and the gradients themselves
    step(True)
    plain, plain_grads = measure(False)
    checkpointed, checkpoint_grads = measure(True)
    agree = all(
        library.allclose(a, b, rtol=1e-4, atol=1e-5)
        for a, b in zip(plain_grads, checkpoint_grads, strict=True)
    )
    if not agree:
        return {"status": "INVALID", "error": "gradients differ with checkpointing"}
    return {
        "status": "ok",
        **size,
        "plain_peak_bytes": plain,
        "checkpoint_peak_bytes": checkpointed,
        "checkpoint_over_plain": checkpointed / plain,
    }


def memory(module: str, mode: str, python: str = sys.executable) -> dict[str, Any]:
    """Run :func:`wide_mlp_memory` in a fresh process; report errors instead of raising."""
    return _probe_process("memory", module, mode, python)


def _probe_process(probe: str, module: str, mode: str, python: str) -> dict[str, Any]:
    completed = subprocess.run(
        [python, "-m", "bench.probes", probe, "--module", module, "--mode", mode],
        capture_output=True,
        text=True,
        timeout=600,
        env=child_env(),
    )
    lines = completed.stdout.strip().splitlines()
    if completed.returncode != 0 or not lines:
        tail = (completed.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": "unavailable", "error": tail}
    return json.loads(lines[-1])


def checkpoint(module: str, mode: str, python: str = sys.executable) -> dict[str, Any]:
    """Run :func:`checkpoint_memory` in a fresh process; report errors instead of raising."""
    return _probe_process("checkpoint", module, mode, python)


def sweep(module: str, mode: str, elements: int, python: str = sys.executable) -> dict[str, Any]:
    """Run the op sweep (:mod:`bench.sweep`) at one size in a fresh process; its report, or why
    there is none."""
    with tempfile.TemporaryDirectory(prefix="sweep-") as scratch:
        out = Path(scratch) / "sweep.json"
        command = [python, "-m", "bench.sweep", "--mode", mode, "--candidate", module]
        command += ["--sizes", str(elements), "--out", str(out)]
        try:
            completed = subprocess.run(
                command, capture_output=True, text=True, timeout=3600, env=child_env()
            )
        except subprocess.TimeoutExpired:
            return {"status": "failed", "error": "the sweep timed out after 3600 s"}
        if not out.exists():
            tail = (completed.stderr.strip().splitlines() or ["no output"])[-1]
            return {"status": "unavailable", "error": tail}
        report = json.loads(out.read_text())
    if report.get("status") != "ok":
        return report
    return {"status": "ok", "mode": report["mode"], **report["sizes"][str(elements)]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fresh-process probes of the benchmark.")
    parser.add_argument("probe", choices=["memory", "checkpoint"])
    parser.add_argument("--module", default="glassgrad")
    parser.add_argument("--mode", choices=["full", "quick"], default="quick")
    args = parser.parse_args(argv)
    probe = wide_mlp_memory if args.probe == "memory" else checkpoint_memory
    print(json.dumps(probe(args.module, args.mode)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
