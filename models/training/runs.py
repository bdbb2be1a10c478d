"""Training runs started from the app: a registry of background threads, their curves and
attention snapshots, and the saved runs on disk (no Streamlit).

:meth:`Registry.start` queues a run and returns its id. A thread per run waits for one of the
server's ``max_active`` training slots (first come, first served; the others show their place in
the queue), then trains a *private* model through the one loop :func:`~models.training.loop.fit`:
an RNN encoder–decoder (Bahdanau et al. 2014 / Luong et al. 2015, :class:`~models.nn.rnn_seq2seq.Seq2Seq`)
or a Transformer encoder–decoder (Vaswani et al. 2017, label-smoothed cross-entropy). A
``threading.Event`` stops it between steps. Every step's loss goes to memory and to ``log.jsonl``
in the run's folder; at regular steps the run decodes its probe sentence greedily and keeps a
:class:`Snapshot` (the output, its attention α — the Transformer's cross-attention of every layer ×
head —, validation BLEU, and for the RNN on the embedded grammar the AER of the validation split
against its gold alignment, Och & Ney 2003), also appended to ``snapshots.jsonl``. The finished or
stopped model is saved as a checkpoint in the shipped format (``checkpoint/``, atomic whole-folder
save), loadable by :func:`models.checkpoints.load_seq2seq` / :func:`~models.checkpoints.load_transformer`.
Stop is final: ``fit`` keeps no optimizer state to resume from, so a stopped run keeps its model.

Runs live under ``$ATTENTION_LAB_RUNS`` (default ``$XDG_DATA_HOME/attention-lab/runs``, i.e.
``~/.local/share/attention-lab/runs``), never in the repository. A run's zip holds its checkpoint
and logs; :func:`import_zip` accepts only those file names, within size limits.
"""
from __future__ import annotations

import copy
import io
import json
import os
import random
import secrets
import shutil
import threading
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from corpora.batching import bucketed_batches
from corpora.en_fr import Pair, make_splits
from corpora.text import detokenize
from models.atomic import atomic_folder, first_line, json_bytes, write_json_atomic, write_new
from models.checkpoints import (
    CONFIG, ENCODER_DECODER, WEIGHTS, CheckpointError, LoadedSeq2Seq, LoadedTransformer, load_seq2seq,
    load_transformer, read_json, save_seq2seq, save_transformer,
)
from models.device import describe_device, pick_device
from models.inference.common import pad_ids
from models.inference.translate import translate, translate_transformer
from models.nn.rnn_seq2seq import Seq2Seq, Seq2SeqConfig
from models.nn.transformer import Transformer, TransformerConfig, label_smoothed_cross_entropy
from models.text.vocab import EOS, EOS_ID, PAD_ID, SOS_ID, encode_source
from models.training.loop import LossOfBatch, Progress, TrainSettings, fit, jsonl_log
from models.training.metrics import alignment_error_rate, bleu
from models.training.seq2seq import (
    build_vocabs, collate, corpus_bleu_of, encode_pairs, forced_alignments, pair_batches, sequence_loss,
)
from models.training.transformer import translate_batch

