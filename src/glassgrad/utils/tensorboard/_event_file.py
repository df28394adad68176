"""Event files: TensorBoard's record format, written in batches from the calling thread.

TensorBoard's own ``EventFileWriter`` hands every event to a background thread through a queue;
a lock, a queue and a thread switch under the GIL for each event cost more than writing it.
Here an event is only kept in a list when it is added (a scalar as its four values, without
even building its protocol buffer); once ``max_queue`` events are pending, or at the first
event ``flush_secs`` after the last write, and on ``flush()`` and ``close()``, the pending
events are serialized, framed by TensorBoard's own ``RecordWriter`` (length, masked CRC32C of
the length, data, masked CRC32C of the data) and written at once. Between two training steps
the code of one call is cold in the CPU's caches; a batch pays for that once.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import weakref
from itertools import count
from typing import Any

from tensorboard.compat.proto.event_pb2 import Event, SourceMetadata
from tensorboard.compat.proto.summary_pb2 import Summary
from tensorboard.summary.writer.record_writer import RecordWriter

__all__ = ["EventFileWriter"]

# Distinguishes event files opened by one process within the same second, as TensorBoard does.
_file_number = count()


class EventFileWriter:
    """Writes ``Event`` protocol buffers to a new event file in ``logdir``.

    The file is named as TensorBoard names it
    (``events.out.tfevents.<time>.<host>.<pid>.<n><filename_suffix>``) and starts with the
    ``brain.Event:2`` version record.

    Examples
    --------
    >>> events = EventFileWriter("runs/raw_events")
    >>> events.add_event(Event(wall_time=time.time(), step=1))
    >>> events.close()
    """

    def __init__(
        self,
        logdir: str,
        max_queue_size: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
    ) -> None:
        self._logdir = logdir
        os.makedirs(logdir, exist_ok=True)
        name = "events.out.tfevents.%010d.%s.%s.%s" % (  # noqa: UP031 - TensorBoard's pattern
            time.time(),
            socket.gethostname(),
            os.getpid(),
            next(_file_number),
        )
        self._file_name = os.path.join(logdir, name) + filename_suffix
        file = open(self._file_name, "wb")  # noqa: SIM115 - closed by close() or the finalizer
        self._records = RecordWriter(file)
        self._max_queue = max(int(max_queue_size), 1)
        self._flush_secs = float(flush_secs)
        # Events not yet written: Event messages, or (tag, value, step, wall_time) of scalars.
        self._pending: list[Any] = []
        self._next_flush = 0.0
        self._closed = False
        self._lock = threading.Lock()  # writers shared by threads: no event lost in a flush
        # Pending events reach the disk even if the writer is never closed.
        self._finalizer = weakref.finalize(self, _write_and_close, self._pending, self._records)
        self.add_event(
            Event(
                wall_time=time.time(),
                file_version="brain.Event:2",
                source_metadata=SourceMetadata(writer="glassgrad.utils.tensorboard"),
            )
        )
        self.flush()

    def get_logdir(self) -> str:
        """The directory the event file is in."""
        return self._logdir

    @property
    def file_name(self) -> str:
        """The path of the event file."""
        return self._file_name

    @property
    def closed(self) -> bool:
        return self._closed

    def add_event(self, event: Event) -> None:
        """Queue ``event``; write the queue if ``max_queue`` events are pending or ``flush_secs``
        passed since the last write. The event must not change until then."""
        if not isinstance(event, Event):
            raise TypeError(f"expected an event_pb2.Event, got {type(event).__name__}")
        self._queue(event)

    def add_scalar(self, tag: str, value: float, step: int | None, wall_time: float) -> None:
        """Queue the event of one ``simple_value`` scalar without building it yet."""
        self._queue((tag, value, step, wall_time))

    def _queue(self, item: Any) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError(
                    f"the event file {self._file_name} was closed; nothing more can be written "
                    "to it"
                )
            pending = self._pending
            pending.append(item)
            if len(pending) >= self._max_queue:
                self._flush(time.monotonic())
            else:
                now = time.monotonic()
                if now >= self._next_flush:
                    self._flush(now)

    def flush(self) -> None:
        """Write every pending event to disk."""
        with self._lock:
            if not self._closed:
                self._flush(time.monotonic())

    def _flush(self, now: float) -> None:
        _write(self._pending, self._records)
        self._next_flush = now + self._flush_secs

    def close(self) -> None:
        """Write pending events and close the file; later events raise ``RuntimeError``."""
        with self._lock:
            if not self._closed:
                self._finalizer()
                self._closed = True


def _write(pending: list[Any], records: RecordWriter) -> None:
    write = records.write
    for item in pending:
        if type(item) is tuple:
            tag, value, step, wall_time = item
            item = Event(
                wall_time=wall_time,
                step=step,
                summary=Summary(value=[Summary.Value(tag=tag, simple_value=value)]),
            )
        write(item.SerializeToString())
    pending.clear()
    records.flush()


def _write_and_close(pending: list[Any], records: RecordWriter) -> None:
    _write(pending, records)
    records.close()
