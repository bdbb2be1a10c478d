"""The XLNet recipe (``xlnet-small``): a permutation language model (Yang et al. 2019, §2.2–2.3) on the
World English Bible, and its evaluation.

Training reads windows of n tokens at random offsets of the token stream (tf-lm's
:func:`models.training.transformer.lm_windows`), draws a fresh random factorisation order for every
window, and predicts only the last ⌈n/K⌉ tokens of each order (partial prediction). Same data,
split, vocabulary cap and held-out chapters as ``tf-lm`` and ``xl-lm``.

Evaluation: held-out mean negative log-likelihood per predicted token (and its perplexity) over
non-overlapping windows, each under a seeded random order with the model's K, and under the
identity order (left to right, the same last ⌈n/K⌉ positions predicted: the last tokens of the
window from all the tokens before them).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import torch
from torch import Tensor

from corpora.lm_data import line_stream, lm_corpus, load_verses, split_verses
from models.checkpoints import WEIGHTS, checkpoint_path, load_xlnet, save_xlnet, shipped
from models.inference.xlnet import dependency_cases
from models.nn.xlnet import XLNet, XLNetConfig, target_mask
from models.text.vocab import SOS_ID, Vocab
from models.training.loop import Callback, Trained, TrainSettings, fit
from models.training.presets import Preset, model_config
from models.training.transformer import evaluate_each, lm_vocab, lm_windows

#: seed of the evaluation's random orders (the same orders for every run of the evaluation)
EVAL_SEED = 1234
#: held-out verses searched for a case where the sequential prediction differs from the independent one
CASE_SEARCH = 400


def random_orders(batch: int, n: int, gen: torch.Generator) -> Tensor:
    """(batch, n): an independent uniformly random permutation of 0 … n − 1 per row."""
    return torch.argsort(torch.rand(batch, n, generator=gen), dim=-1)


def permuted_windows(stream: Tensor, n: int, batch_size: int, seed: int) -> Iterator[tuple[Tensor, Tensor]]:
    """Endless (windows (B, n), orders (B, n)): windows of ``n`` tokens at seeded random offsets of
    ``stream`` (:func:`~models.training.transformer.lm_windows`), each with a fresh random
    factorisation order (a generator seeded ``seed`` + 1)."""
    gen = torch.Generator().manual_seed(seed + 1)
    for x in lm_windows(stream, n - 1, batch_size, seed):
        yield x, random_orders(x.shape[0], n, gen)


def permutation_loss(model: XLNet, x: Tensor, order: Tensor, k_split: int) -> tuple[Tensor, int]:
    """(mean −log p(x_{z_t} | x_{z_<t}) over the last ⌈n/K⌉ positions of each order, their number):
    the permutation-LM objective with partial prediction (§2.2–2.3)."""
    where = target_mask(order, k_split)
    return torch.nn.functional.cross_entropy(model(x, order, where), x[where]), int(where.sum())


def _nll(model: XLNet, x: Tensor, order: Tensor, k_split: int, skip_id: int | None) -> tuple[float, int]:
    """(Σ −log p over the targets of ``order`` in windows ``x``, number of targets); targets equal to
    ``skip_id`` are not counted."""
    where = target_mask(order, k_split) & (x != (-1 if skip_id is None else skip_id))
    nll = torch.nn.functional.cross_entropy(model(x, order, where).float(), x[where], reduction="sum")
    return float(nll), int(where.sum())


@torch.inference_mode()
def permutation_nll(
    model: XLNet,
    stream: Sequence[int],
    n: int,
    k_split: int,
    identity: bool = False,
    seed: int = EVAL_SEED,
    skip_id: int | None = SOS_ID,
    batch: int = 64,
) -> tuple[float, int]:
    """Mean −log p per predicted token over non-overlapping windows of ``n`` tokens of ``stream``,
    each under a random order (seeded) or the identity order, predicting the last ⌈n/K⌉ of the
    order. Targets equal to ``skip_id`` (the <s> that always follows </s>) are not counted.
    Returns (mean NLL, number of predicted tokens)."""
    model.eval()
    ids = torch.as_tensor(list(stream[: len(stream) // n * n]), dtype=torch.long).view(-1, n)
    gen = torch.Generator().manual_seed(seed)
    total, count = 0.0, 0
    for start in range(0, ids.shape[0], batch):
        x = ids[start : start + batch]
        order = torch.arange(n).expand_as(x) if identity else random_orders(x.shape[0], n, gen)
        s, c = _nll(model, x, order, k_split, skip_id)
        total, count = total + s, count + c
    return (total / count if count else float("nan")), count


def heldout_figures(model: XLNet, stream: Sequence[int]) -> dict:
    """{"window", "k_split", "tokens", "random_order": {"nll", "perplexity"}, "identity_order": {…}}."""
    c = model.config
    figures: dict = {"window": c.max_len, "k_split": c.k_split, "orders_seed": EVAL_SEED}
    for name, identity in (("random_order", False), ("identity_order", True)):
        nll, count = permutation_nll(model, stream, c.max_len, c.k_split, identity)
        figures[name] = {"nll": round(nll, 4), "perplexity": round(math.exp(nll), 2)}
        figures["tokens"] = count
    return figures


def train_preset(
    preset: Preset,
    data: Path | None,
    epochs: float | None,
    settings: TrainSettings,
    device: torch.device,
    callbacks: Sequence[Callback],
    stop: threading.Event | None,
) -> Trained:
    """Train ``xlnet-small`` on the WEB (or a user's text file): windows of n tokens, a fresh random
    order per window, partial prediction of the last ⌈n/K⌉ of each order."""
    train_lines, held_lines, source = lm_corpus(data)
    vocab = lm_vocab(train_lines, int(preset.data.get("vocab_cap", 6000)))
    cfg = model_config(preset, XLNetConfig, len(vocab))
    n = cfg.max_len
    stream = torch.as_tensor(line_stream(train_lines, vocab), dtype=torch.long)
    if len(stream) < n + 1:
        raise ValueError(f"the training text is too short: {len(stream)} tokens for windows of {n}")
    if epochs:
        settings = replace(settings, steps=max(1, round(epochs * math.ceil(len(stream) / (settings.batch_size * n)))))
    model = XLNet(cfg).to(device)
    batches = permuted_windows(stream, n, settings.batch_size, settings.seed)

    def loss_of_batch(_step: int) -> tuple[Tensor, int]:
        x, order = next(batches)
        return permutation_loss(model, x.to(device), order.to(device), cfg.k_split)

    stats = fit(model, loss_of_batch, settings, callbacks, stop)
    model.to("cpu")
    figures = heldout_figures(model, line_stream(held_lines, vocab))
    stats.update(
        heldout=figures,
        train_tokens=len(stream),
        data=source,
        vocab_cap=len(vocab),
        epochs=round(stats["steps"] * settings.batch_size * n / len(stream), 3),
        data_settings=dict(preset.data),
    )
    r, i = figures["random_order"], figures["identity_order"]
    return Trained(
        model,
        lambda folder, record: save_xlnet(folder, model, vocab.itos, record),
        settings,
        stats,
        f"held-out NLL per predicted token {r['nll']:.3f} (perplexity {r['perplexity']:.1f}) over random "
        f"orders, {i['nll']:.3f} ({i['perplexity']:.1f}) left to right, K = {cfg.k_split}",
    )


def evaluate_checkpoint(name: str) -> dict:
    """One shipped XLNet's held-out permutation-LM figures (:func:`heldout_figures`) and one held-out
    case where predicting the hidden words one after another changes a prediction
    (:func:`models.inference.xlnet.dependency_cases`)."""
    loaded = load_xlnet(name)
    held = [v.tokens for v in split_verses(load_verses())["heldout"]]
    row = {
        "name": name,
        "label": loaded.label,
        **heldout_figures(loaded.model, line_stream(held, Vocab(loaded.itos))),
        "train_seconds": loaded.training.get("seconds"),
        "steps": loaded.training.get("steps"),
        "epochs": loaded.training.get("epochs"),
        "size_mb": round((checkpoint_path(name) / WEIGHTS).stat().st_size / 1e6, 2),
    }
    cases = dependency_cases(loaded, held[:CASE_SEARCH])
    row["dependency_case"] = None
    if cases:
        case = cases[0]
        row["dependency_case"] = {
            "text": " ".join(case.tokens),
            "hidden": [p + 1 for p in case.hidden],
            "hidden_words": [case.tokens[p] for p in case.hidden],
            "independent_top": [t[0] for t in case.independent.top_tokens],
            "sequential_top": [t[0] for t in case.sequential.top_tokens],
            "independent_log_likelihood": round(case.independent.log_likelihood, 3),
            "sequential_log_likelihood": round(case.sequential.log_likelihood, 3),
        }
    return row


def evaluate_shipped() -> dict:
    """Every shipped XLNet checkpoint's figures (JSON-able)."""
    return evaluate_each(shipped("xlnet"), evaluate_checkpoint)


def format_results(results: dict) -> str:
    """The XLNet part of `python -m models.evaluate`'s table."""
    lines = [""]
    for m in results.get("models", []):
        lines.append(
            f"xlnet {m['label']}: held-out permutation LM, windows of n = {m['window']}, K = {m['k_split']} "
            f"(the last ⌈n/K⌉ of each order predicted), {m['tokens']} predicted tokens"
        )
        for name, what in (("random_order", "random orders (seeded)"), ("identity_order", "identity order")):
            lines.append(f"  {what:24} NLL per token {m[name]['nll']:.3f}  perplexity {m[name]['perplexity']:8.2f}")
        case = m.get("dependency_case")
        if case:
            lines.append(
                f"  hiding {' '.join(case['hidden_words'])!r} (positions {case['hidden']}) in "
                f"{case['text']!r}: independent top-1 {case['independent_top']}, sequential top-1 "
                f"{case['sequential_top']}"
            )
    if not results.get("models"):
        lines.append("no shipped xlnet checkpoint: python -m models.train --preset xlnet-small")
    lines.extend(f"error: {e}" for e in results.get("errors", []))
    return "\n".join(lines)
