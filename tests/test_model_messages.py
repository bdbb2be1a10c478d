"""Messages from models/ in the reader's language: an InputError carries the string id and fields of
its own English text (str(exc) stays English for the command line), the "trained on" notice names
its data, and the pages show both in 中文."""
from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from models.inference.common import InputError
from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.strings import STRINGS
from ui.tokens import md_escape

CJK = re.compile(r"[\u4e00-\u9fff]")


def _loaded(name: str):
    from models.checkpoints import load_seq2seq, load_transformer

    return load_seq2seq(name) if name.startswith("s2s-") else load_transformer(name)


def _raise(call: Callable[[], object]) -> InputError:
    with pytest.raises(InputError) as err:
        call()
    return err.value


def _cases() -> list[tuple[str, Callable[[], object]]]:
    """(id, a call that raises an InputError a page can show)."""
    from models.inference import generate, translate, what_if
    from models.lessons import sandbox

    ones = np.ones((2, 3))
    return [
        ("translate.empty", lambda: translate.translate(_loaded("s2s-bahdanau"), "  ")),
        ("translate.beam", lambda: translate.translate(_loaded("s2s-bahdanau"), "the car", beam=99)),
        ("translate.alpha", lambda: translate.translate(_loaded("s2s-bahdanau"), "the car", length_penalty=9.0)),
        ("translate.hard", lambda: translate.translate(_loaded("s2s-none"), "the car",
                                                       mode=translate.AttentionMode("hard"))),
        ("transformer.empty", lambda: translate.translate_transformer(_loaded("tf-en-fr"), "")),
        ("digits.empty", lambda: translate.translate_transformer(_loaded("tf-copy"), "")),
        ("digits.symbol", lambda: translate.translate_transformer(_loaded("tf-copy"), "3 x 1")),
        ("generate.max_new", lambda: generate.generate_text(_loaded("tf-lm"), "in the", max_new=0)),
        ("generate.temperature", lambda: generate.generate_text(_loaded("tf-lm"), "in the", temperature=99.0)),
        ("generate.top_k", lambda: generate.generate_text(_loaded("tf-lm"), "in the", top_k=0)),
        ("what_if.none", lambda: what_if.typed_token("  ")),
        ("what_if.many", lambda: what_if.typed_token("la voiture")),
        ("what_if.start", lambda: what_if.forced_ids(["<s>"], {"<s>": 1})),
        ("what_if.unknown", lambda: what_if.forced_ids(["voitur"], {"voiture": 5, "la": 6})),
        ("what_if.far", lambda: what_if.forced_ids(["zzz"], {"voiture": 5})),
        ("what_if.step", lambda: what_if.what_if_translation(_loaded("s2s-bahdanau"), "the car", ["la", "</s>"], 5,
                                                             "la")),
        ("what_if.kind", lambda: what_if.ablated_translation(_loaded("tf-en-fr"), "the car", kind="other", layer=0,
                                                             head=0)),
        ("what_if.head", lambda: what_if.ablated_translation(_loaded("tf-en-fr"), "the car", kind="cross", layer=0,
                                                             head=99)),
        ("sandbox.empty", lambda: sandbox.parse_matrix(" ", "Q")),
        ("sandbox.rows", lambda: sandbox.parse_matrix("\n".join(["1"] * 7), "K")),
        ("sandbox.cols", lambda: sandbox.parse_matrix("1 2 3 4 5", "V")),
        ("sandbox.word", lambda: sandbox.parse_matrix("1 two", "Q")),
        ("sandbox.nan", lambda: sandbox.parse_matrix("nan 1", "Q")),
        ("sandbox.range", lambda: sandbox.parse_matrix("1 1e6", "Q")),
        ("sandbox.ragged", lambda: sandbox.parse_matrix("1 2\n3", "Q")),
        ("sandbox.ragged2", lambda: sandbox.parse_matrix("1\n3 4", "Q")),
        ("sandbox.width", lambda: sandbox.qkv_steps(ones, np.ones((2, 4)), np.ones((2, 1)))),
        ("sandbox.values", lambda: sandbox.qkv_steps(ones, ones, np.ones((3, 1)))),
        ("sandbox.padding", lambda: sandbox.qkv_steps(ones, ones, np.ones((2, 1)), "padding", 2)),
    ]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_an_input_error_carries_its_translation(case: tuple[str, Callable[[], object]]) -> None:
    """The string id's English, filled with the exception's fields, is the exception's own text;
    its 中文 takes the same fields."""
    exc = _raise(case[1])
    assert exc.key, f"{case[0]}: {exc} has no string id"
    en, zh = STRINGS[exc.key]
    assert en.format(**exc.params) == str(exc)
    assert CJK.search(zh.format(**exc.params))


def test_the_scope_notice_names_its_data_in_chinese() -> None:
    """The "trained on" notice of a shipped model: its English as before, in 中文 with the data's
    Chinese name (ui.tokens.model_text)."""
    from models.inference.translate import translate
    from ui.i18n import reading
    from ui.tokens import model_text

    scope = next(n for n in translate(_loaded("s2s-bahdanau"), "the red car").notices if n.kind == "scope")
    assert scope.text.startswith("This model was trained only on the embedded English→French generator (")
    with reading("zh"):
        zh = model_text(scope.key, scope.args, scope.text)
    assert STRINGS["data.en_fr"][1] in zh and "English" not in zh
    with reading("en"):
        assert model_text(scope.key, scope.args, scope.text) == scope.text


@pytest.mark.parametrize("step, token", [(0, "le"), (1, "voiture")])
def test_the_forced_step_notice_carries_its_translation(step: int, token: str) -> None:
    """A what-if's forced-step notice (replacing the model's token or not) in English and 中文."""
    from models.inference.what_if import what_if_translation
    from models.inference.translate import translate

    loaded = _loaded("s2s-bahdanau")
    original = translate(loaded, "the red car").best.tokens
    notice = what_if_translation(loaded, "the red car", original, step, token).notices[0]
    assert notice.kind == "forced" and notice.key
    en, zh = STRINGS[notice.key]
    assert en.format(**notice.args) == notice.text
    assert CJK.search(zh.format(**notice.args)) and token in zh.format(**notice.args)


def _run(page: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, page
    return at


def test_pages_show_model_messages_in_chinese() -> None:
    """Page 2 in 中文: the scope notice in Chinese; an empty sentence: the model's refusal in Chinese
    (escaped), no English."""
    at = _run("2_Seq2seq_attention.py")
    captions = [c.value for c in at.caption]
    assert any(STRINGS["data.en_fr"][1] in c for c in captions), captions
    at = _run("2_Seq2seq_attention.py", s2s_text=" ")  # (a link: AppTest cannot rerun translated option labels)
    warnings = [w.value for w in at.warning]
    assert warnings == [md_escape(STRINGS["err.nothing_to_translate"][1])], warnings


def test_the_sandbox_shows_its_errors_in_chinese() -> None:
    """Page 1's Q/K/V sandbox in 中文: a typed word in Q is refused in Chinese, naming the cell."""
    at = _run("1_Attention_from_scratch.py", topic=STRINGS["p1.tab.sandbox"][1], sb_q="1 two")
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and CJK.search(errors[0]) and "two" in errors[0], errors
    assert "not a number" not in errors[0]
