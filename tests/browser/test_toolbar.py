"""The chart toolbar (plotly's mode bar) in a real browser, on the seq2seq page: no button that sends
the chart anywhere and no request beyond 127.0.0.1, tooltips in the reader's language (also after
the sidebar's switch), and images named after page, view and step while the config stays the same."""

from __future__ import annotations

import re

import numpy as np

from tests.browser.conftest import assert_no_error, open_logged, outside, wait_for_app
from ui.export import toolbar_dictionary
from ui.strings import STRINGS
from ui.strings.toolbar import STRINGS as TOOLBAR
from viz_core.export import handout_html
from viz_core.seq2seq import attention_heatmap

HEATMAP = ".st-key-heatmap .js-plotly-plot"
NETWORK = re.compile(r"share|cloud|chart studio|plotly\.com", re.I)
# the words of the English tooltips (plotly's, the SVG and full-screen buttons'); PNG, SVG: format names
ENGLISH = {
    w.lower()
    for en, _ in [*TOOLBAR.values(), STRINGS["plot.fullscreen"]]
    for w in re.findall(r"[A-Za-z]{2,}", en)
    if not w.isupper() and w != "Esc"
}


def _titles(page, chart: str) -> list[str]:
    """The tooltips of the mode bar of ``chart``, shown by hovering it, once the SVG button is in."""
    page.hover(chart)
    page.locator(f"{chart} .attn-lab-svg").wait_for(timeout=30_000)
    return page.locator(f"{chart} .modebar-btn").evaluate_all("els => els.map(e => e.getAttribute('data-title'))")


def _filename(page, chart: str) -> str:
    return page.locator(chart).evaluate("gd => gd._context.toImageButtonOptions.filename")


def _download_name(page, chart: str, title: str) -> str:
    page.hover(chart)
    with page.expect_download(timeout=60_000) as info:
        page.locator(f"{chart} .modebar-btn[data-title='{title}']").click()
    return info.value.suggested_filename


def test_toolbar_is_offline_and_names_images_after_the_step(app_url, browser_context):
    page, requests = open_logged(browser_context, f"{app_url}/Seq2seq_attention", f"{HEATMAP} .heatmaplayer")
    try:
        titles = _titles(page, HEATMAP)
        assert {
            "Download plot as a PNG",
            "Download plot as an SVG",
            "Zoom",
            "Reset axes",
            STRINGS["plot.fullscreen"][0],
        } <= set(titles), titles
        every = page.locator(".modebar-btn").evaluate_all("els => els.map(e => e.getAttribute('data-title'))")
        assert len(every) > len(titles) and not [t for t in every if NETWORK.search(t or "")], every
        assert page.locator(HEATMAP).evaluate("gd => gd._context.showSendToCloud") is False

        assert _filename(page, HEATMAP) == "seq2seq-attention-heatmap-step1"
        page.locator(HEATMAP).evaluate("gd => { window.__labConfig = gd.__config; }")
        page.locator(".st-key-s2s_next button").first.click()
        page.wait_for_function(
            f"document.querySelector({HEATMAP!r})._context.toImageButtonOptions.filename"
            " === 'seq2seq-attention-heatmap-step2'",
            timeout=60_000,
        )
        wait_for_app(page)
        # the step changed the name, not the config: plotly kept the chart (no redraw from scratch)
        assert page.locator(HEATMAP).evaluate("gd => gd.__config === window.__labConfig")
        assert _download_name(page, HEATMAP, "Download plot as a PNG") == "seq2seq-attention-heatmap-step2.png"
        assert _download_name(page, HEATMAP, "Download plot as an SVG") == "seq2seq-attention-heatmap-step2.svg"
        assert _filename(page, ".st-key-topk .js-plotly-plot") == "seq2seq-attention-topk-step2"
        assert_no_error(page)
    finally:
        page.close()
    assert outside(requests) == [], outside(requests)
    assert any("127.0.0.1" in u for u in requests)


def _english_words(titles: list[str]) -> list[str]:
    return [w for t in titles for w in re.findall(r"[A-Za-z]+", t or "") if w.lower() in ENGLISH]


def test_toolbar_tooltips_in_chinese(app_url, browser_context):
    page, requests = open_logged(browser_context, f"{app_url}/Seq2seq_attention?lang=zh", f"{HEATMAP} .heatmaplayer")
    try:
        titles = _titles(page, HEATMAP)
        assert {
            STRINGS["toolbar.png"][1],
            STRINGS["toolbar.svg"][1],
            STRINGS["toolbar.zoom"][1],
            STRINGS["toolbar.reset_axes"][1],
            STRINGS["plot.fullscreen"][1],
        } <= set(titles), titles
        assert _english_words(titles) == [], titles
        # the same file names in every language
        assert _download_name(page, HEATMAP, STRINGS["toolbar.png"][1]) == "seq2seq-attention-heatmap-step1.png"

        # the sidebar's switch to English rebuilds the mode bar in English, the SVG button with it
        page.get_by_test_id("stSidebarUserContent").get_by_text("English", exact=True).click()
        page.wait_for_function(f"document.querySelector({HEATMAP!r})._context.locale !== 'zh-CN'", timeout=60_000)
        wait_for_app(page)
        page.wait_for_function(
            f"document.querySelector('{HEATMAP} .attn-lab-svg')?.dataset.title === 'Download plot as an SVG'",
            timeout=30_000,
        )
        assert "Download plot as a PNG" in _titles(page, HEATMAP)
        assert_no_error(page)
    finally:
        page.close()
    assert outside(requests) == [], outside(requests)


def test_handout_toolbar_in_chinese_offline(browser_context, tmp_path):
    """The offline handout's charts: the same translated tooltips, SVG button and file names."""
    fig = attention_heatmap(np.full((2, 3), 1 / 3), ["a", "b", "</s>"], ["x", "</s>"])
    path = tmp_path / "handout.html"
    path.write_text(
        handout_html(
            "T",
            "a b",
            [("A", fig)],
            lang="zh",
            image_names=["seq2seq-attention-heatmap-step2"],
            toolbar=toolbar_dictionary("zh"),
        ),
        encoding="utf-8",
    )
    page = browser_context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(path.as_uri())
        chart = "#figure-1"
        page.wait_for_selector(f"{chart} .heatmaplayer", timeout=60_000)
        titles = _titles(page, chart)
        assert {STRINGS["toolbar.png"][1], STRINGS["toolbar.svg"][1]} <= set(titles), titles
        assert _english_words(titles) == [] and not [t for t in titles if NETWORK.search(t or "")], titles
        assert _download_name(page, chart, STRINGS["toolbar.svg"][1]) == "seq2seq-attention-heatmap-step2.svg"
    finally:
        page.close()
    assert [u for u in requests if not u.startswith("file:")] == []
