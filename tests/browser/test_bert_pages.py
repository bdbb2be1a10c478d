"""The BERT pages in a real browser: charts draw, a click masks a piece, resampling works, the
real model's grid image and one head draw, a folder outside the model roots gets the one refusal."""

from tests.browser.conftest import ROOT, assert_no_error, click_thumbnail, open_picker, save_screenshot, wait_for_app

SHOTS = ROOT / "screenshots"


def test_bert_masking_page(open_page):
    page = open_page("BERT_masking")
    page.wait_for_selector(".main-svg", timeout=60_000)
    assert_no_error(page)
    assert page.get_by_text("right at top-1").count() == 1  # the predictions open first
    page.get_by_role("button", name="Masking").click()  # the masking settings' popover
    page.get_by_role("button", name="Resample").click()
    page.wait_for_function("new URLSearchParams(location.search).get('bert_seed') === '1'", timeout=60_000)
    wait_for_app(page)
    page.keyboard.press("Escape")
    # mask a piece by picking it: the pills are buttons in the "Pieces to mask" group
    pills = page.locator("[data-testid='stButtonGroup']").filter(has_text="man").first
    pills.get_by_role("button").filter(has_text="man").first.click()
    page.get_by_text("(1 clicked)").first.wait_for(timeout=60_000)
    wait_for_app(page)
    page.wait_for_selector(".main-svg", timeout=60_000)
    assert_no_error(page)
    save_screenshot(page, "bert_masking")
    page.get_by_role("tab", name="Fine-tuning").click()
    wait_for_app(page)
    for tab, name in (
        ("Token tagging (every piece)", "bert_masking_tagging"),
        ("Answer span (start/end)", "bert_masking_span"),
    ):
        page.get_by_role("tab", name=tab).click()
        page.wait_for_timeout(800)
        panel = page.locator("[role='tabpanel']:visible").last
        panel.locator(".main-svg").first.wait_for(timeout=30_000)
        tabs = page.locator("[data-testid='stTabs']").last
        tabs.scroll_into_view_if_needed()
        tabs.screenshot(path=str(SHOTS / f"{name}.png"))
    # HTML typed by a user is shown as text, never run
    page.get_by_label("Sentence B (optional: leave empty for one segment)").fill("<b>bold</b> <img src=x>")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(new URLSearchParams(location.search).get('bert_b') || '').includes('<img')", timeout=60_000
    )  # the page has read it
    wait_for_app(page)
    assert (
        page.get_by_label("Sentence B (optional: leave empty for one segment)").input_value()
        == "<b>bold</b> <img src=x>"
    )  # kept as typed
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("[data-testid='stMain'] b").filter(has_text="bold").count() == 0
    assert_no_error(page)


def test_real_model_explorer(open_page):
    page = open_page("Real_model_explorer")
    page.wait_for_selector(".main-svg image", timeout=90_000)  # the grid is one PNG inside the plot
    page.wait_for_selector(".js-plotly-plot .heatmaplayer", timeout=60_000)
    assert_no_error(page)
    assert page.get_by_text("6 layers × 12 heads").count() >= 1
    assert page.locator(".st-key-real_grid .scatterlayer path.point").count() == 72
    # the grid fills the column (thumbnails large enough for the room), and a click near a
    # thumbnail's corner, not only on its centre, opens that head: layer 2, head 3
    box = page.locator(".st-key-real_grid .js-plotly-plot image").bounding_box()
    column = page.locator(".st-key-real_grid").bounding_box()
    assert box["width"] >= 0.85 * column["width"], (box, column)
    click_thumbnail(page, "real_grid", 1, 2, off_centre=0.4)
    page.get_by_text("Layer 2, head 3").first.wait_for(timeout=60_000)
    wait_for_app(page)
    assert_no_error(page)
    save_screenshot(page, "real_model_explorer")


def test_real_model_explorer_not_a_model(open_page, tmp_path):
    page = open_page("Real_model_explorer")
    page.get_by_test_id("stRadioGroup").get_by_text("A local model folder").click()
    wait_for_app(page)
    box = page.get_by_label("Model folder (config.json + weights + tokenizer; nothing is downloaded)")
    box.fill(str(tmp_path))
    box.press("Enter")
    wait_for_app(page)
    page.wait_for_selector("[data-testid='stAlertContentError']", timeout=60_000)
    # outside the server's model roots: the one message that says nothing about the path
    assert "no model folder at this path" in page.locator("[data-testid='stAlertContentError']").first.inner_text()
    assert page.locator("[data-testid='stException']").count() == 0
    save_screenshot(page, "real_model_explorer_not_a_model")


def test_a_figure_plotly_cannot_carry_over_is_drawn_afresh(open_page):
    """In 中文 the fine-tuning change grid goes from bert-small's 3 × 4 heads to MiniLM-L6's 6 × 12, whose x labels
    stack (头 over 10): plotly.js's react throws "Something went wrong with axis scaling" on that change. The
    figure is drawn afresh (ui.plot), never left on the old grid under "could not draw this figure"."""
    page = open_page("BERT_masking?lang=zh&topic=Fine-tuning")
    grid = ".st-key-bert_ft_change .js-plotly-plot"
    page.wait_for_selector(f"{grid} .heatmaplayer", timeout=120_000)
    assert page.locator(grid).evaluate("gd => gd._fullLayout.yaxis.ticktext.length") == 3
    open_picker(page, "bert_ft_model").filter(has_text="MiniLM-L6").click()
    page.wait_for_function(
        f"() => {{ const gd = document.querySelector('{grid}'); return gd && gd._fullLayout"
        " && gd._fullLayout.yaxis.ticktext.length === 6; }",
        timeout=120_000,
    )
    wait_for_app(page)
    assert page.locator(grid).evaluate("gd => gd._fullLayout.xaxis.ticktext.at(-1)") == "头<br>12"  # counted from 1
    assert page.locator(".st-key-bert_ft_change .lab-figure-failed").count() == 0
    assert_no_error(page)
