"""The Attention-at-scale page (AppTest on the shipped tf-lm): the tiles of one head drawn from the trace
computed here, stepping through the key blocks, the finished pass against exact attention, every tab,
bad links, and 中文."""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from models.lessons.at_scale import exact_attention, tiled_attention
from tests.charts import charts, tables
from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.strings import STRINGS
from viz_core.export import _decode

pytestmark = pytest.mark.slow
PAGE = str(ROOT / "pages" / "15_Attention_at_scale.py")


def _run(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(query or {})
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _specs(at: AppTest) -> dict[str, dict]:
    return {c.key: c.figure for c in charts(at)}


def _z(trace: dict) -> np.ndarray:
    return np.nan_to_num(np.asarray(_decode(trace["z"]), dtype=float))


def test_tiles_are_the_heads_own_and_step_to_exact() -> None:
    from ui.at_scale import EXAMPLE, head_qkv

    at = _run()
    qkv, _ = head_qkv("tf-lm", EXAMPLE, 0, 0)
    _, p = exact_attention(qkv.q, qkv.k, qkv.v)
    result = tiled_attention(qkv.q, qkv.k, qkv.v, 8, record=1)
    spec = _specs(at)["scale_tiles"]
    np.testing.assert_allclose(_z(spec["data"][0]), np.tril(p), atol=1e-6)  # what standard attention holds
    tile = result.steps[0].p
    np.testing.assert_allclose(_z(spec["data"][2]), np.nan_to_num(tile), atol=1e-6)
    assert at.session_state["scale_step"] == 1 and not at.success
    at.button(key="scale_next").click().run()  # the diagonal block: the last of the query block
    assert not at.exception
    spec = _specs(at)["scale_tiles"]
    lower = np.tril(np.ones((8, 8), dtype=bool))
    np.testing.assert_allclose(_z(spec["data"][2])[lower], result.steps[1].p[lower], atol=1e-6)
    done = at.success[0].value
    assert f"{float(np.abs(result.output - exact_attention(qkv.q, qkv.k, qkv.v)[0]).max()):.2e}" in done


def test_block_and_query_block_in_the_link() -> None:
    at = _run({"scale_block": "4", "scale_qblock": "3", "scale_layer": "1", "scale_head": "2"})
    assert at.session_state["scale_block"] == 4 and at.session_state["scale_qblock"] == 3
    assert at.button(key="scale_next").disabled is False  # four key blocks up to the diagonal
    assert len(_specs(at)["scale_tiles"]["data"][2]["y"]) == 4
    bad = _run({"scale_block": "7"})
    assert bad.session_state["scale_block"] == 8  # the default, with a notice
    assert bad.warning or bad.info


@pytest.mark.parametrize(
    "topic, key",
    [
        ("KV cache and shared heads", "scale_cache"),
        ("Windows and sinks", "scale_masks"),
        ("Cost against length", "scale_cost"),
        ("Rebuild a row", "scale_rebuild"),
    ],
)
def test_every_tab_draws(topic: str, key: str) -> None:
    assert key in _specs(_run({"topic": topic}))


def test_linear_tab_and_chinese() -> None:
    at = _run({"topic": "Linear attention"})
    assert any("max |parallel − recurrent|" in i.value for i in at.info)
    zh = _run({"lang": "zh"})
    assert zh.title[0].value == STRINGS["nav.15"][1]
    assert _specs(zh)["scale_tiles"]["layout"]["annotations"][0]["text"] == STRINGS["scale.fig.matrix"][1]


def test_empty_input_says_so() -> None:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params["scale_text"] = ""
    at.run()
    assert not at.exception
    assert [w.value for w in at.warning] == [STRINGS["scale.empty"][0]] or "scale_tiles" in _specs(at)


def _baseline(name: str) -> dict:
    return json.loads((ROOT / "bench" / "baselines" / name).read_text(encoding="utf-8"))


def test_window_tab_shows_the_measured_perplexities() -> None:
    """The window tab's table and bars are bench/baselines/window_sinks.json's numbers; the cache column is the
    settings' cache tokens × SmolLM2's bytes per token (2 × 30 × 3 × 64 × 4)."""
    data = _baseline("window_sinks.json")
    at = _run({"topic": "Windows and sinks"})
    frame = tables(at)["scale_window_table"]
    assert list(frame.iloc[:, 2]) == [f"{v:.3f}" for v in data["perplexity"]]
    assert list(frame.iloc[:, 3]) == [f"×{v / data['perplexity'][0]:.2f}" for v in data["perplexity"]]
    assert list(frame.iloc[:, 4]) == [f"{v:.3f}" for v in data["perplexity_all"]]
    assert list(frame.iloc[:, 1]) == [
        f"{c:,} tokens, {c * 2 * 30 * 3 * 64 * 4 / 2**20:.1f} MiB" for c in data["cache_tokens"]
    ]
    assert frame.iloc[0, 1].startswith(f"{data['n_tokens']:,} tokens")
    bars = [tr for tr in _specs(at)["scale_window_ppl"]["data"] if tr["type"] == "bar"]
    by = {(w, s): p for w, s, p in zip(data["windows"], data["sinks"], data["perplexity"])}
    sizes = sorted(w for w in set(data["windows"]) if w is not None)
    assert bars[0]["y"] == [by[(w, 0)] for w in sizes] and bars[1]["y"] == [by[(w, 4)] for w in sizes]


def test_linear_tab_shows_the_trained_comparison() -> None:
    data = _baseline("linear_attention.json")
    at = _run({"topic": "Linear attention"})
    frame = tables(at)["scale_linear_table"]
    assert list(frame.iloc[:, 1]) == [f"{v:.1f}" for v in data["heldout_ppl"]]
    assert list(frame.iloc[:, 2]) == [f"{v:.3f}" for v in data["final_loss"]]
    spec = _specs(at)["scale_linear_cost"]
    cost = data["cost"]
    state = [tr for tr in spec["data"] if tr["yaxis"] == "y3"]
    assert [tr["y"] for tr in state] == [[b / 1024 for b in cost["state_bytes"][k]] for k in data["kinds"]]
    assert any("small" in c.value for c in at.markdown)  # says it is a small model trained here


def test_generation_time_button(monkeypatch) -> None:
    """The KV cache tab's button times generation with and without the cache, here on a tiny random Llama standing in
    for SmolLM2 (as tests/test_llm.py's page tests do): both figures come back in one line."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from models.inference import llm as L
    from ui import at_scale, llm as page_llm

    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=64,
        hidden_size=48,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=6,
        num_key_value_heads=2,
        max_position_embeddings=512,
        attn_implementation="eager",
    )
    tiny = L.LLM.wrap(LlamaForCausalLM(config), None, "tiny")
    monkeypatch.setattr(L, "gguf_path", lambda *args, **kwargs: ROOT)
    monkeypatch.setattr(L, "is_converted", lambda *args, **kwargs: True)
    monkeypatch.setattr(L, "load_llm", lambda *args, **kwargs: tiny)
    caches = (page_llm.shared_llm, at_scale.generation_times)
    for cached in caches:
        cached.clear()
    try:
        at = _run({"topic": "KV cache and shared heads"})
        assert not [i for i in at.info if "ms per token" in i.value]
        at.button(key="scale_measure").click().run()
        assert not at.exception
        lines = [i.value for i in at.info if "ms per token with the KV cache" in i.value]
        assert len(lines) == 1 and "16 tokens after a 128-token prompt" in lines[0]
    finally:
        for cached in caches:
            cached.clear()


def test_a_clicked_cell_of_p_is_explained() -> None:
    """Click-to-explain on the tiles' left panel (ui.explain; the click simulated by the cell its callback stores):
    the derivation of P[5, 2] from tf-lm itself, whose last line checks it against the drawn weight, which is
    exact attention's weight recomputed here from the head's Q and K."""
    from ui.at_scale import EXAMPLE, head_qkv

    at = _run()
    at.session_state["scale_tiles_cell"] = (5, 2)
    at.run()
    assert not at.exception, at.exception
    title = " ".join(m.value for m in at.markdown if "Why" in m.value)
    assert "row 5" in title and "column 2" in title
    qkv, _ = head_qkv("tf-lm", EXAMPLE, 0, 0)
    assert f"{exact_attention(qkv.q, qkv.k, qkv.v)[1][5, 2]:.4f}" in title.replace("\\", "")
    values = at.table[0].value.iloc[:, 2].tolist()
    assert values[-2].replace("\\", "") == values[-1].replace("\\", "")  # drawn = the model's own weight


@pytest.mark.slow
def test_smollm2_generation_times_and_a_clicked_cell() -> None:
    """With the real SmolLM2 (skipped where it is not converted: python -m models.prepare_llm): the KV cache tab's
    button measures generation with and without the cache, and a clicked cell of one of its heads is explained
    from the model, matching the drawn weight (exact attention recomputed here from the head's Q and K)."""
    from models.inference.llm import LLMError, gguf_path, is_converted

    try:
        gguf_path()
        if not is_converted():
            pytest.skip("SmolLM2 is not converted (python -m models.prepare_llm)")
    except LLMError as exc:
        pytest.skip(str(exc))
    from ui.at_scale import EXAMPLE, head_qkv

    at = _run({"topic": "KV cache and shared heads", "scale_model": "SmolLM2-135M"})
    assert at.session_state["scale_model"] == "smollm2"
    at.button(key="scale_measure").click().run()
    assert not at.exception, at.exception
    line = [i.value for i in at.info if "ms per token with the KV cache" in i.value]
    assert len(line) == 1 and line[0].startswith("SmolLM2-135M:")
    at.session_state["scale_tiles_cell"] = (9, 3)
    at.run()
    assert not at.exception, at.exception
    title = " ".join(m.value for m in at.markdown if "Why" in m.value).replace("\\", "")
    qkv, _ = head_qkv("smollm2", EXAMPLE, 0, 0)
    assert "row 9" in title and f"{exact_attention(qkv.q, qkv.k, qkv.v)[1][9, 3]:.4f}" in title
    values = at.table[0].value.iloc[:, 2].tolist()
    assert values[-2].replace("\\", "") == values[-1].replace("\\", "")
