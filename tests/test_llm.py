"""The real-LLM adapter (models.inference.llm) on a tiny random Llama built here (no download):
generation trace, KV cache, top-k/top-p, grouped-query sharing and cache bytes, RoPE, head-type
scores, the conversion cache; and the page with the model absent (AppTest)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

from models import cache
from models.inference import llm as L
from models.nn.positional import apply_rope
from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT

VOCAB = ["<s>", "</s>"] + [f"w{i}" for i in range(62)]


def _tokenizer() -> PreTrainedTokenizerFast:
    core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="w0"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<s>", eos_token="</s>", unk_token="w0")


@pytest.fixture(scope="module")
def tiny() -> L.LLM:
    """3 layers, 6 query heads sharing 2 key/value heads, head dim 8, random weights."""
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(VOCAB),
        hidden_size=48,
        intermediate_size=64,
        num_hidden_layers=3,
        num_attention_heads=6,
        num_key_value_heads=2,
        max_position_embeddings=128,
        rope_theta=500.0,
        bos_token_id=0,
        eos_token_id=1,
        attn_implementation="eager",
    )
    return L.LLM.wrap(LlamaForCausalLM(config), _tokenizer(), "tiny")


# ---------------------------------------------------------------------------- generation


def test_generation_trace_shapes(tiny: L.LLM) -> None:
    trace = L.generate(tiny, [0, 5, 6, 7], max_new=5, temperature=1.0, top_k=10, seed=3)
    assert len(trace.steps) == len(trace.generated_ids) == 5
    for n, step in enumerate(trace.steps):
        assert step.position == 4 + n
        assert step.attention.shape == (tiny.n_layers, tiny.n_heads, 4 + n)  # every earlier token, no later one
        np.testing.assert_allclose(step.attention.sum(-1), 1.0, atol=1e-5)
        assert step.top_tokens[0] == VOCAB[step.top_ids[0]] and step.token == VOCAB[step.token_id]
        assert np.all(np.diff(step.top_probs) <= 0)
    assert trace.tokens == [VOCAB[i] for i in [0, 5, 6, 7] + trace.generated_ids]
    assert json.loads(json.dumps(trace.to_dict()))["text"] == trace.text


def test_the_step_figure_is_planned_for_its_column(tiny: L.LLM) -> None:
    """The page's step heatmap plans its title and ticks for its own column (about 536 px at
    1280×720 with the sidebar open), not the narrowest half column: "Step 1: attention of
    “Attention”" is one line there (it broke before its last word when planned for 360 px)."""
    from dataclasses import replace

    from ui.llm import STEP_FIGURE_PX, step_figure
    from viz_core.style import TITLE_FONT_SIZE, text_width

    trace = L.generate(tiny, [0, 5, 6, 7], max_new=2, temperature=0.0, seed=0)
    trace.steps[0] = replace(trace.steps[0], token="Attention")
    title = step_figure(trace, 0, "layers", 1).layout.title.text
    assert "<br>" not in title and "“Attention”" in title
    assert text_width(title, TITLE_FONT_SIZE) <= STEP_FIGURE_PX - 30
    narrow = step_figure(trace, 0, "layers", 1, width=360).layout.title.text
    assert narrow.count("<br>") == 1  # the same words, wrapped for a narrower column


def test_kv_cache_gives_the_no_cache_result(tiny: L.LLM) -> None:
    for settings in ({"temperature": 0.0}, {"temperature": 0.9, "top_p": 0.8, "seed": 11}):
        cached = L.generate(tiny, [0, 3, 9, 4, 2], max_new=8, use_cache=True, **settings)
        full = L.generate(tiny, [0, 3, 9, 4, 2], max_new=8, use_cache=False, **settings)
        assert cached.generated_ids == full.generated_ids
        for a, b in zip(cached.steps, full.steps):
            np.testing.assert_allclose(a.attention, b.attention, atol=1e-5)
            np.testing.assert_allclose(a.top_probs, b.top_probs, atol=1e-5)


