"""The logs in a real TensorBoard: the test starts ``tensorboard --logdir ... --port 0`` on
127.0.0.1, waits until it answers, opens the Scalars and Graphs dashboards in headless Chromium
(Debian's, driven by Playwright as the explorer tests do), finds the run, a scalar series and a
module group of the graph, expands it, and stops the server."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

import glassgrad as gg
from glassgrad import viz
from glassgrad.utils.tensorboard import SummaryWriter

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TENSORBOARD = Path(sys.executable).with_name("tensorboard")
START_TIMEOUT_S = 90


class Net(gg.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.ReLU())
        self.head = gg.nn.Linear(4, 2)

    def forward(self, x):
        return self.head(self.encoder(x))


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("tensorboard")
    model = Net()
    with SummaryWriter(root / "glassgrad_run") as writer:
        for step in range(20):
            writer.add_scalar("loss/train", 1.0 / (step + 1), step)
        writer.add_graph(model, gg.ones(2, 3))
        with viz.record_forward(model) as log:
            loss = model(gg.ones(2, 3)).sum()
        writer.add_backward_graph(loss, forward_log=log, trace=viz.trace_backward(loss))
    return root


@pytest.fixture(scope="module")
def server(logdir):
    assert TENSORBOARD.exists(), f"the tensorboard command is missing: {TENSORBOARD}"
    process = subprocess.Popen(
        [
            str(TENSORBOARD),
            "--logdir",
            str(logdir),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--load_fast",
            "false",
        ],  # fmt: skip
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    found: list[str] = []
    lines: list[str] = []

    def read_address():  # the server prints its address on stderr once it listens
        for line in process.stderr:
            lines.append(line)
            match = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            if match and not found:
                found.append(match.group(1))

    reader = threading.Thread(target=read_address, daemon=True)
    reader.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    runs = None
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if found:
                try:
                    with urllib.request.urlopen(found[0] + "data/runs", timeout=5) as response:
                        runs = json.loads(response.read())
                    if "glassgrad_run" in runs:
                        break
                except OSError:
                    pass
            time.sleep(0.2)
        assert runs is not None and "glassgrad_run" in runs, (
            f"TensorBoard did not answer within {START_TIMEOUT_S} s: {''.join(lines)[-2000:]}"
        )
        yield found[0]
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    assert process.poll() is not None  # stopped


@pytest.fixture(scope="module")
def browser():
    assert shutil.which("chromium"), "Debian's chromium must be installed (scripts/setup.sh dev)"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    yield page
    context.close()


def test_the_server_lists_the_runs(server):
    with urllib.request.urlopen(server + "data/runs", timeout=5) as response:
        assert sorted(json.loads(response.read())) == ["glassgrad_run", "glassgrad_run/backward"]


def test_scalars_dashboard_shows_the_run_and_the_series(page, server):
    page.goto(server + "#scalars")
    page.get_by_text("tag: loss/train").first.wait_for(timeout=30_000)
    assert page.get_by_text("glassgrad_run", exact=True).first.is_visible()
    card = page.locator("tf-scalar-card, .card").filter(has_text="tag: loss/train").first
    card.wait_for(timeout=30_000)
    assert page.errors == []


def test_graphs_dashboard_shows_module_groups_that_expand(page, server):
    page.goto(server + "#graphs")
    group = page.locator('g.node.meta[data-name="Net"]')
    group.wait_for(timeout=30_000)
    assert page.locator('g.node[data-name="input"]').count() == 1
    group.locator("rect").first.dblclick()  # expand the model's group
    inner = page.locator('g.node.meta[data-name="Net/Sequential[encoder]"]')
    inner.wait_for(timeout=30_000)
    assert page.locator('g.node.meta[data-name="Net/Linear[head]"]').count() == 1
    assert page.errors == []
