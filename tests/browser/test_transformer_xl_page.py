"""The Transformer-XL page in a real browser: its attention over [memory | segment] draws on the
first screen at 1280×720, ← / → step segment by segment (the step follows in the URL), no error."""

from __future__ import annotations

from tests.browser.conftest import assert_no_error, save_screenshot, wait_for_app


def _segment(page) -> str | None:
    return page.evaluate("new URLSearchParams(location.search).get('txl_step')")


def test_segments_step_with_the_arrow_keys(open_page):
    page = open_page("Transformer_XL")
    page.set_viewport_size({"width": 1280, "height": 720})
    figure = page.locator(".st-key-txl_attention .js-plotly-plot").first
    figure.wait_for(timeout=60_000)
    assert_no_error(page)
    assert figure.bounding_box()["y"] < 720  # the main figure is on the first screen
    assert _segment(page) is None  # segment 1: the default, not written to the URL
    page.keyboard.press("ArrowRight")
    page.wait_for_function("new URLSearchParams(location.search).get('txl_step') === '2'", timeout=60_000)
    wait_for_app(page)
    page.keyboard.press("ArrowRight")
    page.wait_for_function("new URLSearchParams(location.search).get('txl_step') === '3'", timeout=60_000)
    wait_for_app(page)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("new URLSearchParams(location.search).get('txl_step') === '2'", timeout=60_000)
    wait_for_app(page)
    assert figure.is_visible()
    assert_no_error(page)
    save_screenshot(page, "transformer_xl")