def test_same_seed_same_sample_and_stop_token(tiny: L.LLM) -> None:
    one = L.generate(tiny, [0, 5], max_new=6, temperature=1.5, seed=4)
    assert one.generated_ids == L.generate(tiny, [0, 5], max_new=6, temperature=1.5, seed=4).generated_ids
    first = one.generated_ids[0]
    stopped = L.generate(tiny, [0, 5], max_new=6, temperature=1.5, seed=4, stop_ids=(first,))
    assert stopped.generated_ids == [first]


def test_top_k_and_top_p_filtering() -> None:
    logits = torch.log(torch.tensor([0.5, 0.2, 0.15, 0.1, 0.05]))
    np.testing.assert_allclose(L.sampling_distribution(logits, 1.0), [0.5, 0.2, 0.15, 0.1, 0.05], atol=1e-6)
    np.testing.assert_allclose(L.sampling_distribution(logits, 1.0, top_k=2), [5 / 7, 2 / 7, 0, 0, 0], atol=1e-6)
    # nucleus: the smallest set whose mass reaches p: 0.5 + 0.2 = 0.7 ≥ 0.7; 0.5 alone < 0.6
    np.testing.assert_allclose(L.sampling_distribution(logits, 1.0, top_p=0.7), [5 / 7, 2 / 7, 0, 0, 0], atol=1e-6)
    np.testing.assert_allclose(L.sampling_distribution(logits, 1.0, top_p=0.6), [5 / 7, 2 / 7, 0, 0, 0], atol=1e-6)
    np.testing.assert_allclose(L.sampling_distribution(logits, 1.0, top_p=0.4), [1, 0, 0, 0, 0], atol=1e-6)
    both = L.sampling_distribution(logits, 1.0, top_k=3, top_p=0.9)  # top-k first, then p on what is left
    np.testing.assert_allclose(both, [0.5 / 0.85, 0.2 / 0.85, 0.15 / 0.85, 0, 0], atol=1e-6)
    np.testing.assert_allclose(L.sampling_distribution(logits, 0.0), [1, 0, 0, 0, 0])
    hot = L.sampling_distribution(logits, 2.0)  # T > 1 flattens: softmax(log p / 2) ∝ √p
    np.testing.assert_allclose(
        hot, np.sqrt([0.5, 0.2, 0.15, 0.1, 0.05]) / np.sqrt([0.5, 0.2, 0.15, 0.1, 0.05]).sum(), atol=1e-6
    )


# ---------------------------------------------------------------------------- grouped-query attention


def test_gqa_sharing_map_matches_the_model(tiny: L.LLM) -> None:
    """Changing one key/value head's K weights changes exactly the query heads the map assigns to it."""
    groups = L.gqa_groups(tiny.n_heads, tiny.n_kv_heads)
    assert groups.tolist() == [0, 0, 0, 1, 1, 1]
    ids = [0, 4, 8, 15, 16, 23, 42]
    before = L.attention_of(tiny, ids)
    k_proj = tiny.model.model.layers[0].self_attn.k_proj
    saved = k_proj.weight.detach().clone()
    try:
        with torch.no_grad():
            k_proj.weight[tiny.head_dim : 2 * tiny.head_dim] += torch.randn(tiny.head_dim, tiny.hidden)  # K/V head 1
        after = L.attention_of(tiny, ids)
    finally:
        with torch.no_grad():
            k_proj.weight.copy_(saved)
    changed = np.abs(after[0] - before[0]).max(axis=(1, 2)) > 1e-4
    assert changed.tolist() == (groups == 1).tolist()
    assert L.gqa_groups(9, 3).tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    with pytest.raises(ValueError):
        L.gqa_groups(9, 2)


def test_kv_cache_bytes_match_the_cache_the_model_keeps(tiny: L.LLM) -> None:
    n = 7
    out = tiny.model(input_ids=torch.arange(n)[None], use_cache=True)
    held = sum(layer.keys.nbytes + layer.values.nbytes for layer in out.past_key_values.layers)
    per_token = L.kv_cache_bytes(tiny.n_layers, tiny.n_kv_heads, tiny.head_dim, bytes_per_value=4)
    assert held == n * per_token
    full = L.kv_cache_bytes(tiny.n_layers, tiny.n_heads, tiny.head_dim, bytes_per_value=4)
    assert full == 3 * per_token  # 6 query heads over 2 K/V heads: the cache is a third
    assert L.kv_cache_bytes(30, 3, 64, 2) == 23_040  # SmolLM2-135M in 16-bit: 2 · 30 · 3 · 64 · 2


