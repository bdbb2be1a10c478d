"""The small BERT: WordPiece, input representation, MLM/NSP head shapes, traces, checkpoints, data."""

import json

import numpy as np
import pytest
import torch

from models.checkpoints import load_bert, save_bert
from models.inference.bert import best_span, run_bert
from models.nn.bert import BertConfig, SmallBert
from corpora.bert_data import Document, Pair, sample_pairs, split_documents, split_sentences
from models.training.bert import capital_tags, collate, evaluate_bert, encode_documents
from models.checkpoints import CheckpointError
from models.text.wordpiece import CLS_ID, MASK_ID, PAD_ID, SEP_ID, SPECIAL_TOKENS, WordPiece, train_wordpiece

TEXT = [
    "In the beginning God created the heavens and the earth.",
    "Now the earth was formless and empty.",
    'God said, "Let there be light," and there was light.',
    "God saw the light, and saw that it was good.",
    "God called the light Day, and the darkness he called Night.",
    "There was evening and there was morning, the first day.",
    "God's Spirit was hovering over the waters.",
] * 5


@pytest.fixture(scope="module")
def tokenizer() -> WordPiece:
    return train_wordpiece(TEXT, vocab_size=120, min_frequency=1)


@pytest.fixture(scope="module")
def model(tokenizer) -> SmallBert:
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=tokenizer.vocab_size, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=32)
    return SmallBert(cfg).eval()


def test_wordpiece_specials_and_pieces(tokenizer):
    assert [tokenizer.token_to_id(t) for t in SPECIAL_TOKENS] == [PAD_ID, 1, CLS_ID, SEP_ID, MASK_ID]
    enc = tokenizer.encode_pair("God created lightness.", "Darkness`s evening 😀")
    assert enc.tokens[0] == "[CLS]" and enc.tokens[-1] == "[SEP]" and enc.tokens.count("[SEP]") == 2
    assert any(t.startswith("##") for t in enc.tokens), enc.tokens
    first_sep = enc.tokens.index("[SEP]")
    assert enc.segment_ids == [0] * (first_sep + 1) + [1] * (len(enc) - first_sep - 1)
    assert "[UNK]" in enc.tokens and enc.n_unknown >= 1
    assert "'" in enc.tokens, "the backtick apostrophe is normalised"
    one = tokenizer.encode_pair("light")
    assert one.tokens == ["[CLS]", "light", "[SEP]"] and one.segment_ids == [0, 0, 0]


def test_truncation_longest_first(tokenizer):
    enc = tokenizer.encode_pair("light " * 50, "day day", max_len=16)
    assert len(enc) == 16 and enc.dropped == 50 - 11
    assert enc.tokens[-3:] == ["day", "day", "[SEP]"], "the longer segment is cut first"
    empty = tokenizer.encode_pair("", None)
    assert empty.tokens == ["[CLS]", "[SEP]"]


def test_heads_shapes_and_tied_output(model):
    b, n = 3, 11
    ids = torch.randint(5, model.config.vocab_size, (b, n))
    ids[:, 0], ids[:, -1] = CLS_ID, SEP_ID
    segs = torch.zeros_like(ids)
    out = model(ids, segs)
    c = model.config
    assert out.hidden.shape == (b, n, c.d_model)
    assert out.attention.shape == (b, c.n_layers, c.n_heads, n, n)
    assert out.nsp_logits.shape == (b, 2)
    assert model.mlm_logits(out.hidden).shape == (b, n, c.vocab_size)
    assert model.mlm.decoder.weight is model.embeddings.tokens.weight, "MLM output tied to token embeddings"
    torch.testing.assert_close(out.attention.sum(-1), torch.ones(b, c.n_layers, c.n_heads, n))


def test_padding_is_never_attended(model):
    ids = torch.tensor([[CLS_ID, 7, 8, SEP_ID, PAD_ID, PAD_ID]])
    out = model(ids, torch.zeros_like(ids))
    assert out.attention[..., 4:].abs().max() == 0
    short = model(ids[:, :4], torch.zeros_like(ids[:, :4]))
    torch.testing.assert_close(out.hidden[:, :4], short.hidden, atol=1e-5, rtol=1e-5)


def test_trace_embedding_sum_and_predictions(model, tokenizer):
    enc = tokenizer.encode_pair("God saw the light.", "It was good.")
    tr = run_bert(model, enc.ids, enc.segment_ids, top_k=5, targets=enc.ids)
    n = len(enc)
    np.testing.assert_allclose(tr.token_emb + tr.segment_emb + tr.position_emb, tr.embedding_sum, atol=1e-6)
    np.testing.assert_allclose(tr.token_emb[1], model.embeddings.tokens.weight[enc.ids[1]].detach().numpy())
    assert tr.attention.shape == (2, 4, n, n) and tr.attention.dtype == np.float32
    assert tr.top_ids.shape == (n, 5) and (np.diff(tr.top_probs, axis=1) <= 1e-7).all()
    assert tr.nsp_probs.shape == (2,) and tr.nsp_probs.sum() == pytest.approx(1.0, abs=1e-5)
    assert tr.tag_probs.shape == (n, 2) and tr.class_probs.shape == (2,)
    assert tr.span_start.shape == (n,) and (tr.target_rank >= 0).all()
    assert not isinstance(tr.attention, torch.Tensor)


