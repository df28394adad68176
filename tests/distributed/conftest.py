"""Launch the multi-process checks under real ``mpiexec``, once per program and rank count
for the whole session (pytest-xdist workers share the result through a lock file)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_S = 180


def mpiexec() -> str:
    """The mpiexec of the MPI that mpi4py runs on: the mpich wheel puts it beside Python."""
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    assert found, "mpiexec not found: install the glassgrad[distributed] extra (mpich wheel)"
    return found


def mpi_env() -> dict:
    # One BLAS thread per rank: the ranks share the machine's cores.
    return {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def run_mpi(n: int, args: list[str], timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    """``mpiexec -n n python args...`` from the repository root."""
    return subprocess.run(
        [mpiexec(), "-n", str(n), sys.executable, *args],
        cwd=REPO,
        env=mpi_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _launch(module: str, n: int, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    try:
        proc = run_mpi(n, ["-m", "tests.distributed._runner", module, str(out)])
        log = f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    except subprocess.TimeoutExpired as timeout:
        log = f"timed out after {TIMEOUT_S} s\n{timeout.stdout}\n{timeout.stderr}"
    ranks = []
    for r in range(n):
        path = out / f"rank{r}.json"
        ranks.append(json.loads(path.read_text()) if path.exists() else None)
    return {"log": log, "ranks": ranks}


@pytest.fixture(scope="session")
def mpi_results(tmp_path_factory, worker_id):
    """``mpi_results(module, n)``: per check, each rank's outcome, from one shared launch."""
    root = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        root = root.parent  # shared by the xdist workers of this run only
    cache: dict = {}

    def get(module: str, n: int) -> dict:
        key = (module, n)
        if key not in cache:
            summary = root / f"mpi-{module}-{n}.json"
            with FileLock(str(summary) + ".lock"):
                if not summary.exists():
                    summary.write_text(json.dumps(_launch(module, n, root / f"mpi-{module}-{n}")))
            cache[key] = json.loads(summary.read_text())
        return cache[key]

    return get


def assert_check_passed(results: dict, name: str) -> None:
    failures = []
    for r, ranks in enumerate(results["ranks"]):
        if ranks is None:
            failures.append(f"rank {r} wrote no results")
        elif ranks.get(name) != "ok":
            failures.append(f"rank {r}:\n{ranks.get(name, 'not run')}")
    if failures:
        pytest.fail(f"{name}\n" + "\n".join(failures) + f"\n--- job log ---\n{results['log']}")
