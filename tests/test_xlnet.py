"""XLNet (Yang et al. 2019): the two masks, the query stream's blindness to its own token and the
later ones, the two-sided relative scores and shift, identity order = causal attention, partial
prediction, the checkpoint family, the traces and their input errors (tiny random models)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from models.checkpoints import LoadedXLNet, load_xlnet, save_xlnet
from models.inference.common import InputError
from models.inference.xlnet import (
    check_order,
    dependency_cases,
    identity_order,
    independent_vs_sequential,
    parse_order,
    predict,
    random_order,
)
from models.nn.positional import relative_scores
from models.nn.transformer_xl import TransformerXL, TXLConfig
from models.nn.xlnet import (
    XLNet,
    XLNetConfig,
    content_mask,
    n_targets,
    query_mask,
    ranks,
    target_mask,
    two_sided_rel_shift,
)
from models.text.vocab import SPECIALS
from models.training.xlnet import permutation_nll, random_orders
from ui.strings import STRINGS

WORDS = "new york is a city the of and in to it was he she".split()


def _model(n_layers: int = 2, seed: int = 0) -> XLNet:
    torch.manual_seed(seed)
    m = (
        XLNet(
            XLNetConfig(
                vocab_size=len(SPECIALS) + len(WORDS),
                d_model=16,
                n_heads=2,
                n_layers=n_layers,
                d_ff=32,
                dropout=0.0,
                max_len=8,
                k_split=3,
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


def _loaded(seed: int = 0) -> LoadedXLNet:
    return LoadedXLNet("tiny", _model(seed=seed).float(), list(SPECIALS) + WORDS, {})


def _perms(n: int, count: int = 4, seed: int = 0) -> torch.Tensor:
    return random_orders(count, n, torch.Generator().manual_seed(seed))


def test_masks_follow_their_definitions() -> None:
    for order in _perms(7, 6):
        rank = {int(p): t for t, p in enumerate(order)}
        c, q = content_mask(order), query_mask(order)
        assert torch.equal(ranks(order), torch.tensor([rank[i] for i in range(7)]))
        for i in range(7):
            for j in range(7):
                assert bool(c[i, j]) == (rank[j] <= rank[i]) and bool(q[i, j]) == (rank[j] < rank[i])
        assert c.diagonal().all() and not q.diagonal().any()  # content sees itself, the query stream never
        assert not q[order[0]].any() and q[order[-1]].sum() == 6  # the first sees nothing, the last all others
    batch = _perms(5, 3, seed=2)
    assert torch.equal(content_mask(batch), torch.stack([content_mask(o) for o in batch]))


def test_partial_prediction_takes_the_last_of_the_order() -> None:
    assert [n_targets(32, k) for k in (1, 6, 7, 40)] == [32, 6, 5, 1]
    order = torch.tensor([4, 0, 3, 1, 2])
    assert torch.equal(target_mask(order, 3), torch.tensor([False, True, True, False, False]))  # z_4, z_5 = 1, 2
    with pytest.raises(ValueError):
        n_targets(5, 0)


def test_query_stream_never_sees_its_own_token_or_later_ones() -> None:
    """∂g_{z_t} / ∂e(x_{z_s}) through the real model: exactly 0 for s ≥ t, not 0 for s < t."""
    m = _model()
    ids = torch.randint(4, m.config.vocab_size, (1, 6), generator=torch.Generator().manual_seed(3))
    # a random direction: the plain Σ of a LayerNorm's output is a constant
    probe = torch.randn(16, generator=torch.Generator().manual_seed(8), dtype=torch.float64)
    for order in _perms(6, 3, seed=5):
        for t in range(1, 6):
            x = m.embed_tokens(ids).detach().requires_grad_(True)
            _, g, _, _ = m.streams(x, order)
            (g[0, order[t]] @ probe).backward()
            assert x.grad is not None
            norms = x.grad[0].abs().sum(-1)
            for s in range(6):
                if s >= t:
                    assert norms[order[s]] == 0, (order.tolist(), t, s)
                else:
                    assert norms[order[s]] > 0, (order.tolist(), t, s)


def test_two_sided_shift_equals_explicit_indexing() -> None:
    n = 5
    x = torch.randn(2, 3, n, 2 * n - 1)  # column c: distance (n − 1) − c
    out = two_sided_rel_shift(x)
    assert out.shape == (2, 3, n, n)
    for i in range(n):
        for j in range(n):
            assert torch.equal(out[..., i, j], x[..., i, (n - 1) - (i - j)])
    with pytest.raises(ValueError):
        two_sided_rel_shift(torch.randn(n, 2 * n))


def test_scores_equal_the_four_terms_with_explicit_distances() -> None:
    """Both streams' scores = (a) + (b) + (c) + (d) with R_{i−j} for keys on both sides (÷ √d_k)."""
    m = _model()
    attn = m.layers[0].attn
    gen = torch.Generator().manual_seed(4)
    n = 6
    h = torch.randn(1, n, 16, generator=gen, dtype=torch.float64)
    g = torch.randn(1, n, 16, generator=gen, dtype=torch.float64)
    pos = torch.arange(n, dtype=torch.float64)
    for queries in (h, g):  # the content stream (h over h) and the query stream (g over h)
        fast = attn.scores(queries, h)
        for head in range(2):
            rows = slice(head * attn.d_k, (head + 1) * attn.d_k)
            terms = relative_scores(
                queries[0] @ attn.w_q.weight[rows].T,
                h[0] @ attn.w_k.weight[rows].T,
                attn.w_r.weight[rows],
                attn.u[head],
                attn.v[head],
                pos,
                pos,
            )
            torch.testing.assert_close(fast[0, head], terms["total"] / math.sqrt(attn.d_k))
            assert terms["b"].std() > 0 and terms["d"].std() > 0
            # keys after the query (negative i − j) take part: (d) differs between j = i ± 1
            assert not torch.allclose(terms["d"][2, 1], terms["d"][2, 3])