# ---------------------------------------------------------------------------- RoPE


def test_rope_frequencies_and_pair_order_match_llama(tiny: L.LLM) -> None:
    rotary = LlamaRotaryEmbedding(tiny.model.config)
    np.testing.assert_allclose(L.rope_frequencies(tiny.head_dim, tiny.rope_theta), rotary.inv_freq.numpy(), rtol=1e-6)
    torch.manual_seed(1)
    q, k = torch.randn(1, 1, 5, tiny.head_dim), torch.randn(1, 1, 5, tiny.head_dim)
    positions = torch.arange(5)[None]
    cos, sin = rotary(q, positions)
    q_llama, k_llama = apply_rotary_pos_emb(q, k, cos, sin)
    order = L.rope_pair_order(tiny.head_dim)
    back = np.argsort(order)
    lab_q = apply_rope(q[..., order].double(), base=tiny.rope_theta)[..., back]
    np.testing.assert_allclose(lab_q.float().numpy(), q_llama.numpy(), atol=1e-5)
    lab_k = apply_rope(k[..., order].double(), base=tiny.rope_theta)[..., back]
    np.testing.assert_allclose(lab_k.float().numpy(), k_llama.numpy(), atol=1e-5)


def test_rope_scores_depend_only_on_the_offset() -> None:
    """RoPE(q, m)·RoPE(k, n) is the same for every (m, n) with the same m − n, and the pair i
    turns by θ_i per position."""
    d, base = 64, 100_000.0
    q, k = torch.randn(d, dtype=torch.float64), torch.randn(d, dtype=torch.float64)
    pos = torch.arange(12, dtype=torch.float64)
    rq, rk = apply_rope(q.expand(12, d), pos, base), apply_rope(k.expand(12, d), pos, base)
    scores = (rq @ rk.T).numpy()
    for offset in range(-11, 12):
        diag = np.diagonal(scores, offset)
        np.testing.assert_allclose(diag, diag[0], atol=1e-9)
    theta = L.rope_frequencies(d, base)
    unit = torch.zeros(12, d, dtype=torch.float64)
    unit[:, 2 * 5] = 1.0
    turned = apply_rope(unit, pos, base)
    np.testing.assert_allclose(turned[:, 10].numpy(), np.cos(pos.numpy() * theta[5]), atol=1e-12)
    np.testing.assert_allclose(turned[:, 11].numpy(), np.sin(pos.numpy() * theta[5]), atol=1e-12)


# ---------------------------------------------------------------------------- head types


def _uniform_causal(n: int) -> np.ndarray:
    a = np.tril(np.ones((n, n)))
    return a / a.sum(-1, keepdims=True)


