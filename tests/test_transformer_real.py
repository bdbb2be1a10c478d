"""Transformers on real sentence pairs (issue 11, part 3): tf-bible (World English Bible → Louis Segond)
and tf-hsk (HSK Chinese → English) trained on the RNNs' fixed splits with their vocabulary rule, saved
and loaded, typed Chinese segmented into known ids, unknown words flagged, their test BLEU/chrF beside
the RNNs and the copy baseline, the command line, and the Transformer page on tf-hsk."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from corpora.real_pairs import real_splits
from models.checkpoints import load_results, load_seq2seq, load_transformer
from models.inference.translate import prepare_transformer_source, source_tokens, translate_transformer
from models.text.vocab import UNK_ID
from models.training import transformer as tf_recipe
from models.training.presets import PRESETS
from models.training.seq2seq import build_vocabs, format_results
from tests.conftest import APPTEST_TIMEOUT, ROOT

TINY_MODEL = dict(d_model=16, n_heads=2, num_encoder_layers=1, num_decoder_layers=1, d_ff=32, dropout=0.0)
CORPORA = {"tf-bible": "bible", "tf-hsk": "hsk"}


def _tiny(name: str):
    preset = PRESETS[name]
    return replace(preset, model={**preset.model, **TINY_MODEL}, train=replace(preset.train, steps=2, batch_size=8))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict[str, tuple[object, Path, dict]]:
    """Each preset at a tiny size, 2 steps on its corpus's real training split: (the trained model,
    its saved folder, its training record)."""
    root = tmp_path_factory.mktemp("tf_real")
    out = {}
    for name in CORPORA:
        preset = _tiny(name)
        trained = tf_recipe.train_preset(preset, None, None, preset.train, torch.device("cpu"), [], None)
        record = dict(trained.stats, preset=name, label=preset.label)
        out[name] = (trained.model, trained.save(root / name, record), record)
    return out


@pytest.mark.parametrize("name", list(CORPORA))
@pytest.mark.slow
def test_presets_train_on_the_rnns_splits_with_their_vocabulary(tiny, name: str) -> None:
    corpus = CORPORA[name]
    rnn = PRESETS[f"s2s-{corpus}-bahdanau"]
    preset = PRESETS[name]
    assert preset.family == "transformer" and preset.task == rnn.task
    assert preset.data["corpus"] == rnn.data["corpus"] == corpus
    assert preset.data["min_freq"] == rnn.data["min_freq"] == 2
    _, folder, record = tiny[name]
    loaded = load_transformer(folder)
    src_vocab, tgt_vocab = build_vocabs(real_splits(corpus)["train"], 2)
    assert loaded.src_itos == src_vocab.itos and loaded.tgt_itos == tgt_vocab.itos
    shipped_rnn = load_seq2seq(f"s2s-{corpus}-bahdanau")  # the same rule on the same split: the same words
    assert loaded.src_itos == shipped_rnn.src_vocab.itos and loaded.tgt_itos == shipped_rnn.tgt_vocab.itos
    assert record["n_train"] == len(real_splits(corpus)["train"]) and record["corpus"] == corpus
    assert (record["src_lang"], record["tgt_lang"]) == tuple(preset.task.split("-"))
    assert loaded.task == tf_recipe.TRANSLATION and loaded.architecture == "encoder-decoder"


@pytest.mark.parametrize("name", list(CORPORA))
def test_save_load_round_trip(tiny, name: str) -> None:
    model, folder, _ = tiny[name]
    loaded = load_transformer(folder)
    assert loaded.config == model.config and loaded.config.tie_embeddings
    assert loaded.model.generator.weight is loaded.model.tgt_embed.tokens.weight  # tied again after loading
    for key, value in model.state_dict().items():
        assert torch.equal(value, loaded.model.state_dict()[key]), key
    src, tgt = real_splits(CORPORA[name])["test"][0]
    ids = torch.tensor([[loaded.src_stoi.get(w, UNK_ID) for w in src] + [loaded.config.eos_id]])
    tgt_in = torch.tensor([[loaded.config.bos_id] + [loaded.tgt_stoi.get(w, UNK_ID) for w in tgt]])
    model.eval()
    with torch.inference_mode():
        assert torch.equal(model(ids, tgt_in), loaded.model(ids, tgt_in))


def test_typed_chinese_reaches_the_encoder_as_known_ids(tiny) -> None:
    loaded = load_transformer(tiny["tf-hsk"][1])
    source = prepare_transformer_source("我想喝茶。", loaded)
    words = source.tokens[:-1]
    assert "".join(words) == "我想喝茶" and len(words) >= 2  # segmented (not one token), "。" left out
    assert source.tokens[-1] == "</s>" and not any(source.unknown)
    assert source.ids == [loaded.src_stoi[w] for w in source.tokens] and UNK_ID not in source.ids
    # the very words the seq2seq page's RNN reads (one helper, one vocabulary)
    assert words == source_tokens("我想喝茶。", load_seq2seq("s2s-hsk-bahdanau"))


def test_unknown_words_are_flagged(tiny) -> None:
    loaded = load_transformer(tiny["tf-hsk"][1])
    trace = translate_transformer(loaded, "我想喝茶 😀")
    assert trace.src_tokens[-2:] == ["😀", "</s>"] and trace.src_unknown[-2:] == [True, False]
    assert trace.src_ids[-2] == UNK_ID
    unknown = [n for n in trace.notices if n.topic == "unknown"]
    assert unknown and "😀" in unknown[0].text
    bible = translate_transformer(load_transformer(tiny["tf-bible"][1]), "In the beginning God created zorglub.")
    assert bible.src_unknown[bible.src_tokens.index("zorglub")] and not bible.src_unknown[0]


@pytest.mark.slow
def test_scores_go_beside_the_rnns_and_the_copy_baseline(tiny, monkeypatch) -> None:
    folder = tiny["tf-hsk"][1]
    row = tf_recipe.evaluate_checkpoint(str(folder))
    test = real_splits("hsk")["test"]
    assert row["corpus"] == "hsk" and row["n_test"] == len(test) and row["family"] == "transformer"
    assert 0 <= row["bleu"] <= 100 and 0 <= row["chrf"] <= 100 and row["confidence"]["n"] == len(test)
    monkeypatch.setattr(tf_recipe, "shipped_by_corpus", lambda family: {None: ["tf-en-fr"], "hsk": [str(folder)]})
    results = {"models": [], "real": {}, "errors": []}
    tf_recipe.add_real(results)
    part = results["real"]["hsk"]
    assert part["n_test"] == len(test) and part["models"] == [row] and "copy" in part
    table = format_results(results)
    assert "Transformer · HSK 中文→English" in table and "copy baseline" in table


@pytest.mark.parametrize("name, sentence", [("tf-hsk", "我 喜欢 喝 茶"), ("tf-bible", "God is love.")])
def test_command_line_translates_with_the_shipped_models(name: str, sentence: str, capsys) -> None:
    from cli.translate import main

    assert main(["--model", name, "--json", sentence]) == 0
    trace = json.loads(capsys.readouterr().out)
    assert trace["model"] == name and trace["tgt_tokens"][-1] == "</s>" and len(trace["tgt_tokens"]) > 1
    if name == "tf-hsk":
        assert trace["src_tokens"][:-1] == ["我", "喜欢", "喝", "茶"] and not any(trace["src_unknown"])


def _shipped_row(name: str) -> dict:
    results = load_results() or {}
    rows = [m for part in results.get("real", {}).values() for m in part["models"] if m["name"] == name]
    assert rows, f"{name} is not in checkpoints/seq2seq_evaluation.json: run python -m models.evaluate --write"
    return rows[0]


def test_page_runs_tf_hsk_on_chinese_and_shows_its_scores() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "4_Transformer_translation.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["tf_model"] = "Transformer · HSK 中文→English"  # the URL holds the label
    at.query_params["tf_text"] = "我想喝茶😀"
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="tf_model").value == "tf-hsk"
    assert at.text_input(key="tf_text").label == "Chinese sentence"
    assert any("😀" in w.value for w in at.warning)  # the unknown word, flagged next to the output
    row, grammar = _shipped_row("tf-hsk"), load_results()["families"]["transformer"]["models"]
    markdown = " ".join(m.value.replace("\\", "") for m in at.markdown)
    page = row["page"]  # the figures through the page's own input pipeline (typed Chinese re-segmented)
    assert f"BLEU {page['bleu']}, chrF {page['chrf']} on {row['n_test']} sentences" in markdown
    en_fr = next(m for m in grammar if m["name"] == "tf-en-fr")
    assert f"BLEU {en_fr['bleu']}" in " ".join(c.value for c in at.caption)  # beside the grammar model's
    tables = " ".join(str(frame.value) for frame in at.dataframe)
    assert "copy baseline" in tables and "Bahdanau · HSK" in tables  # the RNNs of the same corpus
    compare = at.selectbox(key="tf_compare").options
    assert compare[1:] and all("HSK" in option for option in compare[1:])  # only models that read Chinese


@pytest.mark.slow
def test_page_follows_the_model_language() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "4_Transformer_translation.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.selectbox(key="tf_model").set_value("tf-hsk").run()
    assert not at.exception and at.text_input(key="tf_text").value == "我想喝茶。"
    at.selectbox(key="tf_model").set_value("tf-bible").run()
    assert not at.exception and at.text_input(key="tf_text").value.startswith("In the beginning")
    assert at.selectbox(key="tf_example").options[1:]  # the Bible's test sentences
    at.selectbox(key="tf_model").set_value("tf-copy").run()
    assert not at.exception and at.text_input(key="tf_text").value == "3 1 4 1 5 9 2 6"


@pytest.mark.slow
def test_page_in_chinese_on_tf_hsk() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "4_Transformer_translation.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    at.query_params["tf_model"] = "Transformer · HSK 中文→英语"
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="tf_model").value == "tf-hsk" and at.text_input(key="tf_text").label == "中文句子"
    assert any("的测试分数" in m.value for m in at.markdown)


def test_inside_one_head_gives_the_hsk_model_its_own_chinese_example() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "5_Inside_one_head.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert at.text_input(key="head_text").value == "The red car is in the small house."
    at.selectbox(key="head_model").set_value("tf-hsk").run()
    assert not at.exception and not at.error
    assert at.text_input(key="head_text").value == "我想喝茶。"
    assert not any("unknown" in w.value.lower() for w in at.warning)  # every word is in the model's vocabulary


def test_one_translator_per_checkpoint_runs_its_family() -> None:
    """load_translator, the one way the CLI and the benchmarks run a checkpoint: the Transformer's and the
    RNN's own decoders, the same traces as calling them directly; a language model is refused by name."""
    import numpy as np

    from models.inference.common import DEFAULT_LENGTH_PENALTY, InputError
    from models.inference.traces import Seq2seqDecodeTrace, TransformerDecodeTrace
    from models.inference.translate import load_translator, translate, translate_transformer
    from models.nn.rnn_seq2seq import SOFT, AttentionMode

    text = "the red car is small ."
    tf = load_translator("tf-en-fr")(text, 2, SOFT, 5, DEFAULT_LENGTH_PENALTY)
    assert isinstance(tf, TransformerDecodeTrace)
    assert tf.tgt_tokens == translate_transformer(load_transformer("tf-en-fr"), text, 2).tgt_tokens
    hard = AttentionMode("hard")
    rnn = load_translator("s2s-bahdanau")(text, 1, hard, 5, DEFAULT_LENGTH_PENALTY)
    assert isinstance(rnn, Seq2seqDecodeTrace)
    direct = translate(load_seq2seq("s2s-bahdanau"), text, 1, hard)
    assert rnn.tgt_tokens == direct.tgt_tokens and np.array_equal(rnn.attention, direct.attention)
    with pytest.raises(InputError, match="language model"):
        load_translator("tf-lm")
