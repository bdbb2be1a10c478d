"""Click-to-explain in a real browser: clicking a cell of the seq2seq heatmap shows that weight's
derivation (score, scaling, mask, softmax) under it, for the clicked query and key; clicking a
binned cell of the real model explorer at 512 tokens names its block and explains its cells."""

from __future__ import annotations

import re

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import assert_no_error, open_picker, save_screenshot, wait_for_app

LONG_TEXT = " ".join(["The trophy would not fit in the brown suitcase because it was too big."] * 40)  # > 512 tokens


def _click_cell(page, key: str, row: float, col: float, panel: int = 1) -> None:
    """Click the centre of heatmap cell (row, col) of subplot ``panel`` (1: axes x/y, 2: x2/y2), from the
    plot's own axis transforms (the cells sit at the integer positions x = col, y = row; a binned block at
    its tokens' centre)."""
    plot = page.locator(f".st-key-{key} .js-plotly-plot").first
    plot.scroll_into_view_if_needed()
    suffix = "" if panel == 1 else str(panel)
    x, y = plot.evaluate(
        """(gd, [row, col, suffix]) => {
            const xa = gd._fullLayout['xaxis' + suffix], ya = gd._fullLayout['yaxis' + suffix];
            return [xa._offset + xa.l2p(col), ya._offset + ya.l2p(row)];
        }""",
        [row, col, suffix],
    )
    plot.click(position={"x": x, "y": y})


def _derivation_title(page, key: str, row: int, col: int, timeout: float = 60_000) -> tuple[str, float]:
    """Click cell (row, col) of chart ``key`` and wait for its derivation: its title ("Why 0.1234? Query …")
    and the weight it names."""
    _click_cell(page, key, row, col)
    title = page.get_by_text(re.compile(r"Why \d\.\d{4}\? Query")).first
    title.wait_for(timeout=timeout)
    wait_for_app(page)
    text = title.inner_text()
    return text, float(re.search(r"Why (\d\.\d{4})", text).group(1))


def _click_point(page, key: str, row: float, col: float, index: int) -> None:
    """Click where the plot's hover picks point ``index`` of the click layer, drawn at (row, col):
    Plotly's hover takes the last point within 3 px of the mouse, so where cells are under 6 px
    (a 512-token head) the mouse is moved up and left of the point until the hover is that point."""
    plot = page.locator(f".st-key-{key} .js-plotly-plot").first
    plot.scroll_into_view_if_needed()
    box = plot.bounding_box()
    x, y = plot.evaluate(
        """(gd, [row, col]) => {
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
            return [xa._offset + xa.l2p(col), ya._offset + ya.l2p(row)];
        }""",
        [row, col],
    )
    for dy in (0, -1, -2, -3, -4):
        for dx in (0, -1, -2, -3, -4):
            page.mouse.move(box["x"] + x + dx, box["y"] + y + dy)
            page.wait_for_timeout(120)  # Plotly throttles hover
            if plot.evaluate("gd => (gd._hoverdata || []).map(p => p.pointNumber)") == [index]:
                page.mouse.click(box["x"] + x + dx, box["y"] + y + dy)
                return
    raise AssertionError(f"no mouse position near ({row}, {col}) hovers point {index}")


def plot_types(page, key: str) -> list[str]:
    """The trace types plotly drew in chart ``key``."""
    return page.locator(f".st-key-{key} .js-plotly-plot").first.evaluate("gd => gd._fullData.map(t => t.type)")


def _hover_cell(page, key: str, row: int, col: int) -> None:
    plot = page.locator(f".st-key-{key} .js-plotly-plot").first
    box = plot.bounding_box()
    x, y = plot.evaluate(
        """(gd, [row, col]) => {
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
            return [xa._offset + xa.l2p(col), ya._offset + ya.l2p(row)];
        }""",
        [row, col],
    )
    page.mouse.move(box["x"] + x, box["y"] + y)


