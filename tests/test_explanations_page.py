"""The "Is attention an explanation?" page (AppTest): the default grammar model and its figure against the
trace computed here, the masked LM, predict-then-reveal with its score against occlusion, a bad input's
message, and 中文."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.charts import charts, tables
from tests.conftest import APPTEST_TIMEOUT, ROOT
from viz_core.explanations import scaled_rows
from viz_core.export import _decode

PAGE = str(ROOT / "pages" / "16_Attention_as_explanation.py")
pytestmark = pytest.mark.slow


def _run(query: dict[str, str] | None = None, state: dict | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(query or {})
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def test_default_page_draws_the_trace() -> None:
    from models.checkpoints import load_seq2seq
    from models.lessons.explanations import explain, translation_subject
    from ui.explanations import EXAMPLES, method_name

    at = _run()
    figure = {c.key: c.figure for c in charts(at)}["xai_methods"]
    z = np.asarray(_decode(figure["data"][0]["z"]), dtype=float)
    trace = explain(translation_subject(load_seq2seq("s2s-bahdanau"), EXAMPLES["s2s-bahdanau"]))
    assert np.allclose(z, scaled_rows(trace.scores), equal_nan=True, atol=1e-5)
    table = tables(at)["xai_table"]  # ρ and AOPC per method, as the trace gives them
    assert list(table.iloc[:, 0]) == [method_name(m) for m in trace.methods]
    assert [float(v) if v != "—" else None for v in table.iloc[:, 1]] == [
        None if np.isnan(r) else round(float(r), 3) for r in trace.spearman
    ]


def test_masked_lm_and_chinese() -> None:
    at = _run({"xai_model": "minilm-mlm", "lang": "zh"})
    assert any("积分梯度" in c.value for c in at.caption)


def test_predict_then_reveal() -> None:
    at = _run({"xai_model": "tf-en-fr", "xai_predict": "true"})
    assert "xai_methods" not in {c.key for c in charts(at)}  # nothing shown before the guess
    at.pills(key="xai_guess").set_value([3]).run()
    at.button(key="xai_reveal").click().run()
    assert not at.exception, at.exception
    assert "xai_methods" in {c.key for c in charts(at)}
    assert at.success and "1" in at.success[0].value


def test_bad_input_is_one_message() -> None:
    at = _run({"xai_model": "minilm-mlm"}, {"xai_text": "no mask here"})
    assert at.warning and "MASK" in at.warning[0].value


def test_a_new_input_resets_the_reveal() -> None:
    at = _run({"xai_model": "tf-en-fr", "xai_predict": "true"})
    at.pills(key="xai_guess").set_value([3]).run()
    at.button(key="xai_reveal").click().run()
    assert "xai_methods" in {c.key for c in charts(at)}
    at.text_input(key="xai_text").set_value("she sees the red car .").run()
    assert not at.exception, at.exception
    assert "xai_methods" not in {c.key for c in charts(at)}  # hidden again until the next guess
    assert not at.session_state["xai_revealed"] if "xai_revealed" in at.session_state else True


def test_attention_swap_on_the_rnn_page() -> None:
    """Jain & Wallace's figure: the model's row, a permutation and an adversary's row, equal to the trace."""
    from ui.explanations import EXAMPLES
    from models.checkpoints import load_seq2seq
    from models.lessons.explanations import attention_swap, translation_subject

    at = _run({"xai_swap": "true"})
    figure = {c.key: c.figure for c in charts(at)}["xai_swap_fig"]
    z = np.asarray(_decode(figure["data"][0]["z"]), dtype=float)
    swap = attention_swap(translation_subject(load_seq2seq("s2s-bahdanau"), EXAMPLES["s2s-bahdanau"]))
    assert np.allclose(z, swap.weights, atol=1e-6)
    assert any("TVD" in c.value for c in at.caption)


def test_wiegreffe_and_pinters_uniform_twin_is_stated_from_the_evaluation() -> None:
    """The answer beside Jain & Wallace's: the learned-attention RNN and its twin trained with α frozen
    uniform, each test BLEU as `python -m models.evaluate` recorded it, and the verdict that the gap gives."""
    from models.checkpoints import load_results
    from models.training.presets import UNIFORM_TWIN
    from ui.explanations import MATTERED_BLEU

    rows = {m["name"]: m for m in load_results()["models"]}
    learned, uniform = (rows[name] for name in UNIFORM_TWIN)
    assert uniform["kind"] == "uniform" and learned["kind"] == "bahdanau"
    for lang, needle in (("en", "test BLEU"), ("zh", "BLEU 为")):
        at = _run({"xai_swap": "true", "lang": lang})
        text = next(m.value for m in at.markdown if "Wiegreffe" in m.value and "§3.1" in m.value)
        assert needle in text
        assert f"{uniform['bleu']:.1f}" in text and f"{learned['bleu']:.1f}" in text
        mattered = learned["bleu"] - uniform["bleu"] >= MATTERED_BLEU
        assert (("A gap this large" in text) if lang == "en" else ("差距这么大" in text)) == mattered
