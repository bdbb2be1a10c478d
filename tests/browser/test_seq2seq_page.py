"""The seq2seq page in a real browser: open, step twice (button and → key), find the heatmap."""
from pathlib import Path

from tests.browser.conftest import ROOT, assert_no_error, wait_for_app


def slider_value(page) -> str:
    return page.locator("[data-testid='stSlider'] [role='slider']").first.get_attribute("aria-valuenow")


def test_step_through_and_heatmap(open_page):
    page = open_page("Seq2seq_attention")
    page.wait_for_selector(".main-svg", timeout=60_000)
    assert slider_value(page) == "1"
    page.get_by_role("button", name="Next ▶").click()
    wait_for_app(page)
    page.wait_for_function(
        "document.querySelector(\"[data-testid='stSlider'] [role='slider']\").getAttribute('aria-valuenow') === '2'")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "document.querySelector(\"[data-testid='stSlider'] [role='slider']\").getAttribute('aria-valuenow') === '3'")
    wait_for_app(page)
    heatmap = page.locator(".js-plotly-plot .heatmaplayer")
    assert heatmap.count() >= 1
    assert_no_error(page)
    shots = ROOT / "screenshots"
    shots.mkdir(exist_ok=True)
    page.screenshot(path=str(Path(shots / "seq2seq.png")), full_page=True)