def test_head_scores_on_constructed_attention() -> None:
    n, start, period = 11, 1, 5  # [bos] + 5 tokens + the same 5 tokens
    sink, prev, induction = np.zeros((n, n)), np.zeros((n, n)), _uniform_causal(n)
    sink[:, 0] = 1.0
    prev[0, 0] = 1.0
    prev[np.arange(1, n), np.arange(n - 1)] = 1.0
    for t in range(start + period, start + 2 * period):  # each second-copy token attends to the one after its first
        induction[t] = 0.0
        induction[t, t - period + 1] = 1.0
    heads = np.stack([sink, prev, induction, _uniform_causal(n)])[None]  # (1 layer, 4 heads, n, n)
    np.testing.assert_allclose(
        L.sink_scores(heads)[0],
        [1.0, 0.1, np.mean([1 / (i + 1) for i in range(1, 6)]) / 2, np.mean([1 / (i + 1) for i in range(1, n)])],
    )
    np.testing.assert_allclose(L.previous_token_scores(heads)[0, :2], [0.1, 1.0])  # query 1: key 0 is also i − 1
    scores = L.induction_scores(heads, start, period)[0]
    np.testing.assert_allclose(scores[:3], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(scores[3], np.mean([1 / (t + 1) for t in range(6, 11)]))


def test_measure_heads_on_the_tiny_model(tiny: L.LLM) -> None:
    text = " ".join(f"w{i}" for i in range(2, 20))
    scores = L.measure_heads(tiny, text, period=10, seed=2)
    for kind in ("sink", "previous", "induction"):
        values = getattr(scores, kind)
        assert values.shape == (tiny.n_layers, tiny.n_heads) and np.all((values >= 0) & (values <= 1))
        best = scores.best(kind, 3)
        assert [s for _, _, s in best] == sorted(values.ravel())[::-1][:3]
        assert all(values[layer, head] == s for layer, head, s in best)
    assert scores.induction_tokens[1:11] == scores.induction_tokens[11:21] and len(scores.induction_tokens) == 21
    assert len(set(scores.induction_tokens[1:11])) == 10


# ---------------------------------------------------------------------------- conversion cache


def _fake_convert(calls: list[int]):
    def convert(gguf, out, progress):
        calls.append(1)
        progress("weights", 0.5)
        (out / "model.safetensors").write_bytes(b"weights" * 100)
        (out / "config.json").write_text("{}")

    return convert


def test_conversion_cache_is_built_once_and_rebuilt_when_broken(tmp_path, monkeypatch) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + bytes(60))
    folder, calls, seen = tmp_path / "cache", [], []
    progress = lambda stage, done: seen.append((stage, done))  # noqa: E731
    convert = _fake_convert(calls)
    assert L.ensure_converted(progress, folder, gguf, convert) == folder and len(calls) == 1
    assert seen == [("weights", 0.5)]
    L.ensure_converted(progress, folder, gguf, convert)
    assert len(calls) == 1  # complete: reused
    (folder / "model.safetensors").write_bytes(b"half")  # a truncated file
    L.ensure_converted(progress, folder, gguf, convert)
    assert len(calls) == 2 and (folder / "model.safetensors").stat().st_size == 700
    (folder / cache.MANIFEST).unlink()  # an unfinished build (no manifest written last)
    L.ensure_converted(progress, folder, gguf, convert)
    assert len(calls) == 3
    gguf.write_bytes(b"GGUF" + bytes(80))  # another source file
    L.ensure_converted(progress, folder, gguf, convert)
    assert len(calls) == 4

    def killed(gguf, out, progress):
        (out / "model.safetensors").write_bytes(b"part")
        raise KeyboardInterrupt

    gguf.write_bytes(b"GGUF" + bytes(90))
    with pytest.raises(KeyboardInterrupt):
        L.ensure_converted(progress, folder, gguf, killed)
    assert not cache.is_complete(folder, L.source_key(gguf))  # the kill left no cache that passes as built


def test_the_cache_is_keyed_by_the_ggufs_contents_and_a_change_in_place_is_found(tmp_path, monkeypatch) -> None:
    """Two Python environments of one machine install the same GGUF at other paths and times: one cache
    serves both. A converted file changed in place at the same size passes the page's quick check but
    not the load's (every byte against the manifest's SHA-256)."""
    import os
    import shutil

    first = tmp_path / "env1" / "m.gguf"
    first.parent.mkdir()
    first.write_bytes(b"GGUF" + bytes(60))
    second = tmp_path / "env2" / "m.gguf"
    second.parent.mkdir()
    shutil.copyfile(first, second)
    os.utime(second, ns=(1, 1))
    assert L.source_key(first) == L.source_key(second)
    folder, calls = tmp_path / "cache", []
    L.ensure_converted(lambda stage, done: None, folder, first, _fake_convert(calls))
    monkeypatch.setattr(L, "gguf_path", lambda *args, **kwargs: second)
    assert L.is_converted(folder) and L.is_converted(folder, verify=cache.SHA256)
    weights = folder / "model.safetensors"
    body = weights.read_bytes()
    weights.write_bytes(body[:-1] + bytes([body[-1] ^ 1]))  # one bit, same size
    assert L.is_converted(folder) and not L.is_converted(folder, verify=cache.SHA256)


