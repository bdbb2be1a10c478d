"""The Real model explorer on the decoder in a real browser, served with the tiny random Llama of
tests/test_llm.py written as the converted model (a cache of models.cache in a temporary
$ATTN_LAB_CACHE; the real SmolLM2 is never needed): the choice in the link, the grid image and the
causal head draw, the caption says decoder, and a click explains a cell with RoPE and GQA."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from models.inference import llm as L
from tests.browser.conftest import assert_no_error, save_screenshot, wait_for_app
from tests.browser.test_click_explain import _click_cell
from tests.server import streamlit_server
from tests.test_llm import VOCAB, _tokenizer

TEXT = " ".join(VOCAB[i] for i in (7, 3, 19, 42, 5, 11, 23, 8, 61, 2))


@pytest.fixture(scope="module")
def tiny_url(tmp_path_factory) -> Iterator[str]:
    """A server whose converted SmolLM2 cache holds the tiny random Llama (3 layers, 6 query heads, 2 K/V heads)."""
    cache = tmp_path_factory.mktemp("cache")
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(VOCAB),
        hidden_size=48,
        intermediate_size=64,
        num_hidden_layers=3,
        num_attention_heads=6,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        rope_theta=500.0,
        bos_token_id=0,
        eos_token_id=1,
        attn_implementation="eager",
    )
    model, tokenizer = LlamaForCausalLM(config), _tokenizer()
    L.ensure_converted(
        folder=cache / L.spec_of().cache_name,
        convert=lambda gguf, out, progress: L.save_converted(model, tokenizer, out),
    )
    with streamlit_server("app.py", env={**os.environ, "ATTN_LAB_CACHE": str(cache)}) as url:
        yield url


def test_the_decoder_in_the_explorer(tiny_url, browser_context) -> None:
    page = browser_context.new_page()
    try:
        page.goto(
            f"{tiny_url}/Real_model_explorer?real_source=SmolLM2-135M+(decoder)"
            f"&real_text={TEXT.replace(' ', '+')}&real_layer=layer+2&real_head=head+5",
            wait_until="domcontentloaded",
        )
        wait_for_app(page)
        page.wait_for_selector(".main-svg image", timeout=90_000)  # the grid: one PNG
        page.wait_for_selector(".st-key-real_head_fig .js-plotly-plot .heatmaplayer", timeout=60_000)
        assert_no_error(page)
        assert page.get_by_text("3 layers × 6 query heads sharing 2 key/value heads").count() == 1
        assert page.get_by_role("radio", name="SmolLM2-135M (decoder)").is_checked()
        points = page.locator(".js-plotly-plot").first.locator(".scatterlayer path.point")
        assert points.count() == 18  # 3 layers × 6 heads
        _click_cell(page, "real_head_fig", 7, 3)
        page.get_by_text("Why").first.wait_for(timeout=60_000)
        wait_for_app(page)
        assert_no_error(page)
        table = page.locator("[data-testid='stTable']").first.inner_text()
        assert "R_q W_q h_q" in table and "÷ √d_k" in table
        save_screenshot(page, "real_model_explorer_decoder")
    finally:
        page.close()
