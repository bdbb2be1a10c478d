"""The RNN seq2seq recipe: data, batches, loss, training through :func:`~models.training.loop.fit`,
and the evaluation of the shipped checkpoints.

Teacher-forced cross-entropy (optionally scheduled sampling), length-bucketed padded batches
with masks. Evaluation: BLEU, BLEU by source length and AER on the embedded corpus's test split
(word combinations never seen in training). AER compares the argmax of each model's attention,
with the reference translation forced, against the gold word alignments (an argmax on </s> is
no link). Models trained on real sentence pairs (:mod:`corpora.real_pairs`: Bible verses, HSK)
have no gold alignment: they get test BLEU and chrF on their corpus's fixed test split, beside
a copy baseline (the output is the source).
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable, Iterator, Sequence, Sized
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from corpora.batching import bucketed_batches
from corpora.bible import CorpusError
from corpora.en_fr import make_splits
from corpora.real_pairs import LANGUAGES, describe, real_splits
from corpora.tatoeba import load_tatoeba
from corpora.text import detokenize
from models.checkpoints import CheckpointError, LoadedSeq2Seq, load_seq2seq, read_config, save_seq2seq, shipped
from models.inference.common import pad_ids
from models.inference.notices import (
    MODEL_SIGNALS,
    SIGNALS,
    CorpusProfile,
    bad_output_chance,
    corpus_profile,
    mean_log_prob,
    output_signals,
)
from models.inference.seq2seq import greedy_batch
from models.inference.translate import source_tokens
from models.nn.rnn_seq2seq import Seq2Seq, Seq2SeqConfig
from models.text.vocab import EOS_ID, PAD_ID, SOS_ID, Vocab, encode_source
from models.training.loop import Callback, LossOfBatch, Trained, TrainSettings, batch_at_step, fit
from models.training.metrics import (
    alignment_error_rate,
    bleu,
    chrf,
    exact_match,
    logistic_fit,
    roc_auc,
    sentence_chrf,
    youden_threshold,
)
from models.training.presets import Preset, model_config

TokenPair = tuple[Sequence[str], Sequence[str]]
LENGTH_BUCKETS = ((3, 5), (6, 10), (11, 15), (16, 20), (21, 25), (26, 60))
BATCH = 128


@dataclass
class EncodedPair:
    src: list[int]  # x_1 … x_n </s>
    tgt: list[int]  # y_1 … y_m </s>


def build_vocabs(pairs: Sequence[TokenPair], min_freq: int = 1) -> tuple[Vocab, Vocab]:
    """Source and target vocabularies of the words seen at least ``min_freq`` times."""
    return Vocab.build((p[0] for p in pairs), min_freq), Vocab.build((p[1] for p in pairs), min_freq)


def encode_pairs(
    pairs: Sequence[TokenPair], src_vocab: Vocab, tgt_vocab: Vocab, cfg: Seq2SeqConfig
) -> list[EncodedPair]:
    """Token pairs → id pairs with </s>, cut to the model's length limits."""
    return [
        EncodedPair(
            encode_source(src_vocab.stoi, s, cfg.max_src_len - 1), encode_source(tgt_vocab.stoi, t, cfg.max_tgt_len - 1)
        )
        for s, t in pairs
    ]


@dataclass
class Batch:
    src: Tensor  # (B, S) padded
    lengths: Tensor  # (B,)
    tgt_in: Tensor  # (B, T) <s> y_1 … y_{T-1}
    tgt_out: Tensor  # (B, T) y_1 … </s>, padded with PAD
    n_tokens: int  # real target tokens


def collate(items: Sequence[EncodedPair], device: torch.device) -> Batch:
    """Pad a list of pairs into one batch (PAD = 0)."""
    src = pad_ids([p.src for p in items], PAD_ID)
    tgt_out = pad_ids([p.tgt for p in items], PAD_ID)
    tgt_in = pad_ids([[SOS_ID] + p.tgt[:-1] for p in items], PAD_ID)
    lengths = torch.tensor([len(p.src) for p in items])
    return Batch(src.to(device), lengths, tgt_in.to(device), tgt_out.to(device), sum(len(p.tgt) for p in items))


def pair_batches(data: Sequence[EncodedPair], batch_size: int, rng: random.Random) -> Iterator[list[EncodedPair]]:
    """Endless batches of pairs of similar source length (:func:`corpora.batching.bucketed_batches`)."""
    for chunk in bucketed_batches([len(p.src) for p in data], batch_size, rng):
        yield [data[i] for i in chunk]


