"""The seq2seq page in a real browser: open, step twice (button and → key), find the heatmap."""

from tests.browser.conftest import assert_no_error, save_screenshot, wait_for_app

STEP = "input[type=range][aria-label='Decoding step']"


def wait_for_step(page, value: int) -> None:
    page.wait_for_function(f"document.querySelector(\"{STEP}\")?.value === '{value}'", timeout=60_000)


def test_step_through_and_heatmap(open_page):
    page = open_page("Seq2seq_attention")
    page.wait_for_selector(".main-svg", timeout=60_000)
    wait_for_step(page, 1)
    page.get_by_role("button", name="Next").click()
    wait_for_step(page, 2)
    wait_for_app(page)
    page.keyboard.press("ArrowRight")  # the Next button's shortcut
    wait_for_step(page, 3)
    wait_for_app(page)
    assert page.locator(".js-plotly-plot .heatmaplayer").count() >= 1
    assert page.get_by_text("Step 3 of").count() == 1
    assert_no_error(page)
    save_screenshot(page, "seq2seq")
