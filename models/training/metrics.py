"""Quality figures shared by the recipes and the evaluation: BLEU, chrF (corpus and sentence), AER, exact
match, perplexity, calibration; ROC AUC, a logistic fit and a Youden cut for the wrong-output notice."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import sacrebleu
import torch

from models.nn.transformer import DecoderOnlyLM


def bleu(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> float:
    """Corpus BLEU (0–100, sacrebleu) on space-joined tokens, tokenize="none"."""
    if not hypotheses:
        return float("nan")
    return sacrebleu.corpus_bleu(
        [" ".join(h) for h in hypotheses], [[" ".join(r) for r in references]], tokenize="none", force=True
    ).score


CHRF_ORDER, CHRF_BETA = 6, 2.0


def char_ngram_counts(tokens: Sequence[str], order: int = CHRF_ORDER) -> list[Counter]:
    """Character n-gram counts (n = 1 … ``order``) of a sentence with its whitespace removed."""
    text = "".join("".join(tokens).split())
    return [Counter(text[i : i + n] for i in range(len(text) - n + 1)) for n in range(1, order + 1)]


def chrf(
    hypotheses: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    order: int = CHRF_ORDER,
    beta: float = CHRF_BETA,
) -> float:
    """Corpus chrF (0–100; Popović 2015) as sacreBLEU computes it by default.

    For each n = 1 … 6, the hypothesis, reference and matched (clipped: Σ min) character n-gram
    counts are summed over the corpus, whitespace removed; P_n = matched / hypothesis n-grams,
    R_n = matched / reference n-grams. P and R are the means over the orders where both counts are
    non-zero, and chrF = (1 + β²) P R / (β² P + R) with β = 2 (recall weighs twice as much).
    """
    if not hypotheses:
        return float("nan")
    hyp_n, ref_n, match_n = [0] * order, [0] * order, [0] * order
    for hyp, ref in zip(hypotheses, references):
        for n, (h, r) in enumerate(zip(char_ngram_counts(hyp, order), char_ngram_counts(ref, order))):
            hyp_n[n] += sum(h.values())
            ref_n[n] += sum(r.values())
            match_n[n] += sum((h & r).values())
    orders = [n for n in range(order) if hyp_n[n] and ref_n[n]]
    if not orders:
        return 0.0
    precision = sum(match_n[n] / hyp_n[n] for n in orders) / len(orders)
    recall = sum(match_n[n] / ref_n[n] for n in orders) / len(orders)
    factor = beta**2
    return 100.0 * (1 + factor) * precision * recall / (factor * precision + recall) if precision + recall else 0.0


def sentence_chrf(
    hypothesis: Sequence[str], reference: Sequence[str], order: int = CHRF_ORDER, beta: float = CHRF_BETA
) -> float:
    """Sentence-level chrF (0–100): :func:`chrf` of one hypothesis against its reference, i.e.
    chrF = (1 + β²) P R / (β² P + R) with P, R the mean character n-gram precision and recall of that
    sentence alone (sacreBLEU's ``sentence_chrf``)."""
    return chrf([hypothesis], [reference], order, beta)


def roc_auc(scores: Sequence[float] | np.ndarray, positive: Sequence[bool] | np.ndarray) -> float:
    """Area under the ROC curve of ``scores`` for telling the positives (higher score = more likely
    positive): the Mann–Whitney statistic AUC = P(s⁺ > s⁻) + ½ P(s⁺ = s⁻) over all (positive,
    negative) pairs, with average ranks for ties: (Σ ranks⁺ − n⁺(n⁺ + 1)/2) / (n⁺ n⁻). NaN when
    one class is empty."""
    s = np.asarray(scores, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if not n_pos or not n_neg:
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_s = s[order]
    i = 0
    while i < len(s):  # average rank (1-based) over each run of tied scores
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def logistic_fit(
    x: np.ndarray, y: Sequence[bool] | np.ndarray, l2: float = 1.0, steps: int = 50
) -> tuple[np.ndarray, float]:
    """Logistic regression p(y = 1 | x) = σ(b + wᵀx) by Newton's method (IRLS) on the mean
    log-likelihood minus (l2 / 2n)‖w‖² (the intercept b is not penalised). Returns (w, b)."""
    data = np.asarray(x, dtype=np.float64)
    target = np.asarray(y, dtype=np.float64)
    n, d = data.shape
    design = np.hstack([np.ones((n, 1)), data])
    theta = np.zeros(d + 1)
    penalty = np.diag([0.0] + [l2] * d)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-design @ theta))
        gradient = design.T @ (target - p) - penalty @ theta
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(d + 1)
        delta = np.linalg.solve(hessian, gradient)
        theta += delta
        if np.abs(delta).max() < 1e-10:
            break
    return theta[1:], float(theta[0])


