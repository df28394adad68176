"""glassgrad tunes glibc's malloc at import so that freed buffers are reused (no page faults)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from glassgrad import _allocator

_GLIBC_LINUX = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"

# Like a training step: make eight 4 MB arrays, free them all, 20 times; print the minor page
# faults this cost after the first round.
_FAULTS = """
import resource
import numpy as np
{setup}
def step():
    buffers = [np.ones(1_000_000, np.float32) for _ in range(8)]
    del buffers
step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    step()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _page_faults(setup: str, **env: str) -> int:
    environment = {k: v for k, v in os.environ.items() if k not in env}
    environment.update({k: v for k, v in env.items() if v})
    out = subprocess.run(
        [sys.executable, "-c", _FAULTS.format(setup=setup)],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip())


def test_tuning_applies_on_linux_with_glibc_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*_allocator._USER_SETTINGS, "GLASSGRAD_MALLOC_TUNING"):
        monkeypatch.delenv(name, raising=False)
    assert _allocator.tune_malloc() is _GLIBC_LINUX


@pytest.mark.parametrize(
    "variable, value",
    [("GLASSGRAD_MALLOC_TUNING", "0"), ("MALLOC_TRIM_THRESHOLD_", "131072")],
)
def test_opt_out_and_user_settings_leave_malloc_alone(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    assert _allocator.tune_malloc() is False


def test_import_makes_repeated_large_allocations_fault_free() -> None:
    # The effect itself, in fresh processes: with glibc's defaults each 4 MB allocation is a
    # fresh mmap that faults in ~1000 pages; after `import glassgrad` the freed block is reused.
    untuned = _page_faults("import glassgrad", GLASSGRAD_MALLOC_TUNING="0")
    tuned = _page_faults("import glassgrad", GLASSGRAD_MALLOC_TUNING="")
    if _GLIBC_LINUX:
        assert untuned > 10_000
        assert tuned < untuned / 10
    else:
        assert tuned == pytest.approx(untuned, rel=0.5)
