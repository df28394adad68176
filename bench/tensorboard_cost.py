"""What logging a scalar every step costs the demo's training step.

Usage
-----
    .venv/bin/python -m bench.tensorboard_cost            # ~1 min: 40 rounds of 15 steps each
    .venv/bin/python -m bench.tensorboard_cost --quick    # seconds; asserts nothing about time

The demo's CNN trains on scikit-learn's digits (batch 32, Adam, one-cycle schedule) in three
ways, taking turns within each round so that a busy machine slows all three alike:

* ``plain``: the step alone (forward, cross-entropy, backward, Adam, scheduler, ``loss.item()``);
* ``glassgrad``: the step and ``SummaryWriter.add_scalar("loss/train_step", loss, step)``;
* ``tensorboard``: the step and the same ``Summary`` handed to TensorBoard's own
  ``EventFileWriter`` (what ``torch.utils.tensorboard`` uses: a queue and a writer thread).

It prints the median time per step of each and the overhead of logging against ``plain``
(the median over rounds of the ratio within a round), then the cost of each logger alone per
call, as a share of a plain step: on a busy machine the in-loop figures move by several percent
from run to run, the per-call ones do not.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import glassgrad
from glassgrad import demo, optim
from glassgrad.nn import functional as F

TAG = "loss/train_step"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.tensorboard_cost", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="two rounds of three steps")
    parser.add_argument(
        "--rounds", type=int, default=40, help="rounds (each config once per round)"
    )
    parser.add_argument("--steps", type=int, default=15, help="steps per config per round")
    parser.add_argument(
        "--wall",
        action="store_true",
        help="time by the wall clock (default: the process's CPU time, all threads included, "
        "which other processes on a busy machine disturb less)",
    )
    return parser.parse_args(argv)


def _trainer(seed: int = 0) -> Callable[[], float]:
    """A closure running one demo training step on the next batch; returns the loss."""
    split = demo.load_digit_split(seed)
    glassgrad.manual_seed(seed)
    model = demo.build_model()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    scheduler = optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.01, total_steps=100_000)
    images = glassgrad.from_numpy(split.train_images)
    labels = glassgrad.from_numpy(split.train_labels)
    batches = [(images[k : k + 32], labels[k : k + 32]) for k in range(0, len(labels) - 31, 32)]
    position = [0]

    def step() -> float:
        x, y = batches[position[0] % len(batches)]
        position[0] += 1
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        return loss.item()

    return step


def measure(
    rounds: int,
    steps: int,
    folder: Path,
    clock: Callable[[], float] = time.process_time,
    calls: int = 5000,
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Seconds per step of each config by ``clock``, one entry per round; and seconds per call
    of each logger alone, over ``calls`` calls (TensorBoard's writer flushed at the end, so
    its thread's work is counted)."""
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    from glassgrad.utils.tensorboard import SummaryWriter
    from glassgrad.utils.tensorboard.summary import scalar

    writer = SummaryWriter(folder / "glassgrad")
    threaded = EventFileWriter(str(folder / "tensorboard"))
    counter = [0]

    def log_glassgrad(loss: float) -> None:
        writer.add_scalar(TAG, loss, counter[0])

    def log_tensorboard(loss: float) -> None:
        event = Event(wall_time=time.time(), step=counter[0], summary=scalar(TAG, loss))
        threaded.add_event(event)

    configs: dict[str, Callable[[float], None] | None] = {
        "plain": None,
        "glassgrad": log_glassgrad,
        "tensorboard": log_tensorboard,
    }
    trainers = {name: _trainer() for name in configs}
    for train in trainers.values():  # warm-up: caches, allocator, first-call costs
        for _ in range(min(steps, 10)):
            train()
    times: dict[str, list[float]] = {name: [] for name in configs}
    for round_index in range(rounds):
        order = list(configs) if round_index % 2 == 0 else list(reversed(configs))
        for name in order:
            train, log = trainers[name], configs[name]
            start = clock()
            for _ in range(steps):
                loss = train()
                if log is not None:
                    counter[0] += 1
                    log(loss)
            times[name].append((clock() - start) / steps)
    per_call: dict[str, float] = {}
    for name, log, flush in [("glassgrad", log_glassgrad, writer.flush),
                             ("tensorboard", log_tensorboard, threaded.flush)]:  # fmt: skip
        start = clock()
        for _ in range(calls):
            counter[0] += 1
            log(0.5)
        flush()
        per_call[name] = (clock() - start) / calls
    writer.close()
    threaded.close()
    return times, per_call


def report(times: dict[str, list[float]], per_call: dict[str, float]) -> str:
    """The table: median and minimum time per step, and the overhead against ``plain`` as the
    median over rounds of each round's ratio (configs of one round ran back to back, so a
    machine whose load changes between rounds still compares like with like)."""
    lines = [f"{'config':<12} {'ms/step (median)':>17} {'min':>8} {'overhead':>9}"]
    for name, values in times.items():
        ratios = [value / base for value, base in zip(values, times["plain"], strict=True)]
        overhead = "" if name == "plain" else f"{100 * (statistics.median(ratios) - 1):+.1f}%"
        median, fastest = 1e3 * statistics.median(values), 1e3 * min(values)
        lines.append(f"{name:<12} {median:>17.3f} {fastest:>8.3f} {overhead:>9}")
    plain = statistics.median(times["plain"])
    lines.append("logging alone (the overhead a quiet machine would show):")
    for name, seconds in per_call.items():
        share = 100 * seconds / plain
        lines.append(f"{name:<12} {1e6 * seconds:>8.1f} us/call = {share:.2f}% of a plain step")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> tuple[dict[str, list[float]], dict[str, float]]:
    args = parse_args(argv)
    rounds, steps = (2, 3) if args.quick else (args.rounds, args.steps)
    from threadpoolctl import threadpool_limits

    with tempfile.TemporaryDirectory() as folder, threadpool_limits(1, user_api="blas"):
        clock = time.perf_counter if args.wall else time.process_time
        times, per_call = measure(rounds, steps, Path(folder), clock, 50 if args.quick else 5000)
    kind = "wall" if args.wall else "CPU"
    print(
        f"logging a scalar every step of the demo's CNN ({rounds} rounds x {steps} steps, {kind} time)"
    )
    print(report(times, per_call))
    sys.stdout.flush()
    return times, per_call


if __name__ == "__main__":
    main()
