"""Few-shot translation by a real LLM (models.inference.llm_translate): the prompt's examples come from the
training splits only, the source sentence's tokens are found in the prompt, and the attention kept for each
generated token is the model's own (checked against a full forward pass of transformers' model on the
real SmolLM2 the tests install, and the start-token path on a tiny random Gemma 3); the measured quality
the page states (bench.llm_translate)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from corpora.real_pairs import real_splits
from models.inference import llm as L
from models.inference.llm_translate import (
    DIRECTIONS,
    SHOTS,
    LLMTranslation,
    prompt_parts,
    sentence,
    source_positions,
    translate_few_shot,
)


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_the_examples_are_training_sentences(direction: str) -> None:
    """Every example pair of the prompt is a pair of its corpus's training split, and no example source is
    a test or validation source: the measured quality is on sentences the prompt never shows."""
    splits = real_splits(DIRECTIONS[direction])
    train = set(splits["train"])
    held_out = {src for part in ("valid", "test") for src, _ in splits[part]}
    for src, tgt in SHOTS[direction]:
        assert (src, tgt) in train
        assert src not in held_out


def test_the_prompt_is_labelled_lines() -> None:
    before, middle, after = prompt_parts("zh-en", "  我想喝 咖啡 ")
    assert before.startswith("Chinese: 他被大学录取了。\nEnglish: He was admitted to university.\n\n")
    assert before.endswith("\n\nChinese: ") and middle == "我想喝 咖啡" and after == "\nEnglish:"
    assert before.count("\nEnglish: ") == len(SHOTS["zh-en"])
    assert sentence(("la", "famine", "s'", "appesantissait", "."), "fr") == "La famine s'appesantissait."
    assert sentence(("他", "被", "录取", "了"), "zh") == "他被录取了。"


def test_source_positions_are_the_tokens_over_the_source() -> None:
    # "ab: xy z\n" with the source "xy z" at characters 4–8; a token that joins the space before it counts
    offsets = [(0, 0), (0, 2), (2, 3), (3, 6), (6, 8), (8, 9)]
    assert source_positions(offsets, 4, 8) == [3, 4]
    assert source_positions(offsets, 9, 9) == []


@pytest.fixture(scope="module")
def smollm2() -> L.LLM:
    return L.load_llm()


@pytest.fixture(scope="module")
def english_french(smollm2: L.LLM) -> LLMTranslation:
    return translate_few_shot(smollm2, "en-fr", "I want to drink a cup of coffee.")


def test_the_source_tokens_are_the_sentence(english_french: LLMTranslation) -> None:
    assert "".join(english_french.source_tokens).strip() == "I want to drink a cup of coffee."
    assert english_french.prompt.endswith("English: I want to drink a cup of coffee.\nFrench:")
    assert english_french.finished and english_french.text
    assert not any("\n" in t for t in english_french.output_tokens)


def test_the_kept_attention_is_the_models_own(smollm2: L.LLM, english_french: LLMTranslation) -> None:
    """Each generated token's kept weights equal the rows transformers' model gives the same tokens in one
    full forward pass (no KV cache), at the source's columns; their sum is the share on the source."""
    result = english_french
    ids = result.prompt_ids + result.output_ids
    with torch.inference_mode():
        out = smollm2.model(input_ids=torch.tensor([ids]), use_cache=False, output_attentions=True)
    full = torch.stack([a[0] for a in out.attentions]).float().numpy()  # layers × heads × T × T
    n_prompt = len(result.prompt_ids)
    steps = len(result.output_ids)
    assert result.attention.shape == (steps, smollm2.n_layers, smollm2.n_heads, len(result.source_index))
    for t in range(steps):
        row = full[:, :, n_prompt + t - 1, :]  # the query that produced output token t
        np.testing.assert_allclose(result.attention[t], row[..., result.source_index], atol=2e-4)
    np.testing.assert_allclose(result.on_source, result.attention.sum(-1), rtol=1e-6)
    assert np.all(result.on_source <= 1 + 1e-5) and np.all(result.on_source > 0)
    np.testing.assert_allclose(result.summary(renormalise=True).sum(-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(result.summary(), result.attention.mean(axis=(1, 2)), rtol=1e-6)
    np.testing.assert_allclose(result.summary(2, 3), result.attention[:, 2, 3], rtol=1e-6)
    np.testing.assert_allclose(result.summary(2), result.attention[:, 2].mean(axis=1), rtol=1e-6)
    with pytest.raises(ValueError):
        result.summary(None, 1)


def test_a_gemma_prompt_starts_with_its_start_token(tmp_path) -> None:
    """Gemma reads a prompt after its start token (LLMSpec.bos): the source's positions shift by one."""
    from tests.test_llm_gemma import _save_tiny_gemma

    _save_tiny_gemma(tmp_path)
    tiny = L.load_llm(tmp_path, model="gemma3")
    result = translate_few_shot(tiny, "en-fr", "w5 w6 w7", max_new=3)
    assert result.prompt_ids[0] == tiny.tokenizer.bos_token_id
    assert [result.prompt_tokens[i] for i in result.source_index] == ["w5", "w6", "w7"]
    assert result.attention.shape[:3] == (len(result.output_ids), tiny.n_layers, tiny.n_heads)
    assert not result.finished or result.output_ids  # three tokens, or the line ended


@pytest.mark.parametrize(
    "source, key",
    [("", "llm_explorer.tr.empty"), ("  \n ", "llm_explorer.tr.empty"), ("x" * 301, "llm_explorer.tr.too_long")],
)
def test_unusable_sources_are_refused(smollm2: L.LLM, source: str, key: str) -> None:
    """One message in the reader's language (its string id), before the model runs."""
    from models.inference.common import InputError

    with pytest.raises(InputError) as refused:
        translate_few_shot(smollm2, "en-fr", source)
    assert refused.value.key == key


def test_the_bench_writes_what_the_page_states(tmp_path, monkeypatch) -> None:
    """bench.llm_translate scores the lab's translators (and any LLM asked for) on the test split's first
    pairs; the page's quality table reads that file."""
    import sys

    from bench import llm_translate as bench
    from ui import llm as page_llm

    out = tmp_path / "quality.json"
    monkeypatch.setattr(sys, "argv", ["llm_translate", "--n", "2", "--models", "--out", str(out)])
    bench.main()
    data = json.loads(out.read_text(encoding="utf-8"))
    assert set(data["directions"]) == set(DIRECTIONS)
    hsk = data["directions"]["zh-en"]
    assert hsk["pairs"] == 2 and set(hsk["models"]) == {"tf-hsk", "s2s-hsk-bahdanau"}
    assert all(0 <= m["bleu"] <= 100 and 0 <= m["chrf"] <= 100 for m in hsk["models"].values())
    assert hsk["examples"][0]["source"] == sentence(real_splits("hsk")["test"][0][0], "zh")
    monkeypatch.setattr(page_llm, "TRANSLATION_QUALITY", out)
    assert page_llm.translation_quality("zh-en") == {"n": 2, **hsk}
    monkeypatch.setattr(page_llm, "TRANSLATION_QUALITY", tmp_path / "absent.json")
    assert page_llm.translation_quality("zh-en") is None


def test_a_cached_copy_draws_the_same_numbers(english_french: LLMTranslation) -> None:
    """The page draws the run it made, its slide the cache's pickled copy: every summary is bit for bit the
    same (a strided array summed in another order than its C-ordered copy, 1 ulp apart in float32)."""
    import pickle

    copy = pickle.loads(pickle.dumps(english_french))
    for layer, head in ((None, None), (2, None), (2, 3)):
        for renormalise in (False, True):
            a = english_french.summary(layer, head, renormalise)
            assert np.array_equal(a, copy.summary(layer, head, renormalise))


def test_a_token_that_ends_the_line_keeps_what_comes_before_the_break(smollm2: L.LLM, monkeypatch) -> None:
    """A last piece such as "fin.\\n" (a byte-level BPE can merge a full stop with the line break) keeps
    "fin." in the translation; a piece that is only the break is left out."""
    from dataclasses import replace

    real = L.generate

    def ending(text: str):
        def run(*args, **kwargs):
            trace = real(*args, **kwargs)
            trace.steps[-1] = replace(trace.steps[-1], token=text)
            return trace

        return run

    monkeypatch.setattr(L, "generate", ending("fin.\n\n"))
    kept = translate_few_shot(smollm2, "en-fr", "The end.", max_new=4)
    assert kept.output_tokens[-1] == "fin." and kept.text.endswith("fin.") and kept.finished
    assert len(kept.output_ids) == len(kept.output_tokens) == kept.attention.shape[0]
    monkeypatch.setattr(L, "generate", ending("\n"))
    dropped = translate_few_shot(smollm2, "en-fr", "The end.", max_new=4)
    assert len(dropped.output_tokens) == len(kept.output_tokens) - 1 and dropped.finished
