"""The two teaching pages in a real browser: every tab draws its charts without errors.

Screenshots go to screenshots/<page>_<tab>.png (git-ignored) for a person to look at.
"""

from __future__ import annotations

import re

from tests.browser.conftest import ROOT, assert_no_error, wait_for_app

SHOTS = ROOT / "screenshots"

FROM_SCRATCH_TABS = [
    ("Kernel regression", "Nadaraya–Watson kernel regression"),
    ("Score functions", "Score functions side by side"),
    ("Soft, hard, local", "Soft, hard and local attention"),
    ("Q/K/V sandbox", "Q/K/V sandbox"),
    ("Why attention", "Why attention: the fixed-size bottleneck"),
    ("Attention vs RNN vs CNN", "Self-attention against recurrent"),
]
POSITIONAL_TABS = [
    ("Sinusoids", "The sinusoidal encoding"),
    ("Similarity and rotation", "Similarity between positions"),
    ("Adding to embeddings", "Adding the encoding to word embeddings"),
    ("Learned, relative, RoPE, ALiBi", "Learned, relative, rotary and ALiBi"),
    ("Padding", "Padding: a zero row"),
]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def _open_tab(page, label: str, heading: str) -> None:
    page.get_by_role("tab", name=label, exact=True).click()
    page.get_by_role("heading", name=heading).first.wait_for(timeout=60_000)
    wait_for_app(page)


def _charts_drawn(page, minimum: int = 1) -> None:
    page.wait_for_function(
        f"document.querySelectorAll('[role=tabpanel]:not([hidden]) .main-svg').length >= {minimum}", timeout=60_000
    )


def _shoot(page, name: str) -> None:
    """Screenshot the whole page: Streamlit scrolls inside its main block, so the viewport is
    made as tall as the content for the shot and restored afterwards."""
    SHOTS.mkdir(exist_ok=True)
    page.mouse.move(0, 0)  # no hover tooltip in the picture
    size = page.viewport_size
    height = page.evaluate("document.querySelector('[data-testid=stMainBlockContainer]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 120, 6000)})
    page.wait_for_timeout(800)  # let plotly redraw at the new size
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.set_viewport_size(size)


def test_attention_from_scratch_tabs(open_page):
    page = open_page("Attention_from_scratch")
    assert "Attention from scratch" in page.inner_text("h1")
    for label, heading in FROM_SCRATCH_TABS:
        _open_tab(page, label, heading)
        if label == "Attention vs RNN vs CNN":
            page.get_by_role("button", name="Measure", exact=True).click()
            page.wait_for_timeout(500)
            wait_for_app(page)
        if label != "Why attention" or page.locator(".js-plotly-plot").count():
            _charts_drawn(page)
        assert_no_error(page)
        _shoot(page, f"attention_from_scratch_{_slug(label)}")


def test_sandbox_bad_input_shows_message(open_page):
    page = open_page("Attention_from_scratch?topic=Q%2FK%2FV+sandbox")
    page.get_by_role("heading", name="Q/K/V sandbox").first.wait_for(timeout=60_000)
    box = page.get_by_label("Q (queries)")
    box.fill("1 0 1 0\n0 two 0 <b>x</b>")
    box.press("Control+Enter")
    error = page.locator("[data-testid='stAlertContentError']").first
    error.wait_for(timeout=60_000)
    assert "'two' is not a number" in error.inner_text()
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator("b:has-text('x')").count() == 0  # user text is never HTML
    _shoot(page, "attention_from_scratch_sandbox_error")


def test_positional_encoding_tabs(open_page):
    page = open_page("Positional_encoding")
    assert "Positional encoding" in page.inner_text("h1")
    for label, heading in POSITIONAL_TABS:
        _open_tab(page, label, heading)
        _charts_drawn(page)
        if label == "Similarity and rotation":  # tf-en-fr's position-only score and its diagonals
            page.get_by_text("What attention scores: the position-only score of tf-en-fr").wait_for()
            page.get_by_text("Position-only score").first.wait_for(timeout=60_000)  # the title may wrap
            _charts_drawn(page, 7)
        assert_no_error(page)
        _shoot(page, f"positional_encoding_{_slug(label)}")