def rnn_loss(
    model: Seq2Seq,
    data: Sequence[EncodedPair],
    batch_size: int,
    seed: int,
    teacher_forcing: float,
    device: torch.device,
) -> LossOfBatch:
    """The RNN encoder–decoder recipe, for the command line and the studio alike: step t's batch is item t
    of seeded length-bucketed batches (:func:`pair_batches`), decoded with teacher forcing at rate
    ``teacher_forcing`` (1.0: always; below: scheduled sampling), mean cross-entropy over real tokens."""
    batch_at = batch_at_step(pair_batches(data, batch_size, random.Random(seed)))

    def loss_of_batch(step: int) -> tuple[Tensor, int]:
        batch = collate(batch_at(step), device)
        logits, _ = model(batch.src, batch.lengths, batch.tgt_in, teacher_forcing)
        return sequence_loss(logits, batch.tgt_out), batch.n_tokens

    return loss_of_batch


def sequence_loss(logits: Tensor, target: Tensor) -> Tensor:
    """Mean cross-entropy over real (non-PAD) target tokens."""
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), ignore_index=PAD_ID)


def steps_for_epochs(n_pairs: int, batch_size: int, epochs: float) -> int:
    return max(1, round(epochs * math.ceil(n_pairs / batch_size)))


@dataclass
class TrainResult:
    model: Seq2Seq
    src_vocab: Vocab
    tgt_vocab: Vocab
    stats: dict


def train_seq2seq(
    cfg: Seq2SeqConfig,
    settings: TrainSettings,
    pairs: Sequence[TokenPair],
    device: torch.device,
    callbacks: Sequence[Callback] = (),
    stop: threading.Event | None = None,
    min_freq: int = 1,
) -> TrainResult:
    """Train a fresh model on ``pairs`` for ``settings.steps`` steps; return it with its vocabularies
    (words seen fewer than ``min_freq`` times read as <unk>)."""
    torch.manual_seed(settings.seed)
    src_vocab, tgt_vocab = build_vocabs(pairs, min_freq)
    cfg = replace(cfg, src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab))
    data = encode_pairs(pairs, src_vocab, tgt_vocab, cfg)
    model = Seq2Seq(cfg).to(device)
    loss_of_batch = rnn_loss(model, data, settings.batch_size, settings.seed, settings.teacher_forcing, device)
    stats = fit(model, loss_of_batch, settings, callbacks, stop)
    stats["n_train"] = len(pairs)
    return TrainResult(model, src_vocab, tgt_vocab, stats)


