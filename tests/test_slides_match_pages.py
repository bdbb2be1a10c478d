"""A view added to the deck presents as on its page: for every page a slide can show, the page is
opened (default view, and views a teacher changes: a comparison, a tab, a layer and head), the view
is added with the sidebar's button, and the slide's figures hold the same numbers and labels as a
figure the page drew (a slide draws them larger: sizes and fonts are not compared)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.deck import Slide

PRESENT = str(ROOT / "pages" / "12_Present.py")

VIEWS = [
    ("2_Seq2seq_attention", {}),
    ("2_Seq2seq_attention", {"s2s_model": "s2s-luong-general", "s2s_step": "4"}),
    ("2_Seq2seq_attention", {"s2s_model": "s2s-luong-dot", "s2s_compare": "s2s-bahdanau", "s2s_step": "2"}),
    ("2_Seq2seq_attention", {"s2s_model": "s2s-hsk-bahdanau"}),  # the page's first input is Chinese
    ("4_Transformer_translation", {}),
    ("4_Transformer_translation", {"tf_model": "tf-hsk"}),
    ("4_Transformer_translation", {"tf_kind": "encoder", "tf_layer": "1", "tf_head": "2"}),
    ("5_Inside_one_head", {}),
    ("5_Inside_one_head", {"head_kind": "decoder", "head_head": "3", "head_query": "2"}),
    ("1_Attention_from_scratch", {}),
    ("1_Attention_from_scratch", {"kr_method": "parametric", "kr_h": "0.5", "kr_steps": "50"}),
    ("3_Positional_encoding", {"pe_d": "128", "pe_len": "50"}),
    ("3_Positional_encoding", {"topic": "Similarity and rotation", "rot_tf_layer": "1", "rot_tf_head": "3"}),
    ("6_Generation", {"gen_step": "3"}),
    ("7_BERT_masking", {"bert_seed": "7"}),
    ("10_Transformer_XL", {"txl_seg": "6", "txl_head": "2", "txl_step": "2"}),
    ("13_XLNet", {"xlnet_mode": "random", "xlnet_seed": "5", "xlnet_layer": "1"}),
    ("14_Transformer_block", {"block_family": "decoder-only", "block_box": "dec.ffn", "block_layer": "1"}),
    ("14_Transformer_block", {"topic": "norms"}),  # the tabs: two figures (gradients, training curves)
    ("14_Transformer_block", {"topic": "batch", "block_family": "encoder-only"}),
    ("14_Transformer_block", {"topic": "smoothing", "block_text": "The cat is in the house."}),
    ("14_Transformer_block", {"topic": "schedule"}),
    ("15_Attention_at_scale", {"scale_block": "16", "scale_qblock": "1", "scale_step": "2"}),
    ("16_Attention_as_explanation", {"xai_model": "tf-en-fr", "xai_head": "2"}),
    ("8_Real_model_explorer", {"real_layer": "5", "real_head": "11"}),
    ("8_Real_model_explorer", {"real_layer": "2", "real_head": "4", "real_scale": "head"}),
]


def _data(figure: dict) -> list[str]:
    """Each heatmap, bar or line/marker trace of a figure: its numbers and labels (a line's legend name, and
    its opacity: which line is highlighted), nothing about size or font."""
    out = []
    for trace in figure["data"]:
        kind = trace.get("type")
        if kind in ("heatmap", "bar") and trace.get("visible", True) is not False:
            out.append(json.dumps({k: trace.get(k) for k in ("type", "z", "x", "y", "orientation")}, sort_keys=True))
        elif kind == "scatter" and trace.get("visible", True) is not False:
            keys = ("type", "x", "y", "name", "mode", "opacity")
            out.append(json.dumps({k: trace.get(k) for k in keys}, sort_keys=True))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page, params", VIEWS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(VIEWS)])
def test_the_slide_draws_what_the_page_drew(page, params, lang):
    at = AppTest.from_file(str(ROOT / "pages" / f"{page}.py"), default_timeout=APPTEST_TIMEOUT)
    for key, value in {**params, "lang": lang}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    drawn = {d for c in charts(at) for d in _data(c.figure)}
    if lang == "en":
        at.button(key="deck_add").click().run()
        slides = at.session_state["deck_slides"]
    else:  # (AppTest re-sends a 中文 choice by its English label on a click: the button's record by hand)
        slides = [Slide(page, {k: at.query_params[k] for k in at.query_params})]
    assert len(slides) == 1 and slides[0].page == page
    present = AppTest.from_file(PRESENT, default_timeout=APPTEST_TIMEOUT)
    present.session_state["deck_slides"] = slides
    for key, value in {"deck": "session", "slide": "1", "lang": lang}.items():
        present.query_params[key] = value
    present.run()
    assert not present.exception, present.exception
    assert not present.warning, [w.value for w in present.warning]
    shown = [d for c in charts(present) for d in _data(c.figure)]
    assert shown, "the slide drew no figure"
    missing = [d[:120] for d in shown if d not in drawn]
    assert not missing, missing
