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


def out_write(lib):
    w = lib.ones(3, requires_grad=True)
    c = lib.full((3,), 2.0)
    y = w * c  # Mul saves c for w's gradient
    lib.add(lib.ones(3), lib.ones(3), out=c)  # MARK-out
    return y


def resize(lib):
    w = lib.ones(3, requires_grad=True)
    c = lib.full((3,), 2.0)
    y = w * c
    c.resize_(2)  # MARK-resize
    return y


def embedding_renorm(lib):
    weight = (lib.ones(4, 3) * 3).requires_grad_()
    y = weight.pow(2)  # Pow saves weight
    lib.nn.functional.embedding(lib.tensor([1, 2]), weight, max_norm=1.0)  # MARK-renorm
    return y


def in_place_transpose(lib):
    w = lib.ones(2, 3, requires_grad=True)
    c = lib.ones(2, 3) * 2
    y = w * c
    c.t_()  # MARK-transpose
    return y


def grad_accumulation(lib):
    w = lib.ones(3, requires_grad=True)
    (w * 2).sum().backward()
    y = w * w.grad  # Mul saves w.grad for w's gradient
    (w * 3).sum().backward()  # MARK-accumulate
    return y


def zero_grad_kept(lib):
    w = lib.nn.Parameter(lib.ones(3))
    w.grad = lib.full((3,), 2.0)
    y = w * w.grad
    lib.optim.SGD([w], lr=0.1).zero_grad(set_to_none=False)  # MARK-zero-grad
    return y


@pytest.mark.parametrize(
    ("program", "marker", "what"),
    [
        (out_write, "MARK-out", "add(..., out=...)"),
        (resize, "MARK-resize", "resize_"),
        (embedding_renorm, "MARK-renorm", "embedding's max_norm=1 renorm (embedding_renorm_)"),
        (in_place_transpose, "MARK-transpose", "TBackward1 (in place)"),
        (
            grad_accumulation,
            "MARK-accumulate",
            "AccumulateGrad (adding a gradient into .grad in place)",
        ),
        (zero_grad_kept, "MARK-zero-grad", "Optimizer.zero_grad(set_to_none=False)"),
    ],
)
def test_every_version_bump_is_named(program, marker, what):
    # PyTorch raises for each of these programs; glassgrad with its words, then the change.
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        program(torch).sum().backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        program(gg).sum().backward()
    where = f"{__file__}:{line_of(marker)} in {program.__name__}"
    message = str(info.value)
    assert f"The last in-place change to it was made by {what}, at {where}: " in message
    assert message.endswith(f"# {marker}.")
