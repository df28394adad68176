"""detect_anomaly (the core's autograd/anomaly.py) as the glass-box tools use it: it catches the
NaN made by ``log(0) * 0`` code, names the op and the user's line, like PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.autograd import detect_anomaly, is_anomaly_enabled
from glassgrad.viz._graph import read_traceback, user_frame

pytestmark = [
    pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning"),
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),  # NumPy's log(0) / 0*inf notes
    pytest.mark.filterwarnings("ignore:Error detected in LogBackward0:UserWarning"),  # torch's
]


def line_of(marker: str) -> int:
    """The line number of this file that carries ``marker`` in a comment."""
    with open(__file__, encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if f"# {marker}" in text:
                return number
    raise AssertionError(marker)


def test_log_zero_times_zero_is_caught_with_the_op_and_the_line():
    x = gg.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning) as record, detect_anomaly():
        loss = (gg.log(x) * 0).sum()  # MARK-log-zero
        with pytest.raises(RuntimeError) as info:
            loss.backward()
    message = str(info.value)
    assert message == "Function 'LogBackward0' returned nan values in its 0th output."
    # As PyTorch, the line that made the node comes in a warning; the error stays as it was.
    (where,) = [str(w.message) for w in record if "Error detected in" in str(w.message)]
    assert where.startswith("Error detected in LogBackward0. Traceback of forward call")
    assert f"line {line_of('MARK-log-zero')}" in where and "gg.log(x) * 0" in where
    assert not is_anomaly_enabled()
    # PyTorch raises the same error, with the same words, for the same program.
    tx = torch.tensor([0.0, 1.0], requires_grad=True)
    with torch.autograd.detect_anomaly(), pytest.raises(RuntimeError) as reference:
        (torch.log(tx) * 0).sum().backward()
    assert str(reference.value) == message


def test_without_anomaly_mode_the_nan_flows_into_grad_silently():
    x = gg.tensor([0.0, 1.0], requires_grad=True)
    (gg.log(x) * 0).sum().backward()
    assert np.isnan(x.grad.numpy()).tolist() == [True, False]


def test_check_nan_false_records_the_creation_line_without_raising():
    x = gg.tensor([0.0, 1.0], requires_grad=True)
    with detect_anomaly(check_nan=False):
        y = gg.log(x)  # MARK-created
    frame = user_frame(read_traceback(y.grad_fn))
    assert frame is not None
    filename, line, function, code = frame
    assert filename == __file__ and line == line_of("MARK-created")
    assert function == "test_check_nan_false_records_the_creation_line_without_raising"
    assert code == "y = gg.log(x)  # MARK-created"
    y.sum().backward()  # no error: NaN checks are off
    assert read_traceback((x * 2).grad_fn) == []  # outside the block nothing is recorded
