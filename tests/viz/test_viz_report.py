"""Why parameters get no gradient (each reason produced by a real model) and grad_report's
rows and table: no grad, zero, NaN/Inf, exploding, in-place hazards, backward errors."""

from __future__ import annotations

import io

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import viz
from glassgrad.viz import (
    REASON_CUT,
    REASON_FROZEN,
    REASON_NOT_LEAF,
    REASON_NOT_REACHABLE,
    REASON_OK,
    build_graph,
    diagnose_params,
    grad_report,
)
from glassgrad.viz.report import (
    STATUS_BACKWARD_ERROR,
    STATUS_EXPLODING,
    STATUS_INPLACE,
    STATUS_NO_GRAD,
    STATUS_NONFINITE,
    STATUS_OK,
    STATUS_ZERO,
)


class Tagger(gg.nn.Module):
    """A small model with the classic ways to lose a gradient."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = gg.nn.Linear(6, 8)  # "pretrained": frozen on purpose
        self.encoder = gg.nn.Linear(8, 8)
        self.gate = gg.nn.Linear(8, 8)  # used only through .detach() and .data
        self.head = gg.nn.Linear(8, 3)
        self.aux_head = gg.nn.Linear(8, 3)  # defined, never called
        self.embed.requires_grad_(False)

    def forward(self, x):
        h = gg.relu(self.encoder(self.embed(x)))
        h = h + h @ self.gate.weight.detach().t()
        h = h * self.gate.bias.data
        return self.head(h)


class FrozenBackbone(gg.nn.Module):
    """A backbone run under no_grad (feature extraction), plus a scale applied under no_grad."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = gg.nn.Linear(4, 6)
        self.scale = gg.nn.Parameter(gg.ones(2))
        self.head = gg.nn.Linear(6, 2)

    def forward(self, x):
        with gg.no_grad():
            features = self.backbone(x)
            scale = self.scale * 2
        return self.head(features) * scale


def inputs(*shape, seed=0):
    return gg.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def reasons(statuses):
    return {status.name: status.reason for status in statuses}


def test_each_reason_from_a_real_model():
    model = Tagger()
    loss = model(inputs(4, 6)).pow(2).mean()
    statuses = diagnose_params(build_graph(loss), model.named_parameters())
    assert reasons(statuses) == {
        "embed.weight": REASON_FROZEN,
        "embed.bias": REASON_FROZEN,
        "encoder.weight": REASON_OK,
        "encoder.bias": REASON_OK,
        "gate.weight": REASON_CUT,
        "gate.bias": REASON_CUT,
        "head.weight": REASON_OK,
        "head.bias": REASON_OK,
        "aux_head.weight": REASON_NOT_REACHABLE,
        "aux_head.bias": REASON_NOT_REACHABLE,
    }
    by_name = {status.name: status for status in statuses}
    # Cuts are seen where a tensor sharing the parameter's memory is saved: certain.
    assert by_name["gate.weight"].certain and by_name["gate.bias"].certain
    assert "detach()" in by_name["gate.weight"].detail
    assert "requires_grad=False" in by_name["embed.weight"].detail
    assert "not reachable" in by_name["aux_head.weight"].detail
    # The diagnosis agrees with what backward really does.
    loss.backward()
    for name, param in model.named_parameters():
        assert (param.grad is not None) == (by_name[name].reason == REASON_OK), name


def test_no_grad_cuts():
    model = FrozenBackbone()
    loss = model(inputs(3, 4)).sum()
    statuses = {s.name: s for s in diagnose_params(build_graph(loss), model.named_parameters())}
    # The scale was used under no_grad with its own shape: a likely cut, said as such.
    assert statuses["scale"].reason == REASON_CUT and not statuses["scale"].certain
    assert "no_grad" in statuses["scale"].detail
    # The backbone's output carries no trace of it: not reachable, the text names no_grad.
    assert statuses["backbone.weight"].reason == REASON_NOT_REACHABLE
    assert "no_grad" in statuses["backbone.weight"].detail
    assert statuses["head.weight"].reason == REASON_OK


def test_a_parameter_that_is_not_a_leaf():
    w = gg.randn(3, 2, requires_grad=True) * 0.1  # a classic mistake: the product is no leaf
    x = inputs(4, 3)
    loss = (x @ w).sum()
    (status,) = diagnose_params(build_graph(loss), {"w": w})
    assert status.reason == REASON_NOT_LEAF
    assert "MulBackward0" in status.detail and "retain_grad" in status.detail


