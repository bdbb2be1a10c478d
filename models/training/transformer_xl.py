"""The Transformer-XL recipe (``xl-lm``): a word-level LM on the World English Bible with segment-level
recurrence (Dai et al. 2019, §3.2), and its evaluation with and without memory.

Training follows the paper's setting: the token stream is cut into B contiguous streams
(``batchify``); step t reads segment t of every stream, of L tokens, with the memory left by
segment t − 1 (stop-gradient), so the memory always holds the text just before the segment.
Same data, split, vocabulary cap and held-out chapters as ``tf-lm``, so the perplexities compare.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import torch
from torch import Tensor

from corpora.lm_data import line_stream, lm_corpus, load_verses, split_verses
from models.checkpoints import CheckpointError, load_transformer, load_txl, save_txl, shipped, shipped_transformers
from models.nn.transformer_xl import TransformerXL, TXLConfig
from models.text.vocab import SOS_ID, Vocab
from models.training.loop import Callback, LossOfBatch, Trained, TrainSettings, fit
from models.training.metrics import perplexity
from models.training.presets import Preset, model_config
from models.training.transformer import evaluate_each

#: memory lengths of the recorded evaluation (0 = each segment alone, a vanilla fixed-context model)
EVAL_MEMORIES = (0, 16, 32, 64, 128, 256)
#: context windows C of the vanilla decoder-only LM in the comparison (its longest is its max_len)
VANILLA_WINDOWS = (8, 16, 32, 64)


def batchify(stream: Sequence[int], batch: int) -> Tensor:
    """(B, n): the stream cut into ``batch`` contiguous rows (the tail that does not fit is dropped)."""
    n = len(stream) // batch
    return torch.as_tensor(list(stream[: n * batch]), dtype=torch.long).view(batch, n)


def recurrent_loss(
    model: TransformerXL, rows: Tensor, seg_len: int, device: torch.device, state: dict[str, list[Tensor] | None]
) -> LossOfBatch:
    """The loss of step t (§3.2): segment t mod S of every row of ``rows`` (S = (n − 1) // L segments),
    next-token cross-entropy, read after ``state["memory"]``, the memory the step before left
    (stop-gradient); the new memory goes back into ``state`` (so a stopped run can keep it). Each
    pass over the rows starts without memory. A function of the step when steps come in order."""
    n_segments = (rows.shape[1] - 1) // seg_len

    def loss_of_batch(step: int) -> tuple[Tensor, int]:
        start = (step % n_segments) * seg_len
        if start == 0:
            state["memory"] = None  # a new pass over the streams starts without memory
        x = rows[:, start : start + seg_len + 1].to(device)
        logits, state["memory"] = model(x[:, :-1], state["memory"])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
        return loss, x[:, 1:].numel()

    return loss_of_batch


@torch.inference_mode()
def segment_perplexity(
    model: TransformerXL, stream: Sequence[int], seg_len: int, mem_len: int, skip_id: int | None = SOS_ID
) -> tuple[float, int]:
    """exp(mean −log p) over one stream read in order in segments of ``seg_len`` tokens, each with
    the memory of the previous ``mem_len`` positions (0: every segment alone). Targets equal to
    ``skip_id`` (the <s> that always follows </s>) are not counted. Returns (perplexity, tokens)."""
    ids = torch.as_tensor(list(stream), dtype=torch.long).unsqueeze(0)
    model.eval()
    memory = None
    total, count = 0.0, 0
    for start in range(0, ids.shape[1] - 1, seg_len):
        x = ids[:, start : start + seg_len + 1]
        out = model.run(x[:, :-1], memory, mem_len=mem_len)
        memory = out.memory
        nll = torch.nn.functional.cross_entropy(out.logits[0].float(), x[0, 1:], reduction="none")
        keep = x[0, 1:] != (-1 if skip_id is None else skip_id)
        total += float(nll[keep].sum())
        count += int(keep.sum())
    return (math.exp(total / count) if count else float("nan")), count


def memory_evaluation(
    model: TransformerXL, stream: Sequence[int], seg_len: int, memories: Sequence[int] = EVAL_MEMORIES
) -> dict:
    """{"seg_len", "tokens", "perplexity_by_memory": {"M": held-out perplexity with memory M}}."""
    results = {m: segment_perplexity(model, stream, seg_len, m) for m in memories}
    return {
        "seg_len": seg_len,
        "tokens": next(iter(results.values()))[1],
        "perplexity_by_memory": {str(m): round(ppl, 2) for m, (ppl, _) in results.items()},
    }


def train_preset(
    preset: Preset,
    data: Path | None,
    epochs: float | None,
    settings: TrainSettings,
    device: torch.device,
    callbacks: Sequence[Callback],
    stop: threading.Event | None,
) -> Trained:
    """Train ``xl-lm`` on the WEB (or a user's text file) and evaluate it with memory 0 … 256."""
    train_lines, held_lines, source = lm_corpus(data)
    vocab = Vocab(Vocab.build(train_lines).itos[: int(preset.data.get("vocab_cap", 6000))])
    cfg = model_config(preset, TXLConfig, len(vocab))
    seg, mem = cfg.seg_len, cfg.mem_len
    rows = batchify(line_stream(train_lines, vocab), settings.batch_size)
    n_segments = (rows.shape[1] - 1) // seg
    if n_segments < 1:
        raise ValueError(f"the training text is too short for {settings.batch_size} streams of {seg + 1} tokens")
    if epochs:
        settings = replace(settings, steps=max(1, round(epochs * n_segments)))
    model = TransformerXL(cfg).to(device)
    stats = fit(model, recurrent_loss(model, rows, seg, device, {"memory": None}), settings, callbacks, stop)
    model.to("cpu")
    evaluation = memory_evaluation(model, line_stream(held_lines, vocab), seg, sorted({*EVAL_MEMORIES, mem}))
    with_mem, without = evaluation["perplexity_by_memory"][str(mem)], evaluation["perplexity_by_memory"]["0"]
    stats.update(
        heldout_perplexity=with_mem,
        heldout_perplexity_no_memory=without,
        memory_evaluation=evaluation,
        train_tokens=int(rows.numel()),
        data=source,
        vocab_cap=len(vocab),
        epochs=round(stats["steps"] / n_segments, 3),
        data_settings=dict(preset.data),
    )
    return Trained(
        model,
        lambda folder, record: save_txl(folder, model, vocab.itos, record),
        settings,
        stats,
        f"held-out perplexity {with_mem:.1f} with memory {mem}, {without:.1f} without (segments of {seg})",
    )


def vanilla_perplexity(itos: Sequence[str], held: Sequence[Sequence[str]]) -> dict | None:
    """The vanilla decoder-only LM beside Transformer-XL (Dai et al. 2019, §4.1): the shipped
    ``lm`` Transformer with the same vocabulary, held-out perplexity over non-overlapping windows
    of C tokens, for each C in :data:`VANILLA_WINDOWS` up to its context; None if none is shipped."""
    for name in shipped_transformers("decoder-only"):
        try:
            vanilla = load_transformer(name)
        except CheckpointError:
            continue
        if list(vanilla.tgt_itos) != list(itos):
            continue
        stream = line_stream(held, Vocab(vanilla.tgt_itos))
        windows = [c for c in VANILLA_WINDOWS if c <= vanilla.config.max_len]
        return {
            "name": name,
            "label": vanilla.label,
            "epochs": vanilla.training.get("epochs"),
            "perplexity_by_window": {
                str(c): round(perplexity(vanilla.language_model, stream, c, skip_id=SOS_ID)[0], 2) for c in windows
            },
        }
    return None


def evaluate_checkpoint(name: str) -> dict:
    """One shipped Transformer-XL's held-out perplexity at its segment length L for each memory
    length M (:func:`memory_evaluation`: memory must help), and the vanilla LM of the same
    vocabulary at fixed windows, on the same held-out chapters. The longest context a query sees
    is L + M for XL and C for the vanilla model: the x-axis on which the two compare."""
    loaded = load_txl(name)
    held = [v.tokens for v in split_verses(load_verses())["heldout"]]
    seg_len, trained_mem = loaded.config.seg_len, loaded.config.mem_len
    ev = memory_evaluation(
        loaded.model, line_stream(held, Vocab(loaded.itos)), seg_len, sorted({*EVAL_MEMORIES, trained_mem})
    )
    by_memory = ev["perplexity_by_memory"]
    return {
        "name": name,
        "label": loaded.label,
        "seg_len": seg_len,
        "mem_len": trained_mem,
        "n_tokens": ev["tokens"],
        "perplexity_by_memory": by_memory,
        "memory_gain": round(1 - by_memory[str(trained_mem)] / by_memory["0"], 4),
        "vanilla": vanilla_perplexity(loaded.itos, held),
        "train_seconds": loaded.training.get("seconds"),
        "steps": loaded.training.get("steps"),
        "epochs": loaded.training.get("epochs"),
    }


def evaluate_shipped() -> dict:
    """Every shipped Transformer-XL checkpoint's figures (JSON-able)."""
    return evaluate_each(shipped("transformer-xl"), evaluate_checkpoint)


def format_results(results: dict) -> str:
    """The Transformer-XL part of `python -m models.evaluate`'s table: perplexity against the longest
    context a query sees (L + M for XL with memory M, C for the vanilla model's windows)."""
    lines = [""]
    for m in results.get("models", []):
        lines.append(
            f"transformer-xl {m['label']}: held-out perplexity, segments of L = {m['seg_len']}, {m['n_tokens']} tokens"
        )
        lines += [
            f"  memory {mem:>4} (context ≤ {m['seg_len'] + int(mem):>4}): {ppl:8.2f}"
            for mem, ppl in m["perplexity_by_memory"].items()
        ]
        lines.append(f"  memory {m['mem_len']} vs 0: {m['memory_gain']:.1%} lower")
        if m["vanilla"]:
            v = m["vanilla"]
            lines.append(f"  vanilla {v['label']} (same vocabulary and text), windows of C tokens:")
            lines += [f"  C = {c:>4}: {ppl:8.2f}" for c, ppl in v["perplexity_by_window"].items()]
    if not results.get("models"):
        lines.append("no shipped transformer-xl checkpoint: python -m models.train --preset xl-lm")
    lines.extend(f"error: {e}" for e in results.get("errors", []))
    return "\n".join(lines)
