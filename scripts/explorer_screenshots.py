"""Screenshots of the explorer for the README: the 4-block transformer and the LSTMCell model
unrolled 50 steps (the test models of tests/viz/models.py), each in its default view, taken in
headless Chromium and saved as small palette PNGs in docs/images/.

Usage: .venv/bin/python scripts/explorer_screenshots.py
"""

from __future__ import annotations

import io
import pathlib
import shutil
import sys
import tempfile

from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "viz"))

import models  # noqa: E402

from glassgrad.viz import explore  # noqa: E402

SHOTS = {"transformer": "explorer_transformer.png", "lstm": "explorer_lstm.png"}


def main() -> None:
    out = ROOT / "docs" / "images"
    out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        for name, filename in SHOTS.items():
            run = getattr(models, name)()
            run.loss.backward()  # gradients, so the boxes show their norms
            path = explore(
                run.loss,
                run.params,
                pathlib.Path(folder) / f"{name}.html",
                forward_log=run.log,
                title=f"glassgrad explorer: {name}",
            )
            page = browser.new_page(viewport={"width": 1600, "height": 900})
            page.goto(pathlib.Path(path).as_uri())
            page.wait_for_selector("body[data-ready=true]", timeout=30_000)
            page.wait_for_timeout(300)
            image = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
            small = image.resize((1200, 675), Image.LANCZOS).quantize(colors=64)
            small.save(out / filename, optimize=True)
            print(f"wrote {out / filename}")
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
