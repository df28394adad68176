"""SummaryWriter round trip: every add_* call read back by TensorBoard's own EventAccumulator
(tags, steps, wall times, values, histogram buckets, image sizes), the writer's options, and
its errors."""

from __future__ import annotations

import itertools
import os
import struct
import subprocess
import sys
import time

import numpy as np
import pytest
from tb_helpers import accumulate, event_files, raw_events, summary_events

import glassgrad as gg
from glassgrad.utils.tensorboard import SummaryWriter, _event_file
from glassgrad.utils.tensorboard.summary import default_bins


@pytest.fixture
def writer(tmp_path):
    with SummaryWriter(tmp_path / "run") as writer:
        yield writer


# ----------------------------------------------------------------------------- scalars


def test_scalars_from_tensors_arrays_and_numbers_read_back(tmp_path):
    values = [gg.tensor(0.5), gg.tensor([1.25], requires_grad=True), np.float32(2.5),
              np.array([[3.75]]), 4, 5.125, True]  # fmt: skip
    with SummaryWriter(tmp_path) as writer:
        for step, value in enumerate(values):
            writer.add_scalar("loss/train", value, step, walltime=1000.0 + step)
    events = accumulate(tmp_path).Scalars("loss/train")
    assert [e.step for e in events] == list(range(len(values)))
    assert [e.wall_time for e in events] == [1000.0 + step for step in range(len(values))]
    assert [e.value for e in events] == [0.5, 1.25, 2.5, 3.75, 4.0, 5.125, 1.0]


def test_scalar_default_walltime_is_now_and_step_defaults_to_zero(tmp_path):
    before = time.time()
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("x", 1.0)
    after = time.time()
    (event,) = accumulate(tmp_path).Scalars("x")
    assert event.step == 0 and before <= event.wall_time <= after


@pytest.mark.parametrize("double_precision", [False, True])
def test_new_style_scalars_are_tensors_read_by_the_scalars_plugin(tmp_path, double_precision):
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("acc", gg.tensor(0.1, dtype=gg.float64), 7, new_style=True,
                          double_precision=double_precision)  # fmt: skip
    (event,) = summary_events(tmp_path)
    value = event.summary.value[0]
    assert value.metadata.plugin_data.plugin_name == "scalars"
    assert value.tensor.dtype == (2 if double_precision else 1)  # DT_DOUBLE / DT_FLOAT
    stored = value.tensor.double_val[0] if double_precision else value.tensor.float_val[0]
    assert stored == (0.1 if double_precision else np.float32(0.1))
    (tensor_event,) = accumulate(tmp_path).Tensors("acc")
    assert tensor_event.step == 7


