"""A model that does not read Chinese (SmolLM2 cuts each character into byte pieces): its pieces are
labelled with the character they form, and the Real LLM page says so, on a tiny random Llama with a
byte-level tokenizer (every character one piece per UTF-8 byte, as SmolLM2 reads most Chinese)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
from streamlit.testing.v1 import AppTest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from models.inference import llm as L
from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_llm import served

BYTES = pre_tokenizers.ByteLevel.alphabet()  # the 256 characters byte-level BPE writes bytes as
SPECIALS = ["<s>", "</s>"]


def _byte_tokenizer() -> PreTrainedTokenizerFast:
    vocab = {tok: i for i, tok in enumerate(SPECIALS + sorted(BYTES))}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<s>", eos_token="</s>")


@pytest.fixture(scope="module")
def byte_llm() -> L.LLM:
    torch.manual_seed(0)
    tokenizer = _byte_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=0,
        eos_token_id=1,
        attn_implementation="eager",
    )
    return L.LLM.wrap(LlamaForCausalLM(config), tokenizer, "tiny")


def test_byte_pieces_are_labelled_with_the_character_they_form(byte_llm: L.LLM) -> None:
    ids = L.encode_prompt(byte_llm, "a 咖啡", chat=False)
    assert byte_llm.piece_text(ids)[2:5] == [L.REPLACEMENT] * 3  # alone (as candidates are labelled): U+FFFD
    assert byte_llm.token_text(ids) == ["a", " ", "咖(1/3)", "咖(2/3)", "咖(3/3)", "啡(1/3)", "啡(2/3)", "啡(3/3)"]
    assert L.chinese_reading(byte_llm.token_text(ids)) == (2, 6, 6)
    assert byte_llm.token_text(ids[3:]) == [L.REPLACEMENT] * 2 + ["啡(1/3)", "啡(2/3)", "啡(3/3)"]  # 咖 cut: no run


def test_chinese_reading_counts_whole_characters_once() -> None:
    assert L.chinese_reading(["北京", "是", "咖(1/2)", "咖(2/2)", "the"]) == (4, 4, 2)
    assert L.chinese_reading(["The", " cat"]) == (0, 0, 0)


def test_generation_labels_its_new_pieces_in_context(byte_llm: L.LLM) -> None:
    trace = L.generate(byte_llm, L.encode_prompt(byte_llm, "我想", chat=False), max_new=6, temperature=0.0)
    assert trace.prompt_tokens == ["我(1/3)", "我(2/3)", "我(3/3)", "想(1/3)", "想(2/3)", "想(3/3)"]
    assert [s.token for s in trace.steps] == trace.generated_tokens
    assert trace.generated_tokens == byte_llm.token_text(trace.prompt_ids + trace.generated_ids)[6:]
    for step in trace.steps:  # the candidates for one token are no sequence: each is labelled alone, never joined
        assert step.top_tokens == [byte_llm.tokenizer.decode([int(i)]) for i in step.top_ids]


@pytest.fixture
def page_byte_model(monkeypatch, byte_llm: L.LLM) -> Iterator[L.LLM]:
    with served(monkeypatch, byte_llm):
        yield byte_llm


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_says_smollm2_does_not_read_chinese(page_byte_model: L.LLM, lang: str) -> None:
    from ui.strings import STRINGS

    at = AppTest.from_file(str(ROOT / "pages" / "9_LLM_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(lang=lang, llm_prompt="我想喝咖啡", llm_max_new="2")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    expected = STRINGS["llm_explorer.no_chinese"][lang == "zh"].format(chars=5, pieces=15, fragments=15)
    assert [i.value for i in at.info] == [expected]
    at.text_input(key="llm_prompt").set_value("The capital of France is").run()
    assert not at.info, [i.value for i in at.info]  # an English prompt: nothing to say