def test_save_converted_drops_the_quantizer(tiny: L.LLM, tmp_path) -> None:
    tiny.model.config.quantization_config = {"quant_method": "gguf"}
    stages: list[str] = []
    L.save_converted(tiny.model, tiny.tokenizer, tmp_path, lambda s, d: stages.append(s))
    saved = json.loads((tmp_path / "config.json").read_text())
    assert "quantization_config" not in saved and (tmp_path / "model.safetensors").is_file()
    assert stages == ["saving", "done"]
    again = LlamaForCausalLM.from_pretrained(tmp_path, attn_implementation="eager")
    ids = torch.tensor([[0, 4, 5]])
    torch.testing.assert_close(again(ids).logits, tiny.model(ids).logits)


def test_the_package_ships_the_gguf() -> None:
    path = L.gguf_path()
    assert path.name == L.spec_of().file and path.read_bytes()[:4] == b"GGUF"
    assert path.stat().st_size > 90_000_000


# ---------------------------------------------------------------------------- the page, model absent


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_without_the_converted_model(tmp_path, monkeypatch, lang: str) -> None:
    monkeypatch.setenv("ATTN_LAB_CACHE", str(tmp_path))  # an empty cache: not converted
    at = AppTest.from_file(str(ROOT / "pages" / "9_LLM_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    from ui.strings import STRINGS

    i = 1 if lang == "zh" else 0
    assert at.title[0].value == STRINGS["nav.9"][i]
    assert [w.value for w in at.warning] == [STRINGS["llm_explorer.not_converted"][i].format(command=L.PREPARE_COMMAND)]
    assert [b.label for b in at.button if b.key == "llm_convert"] == [STRINGS["llm_explorer.convert"][i]]


def test_rope_demo_rotates_llama_pairs_by_position() -> None:
    """Pair i (dimensions i, i + d/2) of the query at position p is its position-0 pair turned by p·θ_i."""
    demo = L.rope_demo(64, 100_000.0, 9, seed=3)
    theta = L.rope_frequencies(64, 100_000.0)
    for i in (0, 7, 31):
        q = demo.pair("q", i)
        for p in range(9):
            c, s = np.cos(p * theta[i]), np.sin(p * theta[i])
            np.testing.assert_allclose(q[p], [c * q[0, 0] - s * q[0, 1], s * q[0, 0] + c * q[0, 1]], atol=1e-12)
    np.testing.assert_allclose(demo.scores, demo.q @ demo.k.T)
    np.testing.assert_allclose(np.diagonal(demo.scores, 2), np.diagonal(demo.scores, 2)[0], atol=1e-9)


def test_the_button_converts_in_a_background_thread(tmp_path, monkeypatch) -> None:
    """The click starts the conversion off the script run; its stages reach the job; a failure is
    kept as one line for the page (the real conversion is replaced by a stand-in here)."""
    import threading

    release, calls = threading.Event(), []

    def stand_in(progress, model=L.MODEL_NAME):
        calls.append(threading.current_thread().name)
        progress("weights", 0.15)
        release.wait(10)
        raise OSError("disk full\nwhile saving")

    monkeypatch.setattr(L, "ensure_converted", stand_in)
    monkeypatch.setenv("ATTN_LAB_CACHE", str(tmp_path))
    at = AppTest.from_file(str(ROOT / "pages" / "9_LLM_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.button(key="llm_convert").click().run()
    assert not at.exception and calls == ["llm-conversion"]
    assert at.button(key="llm_convert").disabled  # running: no second job
    worker = next(th for th in threading.enumerate() if th.name == "llm-conversion")
    assert worker.is_alive() and worker is not threading.current_thread()
    release.set()
    worker.join(10)
    at.run()
    from ui.strings import STRINGS

    assert at.error[0].value == STRINGS["llm_explorer.convert_failed"][0].format(error="disk full while saving")
    assert not at.button(key="llm_convert").disabled


def test_a_long_prompt_keeps_its_last_tokens_and_says_so(tiny: L.LLM, monkeypatch) -> None:
    monkeypatch.setattr(L, "MAX_PROMPT_TOKENS", 6)
    words = [f"w{i}" for i in range(2, 12)]
    trace = L.generate_text(tiny, " ".join(words), chat=False, max_new=2, temperature=0.0)
    assert trace.prompt_tokens == words[-6:] and trace.dropped == 4
    assert L.generate_text(tiny, "w3 w4", chat=False, max_new=1).dropped == 0
    with pytest.raises(ValueError):
        L.encode_prompt(tiny, "   ")


def test_no_english_literal_reaches_streamlit_on_the_page() -> None:
    """Every visible string of the page and its widgets comes from the table (the check of test_i18n)."""
    from tests.test_i18n import english_literals

    for name in ("pages/9_LLM_explorer.py", "ui/llm.py"):
        assert english_literals(ROOT / name) == [], name


@pytest.fixture
def page_model(monkeypatch) -> Iterator[L.LLM]:
    """The page's model replaced by a tiny random Llama (3 layers, 6 query heads, 2 key/value heads),
    as if converted (:func:`served`)."""
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
    tiny = L.LLM.wrap(LlamaForCausalLM(config), _tokenizer(), "tiny")
    with served(monkeypatch, tiny):
        yield tiny


@contextlib.contextmanager
def served(monkeypatch, model: L.LLM) -> Iterator[L.LLM]:
    """The Real LLM page's model replaced by ``model``, as if converted; the page's caches emptied before
    and after, so no other test sees it."""
    from ui import llm as page_llm

    monkeypatch.setattr(L, "gguf_path", lambda *args, **kwargs: ROOT)
    monkeypatch.setattr(L, "is_converted", lambda *args, **kwargs: True)
    monkeypatch.setattr(L, "load_llm", lambda *args, **kwargs: model)
    caches = (page_llm.shared_llm, page_llm.generation, page_llm.head_scores, page_llm.few_shot_translation)
    for cached in caches:
        cached.clear()
    try:
        yield model
    finally:
        for cached in caches:
            cached.clear()


@pytest.mark.parametrize(
    "topic, kind",
    [
        ("llm_explorer.tab.generation", None),
        ("llm_explorer.tab.translate", None),
        ("llm_explorer.tab.gqa", None),
        ("llm_explorer.tab.rope", None),
        ("llm_explorer.tab.heads", "induction"),
        ("llm_explorer.tab.heads", "sink"),
        ("llm_explorer.tab.heads", "previous"),
    ],
)
@pytest.mark.slow
def test_page_in_chinese_with_a_model(page_model: L.LLM, topic: str, kind: str | None) -> None:
    """Every tab (and head type) of the page in 中文 with a model loaded: labels, headings, table
    columns and every figure word (titles, axes, colour bars, legends, hover templates) are Chinese."""
    from tests.test_i18n import CJK, _texts, english_words
    from tests.test_transformer_xl import _english_figure_words
    from ui.strings import STRINGS

    at = AppTest.from_file(str(ROOT / "pages" / "9_LLM_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(lang="zh", topic=STRINGS[topic][1], llm_max_new="3")
    if kind:
        at.query_params["llm_kind"] = STRINGS[f"llm_explorer.kind.{kind}"][1]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.info, [i.value for i in at.info]  # the link's values were all accepted
    assert [s for s in _texts(at) if english_words(s) and not CJK.search(s)] == []
    assert charts(at) and _english_figure_words(at) == []
    for table in at.dataframe:
        assert all(CJK.search(str(column)) for column in table.value.columns)
    assert any(f"{page_model.n_layers} 层" in c.value for c in at.caption)  # the tiny model was the one run
    if kind:  # the head type from the link is the one drawn
        title = charts(at)[0].figure["layout"]["title"]["text"]
        assert title.startswith(STRINGS[f"llm_explorer.kind.{kind}"][1])


@pytest.mark.slow
def test_a_generation_step_exports_its_figures_named_after_the_step(page_model: L.LLM, deferred, exported) -> None:
    """The generation step's Export menu (issue 24, item 6): each figure's CSV holds that figure's numbers
    (the new token's attention row per layer, its candidates' bars), the trace and a handout are offered,
    and every file is named after the page, the view and the step, in either language."""
    from tests.test_export_pages import _numbers, _values

    def names(at: AppTest) -> dict[str, str | None]:
        return {b.key: deferred[b.proto.deferred_file_id][0] for b in at.get("download_button")}

    at = AppTest.from_file(str(ROOT / "pages" / "9_LLM_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(llm_max_new="3")
    at.run()
    at.button(key="llm_next").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert names(at) == {
        "export_llm_csv0": "llm-explorer-step-attention-step2.csv",
        "export_llm_csv1": "llm-explorer-candidates-step2.csv",
        "export_llm_json": "llm-explorer-trace.json",
        "export_llm_npz": "llm-explorer-trace.npz",
        "export_llm_html": "llm-explorer-handout-step2.html",
    }
    figures = exported[-1]
    assert list(figures) == ["Attention of new token 2", "Candidates, step 2"]
    for key, fig in zip(("export_llm_csv0", "export_llm_csv1"), figures.values()):
        button = next(b for b in at.get("download_button") if b.key == key)
        got, want = _values(deferred[button.proto.deferred_file_id][1]()), _numbers(fig)
        assert want and set(got) == set(want), key
        for n in want:
            np.testing.assert_allclose(got[n], want[n], rtol=1e-6, err_msg=key)
    trace = json.loads(
        deferred[next(b for b in at.get("download_button") if b.key == "export_llm_json").proto.deferred_file_id][1]()
    )
    assert len(trace["steps"]) == 3 and trace["text"]
    zh = AppTest.from_file(str(ROOT / "pages" / "9_LLM_explorer.py"), default_timeout=APPTEST_TIMEOUT)
    zh.query_params.update(llm_max_new="3", lang="zh")
    zh.run()
    assert not zh.exception and names(zh)["export_llm_csv0"] == "llm-explorer-step-attention-step1.csv"


# ---------------------------------------------------------------------------- the command line


def test_generate_command_runs_the_real_llm(tiny: L.LLM, monkeypatch, capsys) -> None:
    """`python -m models.generate --model smollm2 --json` (here on the tiny Llama): the sampled
    continuation and each new token's attention of every layer × head over all tokens before it."""
    from cli.generate import main

    monkeypatch.setattr(L, "load_llm", lambda *args, **kwargs: tiny)
    assert (
        main(
            [
                "--model",
                "smollm2",
                "--plain",
                "--json",
                "--max-new",
                "4",
                "--temperature",
                "0.8",
                "--top-k",
                "10",
                "--top-p",
                "0.9",
                "--seed",
                "5",
                "w3 w4 w5",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    expected = L.generate_text(tiny, "w3 w4 w5", chat=False, max_new=4, temperature=0.8, top_k=10, top_p=0.9, seed=5)
    assert out["generated_ids"] == expected.generated_ids and out["text"] == expected.text
    first = np.asarray(out["steps"][0]["attention"])
    assert first.shape == (tiny.n_layers, tiny.n_heads, 3)  # the prompt's 3 tokens
    assert out["top_p"] == 0.9 and out["use_cache"] is True


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--model", "smollm2", "--plain", ""], "the prompt is empty"),
        (["--model", "smollm2", "--max-new", "0", "w3"], "--max-new must be from 1 to"),
    ],
)
def test_generate_command_refuses_bad_llm_input_in_one_line(tiny: L.LLM, monkeypatch, capsys, argv, said) -> None:
    from cli.generate import main

    monkeypatch.setattr(L, "load_llm", lambda *args, **kwargs: tiny)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


def test_generate_command_says_how_to_convert_the_llm(monkeypatch, capsys) -> None:
    from cli.generate import main

    def not_converted():
        raise L.LLMError(f"the model is not converted yet: run {L.PREPARE_COMMAND}")

    monkeypatch.setattr(L, "load_llm", not_converted)
    assert main(["--model", "smollm2", "hello"]) == 1
    assert L.PREPARE_COMMAND in capsys.readouterr().err
