"""Quality figures shared by the recipes and the evaluation: BLEU, AER, exact match, perplexity."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import sacrebleu
import torch

from models.nn.transformer import DecoderOnlyLM


def bleu(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> float:
    """Corpus BLEU (0–100, sacrebleu) on space-joined tokens, tokenize="none"."""
    if not hypotheses:
        return float("nan")
    return sacrebleu.corpus_bleu([" ".join(h) for h in hypotheses], [[" ".join(r) for r in references]],
                                 tokenize="none", force=True).score


def exact_match(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> float:
    """Share of hypotheses equal to their reference, token for token."""
    return float(np.mean([list(h) == list(r) for h, r in zip(hypotheses, references)])) if hypotheses else float("nan")


def alignment_error_rate(predicted: Sequence[set[tuple[int, int]]], gold: Sequence[set[tuple[int, int]]]) -> float:
    """AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|) summed over sentences, with S = P = gold (Och & Ney 2003)."""
    hits = sum(len(a & g) for a, g in zip(predicted, gold))
    total = sum(len(a) + len(g) for a, g in zip(predicted, gold))
    return 1.0 - 2.0 * hits / total if total else float("nan")


@torch.inference_mode()
def perplexity(lm: DecoderOnlyLM, stream: Sequence[int], context: int, skip_id: int | None = None,
               max_tokens: int | None = None) -> tuple[float, int]:
    """exp(mean −log p) over the stream cut into non-overlapping windows of ``context`` + 1
    ids (the last one shorter); targets equal to ``skip_id`` (the <s> that always follows </s>)
    are not counted. Returns (perplexity, tokens counted)."""
    ids = torch.as_tensor(list(stream if max_tokens is None else stream[: max_tokens + 1]), dtype=torch.long)
    total, count = 0.0, 0
    lm.eval()
    starts = list(range(0, max(0, len(ids) - 1), context))  # the last window may be shorter
    full = [s for s in starts if s + context + 1 <= len(ids)]
    groups = [full[i: i + 64] for i in range(0, len(full), 64)] + [[s] for s in starts if s not in set(full)]
    for group in groups:
        x = torch.stack([ids[s: s + context + 1] for s in group])
        logits = lm(x[:, :-1])
        target = x[:, 1:]
        nll = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), target.reshape(-1),
                                                reduction="none")
        keep = target.reshape(-1) != (skip_id if skip_id is not None else -1)
        total += float(nll[keep].sum())
        count += int(keep.sum())
    return (math.exp(total / count) if count else float("nan")), count