def test_identity_order_content_stream_is_causal_attention() -> None:
    """Under z = (1, …, n) the content stream is a causal LM: Transformer-XL with memory 0 and the
    same weights (its look-ahead mask, relative positions) gives the same states."""
    m = _model()
    n = 7
    assert torch.equal(content_mask(torch.arange(n)), torch.ones(n, n, dtype=torch.bool).tril())
    txl = (
        TransformerXL(
            TXLConfig(vocab_size=m.config.vocab_size, d_model=16, n_heads=2, n_layers=2, d_ff=32, dropout=0.0)
        )
        .double()
        .eval()
    )
    txl.load_state_dict({k: v for k, v in m.state_dict().items() if k != "query_init"})
    ids = torch.randint(4, m.config.vocab_size, (2, n), generator=torch.Generator().manual_seed(1))
    out = m.run(ids, torch.arange(n))
    torch.testing.assert_close(m.generator(out.content), txl.run(ids, mem_len=0).logits)
    shuffled = m.run(ids, _perms(n, 2, seed=9))
    assert not torch.allclose(m.generator(shuffled.content), txl.run(ids, mem_len=0).logits)


def test_a_batch_of_orders_equals_each_alone() -> None:
    m = _model()
    ids = torch.randint(4, m.config.vocab_size, (3, 6), generator=torch.Generator().manual_seed(2))
    orders = _perms(6, 3, seed=7)
    out = m.run(ids, orders, keep=True)
    assert out.content_attention is not None and out.query_attention is not None
    for b in range(3):
        alone = m.run(ids[b : b + 1], orders[b], keep=True)
        torch.testing.assert_close(out.logits[b], alone.logits[0])
        torch.testing.assert_close(out.query_attention[b], alone.query_attention[0])
    where = target_mask(orders, 3)
    torch.testing.assert_close(m(ids, orders, where), out.logits[where])


def test_parse_order_and_its_errors() -> None:
    assert parse_order("3 1 4 2", 4) == [2, 0, 3, 1]
    assert parse_order(" 3,1, 4 ,2 ", 4) == [2, 0, 3, 1] == check_order([2, 0, 3, 1], 4)
    assert sorted(random_order(9, 3)) == identity_order(9) and random_order(9, 3) == random_order(9, 3)
    assert random_order(9, 3) != random_order(9, 4)
    for text, key in (
        ("", "xlnet.err.order_empty"),
        (" , ", "xlnet.err.order_empty"),
        ("1 two 3", "xlnet.err.order_nan"),
        ("1.5 2 3", "xlnet.err.order_nan"),
        ("0 1 2", "xlnet.err.order_range"),
        ("1 2 4", "xlnet.err.order_range"),
        ("99999999999999999999 1 2", "xlnet.err.order_range"),
        ("1 2 2", "xlnet.err.order_repeat"),
        ("1 3", "xlnet.err.order_missing"),
        ("1 2 3 1", "xlnet.err.order_repeat"),
    ):
        with pytest.raises(InputError) as err:
            parse_order(text, 3)
        assert err.value.key == key, text
        assert STRINGS[key][0].format(**err.value.params) == str(err.value)  # the page's English is the message


