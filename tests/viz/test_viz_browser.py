"""The explorer in a real browser: headless Chromium (Debian's, driven by Playwright) loads the
file with the network blocked, a node is clicked, the panel read, a parameter's paths lit up,
the search used, and the screenshot checked for content."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import glassgrad as gg
from glassgrad.autograd import detect_anomaly
from glassgrad.viz import explore, record_forward, trace_backward

pytestmark = [
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),  # log(0) on purpose
    pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning"),
]


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


NEXT_FRAME = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def keys_labelled(page, label):
    return page.evaluate(
        "label => glassgradExplorer.data.nodes.filter(n => n.label === label).map(n => n.key)",
        label,
    )


def labels_with(page, flag):
    return page.evaluate(
        "flag => glassgradExplorer.keysWith(flag).map(k => glassgradExplorer.data.nodes[k].label)",
        flag,
    )


def hot_pixels(page):
    """How many canvas pixels have the colour of highlighted paths (#e8590c)."""
    return page.evaluate(
        """() => {
          const canvas = document.getElementById("canvas");
          const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
          let found = 0;
          for (let i = 0; i < pixels.length; i += 4) {
            if (pixels[i] === 0xe8 && pixels[i + 1] === 0x59 && pixels[i + 2] === 0x0c) found++;
          }
          return found;
        }"""
    )


def click_node(page, key):
    """Bring the node into view, then click its pixels on the canvas (hit testing included)."""
    page.evaluate("key => glassgradExplorer.centerOn(key)", key)
    page.evaluate(NEXT_FRAME)
    point = page.evaluate("key => glassgradExplorer.clientPoint(key)", key)
    page.mouse.click(point["x"], point["y"])


def test_loads_offline_without_errors(page, page_file):
    assert page.errors == []
    assert page.requests == [page_file.as_uri()]  # nothing but the file itself
    assert page.title() == "test graph"
    assert page.evaluate("glassgradExplorer.data.nodes.length") > 10
    assert page.evaluate("glassgradExplorer.stats.frames") >= 1
    assert "backward recorded" in page.inner_text("#summary")


def test_click_a_node_shows_its_details(page):
    page.wait_for_selector("body[data-details=true]")
    page.click("#fit")  # the whole graph in view
    (key,) = keys_labelled(page, "PowBackward0")
    click_node(page, key)
    panel = page.inner_text("#panel-body")
    assert panel.startswith("PowBackward0")
    assert "backward step" in panel
    assert "(5, 2) float32" in panel  # input and output shapes
    assert "SAVED FOR BACKWARD" in panel.upper()
    assert "GRADIENT RECEIVED" in panel.upper() and "GRADIENT SENT" in panel.upper()
    assert "test_viz_browser.py" in panel  # the line of code that created it
    assert "out.pow(2).mean()" in panel
    assert page.evaluate("glassgradExplorer.keysWith('selected')") == [key]


def test_clicking_empty_canvas_clears_the_highlight(page):
    page.click("#param-list li[data-param='0.weight']")
    assert labels_with(page, "on-path")
    box = page.locator("#canvas").bounding_box()
    page.evaluate("glassgradExplorer.fit()")
    page.evaluate(NEXT_FRAME)
    page.mouse.click(box["x"] + 5, box["y"] + 5)  # a corner: no node there
    assert labels_with(page, "on-path") == [] and labels_with(page, "dimmed") == []


def test_nan_origin_and_no_gradient_reasons_are_listed(page):
    page.wait_for_selector("body[data-details=true]")
    problems = page.inner_text("#problems")
    assert "LogBackward0" in problems
    assert "unused.weight: no gradient" in problems and "not reachable" in problems
    assert "LogBackward0" in labels_with(page, "nan-origin")
    page.click("#problems .problem[data-problem=nan]")
    assert "NaN/Inf first appeared here" in page.inner_text("#panel-body")


def test_pick_a_parameter_highlights_its_paths_to_the_root(page):
    page.click("#param-list li[data-param='0.weight']")
    labels = set(labels_with(page, "on-path"))
    assert {"0.weight", "AccumulateGrad", "AddmmBackward0", "LogBackward0"} <= labels
    assert "2.bias" not in labels  # not downstream of 0.weight
    assert labels_with(page, "dimmed")
    page.click("#param-list li[data-param='unused.weight']")
    assert "not reachable" in page.inner_text("#panel-body")


def test_pick_a_module_lights_up_its_nodes(page):
    page.click("#module-list li[data-module='2']")
    labels = sorted(labels_with(page, "on-path"))
    assert labels == sorted(
        ["2.weight", "2.bias", "AccumulateGrad", "AccumulateGrad", "TBackward0", "AddmmBackward0"]
    )
    panel = page.inner_text("#panel-body")
    assert panel.startswith("module '2' (Linear)") and "called 1 time" in panel


def test_search_finds_nodes_by_name(page):
    page.wait_for_selector("body[data-details=true]")
    page.fill("#search", "accumulategrad")
    assert page.inner_text("#search-count") == "4 matches"
    assert len(labels_with(page, "match")) == 4
    page.press("#search", "Enter")
    assert page.inner_text("#panel-body").startswith("AccumulateGrad")
    assert page.inner_text("#search-count") == "1 of 4"


def view_of(page):
    return page.evaluate(
        "[glassgradExplorer.view.x, glassgradExplorer.view.y, glassgradExplorer.view.scale]"
    )


def test_zoom_and_pan_change_the_view(page):
    before = view_of(page)
    page.mouse.move(700, 400)
    page.mouse.wheel(0, -400)
    page.evaluate(NEXT_FRAME)
    zoomed = view_of(page)
    assert zoomed[2] > before[2]
    page.mouse.move(600, 700)
    page.mouse.down()
    page.mouse.move(500, 650, steps=4)
    page.mouse.up()
    moved = view_of(page)
    assert moved[0] == pytest.approx(zoomed[0] - 100) and moved[1] == pytest.approx(zoomed[1] - 50)


def test_a_moving_view_is_drawn_at_half_resolution_then_sharp_again(page):
    # Wheel zoom and drag frames are drawn on a half-size canvas (cheaper for Chromium's
    # software drawing); once the view is still, it is drawn again at full size.
    full = page.evaluate("document.getElementById('canvas').width")
    # "Still" after a minute: however slow the machine, the next frames are drawn moving.
    page.evaluate("glassgradExplorer.motion.stillMs = 60000")
    page.mouse.move(700, 400)
    page.mouse.wheel(0, -100)
    page.evaluate(NEXT_FRAME)
    assert page.evaluate("document.getElementById('canvas').width") == round(full / 2)
    page.evaluate("glassgradExplorer.motion.stillMs = 150")
    page.mouse.wheel(0, -100)
    page.wait_for_function(f"document.getElementById('canvas').width === {full}")
    page.evaluate("glassgradExplorer.motion.stillMs = 60000")
    page.mouse.down()
    page.mouse.move(650, 380, steps=3)
    page.evaluate(NEXT_FRAME)
    assert page.evaluate("document.getElementById('canvas').width") == round(full / 2)
    page.mouse.up()
    page.evaluate("glassgradExplorer.motion.stillMs = 150")
    page.mouse.down()
    page.mouse.move(640, 370)
    page.mouse.up()
    page.wait_for_function(f"document.getElementById('canvas').width === {full}")
    assert page.errors == []


def test_minimap_moves_the_view(page):
    page.evaluate("glassgradExplorer.zoomAt(4, 100, 100)")
    before = view_of(page)
    box = page.locator("#minimap").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.9, box["y"] + box["height"] * 0.9)
    page.evaluate(NEXT_FRAME)
    after = view_of(page)
    assert after[:2] != before[:2] and after[2] == before[2]


