"""The Training studio in a real browser: the tiny preset trains to the end in the background
while the page polls it, the loss curve and the probe's attention map are on the first screen at
1280×720, and the scrubber replays the snapshots."""

from __future__ import annotations

import os
import re

import pytest

from tests.browser.conftest import assert_no_error, pick_studio_preset, save_screenshot, wait_for_app
from tests.server import streamlit_server

FIGURES = "[data-testid='stMain'] .js-plotly-plot"


@pytest.fixture()
def studio(browser_context, tmp_path):
    """A server of its own whose runs folder is a fresh temporary one, and a 1280×720 tab on the studio."""
    with streamlit_server("app.py", env=dict(os.environ, ATTENTION_LAB_RUNS=str(tmp_path))) as url:
        page = browser_context.new_page()
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(f"{url}/Training_studio", wait_until="domcontentloaded")
        wait_for_app(page)
        yield page
        page.close()


def test_tiny_run_trains_and_its_snapshots_replay(studio, browser_context):
    page = studio
    assert page.get_by_text("No run yet").count() == 1
    pick_studio_preset(page, "tiny")
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text(re.compile(r"Finished: 40 steps")).wait_for(timeout=180_000)
    page.keyboard.press("Escape")  # close the settings popover
    wait_for_app(page)
    assert_no_error(page)
    page.locator(FIGURES).nth(1).wait_for(timeout=60_000)  # the probe's attention map, the curves below it
    top = page.evaluate(f"""() => document.querySelector("{FIGURES}").getBoundingClientRect().top""")
    assert top <= 720 - 144, f"the main figure starts at {top:.0f} px"
    assert page.locator(".js-plotly-plot .main-svg").count() >= 2
    # a finished run opens on its latest snapshot, the trained model's attention; ◀ steps back
    page.get_by_text(re.compile(r"^Step 40: validation BLEU")).wait_for(timeout=30_000)
    page.get_by_role("button", name="◀ Prev").click()
    page.get_by_text(re.compile(r"^Step 30: validation BLEU")).wait_for(timeout=30_000)
    assert_no_error(page)
    save_screenshot(page, "training_studio")

    # the run is private to this browser, and stays its own over a fresh load of the page (a cookie)
    studio_url = page.url.split("?")[0]
    page.goto(studio_url, wait_until="domcontentloaded")
    wait_for_app(page)
    page.get_by_text(re.compile(r"^Step \d+: validation BLEU")).first.wait_for(timeout=30_000)
    assert page.get_by_text("No run yet").count() == 0
    browser_context.clear_cookies()  # another browser: it does not see the private run
    page.goto(studio_url, wait_until="domcontentloaded")
    wait_for_app(page)
    assert page.get_by_text("No run yet").count() == 1
