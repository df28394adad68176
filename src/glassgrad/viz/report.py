"""``grad_report``: one table saying which parameters got a useful gradient, and which did not.

For every named parameter: no gradient (and why, from :mod:`.diagnose`), NaN/Inf entries, an
exploding norm, all zeros, or ok; the growth or shrinkage of gradient norms across depth (the
relative rules of :func:`check_health`); plus the in-place hazards of the graph (a tensor saved for
backward and modified in place afterwards, which makes backward fail) and any error backward
raised. The same rows come back as data for tests and notebooks.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import IO, Any

from ..autograd.inplace_record import describe_last_write
from ._graph import (
    OP,
    Graph,
    build_graph,
    is_tensor,
    read_traceback,
    shares_memory,
    user_frame,
)
from ._stats import TensorStats, dtype_name, format_shape, tensor_stats
from ._status import (
    STATUS_BACKWARD_ERROR,
    STATUS_EXPLODING,
    STATUS_FROZEN,
    STATUS_INPLACE,
    STATUS_NO_GRAD,
    STATUS_NONFINITE,
    STATUS_NOT_FROZEN,
    STATUS_OK,
    STATUS_VANISHING,
    STATUS_ZERO,
)
from .diagnose import REASON_OK, diagnose_params
from .forward import ForwardLog
from .health import check_health
from .report_modules import (
    ModuleRow,
    apply_expected_frozen,
    format_module_table,
    frozen_matcher,
    module_rows,
)
from .trace import record_backward

__all__ = [
    "grad_report",
    "GradReport",
    "GradReportRow",
    "STATUS_OK",
    "STATUS_NO_GRAD",
    "STATUS_NONFINITE",
    "STATUS_EXPLODING",
    "STATUS_ZERO",
    "STATUS_VANISHING",
    "STATUS_INPLACE",
    "STATUS_BACKWARD_ERROR",
    "STATUS_FROZEN",
    "STATUS_NOT_FROZEN",
    "ModuleRow",
    "format_table",
    "saved_version_problems",
    "stale_saved_text",
]


@dataclass(frozen=True)
class GradReportRow:
    """One line of the report: a parameter, or a hazard of the graph.

    ``status`` is one of the ``STATUS_*`` constants; ``reason`` for "no grad" rows is one of
    the ``REASON_*`` constants of :mod:`glassgrad.viz.diagnose`; ``detail`` says it in words.
    The gradient statistics are None where there is no gradient.
    """

    name: str
    status: str
    detail: str
    shape: tuple[int, ...] | None = None
    dtype: str | None = None
    reason: str = ""
    grad: TensorStats | None = None

    @property
    def norm(self) -> float | None:
        return self.grad.norm if self.grad else None


class GradReport(list[GradReportRow]):
    """A list of :class:`GradReportRow` whose ``str()`` is the terminal table; ``modules``
    holds one :class:`ModuleRow` per module that owns parameters (a summary of its rows)."""

    modules: list[ModuleRow]

    def __init__(self, rows: Iterable[GradReportRow] = (), modules: list[Any] | None = None):
        super().__init__(rows)
        self.modules = list(modules or [])

    def problems(self) -> list[GradReportRow]:
        """The rows whose status is not "ok" (a parameter frozen as expected is no problem)."""
        return [row for row in self if row.status not in (STATUS_OK, STATUS_FROZEN)]

    def module(self, name: str) -> ModuleRow:
        """The summary row of module ``name`` (``""`` for parameters of the model itself)."""
        for row in self.modules:
            if row.name == name:
                return row
        raise KeyError(f"grad_report: no module named {name!r}")

    def _repr_html_(self) -> str:
        from .notebook import report_html

        return report_html(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # IPython's plain-text display: the table, not a list of dataclass reprs.
        printer.text(str(self))

    def by_name(self, name: str) -> GradReportRow:
        for row in self:
            if row.name == name:
                return row
        raise KeyError(f"grad_report: no row named {name!r}")

    def __str__(self) -> str:
        return format_table(self)


def grad_report(
    loss: Any,
    named_parameters: Mapping[str, Any] | Iterable[tuple[str, Any]],
    *,
    backward: bool = True,
    exploding_norm: float = 1e3,
    forward_log: ForwardLog | None = None,
    expected_frozen: Iterable[Any] | None = None,
    file: IO[str] | None = None,
    show: bool = True,
) -> GradReport:
    """Check the gradients of ``named_parameters`` from ``loss``; print a table, return rows.

    Parameters
    ----------
    loss : Tensor
        The scalar the parameters should be trained on.
    named_parameters : iterable of (name, Tensor) or dict
        E.g. ``model.named_parameters()``.
    backward : bool
        True (default): run ``loss.backward()`` here, in place of your own call (the graph is
        checked for in-place hazards first, while its saved tensors still exist). False: report
        on the ``.grad`` already computed.
    exploding_norm : float
        A gradient whose L2 norm exceeds this is reported as exploding.
    forward_log : ForwardLog, optional
        From :func:`record_forward` around the forward pass: makes the "no grad" reasons exact
        (module never called / ran under no_grad / output cut) and module types in the
        module summary.
    expected_frozen : iterable of str, Module or Tensor, optional
        What you mean to keep frozen: parameter names, module name prefixes (``"backbone"``
        covers ``backbone.0.weight``), modules or tensors. Those parameters are "frozen" (not a
        problem) when they get no gradient, and "not frozen" (a problem) when they do.
    file : text stream, optional
        Where to print the table (default ``sys.stdout``).
    show : bool
        Print the table (set False to get only the rows).

    Returns
    -------
    GradReport
        A list of :class:`GradReportRow`, one per parameter, then one per hazard or error;
        ``.modules`` has one summary row per module (worst status, total gradient norm), also
        printed under the table when there are several.

    Examples
    --------
    >>> model = glassgrad.nn.Linear(3, 1)
    >>> loss = model(glassgrad.ones(2, 3)).sum()
    >>> [row.status for row in grad_report(loss, model.named_parameters(), show=False)]
    ['ok', 'ok']
    """
    if not is_tensor(loss):
        raise TypeError(
            f"grad_report: expected the loss tensor, got {type(loss).__name__}"
            + ("; call the model first and pass its loss" if hasattr(loss, "forward") else "")
        )
    pairs = list(
        named_parameters.items() if isinstance(named_parameters, Mapping) else named_parameters
    )
    graph = build_graph(loss, pairs, func_name="grad_report")
    statuses = diagnose_params(graph, pairs, func_name="grad_report", forward_log=forward_log)
    hazards = _inplace_hazards(graph, pairs)
    extra: list[GradReportRow] = list(hazards)
    if backward:
        extra.extend(_run_backward(loss))
    frozen = frozen_matcher(expected_frozen, pairs, "grad_report")
    rows = [
        apply_expected_frozen(_param_row(status, exploding_norm), status.tensor, frozen)
        for status in statuses
    ]
    report = GradReport([*rows, *extra], module_rows(rows, pairs, forward_log))
    # The relative rules of the shared health verdict: growth or shrinkage across depth.
    health = check_health(loss, pairs, graph=graph, forward_log=forward_log)
    for finding in health.findings:
        if finding.kind in (STATUS_EXPLODING, STATUS_VANISHING):
            report.append(GradReportRow(f"<{finding.subject}>", finding.kind, finding.detail))
    if show:
        print(format_table(report), file=file if file is not None else sys.stdout)
    return report


def _run_backward(loss: Any) -> list[GradReportRow]:
    rows = []
    with record_backward(loss) as trace:
        try:
            loss.backward()
        except RuntimeError as error:
            message = str(error)
            hint = ""
            if "second time" in message:
                hint = " (backward already ran on this graph: pass backward=False to report on it)"
            rows.append(GradReportRow("<backward>", STATUS_BACKWARD_ERROR, f"{message}{hint}"))
    for node in trace.nonfinite_origins():
        record = trace.record_of(node)
        where = creation_text(node)
        rows.append(
            GradReportRow(
                f"<{record.name}>",
                STATUS_NONFINITE,
                f"NaN/Inf first appeared in backward here: {record.name} received finite "
                f"gradients and produced non-finite ones{where}",
            )
        )
    return rows


def creation_text(node: Any) -> str:
    """ ", created at file:line: code" from the anomaly-mode traceback, or a hint to get it."""
    frame = user_frame(read_traceback(node))
    if frame is None:
        return " (run the forward under glassgrad.autograd.detect_anomaly() to see its line)"
    filename, line, _, code = frame
    return f", created at {filename}:{line}: {code}"


def _param_row(status: Any, exploding_norm: float) -> GradReportRow:
    tensor = status.tensor
    shape = tuple(int(d) for d in tensor.shape)
    dtype = dtype_name(tensor.dtype)
    common = dict(shape=shape, dtype=dtype)
    if status.reason != REASON_OK:
        return GradReportRow(
            status.name, STATUS_NO_GRAD, status.detail, reason=status.reason, **common
        )
    grad = tensor.grad
    if grad is None:
        return GradReportRow(
            status.name,
            STATUS_NO_GRAD,
            "reachable from the loss but .grad is None: backward has not run (or the gradient "
            "was reset to None after it)",
            reason="backward not run",
            **common,
        )
    stats = tensor_stats(grad)
    if not stats.finite:
        detail = f"{stats.num_nan} NaN and {stats.num_inf} Inf of {stats.numel} entries"
        return GradReportRow(status.name, STATUS_NONFINITE, detail, grad=stats, **common)
    if stats.norm is not None and stats.norm > exploding_norm:
        detail = f"norm {stats.norm:.4g} > {exploding_norm:g}"
        return GradReportRow(status.name, STATUS_EXPLODING, detail, grad=stats, **common)
    if stats.numel and stats.num_zero == stats.numel:
        detail = "every entry is 0 (dead ReLUs, a saturated activation, or a zero upstream)"
        return GradReportRow(status.name, STATUS_ZERO, detail, grad=stats, **common)
    return GradReportRow(status.name, STATUS_OK, "", grad=stats, **common)


def saved_version_problems(fn: Any) -> list[tuple[int, Any, int, int]]:
    """``(slot, tensor, saved version, current version)`` for each tensor that ``fn`` saved
    for backward and that was modified in place since (backward would raise on it)."""
    check = getattr(fn, "_stale_saved", None)
    return check() if check is not None else []


def last_change_text(tensor: Any) -> str:
    """`` The last in-place change to it was made by <node> (in place), at file:line ...``
    (recorded by glassgrad for every in-place write), or ``""``."""
    counter = getattr(tensor, "_version_counter", None)
    return describe_last_write(counter) if counter is not None else ""


def stale_saved_text(fn: Any) -> str:
    """Why backward through ``fn`` will fail on a saved tensor changed in place (the first
    one), with the op and line that changed it; ``""`` if nothing it saved is stale."""
    problems = saved_version_problems(fn)
    if not problems:
        return ""
    slot, tensor, saved_version, current = problems[0]
    what = "its result" if slot < 0 else f"its input {slot}"
    return (
        f"stale: {what} was saved at version {saved_version} and modified in place since "
        f"(now version {current}); backward through this node will raise."
        + last_change_text(tensor)
    )


def _inplace_hazards(graph: Graph, pairs: list[tuple[str, Any]]) -> list[GradReportRow]:
    rows = []
    for node in graph.nodes:
        if node.kind != OP:
            continue
        for slot, tensor, saved_version, current in saved_version_problems(node.obj):
            what = "its result" if slot < 0 else f"its input {slot}"
            owner = _param_name(tensor, pairs) if tensor is not None else None
            name = owner or f"{node.label}.{'result' if slot < 0 else f'input{slot}'}"
            shape = tuple(int(d) for d in tensor.shape) if tensor is not None else None
            detail = (
                f"{node.label} saved {what}{f' ({owner})' if owner else ''} at version "
                f"{saved_version}; it was modified in place since (now version {current}), so "
                f"backward will raise. Use the out-of-place op, or .clone() before modifying."
                + last_change_text(tensor)
            )
            rows.append(GradReportRow(name, STATUS_INPLACE, detail, shape=shape))
    return rows


def _param_name(tensor: Any, pairs: list[tuple[str, Any]]) -> str | None:
    for name, param in pairs:
        if param is tensor:
            return name
    for name, param in pairs:
        if shares_memory(param, tensor):
            return name
    return None


COLUMNS = ("parameter", "shape", "status", "grad norm", "min", "max", "nan", "inf", "zero")


def format_table(rows: list[GradReportRow]) -> str:
    """The report as a fixed-width table, problem details listed under it."""
    body = []
    for row in rows:
        g = row.grad
        body.append(
            (
                row.name,
                format_shape(row.shape) if row.shape is not None else "",
                row.status,
                _num(g.norm) if g else "-",
                _num(g.min) if g else "-",
                _num(g.max) if g else "-",
                str(g.num_nan) if g else "-",
                str(g.num_inf) if g else "-",
                str(g.num_zero) if g else "-",
            )
        )
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(COLUMNS)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(COLUMNS, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for cells in body:
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
    problems = [row for row in rows if row.status not in (STATUS_OK, STATUS_FROZEN) and row.detail]
    ok = sum(row.status in (STATUS_OK, STATUS_FROZEN) for row in rows)
    lines.append("")
    lines.append(f"{ok} of {len(rows)} rows ok" + ("; problems:" if problems else ""))
    for row in problems:
        lines.append(f"  {row.name} [{row.status}]: {row.detail}")
    modules = getattr(rows, "modules", [])
    if len(modules) > 1:
        lines.append("")
        lines.append(format_module_table(modules))
    return "\n".join(lines)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"
