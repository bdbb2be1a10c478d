"""Translation of real sentences (issue 11, part 3): the fixed splits of the Bible and HSK pairs,
chrF, Chinese segmentation, a tiny HSK model trained, saved, loaded and translating typed Chinese,
the evaluation of real-data models against the copy baseline, and page 2 on the HSK model."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import sacrebleu
from streamlit.testing.v1 import AppTest

from corpora.real_pairs import HELD_OUT, LANGUAGES, real_splits, seeded_split, unique_sources
from models.checkpoints import load_seq2seq
from models.inference.common import InputError
from models.inference.translate import translate
from models.text.segment import segment
from models.training.metrics import chrf
from models.training.presets import PRESETS
from models.training.run import run_preset
from models.training.seq2seq import evaluate_real, format_results
from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT

# --------------------------------------------------------------------------------------
# Splits
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus", ["hsk", "bible"])
@pytest.mark.slow
def test_real_splits_are_fixed_unique_and_disjoint(corpus: str) -> None:
    splits = real_splits(corpus)
    n_test, n_valid = HELD_OUT[corpus]
    assert (len(splits["test"]), len(splits["valid"])) == (n_test, n_valid) and len(splits["train"]) > 1000
    sources = {part: [src for src, _ in pairs] for part, pairs in splits.items()}
    for part, srcs in sources.items():
        assert len(srcs) == len(set(srcs)), f"{part}: a source sentence twice"
    train = set(sources["train"])
    assert not train & set(sources["test"]) and not train & set(sources["valid"])
    assert not set(sources["test"]) & set(sources["valid"])
    real_splits.cache_clear()  # read again from the package: the same split
    assert real_splits(corpus) == splits


def test_seeded_split_dedupes_and_depends_only_on_the_seed() -> None:
    pairs = [(("a", str(i % 40)), ("x", str(i))) for i in range(100)]  # 40 distinct sources, repeated
    assert len(unique_sources(pairs)) == 40
    first, rest = seeded_split(pairs, 3, 10)
    assert (len(first), len(rest)) == (10, 30) and not {s for s, _ in first} & {s for s, _ in rest}
    assert seeded_split(pairs, 3, 10) == [first, rest]
    assert seeded_split(pairs, 4, 10) != [first, rest]


def test_studio_runs_never_train_on_the_test_split() -> None:
    from models.training import runs

    data = runs.load_data(replace(runs.PRESETS["tiny"], data="hsk", n_train=5000).preset())
    test = {src for src, _ in real_splits("hsk")["test"]}
    assert not test & {src for src, _ in data.train} and not test & {src for src, _ in data.valid}
    assert {src for src, _ in data.valid} <= {src for src, _ in real_splits("hsk")["valid"]}


# --------------------------------------------------------------------------------------
# chrF (Popović 2015), corpus-level as sacreBLEU
# --------------------------------------------------------------------------------------


def test_chrf_hand_worked() -> None:
    # hyp "ab", ref "abc". 1-grams: hyp {a, b}, ref {a, b, c}, 2 matched → P1 = 1, R1 = 2/3.
    # 2-grams: hyp {ab}, ref {ab, bc}, 1 matched → P2 = 1, R2 = 1/2. 3-grams: the hypothesis has none,
    # so orders 3–6 are left out. P = 1, R = (2/3 + 1/2) / 2 = 7/12.
    # chrF2 = (1 + 4) · 1 · 7/12 / (4 · 1 + 7/12) = (35/12) / (55/12) = 7/11 → 63.64 (β = 1 would give 73.68).
    assert chrf([["ab"]], [["abc"]]) == pytest.approx(700 / 11)
    # Whitespace is removed: tokens "a b" read as the characters "ab".
    assert chrf([["a", "b"]], [["ab"]]) == pytest.approx(100.0)
    assert chrf([["xyz"]], [["abc"]]) == 0.0


def test_chrf_is_corpus_level() -> None:
    # Sentence 1: "a" / "a"; sentence 2: "bc" / "bd". Summed over the corpus: 1-grams hyp 3, ref 3,
    # matched 2 (a, b) → P1 = R1 = 2/3; 2-grams hyp 1 (bc), ref 1 (bd), matched 0 → P2 = R2 = 0.
    # P = R = (2/3 + 0) / 2 = 1/3, so chrF = 1/3 → 33.33. (The mean of sentence scores would be
    # (100 + 25) / 2 = 62.5: "bc"/"bd" alone has P = R = (1/2 + 0) / 2 = 1/4.)
    assert chrf([["a"], ["bc"]], [["a"], ["bd"]]) == pytest.approx(100 / 3)
    assert chrf([["bc"]], [["bd"]]) == pytest.approx(25.0)


def test_chrf_matches_sacrebleu() -> None:
    hyps = [["the", "cat", "sat", "on", "the", "mat", "."], ["a", "dog", "barks"], ["au", "commencement", "dieu"]]
    refs = [["the", "cat", "is", "on", "the", "mat", "."], ["the", "dog", "is", "barking"], ["au", "début", ","]]
    expected = sacrebleu.corpus_chrf([" ".join(h) for h in hyps], [[" ".join(r) for r in refs]]).score
    assert chrf(hyps, refs) == pytest.approx(expected)


# --------------------------------------------------------------------------------------
# Chinese segmentation (forward maximum matching)
# --------------------------------------------------------------------------------------

VOCAB = {"我", "想", "喝", "茶", "喝茶", "中国", "中国人", "人", "是", "北京", "大学", "北京大学"}


@pytest.mark.parametrize(
    "text",
    [
        "我想喝茶。",
        "我是中国人",
        "  我 想\t喝茶 ",
        "北京大学的iPhone15很贵！",
        "我想喝茶😀🍵，OK?",
        "２０２４年 ABC-def",
        "",
        "   ",
        "l'homme est là",
    ],
)
def test_segmentation_round_trip(text: str) -> None:
    seg = segment(text, VOCAB)
    assert "".join(seg.tokens) == "".join(text.split())
    assert len(seg.unknown) == len(seg.tokens)
    assert all(tok and not any(ch.isspace() for ch in tok) for tok in seg.tokens)


def test_segmentation_takes_the_longest_word_and_flags_the_rest() -> None:
    seg = segment("我想喝茶。北京大学的iPhone15", VOCAB)
    assert seg.tokens == ["我", "想", "喝茶", "。", "北京大学", "的", "iPhone15"]
    assert seg.unknown == [False, False, False, True, False, True, True]
    assert segment("中国人是中国人", VOCAB).tokens == ["中国人", "是", "中国人"]
    assert segment("２０２４年", VOCAB).tokens == ["２０２４", "年"]  # a number stays whole
    assert segment("", VOCAB).tokens == []


# --------------------------------------------------------------------------------------
# A tiny HSK model: trained, saved, loaded, translating typed Chinese; evaluated
# --------------------------------------------------------------------------------------

TINY = dict(emb_dim=8, hidden_dim=8, attn_dim=8, dropout=0.0, max_src_len=24, max_tgt_len=12)


def _train_tiny(folder: Path, attention: str) -> Path:
    preset = PRESETS[f"s2s-hsk-{attention}"]
    tiny = replace(
        preset,
        model={**preset.model, **TINY},
        train=replace(preset.train, steps=3, batch_size=8),
        data={**preset.data, "n_train": 300},
    )
    out, record, _ = run_preset(tiny, out=folder)
    assert record["src_lang"] == "zh" and record["tgt_lang"] == "en" and record["corpus"] == "hsk"
    assert record["n_train"] == 300
    return out


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny_hsk")
    return {a: _train_tiny(root / a, a) for a in ("bahdanau", "none")}


def test_tiny_hsk_model_translates_typed_chinese(tiny_models) -> None:
    loaded = load_seq2seq(tiny_models["bahdanau"])
    assert loaded.training["src_lang"] == "zh"
    trace = translate(loaded, "我想喝茶。ABC 😀")
    words = trace.src_tokens[:-1]
    assert words[:2] == ["我", "想"] and "。" not in words  # segmented, not one <unk>; unseen punctuation left out
    assert words[-2:] == ["abc", "😀"] and trace.src_unknown[-3:-1] == [True, True]
    assert not any(trace.src_unknown[:2])
    assert any(n.topic == "unknown" for n in trace.notices)
    assert any("CC-BY-SA-4.0" in n.text for n in trace.notices if n.topic == "scope")
    assert trace.attention is not None and trace.attention.shape[1] == len(trace.src_tokens)
    odd = translate(loaded, "我\x00想\ud800 \u200b喝")  # control, lone surrogate, zero-width: dropped
    assert odd.src_tokens[:-1] == ["我", "想", "喝"]
    with pytest.raises(InputError, match="type a Chinese sentence"):
        translate(loaded, " 。！ ")


def test_evaluation_of_real_models_and_copy_baseline(tiny_models) -> None:
    test = real_splits("hsk")["test"][:25]
    result = evaluate_real("hsk", [tiny_models["bahdanau"], tiny_models["none"]], test)
    assert result["n_test"] == 25 and (result["src_lang"], result["tgt_lang"]) == LANGUAGES["hsk"]
    assert [m["attention"] for m in result["models"]] == ["bahdanau", "none"]
    assert all(m["n_test"] == 25 and 0 <= m["chrf"] <= 100 and 0 <= m["bleu"] <= 100 for m in result["models"])
    sources, refs = [list(s) for s, _ in test], [list(t) for _, t in test]
    assert result["copy"]["chrf"] == round(chrf(sources, refs), 2)
    table = format_results({"models": [], "real": {"hsk": result}, "errors": []})
    assert "copy baseline" in table and "n_test = 25" in table


# --------------------------------------------------------------------------------------
# Page 2 on the shipped HSK model
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_page_translates_chinese_with_the_hsk_model() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.selectbox(key="s2s_model").set_value("s2s-hsk-bahdanau").run()
    assert not at.exception and not at.error
    assert at.text_input(key="s2s_text").value == "我想喝茶。"  # the default follows the model's language
    assert at.text_input(key="s2s_text").label == "Chinese sentence"
    at.text_input(key="s2s_text").set_value("他今天很高兴。").run()
    assert not at.exception and not at.error
    captions = " ".join(c.value.replace("\\", "") for c in at.caption)  # captions are markdown-escaped
    assert "Translation by" in captions and "no AER" in captions  # the output shown; AER hidden with a notice
    assert "HSK 3.0 sentences from the hsk-sentences-audio package, CC-BY-SA-4.0" in captions
    assert "Real sentence pairs: test BLEU and chrF" in [h.value for h in at.subheader]  # the shipped scores
    assert any("copy baseline" in str(frame.value) for frame in at.dataframe)
    at.selectbox(key="s2s_model").set_value("s2s-bahdanau").run()  # back to English: an English default
    assert not at.exception and at.text_input(key="s2s_text").label == "English sentence"
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in at.text_input(key="s2s_text").value)


def test_the_served_font_draws_the_chinese_models_words() -> None:
    """The page's figures label their axes with the HSK models' source words: the offline font
    (scripts/cjk_font.py) must hold every character of them."""
    from fontTools.ttLib import TTFont

    from scripts.cjk_font import OUT, model_characters

    chars = model_characters()
    assert len(chars) > 500  # the shipped HSK models read Chinese
    cmap = TTFont(str(OUT)).getBestCmap()
    missing = "".join(sorted(ch for ch in chars if ord(ch) not in cmap))
    assert not missing, f"not in {OUT.name}: {missing}; run python scripts/cjk_font.py"


def test_a_link_to_the_hsk_model_opens_with_chinese_input() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["s2s_model"] = "Bahdanau · HSK 中文→English"  # the URL holds the label
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="s2s_model").value == "s2s-hsk-bahdanau"
    assert at.text_input(key="s2s_text").value == "我想喝茶。"
    assert "Translation by" in " ".join(c.value for c in at.caption)
    heatmap = charts(at)[0].spec
    assert "source (Chinese)" in heatmap and "target step (English)" in heatmap and "喝" in heatmap


@pytest.mark.slow
def test_the_hsk_model_in_chinese() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    at.query_params["s2s_model"] = "Bahdanau · HSK 中文→英语"
    at.run()
    assert not at.exception and not at.error
    assert at.text_input(key="s2s_text").label == "中文句子"
    captions = " ".join(c.value.replace("\\", "") for c in at.caption)
    assert "hsk-sentences-audio 包中的 HSK 3.0 例句（CC-BY-SA-4.0 许可）" in captions and "AER" in captions


def test_a_studio_run_on_hsk_reads_its_probe_as_chinese(tmp_path) -> None:
    import torch

    from models.training import runs
    from models.training.loop import TrainSettings

    settings = replace(runs.PRESETS["tiny"], data="hsk", n_train=300)
    p = replace(settings.preset(), train=TrainSettings(steps=1, batch_size=8))
    trainee = runs.rnn_trainee(p, runs.load_data(p), torch.device("cpu"))
    src, _, _ = trainee.decode(trainee.model, "我想喝茶")
    assert src[:2] == ["我", "想"]  # segmented, not one <unk>
    trainee.save(tmp_path / "run", {"label": "hsk run"})
    assert load_seq2seq(tmp_path / "run").training["src_lang"] == "zh"
