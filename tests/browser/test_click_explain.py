"""Click-to-explain in a real browser: clicking a cell of the seq2seq heatmap shows that weight's
derivation (score, scaling, mask, softmax) under it, for the clicked query and key."""
from __future__ import annotations

import re

from tests.browser.conftest import assert_no_error, save_screenshot, wait_for_app


def _click_cell(page, key: str, row: int, col: int) -> None:
    """Click the centre of heatmap cell (row, col), from the plot's own axis transforms
    (the cells sit at the integer positions x = col, y = row)."""
    plot = page.locator(f".st-key-{key} .js-plotly-plot").first
    x, y = plot.evaluate(
        """(gd, [row, col]) => {
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
            return [xa._offset + xa.l2p(col), ya._offset + ya.l2p(row)];
        }""", [row, col])
    plot.click(position={"x": x, "y": y})


def _hover_cell(page, key: str, row: int, col: int) -> None:
    plot = page.locator(f".st-key-{key} .js-plotly-plot").first
    box = plot.bounding_box()
    x, y = plot.evaluate(
        """(gd, [row, col]) => {
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
            return [xa._offset + xa.l2p(col), ya._offset + ya.l2p(row)];
        }""", [row, col])
    page.mouse.move(box["x"] + x, box["y"] + y)


def test_click_a_heatmap_cell_shows_its_derivation(open_page):
    page = open_page("Seq2seq_attention")
    page.wait_for_selector(".st-key-heatmap .js-plotly-plot .heatmaplayer", timeout=60_000)
    assert page.get_by_text("Click a cell to see how its weight was computed.").count() >= 1
    drawn = page.locator(".st-key-heatmap .js-plotly-plot").first.evaluate(
        "gd => Array.from(gd.calcdata.find(c => c[0].trace.type === 'heatmap')[0].z, r => Array.from(r))")
    _click_cell(page, "heatmap", 1, 2)
    title = page.get_by_text(re.compile(r"Why \d\.\d{4}\? Query")).first
    title.wait_for(timeout=60_000)
    wait_for_app(page)
    text = title.inner_text()
    assert "(row 1)" in text and "(column 2)" in text, text
    shown = float(re.search(r"Why (\d\.\d{4})", text).group(1))
    assert abs(shown - float(drawn[1][2])) < 5e-5, (shown, drawn[1][2])  # the clicked cell's own weight
    steps = page.locator("[data-testid='stTable']").filter(has_text="softmax over the row")
    steps.first.wait_for(timeout=30_000)
    assert steps.first.get_by_text("③ mask").count() == 1
    assert page.get_by_text(re.compile(r"The model scored key “car” for query “voiture”")).count() == 1
    _hover_cell(page, "heatmap", 3, 4)  # the cells keep their hover text (now carried by the click layer)
    page.wait_for_selector(".st-key-heatmap .hovertext", timeout=30_000)
    hover = page.locator(".st-key-heatmap .hovertext").first.text_content()
    assert "α = " in hover and f"{float(drawn[3][4]):.4f}" in hover, hover
    assert_no_error(page)
    page.mouse.move(0, 0)
    save_screenshot(page, "click_explain_seq2seq")