@pytest.mark.parametrize(
    "text,key",
    [
        ("", "xlnet.err.empty"),
        (" \n\t ", "xlnet.err.empty"),
        ("york", "xlnet.err.one"),
        ("york " * 5000, "xlnet.err.long"),
    ],
)
def test_bad_sentences_get_a_clear_message(text: str, key: str) -> None:
    loaded = _loaded()
    with pytest.raises(InputError) as err:
        predict(loaded, text, [0, 1], 2)
    assert err.value.key == key
    assert STRINGS[key][0].format(**err.value.params) == str(err.value)


def test_other_bad_settings() -> None:
    loaded = _loaded()
    for call, key in (
        (lambda: predict(loaded, "new york is", [0, 1, 2], 0), "xlnet.err.k"),
        (lambda: predict(loaded, "new york is", [0, 1, 2], 2, top_k=0), "xlnet.err.top_k"),
        (lambda: predict(loaded, "new york is", [0, 1, 1], 2), "xlnet.err.order_repeat"),
        (lambda: independent_vs_sequential(loaded, "new york is", []), "xlnet.err.hidden_none"),
        (lambda: independent_vs_sequential(loaded, "new york is", [0, 1, 2]), "xlnet.err.hidden_all"),
        (lambda: independent_vs_sequential(loaded, "new york is", [3]), "xlnet.err.position"),
    ):
        with pytest.raises(InputError) as err:
            call()
        assert err.value.key == key
        assert STRINGS[key][0].format(**err.value.params) == str(err.value)


def test_predict_trace() -> None:
    loaded = _loaded()
    order = parse_order("3 1 5 2 4", 5)
    trace = predict(loaded, "New York is a zebra", order, k_split=2, top_k=4)
    n, p = 5, trace.predictions
    assert trace.tokens == ["new", "york", "is", "a", "zebra"] and trace.unknown == [False] * 4 + [True]
    assert trace.order == order and trace.ranks == [1, 3, 0, 4, 2]
    assert p.positions == order[-3:] == [4, 1, 3]  # the last ⌈5/2⌉ of the order
    assert len(p.top_tokens) == 3 and all(len(t) == 4 for t in p.top_tokens) and p.top_probs.shape == (3, 4)
    for attn, mask in ((trace.content_attention, trace.content_mask), (trace.query_attention, trace.query_mask)):
        assert attn.shape == (2, 2, n, n)
        assert (attn[..., ~mask] == 0).all()
        sums = attn.sum(-1)
        np.testing.assert_allclose(sums[..., mask.any(-1)], 1.0, atol=1e-5)
        assert (sums[..., ~mask.any(-1)] == 0).all()  # the query row of z_1: nothing to attend to
    assert np.array_equal(trace.query_mask, query_mask(torch.tensor(order)).numpy())
    assert trace.log_likelihood == pytest.approx(float(np.log(p.true_probs).sum()), rel=1e-5)
    ids = torch.tensor([[loaded.stoi.get(t, loaded.stoi["<unk>"]) for t in trace.tokens]])
    with torch.no_grad():
        probs = torch.softmax(loaded.model(ids, torch.tensor(order))[0].float(), -1)
    np.testing.assert_allclose(p.true_probs, probs[p.positions, ids[0, p.positions]].numpy(), rtol=1e-5)
    np.testing.assert_allclose(p.top_probs[:, 0], probs[p.positions].max(-1).values.numpy(), rtol=1e-5)
    assert [t[0] for t in p.top_tokens] == [loaded.itos[i] for i in probs[p.positions].argmax(-1).tolist()]
    data = json.loads(json.dumps(trace.to_dict()))
    assert data["ranks"] == trace.ranks and data["log_likelihood"] == pytest.approx(trace.log_likelihood)