def test_best_span():
    start = np.array([0.0, 5.0, 1.0, 0.0])
    end = np.array([9.0, 0.0, 1.0, 4.0])
    allowed = np.array([False, True, True, True])
    assert best_span(start, end, allowed)[:2] == (1, 3)
    assert best_span(start, end, np.zeros(4, bool))[0] == -1


def test_checkpoint_roundtrip_and_errors(model, tokenizer, tmp_path):
    folder = save_bert(tmp_path / "tiny", model, tokenizer, {"label": "tiny"})
    loaded = load_bert(folder)
    enc = tokenizer.encode_pair("the light", "the day")
    a = run_bert(model, enc.ids, enc.segment_ids)
    b = run_bert(loaded.model, enc.ids, enc.segment_ids)
    np.testing.assert_allclose(a.attention, b.attention, atol=1e-6)
    np.testing.assert_allclose(a.top_probs, b.top_probs, atol=1e-6)
    assert loaded.model.mlm.decoder.weight is loaded.model.embeddings.tokens.weight
    (folder / "model.safetensors").write_bytes(b"not a model")
    with pytest.raises(CheckpointError, match="model.safetensors"):
        load_bert(folder)
    (folder / "config.json").write_text(json.dumps({"family": "seq2seq"}))
    with pytest.raises(CheckpointError, match="not a BERT"):
        load_bert(folder)
    with pytest.raises(CheckpointError, match="missing"):
        load_bert(tmp_path / "nothing-here")


def test_sentences_pairs_and_split():
    assert split_sentences('He said, "Go." Then he went. Did he? Yes!') == [
        'He said, "Go."',
        "Then he went.",
        "Did he?",
        "Yes!",
    ]
    docs = [[f"d{d}s{i}" for i in range(5)] for d in range(6)]
    pairs = sample_pairs(docs, np.random.default_rng(0))
    assert len(pairs) == 6 * 4
    for p in pairs:
        assert isinstance(p, Pair)
        if p.is_next:
            assert p.doc_a == p.doc_b and docs[p.doc_a].index(p.b) == docs[p.doc_a].index(p.a) + 1 and p.label == 0
        else:
            assert p.doc_a != p.doc_b and p.label == 1
    share = np.mean(
        [p.is_next for p in sample_pairs([[str(i) for i in range(1000)], ["x"] * 10], np.random.default_rng(1))]
    )
    assert abs(share - 0.5) < 0.05
    train, held = split_documents([Document(1, c, ("a.",)) for c in range(40)])
    assert len(held) == 2 and not set(d.chapter for d in held) & set(d.chapter for d in train)


def test_collate_and_evaluate(model, tokenizer):
    ids, segs = collate([([7, 8, 9], [10]), ([7], None)], max_len=6)
    assert ids.tolist() == [[CLS_ID, 7, 8, SEP_ID, 10, SEP_ID], [CLS_ID, 7, SEP_ID, PAD_ID, PAD_ID, PAD_ID]]
    assert segs.tolist() == [[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 0]]
    docs = [Document(1, i, tuple(TEXT[i : i + 4])) for i in range(4)]
    result = evaluate_bert(model, encode_documents(docs, tokenizer), repeats=1)
    assert 0 <= result["mlm_top1"] <= result["mlm_top5"] <= 1 and 0 <= result["nsp_accuracy"] <= 1
    assert result["mlm_predictions"] > 0


def test_capital_tags(tokenizer):
    ids, tags = capital_tags(tokenizer, "Then God saw Day and light.")
    pieces = tokenizer.convert_ids(ids)
    tagged = [p for p, t in zip(pieces, tags) if t]
    assert "god" in tagged and "then" not in tagged and "light" not in tagged


