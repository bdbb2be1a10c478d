"""Readable from the back of the room (issue 24, item 7): the beam tree shows every step with its
prefixes and pruned branches, a head ablation that changes nothing says so, and the Transformer-XL,
real-model, generation and studio heatmaps label every token where their column has room."""

from __future__ import annotations

import html
import math

import numpy as np
import pytest
import torch

from models.inference.seq2seq import beam_search
from models.nn.rnn_seq2seq import Seq2Seq, Seq2SeqConfig
from models.text.vocab import Vocab
from viz_core.seq2seq import BEAM_TREE_PX, beam_parent_ranks, beam_tree_figure


def _real_beam(width: int = 3):
    """A real beam search of a small untrained Bahdanau model (every step's candidates)."""
    torch.manual_seed(3)
    cfg = Seq2SeqConfig(
        attention="bahdanau",
        score="general",
        src_vocab_size=12,
        tgt_vocab_size=11,
        emb_dim=6,
        hidden_dim=5,
        attn_dim=7,
        dropout=0.0,
    )
    tv = Vocab(["<pad>", "<unk>", "<s>", "</s>"] + [f"w{i}" for i in range(7)])
    return beam_search(Seq2Seq(cfg).eval(), [4, 5, 6, 7, 3], tv, width=width)


def _nodes(fig) -> dict[tuple[int, int], dict]:
    """(step, rank) → the node's x, y, group (trace name) and parent rank (customdata)."""
    out = {}
    for trace in fig.data:
        if trace.customdata is None or trace.mode == "lines":
            continue
        for x, y, (step, rank, parent) in zip(trace.x, trace.y, trace.customdata):
            assert (step, rank) not in out
            out[(int(step), int(rank))] = {"x": x, "y": y, "group": trace.name, "parent": int(parent)}
    return out


def _segments(fig) -> dict[str, list[tuple[float, float, float, float]]]:
    """Edge segments (x0, y0, x1, y1) of each line trace, keyed "pruned" (dashed) or "kept"."""
    out: dict[str, list] = {"pruned": [], "kept": []}
    for trace in fig.data:
        if trace.mode != "lines":
            continue
        key = "pruned" if trace.line.dash == "dash" else "kept"
        xs, ys = list(trace.x), list(trace.y)
        for i in range(0, len(xs), 3):
            out[key].append((xs[i], ys[i], xs[i + 1], ys[i + 1]))
    return out


@pytest.mark.parametrize("width", [2, 3])
@pytest.mark.slow
def test_beam_tree_has_every_candidate_of_every_step_joined_to_its_parent(width: int) -> None:
    hyps, steps = _real_beam(width)
    assert len(steps) >= 3 and any(not c.kept for c in steps[1])
    parents = beam_parent_ranks(steps)
    for upto in range(1, len(steps) + 1):
        fig = beam_tree_figure(steps, upto=upto)
        nodes, segments = _nodes(fig), _segments(fig)
        assert set(nodes) == {(t, r) for t in range(1, upto + 1) for r in range(len(steps[t - 1]))}
        for (t, r), node in nodes.items():
            c = steps[t - 1][r]
            assert node["x"] == t
            assert node["group"] == ("finished" if c.kept and c.finished else "kept" if c.kept else "pruned")
            assert node["parent"] == (-1 if parents[t - 1][r] is None else parents[t - 1][r])
            # exactly one edge ends at the node, dashed when pruned, and it starts at the parent's row
            ending = [(k, s) for k, segs in segments.items() for s in segs if s[2] == t and s[3] == node["y"]]
            assert len(ending) == 1, (t, r, ending)
            kind, (x0, y0, _, _) = ending[0]
            assert kind == ("kept" if c.kept else "pruned")
            if t == 1:
                assert y0 == 0 and 0 < x0 < 1
            else:
                parent = nodes[(t - 1, node["parent"])]
                assert parent["group"] == "kept" and y0 == parent["y"] and t - 1 < x0 < t
        assert sum(len(s) for s in segments.values()) == len(nodes)
        pruned_any = any(not c.kept for cands in steps[:upto] for c in cands)
        legend = {tr.name for tr in fig.data if tr.showlegend is not False}
        assert legend >= ({"kept", "pruned"} if pruned_any else {"kept"})
    # Following the parents back from each finished star spells that finished hypothesis.
    fig = beam_tree_figure(steps)
    nodes = _nodes(fig)
    spelled = []
    for (t, r), node in nodes.items():
        if node["group"] == "finished":
            tokens, rank = [], r
            for s in range(t, 0, -1):
                tokens.append(steps[s - 1][rank].token)
                rank = nodes[(s, rank)]["parent"]
            spelled.append(tokens[::-1])
    assert sorted(spelled) == sorted(h.tokens for h in hyps if h.finished)


