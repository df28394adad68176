"""What needs no MPI job: imports, the install hint, and errors before init_process_group;
and, under mpiexec, that a failing rank ends the whole job."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

import glassgrad
import glassgrad.distributed as dist

from .conftest import REPO, run_mpi


def test_import_glassgrad_does_not_import_mpi4py():
    code = (
        "import sys, glassgrad, glassgrad.distributed, glassgrad.utils.data; "
        "glassgrad.distributed.is_available(); "
        "assert 'mpi4py' not in sys.modules, 'mpi4py imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_without_mpi4py_init_says_what_to_install():
    code = (
        "import sys; sys.modules['mpi4py'] = None\n"  # as if it were not installed
        "import glassgrad.distributed as dist\n"
        "try:\n    dist.init_process_group('mpi')\n"
        "except RuntimeError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert "pip install 'glassgrad[distributed]'" in out.stdout, out.stdout + out.stderr
    assert "mpi4py" in out.stdout


def test_available_when_the_extra_is_installed():
    assert dist.is_available() and dist.is_mpi_available()
    assert glassgrad.distributed is dist


@pytest.mark.parametrize(
    "call",
    [
        lambda: dist.all_reduce(glassgrad.ones(2)),
        lambda: dist.broadcast(glassgrad.ones(2), src=0),
        lambda: dist.barrier(),
        lambda: dist.get_rank(),
        lambda: dist.get_world_size(),
        lambda: dist.new_group([0]),
        lambda: dist.all_gather_object([None], 1),
        lambda: dist.destroy_process_group(),
    ],
)
def test_calls_before_init_process_group_raise(call):
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        call()


def test_other_backends_and_options_are_refused():
    with pytest.raises(
        ValueError, match="Invalid backend: 'gloo': glassgrad.distributed runs on MPI only"
    ):
        dist.init_process_group(backend="gloo")
    with pytest.raises(ValueError, match="init_method='tcp://10.0.0.1:23456' is not used"):
        dist.init_process_group(init_method="tcp://10.0.0.1:23456")
    with pytest.raises(ValueError, match="timeout"):
        import datetime

        dist.init_process_group(timeout=datetime.timedelta(seconds=5))
    assert dist.Backend("MPI") == dist.Backend.MPI == "mpi"
    assert not dist.is_initialized()


def test_reduce_op_names_match_pytorch():
    import torch.distributed as tdist

    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        assert int(getattr(dist.ReduceOp, name)) == int(getattr(tdist.ReduceOp, name).value)


def test_a_rank_that_raises_ends_the_whole_job_with_its_traceback():
    start = time.monotonic()
    proc = run_mpi(3, ["tests/distributed/programs/raise_in_step.py"], timeout=60)
    elapsed = time.monotonic() - start
    assert proc.returncode != 0
    assert "Traceback" in proc.stderr
    assert "ValueError: rank 1 failed in its training step" in proc.stderr
    assert elapsed < 30, f"the job took {elapsed:.1f} s to end"