def test_figures_escape_user_text_and_stay_small():
    from viz_core.bert import (
        PredictionRow,
        attention_share_figure,
        embedding_sum_figure,
        lines_figure,
        masking_stats_figure,
        predictions_figure,
        special_attention_figure,
    )
    from corpora.masking import masking_statistics

    tokens = ["[CLS]", "<script>", "<b>x</b>", "[MASK]", "[SEP]"]
    rng = np.random.default_rng(0)
    att = rng.random((2, 3, 5, 5)).astype(np.float32)
    att /= att.sum(-1, keepdims=True)
    figs = [
        special_attention_figure(att, tokens, 3, "from"),
        special_attention_figure(att, tokens, 0, "to"),
        attention_share_figure(
            att, {"[CLS]": np.array([1, 0, 0, 0, 0], bool), "other tokens": np.array([0, 1, 1, 1, 1], bool)}
        ),
        lines_figure(att[0, 0], tokens, query=1, min_weight=0.0),
        predictions_figure([PredictionRow(1, "<script>", "[MASK]", "[MASK]", ["<i>", "a"], [0.6, 0.1], 0.0, 9)]),
        embedding_sum_figure(*(rng.standard_normal(8) for _ in range(4)), rng.standard_normal(8), "<b>", 0, 1),
    ]
    for fig in figs:
        text = fig.to_json()
        assert "<script>" not in text and "<b>" not in text and "<i>" not in text
    assert "&lt;script&gt;" in figs[0].to_json()
    z = figs[0].data[0].z
    np.testing.assert_allclose(np.asarray(z).reshape(2, 3, 5), att[:, :, 3, :])
    stats = masking_statistics([True, False, False, True], n_draws=5000)
    fig = masking_stats_figure(stats.chosen_rate, stats.mask_share, stats.random_share, stats.kept_share)
    assert len(fig.to_json()) < 200_000, "thinned to a few hundred points per curve"
    with pytest.raises(ValueError):
        special_attention_figure(att, tokens, 0, "sideways")


@pytest.mark.slow
def test_train_command_bad_data_is_one_line(tmp_path):
    import subprocess
    import sys

    from tests.conftest import ROOT

    short = tmp_path / "short.txt"
    short.write_text("Only one sentence here.\n")
    for data, word in ((tmp_path / "missing.txt", "cannot read"), (short, "fewer than 10 sentences")):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "models.train",
                "--preset",
                "bert-small",
                "--data",
                str(data),
                "--out",
                str(tmp_path / "out"),
                "--threads",
                "1",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode != 0 and "Traceback" not in proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:") and word in lines[0], proc.stderr
    assert not (tmp_path / "out").exists()


def test_masked_analysis_reuses_the_plain_run(model, tokenizer, tmp_path):
    """The plain input's run, computed once apart (the page caches it across clicks), gives the same
    analysis as running both inputs; the masked run still follows the clicked pieces."""
    from models.inference.bert import analyse_masked, analyse_plain

    loaded = load_bert(save_bert(tmp_path / "tiny", model, tokenizer, {"label": "tiny"}))
    plain = analyse_plain(loaded, "the light was good", "god saw the day")
    for clicked in [(1,), (1, 3)]:
        both = analyse_masked(loaded, "the light was good", "god saw the day", 0, False, clicked)
        reused = analyse_masked(loaded, "the light was good", "god saw the day", 0, False, clicked, plain=plain)
        np.testing.assert_array_equal(both.input_ids, reused.input_ids)
        np.testing.assert_allclose(both.plain.top_probs, reused.plain.top_probs, atol=1e-6)
        np.testing.assert_allclose(both.masked.attention, reused.masked.attention, atol=1e-6)
        assert all(reused.input_tokens[i] == "[MASK]" for i in clicked)
    assert not np.allclose(reused.masked.attention, reused.plain.attention)


def test_typed_mask_predicts_as_fill_mask_and_draws_nothing(model, tokenizer, tmp_path):
    """A [MASK] typed in the text (capitals, as fill_mask reads it) is the one chosen position, whatever
    the seed or the draw switch: the masked run's top-k there is fill_mask's, with no original to score;
    a text without [MASK] is still drawn on (15%), and a lower-case [mask] is no mask, as for the CLI."""
    from corpora.masking import MASKED, NOT_CHOSEN, REFERENCE
    from models.inference.bert import analyse_masked, fill_mask, typed_masks
    from models.inference.common import InputError
    from viz_core.bert import TYPED, prediction_rows

    loaded = load_bert(save_bert(tmp_path / "tiny", model, tokenizer, {"label": "tiny"}))
    loaded.config.trained_heads = ["mlm"]  # fill_mask refuses a model whose masked-LM head is untrained
    text = "god saw the [MASK] , and it was good"
    expected = fill_mask(loaded, text, top_k=5)
    for seed in range(5):
        for draw in (True, False):
            result = analyse_masked(loaded, text, "", seed, draw, (), rule=REFERENCE)
            assert result.tokens == expected.tokens
            positions = typed_masks(result)
            assert positions == [m["position"] for m in expected.masks] == [4]
            outcome = [MASKED if i in positions else NOT_CHOSEN for i in range(len(result.tokens))]
            assert result.outcome.tolist() == outcome
            top = expected.masks[0]["predictions"]
            assert result.top_tokens[4] == [p["token"] for p in top]
            np.testing.assert_allclose(result.masked.top_probs[4], [p["prob"] for p in top], rtol=1e-6)
            assert np.isnan(result.masked.target_probs[4]) and result.masked.target_rank[4] == -1
    rows = prediction_rows(
        [4],
        result.tokens,
        result.input_tokens,
        ["[MASK]"] * len(result.tokens),
        result.top_tokens,
        result.masked.top_probs,
        result.masked.target_probs,
        result.masked.target_rank,
    )
    assert rows[0].outcome == TYPED and rows[0].original == "[MASK]"
    plain = analyse_masked(loaded, text.replace("[MASK]", "light"), "", 0, True, (), rule=REFERENCE)
    assert (plain.outcome != NOT_CHOSEN).sum() >= 1 and not typed_masks(plain)  # no [MASK]: the 15% draw
    lower = analyse_masked(loaded, text.replace("[MASK]", "[mask]"), "", 0, False, ())
    assert not typed_masks(lower) and (lower.outcome == NOT_CHOSEN).all()
    with pytest.raises(InputError, match="no"):
        fill_mask(loaded, text.replace("[MASK]", "[mask]"))


