"""The ``viz`` row: the graph explorer on a long chain (100,000 nodes in full mode).

``python -m bench.explorer --nodes 100000`` (run by ``measure`` in a fresh process) builds a
chain ``h = tanh(h * w)`` with one parameter ``w`` feeding every other node (a 50,000-edge fan),
and measures:

* ``explore()`` wall and CPU time and the page's size, without and with a recorded backward
  (the trace adds the gradient statistics of every node), and ``trace_backward``'s time;
* in headless Chromium (Debian's, driven by Playwright, ``--disable-gpu``: software drawing), on
  the traced page: the time from navigation to the first frame, the time from a click on the
  parameter to its 100,000 highlighted paths drawn, and frames per second while zooming with
  the wheel at three zooms (the whole graph, a middle zoom with boxes, labels) and while
  dragging, each event followed by the frame it causes; with the script's own time per frame
  (``scriptMs``: the rest of a frame is Chromium's drawing and compositing, which a loaded
  machine slows first) and the CPU time the browser's processes spend per frame
  (``browser_cpu_ms_per_frame``, with psutil: unlike frames per second, it does not fall
  with the machine's load).

Targets (issue 17): first frame <= 2 s, highlight <= 200 ms, >= 30 fps, page <= 10 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench.libraries import REPO_ROOT, child_env

TARGETS = {"first_frame_s": 2.0, "highlight_s": 0.2, "fps": 30.0, "page_mb": 10.0}
NODES = {"full": 100_000, "quick": 2_000}

# Runs in the page: wheel zoom at three zooms and a drag, each event then its frame.
_FPS_SCRIPT = """
async () => {
  const api = window.glassgradExplorer;
  const canvas = document.getElementById("canvas");
  const box = canvas.getBoundingClientRect();
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
  const out = {};
  const scenes = {
    whole: () => api.fit(),
    boxes: () => { api.fit(); api.zoomAt(300, box.width / 2, box.height / 2); },
    labels: () => api.centerOn(Math.floor(api.data.nodes.length / 2)),
  };
  for (const [name, setup] of Object.entries(scenes)) {
    setup(); await frame(); await frame();
    const f0 = api.stats.frames, ms0 = api.stats.totalFrameMs, t0 = performance.now();
    for (let i = 0; i < 40; i++) {
      canvas.dispatchEvent(new WheelEvent("wheel", { deltaY: i % 2 ? 80 : -80, clientX: cx, clientY: cy, bubbles: true, cancelable: true }));
      await frame();
    }
    const frames = api.stats.frames - f0;
    out[name] = { fps: frames / ((performance.now() - t0) / 1000), scriptMs: (api.stats.totalFrameMs - ms0) / frames, mode: api.stats.mode, visible: api.stats.visibleNodes };
  }
  scenes.whole(); await frame();
  const f0 = api.stats.frames, ms0 = api.stats.totalFrameMs, t0 = performance.now();
  canvas.dispatchEvent(new PointerEvent("pointerdown", { clientX: cx, clientY: cy, button: 0, bubbles: true }));
  for (let i = 0; i < 40; i++) {
    window.dispatchEvent(new PointerEvent("pointermove", { clientX: cx + i * 3, clientY: cy + i * 5, bubbles: true }));
    await frame();
  }
  window.dispatchEvent(new PointerEvent("pointerup", { clientX: cx + 120, clientY: cy + 200, bubbles: true }));
  const frames = api.stats.frames - f0;
  out.drag = { fps: frames / ((performance.now() - t0) / 1000), scriptMs: (api.stats.totalFrameMs - ms0) / frames, mode: api.stats.mode, visible: api.stats.visibleNodes };
  return out;
}
"""

_HIGHLIGHT_SCRIPT = """
async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const t0 = performance.now();
  document.querySelector("#param-list li[data-param='w']").click();
  await frame(); await frame();
  return { seconds: (performance.now() - t0) / 1000, lit: glassgradExplorer.keysWith("on-path").length };
}
"""


@contextmanager
def _timed(facts: dict[str, Any], name: str) -> Iterator[None]:
    # Wall time and this process's CPU time: on a loaded machine the wall time grows with
    # the other jobs, the CPU time much less.
    wall, cpu = time.perf_counter(), time.process_time()
    yield
    facts[f"{name}_s"] = time.perf_counter() - wall
    facts[f"{name}_cpu_s"] = time.process_time() - cpu


def build_pages(nodes: int, folder: str) -> dict[str, Any]:
    """Build the chain, write the pages; wall time and size of each."""
    import numpy as np

    import glassgrad as gg
    from glassgrad.viz import explore, trace_backward

    w = gg.nn.Parameter(gg.tensor(np.full(4, 1.0001, dtype=np.float32)))
    h = gg.ones(4)
    for _ in range(nodes // 2 - 1):
        h = (h * w).tanh()
    loss = h.sum()
    facts: dict[str, Any] = {}
    plain = os.path.join(folder, "plain.html")
    with _timed(facts, "explore"):
        explore(loss, {"w": w}, plain)
    facts["plain_mb"] = os.path.getsize(plain) / 1e6
    with _timed(facts, "trace_backward"):
        trace = trace_backward(loss)
    traced = os.path.join(folder, "traced.html")
    with _timed(facts, "explore_traced"):
        explore(loss, {"w": w}, traced, trace=trace)
    facts["page_mb"] = os.path.getsize(traced) / 1e6
    facts["graph_nodes"] = len(trace.graph.nodes) + 1  # and the parameter's own node
    facts["page"] = traced
    return facts


def browse(page_path: str) -> dict[str, Any]:
    """First frame, highlight and frames per second of the page in headless Chromium."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1400, "height": 850})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto("file://" + page_path)
        page.wait_for_selector("body[data-ready=true]", timeout=120_000)
        timings = page.evaluate("glassgradExplorer.timings")
        result = {"first_frame_s": (timings["start"] + timings["firstFrame"]) / 1000}
        result["first_frame_parts_s"] = {
            "html_and_script": timings["start"] / 1000,
            "payload": timings["payload"] / 1000,
            "index": (timings["indexed"] - timings["payload"]) / 1000,
            "draw": (timings["firstFrame"] - timings["indexed"]) / 1000,
        }
        page.wait_for_selector("body[data-details=true]", timeout=120_000)
        highlight = page.evaluate(_HIGHLIGHT_SCRIPT)
        result["highlight_s"] = highlight["seconds"]
        result["highlighted_nodes"] = highlight["lit"]
        cpu = _browser_cpu_s()
        frames = page.evaluate("glassgradExplorer.stats.frames")
        result["fps"] = page.evaluate(_FPS_SCRIPT)
        frames = page.evaluate("glassgradExplorer.stats.frames") - frames
        if cpu is not None:
            result["browser_cpu_ms_per_frame"] = (_browser_cpu_s() - cpu) * 1000 / frames
        result["errors"] = errors
        browser.close()
    return result