def test_beam_tree_shows_every_step_of_a_short_sentence() -> None:
    """All steps of an 8-step, width-4 beam are in view at the column's width (no pan), each kept
    candidate labelled with its token."""
    from types import SimpleNamespace

    words = ["le", "chat", "voit", "le", "grand", "chien", ".", "</s>"]
    steps = [
        [
            SimpleNamespace(
                parent=r // 4 if t else 0,
                token=words[t],
                token_log_prob=-0.1 * r,
                log_prob=-0.5 * t - 0.1 * r,
                kept=r < 4,
                finished=t == 7 and r < 4,
            )
            for r in range(4 if t == 0 else 16)
        ]
        for t in range(8)
    ]
    fig = beam_tree_figure(steps, upto=8)
    lo, hi = fig.layout.xaxis.range
    assert lo < 0 and hi > 8 and fig.layout.xaxis.tickvals == tuple(range(1, 9))
    labels = [m for tr in fig.data if tr.name in ("kept", "finished") for m in tr.text]
    expected = [w for w in words for _ in range(4)]
    assert len(labels) == 32 and all(html.unescape(lab.split(" ")[0]) == w for lab, w in zip(labels, expected))
    assert fig.layout.width is None  # drawn across the column; planned for BEAM_TREE_PX
    assert BEAM_TREE_PX >= 700


# --------------------------------------------------------------------------------------
# Head ablation: nothing changed is said plainly, with no "most changed" head
# --------------------------------------------------------------------------------------


def _decode(rng: np.random.Generator, ids=(5, 6, 7)):
    from types import SimpleNamespace

    shapes = {
        "encoder_attention": (2, 4, 5, 5),
        "decoder_self_attention": (2, 4, 3, 3),
        "cross_attention": (2, 4, 3, 5),
    }
    return SimpleNamespace(
        output_ids=list(ids),
        token_probs=rng.random(3).astype(np.float32),
        **{f: rng.random(s).astype(np.float32) for f, s in shapes.items()},
    )


def _shifted(trace, by: float, field: str | None = None, p_by: float = 0.0, ids=None):
    from types import SimpleNamespace

    out = SimpleNamespace(**vars(trace))
    for f in ("encoder_attention", "decoder_self_attention", "cross_attention"):
        noise = np.full_like(getattr(trace, f), 0.3e-6)  # float noise of a masked forward pass
        if f == field:
            noise[1, 2] += by
        setattr(out, f, getattr(trace, f) + noise)
    out.token_probs = trace.token_probs + np.float32(p_by)
    out.output_ids = list(trace.output_ids if ids is None else ids)
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_ablation_that_changes_nothing_says_so_and_names_no_head(lang: str) -> None:
    from ui.i18n import reading, text
    from ui.transformer import ABLATION_TOLERANCE, ablation_effect, ablation_note

    trace = _decode(np.random.default_rng(0))
    same = _shifted(trace, 0.0)
    effect = ablation_effect(trace, same, same, "encoder")
    assert effect.nothing and effect.site_unchanged and effect.most_changed is None
    assert 0 < effect.weights < ABLATION_TOLERANCE
    with reading(lang):
        note = ablation_note(effect, "Encoder self", "Encoder self, L2 H3")
    assert note == text("ab.nothing", lang).format(head="Encoder self, L2 H3", tol=ABLATION_TOLERANCE)
    assert "1e-06" in note and note.count("\n") == 0
    assert "Most changed" not in note and "变化最大" not in note


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_ablation_that_changes_a_head_names_the_most_changed_one(lang: str) -> None:
    from ui.i18n import reading
    from ui.transformer import ablation_effect, ablation_note

    trace = _decode(np.random.default_rng(1))
    scored = _shifted(trace, 0.25, "encoder_attention", p_by=0.01)
    effect = ablation_effect(trace, scored, scored, "encoder")
    assert not effect.nothing and effect.most_changed == (1, 2)
    assert effect.change.max() == pytest.approx(0.25, abs=1e-5) and effect.probs == pytest.approx(0.01, abs=1e-6)
    with reading(lang):
        note = ablation_note(effect, "Encoder self", "Encoder self, L1 H1")
    assert "0.250" in note and ("Most changed: layer 2, head 3" in note if lang == "en" else "变化最大" in note)
    # the same head off, seen on the cross-attention, which it did not move: no head named there
    cross = ablation_effect(trace, scored, scored, "cross")
    assert not cross.nothing and cross.site_unchanged and cross.most_changed is None
    with reading(lang):
        note = ablation_note(cross, "Cross", "Encoder self, L1 H1")
    assert "0.250" not in note and "0.01" in note
    # a different output alone is a change too
    assert not ablation_effect(trace, _shifted(trace, 0.0), _shifted(trace, 0.0, ids=(5, 9)), "cross").nothing


