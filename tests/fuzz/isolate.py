"""Fuzz one seed in a forked child process, so that a crash of the oracle (PyTorch has a few
segmentation faults on odd programs) ends that seed only, not the run."""

from __future__ import annotations

import os
import pickle
import signal
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from .compare import Difference
from .generate import ProgramGenerator
from .program import check
from .shrink import shrink


@dataclass
class Outcome:
    """What one seed gave: ``agree``, ``differ`` (with the shrunk program and difference),
    ``oracle`` (PyTorch failed on its own: a crash or an internal assert; no verdict),
    ``ill-conditioned`` (rounding amplified by the problem, ``Difference.ill_conditioned``:
    no verdict) or
    ``harness`` (the fuzzer itself failed: a bug to fix here, counted as a failure)."""

    seed: int
    status: str
    statements: list = field(default_factory=list)
    difference: Difference | None = None
    detail: str = ""


def _send(fd: int, message: object) -> None:
    payload = pickle.dumps(message)
    os.write(fd, struct.pack("<I", len(payload)) + payload)


def _receive_all(fd: int) -> list:
    data = b""
    while chunk := os.read(fd, 1 << 16):
        data += chunk
    messages = []
    while len(data) >= 4:
        (size,) = struct.unpack("<I", data[:4])
        messages.append(pickle.loads(data[4 : 4 + size]))
        data = data[4 + size :]
    return messages


def _fuzz_seed(seed: int, max_statements: int, send: Callable, ops: tuple | None) -> None:
    statements = ProgramGenerator(seed, max_statements, ops).generate()
    send(("program", statements))
    found = check(statements, seed)
    if found is None:
        send(("agree",))
        return
    if found.oracle_failure:
        send(("oracle", str(found)))
        return
    if found.ill_conditioned:
        send(("ill-conditioned", str(found)))
        return
    send(("differ", statements, found))

    def still(candidate: list[str]) -> Difference | None:
        return check(candidate, seed)

    def progress(small: list[str], difference: Difference) -> None:
        send(("differ", small, difference))

    shrink(statements, still, progress)


# A seed's check and shrink take seconds. A forked child can also deadlock at once on a lock
# another thread of the parent held at the fork (pytest-xdist's I/O thread, a BLAS pool): the
# child is then stopped by an alarm and the seed run again in a new child, once.
CHILD_SECONDS = 300


def fuzz_seed(seed: int, max_statements: int = 12, ops: tuple | None = None) -> Outcome:
    """Generate, check and (if it differs) shrink the program of ``seed`` in a child
    (``ops``: the ops to draw from, see ``ProgramGenerator``)."""
    outcome = _fuzz_seed_in_child(seed, max_statements, ops)
    if outcome.status == "harness" and outcome.detail.startswith(_TIMED_OUT):
        outcome = _fuzz_seed_in_child(seed, max_statements, ops)
    return outcome


_TIMED_OUT = "the child was still running after"


def _fuzz_seed_in_child(seed: int, max_statements: int, ops: tuple | None) -> Outcome:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, never return into the caller
        signal.alarm(CHILD_SECONDS)
        _single_threaded()
        os.close(read_fd)
        status = 0
        try:
            _fuzz_seed(seed, max_statements, lambda message: _send(write_fd, message), ops)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent as it is
            _send(write_fd, ("harness", f"{type(exc).__name__}: {exc}"))
            status = 1
        os.close(write_fd)
        os._exit(status)
    os.close(write_fd)
    messages = _receive_all(read_fd)
    os.close(read_fd)
    _, wait_status = os.waitpid(pid, 0)
    return _outcome(seed, messages, wait_status)


def _single_threaded() -> None:
    """Both libraries on one thread in the child. An OpenMP pool the parent used does not
    survive the fork: a parallel region in the child (PyTorch's adaptive pools, oneDNN)
    waits forever for its threads. PyTorch's convolution backend also depends on the count
    (``nn_conv_transpose._pytorch_uses_mkldnn``), so glassgrad's count is set alike."""
    import torch

    import glassgrad

    torch.set_num_threads(1)
    glassgrad.set_num_threads(1)


def _outcome(seed: int, messages: list, wait_status: int) -> Outcome:
    statements: list = []
    last = None
    for message in messages:
        if message[0] == "program":
            statements = message[1]
        else:
            last = message
    if last is None:
        signalled = os.WIFSIGNALED(wait_status)
        if signalled and os.WTERMSIG(wait_status) == signal.SIGALRM:
            return Outcome(seed, "harness", statements, detail=f"{_TIMED_OUT} {CHILD_SECONDS} s")
        name = signal.Signals(os.WTERMSIG(wait_status)).name if signalled else "no report"
        return Outcome(seed, "oracle", statements, detail=f"the child died ({name})")
    kind = last[0]
    if kind == "agree":
        return Outcome(seed, "agree", statements)
    if kind == "differ":
        return Outcome(seed, "differ", last[1], last[2])
    if kind == "oracle":
        return Outcome(seed, "oracle", statements, detail=last[1])
    if kind == "ill-conditioned":
        return Outcome(seed, "ill-conditioned", statements, detail=last[1])
    return Outcome(seed, "harness", statements, detail=last[1])