def test_independent_against_sequential() -> None:
    """Same model, only the factorisation differs: the first hidden word is predicted from the
    visible words either way; the second sees the first only sequentially."""
    loaded = _loaded()
    text, hidden = "new york is a city", [1, 0]
    c = independent_vs_sequential(loaded, text, hidden, top_k=3)
    assert c.hidden == [0, 1] and c.order == [2, 3, 4, 0, 1]
    np.testing.assert_allclose(c.independent.true_probs[0], c.sequential.true_probs[0], rtol=1e-5)
    assert c.independent.true_probs[1] != pytest.approx(c.sequential.true_probs[1], rel=1e-4)
    alone = predict(loaded, text, [2, 3, 4, 1, 0], k_split=3)  # "york" right after the visible words
    assert alone.predictions.positions == [1, 0]
    assert c.independent.true_probs[1] == pytest.approx(alone.predictions.true_probs[0], rel=1e-5)
    seq = predict(loaded, text, c.order, k_split=3)
    assert c.sequential.log_likelihood == pytest.approx(seq.log_likelihood, rel=1e-5)
    assert c.changed == [a[0] != b[0] for a, b in zip(c.independent.top_tokens, c.sequential.top_tokens)]


@pytest.mark.slow
def test_dependency_cases_are_the_pairs_where_sequential_gets_the_later_word_right() -> None:
    loaded = _loaded()
    gen = np.random.default_rng(0)
    sentences = [[str(w) for w in gen.choice(WORDS, 6)] for _ in range(20)]
    expected = []
    for words in sentences:  # the first such pair of adjacent words in each sentence, searched one by one
        for p in range(5):
            c = independent_vs_sequential(loaded, " ".join(words), [p, p + 1])
            if c.sequential.top_tokens[1][0] == words[p + 1] != c.independent.top_tokens[1][0]:
                expected.append((words, [p, p + 1]))
                break
    found = dependency_cases(loaded, sentences, limit=100)
    assert len(expected) >= 2 and [(c.tokens, c.hidden) for c in found] == expected
    assert [(c.tokens, c.hidden) for c in dependency_cases(loaded, sentences, limit=2)] == expected[:2]


def test_permutation_nll_counts_the_targets() -> None:
    m = _model()
    stream = torch.randint(4, m.config.vocab_size, (40,), generator=torch.Generator().manual_seed(0)).tolist()
    nll, count = permutation_nll(m, stream, 8, 3, identity=True, skip_id=None, batch=2)
    assert count == 5 * 3
    x = torch.tensor(stream).view(5, 8)
    with torch.no_grad():
        log_p = torch.log_softmax(m(x, torch.arange(8)).float(), -1)[:, 5:]
    assert nll == pytest.approx(-float(log_p.gather(-1, x[:, 5:, None]).mean()), rel=1e-5)
    assert permutation_nll(m, stream, 8, 3, seed=1) == permutation_nll(m, stream, 8, 3, seed=1)
    assert permutation_nll(m, stream, 8, 3, seed=1) != permutation_nll(m, stream, 8, 3, seed=2)


def test_checkpoint_round_trip(tmp_path) -> None:
    m = _model().float()
    itos = list(SPECIALS) + WORDS
    save_xlnet(tmp_path / "x", m, itos, {"label": "tiny"})
    loaded = load_xlnet(tmp_path / "x")
    assert loaded.itos == itos and loaded.label == "tiny" and loaded.config == m.config
    ids, order = torch.tensor([[4, 5, 6, 7, 8]]), torch.tensor([3, 0, 4, 1, 2])
    assert torch.equal(loaded.model(ids, order), m(ids, order))


def test_the_preset_trains_saves_and_evaluates(tmp_path) -> None:
    """`python -m models.train --preset xlnet-small`'s recipe on a small text file: a checkpoint that
    loads, with the held-out figures of both orders in its record."""
    from models.training.presets import PRESETS
    from models.training.run import run_preset

    gen = np.random.default_rng(0)
    text = "\n".join(" ".join(gen.choice(WORDS, 20)) for _ in range(40))
    (tmp_path / "text.txt").write_text(text, encoding="utf-8")
    folder, record, line = run_preset(PRESETS["xlnet-small"], out=tmp_path / "ck", data=tmp_path / "text.txt", steps=3)
    loaded = load_xlnet(folder)
    assert loaded.config.k_split == 6 and loaded.config.max_len == 32 and record["steps"] == 3
    held = record["heldout"]
    # held out: the first 2 lines, 2 × 22 tokens = one window of 32; left to right its last ⌈32/6⌉ = 6
    # positions (26 … 31: words of the second line, no <s>) are predicted
    assert held["tokens"] == 6
    for name in ("random_order", "identity_order"):
        assert held[name]["perplexity"] == pytest.approx(math.exp(held[name]["nll"]), rel=1e-3)
    assert "left to right" in line
