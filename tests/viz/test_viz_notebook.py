"""The debugging notebook in examples/ runs top to bottom in a real Jupyter kernel (nbclient),
and what explore, make_dot and grad_report return displays inline: the report as an HTML
table, the drawing as SVG, the explorer in an iframe."""

from __future__ import annotations

import pathlib

import nbformat
from nbclient import NotebookClient

NOTEBOOK = pathlib.Path(__file__).resolve().parents[2] / "examples" / "debugging_a_model.ipynb"


def outputs_of(cell) -> dict[str, str]:
    found: dict[str, str] = {}
    for output in cell.get("outputs", []):
        for mime, value in output.get("data", {}).items():
            found[mime] = value if isinstance(value, str) else "".join(value)
        if output.get("output_type") == "stream":
            found["stream"] = found.get("stream", "") + output["text"]
    return found


def test_debugging_notebook_runs_and_displays_inline(tmp_path):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    shown = {cell.source.splitlines()[-1]: outputs_of(cell) for cell in code}

    first_report = outputs_of(code[2])
    assert (
        first_report["text/html"].startswith("<table>")
        and "not frozen" in first_report["text/html"]
    )
    assert first_report["text/plain"].startswith("parameter ")  # the terminal table
    problems = shown["[(row.name, row.status) for row in report.problems()]"]["text/plain"]
    assert "blocks.0.gate.weight" in problems and "encoder.weight" in problems
    outline = outputs_of(code[5])["stream"]
    assert "blocks.0…2 (Block) ×3" in outline and "  encoder (Linear)" in outline
    svg = outputs_of(code[6])
    assert "blocks.1 (Block)" in svg.get("text/html", "") + svg.get("image/svg+xml", "")
    frame = shown["page"]["text/html"]
    assert frame.startswith("<iframe srcdoc=") and "the broken classifier" in frame
    assert (tmp_path / "debugging_graph.html").stat().st_size > 1000
    (fixed,) = [cell for cell in code if "assert report.problems() == []" in cell.source]
    assert "all 16 rows ok" in outputs_of(fixed)["text/html"]
    assert "print(health)" in code[-1].source and outputs_of(code[-1])["stream"]
