"""The explorer in a real browser: headless Chromium (Debian's, driven by Playwright) loads the
file with the network blocked, a node is clicked, the panel read, a parameter's paths lit up,
the search used, and the screenshot checked for content."""

from __future__ import annotations

import io
import shutil

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import sync_playwright

import glassgrad as gg
from glassgrad.autograd import detect_anomaly
from glassgrad.viz import explore, record_forward, trace_backward

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),  # log(0) on purpose
    pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning"),
]


@pytest.fixture(scope="module")
def browser():
    assert shutil.which("chromium"), "Debian's chromium must be installed (scripts/setup.sh dev)"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    model = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.ReLU(), gg.nn.Linear(4, 2))
    unused = gg.nn.Linear(2, 2)
    x = gg.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    with detect_anomaly(check_nan=False), record_forward(model) as log:
        out = model(x)
        loss = gg.log(out.pow(2).mean() * 0)  # log(0): NaN/Inf on purpose
    params = dict(model.named_parameters())
    params["unused.weight"] = unused.weight
    trace = trace_backward(loss)
    path = tmp_path_factory.mktemp("explorer") / "graph.html"
    explore(loss, params, path, trace=trace, forward_log=log, title="test graph")
    return path


@pytest.fixture(scope="module")
def context(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 850})
    context.requests = []
    context.route(
        "**/*", lambda route: (context.requests.append(route.request.url), route.continue_())
    )
    yield context
    context.close()


@pytest.fixture
def page(context, page_file):
    context.requests.clear()
    errors = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.goto(page_file.as_uri())
    page.wait_for_selector("body[data-ready=true]", timeout=10_000)
    page.requests, page.errors = list(context.requests), errors
    yield page
    page.close()


def test_loads_offline_without_errors(page, page_file):
    assert page.errors == []
    assert page.requests == [page_file.as_uri()]  # nothing but the file itself
    assert page.title() == "test graph"
    assert page.locator("g.node").count() > 10
    assert "backward recorded" in page.inner_text("#summary")


def test_click_a_node_shows_its_details(page):
    page.click("#fit")  # the whole graph in view
    page.click("g.node[data-label=PowBackward0]")
    panel = page.inner_text("#panel-body")
    assert panel.startswith("PowBackward0")
    assert "backward step" in panel
    assert "(5, 2) float32" in panel  # input and output shapes
    assert "SAVED FOR BACKWARD" in panel.upper()
    assert "GRADIENT RECEIVED" in panel.upper() and "GRADIENT SENT" in panel.upper()
    assert "test_viz_browser.py" in panel  # the line of code that created it
    assert "out.pow(2).mean()" in panel
    assert page.locator("g.node.selected").count() == 1


def test_nan_origin_and_no_gradient_reasons_are_listed(page):
    problems = page.inner_text("#problems")
    assert "LogBackward0" in problems
    assert "unused.weight: no gradient" in problems and "not reachable" in problems
    assert page.locator("g.node.nan-origin").count() >= 1
    page.click("#problems .problem[data-problem=nan]")
    assert "NaN/Inf first appeared here" in page.inner_text("#panel-body")


def test_pick_a_parameter_highlights_its_paths_to_the_root(page):
    page.click("#param-list li[data-param='0.weight']")
    on_path = page.locator("g.node.on-path")
    labels = set(on_path.evaluate_all("nodes => nodes.map(n => n.dataset.label)"))
    assert {"0.weight", "AccumulateGrad", "AddmmBackward0", "LogBackward0"} <= labels
    assert "2.bias" not in labels  # not downstream of 0.weight
    assert page.locator("g.node.dimmed").count() > 0
    assert page.locator("path.edge.on-path").count() >= on_path.count() - 1
    page.click("#param-list li[data-param='unused.weight']")
    assert "not reachable" in page.inner_text("#panel-body")


def test_pick_a_module_lights_up_its_nodes(page):
    page.click("#module-list li[data-module='2']")
    labels = page.locator("g.node.on-path").evaluate_all(
        "nodes => nodes.map(n => n.dataset.label).sort()"
    )
    assert labels == sorted(
        ["2.weight", "2.bias", "AccumulateGrad", "AccumulateGrad", "TBackward0", "AddmmBackward0"]
    )
    panel = page.inner_text("#panel-body")
    assert panel.startswith("module '2' (Linear)") and "called 1 time" in panel


def test_search_finds_nodes_by_name(page):
    page.fill("#search", "accumulategrad")
    assert page.inner_text("#search-count") == "4 matches"
    page.press("#search", "Enter")
    assert page.inner_text("#panel-body").startswith("AccumulateGrad")
    assert page.inner_text("#search-count") == "1 of 4"


def test_zoom_and_pan_change_the_view(page):
    before = page.get_attribute("#viewport", "transform")
    page.mouse.move(700, 400)
    page.mouse.wheel(0, -400)
    zoomed = page.get_attribute("#viewport", "transform")
    assert zoomed != before
    page.mouse.move(600, 700)
    page.mouse.down()
    page.mouse.move(500, 650, steps=4)
    page.mouse.up()
    assert page.get_attribute("#viewport", "transform") != zoomed


def test_screenshot_is_not_blank(page, tmp_path):
    page.click("#fit")
    page.click("g.node[data-label=LogBackward0]")
    png = page.screenshot()
    (tmp_path / "explorer.png").write_bytes(png)
    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    assert image.shape[:2] == (850, 1400)
    colours = {tuple(c) for c in image.reshape(-1, 3)[::97]}
    assert len(colours) > 20  # text, boxes, colours: far from a blank page
    canvas = image[60:800, 300:1000]  # the graph area alone has drawn content
    assert canvas.std() > 10
    assert (np.abs(canvas - canvas[0, 0]).sum(axis=2) > 60).mean() > 0.01
