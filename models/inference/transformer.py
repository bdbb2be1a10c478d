"""Decoding with the Transformer (:mod:`models.nn.transformer`): greedy, beam, batched greedy, sampling.

Every function runs the model in eval mode under ``torch.inference_mode`` and returns a trace
of :mod:`models.inference.traces` (numpy and ids; token strings too when given the vocabulary).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor

from models.inference.common import (
    DEFAULT_LENGTH_PENALTY,
    as_ids,
    cut_at_end,
    device_of,
    eval_mode,
    length_normalised,
    max_output_len,
    pad_ids,
    sampling_distribution,
    to_numpy,
)
from models.inference.traces import BeamStep, BeamTrace, TransformerDecodeTrace, GenerationStep, GenerationTrace
from models.nn.transformer import DecoderOnlyLM, HeadMask, Transformer


def _encoded(
    model: Transformer,
    src_ids: Sequence[int] | Tensor,
    head_mask: HeadMask | None = None,
) -> tuple[Tensor, Tensor, Tensor, list[Tensor]]:
    """The prelude of every decoder: (src (1, S), src_mask, memory, encoder attention per layer)."""
    src = as_ids(src_ids, device_of(model))
    src_mask = model.source_mask(src)
    memory, enc_w = model.encode(src, src_mask, head_mask)
    return src, src_mask, memory, enc_w


def _teacher_forced_trace(
    model: Transformer,
    src: Tensor,
    memory: Tensor,
    enc_w: list[Tensor],
    src_mask: Tensor,
    output_ids: list[int],
    top_k: int,
    itos: Sequence[str] | None,
    head_mask: HeadMask | None = None,
) -> TransformerDecodeTrace:
    """Teacher-force start + output_ids[:-1] once: row t of each causal matrix is step t, the
    same numbers step-by-step decoding computed (tested)."""
    c = model.config
    dec_in = torch.tensor([[c.bos_id] + output_ids[:-1]], dtype=torch.long, device=src.device)
    hidden, self_w, cross_w = model.decode(dec_in, memory, src_mask, head_mask=head_mask)
    log_p = torch.log_softmax(model.generator(hidden)[0].float(), dim=-1)  # (T, V)
    top_lp, top_ix = log_p.topk(min(top_k, log_p.shape[-1]), dim=-1)
    n = len(output_ids)
    picked = log_p[torch.arange(n), torch.tensor(output_ids, dtype=torch.long)] if n else log_p[:0, 0]
    topk_ids = to_numpy(top_ix[:n]).astype(np.int64)
    trace = TransformerDecodeTrace(
        src_ids=[int(i) for i in src[0].tolist()],
        output_ids=[int(i) for i in output_ids],
        encoder_attention=to_numpy(torch.stack(enc_w, 1)[0]),
        decoder_self_attention=to_numpy(torch.stack(self_w, 1)[0, :, :, :n, :n]),
        cross_attention=to_numpy(torch.stack([w for w in cross_w if w is not None], 1)[0, :, :, :n]),
        token_log_probs=to_numpy(picked),
        topk_ids=topk_ids,
        topk_probs=to_numpy(top_lp[:n].exp()),
        score=float(picked.sum()),
        bos_id=c.bos_id,
        eos_id=c.eos_id,
    )
    if itos is not None:
        trace.tgt_tokens = [itos[i] for i in trace.output_ids]
        trace.decoder_tokens = [itos[i] for i in trace.decoder_input_ids] if n else []
        trace.topk_tokens = [[itos[i] for i in row] for row in topk_ids.tolist()]
    return trace


@torch.inference_mode()
def greedy_decode(
    model: Transformer,
    src_ids: Sequence[int] | Tensor,
    max_len: int = 50,
    top_k: int = 5,
    itos: Sequence[str] | None = None,
    forced: Sequence[int] = (),
    head_mask: HeadMask | None = None,
) -> TransformerDecodeTrace:
    """y_t = argmax_y p(y | y_<t, x), from the start token until the end token or ``max_len``
    output tokens. Records every step's top-k distribution and the new position's self- and
    cross-attention in every layer and head; ``itos`` names the output tokens.

    What-if: ``forced`` ids are the first outputs whatever the model prefers (the trace marks
    the last of them as ``forced_step``; every step's numbers are computed from the forced
    prefix), then greedy again. ``head_mask`` switches heads off for the whole run (Michel et
    al. 2019)."""
    c = model.config
    max_len = min(max_len, c.max_len - 1)
    if len(forced) > max_len:
        raise ValueError(f"{len(forced)} forced tokens exceed the output limit of {max_len}")
    with eval_mode(model):
        src, src_mask, memory, enc_w = _encoded(model, src_ids, head_mask)
        ys = torch.tensor([[c.bos_id, *forced]], dtype=torch.long, device=src.device)
        for _ in range(max_len - len(forced)):
            if ys.shape[1] > 1 and int(ys[0, -1]) == c.eos_id:
                break
            hidden, _, _ = model.decode(ys, memory, src_mask, head_mask=head_mask)
            tok = int(model.generator(hidden[0, -1]).argmax())
            ys = torch.cat([ys, torch.tensor([[tok]], device=src.device)], dim=1)
        trace = _teacher_forced_trace(model, src, memory, enc_w, src_mask, ys[0, 1:].tolist(), top_k, itos, head_mask)
        trace.forced_step = len(forced) - 1 if forced else None
        return trace


@torch.inference_mode()
def beam_search(
    model: Transformer,
    src_ids: Sequence[int] | Tensor,
    beam_width: int = 4,
    max_len: int = 50,
    length_penalty: float = DEFAULT_LENGTH_PENALTY,
    top_k: int = 5,
    itos: Sequence[str] | None = None,
    head_mask: HeadMask | None = None,
) -> BeamTrace:
    """Beam search, the same procedure as the RNN beam (:func:`models.inference.seq2seq.beam_search`):
    each step keeps the ``beam_width`` extensions with the highest Σ log p(y_t | y_<t, x); those
    ending in the end token leave the beam as finished hypotheses. Stops when ``beam_width``
    hypotheses have finished or none is live, or after ``max_len`` output tokens. Finished
    hypotheses are ranked by :func:`~models.inference.common.length_normalised` with
    α = ``length_penalty`` (then unfinished ones). With ``beam_width=1`` it is exactly greedy decoding.
    ``head_mask`` switches heads off for the whole search.
    """
    c = model.config
    max_len = min(max_len, c.max_len - 1)
    with eval_mode(model):
        src, src_mask, memory, enc_w = _encoded(model, src_ids, head_mask)
        device = src.device
        live: list[list[int]] = [[]]
        live_scores = torch.zeros(1, device=device)
        finished: list[tuple[list[int], float]] = []
        beams: list[BeamStep] = []

        def rank(hyps: list[tuple[list[int], float]]) -> list[tuple[list[int], float]]:
            return sorted(hyps, key=lambda hs: length_normalised(hs[1], len(hs[0]), length_penalty), reverse=True)

        for _ in range(max_len):
            n = len(live)
            ys = torch.tensor([[c.bos_id] + h for h in live], dtype=torch.long, device=device)
            hidden, _, _ = model.decode(ys, memory.expand(n, -1, -1), src_mask.expand(n, -1, -1), head_mask=head_mask)
            log_p = torch.log_softmax(model.generator(hidden[:, -1]).float(), dim=-1)  # (n, V)
            cand = (live_scores.unsqueeze(1) + log_p).flatten()
            vocab = log_p.shape[-1]
            # The beam_width best extensions of all live prefixes; those ending in the end token
            # leave the beam finished (it shrinks), the others stay live.
            cand_scores, cand_ix = cand.topk(min(beam_width, cand.numel()))
            new_live: list[list[int]] = []
            new_scores: list[float] = []
            step_finished: list[tuple[list[int], float]] = []
            for s, ix in zip(cand_scores.tolist(), cand_ix.tolist()):
                hyp = live[ix // vocab] + [ix % vocab]
                if ix % vocab == c.eos_id:
                    step_finished.append((hyp, s))
                else:
                    new_live.append(hyp)
                    new_scores.append(s)
            finished = rank(finished + step_finished)[:beam_width]
            beams.append(BeamStep(new_live, new_scores, [h for h, _ in step_finished], [sc for _, sc in step_finished]))
            live, live_scores = new_live, torch.tensor(new_scores, device=device)
            if not live or len(finished) >= beam_width:
                break
        unfinished = rank(list(zip(live, live_scores.tolist()))) if len(finished) < beam_width else []
        ranked = rank(finished) + unfinished  # finished hypotheses first, as the RNN beam ranks them
        best_ids = ranked[0][0] if ranked else []
        best = _teacher_forced_trace(model, src, memory, enc_w, src_mask, best_ids, top_k, itos, head_mask)
        best.search, best.beam_width = "beam", beam_width
        return BeamTrace(best=best, beams=beams, finished=ranked, beam_width=beam_width, length_penalty=length_penalty)


@torch.inference_mode()
def greedy_batch(
    model: Transformer,
    src_batch: Sequence[Sequence[int]],
    max_len: int | None = None,
) -> list[list[int]]:
    """Greedy decoding of many sources at once (right-padded); per source the output ids up
    to and including the end token, or ``max_len`` ids (default: this source's 2·|x| + 10, the
    limit :func:`greedy_decode` applies on the page)."""
    c = model.config
    if not src_batch:
        return []
    device = device_of(model)
    src = pad_ids(src_batch, c.pad_id).to(device)
    caps = [
        min(c.max_len - 1, max_len) if max_len is not None else max_output_len(len(s), c.max_len - 1) for s in src_batch
    ]  # each source's own limit, as greedy_decode applies it
    reached = torch.tensor(caps, device=device)
    with eval_mode(model):
        src_mask = model.source_mask(src)
        memory, _ = model.encode(src, src_mask)
        ys = torch.full((len(src_batch), 1), c.bos_id, dtype=torch.long, device=device)
        done = torch.zeros(len(src_batch), dtype=torch.bool, device=device)
        for t in range(max(caps)):
            hidden, _, _ = model.decode(ys, memory, src_mask)
            nxt = model.generator(hidden[:, -1]).argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, c.pad_id), nxt)
            ys = torch.cat([ys, nxt.unsqueeze(1)], dim=1)
            done |= (nxt == c.eos_id) | (reached <= t + 1)
            if bool(done.all()):
                break
    return [cut_at_end(row[:cap], c.eos_id, c.pad_id) for row, cap in zip(ys[:, 1:].tolist(), caps)]


@torch.inference_mode()
def generate(
    lm: DecoderOnlyLM,
    prompt_ids: Sequence[int] | Tensor,
    max_new: int = 20,
    temperature: float = 1.0,
    top_k: int | None = None,
    seed: int | None = None,
    stop_at_eos: bool = True,
    n_candidates: int = 10,
    itos: Sequence[str] | None = None,
) -> GenerationTrace:
    """Sample x_t ~ softmax(logits / T) restricted to the ``top_k`` most probable tokens
    (``top_k=1`` or ``temperature=0`` is greedy and deterministic), with a ``seed``ed generator.

    Stops after ``max_new`` tokens, at the end token (if ``stop_at_eos``), or at ``config.max_len``.
    ``itos`` names the tokens.
    """
    c = lm.config
    device = device_of(lm)
    ids = as_ids(prompt_ids, device)
    if ids.shape[1] == 0:
        ids = torch.tensor([[c.bos_id]], dtype=torch.long, device=device)
    if ids.shape[1] > c.max_len:
        raise ValueError(f"prompt of {ids.shape[1]} tokens is longer than max_len={c.max_len}")
    prompt = [int(i) for i in ids[0].tolist()]
    gen = torch.Generator(device=device)
    if seed is not None:
        gen.manual_seed(seed)
    else:
        gen.seed()
    steps: list[GenerationStep] = []
    with eval_mode(lm):
        for _ in range(max_new):
            if ids.shape[1] >= c.max_len:
                break
            out = lm.run(ids)
            logits = out.logits[0, -1].float()
            model_probs = torch.softmax(logits, dim=-1)
            probs = sampling_distribution(logits, temperature, top_k)
            tok = int(torch.multinomial(probs, 1, generator=gen))  # greedy: probs is one-hot on the argmax
            top_p, top_ix = model_probs.topk(min(n_candidates, model_probs.numel()))
            steps.append(
                GenerationStep(
                    position=ids.shape[1],
                    token_id=tok,
                    prob=float(probs[tok]),
                    top_ids=to_numpy(top_ix).astype(np.int64),
                    top_probs=to_numpy(top_p),
                    sampling_probs=to_numpy(probs[top_ix]),
                    attention=to_numpy(out.attention[0, :, :, -1, :]),
                )
            )
            ids = torch.cat([ids, torch.tensor([[tok]], device=device)], dim=1)
            if stop_at_eos and tok == c.eos_id:
                break
        final = to_numpy(lm.run(ids).attention[0])
    trace = GenerationTrace(
        prompt_ids=prompt,
        generated_ids=[s.token_id for s in steps],
        steps=steps,
        attention=final,
        seed=seed,
        temperature=temperature,
        top_k=top_k,
    )
    if itos is not None:
        for s in steps:
            s.token, s.top_tokens = itos[s.token_id], [itos[i] for i in s.top_ids.tolist()]
        trace.prompt_tokens = [itos[i] for i in prompt]
        trace.generated_tokens = [s.token for s in steps]
    return trace
