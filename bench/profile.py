"""Profile one workload in one library with pyinstrument (``pip install pyinstrument``).

    .venv/bin/python -m bench.profile mlp_wide_adam            # glassgrad, full size, 20 units
    .venv/bin/python -m bench.profile lstm --units 5 --html out/lstm.html
    .venv/bin/python -m bench.profile chain_100 --library torch

The workload is prepared and run once (warm-up) before the profiler starts, so the profile shows
the steady state. Prints the call tree (CPU-heavy frames only) to stdout.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.libraries import CANDIDATE, REFERENCE, load
from bench.workloads import WORKLOADS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__)
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--library", default=CANDIDATE, choices=[CANDIDATE, REFERENCE])
    parser.add_argument("--units", type=int, default=20, help="units of work to profile")
    parser.add_argument("--quick", action="store_true", help="the quick mode's tiny sizes")
    parser.add_argument("--html", type=Path, help="also write pyinstrument's HTML report here")
    parser.add_argument("--interval", type=float, default=0.0002, help="sampling interval (s)")
    args = parser.parse_args(argv)

    from pyinstrument import Profiler

    workload = WORKLOADS[args.workload]
    size = workload.sizes["quick" if args.quick else "full"]
    library = load(args.library)
    prepared = library.implementations[args.workload](
        library.module, workload.make_inputs(size), size
    )
    prepared.step()

    profiler = Profiler(interval=args.interval)
    profiler.start()
    for _ in range(args.units):
        prepared.step()
    profiler.stop()
    print(profiler.output_text(unicode=False, color=False))
    if args.html:
        args.html.parent.mkdir(parents=True, exist_ok=True)
        args.html.write_text(profiler.output_html())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
