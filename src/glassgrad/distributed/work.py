"""``Work``: the handle an ``async_op=True`` collective returns, over MPI requests."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from typing import Any

from ._mpi import mpi

__all__ = ["Work"]


class Work:
    """A collective in flight. ``wait()`` blocks until it is done (and its results are in
    the output tensors); ``is_completed()`` asks without blocking.

    Example::

        >>> work = dist.all_reduce(t, async_op=True)
        >>> ...  # compute meanwhile
        >>> work.wait()
        True
    """

    __slots__ = ("_requests", "_finish", "_outputs", "_done")

    def __init__(
        self,
        requests: list[Any],
        finish: Callable[[], None] | None = None,
        outputs: list[Any] | None = None,
    ) -> None:
        self._requests = requests
        self._finish = finish  # copies results out of scratch buffers once MPI is done
        self._outputs = outputs or []
        self._done = False

    def _complete(self) -> None:
        self._done = True
        self._requests = []
        finish, self._finish = self._finish, None
        if finish is not None:
            finish()

    def wait(self, timeout: datetime.timedelta | None = None) -> bool:
        """Block until the operation is done; True. With ``timeout``, raise RuntimeError if
        it is not done by then (the operation stays in flight)."""
        if self._done:
            return True
        if timeout is None:
            mpi().Request.Waitall(self._requests)
        else:
            deadline = time.monotonic() + timeout.total_seconds()
            while not mpi().Request.Testall(self._requests):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Work.wait: timed out after {timeout}")
                time.sleep(0.0005)
        self._complete()
        return True

    def is_completed(self) -> bool:
        """True once the operation is done (then its results are in place); never blocks."""
        if not self._done and mpi().Request.Testall(self._requests):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        """True once the operation completed (MPI errors raise instead of failing quietly)."""
        return self.is_completed()

    def result(self) -> list[Any]:
        """The output tensors (after ``wait()``)."""
        return list(self._outputs)

    def __repr__(self) -> str:
        return f"Work(completed={self._done})"
