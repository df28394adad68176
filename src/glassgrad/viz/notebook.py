"""Jupyter display: what ``explore``, ``make_dot`` and ``grad_report`` return shows itself inline.

* :class:`ExplorerPage` (from :func:`explore`) is the path it wrote, and in a notebook the
  explorer itself, in an ``<iframe srcdoc=...>`` (self-contained: no server, no network);
* :class:`GlassDigraph` (from :func:`make_dot`) is drawn as SVG by Graphviz (as graphviz's own
  objects are), or says how to install Graphviz when ``dot`` is missing;
* :class:`GradReport` (from :func:`grad_report`) is an HTML table, problems in red.
"""

from __future__ import annotations

import html
import os
from typing import Any

__all__ = ["ExplorerPage", "iframe_html", "report_html"]

IFRAME_HEIGHT = 640


class ExplorerPage(str):
    """The path :func:`explore` wrote; Jupyter shows the explorer inline.

    ``page`` is the HTML text itself. It is a ``str``, so code that used the returned path
    (``open(explore(...))``, ``webbrowser.open(...)``) keeps working.
    """

    page: str

    def __new__(cls, path: str | os.PathLike[str], page: str) -> ExplorerPage:
        self = super().__new__(cls, os.fspath(path))
        self.page = page
        return self

    def _repr_html_(self) -> str:
        return iframe_html(self.page)


def iframe_html(page: str, height: int = IFRAME_HEIGHT) -> str:
    """``page`` inline in an iframe (``srcdoc``: the page travels inside the notebook)."""
    return (
        f'<iframe srcdoc="{html.escape(page, quote=True)}" '
        f'style="width: 100%; height: {height}px; border: 1px solid #d6d9de;" '
        'sandbox="allow-scripts" title="glassgrad graph explorer"></iframe>'
    )


def _cell(text: Any) -> str:
    return f"<td>{html.escape(str(text))}</td>"


def report_html(report: Any) -> str:
    """A :class:`GradReport` as an HTML table (problems in red, details listed under it)."""
    from ._status import STATUS_FROZEN, STATUS_OK

    def number(value: float | None) -> str:
        return "-" if value is None else f"{value:.3g}"

    rows = []
    for row in report:
        g = row.grad
        bad = row.status not in (STATUS_OK, STATUS_FROZEN)
        style = ' style="color: #b00000; font-weight: 600"' if bad else ""
        shape = "" if row.shape is None else "(" + ", ".join(map(str, row.shape)) + ")"
        rows.append(
            f"<tr{style}>"
            + _cell(row.name)
            + _cell(shape)
            + _cell(row.status)
            + _cell(number(g.norm) if g else "-")
            + _cell(number(g.min) if g else "-")
            + _cell(number(g.max) if g else "-")
            + _cell(f"{g.num_nan}/{g.num_inf}/{g.num_zero}" if g else "-")
            + "</tr>"
        )
    head = "".join(
        f"<th>{h}</th>"
        for h in ("parameter", "shape", "status", "grad norm", "min", "max", "nan/inf/zero")
    )
    parts = [f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"]
    problems = report.problems()
    if problems:
        items = "".join(
            f"<li><b>{html.escape(r.name)}</b> [{html.escape(r.status)}]: "
            f"{html.escape(r.detail)}</li>"
            for r in problems
        )
        parts.append(f"<p>{len(problems)} problem(s):</p><ul>{items}</ul>")
    else:
        parts.append(f"<p>all {len(report)} rows ok</p>")
    if len(report.modules) > 1:
        module_rows = "".join(
            "<tr>"
            + _cell(m.label)
            + _cell(m.params)
            + _cell(m.status if not m.problems else f"{m.status} ({m.problems} of {m.params})")
            + _cell(number(m.grad_norm))
            + "</tr>"
            for m in report.modules
        )
        parts.append(
            "<table><thead><tr><th>module</th><th>params</th><th>status</th>"
            f"<th>grad norm</th></tr></thead><tbody>{module_rows}</tbody></table>"
        )
    return "\n".join(parts)
