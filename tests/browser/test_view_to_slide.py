"""A view added to the deck presents as on its page, in a real browser: the page is opened in a
changed view, "Add this view to the deck" is pressed, the deck is presented, and the slide's drawn
figures hold the same numbers and labels as figures the page drew (plotly's own data in the page;
a slide draws them larger, so sizes and fonts are not compared). In 中文 too."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.browser.conftest import assert_no_error, forget_deck, wait_for_app

# (page path, link): a comparison, an encoder head, a clicked BERT mask with no sentence B, a causal head,
# a real LLM's translation
VIEWS = [
    ("Seq2seq_attention", {"s2s_model": "s2s-luong-dot", "s2s_compare": "s2s-bahdanau", "s2s_step": "3"}),
    ("Transformer_translation", {"tf_kind": "encoder", "tf_layer": "1", "tf_head": "2", "tf_step": "2"}),
    ("BERT_masking", {"bert_b": "", "bert_clicked": "2", "bert_draw": "false"}),
    ("Generation", {"gen_step": "3", "gen_layer": "1", "gen_head": "1"}),
    (  # the real LLM's few-shot translation (SmolLM2 here), at its second generated token, one layer's mean
        "LLM_explorer",
        {"topic": "translate", "llm_tr_dir": "en-fr", "llm_tr_sum": "layer", "llm_tr_layer": "3", "llm_tr_step": "2"},
    ),
]

# Each drawn figure's heatmaps and bars: their numbers and labels, as plotly holds them.
_DATA = """Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(gd => (gd.data || [])
  .filter(tr => (tr.type === 'heatmap' || tr.type === 'bar') && tr.visible !== false)
  .map(tr => JSON.stringify([tr.type, tr.z ? Array.from(tr.z, row => Array.from(row)) : null,
                             tr.x ? Array.from(tr.x) : null, tr.y ? Array.from(tr.y) : null])))"""


def _settled(page) -> list[str]:
    """The drawn figures' data once it stays the same for 1.5 s (plotly draws after the run)."""
    wait_for_app(page)
    data, same = page.evaluate(_DATA), 0
    for _ in range(120):
        page.wait_for_timeout(500)
        now = page.evaluate(_DATA)
        same = same + 1 if now == data else 0
        data = now
        if same >= 3 and data:
            break
    return data


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path, link", VIEWS, ids=[v[0] for v in VIEWS])
def test_the_slide_draws_the_figures_the_page_drew(app_url, browser_context, path, link, lang):
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    try:
        forget_deck(page, app_url)
        page.goto(f"{app_url}/{path}?{urlencode({**link, 'lang': lang})}", wait_until="domcontentloaded")
        page.wait_for_selector(".main-svg", timeout=120_000)
        drawn = set(_settled(page))
        page.locator(".st-key-deck_add button").first.click()
        page.wait_for_function(
            "(document.querySelector('[data-testid=\"stSidebar\"]')?.innerText || '').match(/: 1 |：1 /)",
            timeout=60_000,
        )
        wait_for_app(page)
        page.goto(f"{app_url}/Present?deck=session&slide=1&lang={lang}", wait_until="domcontentloaded")
        page.wait_for_selector(
            ".st-key-slide_figure .main-svg, [class*='st-key-slide_pane'] .main-svg", timeout=120_000
        )
        shown = _settled(page)
        assert shown, "the slide drew no figure"
        missing = [d[:160] for d in shown if d not in drawn]
        assert not missing, missing
        assert_no_error(page)
    finally:
        forget_deck(page, app_url)
        page.close()
