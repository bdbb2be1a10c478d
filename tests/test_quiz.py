"""Predict, then reveal (ui.quiz): the pure judging and row hiding, and the quiz flow on the seq2seq
and BERT masking pages (AppTest): toggle on, answer hidden, guess, revealed, score."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.quiz import HIDDEN, answer_options, hide_rows, judge_look, judge_masked, judge_write, rank_of, same_piece
from ui.strings import STRINGS

EN = {key: en for key, (en, _) in STRINGS.items()}


# ---------- the pure judging ------------------------------------------------------------


def test_rank_counts_strictly_larger_weights() -> None:
    assert [rank_of([0.2, 0.5, 0.2, 0.1], i) for i in range(4)] == [2, 1, 2, 4]


def test_look_is_right_at_the_argmax_source_word() -> None:
    src = ["the", "red", "car", "."]
    alpha = [0.1, 0.15, 0.7, 0.05]
    right = judge_look(2, alpha, src)
    assert right.right and right.answer == "car" and right.answer_weight == pytest.approx(0.7) and right.rank == 1
    wrong = judge_look(1, alpha, src)
    assert not wrong.right and wrong.guess == "red" and wrong.answer == "car"
    assert wrong.guess_weight == pytest.approx(0.15) and wrong.rank == 2 and wrong.of == 4


def test_look_accepts_any_position_tied_at_the_top() -> None:
    alpha = [0.4, 0.4, 0.2]
    assert judge_look(1, alpha, ["a", "b", "c"]).right and judge_look(0, alpha, ["a", "b", "c"]).right
    assert not judge_look(2, alpha, ["a", "b", "c"]).right


def test_write_is_right_on_the_emitted_token_only() -> None:
    cands, probs = ["la", "le", "une"], [0.6, 0.3, 0.1]
    right = judge_write("la", "la", cands, probs)
    assert right.right and right.answer_weight == pytest.approx(0.6) and right.top is None
    wrong = judge_write("une", "la", cands, probs)
    assert not wrong.right and wrong.guess_weight == pytest.approx(0.1) and wrong.rank == 3 and wrong.of == 3
    outside = judge_write("chat", "la", cands, probs)
    assert not outside.right and outside.guess_weight is None and outside.rank is None


def test_write_with_a_sampled_token_outside_the_top_k() -> None:
    """Sampling may emit a token outside the top-k: that token is the answer, its own p is shown,
    and the model's top-1 is named beside it."""
    v = judge_write("zut", "zut", ["la", "le"], [0.6, 0.3], emitted_prob=0.01)
    assert v.right and v.answer_weight == pytest.approx(0.01) and v.guess_weight == pytest.approx(0.01)
    assert v.top == "la" and v.top_weight == pytest.approx(0.6)
    assert not judge_write("la", "zut", ["la", "le"], [0.6, 0.3], emitted_prob=0.01).right


def test_masked_is_right_on_the_original_piece_typed_loosely() -> None:
    assert same_piece(" Went ", "went") and same_piece("ing", "##ing") and not same_piece("wen", "went")
    cands, probs = ["of", "went", "is"], [0.5, 0.3, 0.2]
    right = judge_masked("WENT", "went", 0.3, 1, cands, probs)
    assert right.right and right.guess_weight == pytest.approx(0.3) and right.rank == 2
    assert right.top == "of" and right.top_weight == pytest.approx(0.5)  # the model itself was wrong at top-1
    wrong = judge_masked("is", "went", 0.3, 1, cands, probs)
    assert not wrong.right and wrong.guess_weight == pytest.approx(0.2) and wrong.rank == 3
    assert judge_masked("zzz", "went", 0.3, 1, cands, probs).guess_weight is None


def test_answer_options_hold_the_answer_and_do_not_give_it_away() -> None:
    options = answer_options(["le", "la", "une"], "chat")
    assert set(options) == {"le", "la", "une", "chat"} and options == sorted(options, key=str.lower)
    assert answer_options(["la", "le"], "la") == ["la", "le"]


def test_hide_rows_blanks_the_unguessed_steps() -> None:
    w = np.arange(12, dtype=float).reshape(3, 4) / 12
    hidden, labels = hide_rows(w, ["a", "b", "c"], 1)
    assert labels == ["a", HIDDEN, HIDDEN]
    assert np.array_equal(hidden[0], w[0]) and np.isnan(hidden[1:]).all()
    assert not np.isnan(w).any()  # the model's own array is untouched
    grid, _ = hide_rows(np.ones((2, 3, 4, 5)), ["q"] * 4, 3)  # (layers, heads, queries, keys)
    assert np.isnan(grid[:, :, 3]).all() and not np.isnan(grid[:, :, :3]).any()


def test_the_quiz_speaks_only_through_the_string_table() -> None:
    from tests.test_i18n import english_literals

    assert not english_literals(ROOT / "ui" / "quiz.py")