def test_add_scalars_writes_one_run_per_tag(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        for step in range(3):
            writer.add_scalars("loss", {"train": 1.0 / (step + 1), "test": gg.tensor(2.0 + step)},
                               step, walltime=50.0)  # fmt: skip
    for run, expected in [("loss_train", [1.0, 0.5, 1 / 3]), ("loss_test", [2.0, 3.0, 4.0])]:
        events = accumulate(tmp_path / run).Scalars("loss")
        assert [e.step for e in events] == [0, 1, 2]
        assert [e.wall_time for e in events] == [50.0] * 3
        np.testing.assert_allclose([e.value for e in events], expected, rtol=1e-7)
    assert accumulate(tmp_path).Tags()["scalars"] == []


def test_add_tensor_round_trips_values_shape_and_dtype(tmp_path):
    from tensorboard.util import tensor_util

    data = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
    with SummaryWriter(tmp_path) as writer:
        writer.add_tensor("t64", gg.tensor(data), 1)
        writer.add_tensor("i32", np.array([[1, -2]], dtype=np.int32), 2)
        writer.add_tensor("f16", np.array([0.5, -1.5], dtype=np.float16), 3)
    acc = accumulate(tmp_path)
    np.testing.assert_array_equal(
        tensor_util.make_ndarray(acc.Tensors("t64")[0].tensor_proto), data
    )
    ints = tensor_util.make_ndarray(acc.Tensors("i32")[0].tensor_proto)
    assert ints.dtype == np.int32 and ints.tolist() == [[1, -2]]
    halves = tensor_util.make_ndarray(acc.Tensors("f16")[0].tensor_proto)
    assert halves.dtype == np.float16 and halves.tolist() == [0.5, -1.5]


# ----------------------------------------------------------------------------- histograms


def _expected_buckets(values, edges):
    counts, limits = np.histogram(values, bins=edges)
    nonzero = np.flatnonzero(counts)
    first, last = nonzero[0], nonzero[-1] + 1
    counts = counts[first - 1 : last] if first > 0 else np.concatenate([[0], counts[:last]])
    return limits[first : last + 1], counts


@pytest.mark.parametrize("bins", ["tensorflow", "auto", 10, "fd"])
def test_histogram_buckets_and_statistics(tmp_path, bins):
    rng = np.random.default_rng(0)
    values = rng.standard_normal((20, 30)).astype(np.float32)
    with SummaryWriter(tmp_path) as writer:
        writer.add_histogram("w", gg.tensor(values, requires_grad=True), 3, bins=bins, walltime=9.0)
    (event,) = accumulate(tmp_path).Histograms("w")
    assert (event.step, event.wall_time) == (3, 9.0)
    histo = event.histogram_value
    flat = values.astype(float).reshape(-1)
    assert histo.num == flat.size
    assert histo.min == flat.min() and histo.max == flat.max()
    np.testing.assert_allclose([histo.sum, histo.sum_squares], [flat.sum(), flat @ flat])
    limits, counts = _expected_buckets(flat, default_bins() if bins == "tensorflow" else bins)
    np.testing.assert_array_equal(histo.bucket_limit, limits)
    np.testing.assert_array_equal(histo.bucket, counts)
    assert sum(histo.bucket) == flat.size


def test_histogram_max_bins_merges_buckets(tmp_path):
    values = np.linspace(0, 1, 1000)
    with SummaryWriter(tmp_path) as writer:
        writer.add_histogram("v", values, 0, bins=100, max_bins=30)
    histo = accumulate(tmp_path).Histograms("v")[0].histogram_value
    # PyTorch's rule: groups of 100 // 30 = 3 buckets, so 34 (and the empty one in front).
    assert len(histo.bucket) == 35 and sum(histo.bucket) == 1000
    assert list(histo.bucket[1:4]) == [30, 30, 30] and histo.bucket[-1] == 10
    assert histo.bucket_limit[-1] == 1.0


def test_histogram_raw_round_trips(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_histogram_raw("raw", -1.0, 2.0, 6, 3.0, 9.0, [0.0, 1.0, 2.0], [1, 2, 3], 5)
    histo = accumulate(tmp_path).Histograms("raw")[0].histogram_value
    assert (histo.min, histo.max, histo.num, histo.sum, histo.sum_squares) == (-1, 2, 6, 3, 9)
    assert list(histo.bucket_limit) == [0, 1, 2] and list(histo.bucket) == [1, 2, 3]


# ----------------------------------------------------------------------------- text


def test_text_round_trips(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_text("notes", "**bold** text, ünïcode", 4, walltime=3.0)
    acc = accumulate(tmp_path)
    (event,) = acc.Tensors("notes/text_summary")
    assert (event.step, event.wall_time) == (4, 3.0)
    assert event.tensor_proto.string_val == ["**bold** text, ünïcode".encode()]
    assert acc.PluginTagToContent("text") == {"notes/text_summary": b""}


# ----------------------------------------------------------------------------- writer options


def test_event_file_starts_with_the_version_record_and_is_named_as_tensorboard_names_it(tmp_path):
    with SummaryWriter(tmp_path, filename_suffix=".glass") as writer:
        writer.add_scalar("x", 1.0, 0)
    (path,) = event_files(tmp_path)
    name = os.path.basename(path)
    assert name.startswith("events.out.tfevents.") and name.endswith(".glass")
    stamp, host, pid = name.split(".")[3:6]
    assert abs(int(stamp) - time.time()) < 60 and pid == str(os.getpid()) and host
    first = raw_events(tmp_path)[0]
    assert first.file_version == "brain.Event:2"


def test_records_are_framed_with_masked_crc32c(tmp_path):
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c

    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("x", 1.0, 0)
    data = open(event_files(tmp_path)[0], "rb").read()
    offset, records = 0, 0
    while offset < len(data):
        header = data[offset : offset + 8]
        (length,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[offset + 8 : offset + 12])[0] == masked_crc32c(header)
        body = data[offset + 12 : offset + 12 + length]
        footer = data[offset + 12 + length : offset + 16 + length]
        assert struct.unpack("<I", footer)[0] == masked_crc32c(body)
        offset += 16 + length
        records += 1
    assert offset == len(data) and records == 2


def test_default_log_dir_is_runs_date_host_comment(tmp_path, monkeypatch):
    import socket

    monkeypatch.chdir(tmp_path)
    writer = SummaryWriter(comment="_lr0.1")
    writer.close()
    parts = writer.get_logdir().split(os.sep)
    assert parts[0] == "runs" and len(parts) == 2
    assert parts[1].endswith("_" + socket.gethostname() + "_lr0.1")
    assert len(event_files(tmp_path / writer.get_logdir())) == 1


def test_events_reach_the_disk_after_max_queue_events_without_flush(tmp_path):
    writer = SummaryWriter(tmp_path, max_queue=5, flush_secs=1000)
    for step in range(4):
        writer.add_scalar("x", step, step)
    assert len(summary_events(tmp_path)) == 0  # still in memory
    writer.add_scalar("x", 4, 4)
    assert len(summary_events(tmp_path)) == 5
    writer.add_scalar("x", 5, 5)
    writer.flush()
    assert len(summary_events(tmp_path)) == 6
    writer.close()


def test_events_reach_the_disk_after_flush_secs(tmp_path):
    writer = SummaryWriter(tmp_path, max_queue=1000, flush_secs=0.05)
    writer.add_scalar("x", 0, 0)
    time.sleep(0.1)
    writer.add_scalar("x", 1, 1)  # the first call after flush_secs writes both
    assert len(summary_events(tmp_path)) == 2
    writer.close()


def test_purge_step_writes_a_session_start_at_that_step(tmp_path, monkeypatch):
    # TensorBoard reads a run's files in name order; two files made in one second differ
    # by the process's file counter, unpadded as TensorBoard's ("10" sorts before "9").
    monkeypatch.setattr(_event_file, "_file_number", itertools.count())
    with SummaryWriter(tmp_path) as writer:
        for step in range(10):
            writer.add_scalar("x", step, step)
    with SummaryWriter(tmp_path, purge_step=5) as writer:
        writer.add_scalar("x", 50, 5)
    events = accumulate(tmp_path).Scalars("x")
    assert [(e.step, e.value) for e in events] == [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 50)]


def test_unclosed_writer_flushes_when_collected(tmp_path):
    writer = SummaryWriter(tmp_path)
    writer.add_scalar("x", 1.0, 0)
    del writer
    import gc

    gc.collect()
    assert len(summary_events(tmp_path)) == 1


# ----------------------------------------------------------------------------- bad input


def test_non_scalar_to_add_scalar_raises_naming_tag_and_shape(writer):
    with pytest.raises(AssertionError, match=r"'loss'.*one element.*size: 3 and 1 dimensions"):
        writer.add_scalar("loss", gg.tensor([1.0, 2.0, 3.0]), 0)
    with pytest.raises(TypeError, match="add_scalar: expected a glassgrad tensor.*got list"):
        writer.add_scalar("loss", [1.0], 0)
    with pytest.raises(TypeError, match="got str"):
        writer.add_scalar("loss", "1.0", 0)
    writer.add_scalar("loss", 1.0, 0)  # the writer is still usable


def test_writing_after_close_raises_and_close_twice_is_fine(tmp_path):
    writer = SummaryWriter(tmp_path)
    writer.add_scalar("x", 1.0, 0)
    writer.close()
    writer.close()
    writer.flush()
    for call in [lambda: writer.add_scalar("x", 2.0, 1), lambda: writer.add_text("t", "a"),
                 lambda: writer.add_histogram("h", np.ones(3))]:  # fmt: skip
        with pytest.raises(RuntimeError, match=r"was closed; create a new SummaryWriter"):
            call()
    assert len(summary_events(tmp_path)) == 1


def test_add_scalars_and_text_check_their_arguments(writer):
    with pytest.raises(TypeError, match="tag_scalar_dict must be a dict"):
        writer.add_scalars("loss", [1.0, 2.0])
    with pytest.raises(TypeError, match="text_string must be a str, got int"):
        writer.add_text("t", 3)
    with pytest.raises(ValueError, match="no element"):
        writer.add_histogram("h", np.array([]))
    with pytest.raises(
        ValueError, match=r"len\(bucket_limits\) != len\(bucket_counts\) \(2 != 1\)"
    ):
        writer.add_histogram_raw("h", 0, 1, 1, 1, 1, [0, 1], [1])


def test_missing_tensorboard_package_says_what_to_install():
    code = (
        "import sys; sys.modules['tensorboard'] = None\n"
        "import glassgrad\n"
        "try:\n"
        "    import glassgrad.utils.tensorboard\n"
        "except ModuleNotFoundError as error:\n"
        "    print('ERROR', error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert "ERROR glassgrad.utils.tensorboard needs the 'tensorboard' package" in result.stdout
    assert "pip install 'glassgrad[tensorboard]'" in result.stdout


def test_import_glassgrad_does_not_import_tensorboard():
    code = "import sys, glassgrad, glassgrad.utils; print('tensorboard' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_threads_sharing_a_writer_lose_no_event(tmp_path):
    import sys
    import threading

    writer = SummaryWriter(tmp_path, max_queue=7)

    def log(thread):
        for step in range(300):
            writer.add_scalar(f"thread{thread}", float(step), step)

    threads = [threading.Thread(target=log, args=(k,)) for k in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often, inside a flush too
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    writer.close()
    acc = accumulate(tmp_path)
    for k in range(4):
        assert [e.step for e in acc.Scalars(f"thread{k}")] == list(range(300))