def training_pairs(preset: Preset, data_file: Path | None) -> tuple[Sequence[TokenPair], Sequence[TokenPair], str]:
    """(train, valid, description): the embedded corpus, a real corpus's fixed splits
    (``preset.data["corpus"]``: bible | hsk), or a user's Tatoeba-format file split 95/5."""
    corpus = preset.data.get("corpus")
    if data_file is None and corpus:
        splits = real_splits(corpus)
        return splits["train"][: preset.data.get("n_train")], splits["valid"], describe(corpus)
    if data_file is None:
        grammar = make_splits(seed=preset.train.seed)
        train = [(p.src, p.tgt) for p in grammar["train"][: preset.data.get("n_train", 40000)]]
        return train, [(p.src, p.tgt) for p in grammar["valid"]], "embedded English→French generator"
    pairs = [(p.src, p.tgt) for p in load_tatoeba(data_file)]
    random.Random(preset.train.seed).shuffle(pairs)
    n_valid = max(1, len(pairs) // 20)
    return pairs[n_valid:], pairs[:n_valid], f"user file {data_file.name}"


def train_preset(
    preset: Preset,
    data: Path | None,
    epochs: float | None,
    settings: TrainSettings,
    device: torch.device,
    callbacks: Sequence[Callback],
    stop: threading.Event | None,
) -> Trained:
    """Train an RNN seq2seq preset on the embedded corpus (or a Tatoeba-format file) and score it
    on the validation split."""
    train, valid, source = training_pairs(preset, data)
    if epochs:
        settings = replace(settings, steps=steps_for_epochs(len(train), settings.batch_size, epochs))
    cfg = model_config(preset, Seq2SeqConfig, 0)  # the vocabulary sizes are set by train_seq2seq
    result = train_seq2seq(cfg, settings, train, device, callbacks, stop, preset.data.get("min_freq", 1))
    result.model.to("cpu")
    valid_bleu = corpus_bleu_of(result.model, result.src_vocab, result.tgt_vocab, valid[:500])
    corpus = preset.data.get("corpus") if data is None else None
    src_lang, tgt_lang = LANGUAGES.get(corpus, ("en", "fr")) if corpus else ("en", "fr")  # loaders tokenise by src_lang
    stats = dict(
        result.stats,
        data=source,
        valid_bleu=round(valid_bleu, 2),
        src_lang=src_lang,
        tgt_lang=tgt_lang,
        **({"corpus": corpus} if corpus else {}),
    )

    def save(folder: Path, record: dict) -> Path:
        return save_seq2seq(folder, result.model, result.src_vocab, result.tgt_vocab, record)

    return Trained(result.model, save, settings, stats, f"valid BLEU {valid_bleu:.1f}")


# --------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------


def greedy_outputs(
    model: Seq2Seq, src_vocab: Vocab, sources: Sequence[Sequence[str]]
) -> tuple[list[list[int]], list[list[int]]]:
    """(source ids, greedy output ids with </s> when finished) of many sentences, in batches;
    each sentence decoded exactly as the page decodes it alone."""
    limit = model.cfg.max_src_len - 1
    encoded = [encode_source(src_vocab.stoi, s, limit) for s in sources]
    out: list[list[int]] = []
    for i in range(0, len(encoded), BATCH):
        out += [ids for ids, _ in greedy_batch(model, encoded[i : i + BATCH])]
    return encoded, out


def translate_all(
    model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab, sources: Sequence[Sequence[str]]
) -> list[list[str]]:
    """Greedy translations (tokens, without </s>) of many sentences, in batches."""
    return [tgt_vocab.decode([t for t in ids if t != EOS_ID]) for ids in greedy_outputs(model, src_vocab, sources)[1]]


@torch.no_grad()
def output_token_log_probs(
    model: Seq2Seq, sources: Sequence[list[int]], outputs: Sequence[list[int]]
) -> list[list[float]]:
    """log p(y_t | y_<t, x) of each token of given outputs, teacher-forced (the numbers greedy decoding
    computed)."""
    model.eval()
    rows: list[list[float]] = []
    for i in range(0, len(sources), BATCH):
        items = [EncodedPair(s, o) for s, o in zip(sources[i : i + BATCH], outputs[i : i + BATCH])]
        batch = collate(items, torch.device("cpu"))
        logits, _ = model(batch.src, batch.lengths, batch.tgt_in)
        picked = torch.log_softmax(logits.float(), -1).gather(-1, batch.tgt_out.unsqueeze(-1)).squeeze(-1)
        rows += [row[: len(item.tgt)] for row, item in zip(picked.tolist(), items)]
    return rows


def output_log_probs(model: Seq2Seq, sources: Sequence[list[int]], outputs: Sequence[list[int]]) -> list[float]:
    """Σ log p(y_t | y_<t, x) of given outputs, teacher-forced (the numbers greedy decoding computed)."""
    return [sum(row) for row in output_token_log_probs(model, sources, outputs)]


def corpus_bleu_of(model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab, pairs: Sequence[TokenPair]) -> float:
    return bleu(translate_all(model, src_vocab, tgt_vocab, [p[0] for p in pairs]), [p[1] for p in pairs])


@torch.no_grad()
def forced_alignments(model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab, pairs) -> list[set[tuple[int, int]]]:
    """Argmax-attention links (src_i, tgt_j) with the reference target forced (teacher forcing)."""
    model.eval()
    links = []
    for i in range(0, len(pairs), BATCH):
        items = encode_pairs([(p.src, p.tgt) for p in pairs[i : i + BATCH]], src_vocab, tgt_vocab, model.cfg)
        batch = collate(items, torch.device("cpu"))
        _, alphas = model(batch.src, batch.lengths, batch.tgt_in)
        argmax = alphas.argmax(-1).numpy()
        for item, row in zip(items, argmax):
            n_src = len(item.src) - 1  # a link to </s> is no link
            links.append({(int(s), j) for j, s in enumerate(row[: len(item.tgt) - 1]) if s < n_src})
    return links


def evaluate_checkpoint(name: str, test_pairs) -> dict:
    """BLEU, BLEU by source length and (for attention models) AER of one checkpoint."""
    loaded = load_seq2seq(name)
    sources, outputs = greedy_outputs(loaded.model, loaded.src_vocab, [p.src for p in test_pairs])
    hyps = [loaded.tgt_vocab.decode([t for t in ids if t != EOS_ID]) for ids in outputs]
    refs = [list(p.tgt) for p in test_pairs]
    by_length = []
    for lo, hi in LENGTH_BUCKETS:
        idx = [i for i, p in enumerate(test_pairs) if lo <= len(p.src) <= hi]
        by_length.append(
            {
                "min_len": lo,
                "max_len": hi,
                "n": len(idx),
                "bleu": round(bleu([hyps[i] for i in idx], [refs[i] for i in idx]), 2) if idx else None,
            }
        )
    aer = None
    if loaded.model.cfg.attention not in ("none", "uniform"):  # frozen uniform weights align nothing
        predicted = forced_alignments(loaded.model, loaded.src_vocab, loaded.tgt_vocab, test_pairs)
        aer = round(alignment_error_rate(predicted, [set(p.alignment) for p in test_pairs]), 4)
    return {
        "name": name,
        "label": loaded.training.get("label", name),
        "kind": loaded.attention_variant,  # the evaluation file's key
        "bleu": round(bleu(hyps, refs), 2),
        "aer": aer,
        "n_test": len(test_pairs),
        "exact_match": round(exact_match(hyps, refs), 4),
        "bleu_by_length": by_length,
        "confidence": confidence_summary(output_log_probs(loaded.model, sources, outputs), outputs),
        "train_seconds": loaded.training.get("seconds"),
    }


def confidence_summary(log_probs: Sequence[float], outputs: Sequence[Sized]) -> dict[str, float]:
    """The test set's mean log-probability per output token: median, 5th and 1st percentiles
    (what a translation's confidence notice compares with)."""
    values = np.array([mean_log_prob(lp, len(o)) for lp, o in zip(log_probs, outputs)])
    return {
        "median": round(float(np.median(values)), 4),
        "p05": round(float(np.percentile(values, 5)), 4),
        "p01": round(float(np.percentile(values, 1)), 4),
        "n": len(values),
    }


#: What one model makes of many token sources: (hypotheses as tokens, log p of each output token with the
#: end token, which source words it read as <unk>, up to its length limit), decoded as the page decodes.
Decoded = tuple[list[list[str]], list[list[float]], list[list[bool]]]
#: An output is bad when its sentence-level chrF against the reference is below this (issue 29).
BAD_CHRF = 30.0


def _scores(decoded: Decoded, refs: Sequence[Sequence[str]]) -> dict[str, Any]:
    hyps, token_lps, _ = decoded
    return {
        "bleu": round(bleu(hyps, refs), 2),
        "chrf": round(chrf(hyps, refs), 2),
        "exact_match": round(exact_match(hyps, refs), 4),
        "confidence": confidence_summary([sum(lp) for lp in token_lps], token_lps),
    }


def _signals(
    decoded: Decoded, sources: Sequence[Sequence[str]], profile: CorpusProfile | None
) -> list[dict[str, float]]:
    return [output_signals(src, unknown, lps, profile) for src, (_, lps, unknown) in zip(sources, zip(*decoded))]


def _bad(decoded: Decoded, refs: Sequence[Sequence[str]]) -> np.ndarray:
    return np.array([sentence_chrf(h, r) < BAD_CHRF for h, r in zip(decoded[0], refs)])


def fit_notice(
    valid: Decoded,
    valid_pairs: Sequence[TokenPair],
    test: Decoded,
    test_pairs: Sequence[TokenPair],
    corpus: str | None = None,
) -> dict[str, Any] | None:
    """The wrong-output notice of one model: a logistic regression of "sentence chrF < 30" on the
    standardised signals (:data:`models.inference.notices.SIGNALS`; without the real ``corpus`` whose
    training sources the model read, only its own :data:`~models.inference.notices.MODEL_SIGNALS`),
    fitted on the validation outputs,
    with the cut of Youden's J on validation; then its ROC AUC on the test outputs, beside each signal
    alone (AUC of −mean/−min log-probability and of each other signal), and what the cut does there;
    "long_src" is the 95th percentile of the validation sources' length (the notice's "long sentence").
    None when the validation outputs are all bad or all good (nothing to fit); an AUC with one class empty
    on the test split is None."""
    profile = corpus_profile(corpus) if corpus else None
    names = SIGNALS if profile is not None else MODEL_SIGNALS
    v_sig = _signals(valid, [p[0] for p in valid_pairs], profile)
    t_sig = _signals(test, [p[0] for p in test_pairs], profile)
    v_bad, t_bad = _bad(valid, [p[1] for p in valid_pairs]), _bad(test, [p[1] for p in test_pairs])
    if v_bad.all() or not v_bad.any():
        return None
    v_x = np.array([[row[k] for k in names] for row in v_sig])
    mean, scale = v_x.mean(0), v_x.std(0)
    scale[scale == 0] = 1.0
    coef, intercept = logistic_fit((v_x - mean) / scale, v_bad)
    fit: dict[str, Any] = {
        "signals": list(names),
        **({"corpus": corpus} if profile is not None else {}),
        "mean": mean.round(6).tolist(),
        "scale": scale.round(6).tolist(),
        "coef": coef.round(6).tolist(),
        "intercept": round(intercept, 6),
        "bad_chrf": BAD_CHRF,
    }
    v_p = np.array([bad_output_chance(fit, row) for row in v_sig])
    t_p = np.array([bad_output_chance(fit, row) for row in t_sig])
    threshold = youden_threshold(v_p, v_bad)
    flagged = t_p >= threshold
    direction = {"mean_log_prob": -1.0, "min_log_prob": -1.0, "nearest_overlap": -1.0}  # others: higher, worse

    def area(scores: Sequence[float] | np.ndarray, bad: np.ndarray) -> float | None:
        value = roc_auc(scores, bad)
        return None if math.isnan(value) else round(value, 4)

    auc = area(t_p, t_bad)
    return {
        **fit,
        "threshold": round(threshold, 6),
        "long_src": int(np.percentile([row["src_len"] for row in v_sig], 95)),
        "auc_test": auc,
        "auc_valid": area(v_p, v_bad),
        "meets_bar": auc is not None and auc >= 0.75,
        "auc_test_by_signal": {k: area([direction.get(k, 1.0) * row[k] for row in t_sig], t_bad) for k in names},
        "n_valid": len(v_bad),
        "n_test": len(t_bad),
        "bad_share_test": round(float(t_bad.mean()), 4),
        "flagged_share_test": round(float(flagged.mean()), 4),
        "bad_share_flagged": round(float(t_bad[flagged].mean()), 4) if flagged.any() else None,
        "bad_share_passed": round(float(t_bad[~flagged].mean()), 4) if (~flagged).any() else None,
    }


def real_figures(
    decode: Callable[[Sequence[Sequence[str]]], Decoded],
    read: Callable[[str], list[str]],
    test_pairs: Sequence[TokenPair],
    valid_pairs: Sequence[TokenPair] | None = None,
    corpus: str | None = None,
) -> dict[str, Any]:
    """Test BLEU, chrF and confidence of one model on the corpus's own tokens; under "page" the same
    through the page's reading of the typed sentence (``read`` of the detokenized source: for HSK the
    page re-segments the Chinese and splits unknown words into characters) when that reading differs;
    under "notice" (given ``valid_pairs``) the wrong-output notice fitted on the page's reading
    (:func:`fit_notice`; ``corpus``: the real corpus the model was trained on)."""

    def page(pairs: Sequence[TokenPair]) -> list[TokenPair]:
        return [(read(detokenize(list(src))), tgt) for src, tgt in pairs]

    sources, refs = [list(p[0]) for p in test_pairs], [list(p[1]) for p in test_pairs]
    decoded = decode(sources)
    row = _scores(decoded, refs)
    page_test, page_decoded = page(test_pairs), decoded
    if [list(src) for src, _ in page_test] != sources:
        page_decoded = decode([src for src, _ in page_test])
        row["page"] = {**_scores(page_decoded, refs), "reading": "the page's input pipeline on the typed sentence"}
    if valid_pairs:
        page_valid = page(valid_pairs)
        notice = fit_notice(decode([src for src, _ in page_valid]), page_valid, page_decoded, page_test, corpus)
        if notice is not None:
            row["notice"] = notice
    return row


def decoder_of(loaded: LoadedSeq2Seq) -> Callable[[Sequence[Sequence[str]]], Decoded]:
    """:data:`Decoded` of an RNN seq2seq checkpoint: greedy, as the page decodes."""

    def decode(sources: Sequence[Sequence[str]]) -> Decoded:
        encoded, outputs = greedy_outputs(loaded.model, loaded.src_vocab, sources)
        hyps = [loaded.tgt_vocab.decode([t for t in ids if t != EOS_ID]) for ids in outputs]
        limit = loaded.model.cfg.max_src_len - 1
        unknown = [[t not in loaded.src_vocab for t in list(src)[:limit]] for src in sources]
        return hyps, output_token_log_probs(loaded.model, encoded, outputs), unknown

    return decode


def evaluate_real_model(
    name: str | Path,
    test_pairs: Sequence[TokenPair],
    valid_pairs: Sequence[TokenPair] | None = None,
    corpus: str | None = None,
) -> dict:
    """Test BLEU and chrF of one checkpoint trained on real pairs (no gold alignment, so no AER),
    with its confidence summary, on the corpus's own tokens and on the page's reading, and its
    wrong-output notice (:func:`real_figures`)."""
    loaded = load_seq2seq(name)
    figures = real_figures(
        decoder_of(loaded), lambda text: source_tokens(text, loaded), test_pairs, valid_pairs, corpus
    )
    return {
        "name": loaded.name,
        "label": loaded.training.get("label", loaded.name),
        "attention": loaded.model.cfg.attention,
        **figures,
        "n_test": len(test_pairs),
        "train_seconds": loaded.training.get("seconds"),
    }


def evaluate_real(
    corpus: str,
    names: Sequence[str | Path],
    test_pairs: Sequence[TokenPair],
    valid_pairs: Sequence[TokenPair] | None = None,
) -> dict:
    """The models trained on one real corpus and the copy baseline (hypothesis = the source
    tokens), all on the same test pairs; with ``valid_pairs``, each model's wrong-output notice."""
    sources, refs = [list(p[0]) for p in test_pairs], [list(p[1]) for p in test_pairs]
    src_lang, tgt_lang = LANGUAGES[corpus]
    return {
        "corpus": corpus,
        "data": describe(corpus),
        "src_lang": src_lang,
        "tgt_lang": tgt_lang,
        "n_test": len(test_pairs),
        "models": [evaluate_real_model(name, test_pairs, valid_pairs, corpus) for name in names],
        "copy": {"bleu": round(bleu(sources, refs), 2), "chrf": round(chrf(sources, refs), 2)},
    }


def shipped_by_corpus(family: str = "seq2seq") -> dict[str | None, list[str]]:
    """Shipped checkpoints of a family by the real corpus they were trained on (None: the grammar, or none)."""
    groups: dict[str | None, list[str]] = {}
    for name in shipped(family):
        try:
            corpus = read_config(name).get("training", {}).get("corpus")
        except CheckpointError:
            corpus = None  # evaluated with the grammar models, where loading it reports the error
        groups.setdefault(corpus, []).append(name)
    return groups


def evaluate_shipped() -> dict[str, Any]:
    """Every shipped seq2seq checkpoint on its test split: the grammar models on the embedded
    corpus's (BLEU, AER), the real-data models on their corpus's fixed one (BLEU, chrF, beside the
    copy baseline) under "real"."""
    test_pairs = make_splits()["test"]
    groups = shipped_by_corpus()
    models, errors, real = [], [], {}
    for name in groups.pop(None, []):
        try:
            models.append(evaluate_checkpoint(name, test_pairs))
        except CheckpointError as exc:
            errors.append(str(exc))
    for corpus, names in sorted((c, n) for c, n in groups.items() if c is not None):
        try:
            splits = real_splits(corpus)
            real[corpus] = evaluate_real(corpus, names, splits["test"], splits["valid"])
        except (CheckpointError, CorpusError) as exc:
            errors.append(str(exc))
    return {
        "command": "python -m models.evaluate",
        "test_set": "embedded corpus, test split",
        "models": models,
        "real": real,
        "errors": errors,
    }


def format_results(results: dict) -> str:
    """The seq2seq part of `python -m models.evaluate`'s table."""
    lines = [f"{'model':24} {'BLEU':>6} {'AER':>6} {'exact':>6}  BLEU by source length"]
    for m in results["models"]:
        lengths = "  ".join(f"{b['min_len']}-{b['max_len']}:{b['bleu']}" for b in m["bleu_by_length"])
        aer = "—" if m["aer"] is None else f"{m['aer']:.3f}"
        lines.append(f"{m['label']:24} {m['bleu']:6.2f} {aer:>6} {m['exact_match']:6.3f}  {lengths}")
    for part in results.get("real", {}).values():
        lines.append(f"\n{part['data']} ({part['src_lang']}→{part['tgt_lang']}), test split, n_test = {part['n_test']}")
        lines.append(
            f"{'model':36} {'BLEU':>6} {'chrF':>6} {'page BLEU':>9} {'page chrF':>9} {'notice AUC (chrF < 30)':>22}"
        )
        for m in part["models"]:
            page, notice = m.get("page") or {}, m.get("notice") or {}
            page_bleu, page_chrf = (f"{page['bleu']:.2f}", f"{page['chrf']:.2f}") if page else ("=", "=")
            auc = (
                f"{notice['auc_test']:.3f} {'meets' if notice['meets_bar'] else 'below'} 0.75"
                if notice.get("auc_test") is not None
                else "—"
            )
            lines.append(f"{m['label']:36} {m['bleu']:6.2f} {m['chrf']:6.2f} {page_bleu:>9} {page_chrf:>9} {auc:>22}")
        lines.append(f"{'copy baseline (output = source)':36} {part['copy']['bleu']:6.2f} {part['copy']['chrf']:6.2f}")
    if any(m.get("page") for part in results.get("real", {}).values() for m in part["models"]):
        lines.append(
            "page BLEU/chrF: each test source typed as text and read through the page's own input pipeline "
            "(HSK: re-segmented, unknown words split into characters); = where that reading is the corpus's"
        )
    lines += [f"error: {err}" for err in results["errors"]]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# Teacher forcing and exposure bias
# --------------------------------------------------------------------------------------

#: The two small RNNs that differ only in their teacher-forcing ratio (presets s2s-forcing-1.0, -0.5).
FORCING_PAIR = ("s2s-forcing-1.0", "s2s-forcing-0.5")


@dataclass
class ExposureTrace:
    """One sentence decoded twice by the same model, step by step (greedy):

    * ``forced``: at step t the decoder reads the *gold* previous word y_{t-1} (teacher forcing, as in
      training at ratio 1.0); ``forced_tokens[t]`` is its argmax there;
    * ``free``: it reads its *own* previous output (as at test time); ``free_tokens`` is its translation.

    ``*_attention`` (steps, source tokens) are the attention weights of each (None without attention),
    ``*_prob`` the probability of the word it chose; ``parted`` is the first step where the free run's
    output differs from the gold word (its prefix stops being the gold prefix), None if it never does.
    ``src_ids`` are the source as the encoder read it (cut to the model's limit, then </s>), ``gold_ids``
    the reference and its end token (what the forced run reads), ``free_ids`` the free run's outputs.
    """

    source: list[str]
    gold: list[str]
    forced_tokens: list[str]
    forced_prob: list[float]
    forced_attention: np.ndarray | None
    free_tokens: list[str]
    free_prob: list[float]
    free_attention: np.ndarray | None
    parted: int | None
    src_ids: list[int] = field(default_factory=list)
    gold_ids: list[int] = field(default_factory=list)
    free_ids: list[int] = field(default_factory=list)

    @property
    def keys(self) -> list[str]:
        """The source words the attention's columns stand for: the source as read (cut to the model's
        limit) and its end token "</s>"."""
        n = len(self.src_ids) or len(self.source) + 1
        return [*self.source[: n - 1], "</s>"]

    @classmethod
    def of(
        cls,
        source: Sequence[str],
        gold: Sequence[str],
        gold_ids: Sequence[int],
        forced: tuple[list[int], list[float], np.ndarray | None],
        free: tuple[list[int], list[float], np.ndarray | None],
        word: Callable[[int], str],
        src_ids: Sequence[int] = (),
    ) -> ExposureTrace:
        """The trace of both runs, each (chosen ids, their probabilities, attention), with ``gold_ids`` the
        reference and its end token: ``parted`` is the first step where the free run's id is not the gold
        one (or the free run stops before the reference ends); ``word`` names an id; ``src_ids`` the
        source as read."""
        free_ids = free[0]
        parted = next(
            (t for t in range(len(free_ids)) if t >= len(gold_ids) or free_ids[t] != gold_ids[t]),
            None if len(free_ids) >= len(gold_ids) else len(free_ids),
        )
        return cls(
            list(source),
            list(gold),
            [word(i) for i in forced[0]],
            list(forced[1]),
            forced[2],
            [word(i) for i in free_ids],
            list(free[1]),
            free[2],
            parted,
            [int(i) for i in src_ids],
            [int(i) for i in gold_ids],
            [int(i) for i in free_ids],
        )


@torch.no_grad()
def exposure_trace(
    model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab, source: Sequence[str], gold: Sequence[str]
) -> ExposureTrace:
    """Decode ``source`` from the gold prefix and from the model's own prefix (greedy, up to the gold
    length + 10 steps or </s>); tokens include "</s>" where it is chosen."""
    model.eval()
    ids = encode_source(src_vocab.stoi, source, model.cfg.max_src_len - 1)
    src = torch.tensor([ids])
    memory = model.encode(src, torch.tensor([len(ids)]))
    gold_ids = tgt_vocab.encode(list(gold)) + [EOS_ID]

    def run(forced: bool) -> tuple[list[int], list[float], list[np.ndarray]]:
        state = model.decoder.initial_state(memory)
        y_prev = torch.tensor([SOS_ID])
        out, probs, alphas = [], [], []
        steps = len(gold_ids) if forced else len(gold_ids) + 10
        for t in range(steps):
            logits, state, alpha = model.decoder.step(y_prev, state, memory)
            p = torch.softmax(logits.float(), -1)[0]
            choice = int(p.argmax())
            out.append(choice)
            probs.append(round(float(p[choice]), 4))
            if alpha is not None:
                alphas.append(alpha[0].float().numpy())
            if not forced and choice == EOS_ID:
                break
            y_prev = torch.tensor([gold_ids[t] if forced else choice])
        return out, probs, alphas

    forced_ids, forced_prob, forced_att = run(True)
    free_ids, free_prob, free_att = run(False)
    return ExposureTrace.of(
        source,
        gold,
        gold_ids,
        (forced_ids, forced_prob, np.stack(forced_att) if forced_att else None),
        (free_ids, free_prob, np.stack(free_att) if free_att else None),
        lambda i: "</s>" if i == EOS_ID else tgt_vocab.itos[i],
        ids,
    )


@torch.no_grad()
def forced_token_accuracy(model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab, pairs: Sequence[Any]) -> float:
    """Share of target words (and </s>) predicted right when every previous word is the gold one."""
    model.eval()
    data = encode_pairs([(p.src, p.tgt) for p in pairs], src_vocab, tgt_vocab, model.cfg)
    hits = total = 0
    for i in range(0, len(data), BATCH):
        batch = collate(data[i : i + BATCH], torch.device("cpu"))
        logits, _ = model(batch.src, batch.lengths, batch.tgt_in)
        keep = batch.tgt_out != PAD_ID
        hits += int(((logits.argmax(-1) == batch.tgt_out) & keep).sum())
        total += int(keep.sum())
    return hits / max(total, 1)


def exposure_comparison(names: Sequence[str] = FORCING_PAIR) -> dict[str, Any]:
    """The teacher-forcing pair on the grammar's test split: greedy BLEU and exact match (free running),
    teacher-forced word accuracy, and the share of sentences whose free run leaves the gold prefix, with
    the mean step where it does (those shipped)."""
    test = make_splits()["test"]
    rows, errors = [], []
    for name in names:
        if name not in shipped("seq2seq"):
            continue
        try:
            loaded = load_seq2seq(name)
        except CheckpointError as exc:
            errors.append(str(exc))
            continue
        m, sv, tv = loaded.model, loaded.src_vocab, loaded.tgt_vocab
        _, outputs = greedy_outputs(m, sv, [p.src for p in test])
        hyps = [tv.decode([t for t in ids if t != EOS_ID]) for ids in outputs]
        refs = [list(p.tgt) for p in test]
        parts = []
        for ids, p in zip(outputs, test):
            gold = tv.encode(list(p.tgt)) + [EOS_ID]
            parts.append(next((t for t in range(len(gold)) if t >= len(ids) or ids[t] != gold[t]), None))
        left = [t for t in parts if t is not None]
        rows.append(
            {
                "name": name,
                "label": loaded.training.get("label", name),
                "teacher_forcing": loaded.training.get("settings", {}).get("teacher_forcing"),
                "bleu": round(bleu(hyps, refs), 2),
                "exact_match": round(exact_match(hyps, refs), 4),
                "forced_token_accuracy": round(forced_token_accuracy(m, sv, tv, test), 4),
                "left_gold_prefix": round(len(left) / len(test), 4),
                "mean_parting_step": round(float(np.mean(left)), 2) if left else None,
                "n_test": len(test),
                "train_seconds": loaded.training.get("seconds"),
            }
        )
    return {
        "command": "python -m models.evaluate",
        "test_set": "embedded corpus, test split",
        "models": rows,
        "errors": errors,
    }


def format_exposure(results: dict) -> str:
    lines = [
        "",
        f"{'teacher forcing (test split)':40} {'ratio':>5} {'BLEU':>6} {'exact':>6} {'forced acc':>10} "
        f"{'left gold':>9} {'at step':>7}",
    ]
    for m in results.get("models", []):
        step = "—" if m["mean_parting_step"] is None else f"{m['mean_parting_step']:.1f}"
        lines.append(
            f"{m['label'][:40]:40} {m['teacher_forcing']:5.1f} {m['bleu']:6.2f} {m['exact_match']:6.3f} "
            f"{m['forced_token_accuracy']:10.3f} {m['left_gold_prefix']:9.3f} {step:>7}"
        )
    if not results.get("models"):
        lines.append("no teacher-forcing pair: python -m models.train --preset s2s-forcing-1.0 (and -0.5)")
    lines += [f"error: {e}" for e in results.get("errors", [])]
    return "\n".join(lines)
