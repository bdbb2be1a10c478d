"""The Attention-at-scale page in a real browser at 1280×720 with the sidebar collapsed: the whole tile figure,
tick labels included, on the first screen, no error element, and the → key steps to the next key block (its
number goes to the URL) without an error; the measured window and linear-attention figures draw."""

from __future__ import annotations

import pytest

from tests.browser.conftest import ROOT, assert_no_error, wait_for_app
from tests.browser.test_first_screen import projector_page  # noqa: F401  (the 1280×720 fixture)


def _bottom(page, selector: str) -> float:
    """The lowest edge of anything drawn inside the figure (its tick labels included), in viewport px."""
    return page.evaluate(f"""() => Math.max(...Array.from(document.querySelectorAll("{selector} svg *"))
                              .map(e => e.getBoundingClientRect().bottom).filter(b => b > 0))""")


def test_tiles_on_the_first_screen_and_stepping(projector_page):  # noqa: F811
    page = projector_page("Attention_at_scale")
    figure = page.locator(".st-key-scale_tiles .js-plotly-plot").first
    figure.wait_for(timeout=60_000)
    assert figure.bounding_box()["y"] < 720
    page.locator(".st-key-scale_tiles g.xtick text").first.wait_for(timeout=60_000)
    assert _bottom(page, ".st-key-scale_tiles .js-plotly-plot") <= 720  # the x tick labels too
    angles = page.evaluate("""() => Array.from(document.querySelectorAll(".st-key-scale_tiles g.xtick text"))
                              .map(e => e.getAttribute("transform") || "")""")
    assert angles and not any("rotate" in a for a in angles)  # horizontal: they never run down the screen
    assert_no_error(page)
    (ROOT / "screenshots").mkdir(exist_ok=True)
    page.wait_for_timeout(500)
    page.screenshot(path=str(ROOT / "screenshots" / "at_scale_1280x720.png"))
    page.locator(".st-key-scale_next button").first.click()
    page.wait_for_function("new URLSearchParams(location.search).get('scale_step') === '2'", timeout=60_000)
    wait_for_app(page)
    page.locator(".st-key-scale_tiles .js-plotly-plot").first.wait_for(timeout=60_000)
    assert_no_error(page)


@pytest.mark.parametrize(
    "topic, key", [("Windows and sinks", "scale_window_ppl"), ("Linear attention", "scale_linear_cost")]
)
def test_measured_tabs_draw(projector_page, topic: str, key: str):  # noqa: F811
    page = projector_page(f"Attention_at_scale?topic={topic.replace(' ', '+')}")
    figure = page.locator(f".st-key-{key} .js-plotly-plot").first
    figure.wait_for(timeout=60_000)
    page.locator(f".st-key-{key} g.xtick text").first.wait_for(timeout=60_000)
    assert_no_error(page)
    figure.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    figure.screenshot(path=str(ROOT / "screenshots" / f"at_scale_{key}.png"))