# ---------- page 2: seq2seq --------------------------------------------------------------


def _reference_trace():
    """The page's default decoding, computed here without the page or the quiz."""
    from corpora.en_fr import example_sentences
    from models.checkpoints import load_seq2seq
    from models.inference.common import DEFAULT_LENGTH_PENALTY
    from models.inference.translate import translate
    from models.nn.rnn_seq2seq import AttentionMode

    return translate(
        load_seq2seq("s2s-bahdanau"),
        example_sentences()[0],
        1,
        AttentionMode("soft"),
        length_penalty=DEFAULT_LENGTH_PENALTY,
    )


def _guess_widget(at: AppTest):
    return next(b for b in at.get("button_group") if b.label == EN["quiz.pick"])


def _score(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("Score:"))


def _charts(at: AppTest) -> int:
    return len(charts(at))


@pytest.mark.slow
def test_seq2seq_quiz_hides_the_step_until_a_guess_and_keeps_score() -> None:
    trace = _reference_trace()
    alpha = trace.best.attention
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    before = _charts(at)  # heatmap, α bars, top-k …
    at.toggle(key="s2s_quiz").set_value(True).run()
    assert not at.exception
    assert _charts(at) == before - 2  # the step's α bars and top-k are hidden
    assert any(m.value == EN["quiz.ask.look"].format(step=1) for m in at.markdown)
    assert _score(at) == EN["quiz.score"].format(right=0, total=0)

    _guess_widget(at).set_value(int(alpha[0].argmax())).run()  # the right source word
    assert not at.exception
    assert _charts(at) == before  # revealed
    assert at.success and at.success[0].value.startswith(EN["quiz.right"])
    assert _score(at) == EN["quiz.score"].format(right=1, total=1)

    at.button(key="s2s_next").click().run()  # the next step is hidden again
    assert _charts(at) == before - 2
    assert any(m.value == EN["quiz.ask.look"].format(step=2) for m in at.markdown)
    _guess_widget(at).set_value(int(alpha[1].argmin())).run()  # a wrong one
    assert at.warning and at.warning[-1].value.startswith(EN["quiz.wrong"])
    assert _score(at) == EN["quiz.score"].format(right=1, total=2)

    at.button(key="s2s_prev").click().run()  # an answered step stays revealed and is not scored again
    assert _charts(at) == before and _score(at) == EN["quiz.score"].format(right=1, total=2)

    next(b for b in at.get("button_group") if b.key == "s2s_quiz_kind").set_value("write")  # guess the token
    at.button(key="s2s_next").click().run()
    at.button(key="s2s_next").click().run()  # step 3
    assert any(m.value == EN["quiz.ask.write"].format(step=3) for m in at.markdown)
    _guess_widget(at).set_value(trace.best.tokens[2]).run()
    assert _score(at) == EN["quiz.score"].format(right=2, total=3)

    at.button(key="s2s_quiz_reset").click().run()
    assert _score(at) == EN["quiz.score"].format(right=0, total=0)
    assert _charts(at) == before - 2  # asked again
    assert not at.exception and not at.error


@pytest.mark.slow
def test_a_link_opens_the_seq2seq_page_in_quiz_mode() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["s2s_quiz"] = "true"
    at.query_params["s2s_quiz_kind"] = EN["quiz.kind.write"]
    at.run()
    assert not at.exception and at.toggle(key="s2s_quiz").value
    assert any(m.value == EN["quiz.ask.write"].format(step=1) for m in at.markdown)


@pytest.mark.slow
def test_a_hidden_step_cannot_be_clicked_open() -> None:
    """Click-to-explain on a step the student has not guessed yet would give the answer away."""
    from ui.strings.explain import STRINGS as EXPLAIN

    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["s2s_quiz"] = "true"
    at.run()
    at.session_state["heatmap_cell"] = (2, 1)  # a click on a later step's row: hidden (NaN) in the quiz
    at.run()
    assert not at.exception
    hints = sum(c.value == EXPLAIN["explain.hint"][0] for c in at.caption)  # the heatmap's and the exposure figure's

    def derivations() -> list[str]:
        return [m.value for m in at.markdown if "Why" in m.value and "(row 2)" in m.value.replace("\\", "")]

    assert hints == 2 and not derivations()  # no derivation, only the hint
    at.toggle(key="s2s_quiz").set_value(False)
    at.session_state["heatmap_cell"] = (2, 1)
    at.run()  # outside the quiz the same click is explained
    assert sum(c.value == EXPLAIN["explain.hint"][0] for c in at.caption) == 1 and len(derivations()) == 1


@pytest.mark.slow
def test_a_bad_quiz_link_falls_back_with_a_notice() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["s2s_quiz"] = "<b>maybe</b>"
    at.run()
    assert not at.exception and not at.toggle(key="s2s_quiz").value
    assert any(EN["quiz.toggle"] in i.value and "maybe" in i.value for i in at.info)