def test_groups_draw_boxes_and_collapse_to_one(page):
    # Any code may hand the renderer node sets to box; a collapsed one hides its members.
    keys = keys_labelled(page, "AccumulateGrad")[:2]
    page.evaluate(
        "keys => glassgradExplorer.setGroups([{id: 'g', label: 'two', keys, collapsed: true}])",
        keys,
    )
    page.evaluate(NEXT_FRAME)
    assert sorted(page.evaluate("glassgradExplorer.keysWith('collapsed')")) == sorted(keys)
    visible = page.evaluate("glassgradExplorer.visibleKeys()")
    assert not set(keys) & set(visible)
    group = page.evaluate("glassgradExplorer.groups()[0]")
    box = page.locator("#canvas").bounding_box()
    view = page.evaluate("glassgradExplorer.view")
    x = box["x"] + (group["x0"] + group["x1"]) / 2 * view["scale"] + view["x"]
    y = box["y"] + (group["y0"] + group["y1"]) / 2 * view["scale"] + view["y"]
    page.mouse.click(x, y)  # a click on a collapsed group expands it
    assert page.evaluate("glassgradExplorer.keysWith('collapsed')") == []


def test_screenshot_is_not_blank(page, tmp_path):
    page.click("#fit")
    page.evaluate(NEXT_FRAME)
    png = page.screenshot()
    (tmp_path / "explorer.png").write_bytes(png)
    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    assert image.shape[:2] == (850, 1400)
    colours = {tuple(c) for c in image.reshape(-1, 3)[::97]}
    assert len(colours) > 20  # text, boxes, colours: far from a blank page
    canvas = image[60:800, 300:1000]  # the graph area alone has drawn content
    assert canvas.std() > 10
    assert (np.abs(canvas - canvas[0, 0]).sum(axis=2) > 60).mean() > 0.01


def open_page(browser, path):
    page = browser.new_page(viewport={"width": 1400, "height": 850})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready=true]", timeout=10_000)
    page.errors = errors
    return page


