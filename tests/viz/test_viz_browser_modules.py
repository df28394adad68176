"""Module boxes in the explorer, in real headless Chromium: on the issue's four models (a
4-block transformer, an LSTMCell model unrolled 50 steps, a CNN, a PPO actor-critic) the default
view shows every label at 9 px or more when the whole graph is fitted on a 1920x1080 screen and
in a 1400x850 window;
boxes expand on click and collapse from their frame's label; folds unfold into their calls."""

from __future__ import annotations

import models
import pytest

from glassgrad.viz import explore

NEXT_FRAME = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"

pytestmark = pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("modules")
    paths = {}
    for name in ("transformer", "lstm", "cnn", "ppo"):
        run = getattr(models, name)()
        paths[name] = explore(run.loss, run.params, folder / f"{name}.html", forward_log=run.log)
    return paths


def open_page(browser, path, viewport=(1920, 1080)):
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"file://{path}")
    page.wait_for_selector("body[data-ready=true]", timeout=20_000)
    page.evaluate(NEXT_FRAME)
    page.errors = errors
    return page


def on_screen(page) -> dict:
    """What is drawn: the boxes (label, kind, whether each lies inside the canvas), the number of
    nodes drawn as themselves (not inside a closed box) and the smallest label's size in px."""
    return page.evaluate(
        """() => {
        const api = glassgradExplorer, size = api.canvasSize(), v = api.view;
        const inside = (x0, y0, x1, y1) => x0 * v.scale + v.x >= -1 && y0 * v.scale + v.y >= -1
            && x1 * v.scale + v.x <= size.width + 1 && y1 * v.scale + v.y <= size.height + 1;
        const boxes = api.groups().map(g => ({label: g.label, kind: g.kind, id: g.id,
            inside: inside(g.x0, g.y0, g.x1, g.y1)}));
        const drawn = api.data.nodes.length - api.keysWith('collapsed').length;
        return {boxes, nodes: drawn, minLabel: api.modules.minLabelPx(), scale: v.scale};
    }"""
    )


def click_box(page, item: str) -> None:
    point = page.evaluate(
        """item => {
        const api = glassgradExplorer, g = api.groups().find(g => g.id === item);
        const box = document.getElementById('canvas').getBoundingClientRect(), v = api.view;
        const y = g.collapsed ? (g.y0 + g.y1) / 2 : g.y0 + 10;
        return {x: box.left + ((g.x0 + g.x1) / 2) * v.scale + v.x, y: box.top + y * v.scale + v.y};
    }""",
        item,
    )
    page.mouse.click(point["x"], point["y"])
    page.evaluate(NEXT_FRAME)


@pytest.mark.parametrize("viewport", [(1920, 1080), (1400, 850)])
@pytest.mark.parametrize("name", ["transformer", "lstm", "cnn", "ppo"])
def test_default_view_is_readable_at_fit(browser, pages, name, viewport):
    page = open_page(browser, pages[name], viewport)
    # The view it opens with is readable, and so is the whole graph fitted.
    assert on_screen(page)["minLabel"] >= 9
    page.click("#fit")
    page.evaluate(NEXT_FRAME)
    shown = on_screen(page)
    assert page.errors == []
    assert shown["minLabel"] >= 9, shown
    assert shown["boxes"] and all(box["inside"] for box in shown["boxes"])
    labels = [box["label"] for box in shown["boxes"]]
    if name == "lstm":  # 919 nodes; the 49 identical steps are one box
        assert "cell (LSTMCell) ×49" in labels and shown["nodes"] < 40
    if name == "transformer":
        assert "blocks.0…3 (Block) ×4" in labels
    page.close()


def test_expand_and_collapse_a_module(browser, pages):
    page = open_page(browser, pages["transformer"])
    before = on_screen(page)
    (fold,) = [box for box in before["boxes"] if box["kind"] == "fold"]
    click_box(page, fold["id"])  # unfold: the four blocks, each a closed box
    blocks = [box for box in on_screen(page)["boxes"] if box["label"].startswith("blocks.")]
    assert sorted(box["label"] for box in blocks) == [f"blocks.{i} (Block)" for i in range(4)]
    assert "fold the calls again" in page.inner_text("#panel-body")
    (block,) = [box for box in blocks if box["label"] == "blocks.2 (Block)"]
    nodes_before = on_screen(page)["nodes"]
    click_box(page, block["id"])  # expand: its modules and nodes appear inside a frame
    opened = on_screen(page)
    frames = {box["label"]: box for box in opened["boxes"] if box["kind"] == "frame"}
    assert "blocks.2 (Block)" in frames
    assert "blocks.2.attn (Attention)" in [box["label"] for box in opened["boxes"]]
    assert opened["nodes"] > nodes_before
    assert page.inner_text("#panel-body").startswith("blocks.2 (Block)")
    click_box(page, frames["blocks.2 (Block)"]["id"])  # its label band: collapse again
    closed = on_screen(page)
    assert "blocks.2 (Block)" not in [b["label"] for b in closed["boxes"] if b["kind"] == "frame"]
    assert closed["nodes"] == nodes_before
    page.click("[data-action=fold]")  # fold the four calls again
    page.evaluate(NEXT_FRAME)
    assert "blocks.0…3 (Block) ×4" in [box["label"] for box in on_screen(page)["boxes"]]
    assert page.errors == []
    page.close()


def test_side_bar_module_shows_its_box(browser, pages):
    page = open_page(browser, pages["lstm"])
    page.click("#module-list li[data-module='head']")
    page.evaluate(NEXT_FRAME)
    panel = page.inner_text("#panel-body")
    assert panel.startswith("module 'head' (Linear)") and "called 50 times" in panel
    assert "50 calls with identical graphs" in panel and "show each call" in panel
    assert page.errors == []
    page.close()


def test_names_in_the_side_bar_break_only_between_parts(browser, pages):
    page = open_page(browser, pages["transformer"])
    breaks = page.evaluate(
        """() => {
        const found = [];
        for (const item of document.querySelectorAll('#param-list .pname')) {
            const text = item.textContent;
            let previousTop = null, offset = 0;
            const walker = document.createTreeWalker(item, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                for (let i = 0; i < node.length; i++, offset++) {
                    const range = document.createRange();
                    range.setStart(node, i); range.setEnd(node, i + 1);
                    const top = Math.round(range.getBoundingClientRect().top);
                    if (previousTop !== null && top > previousTop) found.push([text, offset]);
                    previousTop = top;
                }
            }
        }
        return found;
    }"""
    )
    assert breaks, "the long names should wrap in a 270 px side bar"
    for text, offset in breaks:
        assert text[offset - 1] in "._", f"{text!r} broken inside a word at {offset}"
    page.close()


def test_a_node_searched_for_inside_a_closed_box_is_shown(browser, pages):
    page = open_page(browser, pages["lstm"])
    hidden = page.evaluate("glassgradExplorer.keysWith('collapsed').length")
    page.fill("#search", "SplitBackward0")  # one per time step, all inside cell boxes
    page.press("#search", "Enter")
    page.evaluate(NEXT_FRAME)
    selected = page.evaluate("glassgradExplorer.selected()")
    assert "collapsed" not in page.evaluate(f"glassgradExplorer.flags({selected})")
    assert page.evaluate("glassgradExplorer.keysWith('collapsed').length") < hidden
    assert page.inner_text("#panel-body").startswith("SplitBackward0")
    page.close()
