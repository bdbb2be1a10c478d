"""The lab's figure in a real browser (ui.plot): plotly.js comes from the app itself, a step redraws
the figure in place, and the mode bar's full-screen button fills the screen, keeps it through
←/→ steps, and gives it back when pressed again."""

from __future__ import annotations

from urllib.parse import urlparse

from tests.browser.conftest import assert_no_error, open_logged, outside

HEATMAP = ".st-key-heatmap .js-plotly-plot"


def _size(page) -> dict:
    return page.locator(HEATMAP).evaluate(
        "gd => ({width: gd._fullLayout.width, height: gd._fullLayout.height, "
        "full: document.fullscreenElement === gd.parentElement})"
    )


def test_full_screen_figure_keeps_through_steps(app_url, browser_context):
    page, requests = open_logged(browser_context, f"{app_url}/Seq2seq_attention", f"{HEATMAP} .heatmaplayer")
    try:
        assert any(urlparse(u).path.endswith("/app/static/vendor/plotly.min.js") for u in requests)
        before = _size(page)
        assert not before["full"]
        page.hover(HEATMAP)  # the mode bar shows on hover
        page.locator(f"{HEATMAP} .modebar-btn[data-title='Full screen (Esc to leave)']").click()
        page.wait_for_function(
            f"() => document.querySelector('{HEATMAP}')._fullLayout.width > {before['width']}", timeout=30_000
        )
        full = _size(page)
        assert full["full"] and full["width"] == page.evaluate("window.innerWidth")
        page.keyboard.press("ArrowRight")  # the next decoding step, drawn into the same full-screen figure
        page.get_by_text("Step 2 of").first.wait_for(state="attached", timeout=30_000)
        page.wait_for_timeout(500)
        stepped = _size(page)
        assert stepped == full, (stepped, full)  # the new step fills the screen too
        # (Esc is the browser's own way out; a synthetic key press does not reach it headless)
        page.hover(HEATMAP)
        page.locator(f"{HEATMAP} .modebar-btn[data-title='Full screen (Esc to leave)']").click()
        page.wait_for_function("() => !document.fullscreenElement", timeout=30_000)
        page.wait_for_function(
            f"() => document.querySelector('{HEATMAP}')._fullLayout.width === {before['width']}", timeout=30_000
        )
        assert_no_error(page)
        assert outside(requests) == [], outside(requests)
    finally:
        page.close()


def test_a_step_keeps_the_traces_it_did_not_change(open_page):
    """A → step on the seq2seq page moves the heatmap's outlined row without recomputing its traces
    (the same data revision: ui.plot.figure_spec), while the step's α bars are new data, drawn anew."""
    page = open_page("Seq2seq_attention")
    bars = ".st-key-bars .js-plotly-plot"
    page.wait_for_selector(f"{HEATMAP} .heatmaplayer", timeout=60_000)
    page.wait_for_selector(f"{bars} .barlayer", timeout=60_000)
    page.evaluate(f"""() => {{ for (const s of ['{HEATMAP}', '{bars}']) {{
        const gd = document.querySelector(s); gd.__calcBefore = gd.calcdata;
        gd.__bars = gd.data[0].y; }} }}""")
    page.keyboard.press("ArrowRight")
    page.get_by_text("Step 2 of").first.wait_for(state="attached", timeout=30_000)
    page.wait_for_function(f"() => document.querySelector('{HEATMAP}').layout.shapes[0].y0 === 0.5", timeout=30_000)
    page.wait_for_function(
        f"() => document.querySelector('{bars}').data[0].y !== document.querySelector('{bars}').__bars", timeout=30_000
    )
    heatmap_kept, bars_kept = page.evaluate(f"""() => [document.querySelector('{HEATMAP}'),
        document.querySelector('{bars}')].map((gd) => gd.calcdata === gd.__calcBefore)""")
    assert heatmap_kept and not bars_kept
    assert_no_error(page)


def test_a_figure_far_below_the_screen_catches_up_when_scrolled_near(open_page):
    """A step redraws the figures on screen at once; one far below waits, and is drawn with the
    step's figure as it comes within half a screen of view (ui.plot: watch)."""
    page = open_page("Seq2seq_attention")
    topk = ".st-key-topk .js-plotly-plot"
    page.wait_for_selector(f"{topk} .barlayer", timeout=60_000)
    page.set_viewport_size({"width": 1280, "height": 300})  # the top-k chart is now screens below
    page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
    title = f"() => document.querySelector('{topk}').layout.title.text"
    assert "step 1" in page.evaluate(title)
    page.wait_for_timeout(300)  # the observer has seen it leave
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => document.querySelector('{HEATMAP}').layout.shapes[0].y0 === 0.5", timeout=30_000)
    page.wait_for_timeout(500)
    assert "step 1" in page.evaluate(title)  # not drawn while far away
    page.locator(".st-key-topk").scroll_into_view_if_needed()
    page.wait_for_function(f"() => ({title})().includes('step 2')", timeout=30_000)
    assert_no_error(page)


def test_a_figure_takes_the_width_the_collapsed_sidebar_leaves(open_page):
    """Collapsing the sidebar (as a teacher does at the projector) widens the drawn heatmap to its
    column; opening it again narrows it back."""
    page = open_page("Seq2seq_attention")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.wait_for_selector(f"{HEATMAP} .heatmaplayer", timeout=60_000)
    width = f"() => document.querySelector('{HEATMAP}')._fullLayout.width"
    if page.locator("[data-testid='stSidebar'][data-collapsed='true']").count():
        page.locator("[data-testid='stExpandSidebarButton']").first.click(force=True)
        page.wait_for_selector("[data-testid='stSidebar'][data-collapsed='false']", timeout=10_000)
        page.wait_for_timeout(800)  # the sidebar's opening slide
    # the column's width once the figure has followed it (the viewport's change from the fixture's
    # 1400 px can reach the figure late on a busy machine: its own width read at once was stale)
    column = f"() => document.querySelector('{HEATMAP}').parentElement.clientWidth"
    page.wait_for_function(f"() => Math.abs(({width})() - ({column})()) <= 24", timeout=30_000)
    beside = page.evaluate(column)
    page.locator("[data-testid='stSidebar']").hover()
    page.locator("[data-testid='stSidebarCollapseButton']").first.click(force=True)
    page.wait_for_function(f"() => ({width})() > {beside + 100}", timeout=30_000)
    page.locator("[data-testid='stExpandSidebarButton']").first.click(force=True)
    page.wait_for_selector("[data-testid='stSidebar'][data-collapsed='false']", timeout=10_000)
    page.wait_for_function(f"() => Math.abs(({width})() - {beside}) <= 24", timeout=30_000)
    assert_no_error(page)


def test_the_heatmap_legend_sits_clear_of_its_title(open_page):
    """The gold-alignment legend has a row of its own between the title and the cells (it ran into
    the title at 1280×720)."""
    page = open_page("Seq2seq_attention")
    page.wait_for_selector(f"{HEATMAP} .legend", timeout=60_000)
    boxes = page.evaluate(f"""() => ['.gtitle', '.legend', '.heatmaplayer'].map((s) =>
        document.querySelector('{HEATMAP} ' + s).getBoundingClientRect().toJSON())""")
    title, legend, cells = boxes
    assert title["bottom"] <= legend["top"] and legend["bottom"] <= cells["top"], boxes
