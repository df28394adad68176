"""Timing of one workload in one library: warm-up, calibration, repetitions, median/min/max."""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class TimingPlan:
    """How long to warm up and how many repetitions to time.

    Attributes
    ----------
    warmup_units : int
        Units run before timing (after the correctness check, which already ran some).
    warmup_s : float
        Keep warming up until this much time has passed.
    repetitions : int
        Repetitions timed when the budget allows.
    min_repetitions : int
        Repetitions timed whatever the budget.
    min_repetition_s : float
        A repetition runs enough units back to back to last at least this long.
    budget_s : float
        Time the repetitions of one library on one workload may take (soft).
    """

    warmup_units: int
    warmup_s: float
    repetitions: int
    min_repetitions: int
    min_repetition_s: float
    budget_s: float


FULL = TimingPlan(
    warmup_units=1,
    warmup_s=0.5,
    repetitions=7,
    min_repetitions=3,
    min_repetition_s=0.2,
    budget_s=20.0,
)
QUICK = TimingPlan(
    warmup_units=0,
    warmup_s=0.0,
    repetitions=2,
    min_repetitions=2,
    min_repetition_s=0.0,
    budget_s=1.0,
)
PLANS = {"full": FULL, "quick": QUICK}


def measure(
    step: Callable[[], None], plan: TimingPlan, warm_s: float = 0.0
) -> dict[str, float | int | list[float]]:
    """Time ``step`` (one unit of work) and return seconds per unit.

    ``warm_s`` is the length of one unit already run (the correctness check): a unit longer than
    the warm-up time counts as the warm-up, so multi-second units are not run twice for nothing.

    Returns
    -------
    dict
        ``median_s``, ``min_s``, ``max_s`` over repetitions (wall time), ``cpu_median_s`` (CPU
        time of the process, all threads: a diagnostic when the machine is busy),
        ``repetitions``, ``units_per_rep``, ``times_s`` and ``cpu_times_s`` (seconds per unit
        of each repetition).

    Example
    -------
    >>> result = measure(lambda: None, QUICK)
    >>> result["repetitions"]
    2
    """
    start, units = time.perf_counter(), 0
    already_warm = warm_s > plan.warmup_s > 0
    while not already_warm and (
        units < plan.warmup_units or time.perf_counter() - start < plan.warmup_s
    ):
        step()
        units += 1
    if units:
        unit_s = (time.perf_counter() - start) / units
    elif warm_s > 0:
        unit_s = warm_s
    else:
        unit_start = time.perf_counter()
        step()
        unit_s = time.perf_counter() - unit_start
    units_per_rep = max(1, math.ceil(plan.min_repetition_s / max(unit_s, 1e-9)))
    affordable = int(plan.budget_s / max(unit_s * units_per_rep, 1e-9))
    repetitions = max(plan.min_repetitions, min(plan.repetitions, affordable))

    times, cpu_times = [], []
    for _ in range(repetitions):
        gc.collect()
        begin, cpu_begin = time.perf_counter(), time.process_time()
        for _ in range(units_per_rep):
            step()
        times.append((time.perf_counter() - begin) / units_per_rep)
        cpu_times.append((time.process_time() - cpu_begin) / units_per_rep)
    return {
        "median_s": statistics.median(times),
        "cpu_median_s": statistics.median(cpu_times),
        "min_s": min(times),
        "max_s": max(times),
        "repetitions": repetitions,
        "units_per_rep": units_per_rep,
        "times_s": times,
        "cpu_times_s": cpu_times,
    }