def test_click_a_heatmap_cell_shows_its_derivation(open_page):
    page = open_page("Seq2seq_attention")
    page.wait_for_selector(".st-key-heatmap .js-plotly-plot .heatmaplayer", timeout=60_000)
    assert page.get_by_text("Click a cell to see how its weight was computed.").count() >= 1
    drawn = page.locator(".st-key-heatmap .js-plotly-plot").first.evaluate(
        "gd => Array.from(gd.calcdata.find(c => c[0].trace.type === 'heatmap')[0].z, r => Array.from(r))"
    )
    assert plot_types(page, "heatmap")[-1] == "scattergl"  # the click layer, WebGL where the browser has it
    text, shown = _derivation_title(page, "heatmap", 1, 2)
    assert "(row 1)" in text and "(column 2)" in text, text
    assert abs(shown - float(drawn[1][2])) < 5e-5, (shown, drawn[1][2])  # the clicked cell's own weight
    steps = page.locator("[data-testid='stTable']").filter(has_text="softmax over the row")
    steps.first.wait_for(timeout=30_000)
    assert steps.first.get_by_text("③ mask").count() == 1
    assert page.get_by_text(re.compile(r"The model scored key “car” for query “voiture”")).count() == 1
    # The cells keep their hover text (now carried by the click layer). The clicked cell's label shows
    # until plotly's throttled hover follows the mouse to the new cell; a move lost to a redraw is made again.
    expected = f"{float(drawn[3][4]):.4f}"
    for _ in range(3):
        page.mouse.move(0, 0)
        _hover_cell(page, "heatmap", 3, 4)
        try:
            page.wait_for_function(
                f"() => [...document.querySelectorAll('.st-key-heatmap .hovertext')]"
                f".some((h) => h.textContent.includes('{expected}'))",
                timeout=10_000,
            )
            break
        except PlaywrightTimeout:
            continue  # the assertion below says what the hover showed instead
    hover = " | ".join(page.locator(".st-key-heatmap .hovertext").all_text_contents())
    assert "α = " in hover and expected in hover, hover
    assert_no_error(page)
    page.mouse.move(0, 0)
    save_screenshot(page, "click_explain_seq2seq")


def test_without_webgl_the_click_layer_is_svg_and_still_explains(app_url, browser_context):
    """The click layer is WebGL (viz_core.explain); a browser without WebGL (here: getContext answers
    null for it, as such a browser does) draws it as SVG, and a click still explains the cell."""
    page = browser_context.new_page()
    page.add_init_script(
        "HTMLCanvasElement.prototype.getContext = ((own) => function (type, ...rest) {"
        " return /webgl/i.test(type) ? null : own.call(this, type, ...rest); })"
        "(HTMLCanvasElement.prototype.getContext);"
    )
    try:
        page.goto(f"{app_url}/Seq2seq_attention", wait_until="domcontentloaded")
        wait_for_app(page)
        page.wait_for_selector(".st-key-heatmap .js-plotly-plot .heatmaplayer", timeout=60_000)
        assert plot_types(page, "heatmap")[-1] == "scatter"
        _click_cell(page, "heatmap", 1, 2)
        title = page.get_by_text(re.compile(r"Why \d\.\d{4}\? Query")).first
        title.wait_for(timeout=60_000)
        assert "(row 1)" in title.inner_text() and "(column 2)" in title.inner_text()
        assert_no_error(page)
    finally:
        page.close()


def test_click_a_cell_of_the_second_panel_explains_that_run(open_page):
    """The exposure-bias figure draws two heatmaps side by side: a click on the free run's panel explains
    that run's weight (its own prefix replayed), not the forced run's cell under the same row and column."""
    page = open_page("Seq2seq_attention")
    plot = page.locator(".st-key-exposure_attention .js-plotly-plot").first
    page.wait_for_selector(".st-key-exposure_attention .js-plotly-plot .heatmaplayer", timeout=120_000)
    forced, free = plot.evaluate(
        "gd => gd.calcdata.filter(c => c[0].trace.type === 'heatmap').map(c => Array.from(c[0].z, r => Array.from(r)))"
    )
    row, col = 2, 1
    assert forced != free  # two panels, two matrices
    _click_cell(page, "exposure_attention", row, col, panel=2)
    title = page.get_by_text(re.compile(r"own prefix \(free running\) · Why \d\.\d{4}\? Query")).first
    title.wait_for(timeout=60_000)
    wait_for_app(page)
    text = title.inner_text()
    assert f"(row {row})" in text and f"(column {col})" in text, text
    assert abs(float(re.search(r"Why (\d\.\d{4})", text).group(1)) - free[row][col]) < 5e-5, (text, free[row][col])
    assert_no_error(page)
    page.mouse.move(0, 0)
    save_screenshot(page, "click_explain_exposure")


