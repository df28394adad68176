"""Where two traces of one program (glassgrad's and PyTorch's) differ."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from .execute import Error, Trace
from .skips import PYTORCH_BUGS, PYTORCH_LACKS, PYTORCH_SILENT_BUGS, PYTORCH_WRONG_SECOND_ORDER

# Relative tolerances by dtype; the absolute one is the same times the reference's largest
# magnitude (at least 1), so cancellation in a sum of large terms is not a difference.
_TOLERANCE = {
    "float64": 1e-6,
    "float32": 2e-3,
    "float16": 2e-2,
    "complex128": 1e-6,
    "complex64": 2e-3,
}


@dataclass(frozen=True)
class Difference:
    """The first place two traces part: where (a statement, a hook, a derivative phase),
    the aspect that differs (``error``, ``value``, ``dtype`` ...) and a description."""

    where: str
    aspect: str
    detail: str
    oracle_failure: bool = False  # PyTorch failed its own internal check: no verdict
    # No verdict: the program is ill-conditioned, not glassgrad wrong. Either PyTorch's own
    # op, run on glassgrad's values of the statement's inputs, gives glassgrad's result (the
    # inputs' last-bit rounding amplified: floor of a near-integer, tan near a pole, fmod
    # near a multiple; aspect "inherited"), or the program in float64 shows glassgrad's
    # float32 values at least as close to the exact ones as PyTorch's (aspect "float32").
    ill_conditioned: bool = False

    @property
    def category(self) -> tuple:
        """What shrinking must keep: the kind of place and the aspect, not the place."""
        return (self.where.split(" ")[0], self.aspect)

    def __str__(self) -> str:
        return f"{self.where}: {self.aspect}: {self.detail}"


@dataclass(frozen=True)
class _Judge:
    """How values are compared: ``floor``, the program's loosest tolerance; ``reference``,
    if given, the arrays of the program run in float64 (by place), against which a float32
    value difference is weighed; ``record``, if given, collects every array compared (by
    place) instead."""

    floor: float
    reference: dict | None = None
    record: dict | None = None


def first_difference(
    ours: Trace,
    theirs: Trace,
    statements: list[str],
    replay: Any = None,
    reference: dict | None = None,
) -> Difference | None:
    """The first difference between glassgrad's trace ``ours`` and PyTorch's ``theirs``.

    ``replay(i)``, if given, runs statement ``i`` under PyTorch on glassgrad's values of the
    variables before it (their observations after it, or None): a value difference PyTorch
    gives too from those inputs is inherited rounding, not this statement's error.
    ``reference``, if given, holds the arrays of the program run in float64
    (``reference_arrays``): a value that differs by more than the tolerance is no
    difference where glassgrad's is at least as close to it as PyTorch's, element by
    element."""
    judge = _Judge(_program_tolerance(theirs), reference)
    return _compare(ours, theirs, statements, replay, judge)


def _compare(
    ours: Trace, theirs: Trace, statements: list[str], replay: Any, judge: _Judge
) -> Difference | None:
    for i, ((our_error, our_vars), (their_error, their_vars)) in enumerate(
        zip(ours.steps, theirs.steps)
    ):
        where = f"statement {i} `{statements[i]}`"
        found = _errors(where, our_error, their_error)
        if found is None:
            found = _observations(where, our_vars, their_vars, judge)
        if found is not None and found.aspect == "value" and i and replay is not None:
            again = replay(i)
            if again is not None and _observations(where, our_vars, again, judge) is None:
                return Difference(found.where, "inherited", found.detail, ill_conditioned=True)
        if found is not None:
            return found
    # Hook calls of a phase PyTorch cannot run (skips.PYTORCH_LACKS, PYTORCH_BUGS, an internal
    # assert: no verdict, below) or later are not compared: glassgrad goes on where PyTorch
    # stops.
    phases = _judged_phases(statements)
    compared = []
    for phase in phases:
        reference = theirs.phases.get(phase)
        if isinstance(reference, Error) and (
            _pytorch_cannot(reference) or "INTERNAL ASSERT FAILED" in reference.message
        ):
            break
        compared.append(phase)
    hook_phases = {"program", *compared}
    for name in sorted(set(ours.hooks) | set(theirs.hooks)):
        found = _gradients(
            f"hook {name}",
            _hook_calls(ours.hooks.get(name), hook_phases),
            _hook_calls(theirs.hooks.get(name), hook_phases),
            judge,
        )
        if found is not None:
            return found
    for phase in phases:
        mine, reference = ours.phases.get(phase), theirs.phases.get(phase)
        where = f"phase {phase}"
        if isinstance(reference, Error) and _pytorch_cannot(reference):
            return None  # PyTorch cannot go on (skips.PYTORCH_LACKS, PYTORCH_BUGS)
        if isinstance(mine, Error) or isinstance(reference, Error):
            found = _errors(where, mine if isinstance(mine, Error) else None, reference)
            if found is None and not isinstance(reference, Error):
                found = Difference(where, "error", f"glassgrad raised {mine}")
        elif isinstance(reference, dict) or isinstance(mine, dict):
            found = _named_gradients(where, mine or {}, reference or {}, judge)
        elif phase == "grad requires_grad":
            found = (
                None
                if mine == reference
                else Difference(where, "flags", f"glassgrad {mine}, PyTorch {reference}")
            )
        else:
            found = _gradients(where, mine, reference, judge)
        if found is not None:
            return found
    return None


def reference_arrays(trace: Trace, statements: list[str]) -> dict:
    """Every array of ``trace`` (a run of the program in float64), by the place
    ``first_difference`` names it at (``statements``: the program as compared)."""
    record: dict = {}
    _compare(trace, trace, statements, None, _Judge(0.0, record=record))
    return record


def is_float32_program(trace: Trace) -> bool:
    """Whether float32 (or complex64) is the least precise dtype ``trace`` holds."""
    return _program_tolerance(trace) == _TOLERANCE["float32"]


def _program_tolerance(trace: Trace) -> float:
    """The tolerance of the least precise floating dtype the program used: a float64 value
    computed from float32 ones carries their rounding (x % y of a float32 x, say)."""
    loosest = 0.0
    for _, observed in trace.steps:
        for observation in observed.values():
            if len(observation) == 5:
                loosest = max(loosest, _TOLERANCE.get(observation[1], 0.0))
    return loosest


_PHASES = ("loss", "backward", "grad", "grad requires_grad", "gradgrad")


def _judged_phases(statements: list[str]) -> tuple:
    """The phases compared: all but the second derivatives where a statement makes one that
    PyTorch gets wrong (skips.PYTORCH_WRONG_SECOND_ORDER)."""
    for marker in PYTORCH_WRONG_SECOND_ORDER.values():
        if any(marker in statement for statement in statements):
            return _PHASES[:-1]
    return _PHASES


def _hook_calls(calls: list | None, phases: set) -> list | None:
    """The gradients a hook saw in ``phases`` (None if it never ran in them)."""
    seen = [value for phase, value in calls or () if phase in phases]
    return seen or None


def _errors(where: str, ours: Error | None, theirs: Any) -> Difference | None:
    theirs = theirs if isinstance(theirs, Error) else None
    if ours is None and theirs is None:
        return None
    if theirs is not None and "INTERNAL ASSERT FAILED" in theirs.message:
        return Difference(where, "oracle", theirs.message, oracle_failure=True)
    if ours is None and _pytorch_cannot(theirs):
        return None
    if ours is None:
        return Difference(where, "error", f"PyTorch raised {theirs.kind}: {theirs.message}")
    if theirs is None:
        return Difference(where, "error", f"glassgrad raised {ours.kind}: {ours.message}")
    if ours.kind != theirs.kind:
        return Difference(
            where,
            "error type",
            f"glassgrad {ours.kind}: {ours.message} / PyTorch {theirs.kind}: {theirs.message}",
        )
    return None


def _pytorch_cannot(error: Error) -> bool:
    """PyTorch raised for a derivative it does not implement and glassgrad has, or failed on
    a known bug of its own (both listed in skips.py)."""
    if any(message in error.message for message in PYTORCH_BUGS.values()):
        return True
    if error.kind == "PyTorchBug" and error.message in PYTORCH_SILENT_BUGS:
        return True  # recorded by execute.py where PyTorch would be silently wrong
    found = re.search(
        r"derivative for (?:aten::|'inplace version of )?(\w+)'? is not implemented", error.message
    )
    return found is not None and found.group(1) in PYTORCH_LACKS


def _observations(where: str, ours: dict, theirs: dict, judge: _Judge) -> Difference | None:
    if set(ours) != set(theirs):
        extra = sorted(set(ours) ^ set(theirs))
        return Difference(where, "variables", f"defined in one library only: {extra}")
    for name in theirs:
        found = _observation(f"{where} {name}", ours[name], theirs[name], judge)
        if found is not None:
            return found
    return None


def _observation(where: str, ours: tuple, theirs: tuple, judge: _Judge) -> Difference | None:
    if len(ours) == 2 or len(theirs) == 2:  # not tensors: ("value", value)
        if ours != theirs:
            return Difference(where, "value", f"glassgrad {ours[1]!r}, PyTorch {theirs[1]!r}")
        return None
    _, our_dtype, our_shape, our_grad, our_leaf = ours
    _, their_dtype, their_shape, their_grad, their_leaf = theirs
    if our_shape != their_shape:
        return Difference(where, "shape", f"glassgrad {our_shape}, PyTorch {their_shape}")
    if our_dtype != their_dtype:
        return Difference(where, "dtype", f"glassgrad {our_dtype}, PyTorch {their_dtype}")
    for aspect, mine, reference in (
        ("requires_grad", our_grad, their_grad),
        ("is_leaf", our_leaf, their_leaf),
    ):
        if isinstance(mine, Error) or isinstance(reference, Error):
            found = _errors(
                f"{where}.{aspect}", mine if isinstance(mine, Error) else None, reference
            )
            if found is not None:
                return found
        elif mine != reference:
            return Difference(where, aspect, f"glassgrad {mine}, PyTorch {reference}")
    return _arrays(where, ours[0], theirs[0], judge)


def _arrays(where: str, ours: np.ndarray, theirs: np.ndarray, judge: _Judge) -> Difference | None:
    if judge.record is not None:
        judge.record[where] = theirs
    if ours.shape != theirs.shape:
        return Difference(where, "shape", f"glassgrad {ours.shape}, PyTorch {theirs.shape}")
    if ours.dtype != theirs.dtype:
        return Difference(where, "dtype", f"glassgrad {ours.dtype}, PyTorch {theirs.dtype}")
    if ours.dtype.kind not in "fc":
        if not np.array_equal(ours, theirs):
            return Difference(where, "value", f"glassgrad {ours}, PyTorch {theirs}")
        return None
    # A complex value's parts are placed apart: inf + NaN j against inf + NaN j agrees, and
    # NaN + 0j against NaN + NaN j does not.
    our_parts, their_parts = _parts(ours), _parts(theirs)
    if not np.array_equal(np.isnan(our_parts), np.isnan(their_parts)):
        return Difference(where, "value", f"NaN where the other has none: {ours} / {theirs}")
    infinite = np.isinf(their_parts)
    if not np.array_equal(np.isinf(our_parts), infinite) or not np.array_equal(
        our_parts[infinite], their_parts[infinite]
    ):
        return Difference(where, "value", f"infinities differ: {ours} / {theirs}")
    finite = np.isfinite(theirs)
    if not finite.any():
        return None
    rtol = max(_TOLERANCE.get(str(theirs.dtype), 1e-6), judge.floor)
    scale = max(1.0, float(np.abs(theirs[finite]).max()))
    wide = np.complex128 if ours.dtype.kind == "c" else np.float64
    error = np.abs(ours[finite].astype(wide) - theirs[finite])
    beyond = error > rtol * scale + rtol * np.abs(theirs[finite])
    if beyond.any() and not _no_farther(ours, theirs, finite, beyond, where, judge):
        return Difference(
            where, "value", f"max error {error.max():.3g}: glassgrad {ours}, PyTorch {theirs}"
        )
    return None


def _parts(values: np.ndarray) -> np.ndarray:
    """A float array as it is, a complex one as its real and imaginary parts stacked."""
    return np.stack([values.real, values.imag]) if values.dtype.kind == "c" else values


def _no_farther(
    ours: np.ndarray,
    theirs: np.ndarray,
    compared: np.ndarray,
    beyond: np.ndarray,
    where: str,
    judge: _Judge,
) -> bool:
    """Whether each of glassgrad's values ``beyond`` the tolerance (of those ``compared``)
    is at least as close as PyTorch's to the same value of the program run in float64 (the
    reference): both float32 results then carry rounding amplified by the problem, not an
    error of glassgrad's. A place the float64 run does not have, or where its value is not
    finite, is no excuse."""
    exact = None if judge.reference is None else judge.reference.get(where)
    if exact is None or exact.shape != ours.shape or exact.dtype.kind != ours.dtype.kind:
        return False
    exact = exact[compared][beyond]
    if not np.isfinite(exact).all():
        return False
    wide = exact.dtype
    mine = np.abs(ours[compared][beyond].astype(wide) - exact)
    other = np.abs(theirs[compared][beyond].astype(wide) - exact)
    return bool((mine <= other).all())


def _gradients(where: str, ours: Any, theirs: Any, judge: _Judge) -> Difference | None:
    if (ours is None) != (theirs is None):
        return Difference(
            where, "presence", f"glassgrad {ours is not None}, PyTorch {theirs is not None}"
        )
    if ours is None:
        return None
    if len(ours) != len(theirs):
        return Difference(where, "count", f"glassgrad {len(ours)}, PyTorch {len(theirs)}")
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if (a is None) != (b is None):
            return Difference(f"{where}[{i}]", "presence", f"glassgrad {a}, PyTorch {b}")
        if a is not None:
            found = _arrays(f"{where}[{i}]", a, b, judge)
            if found is not None:
                return found
    return None


def _named_gradients(where: str, ours: dict, theirs: dict, judge: _Judge) -> Difference | None:
    for name in sorted(set(ours) | set(theirs), key=lambda n: int(n[1:])):
        a, b = ours.get(name), theirs.get(name)
        if (a is None) != (b is None):
            return Difference(f"{where} {name}.grad", "presence", f"glassgrad {a}, PyTorch {b}")
        if a is not None:
            found = _arrays(f"{where} {name}.grad", a, b, judge)
            if found is not None:
                return found
    return None
