"""Lecture-first layout, in a real browser: at 1280×720 with the sidebar collapsed, every page's
main figure starts on the first screen, with at least a fifth of the screen of it in view."""

from __future__ import annotations

import pytest

from tests.browser.conftest import assert_no_error, wait_for_app

PAGES = [
    "Attention_from_scratch",
    "Seq2seq_attention",
    "Positional_encoding",
    "Transformer_translation",
    "Inside_one_head",
    "Generation",
    "BERT_masking",
    "Real_model_explorer",
    "LLM_explorer?topic=translate",
]
FIGURES = "[data-testid='stMain'] .js-plotly-plot, [data-testid='stMain'] [data-testid='stImage']"
IN_VIEW_PX = 144  # a fifth of 720


@pytest.fixture()
def projector_page(app_url, browser_context):
    """A 1280×720 tab with the sidebar collapsed (as a teacher presents)."""
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})

    def _open(path: str):
        page.goto(f"{app_url}/{path}", wait_until="domcontentloaded")
        wait_for_app(page)
        page.locator(FIGURES).first.wait_for(timeout=60_000)
        if page.locator(
            "[data-testid='stSidebar'][aria-expanded='true'], [data-testid='stSidebar'][data-collapsed='false']"
        ).count():
            page.locator("[data-testid='stSidebar']").hover()
            page.locator("[data-testid='stSidebarCollapseButton']").first.click(force=True)
            page.wait_for_timeout(600)
        return page

    yield _open
    # The browser remembers a collapsed sidebar: open it again for the tests that use it.
    if page.locator("[data-testid='stSidebar'][data-collapsed='true']").count():
        page.locator("[data-testid='stExpandSidebarButton']").first.click(force=True)
        page.wait_for_selector("[data-testid='stSidebar'][data-collapsed='false']", timeout=10_000)
    page.close()


@pytest.mark.parametrize("path", PAGES)
def test_main_figure_on_the_first_screen(projector_page, path):
    page = projector_page(path)
    assert_no_error(page)
    assert page.locator("[data-testid='stSidebar'][data-collapsed='true']").count() == 1
    top = page.evaluate(f"""() => Math.min(...Array.from(document.querySelectorAll("{FIGURES}"))
                              .map(e => e.getBoundingClientRect().top))""")
    assert top <= 720 - IN_VIEW_PX, f"{path}: the first figure starts at {top:.0f} px"


ALL_PAGES = [
    *PAGES,
    "Transformer_block",
    "LLM_explorer",
    "Transformer_XL",
    "XLNet",
    "Attention_at_scale",
    "Attention_as_explanation",
]
# Each drawn figure's right edge against its column's (the nearest vertical block holding it).
OVERFLOW_JS = """() => Array.from(document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')).map(p => {
  const column = p.closest('[data-testid="stVerticalBlock"]') || p.parentElement;
  const svg = p.querySelector('.main-svg') || p;
  const key = (p.closest('[class*="st-key-"]') || {className: ''}).className.match(/st-key-([\\w-]+)/);
  const over = svg.getBoundingClientRect().right - column.getBoundingClientRect().right;
  return {key: key ? key[1] : '?', over: over}; })"""


def test_no_figure_is_wider_than_its_column_with_the_sidebar_open(app_url, browser_context):
    """At 1280×720 with the sidebar open (the narrowest the lab is drawn), every page's figures fit their
    columns: a figure planned for the collapsed sidebar ran under its neighbour or off the screen."""
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    try:
        for path in ALL_PAGES:
            page.goto(f"{app_url}/{path}", wait_until="domcontentloaded")
            wait_for_app(page)
            page.locator(FIGURES).first.wait_for(timeout=60_000)
            if page.locator("[data-testid='stSidebar'][data-collapsed='true']").count():  # remembered collapsed
                page.locator("[data-testid='stExpandSidebarButton']").first.click(force=True)
            page.wait_for_selector("[data-testid='stSidebar'][data-collapsed='false']", timeout=10_000)
            page.wait_for_function(
                "document.querySelectorAll('[data-testid=\"stMain\"] .js-plotly-plot .main-svg').length > 0",
                timeout=60_000,
            )
            over = [(f["key"], round(f["over"])) for f in page.evaluate(OVERFLOW_JS) if f["over"] > 2]
            assert not over, (path, over)
    finally:
        page.close()