def test_report_rows_for_a_healthy_model():
    model = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.Tanh(), gg.nn.Linear(4, 1))
    loss = model(inputs(5, 3)).pow(2).mean()
    out = io.StringIO()
    report = grad_report(loss, model.named_parameters(), file=out)
    assert [row.name for row in report] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(row.status == STATUS_OK for row in report)
    for row, (_, param) in zip(report, model.named_parameters(), strict=True):
        np.testing.assert_allclose(row.norm, np.linalg.norm(param.grad.numpy()), rtol=1e-6)
        assert row.shape == tuple(param.shape) and row.dtype == "float32"
    assert report.problems() == []
    table = out.getvalue()
    assert table.splitlines()[0].split() == [
        "parameter", "shape", "status", "grad", "norm", "min", "max", "nan", "inf", "zero",
    ]  # fmt: skip
    assert "4 of 4 rows ok" in table and str(report) + "\n" == table


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy notes log(0) and 0 * inf
def test_report_finds_no_grad_zero_nan_and_exploding():
    model = Tagger()
    dead = gg.nn.Linear(3, 3)  # its ReLU never fires: the gradient is all zeros
    with gg.no_grad():
        dead.bias.fill_(-100.0)
    blow = gg.nn.Parameter(gg.ones(2))
    broken = gg.nn.Parameter(gg.tensor([0.0, 1.0]))
    x = inputs(4, 6)
    loss = (
        model(x).pow(2).mean()
        + gg.relu(dead(inputs(2, 3))).sum()
        + (blow * 1e6).sum()
        + (gg.log(broken) * 0).sum()
    )
    named = list(model.named_parameters()) + [
        ("dead.weight", dead.weight),
        ("blow", blow),
        ("broken", broken),
    ]
    report = grad_report(loss, named, show=False)
    assert report.by_name("aux_head.weight").status == STATUS_NO_GRAD
    assert report.by_name("aux_head.weight").reason == REASON_NOT_REACHABLE
    assert report.by_name("embed.weight").reason == REASON_FROZEN
    assert report.by_name("gate.weight").reason == REASON_CUT
    assert report.by_name("dead.weight").status == STATUS_ZERO
    assert report.by_name("blow").status == STATUS_EXPLODING
    assert report.by_name("blow").norm == pytest.approx(1e6 * np.sqrt(2), rel=1e-6)
    broken_row = report.by_name("broken")
    assert broken_row.status == STATUS_NONFINITE and broken_row.grad.num_nan == 1
    # The op where NaN first appeared is a row of its own.
    (origin,) = [row for row in report if row.name == "<LogBackward0>"]
    assert origin.status == STATUS_NONFINITE and "first appeared" in origin.detail
    assert report.by_name("encoder.weight").status == STATUS_OK
    text = str(report)
    assert "aux_head.weight [no grad]" in text and "blow [exploding]" in text


def test_report_finds_in_place_hazards_before_backward_fails():
    w = gg.tensor([1.0, 2.0], requires_grad=True)
    h = w.exp()
    loss = (h * w).sum()  # Mul saves h (for w's gradient); Exp saves its result h
    h.add_(1.0)  # ... and now h is not what was saved
    report = grad_report(loss, {"w": w}, show=False)
    hazards = [row for row in report if row.status == STATUS_INPLACE]
    assert {row.name.split(".")[0] for row in hazards} == {"MulBackward0", "ExpBackward0"}
    assert all("modified in place" in row.detail for row in hazards)
    (error,) = [row for row in report if row.status == STATUS_BACKWARD_ERROR]
    assert "modified by an inplace operation" in error.detail
    assert report.by_name("w").status == STATUS_NO_GRAD  # backward failed: no gradient


def test_report_after_backward_and_backward_twice():
    w = gg.tensor([1.0, -2.0], requires_grad=True)
    loss = (w * w).sum()
    loss.backward()
    report = grad_report(loss, {"w": w}, backward=False, show=False)
    assert report.by_name("w").status == STATUS_OK
    assert report.by_name("w").grad.max == pytest.approx(2.0)
    again = grad_report(loss, {"w": w}, show=False)
    (error,) = [row for row in again if row.status == STATUS_BACKWARD_ERROR]
    assert "pass backward=False" in error.detail


def test_report_rejects_a_model_in_place_of_the_loss():
    model = gg.nn.Linear(2, 2)
    with pytest.raises(TypeError, match="grad_report: expected the loss tensor, got Linear"):
        grad_report(model, model.named_parameters())
    with pytest.raises(TypeError, match="grad_report: params must be a dict"):
        grad_report(model(gg.ones(1, 2)).sum(), [model.weight])


def test_report_is_exported_from_viz():
    assert viz.grad_report is grad_report