RUNS_ENV, MAX_ACTIVE_ENV = "ATTENTION_LAB_RUNS", "ATTENTION_LAB_MAX_TRAININGS"
RUN_FILE, LOG_FILE, SNAPSHOT_FILE, CHECKPOINT = "run.json", "log.jsonl", "snapshots.jsonl", "checkpoint"
DATA_SOURCES = ("grammar", "bible", "hsk", "upload")
ATTENTIONS = ("none", "bahdanau", "luong")
SCORES = ("dot", "general", "concat")
RNN, TRANSFORMER = "rnn", "transformer"  # the studio's model families
CHECKPOINT_FAMILY = {RNN: "seq2seq", TRANSFORMER: "transformer"}  # their models.checkpoints family names
LOADERS = {"seq2seq": load_seq2seq, "transformer": load_transformer}
TF_MAX_LEN = 48  # the Transformer's positions: source tokens + </s>, and target tokens + <s>/</s>
TF_TASK = "en-fr"  # the checkpoint task of a translation model: words in, </s> appended (any language pair)
WAITING, RUNNING, FINISHED, STOPPED, FAILED = "waiting", "running", "finished", "stopped", "failed"
STATES, ACTIVE_STATES = (WAITING, RUNNING, FINISHED, STOPPED, FAILED), (WAITING, RUNNING)
MAX_STEPS = 5000  # per-run step cap: bounds a run's time, memory (curves) and disk
MAX_STORED = 40  # runs kept on disk; a new run is refused beyond this until some are deleted
N_VALID = 100  # validation sentences decoded at each snapshot (BLEU, and AER on the grammar)
MAX_NAME = 60
MAX_KEPT = 20  # ended runs the registry keeps in memory (the newest); older ones are read back from disk
# What a run's zip may hold, and how large it may unpack (a checkpoint of the studio's sizes is < 5 MB).
ZIP_NAMES = frozenset({RUN_FILE, LOG_FILE, SNAPSHOT_FILE, f"{CHECKPOINT}/{WEIGHTS}", f"{CHECKPOINT}/{CONFIG}",
                       f"{CHECKPOINT}/vocab.json"})
MAX_ZIP_BYTES = 100_000_000

TokenPair = tuple[Sequence[str], Sequence[str]]


class RunError(RuntimeError):
    """A run cannot be started, found, changed or imported; the message says why in one line."""


def runs_dir() -> Path:
    """``$ATTENTION_LAB_RUNS``, else ``$XDG_DATA_HOME/attention-lab/runs`` (``~/.local/share/…``)."""
    if os.environ.get(RUNS_ENV):
        return Path(os.environ[RUNS_ENV]).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "attention-lab" / "runs"


