"""The ready-made decks (ui/decks/*.json) show what their titles promise: the BERT slide masks "store" in
the classic sentence, the MiniLM slide shows the head that `python -m bench.find_heads` picks (with the
weight its title states, and "it", "animal" and "tired" labelled), and the 中文 decks translate Chinese
with the HSK models wherever a page has one. The fast tests compute each fact from the deck's values with
the functions the slides call; the slow ones draw the slides as the Present page does."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bench.find_heads import HeadWeight, search
from models.checkpoints import load_bert, read_config, shipped, shipped_transformers
from models.inference.bert import analyse_masked, typed_masks
from ui.deck import Deck, Slide, ready_decks
from ui.i18n import LANGUAGES, text

TEACHING = ("1_teaching_order", "2_teaching_order_zh")
ZH_DECKS = ("2_teaching_order_zh", "4_beyond_context_zh")
CJK = re.compile(r"[\u4e00-\u9fff]")
TRANSLATION_PAGES = {
    "2_Seq2seq_attention": ("s2s_model", "s2s_text"),
    "4_Transformer_translation": ("tf_model", "tf_text"),
    "5_Inside_one_head": ("head_model", "head_text"),
}


@pytest.fixture(scope="module")
def decks() -> dict[str, Deck]:
    return ready_decks()


def _slide(deck: Deck, page: str) -> Slide:
    (slide,) = [s for s in deck.slides if s.page == page]
    return slide


def _label_value(raw: str, ids: dict[str, str]) -> str:
    """The value whose label (string id, in either language) a deck holds, or the value itself."""
    return next((value for value, key in ids.items() if raw in {text(key, lang) for lang in LANGUAGES}), raw)


def _checkpoint(label: str, names: list[str]) -> str:
    """The shipped checkpoint whose label (config.json's, the page's English label) or name is ``label``."""
    found = [n for n in names if label in (n, read_config(n).get("training", {}).get("label"))]
    assert len(found) == 1, (label, found)
    return found[0]


# ---------------------------------------------------------------------------------------------
# BERT: the classic sentence with "store" masked
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", TEACHING)
@pytest.mark.slow
def test_bert_slide_masks_store_in_the_classic_sentence(decks, name):
    from corpora.masking import MASKED, NOT_CHOSEN, RULES

    params = _slide(decks[name], "7_BERT_masking").params
    model = _checkpoint(params["bert_model"], sorted(shipped("bert")))
    rule = _label_value(params["bert_rule"], {r: f"masking.rule.{r}" for r in RULES})
    assert rule in RULES
    loaded = load_bert(model)
    result = analyse_masked(
        loaded,
        params["bert_a"],
        params["bert_b"],
        int(params["bert_seed"]),
        params.get("bert_draw", "true") == "true",
        (),
        rule=rule,
    )
    chosen = np.flatnonzero(result.outcome != NOT_CHOSEN)
    assert [result.tokens[i] for i in chosen] == ["store"]  # not "to", "." or "he"
    assert result.outcome[chosen[0]] == MASKED and result.input_tokens[chosen[0]] == "[MASK]"
    assert not typed_masks(result)  # "store" is the text's own piece: the slide can score it
    assert " ".join(result.tokens[1:-1]) == "the man went to the store to buy a gallon of milk ."
    assert "store" in _slide(decks[name], "7_BERT_masking").title
    assert "store" in result.top_tokens[chosen[0]]  # the slide's green bar: MiniLM ranks it in its top 5


# ---------------------------------------------------------------------------------------------
# MiniLM: the head that the search picks
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def best(decks) -> HeadWeight:
    texts = {_slide(decks[n], "8_Real_model_explorer").params["real_text"] for n in TEACHING}
    assert len(texts) == 1
    tokens, heads = search(texts.pop())
    assert {"it", "animal", "tired"} <= set(tokens)
    return heads[0]


@pytest.mark.parametrize("name", TEACHING)
def test_minilm_slide_shows_the_head_the_search_picks(decks, best, name):
    slide = _slide(decks[name], "8_Real_model_explorer")
    # a deck holds values (0-based layer and head), never labels: the same slide in every language
    assert slide.params["real_layer"] == str(best.layer - 1)
    assert slide.params["real_head"] == str(best.head - 1)
    assert f"{best.weight:.2f}" in slide.title  # the weight measured, as the title states it
    assert re.search(rf"\b{best.layer}\b", slide.title) and re.search(rf"\b{best.head}\b", slide.title)
    assert slide.params.get("real_source", "installed") == "installed"


# ---------------------------------------------------------------------------------------------
# 中文 decks: Chinese examples with the HSK models
# ---------------------------------------------------------------------------------------------


def _source_language(name: str) -> str:
    return str(read_config(name).get("training", {}).get("src_lang", "en"))


def test_zh_decks_translate_chinese_with_the_hsk_models(decks):
    seq2seq = sorted(shipped("seq2seq"))
    transformers = sorted(shipped_transformers("encoder-decoder"))
    zh_attention = {read_config(n)["model"].get("attention") for n in seq2seq if _source_language(n) == "zh"}
    assert zh_attention and "luong" not in zh_attention  # so the Luong slide has no Chinese model to use
    assert any(_source_language(n) == "zh" for n in transformers)
    translated = 0
    for name in ZH_DECKS:
        for slide in decks[name].slides:
            if slide.page not in TRANSLATION_PAGES:
                continue
            model_key, text_key = TRANSLATION_PAGES[slide.page]
            names = seq2seq if slide.page == "2_Seq2seq_attention" else transformers
            try:
                model = _checkpoint(slide.params[model_key], names)
            except KeyError:
                pytest.fail(f"{name}: {slide.title} names no model, so shows the page's English default")
            if read_config(model)["model"].get("attention") == "luong":  # no HSK model with Luong attention
                assert "HSK" in slide.title and not CJK.search(slide.params[text_key])
                continue
            assert _source_language(model) == "zh", (name, slide.title, model)
            assert CJK.search(slide.params[text_key]), (name, slide.title)
            translated += 1
    assert translated == 5  # seq2seq without attention and Bahdanau, the two Transformer views, one head


def test_zh_deck_follows_the_english_deck(decks):
    """The same pages in the same order, and the same BERT and MiniLM views (no Chinese model exists)."""
    en, zh = decks["1_teaching_order"], decks["2_teaching_order_zh"]
    assert [s.page for s in en.slides] == [s.page for s in zh.slides]
    for page in ("7_BERT_masking", "8_Real_model_explorer", "6_Generation", "3_Positional_encoding"):
        assert _slide(en, page).params == _slide(zh, page).params
    for slide in zh.slides:
        assert CJK.search(slide.title), slide.title


# ---------------------------------------------------------------------------------------------
# Drawn by the slide renderers (ui.slides.capture: what the Present page draws, collected)
# ---------------------------------------------------------------------------------------------


def _drawn(slide: Slide, lang: str):
    """(the slide's one figure, its lines of text) as the Present page draws it in ``lang``."""
    from ui.i18n import reading
    from ui.slides import capture

    with reading(lang):
        figures, lines = capture(slide.page, slide.params)
    assert len(figures) == 1, (slide.title, lines)
    return figures[0], " ".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("name, lang", [("1_teaching_order", "en"), ("2_teaching_order_zh", "zh")])
def test_drawn_bert_and_minilm_slides(decks, best, name, lang):
    figure, line = _drawn(_slide(decks[name], "7_BERT_masking"), lang)
    titles = [a.text for a in figure.layout.annotations]
    assert len(figure.data) == 1 and "store" in titles[0] and "[MASK]" in titles[0]
    assert line.startswith("minilm-mlm") and ("seed 7" in line or "随机种子 7" in line), line
    assert "store" in figure.layout.yaxis.ticktext  # in the top 5, written whole
    figure, line = _drawn(_slide(decks[name], "8_Real_model_explorer"), lang)
    # the page's figure has no title: the slide names the layer and head in its line above the figure
    assert re.search(rf"\b{best.layer}\b", line) and re.search(rf"\b{best.head}\b", line), line
    for axis in ("xaxis", "yaxis"):
        assert {"it", "animal", "tired"} <= set(figure.layout[axis].ticktext), axis
    tokens = list(figure.layout.xaxis.ticktext)
    weight = np.asarray(figure.data[0].z)[tokens.index("it"), tokens.index("animal")]
    assert weight == pytest.approx(best.weight, abs=1e-6)  # the cell the title speaks of


@pytest.mark.slow
def test_drawn_zh_translation_slides_read_chinese(decks):
    drawn = 0
    for slide in decks["2_teaching_order_zh"].slides:
        if slide.page not in TRANSLATION_PAGES or "HSK" in slide.title:
            continue
        figure, line = _drawn(slide, "zh")
        layout = figure.to_plotly_json()["layout"]
        ticks = " ".join(
            str(t)
            for key, axis in layout.items()
            if key.startswith(("xaxis", "yaxis"))
            for t in axis.get("ticktext", []) or []
        )
        if not slide.params.get("s2s_model", "").endswith("-none"):  # (a model without attention: its top-k)
            assert CJK.search(ticks), (slide.title, ticks)  # the Chinese source tokens on an axis
        assert "HSK" in line and "今天" in line, (slide.title, line)  # the HSK model's label and the text
        drawn += 1
    assert drawn == 5