#: Predictions of a masked LM that are ordinary words (at most viz_core.style.TICK_LABEL_CHARS characters).
WORDS = [
    ["supermarket", "market", "shop", "store", "mall"],
    ["grandmother", "restaurant", "hospital", "##ing", "."],
    ["playground", "kitchen", "beach", "classroom", "garden"],
    ["photographs", "breakfast", "vegetables", "chocolate", "sandwiches"],
]


@pytest.mark.parametrize("n_rows", [1, 2, 3, 4, 7, 16])
def test_predictions_figure_writes_every_word_in_full_with_room(n_rows):
    """At 1280 × 720 (the figure planned for the page's main column) no predicted word is cut ("sup…"):
    the first column's labels fit the left margin, every other panel's the gap before it, and each panel
    keeps at least 110 px of bars; a piece longer than a tick label may be is cut with "…" (hover: whole)."""
    from viz_core.bert import PREDICTIONS_WIDTH_PX, PredictionRow, predictions_figure
    from viz_core.style import TICK_LABEL_CHARS, TICK_PAD_PX, text_width

    rows = [
        PredictionRow(i, "store", "[MASK]", "[MASK]", WORDS[i % 4], [0.5, 0.15, 0.08, 0.08, 0.02], 0.08, 2)
        for i in range(n_rows)
    ]
    fig = predictions_figure(rows).to_plotly_json()["layout"]
    margin = fig["margin"]
    plot_px = PREDICTIONS_WIDTH_PX - margin["l"] - margin["r"]
    starts = []
    for i, row in enumerate(rows):
        suffix = str(i + 1) if i else ""
        y, x = fig[f"yaxis{suffix}"], fig[f"xaxis{suffix}"]
        assert list(y["ticktext"]) == row.top_tokens[::-1]  # every word whole, none cut
        assert not y["automargin"]
        widest = max(text_width(t) for t in row.top_tokens) + TICK_PAD_PX
        x0, x1 = x["domain"]
        assert (x1 - x0) * plot_px >= 110 - 1e-6
        if x0 == 0:
            assert margin["l"] >= widest + 10  # the first column's labels in the figure's left margin
        else:
            before = fig[f"xaxis{i if i > 1 else ''}"]["domain"][1]  # the panel to its left ends here
            assert (x0 - before) * plot_px >= widest  # its labels fit the gap
        starts.append(x0)
    assert len(set(starts)) == min(n_rows, 3)  # three panels a row at this width and these words
    long = PredictionRow(1, "x", "[MASK]", "[MASK]", ["internationalisation", "a"], [0.6, 0.1], 0.0, 9)
    fig = predictions_figure([long])
    assert fig.layout.yaxis.ticktext[-1] == "internationalisation"[: TICK_LABEL_CHARS - 1] + "…"
    assert fig.data[0].customdata[-1] == "internationalisation"


def test_predictions_figure_and_table_of_a_typed_mask_claim_no_original():
    from viz_core.bert import TYPED, PredictionRow, predictions_figure, predictions_table

    row = PredictionRow(6, "[MASK]", "[MASK]", TYPED, ["supermarket", "market"], [0.5, 0.15], float("nan"), -1)
    fig = predictions_figure([row])
    assert fig.layout.annotations[0].text == "6: [MASK] as typed"
    assert list(fig.data[0].marker.color) == ["#1f77b4"] * 2  # no green: no original piece
    table = predictions_table([row])
    assert table["original"][0] == "" and table["P(original)"].isna().all() and table["rank of original"].isna().all()
    zh = predictions_figure([row], texts={"bert.pred.typed": "位置 {position}：输入的 [MASK]"})
    assert zh.layout.annotations[0].text == "位置 6：输入的 [MASK]"