def test_click_a_binned_cell_at_512_tokens_explains_its_block(open_page):
    page = open_page("Real_model_explorer?real_max=512&real_text=" + LONG_TEXT.replace(" ", "+"))
    plot = ".st-key-real_head_fig .js-plotly-plot"
    page.wait_for_selector(f"{plot} .heatmaplayer", timeout=120_000)
    page.get_by_text("over 512 tokens").first.wait_for(timeout=60_000)
    z = page.locator(plot).first.evaluate(
        "gd => Array.from(gd.calcdata.find(c => c[0].trace.type === 'heatmap')[0].z, r => Array.from(r))"
    )
    assert len(z) == len(z[0]) == 128  # 512 tokens, 4 × 4 weights per drawn cell
    _click_point(page, "real_head_fig", 149.5, 161.5, 37 * 128 + 40)  # the block of queries 148–151 × keys 160–163
    block = page.get_by_text("Block: queries 148–151 → keys 160–163").first
    block.wait_for(timeout=120_000)
    assert f"drawn as {z[37][40]:.4f}" in block.inner_text()  # the value the browser drew for that cell
    title = page.get_by_text(re.compile(r"Why \d\.\d{4}\? Query")).first
    title.wait_for(timeout=120_000)
    wait_for_app(page)
    caption = page.get_by_text(re.compile(r"The heatmap is binned: this cell draws the mean")).first.inner_text()
    assert f"= {z[37][40]:.4f} from the model's weights" in caption, caption
    text = title.inner_text()
    row, col = (int(n) for n in re.search(r"\(row (\d+)\).*\(column (\d+)\)", text).groups())
    assert 148 <= row <= 151 and 160 <= col <= 163, text
    steps = page.locator("[data-testid='stTable']").filter(has_text="softmax over the row").first
    model, _, _, check = [v.replace("\\", "") for v in steps.locator("td").all_inner_texts()][-4:]
    assert model == check, (model, check)  # the model's weight = the model's own row in the re-run
    assert re.search(r"Why (\d\.\d{4})", text).group(1) == model
    page.mouse.move(0, 0)
    options = open_picker(page, "real_head_fig_pick")  # the block's 16 cells
    assert options.count() == 16 and options.first.inner_text().startswith(f"{row} · ")
    option = options.nth(1)  # another cell of the block: the second largest
    row, col = (int(n) for n in re.match(r"(\d+) · .* → (\d+) · ", option.inner_text()).groups())
    option.click()
    page.get_by_text(re.compile(rf"Why \d\.\d{{4}}\? Query .*\(row {row}\) → key .*\(column {col}\)")).first.wait_for(
        timeout=120_000
    )
    wait_for_app(page)
    assert_no_error(page)
    page.mouse.move(0, 0)
    save_screenshot(page, "click_explain_binned")


def test_click_a_cell_of_the_real_llms_step_explains_it_per_head(open_page):
    """The Real LLM page's generation step (rows: layers, the mean of SmolLM2's 9 heads): a click on
    (layer 2, token 2) derives the cell for each of the layer's heads from the model's modules (RoPE,
    grouped-query keys) on the tokens the step's query read, and their mean is the drawn weight."""
    page = open_page("LLM_explorer")
    page.wait_for_selector(".st-key-step_attention .js-plotly-plot .heatmaplayer", timeout=120_000)
    drawn = page.locator(".st-key-step_attention .js-plotly-plot").first.evaluate(
        "gd => Array.from(gd.calcdata.find(c => c[0].trace.type === 'heatmap')[0].z, r => Array.from(r))"
    )
    assert plot_types(page, "step_attention")[-1] in ("scattergl", "scatter")  # the click layer
    text, shown = _derivation_title(page, "step_attention", 1, 2, timeout=120_000)
    assert "(column 2)" in text and "layer 2, average over heads" in text, text
    assert abs(shown - float(drawn[1][2])) < 5e-5, (shown, drawn[1][2])
    table = page.locator("[data-testid='stTable']").filter(has_text="mean").first
    table.wait_for(timeout=30_000)
    assert table.locator("tbody tr").count() == 9 + 1  # each of the 9 heads, then their mean
    assert page.get_by_text("does not reproduce the drawn weight").count() == 0
    assert_no_error(page)
    page.mouse.move(0, 0)
    save_screenshot(page, "click_explain_llm_step")
