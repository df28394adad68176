"""``python -m tests.fuzz --seed S --budget-s T``: a long differential fuzz run.

Writes nothing unless ``--save``: then every difference found is shrunk and saved as a
regression file under tests/fuzz/regressions/ (the test suite runs them all).
"""

from __future__ import annotations

import argparse
import collections
import time

from .isolate import fuzz_seed
from .program import save_regression
from .skips import (
    FFT_CANCELLATION,
    FFT_NONFINITE,
    LAPACK_REPEATED_EIGENVALUES,
    MKL_NONFINITE,
    MKL_RANK_DEFICIENT,
    PYTORCH_BUGS,
    PYTORCH_INACCURATE,
    PYTORCH_LACKS,
    PYTORCH_LAZY_CONJ,
    PYTORCH_SILENT_BUGS,
    PYTORCH_UNDEFINED_FOR_NAN,
    PYTORCH_VECTORIZED_NAN_BRANCH,
    PYTORCH_WRONG_SECOND_ORDER,
    SKIPPED_OPS,
)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="first program's seed")
    parser.add_argument("--budget-s", type=float, default=60.0, help="stop after this long")
    parser.add_argument("--programs", type=int, default=None, help="stop after this many")
    parser.add_argument("--max-statements", type=int, default=12)
    parser.add_argument("--save", action="store_true", help="save shrunk differences")
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    parser.add_argument(
        "--fixed-ops", action="store_true", help="draw from fixed_ops.txt, as test_fuzz.py"
    )
    args = parser.parse_args()
    print("left out on purpose:")
    for name, reason in {**SKIPPED_OPS, **PYTORCH_LACKS}.items():
        print(f"  {name}: {reason}")
    for name, reason in PYTORCH_LAZY_CONJ.items():
        print(f"  {name}, aliasing (called with .clone() after it): {reason}")
    for name, reason in {**PYTORCH_UNDEFINED_FOR_NAN, **PYTORCH_VECTORIZED_NAN_BRANCH}.items():
        print(f"  {name} of a tensor holding NaN: {reason}")
    for name, (where, _) in PYTORCH_INACCURATE.items():
        print(f"  {name} of a tensor with a value where {where}: PyTorch's kernel is off there")
    for name, reason in MKL_RANK_DEFICIENT.items():
        print(f"  {name} of a rank-deficient matrix: {reason}")
    for name, reason in LAPACK_REPEATED_EIGENVALUES.items():
        print(f"  {name} of a matrix with a repeated eigenvalue: {reason}")
    for name, reason in {**MKL_NONFINITE, **FFT_NONFINITE}.items():
        print(f"  {name} of a tensor holding NaN or inf: {reason}")
    for name, reason in FFT_CANCELLATION.items():
        print(f"  {name} of a signal whose transform cancels exactly somewhere: {reason}")
    for name, message in PYTORCH_BUGS.items():
        print(f"  {name}: a PyTorch bug ({message!r}), no verdict after it")
    for name in PYTORCH_WRONG_SECOND_ORDER:
        print(f"  {name}: PyTorch's second derivative is wrong, not compared")
    for name, (phase, _) in PYTORCH_SILENT_BUGS.items():
        print(f"  {name}: a PyTorch bug (silently wrong), not compared from phase {phase}")
    ops = None
    if args.fixed_ops:
        from .test_fuzz import FIXED_OPS as ops
    start = time.monotonic()
    runs = 0
    failures: dict = collections.defaultdict(list)
    oracle: list = []
    ill_conditioned: list = []
    while time.monotonic() - start < args.budget_s and (
        args.programs is None or runs < args.programs
    ):
        outcome = fuzz_seed(args.seed + runs, args.max_statements, ops)
        runs += 1
        if outcome.status == "oracle":
            oracle.append(outcome)
            if not args.quiet:
                print(f"\nseed {outcome.seed}: PyTorch failed, no verdict: {outcome.detail}")
        elif outcome.status == "ill-conditioned":
            ill_conditioned.append(outcome)
            if not args.quiet:
                print(f"\nseed {outcome.seed}: ill-conditioned, no verdict: {outcome.detail[:300]}")
        elif outcome.status == "harness":
            failures[("harness", "error")].append(outcome)
            print(f"\nseed {outcome.seed}: the fuzzer failed: {outcome.detail}")
        elif outcome.status == "differ":
            found = outcome.difference
            failures[found.category].append(outcome)
            if not args.quiet:
                print(f"\nseed {outcome.seed}: {found}\n  " + "\n  ".join(outcome.statements))
            if args.save:
                path = save_regression(
                    outcome.statements, outcome.seed, found, f"seed {outcome.seed}"
                )
                print("  saved", path)
    failed = sum(len(v) for v in failures.values())
    judged = runs - len(oracle) - len(ill_conditioned)
    elapsed = time.monotonic() - start
    print(
        f"\n{runs} programs in {elapsed:.0f} s (seeds {args.seed}..{args.seed + runs - 1}); "
        f"{len(oracle)} with no verdict (PyTorch itself failed), {len(ill_conditioned)} with "
        f"no verdict (ill-conditioned: inherited rounding, or float32 no farther than "
        f"PyTorch's from float64); of the {judged} judged, "
        f"{judged - failed} agree ({100 * (judged - failed) / max(judged, 1):.2f}%), "
        f"{failed} differ"
    )
    for category, items in sorted(failures.items(), key=lambda kv: -len(kv[1])):
        example = items[0].difference or items[0].detail
        print(f"  {len(items):5d}  {category}  e.g. seed {items[0].seed}: {example}")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