# --------------------------------------------------------------------------------------
# Training studio: the scrubber on the latest snapshot when a run finishes; the probe map readable
# --------------------------------------------------------------------------------------


def test_a_finished_run_opens_on_its_latest_snapshot_and_then_stays_put() -> None:
    from ui.studio import SNAP_RUN_KEY, SNAP_STEP_KEY, scrub_to_latest

    state: dict[str, object] = {SNAP_STEP_KEY: 1}  # the untrained first snapshot
    scrub_to_latest(state, "run-a", 6)  # the run has just finished: first shown here
    assert state[SNAP_STEP_KEY] == 6 and state[SNAP_RUN_KEY] == "run-a"
    state[SNAP_STEP_KEY] = 2  # the user scrubs back
    scrub_to_latest(state, "run-a", 6)  # a rerun of the same view
    assert state[SNAP_STEP_KEY] == 2
    scrub_to_latest(state, "run-b", 4)  # another run picked
    assert state[SNAP_STEP_KEY] == 4
    state.pop(SNAP_RUN_KEY)  # run-b resumed and trained on (the live panel forgets it) ...
    scrub_to_latest(state, "run-b", 9)  # ... and finished again with more snapshots
    assert state[SNAP_STEP_KEY] == 9
    linked = {SNAP_STEP_KEY: 3}
    scrub_to_latest(linked, "run-c", 9, linked=True)  # a link's step wins
    assert linked[SNAP_STEP_KEY] == 3


def _probe_shot(n_words: int = 18):
    from models.training.runs import PERPLEXITY, Snapshot

    words = "In the beginning God created the heavens and the earth . And the earth was waste and void".split()
    assert len(words) >= n_words
    rng = np.random.default_rng(0)
    w = np.tril(rng.random((1, 2, n_words, n_words))).astype(np.float32)
    w /= w.sum(-1, keepdims=True)
    return Snapshot(
        step=300, src_tokens=words[:n_words], tgt_tokens=["and"], attention=w, score=110.0, aer=None, metric=PERPLEXITY
    ), words[:n_words]


def test_studio_probe_map_labels_every_word() -> None:
    from ui.studio import HEATMAP_PX, probe_figure

    shot, words = _probe_shot(18)
    fig = probe_figure(shot, 0, 1)
    assert HEATMAP_PX >= 700
    assert list(fig.layout.xaxis.tickvals) == list(range(18)) and list(fig.layout.yaxis.tickvals) == list(range(18))
    assert [html.unescape(t) for t in fig.layout.xaxis.ticktext] == words
    assert [html.unescape(t) for t in fig.layout.yaxis.ticktext] == words
    assert fig.layout.height >= 18 * 20 + 150  # one line of label height per row and the margins


# --------------------------------------------------------------------------------------
# Real model explorer: one head across the column, every token labelled
# --------------------------------------------------------------------------------------

#: MiniLM's WordPiece of "The animal didn't cross the street because it was too tired." (16 tokens)
CLASSIC = [
    "[CLS]",
    "the",
    "animal",
    "didn",
    "'",
    "t",
    "cross",
    "the",
    "street",
    "because",
    "it",
    "was",
    "too",
    "tired",
    ".",
    "[SEP]",
]


def _rows(n: int, seed: int = 0) -> np.ndarray:
    w = np.random.default_rng(seed).random((n, n)).astype(np.float32)
    return w / w.sum(-1, keepdims=True)


