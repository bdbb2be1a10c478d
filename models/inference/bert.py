"""Running the small BERT (:mod:`models.nn.bert`) on one input: every head, embedding part and prediction.

:func:`run_bert` gives a :class:`~models.inference.traces.BertTrace`; :func:`analyse_masked`
puts an input through the masking procedure (:mod:`corpora.masking`) and runs the model on the
plain and the corrupted input; :func:`fill_mask` predicts the pieces under the [MASK]s of a text
(``python -m models.fill_mask``); :func:`best_span` is the answer-span rule of §4.2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from corpora.masking import REFERENCE, mask_sequence
from models.checkpoints import LoadedBert
from models.inference.common import InputError, device_of, eval_mode, to_numpy
from models.inference.traces import BertTrace, FillMaskTrace, MaskedAnalysis
from models.nn.bert import SmallBert
from models.text.wordpiece import MASK


@torch.inference_mode()
def run_bert(
    model: SmallBert,
    ids: Sequence[int],
    segment_ids: Sequence[int],
    top_k: int = 5,
    targets: Sequence[int] | None = None,
) -> BertTrace:
    """One sequence through the model in eval mode; every output of every head as numpy."""
    with eval_mode(model):
        device = device_of(model)
        x = torch.as_tensor(list(ids), dtype=torch.long, device=device).unsqueeze(0)
        s = torch.as_tensor(list(segment_ids), dtype=torch.long, device=device).unsqueeze(0)
        tok, seg, pos = model.embeddings.parts(x, s)
        out = model(x, s)
        h = out.hidden[0]
        probs = torch.softmax(model.mlm_logits(h).float(), dim=-1)  # (L, V)
        k = min(top_k, probs.shape[-1])
        top_p, top_i = probs.topk(k, dim=-1)
        n = x.shape[1]
        target_probs = np.full(n, np.nan, dtype=np.float32)
        target_rank = np.full(n, -1, dtype=np.int64)
        if targets is not None:
            t = torch.as_tensor(list(targets), dtype=torch.long, device=device)
            p_t = probs.gather(1, t.unsqueeze(1)).squeeze(1)
            target_probs = to_numpy(p_t)
            target_rank = (probs > p_t.unsqueeze(1)).sum(1).cpu().numpy().astype(np.int64)
        span = model.span(h)
        summed = tok + seg + pos
        return BertTrace(
            ids=x[0].cpu().numpy(),
            segment_ids=s[0].cpu().numpy(),
            attention=to_numpy(out.attention[0]),
            token_emb=to_numpy(tok[0]),
            segment_emb=to_numpy(seg[0]),
            position_emb=to_numpy(pos[0]),
            embedding_sum=to_numpy(summed[0]),
            embedding=to_numpy(model.embeddings.norm(summed)[0]),
            top_ids=top_i.cpu().numpy().astype(np.int64),
            top_probs=to_numpy(top_p),
            target_probs=target_probs,
            target_rank=target_rank,
            nsp_probs=to_numpy(torch.softmax(out.nsp_logits[0].float(), -1)),
            class_probs=to_numpy(torch.softmax(model.classifier(out.pooled[0]).float(), -1)),
            tag_probs=to_numpy(torch.softmax(model.tagger(h).float(), -1)),
            span_start=to_numpy(span[:, 0]),
            span_end=to_numpy(span[:, 1]),
        )


def best_span(start: np.ndarray, end: np.ndarray, allowed: np.ndarray, max_len: int = 30) -> tuple[int, int, float]:
    """argmax over i ≤ j < i + max_len, both ``allowed``, of start[i] + end[j] (§4.2) → (i, j, score)."""
    s = np.where(allowed, start, -np.inf)
    e = np.where(allowed, end, -np.inf)
    n = len(s)
    scores = s[:, None] + e[None, :]
    i, j = np.indices((n, n))
    scores = np.where((j >= i) & (j < i + max_len), scores, -np.inf)
    if not np.isfinite(scores).any():
        return -1, -1, float("-inf")
    flat = int(np.argmax(scores))
    return flat // n, flat % n, float(scores.flat[flat])


def answer_span(analysis: MaskedAnalysis, pair: bool) -> tuple[int, int]:
    """The highest-scoring answer span (i, j) of the span head (§4.2): inside segment B for a pair,
    anywhere but the special pieces otherwise; i = −1 when there is none."""
    allowed = (analysis.segment_ids == 1) & ~analysis.special if pair else ~analysis.special
    i, j, _ = best_span(analysis.plain.span_start, analysis.plain.span_end, allowed)
    return i, j


def nsp_on_pairs(loaded: LoadedBert, pairs: Sequence[tuple[str, str, bool]]) -> list[tuple[str, str, bool, float]]:
    """The model's P(IsNext) for each (a, b, is_next) pair: (a, b, is_next, p)."""
    out = []
    for a, b, is_next in pairs:
        enc = loaded.tokenizer.encode_pair(a, b, max_len=loaded.config.max_len)
        out.append((a, b, is_next, run_bert(loaded.model, enc.ids, enc.segment_ids, top_k=1).p_is_next))
    return out