def _browser_cpu_s() -> float | None:
    # CPU time of this process's descendants: Playwright's driver and the Chromium it started
    # (all its processes). Per frame it is what a frame costs whatever the machine's load,
    # where frames per second fall with the CPU share the browser gets. None without psutil.
    try:
        import psutil
    except ImportError:
        return None
    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:  # exited meanwhile
            continue
        total += times.user + times.system
    return total


def measure(mode: str) -> dict[str, Any]:
    """Run the probe in a fresh process; the facts as a dict with ``status``."""
    nodes = NODES[mode]
    with tempfile.TemporaryDirectory(prefix="bench-viz-") as folder:
        out = os.path.join(folder, "result.json")
        command = [sys.executable, "-m", "bench.explorer", "--nodes", str(nodes), "--out", out]
        try:
            subprocess.run(command, env=child_env(), timeout=3600, check=True, cwd=str(REPO_ROOT))
        except (subprocess.SubprocessError, OSError) as error:
            return {"status": "failed", "error": str(error)}
        with open(out, encoding="utf-8") as handle:
            return json.load(handle)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.explorer")
    parser.add_argument("--nodes", type=int, default=NODES["full"])
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-viz-pages-") as folder:
        facts = build_pages(args.nodes, folder)
        facts.update(browse(facts.pop("page")))
    facts["status"] = "ok" if not facts["errors"] else "failed"
    facts["nodes"] = args.nodes
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(facts, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