@dataclass(frozen=True)
class RunSettings:
    """Everything a studio run is made from; JSON-able (kept in run.json and the checkpoint).

    Model: ``family`` rnn | transformer; ``hidden`` (the RNN's embedding, per-direction GRU and
    attention size; the Transformer's d_model, with d_ff = 4·d_model); ``dropout``. RNN only:
    ``attention`` none | bahdanau | luong (``score`` dot | general | concat), ``bidirectional``
    encoder, ``teacher_forcing`` (probability of feeding the gold previous token). Transformer only:
    ``layers`` (encoder and decoder each), ``heads``, ``label_smoothing`` ε. Training: ``steps``,
    ``batch_size``, peak ``lr`` (linear warm-up over 10% of the steps, then linear decay). Data:
    ``data`` (one of :data:`DATA_SOURCES`), ``n_train`` pairs. ``probe``: the sentence decoded at each
    of ``snapshots`` snapshots (empty: the first validation sentence, with its gold alignment if any)."""

    name: str = ""
    family: str = RNN
    data: str = "grammar"
    attention: str = "bahdanau"
    score: str = "general"
    bidirectional: bool = True
    hidden: int = 48
    dropout: float = 0.0
    teacher_forcing: float = 1.0
    layers: int = 2
    heads: int = 4
    label_smoothing: float = 0.0
    batch_size: int = 32
    lr: float = 5e-3
    steps: int = 900
    n_train: int = 6000
    probe: str = ""
    snapshots: int = 12
    seed: int = 0

    def __post_init__(self) -> None:
        if (self.family not in CHECKPOINT_FAMILY or self.data not in DATA_SOURCES or self.attention not in ATTENTIONS
                or self.score not in SCORES):
            raise RunError(f"unknown family {self.family!r}, data {self.data!r}, attention {self.attention!r} "
                           f"or score {self.score!r}")
        if not 1 <= self.steps <= MAX_STEPS:
            raise RunError(f"steps must be between 1 and {MAX_STEPS}, not {self.steps}")
        if not (1 <= self.batch_size <= 512 and 4 <= self.hidden <= 512 and 1 <= self.snapshots <= 100
                and 0 < self.lr <= 1 and 0 <= self.dropout < 1 and 0 <= self.teacher_forcing <= 1
                and 0 <= self.label_smoothing < 1 and self.n_train >= 10 and len(self.probe) <= 500):
            raise RunError("a setting is out of range")
        if self.family == TRANSFORMER and not (1 <= self.layers <= 6 and 1 <= self.heads <= 16
                                               and self.hidden % self.heads == 0):
            raise RunError("the Transformer needs 1–6 layers and 1–16 heads that divide the hidden size")

    def rnn_config(self, src_vocab_size: int, tgt_vocab_size: int) -> Seq2SeqConfig:
        return Seq2SeqConfig(attention=self.attention, score=self.score, bidirectional=self.bidirectional,
                             emb_dim=self.hidden, hidden_dim=self.hidden, attn_dim=self.hidden, dropout=self.dropout,
                             src_vocab_size=src_vocab_size, tgt_vocab_size=tgt_vocab_size)

    def transformer_config(self, src_vocab_size: int, tgt_vocab_size: int) -> TransformerConfig:
        return TransformerConfig(vocab_size=tgt_vocab_size, src_vocab_size=src_vocab_size, d_model=self.hidden,
                                 n_heads=self.heads, num_encoder_layers=self.layers, num_decoder_layers=self.layers,
                                 d_ff=4 * self.hidden, dropout=self.dropout, max_len=TF_MAX_LEN, pad_id=PAD_ID,
                                 bos_id=SOS_ID, eos_id=EOS_ID)

    def train_settings(self) -> TrainSettings:
        return TrainSettings(steps=self.steps, batch_size=self.batch_size, lr=self.lr, warmup=max(1, self.steps // 10),
                             seed=self.seed, teacher_forcing=self.teacher_forcing,
                             label_smoothing=self.label_smoothing, max_minutes=60.0)


#: Presets that train in about a minute on a laptop CPU core (the names are string ids' keys). The quick
#: Bahdanau preset measured on a busy 2-core machine (`python -m bench.studio_quick`): 900 steps in
#: 118 s, test BLEU 81.4, AER of the snapshots 0.91 → 0.15.
PRESETS: dict[str, RunSettings] = {
    "bahdanau": RunSettings(attention="bahdanau"),
    "luong": RunSettings(attention="luong", score="general"),
    "none": RunSettings(attention="none"),
    "transformer": RunSettings(family=TRANSFORMER, hidden=64, heads=4, layers=2, lr=2e-3, batch_size=32,
                               label_smoothing=0.1),
    "tiny": RunSettings(attention="bahdanau", hidden=16, steps=40, batch_size=16, n_train=400, snapshots=4),
    "tiny-transformer": RunSettings(family=TRANSFORMER, hidden=16, heads=2, layers=1, lr=2e-3, steps=40,
                                    batch_size=16, n_train=400, snapshots=4),
}


@dataclass(frozen=True)
class Snapshot:
    """The probe decoded at one training step: its tokens, α (target × source; the Transformer's
    cross-attention as layers × heads × target × source), the validation scores at that step (AER
    only where the data has gold alignments), and the probe's gold links (src_i, tgt_j) when it has
    them and the output is its reference translation."""

    step: int
    src_tokens: list[str]
    tgt_tokens: list[str]
    attention: np.ndarray | None  # float32; a list of lists in snapshots.jsonl
    bleu: float
    aer: float | None
    gold: list[tuple[int, int]] | None = None

    @property
    def weights(self) -> np.ndarray | None:
        return None if self.attention is None else np.asarray(self.attention, dtype=float)

    def to_json(self) -> str:
        weights = None if self.attention is None else np.round(self.attention.astype(float), 4).tolist()
        return json.dumps(dict(asdict(self), attention=weights))

    @classmethod
    def from_json(cls, line: str) -> Snapshot:
        data = json.loads(line)
        if data.get("attention") is not None:
            data["attention"] = np.asarray(data["attention"], dtype=np.float32)
        return cls(**data)


@dataclass
class Data:
    train: list[TokenPair]
    valid: list[TokenPair]
    gold: list[Pair] | None  # validation pairs with gold alignments (the embedded grammar only)
    description: str


def load_data(settings: RunSettings, pairs: Sequence[TokenPair] | None = None) -> Data:
    """The run's training and validation pairs: the embedded grammar (with gold alignments), WEB→Segond
    verse pairs, HSK Chinese→English, or ``pairs`` from an uploaded file (one pair per source sentence,
    split 95/5 with at most :data:`N_VALID` for validation, seeded)."""
    if settings.data == "grammar":
        splits = make_splits(seed=settings.seed, n_train=settings.n_train, n_valid=N_VALID, n_test=N_VALID)
        return Data([(p.src, p.tgt) for p in splits["train"]], [(p.src, p.tgt) for p in splits["valid"]],
                    splits["valid"], "embedded English→French grammar")
    if settings.data == "bible":
        from corpora.bible_pairs import verse_pairs

        pairs, description = verse_pairs(), "World English Bible → Louis Segond 1910 verses"
    elif settings.data == "hsk":
        from corpora.hsk import LICENSE, hsk_pairs

        pairs, description = hsk_pairs(), LICENSE
    else:
        description = "uploaded sentence pairs"
    if not pairs:
        raise RunError("no sentence pairs were given for this run")
    # one pair per source sentence (the Bible repeats verses), so that no validation source is trained on
    shuffled = list({tuple(src): (tuple(src), tuple(tgt)) for src, tgt in pairs}.values())
    random.Random(settings.seed).shuffle(shuffled)
    n_valid = min(N_VALID, max(1, len(shuffled) // 20))
    return Data(shuffled[n_valid:][: settings.n_train], shuffled[:n_valid], None, description)


@dataclass
class Run:
    """One run's live state; the thread writes it, the page reads it (plain values, no locks needed
    for reading: lists only grow)."""

    id: str
    settings: RunSettings
    folder: Path
    created: float = field(default_factory=time.time)
    status: str = WAITING
    message: str = ""
    device: str = ""
    data: str = ""
    step: int = 0
    elapsed: float = 0.0
    tokens_per_second: float = 0.0
    losses: list[float] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event, repr=False)
    thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_STATES

    @property
    def checkpoint(self) -> Path:
        return self.folder / CHECKPOINT

    def eta(self) -> float | None:
        """Seconds left at the mean speed so far (None before the first step)."""
        if not self.step:
            return None
        return self.elapsed / self.step * (self.settings.steps - self.step)


def new_run_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


class Registry:
    """The server's runs: at most ``max_active`` train at once (default ``$ATTENTION_LAB_MAX_TRAININGS``,
    else 1 on a CPU and 2 on an accelerator), the others wait in arrival order."""

    def __init__(self, root: Path | None = None, max_active: int | None = None) -> None:
        self._root = root
        if max_active is None:
            fallback = 1 if pick_device().type == "cpu" else 2
            max_active = int(os.environ.get(MAX_ACTIVE_ENV, fallback))
        self.max_active = max(1, max_active)
        self.runs: dict[str, Run] = {}
        self._queue: list[str] = []
        self._n_active = 0
        self._cond = threading.Condition()

    @property
    def root(self) -> Path:
        return self._root if self._root is not None else runs_dir()

    def start(self, settings: RunSettings, pairs: Sequence[TokenPair] | None = None) -> str:
        """Queue a run of ``settings`` (``pairs``: an uploaded file's pairs) and return its id."""
        if len(list_runs(self.root)) + sum(r.active for r in self.runs.values()) >= MAX_STORED:
            raise RunError(f"this server keeps at most {MAX_STORED} runs: delete some first")
        run_id = new_run_id()
        name = " ".join(settings.name.split())[:MAX_NAME] or f"run {run_id}"
        run = Run(run_id, replace(settings, name=name), self.root / run_id)
        with self._cond:
            ended = [r.id for r in sorted(self.runs.values(), key=lambda r: r.created) if not r.active]
            for old in ended[: max(0, len(ended) - MAX_KEPT + 1)]:
                del self.runs[old]  # its checkpoint, curve and snapshots stay on disk
            self.runs[run_id] = run
            self._queue.append(run_id)
        run.thread = threading.Thread(target=self._work, args=(run, pairs), name=f"studio-{run_id}", daemon=True)
        run.thread.start()
        return run_id

    def get(self, run_id: str | None) -> Run | None:
        return self.runs.get(run_id) if run_id else None

    def stop(self, run_id: str) -> None:
        run = self.runs.get(run_id)
        if run is not None:
            run.stop.set()
            with self._cond:
                self._cond.notify_all()

    def forget(self, run_id: str) -> None:
        """Drop an ended run from memory (its files were deleted); an active run stays."""
        with self._cond:
            if run_id in self.runs and not self.runs[run_id].active:
                del self.runs[run_id]

    def position(self, run_id: str) -> int:
        """How many runs are ahead of a waiting run in the queue (0: next), or -1 when not waiting."""
        with self._cond:
            return self._queue.index(run_id) if run_id in self._queue else -1

    def _acquire(self, run: Run) -> bool:
        """Wait for a slot in arrival order; False when the run was stopped while waiting."""
        with self._cond:
            while not run.stop.is_set() and (self._queue[0] != run.id or self._n_active >= self.max_active):
                self._cond.wait(0.5)
            self._queue.remove(run.id)
            self._cond.notify_all()
            if run.stop.is_set():
                return False
            self._n_active += 1
            return True

    def _release(self) -> None:
        with self._cond:
            self._n_active -= 1
            self._cond.notify_all()

    def _work(self, run: Run, pairs: Sequence[TokenPair] | None) -> None:
        if not self._acquire(run):
            run.status, run.message = STOPPED, "stopped before it started"
            return
        try:
            run.status = RUNNING
            train_run(run, pairs)
        except Exception as exc:  # bad data, out of memory …: this run fails, the server goes on
            run.status, run.message = FAILED, first_line(exc)
            shutil.rmtree(run.folder, ignore_errors=True)  # nothing of a failed run is kept on disk
        finally:
            self._release()


@dataclass
class Trainee:
    """One family's private model for a run and what the run does with it: the batch loss for
    ``fit``, the probe's decoding (src tokens, output tokens, α) and the validation scores (both on
    a CPU model), and the checkpoint writer."""

    model: nn.Module
    loss_of_batch: LossOfBatch
    decode: Callable[[nn.Module, str], tuple[list[str], list[str], np.ndarray | None]]
    bleu: Callable[[nn.Module], float]
    aer: Callable[[nn.Module], float] | None
    save: Callable[[Path, dict], Path]


def rnn_trainee(s: RunSettings, data: Data, settings: TrainSettings, device: torch.device) -> Trainee:
    """A Seq2Seq with teacher-forced (or scheduled-sampling) cross-entropy over length-bucketed batches."""
    src_vocab, tgt_vocab = build_vocabs(data.train)
    cfg = s.rnn_config(len(src_vocab), len(tgt_vocab))
    model = Seq2Seq(cfg).to(device)
    stream = pair_batches(encode_pairs(data.train, src_vocab, tgt_vocab, cfg), settings.batch_size,
                          random.Random(s.seed))

    def loss_of_batch(_step: int) -> tuple[Tensor, int]:
        batch = collate(next(stream), device)
        logits, _ = model(batch.src, batch.lengths, batch.tgt_in, settings.teacher_forcing)
        return sequence_loss(logits, batch.tgt_out), batch.n_tokens

    def decode(cpu: nn.Module, probe: str) -> tuple[list[str], list[str], np.ndarray | None]:
        trace = translate(LoadedSeq2Seq(s.name, cpu, src_vocab, tgt_vocab, {}), probe)
        return trace.src_tokens, trace.tgt_tokens, trace.attention

    def aer(cpu: nn.Module) -> float:
        links = forced_alignments(cpu, src_vocab, tgt_vocab, data.gold)
        return alignment_error_rate(links, [set(p.alignment) for p in data.gold])

    return Trainee(model, loss_of_batch, decode, lambda cpu: corpus_bleu_of(cpu, src_vocab, tgt_vocab, data.valid),
                   aer if data.gold is not None and cfg.attention != "none" else None,
                   lambda folder, record: save_seq2seq(folder, model.to("cpu"), src_vocab, tgt_vocab, record))


def transformer_trainee(s: RunSettings, data: Data, settings: TrainSettings, device: torch.device) -> Trainee:
    """A Transformer encoder–decoder with label-smoothed cross-entropy (§5.4) over length-bucketed batches."""
    src_vocab, tgt_vocab = build_vocabs(data.train)
    limit = TF_MAX_LEN - 1
    encoded = [(encode_source(src_vocab.stoi, src, limit), tgt_vocab.encode(list(tgt)[: TF_MAX_LEN - 2]))
               for src, tgt in data.train]
    model = Transformer(s.transformer_config(len(src_vocab), len(tgt_vocab))).to(device)
    chunks = bucketed_batches([len(x) for x, _ in encoded], settings.batch_size, random.Random(s.seed))

    def loss_of_batch(_step: int) -> tuple[Tensor, int]:
        items = [encoded[i] for i in next(chunks)]
        src = pad_ids([x for x, _ in items], PAD_ID).to(device)
        tgt_in = pad_ids([[SOS_ID] + y for _, y in items], PAD_ID).to(device)
        tgt_out = pad_ids([y + [EOS_ID] for _, y in items], PAD_ID).to(device)
        loss = label_smoothed_cross_entropy(model(src, tgt_in), tgt_out, s.label_smoothing, ignore_index=PAD_ID)
        return loss, int((tgt_out != PAD_ID).sum())

    def decode(cpu: nn.Module, probe: str) -> tuple[list[str], list[str], np.ndarray | None]:
        loaded = LoadedTransformer(s.name, cpu, ENCODER_DECODER, TF_TASK, src_vocab.itos, tgt_vocab.itos,
                                   {"max_src_len": TF_MAX_LEN})
        trace = translate_transformer(loaded, probe)
        return trace.src_tokens, trace.tgt_tokens, trace.cross_attention

    def valid_bleu(cpu: nn.Module) -> float:
        hyps = translate_batch(cpu, [x for x, _ in data.valid], src_vocab.stoi, tgt_vocab.itos, limit)
        return bleu(hyps, [list(y) for _, y in data.valid])

    def save(folder: Path, record: dict) -> Path:
        return save_transformer(folder, model.to("cpu"), TF_TASK, src_vocab.itos, tgt_vocab.itos,
                                dict(record, max_src_len=TF_MAX_LEN))

    return Trainee(model, loss_of_batch, decode, valid_bleu, None, save)


TRAINEES = {RNN: rnn_trainee, TRANSFORMER: transformer_trainee}


@torch.no_grad()
def take_snapshot(step: int, trainee: Trainee, probe: str,
                  gold: tuple[list[str], list[tuple[int, int]]] | None = None) -> Snapshot:
    """Decode the probe greedily (the pages' decoders, which build CPU tensors: on an accelerator a
    CPU copy decodes) and score the validation split; the model goes back to training mode.
    ``gold`` = (reference tokens, gold links): the links are kept only when the output is the
    reference (they name its positions, not those of another output)."""
    model = trainee.model
    cpu = model if next(model.parameters()).device.type == "cpu" else copy.deepcopy(model).to("cpu")
    cpu.eval()
    try:
        src, tgt, weights = trainee.decode(cpu, probe)
        valid_bleu = trainee.bleu(cpu)
        aer = None if trainee.aer is None else round(trainee.aer(cpu), 4)
    finally:
        model.train()
    links = gold[1] if gold is not None and list(tgt) == [*gold[0], EOS] else None
    return Snapshot(step, list(src), list(tgt), None if weights is None else np.round(weights, 4).astype(np.float32),
                    round(float(valid_bleu), 2), aer, links)


def snapshot_steps(steps: int, n: int) -> set[int]:
    """The steps after which snapshots are taken: 0, then n evenly spaced up to the last step."""
    return {0} | {max(1, round(steps * (i + 1) / n)) for i in range(n)}


def train_run(run: Run, pairs: Sequence[TokenPair] | None = None) -> None:
    """Train ``run`` in the calling thread (the registry's thread; tests may call it directly),
    taking snapshots and writing logs and the checkpoint into ``run.folder``."""
    s = run.settings
    run.folder.mkdir(parents=True, exist_ok=True)
    device = pick_device()
    run.device = describe_device(device)
    _write_meta(run)
    data = load_data(s, pairs)
    run.data = data.description
    probe, gold = s.probe, None
    if not probe.strip():  # the first validation sentence, with its gold alignment where the data has one
        probe = detokenize(list(data.valid[0][0]))
        if data.gold is not None:
            gold = list(data.gold[0].tgt), [tuple(link) for link in data.gold[0].alignment]
    settings = s.train_settings()
    torch.manual_seed(s.seed)
    trainee = TRAINEES[s.family](s, data, settings, device)
    when = snapshot_steps(settings.steps, s.snapshots)

    def snap(step: int) -> None:
        shot = take_snapshot(step, trainee, probe, gold)
        run.snapshots.append(shot)
        with (run.folder / SNAPSHOT_FILE).open("a", encoding="utf-8") as fh:
            fh.write(shot.to_json() + "\n")

    def on_step(p: Progress) -> None:
        run.losses.append(p.loss)
        run.step, run.elapsed, run.tokens_per_second = p.step, p.elapsed, p.tokens_per_second
        if p.step in when:
            snap(p.step)

    log, close = jsonl_log(run.folder / LOG_FILE)
    try:
        snap(0)
        stats = fit(trainee.model, trainee.loss_of_batch, settings, (log, on_step), run.stop)
    finally:
        close()
    if run.snapshots[-1].step != run.step:
        snap(run.step)  # a stopped run ends with a snapshot of the model it keeps
    last = run.snapshots[-1]
    record = dict(stats, label=s.name, user_run=True, run_id=run.id, data=data.description, valid_bleu=last.bleu,
                  aer=last.aer, settings=settings.to_dict(), studio=asdict(s),
                  parameters=sum(p.numel() for p in trainee.model.parameters()))
    trainee.save(run.checkpoint, record)
    run.status = STOPPED if stats["cut_short"] else FINISHED
    run.message = stats["cut_short"] or ""
    _write_meta(run)


def _write_meta(run: Run) -> None:
    """run.json: the run's name, settings, status and summary (atomic)."""
    write_json_atomic(run.folder / RUN_FILE, {
        "id": run.id, "name": run.settings.name, "family": CHECKPOINT_FAMILY[run.settings.family],
        "created": run.created, "status": run.status,
        "message": run.message, "device": run.device, "data": run.data, "steps": run.step,
        "seconds": round(run.elapsed, 1), "settings": asdict(run.settings),
        "bleu": run.snapshots[-1].bleu if run.snapshots else None,
        "aer": run.snapshots[-1].aer if run.snapshots else None})


# --------------------------------------------------------------------------------------
# Saved runs on disk
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SavedRun:
    """A run folder with a checkpoint: its id, name and run.json."""

    id: str
    folder: Path
    name: str
    meta: dict[str, Any]

    @property
    def checkpoint(self) -> Path:
        return self.folder / CHECKPOINT


def list_runs(root: Path | None = None) -> list[SavedRun]:
    """Runs under ``root`` (default :func:`runs_dir`) that have a checkpoint, newest first."""
    root = root if root is not None else runs_dir()
    out = []
    for meta_file in root.glob(f"*/{RUN_FILE}"):
        folder = meta_file.parent
        if folder.name.startswith(".") or not (folder / CHECKPOINT / CONFIG).is_file():
            continue
        try:
            meta = read_json(meta_file)
        except CheckpointError:
            continue
        out.append(SavedRun(folder.name, folder, str(meta.get("name") or folder.name)[:MAX_NAME], meta))
    return sorted(out, key=lambda r: float(r.meta.get("created") or 0), reverse=True)


def user_checkpoints(family: str, root: Path | None = None) -> list[tuple[str, str]]:
    """(checkpoint folder, run name) of the saved runs of a checkpoint family, for model pickers."""
    return [(str(r.checkpoint), r.name) for r in list_runs(root) if r.meta.get("family") == family]


def find_run(run_id: str, root: Path | None = None) -> SavedRun:
    found = next((r for r in list_runs(root) if r.id == run_id), None)
    if found is None:
        raise RunError(f"there is no saved run {run_id!r}")
    return found


def read_snapshots(folder: Path) -> list[Snapshot]:
    """The snapshots a run wrote (a saved run's scrubber); unreadable lines are skipped."""
    out = []
    try:
        lines = (folder / SNAPSHOT_FILE).read_text(encoding="utf-8").splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            out.append(Snapshot.from_json(line))
        except (ValueError, TypeError):
            continue
    return out


def read_losses(folder: Path) -> list[float]:
    """The per-step training losses a run logged (``log.jsonl``)."""
    try:
        lines = (folder / LOG_FILE).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(float(json.loads(line)["loss"]))
        except (ValueError, TypeError, KeyError):
            continue
    return out


def rename_run(run_id: str, name: str, root: Path | None = None) -> None:
    saved = find_run(run_id, root)
    clean = " ".join(name.split())[:MAX_NAME]
    if not clean:
        raise RunError("a run needs a name")
    write_json_atomic(saved.folder / RUN_FILE, dict(saved.meta, name=clean))


def delete_run(run_id: str, root: Path | None = None) -> None:
    shutil.rmtree(find_run(run_id, root).folder)


def export_zip(run_id: str, root: Path | None = None) -> bytes:
    """The run's checkpoint and logs as a zip (the names of :data:`ZIP_NAMES` that exist)."""
    folder = find_run(run_id, root).folder
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(ZIP_NAMES):
            if (folder / name).is_file():
                archive.write(folder / name, name)
    return buffer.getvalue()


def import_zip(data: bytes, root: Path | None = None, max_bytes: int = MAX_ZIP_BYTES) -> str:
    """Unpack a run's zip into a new run folder and check that its checkpoint loads; returns the new
    id. Refused (RunError, nothing written): not a zip, a name other than :data:`ZIP_NAMES` (so no
    path can leave the folder), a name twice, more than ``max_bytes`` unpacked, a broken checkpoint."""
    root = root if root is not None else runs_dir()
    if len(list_runs(root)) >= MAX_STORED:
        raise RunError(f"this server keeps at most {MAX_STORED} runs: delete some first")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise RunError("this file is not a zip of a training run") from None
    names = [i.filename for i in infos]
    strange = sorted(set(names) - ZIP_NAMES)
    if strange:
        raise RunError(f"the zip holds a file a run does not have: {strange[0][:80]!r}")
    if len(set(names)) != len(names):
        raise RunError("the zip holds a file twice")
    if sum(i.file_size for i in infos) > max_bytes:
        raise RunError(f"the zip unpacks to more than {max_bytes / 1e6:.0f} MB")
    contents = {}
    for info in infos:
        try:
            with archive.open(info) as fh:
                body = fh.read(info.file_size + 1)  # a header that lies about the size reads one byte too many
        except (zipfile.BadZipFile, OSError, RuntimeError, EOFError) as exc:
            raise RunError(f"the zip is damaged: {first_line(exc)}") from None
        if len(body) > info.file_size:
            raise RunError("the zip is damaged: a file is larger than its header says")
        contents[info.filename] = body
    if f"{CHECKPOINT}/{CONFIG}" not in contents or f"{CHECKPOINT}/{WEIGHTS}" not in contents:
        raise RunError("the zip holds no checkpoint")
    run_id = new_run_id()
    folder = root / run_id
    meta, config = _json_object(contents.get(RUN_FILE, b"{}")), _json_object(contents[f"{CHECKPOINT}/{CONFIG}"])
    family, spec = config.get("family"), config.get("model")
    other_kind = family == "transformer" and not (isinstance(spec, dict) and spec.get("kind") == ENCODER_DECODER)
    if family not in LOADERS or other_kind:
        raise RunError("the zip's checkpoint does not load: it is not an RNN or Transformer encoder–decoder")
    name = " ".join(str(meta.get("name") or "uploaded run").split())[:MAX_NAME]
    contents[RUN_FILE] = json_bytes(dict(meta, id=run_id, name=name, family=family, created=time.time(),
                                         imported=True))
    root.mkdir(parents=True, exist_ok=True)
    with atomic_folder(folder) as staging:
        (staging / CHECKPOINT).mkdir()
        for name_in_zip, body in contents.items():
            write_new(staging / name_in_zip, body)
    try:
        LOADERS[family](folder / CHECKPOINT)
    except CheckpointError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise RunError(f"the zip's checkpoint does not load: {exc}") from None
    return run_id


def _json_object(body: bytes) -> dict[str, Any]:
    """A JSON object from a zip member, or {} when it is not one."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