def youden_threshold(scores: Sequence[float] | np.ndarray, positive: Sequence[bool] | np.ndarray) -> float:
    """The cut t maximising Youden's J = TPR − FPR for the rule "score ≥ t ⇒ positive" (the first
    such t, scanning the distinct scores from high to low)."""
    s = np.asarray(scores, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    best, cut = -np.inf, float(s.max()) if len(s) else 0.0
    for t in np.unique(s)[::-1]:
        flagged = s >= t
        j = (flagged & pos).sum() / max(1, pos.sum()) - (flagged & ~pos).sum() / max(1, (~pos).sum())
        if j > best:
            best, cut = j, float(t)
    return cut


def exact_match(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> float:
    """Share of hypotheses equal to their reference, token for token."""
    return float(np.mean([list(h) == list(r) for h, r in zip(hypotheses, references)])) if hypotheses else float("nan")


def alignment_error_rate(predicted: Sequence[set[tuple[int, int]]], gold: Sequence[set[tuple[int, int]]]) -> float:
    """AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|) summed over sentences, with S = P = gold (Och & Ney 2003)."""
    hits = sum(len(a & g) for a, g in zip(predicted, gold))
    total = sum(len(a) + len(g) for a, g in zip(predicted, gold))
    return 1.0 - 2.0 * hits / total if total else float("nan")


@torch.inference_mode()
def perplexity(
    lm: DecoderOnlyLM, stream: Sequence[int], context: int, skip_id: int | None = None, max_tokens: int | None = None
) -> tuple[float, int]:
    """exp(mean −log p) over the stream cut into non-overlapping windows of ``context`` + 1
    ids (the last one shorter); targets equal to ``skip_id`` (the <s> that always follows </s>)
    are not counted. Returns (perplexity, tokens counted)."""
    ids = torch.as_tensor(list(stream if max_tokens is None else stream[: max_tokens + 1]), dtype=torch.long)
    total, count = 0.0, 0
    lm.eval()
    starts = list(range(0, max(0, len(ids) - 1), context))  # the last window may be shorter
    full = [s for s in starts if s + context + 1 <= len(ids)]
    groups = [full[i : i + 64] for i in range(0, len(full), 64)] + [[s] for s in starts if s not in set(full)]
    for group in groups:
        x = torch.stack([ids[s : s + context + 1] for s in group])
        logits = lm(x[:, :-1])
        target = x[:, 1:]
        nll = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]).float(), target.reshape(-1), reduction="none"
        )
        keep = target.reshape(-1) != (skip_id if skip_id is not None else -1)
        total += float(nll[keep].sum())
        count += int(keep.sum())
    return (math.exp(total / count) if count else float("nan")), count


ECE_BINS = 10


def reliability_bins(
    confidences: Sequence[float] | np.ndarray, correct: Sequence[bool] | np.ndarray, n_bins: int = ECE_BINS
) -> list[dict[str, float]]:
    """The reliability diagram's bins: confidences cut into ``n_bins`` equal-width bins of (0, 1]
    (bin b holds (b/n, (b+1)/n]; a confidence of 0 goes to the first), and for each its count, mean
    confidence and accuracy (NaN where empty)."""
    conf = np.asarray(confidences, dtype=np.float64)
    hit = np.asarray(correct, dtype=np.float64)
    index = np.clip(np.ceil(np.round(conf * n_bins, 9)).astype(int) - 1, 0, n_bins - 1)  # 0.3·10 is 3.0000000000000004
    out = []
    for b in range(n_bins):
        sel = index == b
        n = int(sel.sum())
        out.append(
            {
                "lower": b / n_bins,
                "upper": (b + 1) / n_bins,
                "count": n,
                "confidence": float(conf[sel].mean()) if n else float("nan"),
                "accuracy": float(hit[sel].mean()) if n else float("nan"),
            }
        )
    return out


def expected_calibration_error(
    confidences: Sequence[float] | np.ndarray, correct: Sequence[bool] | np.ndarray, n_bins: int = ECE_BINS
) -> float:
    """ECE = Σ_b (n_b / N) · |accuracy_b − confidence_b| over equal-width confidence bins (Guo et al. 2017):
    how far, on average over the predictions, the model's confidence is from how often it is right."""
    bins = reliability_bins(confidences, correct, n_bins)
    total = sum(b["count"] for b in bins)
    if not total:
        return float("nan")
    return float(sum(b["count"] / total * abs(b["accuracy"] - b["confidence"]) for b in bins if b["count"]))