def analyse_plain(loaded: LoadedBert, text_a: str, text_b: str, top_k: int = 5) -> BertTrace:
    """The model's run on ``[CLS] A [SEP] (B [SEP])`` as typed, nothing masked: the half of
    :func:`analyse_masked` that no masking changes."""
    enc = loaded.tokenizer.encode_pair(text_a, text_b or None, max_len=loaded.config.max_len)
    return run_bert(loaded.model, enc.ids, enc.segment_ids, top_k=top_k, targets=enc.ids)


def analyse_masked(
    loaded: LoadedBert,
    text_a: str,
    text_b: str,
    seed: int,
    draw: bool,
    clicked: Sequence[int],
    top_k: int = 5,
    rule: str = REFERENCE,
    plain: BertTrace | None = None,
) -> MaskedAnalysis:
    """Encode ``[CLS] A [SEP] (B [SEP])``, draw the 15% / 80-10-10 masking with ``seed`` under
    ``rule`` (if ``draw``), force ``clicked`` positions to [MASK], and run the model on both inputs
    (``plain``: :func:`analyse_plain` of the same input and ``top_k``, when the caller has it).

    A text with ``[MASK]`` typed in it (capitals, as :func:`fill_mask` reads it) is not drawn on: its
    typed [MASK]s (:func:`typed_masks`) are the chosen positions, with no original piece to score
    (``target_probs`` NaN, ``target_rank`` −1 there), so that with no B and no click the masked run's
    top-k is :func:`fill_mask`'s."""
    tok, cfg = loaded.tokenizer, loaded.config
    enc = tok.encode_pair(text_a, text_b or None, max_len=cfg.max_len)
    typed = [i for i, x in enumerate(enc.ids) if x == tok.mask_id]
    record = mask_sequence(
        enc.ids,
        enc.special,
        seed,
        mask_id=tok.mask_id,
        vocab_size=cfg.vocab_size,
        force_mask=(*typed, *clicked),
        rate=0.15 if draw and not typed else 0.0,
        rule=rule,
    )
    if plain is None:
        plain = analyse_plain(loaded, text_a, text_b, top_k)
    masked = run_bert(loaded.model, record.input_ids.tolist(), enc.segment_ids, top_k=top_k, targets=enc.ids)
    masked.target_probs[typed] = np.nan  # the typed [MASK] stood for no piece of the text
    masked.target_rank[typed] = -1
    return MaskedAnalysis(
        tokens=enc.tokens,
        ids=np.asarray(enc.ids),
        segment_ids=np.asarray(enc.segment_ids),
        special=np.asarray(enc.special),
        dropped=enc.dropped,
        n_unknown=enc.n_unknown,
        input_ids=record.input_ids,
        input_tokens=tok.convert_ids(record.input_ids.tolist()),
        outcome=record.outcome,
        plain=plain,
        masked=masked,
        top_tokens=[tok.convert_ids(row.tolist()) for row in masked.top_ids],
    )


def typed_masks(analysis: MaskedAnalysis) -> list[int]:
    """Positions of the ``[MASK]`` pieces typed in the text itself (not drawn or clicked): the model
    predicts there, but no original piece is known."""
    return [i for i, token in enumerate(analysis.tokens) if token == MASK]


MAX_TOP_K = 100


def fill_mask(loaded: LoadedBert, text: str, top_k: int = 5) -> FillMaskTrace:
    """``[CLS] text [SEP]`` through the masked LM; at each ``[MASK]`` typed in ``text`` the ``top_k`` most
    probable pieces, p = softmax(LN(GELU(W h + b)) E_tokenᵀ + b_vocab). InputError (a plain message)
    for an empty text, no [MASK], a text longer than the model reads or ``top_k`` out of 1–100."""
    tok, cfg = loaded.tokenizer, loaded.config
    if not 1 <= top_k <= MAX_TOP_K:
        raise InputError(f"top-k must be between 1 and {MAX_TOP_K}, not {top_k}")
    if "mlm" not in cfg.trained_heads:
        raise InputError(f"{loaded.name} has no trained masked-LM head")
    ids, _ = tok.pieces(text)
    if not ids:
        raise InputError("nothing to fill: type a sentence with [MASK] where a word is missing")
    if tok.mask_id not in ids:
        raise InputError(
            "the text has no [MASK]: write [MASK] (capitals, in brackets) where a word is missing, "
            'e.g. "the cat sat on the [MASK] ."'
        )
    if len(ids) + 2 > cfg.max_len:
        raise InputError(f"the text is {len(ids)} pieces long; {loaded.name} reads at most {cfg.max_len - 2}")
    enc = tok.assemble(ids, None, cfg.max_len)
    trace = run_bert(loaded.model, enc.ids, enc.segment_ids, top_k=top_k)
    positions = [i for i, x in enumerate(enc.ids) if x == tok.mask_id]
    masks = [
        {
            "position": i,
            "predictions": [
                {"token": tok.id_to_token(int(j)), "prob": float(p)}
                for j, p in zip(trace.top_ids[i], trace.top_probs[i])
            ],
        }
        for i in positions
    ]
    filled = [int(trace.top_ids[i][0]) if i in positions else x for i, x in enumerate(enc.ids)]
    return FillMaskTrace(
        model=loaded.name, tokens=enc.tokens, masks=masks, filled=tok.decode(filled), n_unknown=enc.n_unknown
    )
