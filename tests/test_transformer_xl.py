"""Transformer-XL (Dai et al. 2019): the relative shift, the four score terms, the memory, the masks,
the checkpoint family, the traces, and an AppTest of the page."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest
from torch import nn

from corpora.text import tokenize

from models.checkpoints import load_txl, save_txl
from models.inference.common import InputError
from models.inference.transformer_xl import (
    dependency,
    explain_score,
    generate_with_memory,
    read_passage,
    shift_demo,
)
from models.nn.positional import relative_scores
from models.nn.transformer_xl import TransformerXL, TXLConfig, rel_shift, score_terms, xl_mask
from models.text.vocab import SPECIALS
from models.training.transformer_xl import batchify, segment_perplexity
from tests.charts import charts
from tests.cli_helpers import assert_one_line_error, run
from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.strings import STRINGS
from ui.transformer_xl import EXAMPLES


def _model(n_layers: int = 2, mem_len: int = 3, seed: int = 0) -> TransformerXL:
    torch.manual_seed(seed)
    m = (
        TransformerXL(
            TXLConfig(
                vocab_size=40,
                d_model=16,
                n_heads=2,
                n_layers=n_layers,
                d_ff=32,
                dropout=0.0,
                seg_len=4,
                mem_len=mem_len,
            )
        )
        .double()
        .eval()
    )
    with torch.no_grad():  # u and v start at zero: make terms (c) and (d) non-trivial
        for layer in m.layers:
            layer.attn.u.normal_()
            layer.attn.v.normal_()
    return m


def _ids(n: int, seed: int = 1) -> torch.Tensor:
    return torch.randint(4, 40, (1, n), generator=torch.Generator().manual_seed(seed))


def test_rel_shift_equals_explicit_indexing() -> None:
    L, K = 4, 7
    x = torch.randn(2, 3, L, K)
    out = rel_shift(x)
    for i in range(L):
        for j in range(K - L + i + 1):  # the visible keys j ≤ M + i
            assert torch.equal(out[..., i, j], x[..., i, j + L - 1 - i])
    before, after, mask = shift_demo(4, 3)  # the page's picture: distances before and after the shift
    i, j = np.indices((4, 7))
    assert (before == 6 - j).all() and (after[mask] == (3 + i - j)[mask]).all()


def test_mask_over_memory_and_segment() -> None:
    mask = xl_mask(3, 2)
    assert mask.shape == (3, 5)
    expected = torch.tensor([[j <= 2 + i for j in range(5)] for i in range(3)])
    assert torch.equal(mask, expected)
    assert mask[:, :2].all()  # every query sees the whole memory


def test_terms_sum_to_the_model_score() -> None:
    m = _model()
    ids = _ids(8)
    first = m.run(ids[:, :4])
    out = m.run(ids[:, 4:], first.memory, keep=True)
    assert out.layer_inputs is not None and out.scores is not None
    mem = first.memory[0].shape[1]
    for layer in range(2):
        for head in range(2):
            for query in range(4):
                t = score_terms(m.layers[layer].attn, out.layer_inputs[layer][0], mem, head, query)
                assert t.a.shape == (mem + query + 1,)
                torch.testing.assert_close(t.total, out.scores[0, layer, head, query, : mem + query + 1])
                assert t.c.std() > 0 and t.d.std() > 0  # all four terms take part
                assert torch.equal(t.distances, mem + query - torch.arange(mem + query + 1))


def _naive_forward(m: TransformerXL, ids: torch.Tensor) -> torch.Tensor:
    """A vanilla causal Transformer with relative attention on one segment, head by head with explicit
    R_{i−j} (models.nn.positional.relative_scores), no memory, no shift."""
    x = m.embed(ids[0]) * math.sqrt(m.config.d_model)
    n = x.shape[0]
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    for layer in m.layers:
        a = layer.attn
        heads = []
        for h in range(a.n_heads):
            rows = slice(h * a.d_k, (h + 1) * a.d_k)
            q, k, v = x @ a.w_q.weight[rows].T, x @ a.w_k.weight[rows].T, x @ a.w_v.weight[rows].T
            s = relative_scores(q, k, a.w_r.weight[rows], a.u[h], a.v[h])["total"] / math.sqrt(a.d_k)
            heads.append(torch.softmax(s.masked_fill(~causal, -math.inf), -1) @ v)
        x = layer.sub_attn.norm(x + a.w_o(torch.cat(heads, -1)))
        x = layer.sub_ff.norm(x + layer.feed_forward(x))
    return m.generator(x)


def test_memory_zero_equals_vanilla_relative_model() -> None:
    m = _model()
    ids = _ids(6)
    torch.testing.assert_close(m.run(ids).logits[0], _naive_forward(m, ids))
    torch.testing.assert_close(m.run(ids, m.empty_memory(1)).logits, m.run(ids).logits)


def test_two_segments_with_full_memory_equal_one_causal_pass() -> None:
    """With M ≥ L the memory holds every earlier state, so recurrence reproduces one pass over 2L
    (relative positions make the cached states reusable)."""
    m = _model(n_layers=3, mem_len=4)
    ids = _ids(8)
    first = m.run(ids[:, :4])
    second = m.run(ids[:, 4:], first.memory)
    torch.testing.assert_close(second.logits, m.run(ids, mem_len=0).logits[:, 4:])


def test_no_gradient_into_memory() -> None:
    m = _model()
    m.train()
    memory = [torch.randn(1, 3, 16, dtype=torch.float64, requires_grad=True) for _ in m.layers]
    logits, new_memory = m(_ids(4), memory)
    logits.sum().backward()
    assert all(mem.grad is None for mem in memory)
    assert not any(mem.requires_grad for mem in new_memory)
    assert m.layers[0].attn.w_q.weight.grad is not None  # the segment itself does get gradients


def test_memory_keeps_the_last_m_positions() -> None:
    m = _model(mem_len=6)
    ids = _ids(12)
    out = m.run(ids[:, :4])
    assert out.memory[0].shape[1] == 4
    out2 = m.run(ids[:, 4:8], out.memory)
    assert out2.memory[0].shape[1] == 6
    emb = m.embed(ids[0, 2:8]) * 4.0  # √16: layer 0's memory is the embedded input
    torch.testing.assert_close(out2.memory[0][0], emb)


def test_attention_respects_the_mask() -> None:
    m = _model()
    ids = _ids(8)
    first = m.run(ids[:, :4])
    out = m.run(ids[:, 4:], first.memory, keep=True)
    assert out.attention is not None
    mask = xl_mask(4, 3)
    assert out.attention.shape == (1, 2, 2, 4, 7)
    assert torch.all(out.attention[..., ~mask] == 0)
    torch.testing.assert_close(out.attention.sum(-1), torch.ones(1, 2, 2, 4, dtype=torch.float64))


def test_dependency_vanilla_vs_xl() -> None:
    # 12 tokens, segments of 4, 2 layers; the last token (11) sits in segment 2 (8 … 11)
    vanilla = dependency(12, 4, 0, 2, 11)
    assert vanilla.shape == (3, 12)
    assert np.flatnonzero(vanilla[0]).tolist() == list(range(8, 12))  # never beyond its own segment
    xl = dependency(12, 4, 4, 2, 11)
    assert np.flatnonzero(xl[2]).tolist() == [11]
    assert np.flatnonzero(xl[1]).tolist() == list(range(4, 12))  # one layer: memory + segment
    assert np.flatnonzero(xl[0]).tolist() == list(range(0, 12))  # two layers: one more segment back
    with pytest.raises(InputError):
        dependency(12, 4, 4, 2, 12)


def test_batchify_and_segment_perplexity() -> None:
    rows = batchify(list(range(10)), 3)
    assert rows.tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    m = _model(mem_len=4).float()
    stream = _ids(13)[0].tolist()
    ppl0, n0 = segment_perplexity(m, stream, 4, 0, skip_id=None)
    nll = 0.0
    for s in range(0, 12, 4):  # memory 0: every segment alone
        x = torch.tensor([stream[s : s + 5]])
        with torch.no_grad():
            nll += float(nn.functional.cross_entropy(m.run(x[:, :-1], mem_len=0).logits[0], x[0, 1:], reduction="sum"))
    assert n0 == 12
    assert ppl0 == pytest.approx(math.exp(nll / 12), rel=1e-5)
    ppl4, _ = segment_perplexity(m, stream, 4, 4, skip_id=None)
    assert ppl4 != pytest.approx(ppl0)


@pytest.fixture
def loaded(tmp_path):
    m = _model(mem_len=4).float()
    itos = list(SPECIALS) + [f"w{i}" for i in range(36)]
    save_txl(tmp_path / "txl", m, itos, {"label": "tiny XL"})
    return load_txl(tmp_path / "txl")


def test_checkpoint_round_trip(loaded) -> None:
    ids = _ids(5)
    ref = _model(mem_len=4).float()
    torch.testing.assert_close(loaded.model.run(ids).logits, ref.run(ids).logits)
    assert loaded.label == "tiny XL" and loaded.itos[4] == "w0"


def test_read_passage_trace(loaded) -> None:
    text = " ".join(f"w{i % 36}" for i in range(10))
    trace = read_passage(loaded, text, seg_len=4, mem_len=3)
    assert [len(s.tokens) for s in trace.segments] == [4, 4, 3]  # <s> + 10 words
    assert [len(s.memory_tokens) for s in trace.segments] == [0, 3, 3]
    seg = trace.segments[1]
    assert seg.memory_tokens == trace.tokens[1:4]
    assert seg.attention.shape == (2, 2, 4, 7) and seg.mask.shape == (4, 7)
    assert np.all(seg.attention[..., ~seg.mask] == 0)
    with pytest.raises(InputError):
        read_passage(loaded, "", 4, 3)
    with pytest.raises(InputError):
        read_passage(loaded, text, 0, 3)


def test_explain_score_matches_the_model(loaded) -> None:
    text = " ".join(f"w{i % 36}" for i in range(10))
    check = explain_score(loaded, text, 4, 3, segment=2, layer=1, head=1, query=2)
    assert len(check.keys) == 3 + 3
    assert check.max_difference < 1e-5
    np.testing.assert_allclose(np.exp(check.model_score) / np.exp(check.model_score).sum(), check.weights, atol=1e-6)
    with pytest.raises(InputError):
        explain_score(loaded, text, 4, 3, segment=5, layer=0, head=0, query=0)


@pytest.mark.parametrize(
    "bad",
    [
        lambda m: read_passage(m, "", 4, 3),
        lambda m: read_passage(m, "w1 w2", 0, 3),
        lambda m: read_passage(m, "w1 w2", 4, 999),
        lambda m: dependency(12, 4, 4, 2, 12),
        lambda m: explain_score(m, "w1 w2 w3", 4, 3, segment=0, layer=9, head=0, query=0),
        lambda m: explain_score(m, "w1 w2 w3", 4, 3, segment=5, layer=0, head=0, query=0),
        lambda m: generate_with_memory(m, "w1", max_new=0),
        lambda m: generate_with_memory(m, "w1", temperature=-1),
        lambda m: generate_with_memory(m, "w1", top_k=0),
    ],
)
def test_input_errors_carry_their_translation(loaded, bad) -> None:
    """Each InputError names a table entry whose English is its own text, so the page can say it in 中文."""
    from tests.test_i18n import CJK

    with pytest.raises(InputError) as err:
        bad(loaded)
    en, zh = STRINGS[err.value.key]
    assert en.format(**err.value.params) == str(err.value)
    assert CJK.search(zh.format(**err.value.params))


def test_generation_with_memory(loaded) -> None:
    trace = generate_with_memory(loaded, "w1 w2 w3", max_new=6, mem_len=4, seg_len=4, temperature=0.0, top_k=None)
    assert [s.memory_len for s in trace.steps] == [0, 4, 4, 4, 4, 4]
    assert trace.steps[1].attention.shape == (2, 2, 5)
    # greedy: every token is the argmax of the model's own distribution
    assert all(s.token == s.top_tokens[0] and s.prob == 1.0 for s in trace.steps)
    # with a memory that holds everything, cached generation equals one causal pass over the whole text
    long = generate_with_memory(loaded, "w1 w2 w3", max_new=6, mem_len=64, seg_len=4, temperature=0.0, top_k=None)
    assert [s.memory_len for s in long.steps] == [0, 4, 5, 6, 7, 8]
    ids = torch.tensor([[loaded.stoi[t] for t in long.tokens]])
    full = loaded.model.run(ids, mem_len=0).logits[0]
    assert [loaded.itos[int(i)] for i in full[3:-1].argmax(-1)] == [s.token for s in long.steps]
    sampled = generate_with_memory(loaded, "w1", max_new=5, mem_len=4, seg_len=4, temperature=1.0, top_k=2, seed=3)
    assert all(s.token in s.top_tokens[:2] for s in sampled.steps)


# ---- the page (AppTest on the shipped xl-lm) ---------------------------------------------

PAGE = str(ROOT / "pages" / "10_Transformer_XL.py")


def _ok(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def _topic(at: AppTest, topic: str) -> AppTest:
    at.session_state["topic"] = topic  # only the open tab's section runs
    at.run()
    _ok(at)
    return at


@pytest.mark.slow
def test_page_segments_tabs_and_bad_input() -> None:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.run()
    _ok(at)
    assert at.slider(key="txl_step").max == math.ceil((len(tokenize(EXAMPLES[0])) + 1) / 8)
    at.button(key="txl_next").click().run()
    _ok(at)
    assert at.slider(key="txl_step").value == 2
    assert any("Segment 2 of" in c.value and "the 8 tokens before it" in c.value for c in at.caption)
    at.slider(key="txl_mem").set_value(0).run()
    _ok(at)
    assert any("the 0 tokens before it" in c.value for c in at.caption)
    assert any("can be influenced by" in c.value for c in at.caption)  # the dependency tab opens first
    at.selectbox(key="txl_head").set_value(1).run()
    _topic(at, "Relative attention: 4 terms")
    checks = [re.search(r"= (\S+)\. The terms", c.value) for c in at.caption]
    found = [float(m.group(1)) for m in checks if m]
    assert found and found[0] < 1e-4  # (a)+(b)+(c)+(d) equals the score the model used
    _topic(at, "Does memory help?")
    assert any("no memory" in m.value for m in at.markdown)
    at.button(key="txl_speed_run").click().run()
    _ok(at)
    assert any("tokens of context, mean of 20 tokens" in m.value for m in at.markdown)
    _topic(at, "Generation with memory")
    assert at.slider(key="txl_gen_step").max == 30
    for bad, message in (("", "Type at least"), ("😀 " * 5000, "not in the model's vocabulary")):
        at.text_input(key="txl_text").set_value(bad).run()
        _ok(at)
        assert any(message in w.value for w in at.warning), [w.value for w in at.warning]


def _english_figure_words(at: AppTest) -> list[str]:
    """Figure words (titles, axes, colour bars, legends, annotations) and hover templates drawn in
    English only."""
    from tests.test_i18n import CJK, _figure_words, english_words

    specs = [c.figure for c in charts(at)]
    words = [w for spec in specs for w in _figure_words(spec)]
    words += [tr["hovertemplate"] for spec in specs for tr in spec["data"] if "hovertemplate" in tr]
    plain = [re.sub(r"<[^>]+>|%\{[^}]*\}", "", w) for w in words]
    return [w for w, p in zip(words, plain) if english_words(p) and not CJK.search(w)]


@pytest.mark.slow
def test_page_in_chinese_and_no_english_literals() -> None:
    from tests.test_i18n import CJK, english_literals, english_words

    for name in ("pages/10_Transformer_XL.py", "ui/transformer_xl.py"):
        assert not english_literals(ROOT / name), name
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    at.run()
    _ok(at)
    assert at.title[0].value == "Transformer-XL"
    texts = [
        e.value
        for kind in ("markdown", "caption", "warning")
        for e in getattr(at, kind)
        if isinstance(e.value, str) and not e.value.startswith("<style>")
    ]
    texts += [w.label for kind in ("slider", "selectbox", "text_input", "button") for w in getattr(at, kind)]
    assert [x for x in texts if english_words(x) and not CJK.search(x)] == []
    assert len(charts(at)) == 2 and _english_figure_words(at) == []  # segment and dependency figures
    for tab in ("txl.tab.terms", "txl.tab.eval", "txl.tab.generate"):  # every tab runs in 中文 too, from a link
        at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
        at.query_params.update(lang="zh", topic=STRINGS[tab][1])
        at.run()
        _ok(at)
        assert not [i.value for i in at.info if "不可用" in i.value], tab
        assert len(charts(at)) > 1 and _english_figure_words(at) == [], tab
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    at.session_state["txl_text"] = ""
    at.run()  # the model's message, in 中文
    _ok(at)
    assert [w.value for w in at.warning] == [STRINGS["txl.err.word"][1].format(n=1)]


@pytest.mark.slow
def test_page_refuses_hostile_links_with_notices() -> None:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    for key, value in {
        "txl_seg": "abc",
        "txl_mem": "999",
        "txl_step": "99",
        "txl_head": "x",
        "topic": "nope",
        "txl_text": "<b>bold</b> " * 3,
    }.items():
        at.query_params[key] = value
    at.run()
    _ok(at)
    notices = " ".join(i.value for i in at.info)
    assert all(f"“{v}”" in notices for v in ("abc", "999", "99", "x", "nope")), notices
    assert (at.slider(key="txl_seg").value, at.slider(key="txl_mem").value) == (8, 8)
    assert at.slider(key="txl_step").value == at.slider(key="txl_step").max


@pytest.mark.slow
def test_generate_command_carries_the_memory() -> None:
    """`python -m models.generate --model xl-lm --mem-len M "prompt"` (issue 13's command)."""
    proc = run(
        "models.generate",
        "--model",
        "xl-lm",
        "--mem-len",
        "16",
        "--max-new",
        "5",
        "--temperature",
        "0",
        "--json",
        "In the beginning God created",
    )
    assert proc.returncode == 0, proc.stderr
    trace = json.loads(proc.stdout)
    assert trace["mem_len"] == 16 and len(trace["steps"]) == 5
    assert all(step["memory_len"] <= 16 for step in trace["steps"])
    assert_one_line_error(run("models.generate", "--model", "xl-lm", "--mem-len", "9999", "x"), "memory length")


@pytest.mark.slow
def test_evaluate_command_reports_memory_and_the_vanilla_lm(tmp_path) -> None:
    """`python -m models.evaluate --json` evaluates a Transformer-XL checkpoint against memory length
    and the decoder-only LM of the same vocabulary against its window (issue 13 §4)."""
    from models.checkpoints import save_transformer
    from models.nn.transformer import DecoderOnlyLM, TransformerConfig

    torch.manual_seed(0)
    itos = list(SPECIALS) + ["the", "and", "of", "to", "he", "a"]
    xl = TransformerXL(
        TXLConfig(vocab_size=len(itos), d_model=8, n_heads=2, n_layers=1, d_ff=16, dropout=0.0, seg_len=128, mem_len=16)
    )
    save_txl(tmp_path / "tiny-xl", xl, itos, {"label": "tiny XL"})
    lm = DecoderOnlyLM(
        TransformerConfig(
            vocab_size=len(itos), d_model=8, n_heads=2, num_decoder_layers=1, d_ff=16, dropout=0.0, max_len=32
        )
    )
    save_transformer(tmp_path / "tiny-lm", lm, "lm", itos, itos, {"label": "tiny LM"})
    proc = run("models.evaluate", "--json", env={"ATTN_LAB_CHECKPOINTS": str(tmp_path)})
    results = json.loads(proc.stdout)["families"]["transformer-xl"]
    assert results["errors"] == [], results
    (row,) = results["models"]
    by_memory = row["perplexity_by_memory"]
    assert list(by_memory) == ["0", "16", "32", "64", "128", "256"] and row["seg_len"] == 128
    assert all(1 < p < 10 * len(itos) for p in by_memory.values()) and len(set(by_memory.values())) > 1
    assert row["memory_gain"] == pytest.approx(1 - by_memory["16"] / by_memory["0"], abs=1e-4)
    assert row["vanilla"]["name"] == "tiny-lm" and list(row["vanilla"]["perplexity_by_window"]) == ["8", "16", "32"]
