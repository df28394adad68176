"""In-place diagnostics: the "modified by an inplace operation" error keeps PyTorch's words and
adds the op and the line that changed the saved tensor; grad_report and the explorer name them
before backward runs, and mark the node whose saved tensor is stale."""

from __future__ import annotations

import re

import pytest
import torch

import glassgrad as gg
from glassgrad.viz import explorer_data, grad_report


def line_of(marker: str) -> int:
    with open(__file__, encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if f"# {marker}" in text:
                return number
    raise AssertionError(marker)


def program(lib):
    x = lib.ones(3, requires_grad=True)
    h = (x * 2).exp()
    h.add_(1)  # MARK-inplace
    return x, h


def test_the_error_names_the_op_and_the_line_that_bumped_the_version():
    _, h = program(gg)
    with pytest.raises(RuntimeError) as info:
        h.sum().backward()
    message = str(info.value)
    # PyTorch's words first, unchanged.
    _, th = program(torch)
    with pytest.raises(RuntimeError) as reference:
        th.sum().backward()
    words = "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]]"
    assert message.startswith(words) and str(reference.value).startswith(words)
    assert "is at version 1; expected version 0 instead" in message
    # Then who changed it, and where.
    where = f"{__file__}:{line_of('MARK-inplace')} in program: h.add_(1)  # MARK-inplace"
    assert message.endswith(
        f"The last in-place change to it was made by AddBackward0 (in place), at {where}."
    )


def test_report_and_explorer_mark_the_stale_node_before_backward():
    x, h = program(gg)
    loss = h.sum()
    (row,) = [
        r
        for r in grad_report(loss, {"x": x}, backward=False, show=False)
        if r.status == "in-place hazard"
    ]
    assert f"test_viz_inplace.py:{line_of('MARK-inplace')} in program: h.add_(1)" in row.detail
    data = explorer_data(loss, {"x": x})
    stale = [n for n in data["nodes"] if n.get("stale")]
    assert [n["label"] for n in stale] == ["ExpBackward0"]
    assert re.match(
        r"stale: its result was saved at version 0 and modified in place since \(now version 1\)",
        stale[0]["stale"],
    )
    assert "made by AddBackward0 (in place)" in stale[0]["stale"]


def test_an_optimizer_step_is_named_as_the_change():
    w = gg.nn.Parameter(gg.ones(3))
    opt = gg.optim.SGD([w], lr=0.1)
    loss = (w * w).sum()  # Mul saves w
    w.grad = gg.ones(3)
    opt.step()  # MARK-step
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        loss.backward()
    assert "made by an optimizer step" in str(info.value)
    assert f":{line_of('MARK-step')} in test_an_optimizer_step_is_named_as_the_change" in str(
        info.value
    )
