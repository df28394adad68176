"""``examples/ddp_digits.py`` under ``mpiexec -n 2``: trains, rank 0 alone prints and writes
the checkpoint, and the checkpoint loads into the demo's CNN."""

from __future__ import annotations

import glassgrad
from glassgrad.demo import build_model

from .conftest import run_mpi


def test_ddp_digits_example_trains_and_rank_0_writes_the_checkpoint(tmp_path):
    proc = run_mpi(
        2,
        ["examples/ddp_digits.py", "--epochs", "2", "--limit", "256", "--out", str(tmp_path)],
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    epochs = [line for line in lines if line.startswith("epoch ")]
    assert len(epochs) == 2 and all("(2 ranks)" in line for line in epochs)  # rank 0 only
    losses = [float(line.split("train loss ")[1].split(",")[0]) for line in epochs]
    assert losses[1] < losses[0]
    assert sum(line.startswith("checkpoint: ") for line in lines) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["ddp_digits.safetensors"]
    model = build_model()
    model.load_state_dict(glassgrad.load(tmp_path / "ddp_digits.safetensors"))
