"""Shared helpers of the TensorBoard tests: reading event files back with TensorBoard's own
readers."""

from __future__ import annotations

import glob
import os

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

# Keep every event: the accumulator's default reservoir drops some of a long series.
KEEP_ALL = {
    "compressedHistograms": 0,
    "images": 0,
    "audio": 0,
    "scalars": 0,
    "histograms": 0,
    "tensors": 0,
}


def accumulate(log_dir) -> EventAccumulator:
    """TensorBoard's EventAccumulator over ``log_dir``, loaded."""
    accumulator = EventAccumulator(str(log_dir), size_guidance=KEEP_ALL)
    accumulator.Reload()
    return accumulator


def event_files(log_dir) -> list[str]:
    return sorted(glob.glob(os.path.join(str(log_dir), "events.out.tfevents.*")))


def raw_events(log_dir) -> list:
    """Every Event of every event file directly in ``log_dir``, in file order (the record
    reader checks each record's CRCs)."""
    events = []
    for path in event_files(log_dir):
        events.extend(EventFileLoader(path).Load())
    return events


def summary_events(log_dir) -> list:
    """The events after each file's version record (file_version events dropped)."""
    return [event for event in raw_events(log_dir) if not event.HasField("file_version")]
