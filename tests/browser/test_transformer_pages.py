"""The three Transformer pages in a real browser: charts and the grid image draw, no error;
clicking a grid thumbnail selects that head; screenshots for a person to look at."""

from __future__ import annotations

from tests.browser.conftest import assert_no_error, click_thumbnail, save_screenshot, wait_for_app

STEP = "input[type=range][aria-label='{label}']"


def _wait_for_step(page, value: int, label: str = "Decoding step") -> None:
    selector = STEP.format(label=label)
    page.wait_for_function(f"document.querySelector(\"{selector}\")?.value === '{value}'", timeout=60_000)


def _grid_drawn(page, key: str) -> None:
    page.wait_for_selector(f".st-key-{key} .js-plotly-plot image", timeout=60_000)


def _selected(page, key: str) -> str:
    return page.locator(f".st-key-{key} input").first.input_value()


def test_transformer_translation_page(open_page):
    page = open_page("Transformer_translation")
    page.wait_for_selector(".main-svg", timeout=60_000)
    _grid_drawn(page, "tf_grid")
    _wait_for_step(page, 1)
    page.get_by_role("button", name="Next").click()
    _wait_for_step(page, 2)
    wait_for_app(page)
    page.keyboard.press("ArrowRight")
    _wait_for_step(page, 3)
    wait_for_app(page)
    click_thumbnail(page, "tf_grid", 1, 2)  # layer 2, head 3
    page.wait_for_function("document.querySelector('.st-key-tf_head input')?.value === 'head 3'", timeout=60_000)
    wait_for_app(page)
    assert _selected(page, "tf_layer") == "layer 2"
    assert page.get_by_text("Step 3 of").count() == 1
    assert_no_error(page)
    page.mouse.move(0, 0)
    save_screenshot(page, "transformer_translation")


def test_inside_one_head_page(open_page):
    page = open_page("Inside_one_head")
    page.wait_for_selector(".st-key-head_chain .main-svg", timeout=60_000)
    assert page.get_by_text("The chain, as numbers").count() == 1
    # the chain's numbers: one table row per key, the scaling column following the toggle
    head = page.locator(".st-key-head_table table thead th")
    assert "softmax" in head.all_inner_texts() and any("÷√d_k" in h for h in head.all_inner_texts())
    weights = page.locator(".st-key-head_table tbody tr td:last-child").all_inner_texts()
    assert len(weights) >= 3 and abs(sum(float(w) for w in weights) - 1) < 0.01
    page.locator(".st-key-head_scale label").first.click()
    page.wait_for_function(
        "![...document.querySelectorAll('.st-key-head_table th')].some((th) => th.textContent.includes('÷√d_k'))",
        timeout=60_000,
    )
    wait_for_app(page)
    assert_no_error(page)
    # typed HTML reaches the table as text, never as markup
    page.get_by_label("Input", exact=True).fill("<img src=x> <b>bold</b>")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "[...document.querySelectorAll('.st-key-head_table td')]"
        ".some((td) => td.textContent.includes('<') || td.textContent.includes('img'))",
        timeout=60_000,
    )
    wait_for_app(page)
    assert page.locator("img[src='x']").count() == 0
    assert page.locator(".st-key-head_table b").count() == 0
    assert_no_error(page)
    page.locator(".st-key-head_scale label").first.click()
    wait_for_app(page)
    page.mouse.move(0, 0)
    save_screenshot(page, "inside_one_head")


def test_generation_page(open_page):
    page = open_page("Generation")
    page.wait_for_selector(".st-key-gen_dist .main-svg", timeout=60_000)
    _grid_drawn(page, "gen_grid")
    _wait_for_step(page, 1, "Generation step")
    page.get_by_role("button", name="Next").click()
    _wait_for_step(page, 2, "Generation step")
    wait_for_app(page)
    assert_no_error(page)
    page.mouse.move(0, 0)
    save_screenshot(page, "generation")


def test_inside_one_head_controls_and_table_whole_at_1280(app_url, browser_context):
    """At 1280 × 720 with the sidebar open, in English and 中文: the √d_k switch's label is not cut (it was
    "除以 …"), and the chain table ends inside its column (its softmax column ran past the edge in English)."""
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    try:
        for lang in ("en", "zh"):
            page.goto(f"{app_url}/Inside_one_head?lang={lang}", wait_until="domcontentloaded")
            wait_for_app(page)
            page.locator(".st-key-head_table table").wait_for(timeout=60_000)
            label = page.locator(".st-key-head_scale label p").first
            widths = label.evaluate(  # the text's own width (a Range) against the room its label box gives it
                "p => { const r = document.createRange(); r.selectNodeContents(p); "
                "return [r.getBoundingClientRect().width, p.parentElement.getBoundingClientRect().width]; }"
            )
            assert widths[0] <= widths[1] + 1, (lang, widths)
            edges = page.locator(".st-key-head_table table").evaluate(
                "t => [t.getBoundingClientRect().right, "
                "t.closest('[data-testid=stColumn]').getBoundingClientRect().right]"
            )
            assert edges[0] <= edges[1] + 1, (lang, edges)
            assert_no_error(page)
    finally:
        page.close()
