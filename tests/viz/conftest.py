"""Fixtures shared by the viz tests: one headless Chromium per test module."""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import sync_playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, driven by Playwright (the network is the page's business)."""
    assert shutil.which("chromium"), "Debian's chromium must be installed (scripts/setup.sh dev)"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield chromium
        chromium.close()
