"""Deep links in a real browser: a URL with model, text, layer, head and step opens exactly that
view (a link made before links held values, with labels, too); a widget changed in the page is
written back to the address bar as a value; a bad link shows a notice; a link made in English opens
the same figures in 中文 with no notice, and back."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.browser.conftest import assert_no_error, save_screenshot, wait_for_app

STEP = "input[type=range][aria-label='Decoding step']"


def _wait_for_step(page, value: int) -> None:
    page.wait_for_function(f"document.querySelector(\"{STEP}\")?.value === '{value}'", timeout=60_000)


def _selected(page, key: str) -> str:
    return page.locator(f".st-key-{key} input").first.input_value()


def _url_params(page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def test_seq2seq_deep_link(open_page):
    link = {"s2s_model": "Luong dot", "s2s_text": "the red car is small .", "s2s_step": "3"}
    page = open_page("Seq2seq_attention?" + urlencode(link))
    page.wait_for_selector(".main-svg", timeout=60_000)
    _wait_for_step(page, 3)
    assert page.locator(".st-key-s2s_text input").input_value() == link["s2s_text"]
    assert _selected(page, "s2s_model") == "Luong dot"
    assert page.get_by_text("Step 3 of").count() == 1
    assert page.get_by_text("Translation by Luong dot").count() == 1
    assert_no_error(page)
    page.get_by_role("button", name="Next").click()  # the step the page moves to goes to the URL
    _wait_for_step(page, 4)
    wait_for_app(page)
    page.wait_for_function("location.search.includes('s2s_step=4')", timeout=30_000)
    assert _url_params(page)["s2s_model"] == ["s2s-luong-dot"]  # an older link's label, now its value


def test_transformer_deep_link(open_page):
    link = {
        "tf_text": "the red car is small .",
        "tf_layer": "layer 2",
        "tf_head": "head 3",
        "tf_step": "3",
        "tf_kind": "Encoder self-attention",
    }
    page = open_page("Transformer_translation?" + urlencode(link))
    page.wait_for_selector(".main-svg", timeout=60_000)
    _wait_for_step(page, 3)
    assert page.locator(".st-key-tf_text input").input_value() == link["tf_text"]
    assert _selected(page, "tf_layer") == "layer 2"
    assert _selected(page, "tf_head") == "head 3"
    assert page.locator(".st-key-tf_kind input[type=radio]:checked").count() == 1
    assert page.get_by_text("Step 3 of").count() == 1
    assert_no_error(page)
    save_screenshot(page, "deep_link_transformer")
    page.get_by_role("button", name="Prev").click()
    _wait_for_step(page, 2)
    wait_for_app(page)
    page.wait_for_function("location.search.includes('tf_step=2')", timeout=30_000)
    params = _url_params(page)
    assert params["tf_layer"] == ["1"] and params["tf_head"] == ["2"]  # values (0-based), in every language


def test_bad_deep_link_shows_a_notice(open_page):
    link = {"tf_model": "<b>gone</b>", "tf_layer": "layer 99", "tf_head": "-1", "tf_step": "999"}
    page = open_page("Transformer_translation?" + urlencode(link))
    page.wait_for_selector(".main-svg", timeout=60_000)
    notices = page.locator("[data-testid='stAlertContentInfo']")
    page.wait_for_function(
        "document.querySelectorAll(\"[data-testid='stAlertContentInfo']\").length >= 3", timeout=30_000
    )
    text = " ".join(notices.all_inner_texts())
    assert "<b>gone</b>" in text and page.locator("[data-testid='stAlertContentInfo'] b").count() == 0
    assert "the last step" in text
    assert _selected(page, "tf_layer") == "layer 1"
    assert_no_error(page)


# One link per page, as the lab writes them now (values): opened in English and in 中文.
LINKS = {
    "Attention_from_scratch": {"kr_n": "30", "kr_method": "average"},
    "Seq2seq_attention": {"s2s_model": "s2s-luong-dot", "s2s_compare": "s2s-bahdanau", "s2s_step": "2"},
    "Positional_encoding": {"topic": "rotation", "rot_k": "7"},
    "Transformer_translation": {"tf_layer": "1", "tf_head": "2", "tf_kind": "encoder", "tf_step": "2"},
    "Inside_one_head": {"head_model": "tf-copy", "head_kind": "decoder", "head_layer": "1", "head_head": "1"},
    "Generation": {"gen_top_k": "5", "gen_layer": "1", "gen_head": "1", "gen_step": "2"},
    "BERT_masking": {"bert_rule": "independent", "bert_seed": "3", "topic": "attention"},
    "Real_model_explorer": {"real_scale": "head", "real_layer": "2", "real_head": "4"},
    "Transformer_XL": {"txl_seg": "4", "topic": "terms"},
    "XLNet": {"xlnet_mode": "random", "topic": "predictions"},
    "LLM_explorer": {"topic": "translate", "llm_tr_dir": "en-fr", "llm_tr_sum": "head", "llm_tr_head": "2"},
}

_FIGURES = """Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => JSON.stringify(
  (gd.data || []).map(tr => [tr.type, tr.z || null, tr.y && tr.type === 'bar' ? tr.x : null])))"""


def _figures_and_notices(open_page, path: str, lang: str) -> tuple[list[str], list[str]]:
    page = open_page(f"{path}?{urlencode({**LINKS[path], 'lang': lang})}")
    page.wait_for_selector(".main-svg", timeout=120_000)
    wait_for_app(page)
    figures, same = page.evaluate(_FIGURES), 0
    for _ in range(120):  # plotly draws after the run: wait until the drawn figures stay the same for 1.5 s
        page.wait_for_timeout(500)
        now = page.evaluate(_FIGURES)
        same = same + 1 if now == figures else 0
        figures = now
        if same >= 3:
            break
    notices = page.locator("[data-testid='stAlertContentInfo']").all_inner_texts()
    assert_no_error(page)
    return figures, [n for n in notices if "link" in n.lower() or "链接" in n]


@pytest.mark.parametrize("path", sorted(LINKS))
def test_a_link_opens_the_same_figures_in_either_language(open_page, path):
    english, notices_en = _figures_and_notices(open_page, path, "en")
    chinese, notices_zh = _figures_and_notices(open_page, path, "zh")
    assert not notices_en and not notices_zh, (notices_en, notices_zh)
    assert english and english == chinese  # every figure's numbers, the same view in both languages