def test_stale_node_and_exploding_stack_are_shown(browser, tmp_path):
    x = gg.ones(3, requires_grad=True)
    h = (x * 2).exp()
    h.add_(1)  # changes what ExpBackward0 saved
    explore(h.sum(), {"x": x}, tmp_path / "stale.html")
    page = open_page(browser, tmp_path / "stale.html")
    assert labels_with(page, "stale") == ["ExpBackward0"]
    problem = page.inner_text("#problems .problem[data-problem=stale]")
    assert "ExpBackward0" in problem and "h.add_(1)" in problem
    page.close()

    layers = [gg.nn.Linear(2, 2, bias=False) for _ in range(6)]
    with gg.no_grad():  # activations shrink along e1, gradients grow along e2
        for layer in layers:
            layer.weight.copy_(gg.tensor([[0.5, 0.0], [0.0, 3.0]]))
    y = gg.tensor([[1.0, 0.0]])
    for layer in layers:
        y = layer(y)
    loss = (y[:, 1] - y[:, 0] * 50).sum()
    trace = trace_backward(loss)
    params = {f"{i}.weight": layer.weight for i, layer in enumerate(layers)}
    explore(loss, params, tmp_path / "stack.html", trace=trace)
    page = open_page(browser, tmp_path / "stack.html")
    assert "0.weight: exploding" in page.inner_text("#problems")
    assert page.is_visible("#depth-chart")
    assert page.errors == []


def test_expected_frozen_is_shown(browser, tmp_path):
    body, head = gg.nn.Linear(3, 4), gg.nn.Linear(4, 1)
    body.requires_grad_(False)  # frozen on purpose; head was meant to be frozen too
    loss = head(body(gg.ones(2, 3))).sum()
    loss.backward()
    params = {"body.weight": body.weight, "head.weight": head.weight, "head.bias": head.bias}
    explore(loss, params, tmp_path / "frozen.html", expected_frozen=[body, head])
    page = open_page(browser, tmp_path / "frozen.html")
    problems = page.inner_text("#problems")
    assert "head.weight: not-frozen" in problems and "expected frozen" in problems
    assert "body.weight" not in problems  # no gradient, as meant
    assert page.inner_text("[data-param='body.weight'] .badge") == "frozen"
    assert page.inner_text("[data-param='head.weight'] .badge") == "not frozen"
    page.click("[data-param='body.weight']")
    assert "no gradient, as expected" in page.inner_text("#panel")
    assert page.errors == []


def test_custom_function_shows_its_name_and_docstring(browser, tmp_path):
    class Cube(gg.autograd.Function):
        """x ** 3 with a hand-written backward."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x**2

    x = gg.ones(2, requires_grad=True)
    explore(Cube.apply(x).sum(), {"x": x}, tmp_path / "cube.html")
    page = browser.new_page()
    page.goto((tmp_path / "cube.html").as_uri())
    page.wait_for_selector("body[data-details=true]", timeout=10_000)  # panels' data is read
    (key,) = page.evaluate(
        "glassgradExplorer.data.nodes.flatMap((n, k) => n.label === 'CubeBackward' ? [k] : [])"
    )
    page.evaluate(f"glassgradExplorer.select({key})")
    panel = page.inner_text("#panel-body")
    assert "custom Function" in panel and "Cube" in panel and "hand-written backward" in panel
    page.close()


def test_a_long_chain_is_drawn_by_cells_and_stays_clickable(browser, tmp_path):
    # 6,000 nodes with one weight feeding half of them: fitted whole, the page draws binned
    # cells of a zoom level (not 6,000 boxes), highlights every path, and a click still finds
    # the node under the pointer.
    w = gg.nn.Parameter(gg.ones(2))
    h = gg.ones(2)
    for _ in range(2999):
        h = (h * w).tanh()
    explore(h.sum(), {"w": w}, tmp_path / "chain.html")
    page = open_page(browser, tmp_path / "chain.html")
    page.click("#fit")
    page.evaluate(NEXT_FRAME)
    stats = page.evaluate("glassgradExplorer.stats")
    assert stats["mode"] == "cells" and 0 < stats["visibleNodes"] < 2000
    assert hot_pixels(page) == 0
    page.click("#param-list li[data-param='w']")
    page.evaluate(NEXT_FRAME)
    lit = page.evaluate("glassgradExplorer.keysWith('on-path')")
    assert len(lit) == page.evaluate("glassgradExplorer.data.nodes.length") == 6002
    # The cells built for the first fit are repainted: the whole chain is drawn lit.
    page.click("#fit")
    page.evaluate(NEXT_FRAME)
    assert page.evaluate("glassgradExplorer.stats.mode") == "cells"
    assert hot_pixels(page) > 1000
    # Zoomed in on the middle of the chain: labels, a handful of nodes, and the weight's fan
    # of edges passing through the view drawn as one line, not 3,000.
    key = keys_labelled(page, "TanhBackward0")[1500]
    click_node(page, key)
    stats = page.evaluate("glassgradExplorer.stats")
    assert stats["mode"] == "labels" and stats["visibleNodes"] < 40
    assert stats["visibleEdges"] < 100
    assert page.evaluate("glassgradExplorer.selected()") == key
    assert page.inner_text("#panel-body").startswith("TanhBackward0")
    assert page.errors == []
    page.close()