def test_real_model_head_is_large_and_labels_every_token_of_the_classic_sentence() -> None:
    from viz_core.attention_grid import HEAD_VIEW_PX, head_figure

    fig = head_figure(_rows(16), CLASSIC, width=HEAD_VIEW_PX).figure
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert list(axis.tickvals) == list(range(16))
        assert [html.unescape(t) for t in axis.ticktext] == CLASSIC  # "it" and "animal" among them
    top, bottom = fig.layout.margin.t, fig.layout.margin.b
    side = fig.layout.height - top - bottom
    assert side >= 16 * 28  # cells about 30 px: large on a projector
    assert fig.layout.height <= 720  # the whole head on one 1280 × 720 screen
    # the narrow default (a slide's half column) still thins: the width is what makes room
    narrow = head_figure(_rows(16), CLASSIC).figure
    assert len(narrow.layout.xaxis.tickvals) < 16


# --------------------------------------------------------------------------------------
# Transformer-XL and Generation: ticks planned for the column the figure is drawn in
# --------------------------------------------------------------------------------------

BIBLE = (
    "In the beginning God created the heavens and the earth . And the earth was without form , and void ; "
    "and darkness was upon the face of the deep . And the Spirit of God moved upon the face of the waters . "
    "And God said , Let there be light"
).split()


def _x_room(fig) -> float:
    """px between two neighbouring x tick labels once drawn: the plot's width (the figure's planned
    width less the y labels and colour bar) over the tokens, times the ticks' step."""
    vals = list(fig.layout.xaxis.tickvals)
    return min(b - a for a, b in zip(vals, vals[1:])) if len(vals) > 1 else math.inf


@pytest.mark.parametrize("memory, segment", [(0, 8), (8, 8), (16, 16), (24, 16)])
def test_transformer_xl_segment_labels_every_token_that_fits(memory: int, segment: int) -> None:
    from ui.transformer_xl import FIGURE_PX
    from viz_core.style import LINE_EM, TICK_FONT_SIZE
    from viz_core.transformer_xl import xl_attention_figure

    n = memory + segment
    keys = BIBLE[:n]
    w = np.random.default_rng(n).random((segment, n))
    mask = np.ones((segment, n), dtype=bool)
    fig = xl_attention_figure(
        w / w.sum(-1, keepdims=True),
        keys[:memory],
        keys[memory:],
        mask,
        memory_label="memory",
        segment_label="segment",
        width=FIGURE_PX,
    )
    vals = list(fig.layout.xaxis.tickvals)
    if n <= 24:  # 24 upright labels need 24 lines: they fit the column with room to spare
        assert vals == list(range(n)) and [html.unescape(t) for t in fig.layout.xaxis.ticktext] == keys
    else:  # 40: as many as fit a line apart, first and last among them
        assert vals[0] == 0 and vals[-1] == n - 1 and len(vals) >= n // 2
    plot_px = FIGURE_PX - 40 - 90 - max(len(t) for t in keys) * 0.72 * TICK_FONT_SIZE
    assert _x_room(fig) * plot_px / n >= LINE_EM * TICK_FONT_SIZE or vals == list(range(n))


def test_transformer_xl_dependency_and_terms_figures_use_the_column() -> None:
    from ui.transformer_xl import FIGURE_PX
    from viz_core.transformer_xl import dependency_figure, score_terms_figure

    keys = BIBLE[:24]
    terms = score_terms_figure({"(a)": np.zeros(24), "(b)": np.ones(24)}, keys, width=FIGURE_PX)
    assert list(terms.layout.xaxis.tickvals) == list(range(24))
    narrow = score_terms_figure({"(a)": np.zeros(24), "(b)": np.ones(24)}, keys)
    assert len(narrow.layout.xaxis.tickvals) < 24  # planned for 360 px it had to thin
    reach = np.ones((3, 24), dtype=bool)
    dep = dependency_figure({"vanilla": reach, "XL": reach}, 8, 23, keys, width=FIGURE_PX)
    assert list(dep.layout.xaxis.tickvals) == list(range(24))


@pytest.mark.parametrize("n", [12, 27])
def test_generation_causal_map_labels_every_token(n: int) -> None:
    from viz_core.attention_grid import HEAD_VIEW_PX, head_view_height
    from viz_core.transformer import attention_matrix_figure, causal_mask

    seen = BIBLE[:n]
    w = np.tril(np.random.default_rng(n).random((n, n)))
    fig = attention_matrix_figure(
        w / w.sum(-1, keepdims=True),
        seen,
        seen,
        blocked=~causal_mask(n),
        step=n - 1,
        title="Layer 2, head 1",
        width=HEAD_VIEW_PX,
        height=head_view_height(n),
    )
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert list(axis.tickvals) == list(range(n))
        assert [html.unescape(t) for t in axis.ticktext] == seen
    assert fig.layout.height >= 22 * n + 200
