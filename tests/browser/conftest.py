"""Real-browser fixtures: a Streamlit server on a free port and headless Debian Chromium.

Browser tests skip only when no Chromium is installed, and never skip in CI (CI=true): there
a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server import streamlit_server

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """Start `streamlit run app.py` and yield its base URL once /_stcore/health answers."""
    with streamlit_server("app.py") as url:
        yield url


@pytest.fixture(scope="session")
def browser_context():
    """A persistent headless Chromium context in a fresh temporary profile."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: CI must install Debian chromium")
        pytest.skip(f"no browser installed at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="attn-lab-chromium-")
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            yield ctx
        finally:
            ctx.close()
            shutil.rmtree(profile, ignore_errors=True)


def wait_for_app(page, timeout_ms: int = 120_000) -> None:
    """Wait until the script run is over: app CONNECTED and notRunning, no skeleton left."""
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", timeout=timeout_ms)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout_ms)
    page.wait_for_function("document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0", timeout=timeout_ms)


def click_thumbnail(page, key: str, layer: int, head: int, off_centre: float = 0.0) -> None:
    """Click grid thumbnail (layer, head) of the mosaic under ``.st-key-{key}``, located from the
    plot's own axis transforms (thumbnail centres are the axes' tick values), ``off_centre`` of the
    distance to the next thumbnail right of and below its centre (0.4: near its lower right corner)."""
    plot = page.locator(f".st-key-{key} .js-plotly-plot").first
    x, y = plot.evaluate(
        """(gd, [layer, head, off]) => {
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
            const at = (axis, vals, i) => axis._offset + axis.l2p(vals[i]);
            const step = (axis, vals) => Math.abs(at(axis, vals, 1) - at(axis, vals, 0));
            return [at(xa, xa.tickvals, head) + off * step(xa, xa.tickvals),
                    at(ya, ya.tickvals, layer) + off * step(ya, ya.tickvals)];
        }""",
        [layer, head, off_centre],
    )
    plot.click(position={"x": x, "y": y})  # scrolls it into view first


def pick_studio_preset(page, preset: str) -> None:
    """Open the Training studio's settings and pick ``preset`` (a key of
    :data:`models.training.runs.PRESETS`), then wait until the form shows its step count: a Train
    click sent before the preset's rerun reached the form would train the form's previous values (a
    stale "notRunning" under load lets :func:`wait_for_app` return before that rerun starts)."""
    from playwright.sync_api import expect

    from models.training.runs import PRESETS
    from ui.strings import STRINGS

    page.get_by_role("button", name=STRINGS["studio.settings"][0]).click()
    page.get_by_role("combobox", name=STRINGS["studio.preset"][0]).click()
    page.get_by_role("option", name=STRINGS[f"studio.preset.{preset}"][0], exact=True).click()
    expect(page.get_by_role("slider", name=STRINGS["studio.steps"][0])).to_have_value(
        str(PRESETS[preset].steps), timeout=60_000
    )
    wait_for_app(page)


def open_logged(context, url: str, selector: str) -> tuple:
    """A new page at ``url`` that records the URL of every request it makes, once the run is over
    and ``selector`` is drawn: (page, the list of URLs)."""
    requests: list[str] = []
    page = context.new_page()
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url, wait_until="domcontentloaded")
    wait_for_app(page)
    page.wait_for_selector(selector, timeout=60_000)
    return page, requests


def outside(requests: list[str]) -> list[str]:
    """The requests that left this machine (anything over the network but to 127.0.0.1)."""
    from urllib.parse import urlparse

    return [
        u
        for u in requests
        if urlparse(u).scheme in ("http", "https", "ws", "wss") and urlparse(u).hostname != "127.0.0.1"
    ]


def forget_deck(page, app_url: str) -> None:
    """Start from an empty deck: the browser keeps the deck being built (localStorage), and the
    tests share one browser profile."""
    page.goto(f"{app_url}/_stcore/health", wait_until="domcontentloaded")
    page.evaluate("window.localStorage.removeItem('attention-lab-deck')")


def assert_no_error(page) -> None:
    """No exception or error element anywhere on the page."""
    for selector in ("[data-testid='stException']", "[data-testid='stAlertContentError']"):
        assert page.locator(selector).count() == 0, page.locator(selector).first.inner_text()


def save_screenshot(page, name: str) -> None:
    """Screenshot of the whole page (Streamlit scrolls inside stMain) to screenshots/<name>.png."""
    height = page.evaluate("document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight || 1000")
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 50, 12000)})
    page.wait_for_timeout(500)
    shots = ROOT / "screenshots"
    shots.mkdir(exist_ok=True)
    page.screenshot(path=str(shots / f"{name}.png"))


@pytest.fixture()
def open_page(app_url, browser_context):
    """Open a page by its URL path (e.g. 'Seq2seq_attention') and wait for it to settle."""
    pages = []

    def _open(path: str = ""):
        page = browser_context.new_page()
        pages.append(page)
        page.goto(f"{app_url}/{path}", wait_until="domcontentloaded")
        wait_for_app(page)
        return page

    yield _open
    for p in pages:
        p.close()


def open_picker(page, key: str):
    """Open selectbox ``key`` by keyboard and return its options; tried again if a late rerun of
    the page (the chart's selection settling) closed it before its options were drawn, or just after
    (failed once in CI, where the test then counted no options)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    options = page.get_by_role("listbox").get_by_role("option")
    for _ in range(3):
        wait_for_app(page)
        page.locator(f".st-key-{key} input").first.focus()
        page.keyboard.press("ArrowDown")
        try:
            options.nth(1).wait_for(timeout=10_000)
            page.wait_for_timeout(500)  # a rerun that lands just now closes it again: look once more
            wait_for_app(page)
            if options.count() > 1:
                return options
        except PlaywrightTimeout:
            pass
        page.keyboard.press("Escape")
    raise AssertionError(f"the selectbox {key} did not open")