@pytest.mark.slow
def test_the_quiz_in_chinese_on_the_generation_page() -> None:
    """Page 6 (a link with ?lang=zh&gen_quiz=true) asks in 中文. (Clicking is left to the English
    tests: AppTest cannot send a Chinese page's translated head picker back.)"""
    at = AppTest.from_file(str(ROOT / "pages" / "6_Generation.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    at.query_params["gen_quiz"] = "true"
    at.run()
    assert not at.exception
    assert any(m.value == STRINGS["quiz.ask.write"][1].format(step=1) for m in at.markdown)
    assert any(b.label == STRINGS["quiz.pick"][1] for b in at.get("button_group"))
    assert any(m.value == STRINGS["quiz.score"][1].format(right=0, total=0) for m in at.markdown)
    assert any(c.value == STRINGS["quiz.hidden"][1] for c in at.caption)


# ---------- page 7: BERT masking ---------------------------------------------------------


def _mask_only(at: AppTest, position: int) -> str:
    """Mask exactly the piece at ``position`` by clicking it (random draw off); returns that piece,
    read off the click control's own label."""
    pills = next(b for b in at.get("button_group") if b.label == EN["masking.pills"])
    label = next(o for o in pills.options if o.split(" ", 1)[0] == str(position))
    pills.set_value(sorted({*(pills.value or []), position})).run()
    return label.split(" ", 1)[1]


@pytest.mark.slow
def test_bert_quiz_hides_the_predictions_until_every_mask_is_guessed() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "7_BERT_masking.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.toggle(key="bert_draw").set_value(False).run()
    at.toggle(key="bert_quiz").set_value(True).run()
    first = _mask_only(at, 3)
    assert not at.exception
    assert _charts(at) == 0  # the predictions are hidden
    assert any(m.value == EN["quiz.ask.masked"].format(i=1, n=1, pos=3) for m in at.markdown)
    assert first in _guess_widget(at).options  # the right piece is among the choices

    key = _guess_widget(at).key
    at.text_input(key=f"{key}_typed").set_value("zzzz").run()  # wrong
    assert at.warning[-1].value.startswith(EN["quiz.wrong"])
    assert EN["quiz.answer.masked"].format(answer=first) in at.warning[-1].value
    assert _score(at) == EN["quiz.score"].format(right=0, total=1)
    assert _charts(at) == 1  # every mask guessed: the predictions show

    second = _mask_only(at, 4)  # another input as the model reads it: both pieces are asked in turn
    assert _charts(at) == 0
    assert any(m.value == EN["quiz.ask.masked"].format(i=1, n=2, pos=3) for m in at.markdown)
    _guess_widget(at).set_value(first).run()  # right
    assert at.success[-1].value.startswith(EN["quiz.right"])
    assert _score(at) == EN["quiz.score"].format(right=1, total=2)
    assert _charts(at) == 0  # position 4 is still to guess
    assert any(m.value == EN["quiz.ask.masked"].format(i=2, n=2, pos=4) for m in at.markdown)
    _guess_widget(at).set_value(second).run()  # right
    assert _score(at) == EN["quiz.score"].format(right=2, total=3)
    assert _charts(at) == 1
    assert not at.exception and not at.error


# ---------- pages 4 and 6: the same quiz beside their step control -----------------------


@pytest.mark.parametrize("page, key", [("4_Transformer_translation.py", "tf"), ("6_Generation.py", "gen")])
@pytest.mark.slow
def test_transformer_pages_hide_the_step_until_a_guess(page: str, key: str) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    at.run()
    before = _charts(at)
    at.toggle(key=f"{key}_quiz").set_value(True).run()
    assert not at.exception
    assert _charts(at) < before  # the step's answer (top-k, α bars) is hidden
    assert any(c.value == EN["quiz.hidden"] for c in at.caption)
    first = _guess_widget(at).options[0].replace("\\", "")  # a token pill's label is markdown-escaped
    _guess_widget(at).set_value(0 if key == "tf" else first).run()  # tf: the first source word
    assert not at.exception and not at.error
    assert _charts(at) == before  # revealed
    assert len(at.success) + len(at.warning) >= 1 and _score(at).endswith("of 1 right")
    at.button(key=f"{key}_next").click().run()
    assert _charts(at) < before and _score(at).endswith("of 1 right")  # the next step: hidden again


@pytest.mark.slow
def test_seq2seq_quiz_without_attention_asks_for_the_token() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["s2s_quiz"] = "true"
    at.run()
    at.selectbox(key="s2s_model").set_value("s2s-none").run()
    assert not at.exception
    assert any(c.value == EN["quiz.no_attention"] for c in at.caption)
    assert any(m.value == EN["quiz.ask.write"].format(step=1) for m in at.markdown)
    assert all(b.key != "s2s_quiz_kind" for b in at.get("button_group"))
