"""Greedy, beam-search and batched greedy decoding of an RNN seq2seq model (:mod:`models.nn.rnn_seq2seq`),
recording every step as a trace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import torch

from models.inference.common import (
    DEFAULT_LENGTH_PENALTY,
    cut_at_end,
    device_of,
    eval_mode,
    length_normalised,
    max_output_len,
    pad_ids,
)
from models.inference.traces import BeamCandidate, Hypothesis
from models.nn.rnn_seq2seq import SOFT, AttentionMode, DecoderState, Seq2Seq
from models.text.vocab import EOS_ID, PAD_ID, SOS_ID, Vocab


@dataclass
class _Partial:
    """A hypothesis under construction."""

    ids: list[int] = field(default_factory=list)
    log_prob: float = 0.0
    token_probs: list[float] = field(default_factory=list)
    attention: list[np.ndarray] = field(default_factory=list)
    topk_ids: list[list[int]] = field(default_factory=list)
    topk_probs: list[np.ndarray] = field(default_factory=list)
    positions: list[float] = field(default_factory=list)

    def extend(
        self, token: int, log_p: float, probs: torch.Tensor, alpha: np.ndarray | None, k: int, position: float | None
    ) -> _Partial:
        top_p, top_i = probs.topk(min(k, probs.shape[-1]))
        return _Partial(
            self.ids + [token],
            self.log_prob + log_p,
            self.token_probs + [float(np.exp(log_p))],
            self.attention + ([] if alpha is None else [alpha]),
            self.topk_ids + [top_i.tolist()],
            self.topk_probs + [top_p.numpy()],
            self.positions + ([] if position is None else [position]),
        )

    def finish(self, vocab: Vocab, finished: bool, length_penalty: float) -> Hypothesis:
        return Hypothesis(
            tokens=vocab.decode(self.ids),
            token_probs=np.asarray(self.token_probs, dtype=np.float32),
            attention=np.stack(self.attention).astype(np.float32) if self.attention else None,
            topk_tokens=[vocab.decode(ids) for ids in self.topk_ids],
            topk_probs=np.stack(self.topk_probs).astype(np.float32) if self.topk_probs else np.zeros((0, 0)),
            log_prob=self.log_prob,
            finished=finished,
            score=length_normalised(self.log_prob, len(self.ids), length_penalty),
            positions=np.asarray(self.positions, dtype=np.float32) if self.positions else None,
        )


def _position(state: DecoderState, row: int) -> float | None:
    return None if state.position is None else float(state.position[row])


@torch.no_grad()
def greedy_decode(
    model: Seq2Seq,
    src_ids: list[int],
    tgt_vocab: Vocab,
    mode: AttentionMode = SOFT,
    topk: int = 5,
    length_penalty: float = DEFAULT_LENGTH_PENALTY,
    forced: Sequence[int] = (),
) -> Hypothesis:
    """y_t = argmax p(y | y_<t, x) until </s> (its ``score`` uses the beam's ranking rule).

    What-if: with ``forced`` ids, y_t = forced[t] for the first len(forced) steps (each step's
    top-k, α and p(y_t) are still the model's own, computed from the forced prefix), then greedy
    again; the hypothesis marks the last forced step as ``forced_step``.
    """
    limit = max_output_len(len(src_ids), model.cfg.max_tgt_len)
    if len(forced) > limit:
        raise ValueError(f"{len(forced)} forced tokens exceed the output limit of {limit}")
    with eval_mode(model):
        hyp = _greedy(model, src_ids, tgt_vocab, mode, topk, length_penalty, list(forced))
    return replace(hyp, forced_step=len(forced) - 1) if forced else hyp


def _greedy(
    model: Seq2Seq,
    src_ids: list[int],
    tgt_vocab: Vocab,
    mode: AttentionMode,
    topk: int,
    length_penalty: float,
    forced: list[int],
) -> Hypothesis:
    device = device_of(model)
    src = torch.tensor([src_ids], device=device)
    memory = model.encode(src, torch.tensor([len(src_ids)]))
    state = model.decoder.initial_state(memory)
    partial, y_prev = _Partial(), torch.tensor([SOS_ID], device=device)
    for t in range(max_output_len(len(src_ids), model.cfg.max_tgt_len)):
        logits, state, alpha = model.decoder.step(y_prev, state, memory, mode)
        log_probs = torch.log_softmax(logits[0].float(), dim=-1).cpu()
        token = forced[t] if t < len(forced) else int(log_probs.argmax())
        partial = partial.extend(
            token,
            float(log_probs[token]),
            log_probs.exp(),
            None if alpha is None else alpha[0].cpu().numpy(),
            topk,
            _position(state, 0),
        )
        if token == EOS_ID:
            return partial.finish(tgt_vocab, True, length_penalty)
        y_prev = torch.tensor([token], device=device)
    return partial.finish(tgt_vocab, False, length_penalty)


@torch.no_grad()
def beam_search(
    model: Seq2Seq,
    src_ids: list[int],
    tgt_vocab: Vocab,
    width: int,
    mode: AttentionMode = SOFT,
    topk: int = 5,
    length_penalty: float = DEFAULT_LENGTH_PENALTY,
) -> tuple[list[Hypothesis], list[list[BeamCandidate]]]:
    """Beam search that keeps the ``width`` best partial translations by Σ log p.

    At each step every live beam proposes its ``width`` best next tokens; the ``width`` best of
    all proposals are kept, and those ending in </s> leave the beam as finished hypotheses (the
    beam shrinks). Finished hypotheses are ranked by :func:`length_normalised` with α =
    ``length_penalty``, the rule the Transformer's beam uses too.
    Returns the hypotheses (best first) and, per step, every candidate considered.
    """
    with eval_mode(model):
        return _beam(model, src_ids, tgt_vocab, width, mode, topk, length_penalty)


def _beam(
    model: Seq2Seq,
    src_ids: list[int],
    tgt_vocab: Vocab,
    width: int,
    mode: AttentionMode,
    topk: int,
    length_penalty: float,
) -> tuple[list[Hypothesis], list[list[BeamCandidate]]]:
    device = device_of(model)
    src = torch.tensor([src_ids], device=device)
    memory1 = model.encode(src, torch.tensor([len(src_ids)]))
    beams = [_Partial()]
    state = model.decoder.initial_state(memory1)
    y_prev = torch.tensor([SOS_ID], device=device)
    finished: list[Hypothesis] = []
    steps: list[list[BeamCandidate]] = []
    for _ in range(max_output_len(len(src_ids), model.cfg.max_tgt_len)):
        memory = memory1.index_select(torch.zeros(len(beams), dtype=torch.long, device=device))
        logits, state, alpha = model.decoder.step(y_prev, state, memory, mode)
        log_probs = torch.log_softmax(logits.float(), dim=-1).cpu()
        top_lp, top_ids = log_probs.topk(min(width, log_probs.shape[-1]), dim=-1)
        proposals = [
            (beams[b].log_prob + float(top_lp[b, j]), b, int(top_ids[b, j]), float(top_lp[b, j]))
            for b in range(len(beams))
            for j in range(top_ids.shape[1])
        ]
        proposals.sort(key=lambda p: -p[0])
        kept = proposals[:width]
        kept_set = {(b, tok) for _, b, tok, _ in kept}
        steps.append(
            [
                BeamCandidate(b, tgt_vocab.itos[tok], lp, total, (b, tok) in kept_set, tok == EOS_ID)
                for total, b, tok, lp in proposals
            ]
        )
        alphas = None if alpha is None else alpha.cpu().numpy()
        next_beams, parents, tokens = [], [], []
        for _, b, tok, lp in kept:
            extended = beams[b].extend(
                tok, lp, log_probs[b].exp(), None if alphas is None else alphas[b], topk, _position(state, b)
            )
            if tok == EOS_ID:
                finished.append(extended.finish(tgt_vocab, True, length_penalty))
            else:
                next_beams.append(extended)
                parents.append(b)
                tokens.append(tok)
        if not next_beams or len(finished) >= width:
            beams = next_beams
            break
        beams = next_beams
        state = state.index_select(torch.tensor(parents, device=device))
        y_prev = torch.tensor(tokens, device=device)
    unfinished = [b.finish(tgt_vocab, False, length_penalty) for b in beams] if len(finished) < width else []
    ranked = sorted(finished, key=lambda h: -h.score) + sorted(unfinished, key=lambda h: -h.score)
    return ranked, steps


@torch.no_grad()
def greedy_batch(
    model: Seq2Seq, src_batch: list[list[int]], mode: AttentionMode = SOFT
) -> list[tuple[list[int], np.ndarray | None]]:
    """Greedy decoding of many sentences at once: per sentence, (ids up to and with </s>, α (T, S)).
    Each sentence stops at its own limit (2·|x| + 10), so the ids equal :func:`greedy_decode`'s."""
    with eval_mode(model):
        return _greedy_batch(model, src_batch, mode)


def _greedy_batch(
    model: Seq2Seq, src_batch: list[list[int]], mode: AttentionMode
) -> list[tuple[list[int], np.ndarray | None]]:
    device = device_of(model)
    lengths = torch.tensor([len(s) for s in src_batch])
    caps = [max_output_len(len(s), model.cfg.max_tgt_len) for s in src_batch]  # each sentence's own limit
    memory = model.encode(pad_ids(src_batch, PAD_ID).to(device), lengths)
    state = model.decoder.initial_state(memory)
    y_prev = torch.full((len(src_batch),), SOS_ID, device=device)
    done = torch.zeros(len(src_batch), dtype=torch.bool, device=device)
    reached = torch.tensor(caps, device=device)
    ids, alphas = [], []
    for t in range(max(caps)):
        logits, state, alpha = model.decoder.step(y_prev, state, memory, mode)
        y_prev = logits.argmax(-1)
        ids.append(y_prev)
        if alpha is not None:
            alphas.append(alpha)
        done |= (y_prev == EOS_ID) | (reached <= t + 1)
        if bool(done.all()):
            break
    id_matrix = torch.stack(ids, 1).cpu().tolist()
    alpha_all = torch.stack(alphas, 1).cpu().numpy() if alphas else None
    out = []
    for i, row in enumerate(id_matrix):
        out_ids = cut_at_end(row[: caps[i]], EOS_ID)
        out.append((out_ids, None if alpha_all is None else alpha_all[i, : len(out_ids), : len(src_batch[i])]))
    return out
