"""Files written by glassgrad and by torch.utils.tensorboard for the same calls read back equal:
the same events (tags, steps, wall times, values, buckets, encoded images, plugin data), event
for event, in every run each writer creates."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
import torch.utils.tensorboard as torch_tb
from tb_helpers import accumulate, summary_events

import glassgrad as gg
import glassgrad.utils.tensorboard as gg_tb

RNG = np.random.default_rng(1)
WEIGHTS = RNG.standard_normal((16, 8)).astype(np.float32)
IMAGE = RNG.random((3, 6, 5)).astype(np.float32)
BATCH = RNG.integers(0, 256, (5, 4, 4, 3), dtype=np.uint8)
LABELS = RNG.integers(0, 2, 50)
SCORES = RNG.random(50)


def _log(writer, lib):
    """The same calls, with tensors of ``lib`` (torch or glassgrad)."""
    t = lib.tensor
    wall = 1_700_000_000.0
    for step in range(5):
        writer.add_scalar("loss/train", t(1.0 / (step + 1)), step, walltime=wall + step)
        writer.add_scalar("lr", 0.01 * step, step, walltime=wall + step)
        writer.add_scalars("acc", {"train": t(0.5 + step / 10), "test": 0.4}, step, walltime=wall)
    writer.add_scalar("new", t(0.3, dtype=lib.float64), 1, walltime=wall, new_style=True)
    writer.add_scalar("new64", 0.3, 1, walltime=wall, new_style=True, double_precision=True)
    writer.add_histogram("w", t(WEIGHTS), 3, walltime=wall)
    writer.add_histogram("w_auto", WEIGHTS, 3, bins="auto", walltime=wall)
    writer.add_histogram("w_10", t(WEIGHTS), 3, bins=10, max_bins=3, walltime=wall)
    writer.add_histogram_raw("raw", 0.0, 2.0, 3, 3.0, 5.0, [1.0, 2.0], [1, 2], 2, walltime=wall)
    writer.add_image("img", t(IMAGE), 1, walltime=wall)
    writer.add_image("img_hwc", IMAGE.transpose(1, 2, 0), 1, walltime=wall, dataformats="HWC")
    writer.add_images("batch", t(BATCH), 1, walltime=wall, dataformats="NHWC")
    writer.add_text("note", "hello *world*", 2, walltime=wall)
    writer.add_pr_curve("pr", t(LABELS), t(SCORES), 4, walltime=wall)
    writer.add_pr_curve("pr_w", LABELS, SCORES, 4, num_thresholds=20, weights=SCORES, walltime=wall)
    writer.add_tensor("tensor", t(WEIGHTS[:2]), 5, walltime=wall)
    writer.add_audio("audio", t(np.linspace(-0.5, 0.5, 100)), 1, sample_rate=100, walltime=wall)
    writer.add_custom_scalars_multilinechart(["loss/train", "lr"], "charts", "lines")
    writer.add_hparams({"lr": 0.01, "optim": "adam", "deep": False}, {"hparam/acc": 0.9},
                       {"optim": ["adam", "sgd"]}, run_name="trial", global_step=5)  # fmt: skip


def _without_walltimes_of_config(events):
    # The custom-scalars layout and add_hparams take no walltime argument: they carry "now".
    for event in events:
        tag = event.summary.value[0].tag if event.summary.value else ""
        if tag == "custom_scalars__config__" or tag.startswith("_hparams_/") or tag == "hparam/acc":
            event.wall_time = 0
    return events


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    base = tmp_path_factory.mktemp("parity")
    with torch_tb.SummaryWriter(base / "torch") as writer:
        _log(writer, torch)
    with gg_tb.SummaryWriter(base / "glassgrad") as writer:
        _log(writer, gg)
    return base / "torch", base / "glassgrad"


def _runs(root):
    return sorted(os.path.relpath(path, root) for path, _, files in os.walk(root)
                  if any(f.startswith("events.out.tfevents.") for f in files))  # fmt: skip


def test_the_same_runs_are_created(both):
    torch_dir, gg_dir = both
    assert _runs(torch_dir) == _runs(gg_dir) == [".", "acc_test", "acc_train", "trial"]


@pytest.mark.parametrize("run", [".", "acc_test", "acc_train", "trial"])
def test_every_event_is_the_same(both, run):
    torch_dir, gg_dir = both
    expected = _without_walltimes_of_config(summary_events(torch_dir / run))
    got = _without_walltimes_of_config(summary_events(gg_dir / run))
    assert len(got) == len(expected) > 0
    for mine, theirs in zip(got, expected):
        assert mine == theirs


def test_accumulators_read_the_same_tags_and_values(both):
    torch_dir, gg_dir = both
    mine, theirs = accumulate(gg_dir), accumulate(torch_dir)
    assert mine.Tags() == theirs.Tags()
    for tag in theirs.Tags()["scalars"]:
        assert mine.Scalars(tag) == theirs.Scalars(tag)
    for tag in theirs.Tags()["histograms"]:
        assert mine.Histograms(tag) == theirs.Histograms(tag)
    for tag in theirs.Tags()["images"]:
        assert mine.Images(tag) == theirs.Images(tag)


def test_embedding_files_are_the_same(tmp_path):
    points = RNG.standard_normal((6, 4)).astype(np.float32)
    images = RNG.random((6, 3, 5, 5)).astype(np.float32)
    labels = [f"p{k}" for k in range(6)]
    for name, lib, writer_class in [("torch", torch, torch_tb.SummaryWriter),
                                    ("glassgrad", gg, gg_tb.SummaryWriter)]:  # fmt: skip
        with writer_class(tmp_path / name) as writer:
            writer.add_embedding(lib.tensor(points), labels, lib.tensor(images), 3, "emb/a")
            writer.add_embedding(lib.tensor(points[:, :2]), [[k, -k] for k in range(6)],
                                 global_step=4, metadata_header=["k", "minus k"])  # fmt: skip
    files = sorted(str(p.relative_to(tmp_path / "torch")) for p in (tmp_path / "torch").rglob("*")
                   if p.is_file() and "tfevents" not in p.name)  # fmt: skip
    assert len(files) == 6
    for name in files:
        assert (tmp_path / "glassgrad" / name).read_bytes() == (
            tmp_path / "torch" / name
        ).read_bytes(), name
