"""bench.tensorboard_cost stays alive: quick mode times the three configs and prints the table.
Nothing here asserts anything about time."""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench import tensorboard_cost  # noqa: E402


def test_quick_mode_times_each_config_and_reports_the_overhead(capsys):
    times, per_call = tensorboard_cost.main(["--quick"])
    assert list(times) == ["plain", "glassgrad", "tensorboard"]
    assert list(per_call) == ["glassgrad", "tensorboard"] and min(per_call.values()) > 0
    assert all(len(values) == 2 and all(v > 0 for v in values) for values in times.values())
    out = capsys.readouterr().out
    assert "2 rounds x 3 steps" in out
    lines = out.splitlines()
    assert lines[1].split()[:2] == ["config", "ms/step"]
    assert [line.split()[0] for line in lines[2:5]] == ["plain", "glassgrad", "tensorboard"]
    assert lines[3].rstrip().endswith("%") and not lines[2].rstrip().endswith("%")
    assert lines[5].startswith("logging alone")
    assert "us/call" in lines[6] and lines[6].endswith("% of a plain step")
