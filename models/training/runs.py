"""Training runs started from the app: a registry of background threads, their curves and
attention snapshots, and the saved runs on disk (no Streamlit).

:meth:`Registry.start` queues a run and returns its id. A thread per run waits for one of the
server's ``max_active`` training slots (first come, first served; the others show their place in
the queue), then trains a *private* model through the one loop :func:`~models.training.loop.fit`:
an RNN encoder–decoder (Bahdanau et al. 2014 / Luong et al. 2015, :class:`~models.nn.rnn_seq2seq.Seq2Seq`)
or a Transformer encoder–decoder (Vaswani et al. 2017, label-smoothed cross-entropy) on sentence pairs;
on plain text a decoder-only LM, a small BERT (Devlin et al. 2019), Transformer-XL (Dai et al. 2019,
segment-level recurrence: the memory a step leaves is handed to the next, and kept on a stop) or XLNet
(Yang et al. 2019, a permutation LM); or fine-tunes a pre-trained BERT on a synthetic task (Devlin et al.
2019 §4, :mod:`models.training.finetune`, beside the frozen-feature head of §5.3). A
``threading.Event`` stops it between steps. Every step's loss goes to memory and to ``log.jsonl``
in the run's folder; at regular steps the run decodes its probe sentence greedily and keeps a
:class:`Snapshot` (the output, its attention α — the Transformer's cross-attention of every layer ×
head —, validation BLEU, and for the RNN on the embedded grammar the AER of the validation split
against its gold alignment, Och & Ney 2003), also appended to ``snapshots.jsonl``. The finished or
stopped model is saved as a checkpoint in the shipped format (``checkpoint/``, atomic whole-folder
save), loadable by :func:`models.checkpoints.load_seq2seq` / :func:`~models.checkpoints.load_transformer`.
A stopped run also keeps its training state (``resume/state.pt``, atomic: model, Adam moments, step,
torch's random state for dropout and teacher forcing, the uploaded data); :meth:`Registry.resume`
goes on from that step to the planned steps. Batches are a function of the step
(:func:`~models.training.loop.batch_at_step`), so a stopped and resumed run ends with the weights of
an uninterrupted run of the same seed (with one training at a time: torch's random state is global).

Each run belongs to the browser session that started or uploaded it (``owner``, an opaque id the app
keeps per session): :func:`list_runs` and :func:`user_checkpoints` show a session its own runs, runs
published to everyone (:func:`publish_run`) and runs made on the command line (no owner); only the
owner may rename, delete, publish or resume a run.

Runs live under ``$ATTENTION_LAB_RUNS`` (default ``$XDG_DATA_HOME/attention-lab/runs``, i.e.
``~/.local/share/attention-lab/runs``), never in the repository. A run's zip holds its checkpoint
and logs; :func:`import_zip` accepts only those file names, within size limits.

The service is split by role: this module holds the studio's settings, data and each family's trainee
(built on the family's one recipe, shared with ``python -m models.train``) and :func:`train_run`;
:mod:`models.runs.registry` the threads and the slot queue, :mod:`models.runs.store` the saved runs,
owners and zips, :mod:`models.runs.snapshots` a run's loss log and probe snapshots.
"""

from __future__ import annotations

import copy
import functools
import io
import math
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import torch
from torch import Tensor, nn

from corpora.bert_data import (
    HELDOUT_EVERY,
    CorpusError,
    Document,
    load_web_documents,
    split_documents,
    text_documents,
)
from corpora.en_fr import Pair, make_splits
from corpora.real_pairs import LANGUAGES, REAL_CORPORA, describe, real_splits, seeded_split, unique_sources
from corpora.lm_data import line_stream, lm_corpus, text_lines
from corpora.text import detokenize, tokenize
from models.atomic import atomic_folder, first_line, write_json_atomic, write_new
from models.checkpoints import (
    CONFIG,
    MINILM_PACKAGE,
    DECODER_ONLY,
    ENCODER_DECODER,
    TOKENIZER_FILE,
    WEIGHTS,
    CheckpointError,
    LoadedSeq2Seq,
    LoadedTransformer,
    LoadedTXL,
    LoadedXLNet,
    load_bert,
    load_seq2seq,
    load_transformer,
    load_txl,
    load_xlnet,
    save_bert,
    save_seq2seq,
    save_transformer,
    save_txl,
    save_xlnet,
)
from models.device import describe_device, pick_device
from models.inference.bert import run_bert
from models.inference.generate import generate_text
from models.inference.transformer_xl import MAX_SEG, generate_with_memory, read_passage
from models.inference.translate import translate, translate_transformer
from models.inference.xlnet import MAX_K, identity_order, predict
from models.nn.bert import BertConfig, SmallBert
from models.nn.rnn_seq2seq import ATTENTIONS, Seq2Seq, Seq2SeqConfig
from models.nn.transformer import DecoderOnlyLM, Transformer, TransformerConfig
from models.nn.transformer_xl import TransformerXL, TXLConfig
from models.nn.xlnet import XLNet, XLNetConfig
from models.runs.snapshots import (
    BLEU,
    EXACT_MATCH,
    FRACTIONS,
    LOG_FILE,
    MLM_ACCURACY,
    PERPLEXITY,
    PLM_PERPLEXITY,
    SNAPSHOT_FILE,
    TASK_ACCURACY,
    Snapshot,
    snapshot_steps,
    truncate_log,
    truncate_snapshots,
)
from models.text.vocab import EOS, SOS_ID, Vocab
from models.text.wordpiece import MASK, MASK_ID
from models.text.wordpiece import WordPiece, train_wordpiece
from models.training import bert as bert_recipe
from models.training import finetune, presets
from models.training.loop import (
    Callback,
    LossOfBatch,
    Progress,
    TrainSettings,
    batch_at_step,
    fit,
    jsonl_log,
    make_optimizer,
)
from models.training.presets import Preset, model_config
from models.training.metrics import alignment_error_rate, bleu, perplexity
from models.training.seq2seq import (
    build_vocabs,
    corpus_bleu_of,
    encode_pairs,
    forced_alignments,
    rnn_loss,
)
from models.training.transformer import encode_tf_pairs, lm_loss, lm_vocab, pair_loss, translate_batch
from models.training.transformer_xl import batchify, memory_evaluation, recurrent_loss, segment_perplexity
from models.training.xlnet import permutation_loss, permutation_nll, permuted_windows

RUNS_ENV = "ATTENTION_LAB_RUNS"
RUN_FILE, CHECKPOINT = "run.json", "checkpoint"
RESUME, STATE = "resume", "state.pt"  # a stopped run's training state: resume/state.pt (never in a zip)
PAIR_DATA = ("grammar", "bible", "hsk", "upload")  # sentence pairs, for the encoder–decoders
TEXT_DATA = ("bible-text", "text")  # plain text (the World English Bible, or an uploaded file), for the LM and BERT
TASK_DATA = ("task",)  # the synthetic tasks of corpora.nli, for fine-tuning
DATA_SOURCES = PAIR_DATA + TEXT_DATA + TASK_DATA
SCORES = ("dot", "general", "concat")
RNN, TRANSFORMER, LM, BERT, XL, XLNET = "rnn", "transformer", "lm", "bert", "xl", "xlnet"  # the studio's families
FINETUNE = "finetune"  # BERT fine-tuned on a task (Devlin et al. 2019 §4), the frozen-feature head beside it
FINETUNE_BASES = ("bert-small", MINILM_PACKAGE)  # the pre-trained encoders to fine-tune (MiniLM: where installed)
FINETUNE_TEST = 300  # the task's test items scored at each snapshot
CHECKPOINT_FAMILY = {
    RNN: "seq2seq",
    TRANSFORMER: "transformer",
    LM: "transformer",
    BERT: "bert",
    XL: "transformer-xl",
    XLNET: "xlnet",
    FINETUNE: finetune.FAMILY,
}  # their checkpoints' families
TEXT_FAMILIES = (LM, BERT, XL, XLNET)  # the families that train on plain text
ARCHITECTURES = {TRANSFORMER: ENCODER_DECODER, LM: DECODER_ONLY}  # a transformer checkpoint's architecture


def data_for(family: str) -> tuple[str, ...]:
    """The data sources a studio family trains on: plain text for the LM and BERT, the synthetic task for
    fine-tuning, sentence pairs otherwise."""
    if family == FINETUNE:
        return TASK_DATA
    return TEXT_DATA if family in TEXT_FAMILIES else PAIR_DATA


# each family's validation metric; XLNet's is the permutation LM's perplexity (random orders), not an LM's
METRICS = {
    RNN: BLEU,
    TRANSFORMER: BLEU,
    LM: PERPLEXITY,
    BERT: MLM_ACCURACY,
    XL: PERPLEXITY,
    XLNET: PLM_PERPLEXITY,
    FINETUNE: TASK_ACCURACY,
}
#: every metric a run may record: a fine-tuned BERT's depends on its task (exact match for answer spans)
SCORE_METRICS = (*dict.fromkeys(METRICS.values()), EXACT_MATCH)


def finetune_bases() -> list[str]:
    """The bases the studio offers to fine-tune: those on this server within :data:`MAX_PARAMETERS` (MiniLM-L6,
    22.7 M parameters, is over it: the command line fine-tunes it, ``python -m models.train --preset minilm-nli``)."""
    out = []
    for name in FINETUNE_BASES:
        try:
            if finetune.base_parameters(name) <= MAX_PARAMETERS:
                out.append(name)
        except CheckpointError:
            continue
    return out


def metric_of(settings: RunSettings) -> str:
    """A run's validation metric: its family's, or for fine-tuning its task's (exact match for spans)."""
    if settings.family == FINETUNE and settings.task == "qa":
        return EXACT_MATCH
    return METRICS[settings.family]


LOADERS: dict[str, Callable[[Path], Any]] = {
    "seq2seq": load_seq2seq,
    "transformer": load_transformer,
    "bert": load_bert,
    "transformer-xl": load_txl,
    "xlnet": load_xlnet,
    finetune.FAMILY: finetune.load_finetuned,
}
TF_MAX_LEN = 48  # the Transformer's positions: source tokens + </s>, and target tokens + <s>/</s>
TF_TASK = "en-fr"  # the checkpoint task of a translation model: words in, </s> appended (any language pair)
LM_TASK, LM_CONTEXT, LM_VOCAB = "lm", 32, 4000  # the LM's checkpoint task (as tf-lm's), window and vocabulary cap
LM_PROBE_NEW = 8  # the probe prompt's next tokens, greedy, at each snapshot
LM_PROBE_WORDS = 6  # the default prompt: the first words of the first validation line
MAX_XL_MEM, MAX_WINDOW = 128, 64  # the studio's longest Transformer-XL memory M and XLNet window n
XL_VALID_TOKENS = 1024  # XL's validation reads one stream segment by segment: its first 1,024 held-out tokens
BERT_MAX_LEN, BERT_VOCAB, BERT_WEIGHT_DECAY = 64, 2000, 0.01  # pieces per pair, WordPiece size, AdamW's decay
N_ATTENTION_INPUTS = 50  # a fine-tuning run's test inputs over which its checkpoint measures the attention change
N_VALID_LINES, N_VALID_DOCS = 200, 6  # the LM's validation lines; BERT's validation documents (chapters)
WAITING, RUNNING, FINISHED, STOPPED, FAILED = "waiting", "running", "finished", "stopped", "failed"
STATES, ACTIVE_STATES = (WAITING, RUNNING, FINISHED, STOPPED, FAILED), (WAITING, RUNNING)
MAX_STEPS = 5000  # per-run step cap: bounds a run's time, memory (curves) and disk
N_VALID = 100  # validation sentences decoded at each snapshot (BLEU, and AER on the grammar)
MAX_NAME = 60
# What a run's zip may hold, and how large it may unpack (a checkpoint of the studio's sizes is < 5 MB).
ZIP_NAMES = frozenset(
    {
        RUN_FILE,
        LOG_FILE,
        SNAPSHOT_FILE,
        f"{CHECKPOINT}/{WEIGHTS}",
        f"{CHECKPOINT}/{CONFIG}",
        f"{CHECKPOINT}/vocab.json",
        f"{CHECKPOINT}/{TOKENIZER_FILE}",
        f"{CHECKPOINT}/{finetune.FROZEN_HEAD}",
    }
)
MAX_ZIP_BYTES = 100_000_000
#: The largest model the studio builds or imports, counted from its settings or config before anything is
#: allocated: 20 M parameters (80 MB of float32; with Adam's two moments and the gradients about 320 MB).
MAX_PARAMETERS = 20_000_000
PAIR_VOCAB = 8000  # an encoder–decoder's words per side: the most frequent; the rest read as <unk>
CHECKPOINT_EVERY = 100  # steps between a training run's saves of its state (a killed server resumes from there)

TokenPair = tuple[Sequence[str], Sequence[str]]
Line = tuple[str, ...]  # one line of text as tokens (the LM, Transformer-XL, XLNet)
Upload = Sequence[TokenPair] | str  # an uploaded file's sentence pairs, or its text (LM, BERT)


# The English of every RunError by id (the app's string table holds each id with its 中文,
# ui/strings/studio.py).
MESSAGES: dict[str, str] = {
    "run.err.unknown": "unknown family {family!r}, data {data!r}, attention {attention!r} or score {score!r}",
    "run.err.steps": "steps must be between 1 and {most}, not {steps}",
    "run.err.range": "a setting is out of range",
    "run.err.transformer": "the Transformer needs 1–6 layers and 1–16 heads that divide the hidden size",
    "run.err.no_pairs": "no sentence pairs were given for this run",
    "run.err.full": "this server keeps at most {most} runs: delete some first",
    "run.err.no_run": "there is no saved run {run_id!r}",
    "run.err.no_name": "a run needs a name",
    "run.err.not_zip": "this file is not a zip of a training run",
    "run.err.strange": "the zip holds a file a run does not have: {name!r}",
    "run.err.twice": "the zip holds a file twice",
    "run.err.too_big": "the zip unpacks to more than {mb:.0f} MB",
    "run.err.damaged": "the zip is damaged: {detail}",
    "run.err.lying": "the zip is damaged: a file is larger than its header says",
    "run.err.no_checkpoint": "the zip holds no checkpoint",
    "run.err.other_model": "the zip's checkpoint does not load: it is not a model the studio trains",
    "run.err.bad_checkpoint": "the zip's checkpoint does not load: {detail}",
    "run.err.no_resume": "this run cannot be resumed: it kept no training state (it finished, or was uploaded)",
    "run.err.not_yours": "only the session that made this run may change it",
    "run.err.data_family": "{family} trains on {kinds}, not on {data!r}",
    "run.err.no_text": "no text was given for this run",
    "run.err.short_text": "the text is too short to train on: {detail}",
    "run.err.xl": "Transformer-XL needs a segment length of 2–{seg} and a memory of 0–{mem} tokens",
    "run.err.xlnet": "XLNet needs a window of 4–{window} tokens and a K of 1–{k} (at most the window)",
    "run.err.short_probe": "XLNet's probe needs at least 2 words (it predicts words from the other words)",
    "run.err.bad_field": "the run's record is not one the studio writes: its field {field!r} is wrong",
    "run.err.quota": "you keep at most {most} runs here: delete one of yours first",
    "run.err.one_at_a_time": "you already have a run training or waiting: wait for it, or stop it first",
    "run.err.busy": "this run is training in another process of the server",
    "run.err.too_large_model": "this model is too large for the studio (over {most:.0f} million parameters)",
    "run.err.finetune": "fine-tuning needs a task of {tasks} and a base of {bases}",
    "run.err.no_base": "the base model {base!r} is not installed on this server",
}


class RunError(RuntimeError):
    """A run cannot be started, found, changed or imported; the message says why in one line. ``key``:
    its id in :data:`MESSAGES`, filled with ``params`` (so the app can say it in another language)."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(MESSAGES[key].format(**params))
        self.key, self.params = key, params


def runs_dir() -> Path:
    """``$ATTENTION_LAB_RUNS``, else ``$XDG_DATA_HOME/attention-lab/runs`` (``~/.local/share/…``)."""
    if os.environ.get(RUNS_ENV):
        return Path(os.environ[RUNS_ENV]).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "attention-lab" / "runs"


@dataclass(frozen=True)
class RunSettings:
    """Everything a studio run is made from: the studio's form, bounded and JSON-able (kept in run.json and the
    checkpoint). The engine reads it in its one settings shape, :meth:`preset` (the command line's Preset).

    Model: ``family`` rnn | transformer (encoder–decoders, on sentence pairs) | lm (a decoder-only
    Transformer LM) | bert (a small BERT), the last two on text; ``hidden`` (the RNN's embedding,
    per-direction GRU and attention size; the Transformers' d_model, with d_ff = 4·d_model); ``dropout``. RNN only:
    ``attention`` none | bahdanau | luong (``score`` dot | general | concat), ``bidirectional``
    encoder, ``teacher_forcing`` (probability of feeding the gold previous token). Transformers only:
    ``layers`` (encoder and decoder each), ``heads``, ``label_smoothing`` ε (not BERT's). Training: ``steps``,
    ``batch_size``, peak ``lr`` (linear warm-up over 10% of the steps, then linear decay). Data:
    ``data`` (one of :data:`PAIR_DATA` for the encoder–decoders, of :data:`TEXT_DATA` for the text
    families), ``n_train`` pairs, or lines (LM, XL, XLNet) or sentences (BERT) of text. Transformer-XL
    (``xl``, Dai et al. 2019): segment length ``seg_len`` L and memory ``mem_len`` M; XLNet (``xlnet``,
    Yang et al. 2019): its window ``window`` n and partial prediction ``k_split`` K. ``probe``: the sentence
    decoded at each of ``snapshots`` snapshots (empty: the first validation sentence, with its gold alignment if
    any). Fine-tuning (``finetune``, Devlin et al. 2019 §4): the ``task`` (cls | nli | qa, :mod:`corpora.nli`)
    and the pre-trained ``base`` (:data:`FINETUNE_BASES`), whose size it keeps (``hidden``, ``layers`` and
    ``heads`` are not used)."""

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
    seg_len: int = 16
    mem_len: int = 16
    window: int = 16
    k_split: int = 4
    checkpoint_every: int = CHECKPOINT_EVERY
    task: str = "nli"
    base: str = "bert-small"

    def __post_init__(self) -> None:
        if (
            self.family not in CHECKPOINT_FAMILY
            or self.data not in DATA_SOURCES
            or self.attention not in ATTENTIONS
            or self.score not in SCORES
        ):
            raise RunError(
                "run.err.unknown", family=self.family, data=self.data, attention=self.attention, score=self.score
            )
        if not 1 <= self.steps <= MAX_STEPS:
            raise RunError("run.err.steps", most=MAX_STEPS, steps=self.steps)
        if not (
            1 <= self.batch_size <= 512
            and 4 <= self.hidden <= 512
            and 1 <= self.snapshots <= 100
            and 0 < self.lr <= 1
            and 0 <= self.dropout < 1
            and 0 <= self.teacher_forcing <= 1
            and 0 <= self.label_smoothing < 1
            and self.n_train >= 10
            and len(self.probe) <= 500
        ):
            raise RunError("run.err.range")
        if self.family != RNN and not (
            1 <= self.layers <= 6 and 1 <= self.heads <= 16 and self.hidden % self.heads == 0
        ):
            raise RunError("run.err.transformer")
        if self.family == XL and not (2 <= self.seg_len <= MAX_SEG and 0 <= self.mem_len <= MAX_XL_MEM):
            raise RunError("run.err.xl", seg=MAX_SEG, mem=MAX_XL_MEM)
        if self.family == XLNET and not (
            4 <= self.window <= MAX_WINDOW and 1 <= self.k_split <= min(MAX_K, self.window)
        ):
            raise RunError("run.err.xlnet", window=MAX_WINDOW, k=MAX_K)
        if self.task not in finetune.TASKS or self.base not in FINETUNE_BASES:
            raise RunError("run.err.finetune", tasks=", ".join(finetune.TASKS), bases=", ".join(FINETUNE_BASES))
        kinds = data_for(self.family)
        if self.data not in kinds:
            raise RunError("run.err.data_family", family=self.family, kinds=", ".join(kinds), data=self.data)
        if not (isinstance(self.checkpoint_every, int) and 0 <= self.checkpoint_every <= MAX_STEPS):
            raise RunError("run.err.range")
        if self.parameters() > MAX_PARAMETERS:
            raise RunError("run.err.too_large_model", most=MAX_PARAMETERS / 1e6)

    def parameters(self) -> int:
        """An upper estimate of the model's parameters from the settings alone, with each family's
        vocabulary at its cap (:data:`PAIR_VOCAB` per side, ``LM_VOCAB``, ``BERT_VOCAB``): embeddings
        and output layers 2·V·d, and per layer 8·d² + 2·d·d_ff (d_ff = 4d; an RNN: 12·d² per direction
        and layer, plus its attention's 4·d²). Fine-tuning: the base's own count (RunError when the base is not
        on this server)."""
        if self.family == FINETUNE:
            try:
                return finetune.base_parameters(self.base)
            except CheckpointError:
                raise RunError("run.err.no_base", base=self.base) from None
        d = self.hidden
        if self.family == RNN:
            return 2 * 2 * PAIR_VOCAB * d + 2 * 12 * d * d + 4 * d * d
        vocab = {TRANSFORMER: 2 * PAIR_VOCAB, BERT: BERT_VOCAB}.get(self.family, LM_VOCAB)
        return 2 * vocab * d + 2 * self.layers * (8 * d * d + 2 * d * 4 * d)

    def preset(self) -> Preset:
        """The run in the engine's one settings shape (:class:`~models.training.presets.Preset`, as the
        command line's recipes): the family and task, the model config's fields at the studio's size (d_ff =
        4·hidden; each family's choices as its shipped preset: tied embeddings for the LM, post-LN BERT with
        its MLM and NSP heads), Adam's settings (linear warm-up over 10% of the steps) and the data settings.
        The trainees read only this."""
        h, dropout = self.hidden, self.dropout
        block: dict[str, Any] = dict(d_model=h, n_heads=self.heads, d_ff=4 * h, dropout=dropout)
        shapes: dict[str, tuple[str, str, dict[str, Any]]] = {
            RNN: (
                presets.SEQ2SEQ,
                pair_task(self.data),
                dict(
                    attention=self.attention,
                    score=self.score,
                    bidirectional=self.bidirectional,
                    emb_dim=h,
                    hidden_dim=h,
                    attn_dim=h,
                    dropout=dropout,
                ),
            ),
            TRANSFORMER: (
                presets.TRANSFORMER,
                pair_task(self.data),
                dict(block, num_encoder_layers=self.layers, num_decoder_layers=self.layers, max_len=TF_MAX_LEN),
            ),
            LM: (
                presets.TRANSFORMER,
                LM_TASK,
                dict(block, num_decoder_layers=self.layers, max_len=LM_CONTEXT, tie_embeddings=True),
            ),
            BERT: (
                presets.BERT,
                "mlm",
                dict(
                    block,
                    n_layers=self.layers,
                    max_len=BERT_MAX_LEN,
                    norm_first=False,
                    trained_heads=["mlm", "nsp"],
                ),
            ),
            XL: (
                presets.TRANSFORMER_XL,
                LM_TASK,
                dict(block, n_layers=self.layers, seg_len=self.seg_len, mem_len=self.mem_len),
            ),
            XLNET: (presets.XLNET, "plm", dict(block, n_layers=self.layers, max_len=self.window, k_split=self.k_split)),
            FINETUNE: (presets.BERT, f"{presets.FINETUNE}{self.task}", {}),
        }
        family, task, model = shapes[self.family]
        train = TrainSettings(
            steps=self.steps,
            batch_size=self.batch_size,
            lr=self.lr,
            warmup=max(1, self.steps // 10),
            seed=self.seed,
            teacher_forcing=self.teacher_forcing,
            label_smoothing=self.label_smoothing,
            max_minutes=60.0,
        )
        data = dict(
            source=self.data,
            n_train=self.n_train,
            probe=self.probe,
            snapshots=self.snapshots,
            checkpoint_every=self.checkpoint_every,
            **({"base": self.base} if self.family == FINETUNE else {}),
        )
        return Preset(self.name, self.name, 0, family, task, model, train, data)


def pair_task(data: str) -> str:
    """A pair source's task name, "src-tgt" (HSK: zh-en; the grammar, the Bible and uploads: en-fr)."""
    return "-".join(pair_languages(data).values())


def studio_family(p: Preset) -> str:
    """The studio family a Preset of the studio's shape trains (rnn, transformer, lm, bert, xl, xlnet, finetune)."""
    if p.task.startswith(presets.FINETUNE):
        return FINETUNE
    if p.family == presets.TRANSFORMER:
        return LM if p.task == LM_TASK else TRANSFORMER
    return {presets.SEQ2SEQ: RNN, presets.BERT: BERT, presets.TRANSFORMER_XL: XL, presets.XLNET: XLNET}[p.family]


#: Presets that train in about a minute on a laptop CPU core (the names are string ids' keys). The quick
#: Bahdanau preset measured on a busy 2-core machine (`python -m bench.studio_quick`): 900 steps in
#: 118 s, test BLEU 81.4, AER of the snapshots 0.91 → 0.15. The quick LM (`--preset lm`): 300 steps in
#: 22 s wall, validation perplexity 4114 → 110; the quick BERT (`--preset bert`): 300 steps in 20 s wall,
#: masked-LM accuracy 0 → 9.4%; the quick Transformer-XL (`--preset xl`): 300 steps in 9.8 s wall, validation
#: perplexity with memory 3996 → 99; the quick XLNet (`--preset xlnet`): 300 steps in 8.7 s wall, held-out
#: permutation-LM perplexity 4135 → 181.
PRESETS: dict[str, RunSettings] = {
    "bahdanau": RunSettings(attention="bahdanau"),
    "luong": RunSettings(attention="luong", score="general"),
    "none": RunSettings(attention="none"),
    "transformer": RunSettings(
        family=TRANSFORMER, hidden=64, heads=4, layers=2, lr=2e-3, batch_size=32, label_smoothing=0.1
    ),
    "tiny": RunSettings(attention="bahdanau", hidden=16, steps=40, batch_size=16, n_train=400, snapshots=4),
    "tiny-transformer": RunSettings(
        family=TRANSFORMER, hidden=16, heads=2, layers=1, lr=2e-3, steps=40, batch_size=16, n_train=400, snapshots=4
    ),
    "lm": RunSettings(
        family=LM,
        data="bible-text",
        hidden=64,
        heads=4,
        layers=2,
        lr=3e-3,
        batch_size=16,
        steps=300,
        n_train=6000,
        snapshots=6,
    ),
    "bert": RunSettings(
        family=BERT,
        data="bible-text",
        hidden=64,
        heads=4,
        layers=2,
        lr=1e-3,
        batch_size=32,
        steps=300,
        n_train=4000,
        snapshots=6,
    ),
    "tiny-lm": RunSettings(
        family=LM,
        data="bible-text",
        hidden=16,
        heads=2,
        layers=1,
        lr=3e-3,
        batch_size=8,
        steps=20,
        n_train=300,
        snapshots=2,
    ),
    "tiny-bert": RunSettings(
        family=BERT,
        data="bible-text",
        hidden=16,
        heads=2,
        layers=1,
        lr=1e-3,
        batch_size=8,
        steps=20,
        n_train=300,
        snapshots=2,
    ),
    "xl": RunSettings(
        family=XL,
        data="bible-text",
        hidden=64,
        heads=4,
        layers=2,
        lr=3e-3,
        batch_size=16,
        steps=300,
        n_train=6000,
        snapshots=6,
        seg_len=16,
        mem_len=16,
    ),
    "xlnet": RunSettings(
        family=XLNET,
        data="bible-text",
        hidden=64,
        heads=4,
        layers=2,
        lr=3e-3,
        batch_size=16,
        steps=300,
        n_train=6000,
        snapshots=6,
        window=16,
        k_split=4,
    ),
    "tiny-xl": RunSettings(
        family=XL,
        data="bible-text",
        hidden=16,
        heads=2,
        layers=1,
        lr=3e-3,
        batch_size=4,
        steps=20,
        n_train=300,
        snapshots=2,
        seg_len=8,
        mem_len=8,
    ),
    "finetune": RunSettings(
        family=FINETUNE, data="task", task="nli", lr=3e-4, batch_size=32, steps=300, n_train=6000, snapshots=6
    ),
    "tiny-finetune": RunSettings(
        family=FINETUNE, data="task", task="cls", lr=3e-4, batch_size=8, steps=10, n_train=200, snapshots=2
    ),
    "tiny-xlnet": RunSettings(
        family=XLNET,
        data="bible-text",
        hidden=16,
        heads=2,
        layers=1,
        lr=3e-3,
        batch_size=8,
        steps=20,
        n_train=300,
        snapshots=2,
        window=12,
        k_split=3,
    ),
}


@dataclass
class PairData:
    """A run's training and validation sentence pairs (the encoder–decoders)."""

    train: Sequence[TokenPair]
    valid: Sequence[TokenPair]
    gold: list[Pair] | None  # validation pairs with gold alignments (the embedded grammar only)
    description: str


@dataclass
class LineData:
    """A run's training and validation token lines (the LM, Transformer-XL, XLNet)."""

    train: list[Line]
    valid: list[Line]
    gold: None
    description: str


@dataclass
class DocData:
    """A run's training and validation documents of sentences (BERT)."""

    train: list[Document]
    valid: list[Document]
    gold: None
    description: str
    tokenizer: WordPiece | None = None  # BERT's vocabulary when it is given (a resumed run's), not learnt


@dataclass
class TaskData:
    """A fine-tuning run's task (:mod:`corpora.nli`): its training and test items encoded with the base's
    WordPiece, and the pre-trained base itself."""

    train: list[tuple[Any, finetune.Encoded]]
    valid: list[tuple[Any, finetune.Encoded]]  # the task's test split
    gold: None
    description: str
    base: SmallBert
    tokenizer: WordPiece


Data = PairData | LineData | DocData | TaskData  # a run's training and validation items


def load_task(p: Preset) -> TaskData:
    """The base to fine-tune and its task's splits (``n_train`` training items, :data:`FINETUNE_TEST` test
    items, each that fits the base's positions); RunError when the base is not on this server."""
    name, task = p.data["base"], p.task.removeprefix(presets.FINETUNE)
    try:
        base, tokenizer = finetune.load_base(name)
    except CheckpointError:
        raise RunError("run.err.no_base", base=name) from None
    sizes = {"n_train": p.data["n_train"], "n_test": FINETUNE_TEST}
    splits = finetune.task_data(task, sizes, tokenizer, base.config.max_len)
    if len(splits["train"]) < 2 or not splits["test"]:
        raise RunError("run.err.short_text", detail="the task has too few items")
    description = f"synthetic {task} task of the lab's grammar (corpora/nli.py), {name}"
    return TaskData(splits["train"], splits["test"], None, description, base, tokenizer)


def load_text(p: Preset, text: str | None = None) -> LineData | DocData:
    """The LM's token lines or BERT's documents: the World English Bible (its own held-out chapters:
    :mod:`corpora.lm_data`, :mod:`corpora.bert_data`) or an uploaded ``text`` (LM: 95/5 by line; BERT:
    paragraphs are documents, every 10th held out); at most ``n_train`` training lines or sentences,
    :data:`N_VALID_LINES` validation lines, :data:`N_VALID_DOCS` validation documents."""
    source, n_train = p.data["source"], int(p.data["n_train"])
    if source == "text" and not (text or "").strip():
        raise RunError("run.err.no_text")
    name = "uploaded text"
    try:
        if p.family != presets.BERT:  # token lines: the LM, Transformer-XL, XLNet
            if source == "bible-text":
                train, held, description = lm_corpus(None)
            else:
                lines = text_lines(str(text), name)
                n_held = max(1, len(lines) // 20)
                train, held = lines[n_held:], lines[:n_held]
                description = "uploaded text, held out: the first 5% of lines"
            return LineData(train[:n_train], held[:N_VALID_LINES], None, description)
        docs = load_web_documents() if source == "bible-text" else text_documents(str(text), name)
        train_docs, held_docs = split_documents(docs, every=HELDOUT_EVERY if source == "bible-text" else 10)
    except (ValueError, CorpusError) as exc:
        raise RunError("run.err.short_text", detail=first_line(exc)) from None
    kept: list[Document] = []
    n = 0
    for doc in train_docs:
        if n >= n_train:
            break
        kept.append(doc)
        n += len(doc.sentences)
    description = (
        "World English Bible chapters, every 20th held out"
        if source == "bible-text"
        else "uploaded text: its paragraphs, every 10th held out"
    )
    return DocData(kept, held_docs[:N_VALID_DOCS], None, description)


def load_data(p: Preset, pairs: Sequence[TokenPair] | None = None) -> PairData:
    """The run's training and validation pairs: the embedded grammar (with gold alignments), WEB→Segond
    verse pairs, HSK Chinese→English, or ``pairs`` from an uploaded file (one pair per source sentence,
    split 95/5 with at most :data:`N_VALID` for validation, seeded)."""
    source, n_train, seed = p.data["source"], int(p.data["n_train"]), p.train.seed
    if source == "grammar":
        grammar = make_splits(seed=seed, n_train=n_train, n_valid=N_VALID, n_test=N_VALID)
        return PairData(
            [(p.src, p.tgt) for p in grammar["train"]],
            [(p.src, p.tgt) for p in grammar["valid"]],
            grammar["valid"],
            "embedded English→French grammar",
        )
    if source in REAL_CORPORA:
        # the fixed splits of corpora.real_pairs: a studio run never trains on the evaluation's test sentences
        splits = real_splits(source)
        return PairData(splits["train"][:n_train], splits["valid"][:N_VALID], None, describe(source))
    if not pairs:
        raise RunError("run.err.no_pairs")
    # one pair per source sentence (the Bible repeats verses), so that no validation source is trained on
    n_valid = min(N_VALID, max(1, len(unique_sources(pairs)) // 20))
    valid, train = seeded_split(pairs, seed, n_valid)
    return PairData(train[:n_train], valid, None, "uploaded sentence pairs")


@dataclass
class Run:
    """One run's live state; the thread writes it, the page reads it (plain values, no locks needed
    for reading: lists only grow)."""

    id: str
    settings: RunSettings
    folder: Path
    created: float = field(default_factory=time.time)
    owner: str | None = None  # the session that started it (None: the command line, visible to all)
    published: bool = False
    status: str = WAITING
    message: str = ""
    message_key: str = ""  # the failure's RunError id, with its params: the message in other languages
    message_params: dict[str, object] = field(default_factory=dict)
    device: str = ""
    data: str = ""
    step: int = 0
    elapsed: float = 0.0
    tokens_per_second: float = 0.0
    losses: list[float] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)
    vocab_cut: list[tuple[int, int]] = field(default_factory=list)  # (words kept, words seen) per vocabulary
    preparing: tuple[int, int] = (0, 0)  # (step, steps) of what trains before step 0: fine-tuning's frozen head
    stop: threading.Event = field(default_factory=threading.Event, repr=False)
    thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_STATES

    @property
    def checkpoint(self) -> Path:
        return self.folder / CHECKPOINT

    @property
    def preparing_now(self) -> bool:
        """Whether what trains before step 0 (fine-tuning's frozen head) is training now: also on a resumed
        run, whose ``step`` is already its old one while that stage trains again."""
        done, total = self.preparing
        return 0 < total and done < total

    def eta(self) -> float | None:
        """Seconds left at the mean speed so far (None before the first step)."""
        if not self.step:
            return None
        return self.elapsed / self.step * (self.settings.steps - self.step)


def new_run_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


@dataclass
class Trainee:
    """One family's private model for a run and what the run does with it: the batch loss for
    ``fit`` (a function of the step), the probe's decoding (src tokens, output tokens, α) and the
    validation scores (both on a CPU model; ``score`` in units of ``metric``), and the checkpoint writer."""

    model: nn.Module
    loss_of_batch: LossOfBatch
    decode: Callable[[nn.Module, str], tuple[list[str], list[str], np.ndarray | None]]
    score: Callable[[nn.Module], float]
    aer: Callable[[nn.Module], float] | None
    save: Callable[[Path, dict], Path]
    param_groups: list[dict[str, Any]] | None = None  # for make_optimizer (AdamW groups), default all parameters
    metric: str = BLEU
    carry: dict[str, Any] = field(default_factory=dict)  # state that steps hand on (XL's memory): kept on a stop
    vocab_cut: list[tuple[int, int]] = field(default_factory=list)  # (words kept, words seen) per vocabulary


def capped_vocabs(pairs: Sequence[TokenPair]) -> tuple[Vocab, Vocab, list[tuple[int, int]]]:
    """An encoder–decoder's source and target vocabularies, each cut to :data:`PAIR_VOCAB` by frequency."""
    full_src, full_tgt = build_vocabs(pairs)
    (src, cut_src), (tgt, cut_tgt) = full_src.capped(PAIR_VOCAB), full_tgt.capped(PAIR_VOCAB)
    return src, tgt, [cut_src, cut_tgt]


_ModelT = TypeVar("_ModelT", bound=nn.Module)


def model_as(model: nn.Module, cls: type[_ModelT]) -> _ModelT:
    """``model`` (the CPU copy of a trainee's own model that its decode and score receive) as its
    family's class; TypeError for a model of another class."""
    if not isinstance(model, cls):
        raise TypeError(f"expected a {cls.__name__} model, got {type(model).__name__}")
    return model


def pair_languages(data: str) -> dict[str, str]:
    """A pair source's languages, recorded with the run: they tell translation how to read the probe
    and typed input (HSK: Chinese, segmented); the grammar and uploaded pairs read as English→French."""
    return dict(zip(("src_lang", "tgt_lang"), LANGUAGES.get(data, ("en", "fr"))))


def rnn_trainee(p: Preset, data: PairData, device: torch.device) -> Trainee:
    """A Seq2Seq with teacher-forced (or scheduled-sampling) cross-entropy over length-bucketed batches."""
    src_vocab, tgt_vocab, cut = capped_vocabs(data.train)
    cfg = model_config(p, Seq2SeqConfig, len(tgt_vocab), len(src_vocab))
    model = Seq2Seq(cfg).to(device)
    languages, settings = pair_languages(p.data["source"]), p.train
    loss_of_batch = rnn_loss(
        model,
        encode_pairs(data.train, src_vocab, tgt_vocab, cfg),
        settings.batch_size,
        settings.seed,
        settings.teacher_forcing,
        device,
    )

    def decode(cpu: nn.Module, probe: str) -> tuple[list[str], list[str], np.ndarray | None]:
        trace = translate(LoadedSeq2Seq(p.name, model_as(cpu, Seq2Seq), src_vocab, tgt_vocab, languages), probe)
        return trace.src_tokens, trace.tgt_tokens, trace.attention

    aer: Callable[[nn.Module], float] | None = None
    gold = data.gold
    if gold is not None and cfg.attention != "none":

        def aer(cpu: nn.Module) -> float:
            links = forced_alignments(model_as(cpu, Seq2Seq), src_vocab, tgt_vocab, gold)
            return alignment_error_rate(links, [set(p.alignment) for p in gold])

    return Trainee(
        model,
        loss_of_batch,
        decode,
        lambda cpu: corpus_bleu_of(model_as(cpu, Seq2Seq), src_vocab, tgt_vocab, data.valid),
        aer,
        lambda folder, record: save_seq2seq(folder, model.to("cpu"), src_vocab, tgt_vocab, {**record, **languages}),
        vocab_cut=cut,
    )


def transformer_trainee(p: Preset, data: PairData, device: torch.device) -> Trainee:
    """A Transformer encoder–decoder with label-smoothed cross-entropy (§5.4) over length-bucketed batches."""
    src_vocab, tgt_vocab, cut = capped_vocabs(data.train)
    limit = TF_MAX_LEN - 1
    encoded = encode_tf_pairs(data.train, src_vocab, tgt_vocab, limit, TF_MAX_LEN - 2)
    cfg = model_config(p, TransformerConfig, len(tgt_vocab), len(src_vocab))
    model = Transformer(cfg).to(device)
    languages, settings = pair_languages(p.data["source"]), p.train
    loss_of_batch = pair_loss(model, encoded, settings.batch_size, settings.seed, settings.label_smoothing, device)

    def decode(cpu: nn.Module, probe: str) -> tuple[list[str], list[str], np.ndarray | None]:
        loaded = LoadedTransformer(
            p.name,
            model_as(cpu, Transformer),
            ENCODER_DECODER,
            TF_TASK,
            src_vocab.itos,
            tgt_vocab.itos,
            {"max_src_len": TF_MAX_LEN, **languages},
        )
        trace = translate_transformer(loaded, probe)
        return trace.src_tokens, trace.tgt_tokens, trace.cross_attention

    def valid_bleu(cpu: nn.Module) -> float:
        hyps = translate_batch(
            model_as(cpu, Transformer), [x for x, _ in data.valid], src_vocab.stoi, tgt_vocab.itos, limit
        )
        return bleu(hyps, [list(y) for _, y in data.valid])

    def save(folder: Path, record: dict) -> Path:
        return save_transformer(
            folder,
            model.to("cpu"),
            TF_TASK,
            src_vocab.itos,
            tgt_vocab.itos,
            dict(record, max_src_len=TF_MAX_LEN, **languages),
        )

    return Trainee(model, loss_of_batch, decode, valid_bleu, None, save, vocab_cut=cut)


def lm_trainee(p: Preset, data: LineData, device: torch.device) -> Trainee:
    """A decoder-only Transformer LM (tf-lm's recipe, :mod:`models.training.transformer`, at the studio's
    size): next-token cross-entropy over random windows of the text's ``<s> line </s>`` stream;
    validation perplexity exp(mean −log p) on held-out lines; the probe: its greedy next tokens."""
    vocab = lm_vocab(data.train, LM_VOCAB)
    stream = torch.as_tensor(line_stream(data.train, vocab), dtype=torch.long)
    if len(stream) < LM_CONTEXT + 2:
        raise RunError("run.err.short_text", detail=f"{len(stream)} tokens for a window of {LM_CONTEXT}")
    held = line_stream(data.valid, vocab)
    cfg, settings = model_config(p, TransformerConfig, len(vocab)), p.train
    model = DecoderOnlyLM(cfg).to(device)
    loss_of_batch = lm_loss(
        model, stream, LM_CONTEXT, settings.batch_size, settings.seed, settings.label_smoothing, device
    )

    def decode(cpu: nn.Module, probe: str) -> tuple[list[str], list[str], np.ndarray | None]:
        loaded = LoadedTransformer(
            p.name, model_as(cpu, DecoderOnlyLM), DECODER_ONLY, LM_TASK, vocab.itos, vocab.itos, {}
        )
        trace = generate_text(loaded, probe, max_new=LM_PROBE_NEW, temperature=0.0)  # greedy, its own generator
        return trace.tokens, trace.generated_tokens, trace.attention

    def save(folder: Path, record: dict) -> Path:
        return save_transformer(
            folder,
            model.to("cpu"),
            LM_TASK,
            vocab.itos,
            vocab.itos,
            dict(record, task=LM_TASK, context=LM_CONTEXT, vocab_cap=len(vocab)),
        )

    return Trainee(
        model,
        loss_of_batch,
        decode,
        lambda cpu: perplexity(model_as(cpu, DecoderOnlyLM), held, LM_CONTEXT, skip_id=SOS_ID)[0],
        None,
        save,
        metric=PERPLEXITY,
    )


def bert_trainee(p: Preset, data: DocData, device: torch.device) -> Trainee:
    """A small BERT (Devlin et al. 2019; bert-small's recipe, :mod:`models.training.bert`, at the studio's
    size): a WordPiece vocabulary of the training text, then masked-LM + next-sentence losses on
    ``[CLS] A [SEP] B [SEP]`` pairs with the 80/10/10 masking rule, masked afresh at every step (its
    masks drawn from a generator seeded by (seed, step), so that batches are a function of the step);
    AdamW with weight decay. Validation: masked-LM top-1 accuracy on held-out documents; the probe:
    the top piece at each [MASK]."""
    tokenizer, settings, seed = (
        data.tokenizer or studio_wordpiece(tuple(sentences_of_docs(data.train))),
        p.train,
        p.train.seed,
    )
    corpus = bert_recipe.encode_documents(data.train, tokenizer)
    held = bert_recipe.encode_documents(data.valid, tokenizer)
    if len(corpus.docs) < 2 or sum(max(0, len(d) - 1) for d in corpus.docs) < settings.batch_size:
        raise RunError("run.err.short_text", detail="BERT needs two paragraphs and a batch of sentence pairs")
    cfg = model_config(p, BertConfig, tokenizer.vocab_size)
    model = SmallBert(cfg).to(device)
    pairs_at = batch_at_step(bert_recipe.pair_batches(corpus, settings.batch_size, np.random.default_rng(seed)))

    def loss_of_batch(step: int) -> tuple[Tensor, int]:
        _epoch, chunk = pairs_at(step)
        mlm, nsp, n_tokens = bert_recipe.pretraining_losses(model, chunk, np.random.default_rng([seed, step]), device)
        return mlm + nsp, n_tokens

    def decode(cpu: nn.Module, probe: str) -> tuple[list[str], list[str], np.ndarray | None]:
        enc = tokenizer.assemble(tokenizer.pieces(probe)[0], None, BERT_MAX_LEN)
        trace = run_bert(model_as(cpu, SmallBert), enc.ids, enc.segment_ids, top_k=1)
        masked = [i for i, x in enumerate(enc.ids) if x == MASK_ID]
        return enc.tokens, [tokenizer.id_to_token(int(trace.top_ids[i][0])) for i in masked], trace.attention

    def accuracy(cpu: nn.Module) -> float:
        return bert_recipe.evaluate_bert(model_as(cpu, SmallBert), held, repeats=1)["mlm_top1"]

    def save(folder: Path, record: dict) -> Path:
        return save_bert(folder, model.to("cpu"), tokenizer, record)

    return Trainee(
        model,
        loss_of_batch,
        decode,
        accuracy,
        None,
        save,
        bert_recipe.param_groups(model, BERT_WEIGHT_DECAY),
        MLM_ACCURACY,
    )


def finetune_trainee(
    p: Preset,
    data: TaskData,
    device: torch.device,
    stop: threading.Event | None = None,
    before: Sequence[Callback] = (),
) -> Trainee:
    """The pre-trained base fine-tuned end to end on its task (Devlin et al. 2019 §4; the CLI's recipe,
    :mod:`models.training.finetune`: :func:`~models.training.finetune.fresh_model`, AdamW's groups
    :func:`~models.training.finetune.param_groups`, the batch loss :func:`~models.training.finetune.task_loss`).
    Before it, the frozen-feature head (§5.3) trains on the same split and steps (the same recipe, ``frozen``),
    reporting each step to ``before`` and ending early when ``stop`` is set. Score: the task's test metric
    (accuracy, or exact match of the answer's words); the probe: its pieces, the predicted label (or answer
    span) and every layer × head's attention."""
    task, settings, seed, base = p.task.removeprefix(presets.FINETUNE), p.train, p.train.seed, p.data["base"]
    head = finetune.fresh_model(data.base, task, seed)
    frozen = finetune.frozen_settings(settings)
    frozen_steps = int(
        finetune.train_one(head, task, data.train, frozen, device, frozen=True, callbacks=before, stop=stop)["steps"]
    )  # fewer than frozen.steps when Stop ended the stage: the record says so
    frozen_head = {k: v.detach().clone() for k, v in finetune.head_of(head, task).state_dict().items()}
    frozen_score = finetune.score_of(finetune.predict(head, task, data.valid))
    del head
    torch.manual_seed(seed)
    model = finetune.fresh_model(data.base, task, seed).to(device)
    groups = finetune.param_groups(model, task, frozen=False, weight_decay=BERT_WEIGHT_DECAY)
    loss_of_batch = finetune.task_loss(model, task, data.train, settings.batch_size, seed, device)

    def decode(cpu: nn.Module, probe: str) -> tuple[list[str], list[str], np.ndarray | None]:
        return finetune.read_probe(model_as(cpu, SmallBert), data.tokenizer, task, probe)

    def score(cpu: nn.Module) -> float:
        return finetune.score_of(finetune.predict(model_as(cpu, SmallBert), task, data.valid))

    def save(folder: Path, record: dict) -> Path:
        cpu = model.to("cpu").eval()
        inputs = data.valid[:N_ATTENTION_INPUTS]
        change = finetune.mean_attention_change(data.base, cpu, inputs)
        splits = {"train": data.train, "test": data.valid}
        tuned = score(cpu)
        summary = finetune.task_record(task, base, splits, tuned, frozen_score, change, N_ATTENTION_INPUTS)
        sizes = {
            "base": base,
            "n_train": p.data["n_train"],
            "n_test": FINETUNE_TEST,
            "frozen_lr": finetune.FROZEN_LR,
            "frozen_steps": frozen_steps,
            "frozen_of": frozen.steps,
        }
        return finetune.save_finetuned(
            folder, cpu, frozen_head, data.tokenizer, dict(record, **summary, data_settings=sizes)
        )

    return Trainee(
        model, loss_of_batch, decode, score, None, save, groups, EXACT_MATCH if task == "qa" else TASK_ACCURACY
    )


def text_stream(data: LineData, vocab_cap: int, minimum: int) -> tuple[Any, list[int], list[int]]:
    """(vocabulary, training stream, held-out stream) of a text run's token lines (``<s> line </s>``,
    the ``vocab_cap`` most frequent tokens); RunError when the training stream is shorter than ``minimum``."""
    vocab = lm_vocab(data.train, vocab_cap)
    stream = line_stream(data.train, vocab)
    if len(stream) < minimum:
        raise RunError("run.err.short_text", detail=f"{len(stream)} tokens, {minimum} needed")
    return vocab, stream, line_stream(data.valid, vocab)


def xl_trainee(p: Preset, data: LineData, device: torch.device) -> Trainee:
    """A Transformer-XL LM (Dai et al. 2019; xl-lm's recipe, :func:`models.training.transformer_xl.recurrent_loss`,
    at the studio's size): the text cut into B contiguous streams, step t reads segment t of each after the
    memory step t − 1 left (kept in ``carry``, so a stopped run goes on with it). Validation: perplexity with
    memory M (:func:`~models.training.transformer_xl.segment_perplexity`) over the first
    :data:`XL_VALID_TOKENS` held-out tokens, read in order; the checkpoint also records it without
    memory (the Transformer-XL page's "Does memory help?"). The probe: its last segment's
    attention over [memory | segment] and its greedy next tokens."""
    vocab, stream, held = text_stream(data, LM_VOCAB, 0)
    held, settings = held[: XL_VALID_TOKENS + 1], p.train
    seg_len, mem_len = int(p.model["seg_len"]), int(p.model["mem_len"])
    rows = batchify(stream, settings.batch_size)
    if (rows.shape[1] - 1) // seg_len < 1:
        raise RunError(
            "run.err.short_text", detail=f"{len(stream)} tokens for {settings.batch_size} streams of {seg_len + 1}"
        )
    cfg = model_config(p, TXLConfig, len(vocab))
    model = TransformerXL(cfg).to(device)
    carry: dict[str, Any] = {"memory": None}

    def decode(cpu: nn.Module, probe: str) -> tuple[list[str], list[str], np.ndarray | None]:
        loaded = LoadedTXL(p.name, model_as(cpu, TransformerXL), vocab.itos, {})
        last = read_passage(loaded, probe, seg_len, mem_len).segments[-1]
        nexts = generate_with_memory(loaded, probe, LM_PROBE_NEW, mem_len, seg_len, temperature=0.0, top_k=None)
        return [*last.memory_tokens, *last.tokens], [step.token for step in nexts.steps], last.attention

    def save(folder: Path, record: dict) -> Path:
        cpu = model.to("cpu")  # the page's "Does memory help?": validation perplexity without memory and with M
        evaluation = memory_evaluation(cpu, held, seg_len, sorted({0, mem_len}))
        return save_txl(
            folder, cpu, vocab.itos, dict(record, task=LM_TASK, vocab_cap=len(vocab), memory_evaluation=evaluation)
        )

    return Trainee(
        model,
        recurrent_loss(model, rows, seg_len, device, carry),
        decode,
        lambda cpu: segment_perplexity(model_as(cpu, TransformerXL), held, seg_len, mem_len)[0],
        None,
        save,
        metric=PERPLEXITY,
        carry=carry,
    )


def xlnet_trainee(p: Preset, data: LineData, device: torch.device) -> Trainee:
    """An XLNet permutation LM (Yang et al. 2019; xlnet-small's recipe, :mod:`models.training.xlnet`, at the
    studio's size): windows of n tokens at seeded offsets, each under a fresh random order, the last ⌈n/K⌉
    of each order predicted (:func:`~models.training.xlnet.permutation_loss`); batches are a function of the
    step. Validation: the permutation LM's perplexity exp(mean −log p) over held-out windows under seeded
    random orders (:func:`~models.training.xlnet.permutation_nll`); the probe: read under the identity order,
    its query stream's attention and the top prediction at each predicted position."""
    window, k_split, settings = int(p.model["max_len"]), int(p.model["k_split"]), p.train
    vocab, stream, held = text_stream(data, LM_VOCAB, window + 1)
    cfg = model_config(p, XLNetConfig, len(vocab))
    model = XLNet(cfg).to(device)
    batch_at = batch_at_step(
        permuted_windows(torch.as_tensor(stream, dtype=torch.long), window, settings.batch_size, settings.seed)
    )

    def loss_of_batch(step: int) -> tuple[Tensor, int]:
        x, order = batch_at(step)
        return permutation_loss(model, x.to(device), order.to(device), k_split)

    def decode(cpu: nn.Module, probe: str) -> tuple[list[str], list[str], np.ndarray | None]:
        words = tokenize(probe)[:window]
        if len(words) < 2:
            raise RunError("run.err.short_probe")
        trace = predict(
            LoadedXLNet(p.name, model_as(cpu, XLNet), vocab.itos, {}),
            " ".join(words),
            identity_order(len(words)),
            k_split,
            top_k=1,
        )
        return trace.tokens, [top[0] for top in trace.predictions.top_tokens], trace.query_attention

    def save(folder: Path, record: dict) -> Path:
        return save_xlnet(folder, model.to("cpu"), vocab.itos, dict(record, task="plm", vocab_cap=len(vocab)))

    return Trainee(
        model,
        loss_of_batch,
        decode,
        lambda cpu: math.exp(permutation_nll(model_as(cpu, XLNet), held, window, k_split)[0]),
        None,
        save,
        metric=PLM_PERPLEXITY,
    )


def sentences_of_docs(docs: Sequence[Document]) -> list[str]:
    return [sentence for doc in docs for sentence in doc.sentences]


@functools.lru_cache(maxsize=4)
def studio_wordpiece(sentences: tuple[str, ...]) -> WordPiece:
    """The WordPiece vocabulary of a text, learnt once per text in this process: the trainer of
    ``tokenizers`` breaks ties between equally frequent merges differently from call to call, so two
    runs of the same seed share it to train the same model (a resumed run reads its own back)."""
    return train_wordpiece(sentences, vocab_size=BERT_VOCAB)


def default_probe(p: Preset, data: Data) -> str:
    """The probe when none was typed: the first validation sentence (the LM: its first words; BERT: with
    its middle word masked)."""
    family = studio_family(p)
    if isinstance(data, LineData):
        if family == LM:
            return detokenize(list(data.valid[0][:LM_PROBE_WORDS]))
        # XL: enough words for a segment after a full memory; XLNet: one window
        words = [w for line in data.valid for w in line]
        n = int(p.model["seg_len"]) + int(p.model["mem_len"]) - 1 if family == XL else int(p.model["max_len"])
        return detokenize(words[:n])
    if isinstance(data, TaskData):  # the task's first test item
        return finetune.probe_text(p.task.removeprefix(presets.FINETUNE), data.valid[0][0])
    if isinstance(data, DocData):
        pieces = data.valid[0].sentences[0].split()
        pieces[len(pieces) // 2] = MASK
        return " ".join(pieces)
    return detokenize(list(data.valid[0][0]))


PAIR_TRAINEES: dict[str, Callable[[Preset, PairData, torch.device], Trainee]] = {
    RNN: rnn_trainee,
    TRANSFORMER: transformer_trainee,
}
LINE_TRAINEES: dict[str, Callable[[Preset, LineData, torch.device], Trainee]] = {
    LM: lm_trainee,
    XL: xl_trainee,
    XLNET: xlnet_trainee,
}
TRAINEES = {
    RNN: rnn_trainee,
    TRANSFORMER: transformer_trainee,
    LM: lm_trainee,
    BERT: bert_trainee,
    XL: xl_trainee,
    XLNET: xlnet_trainee,
    FINETUNE: finetune_trainee,
}  # every studio family, in the studio's order


def make_trainee(
    p: Preset,
    data: Data,
    device: torch.device,
    stop: threading.Event | None = None,
    before: Sequence[Callback] = (),
) -> Trainee:
    """The trainee of the preset's family on ``data``, trained with ``p.train``; ValueError when the family
    does not train on that kind of data (sentence pairs, token lines, documents). ``before`` hears the steps
    of what a family trains before its own step 0 (fine-tuning's frozen-feature head), which ``stop`` ends early."""
    family = studio_family(p)
    if isinstance(data, PairData) and family in PAIR_TRAINEES:
        return PAIR_TRAINEES[family](p, data, device)
    if isinstance(data, LineData) and family in LINE_TRAINEES:
        return LINE_TRAINEES[family](p, data, device)
    if isinstance(data, DocData) and family == BERT:
        return bert_trainee(p, data, device)
    if isinstance(data, TaskData) and family == FINETUNE:
        return finetune_trainee(p, data, device, stop, before)
    raise ValueError(f"the {family} family does not train on {type(data).__name__}")


@torch.no_grad()
def take_snapshot(
    step: int, trainee: Trainee, probe: str, gold: tuple[list[str], list[tuple[int, int]]] | None = None
) -> Snapshot:
    """Decode the probe greedily (the pages' decoders, which build CPU tensors: on an accelerator a
    CPU copy decodes) and score the validation split; the model goes back to training mode.
    ``gold`` = (reference tokens, gold links): the links are kept only when the output is the
    reference (they name its positions, not those of another output)."""
    model = trainee.model
    cpu = model if next(model.parameters()).device.type == "cpu" else copy.deepcopy(model).to("cpu")
    cpu.eval()
    try:
        src, tgt, weights = trainee.decode(cpu, probe)
        score = trainee.score(cpu)
        aer = None if trainee.aer is None else round(trainee.aer(cpu), 4)
    finally:
        model.train()
    links = gold[1] if gold is not None and list(tgt) == [*gold[0], EOS] else None
    return Snapshot(
        step,
        list(src),
        list(tgt),
        None if weights is None else np.round(weights, 4).astype(np.float32),
        round(float(score), 4 if trainee.metric in FRACTIONS else 2),
        aer,
        links,
        trainee.metric,
    )


def train_run(run: Run, upload: Upload | None = None, resume: bool = False) -> str:
    """Train ``run`` in the calling thread (the registry's thread; tests may call it directly),
    taking snapshots and writing logs and the checkpoint into ``run.folder``. Every
    ``checkpoint_every`` steps, and when a run is cut short, it also writes its checkpoint and its
    training state (model, Adam's moments, the step, torch's random state, the upload), so that a stopped
    or killed run goes on from there. ``upload``: the uploaded file's sentence pairs or text, for the data
    "upload" or "text". ``resume``: go on from the state the run kept (with its upload); the log and the
    snapshots written after that state are dropped first, so no step is logged twice. Returns the final
    status (FINISHED, or STOPPED when cut short), written to run.json; the caller sets ``run.status`` to it
    once it has let go of the run's lock, so that whoever sees the status may act on the run at once."""
    s = run.settings
    preset = s.preset()  # the engine's one settings shape: what the trainee and the loop read
    settings, source = preset.train, preset.data["source"]
    state = read_state(run.folder) if resume else None
    if state is not None:
        upload = state["upload"]
    run.folder.mkdir(parents=True, exist_ok=True)
    device = pick_device()
    run.device = describe_device(device)
    run.status = RUNNING
    write_meta(run)
    data: Data
    if s.family == FINETUNE:  # the synthetic task, read by the base's tokenizer
        data = load_task(preset)
    elif source in TEXT_DATA:  # an uploaded text (pairs are no text: load_text then says so)
        data = load_text(preset, upload if isinstance(upload, str) else None)
    else:
        data = load_data(preset, None if isinstance(upload, str) else upload)
    if state is not None and isinstance(data, DocData):  # BERT: the vocabulary its weights were trained with
        data.tokenizer = WordPiece.from_file(run.checkpoint / TOKENIZER_FILE)
    run.data = data.description
    probe, gold = str(preset.data["probe"]), None
    if not probe.strip():  # the first validation sentence, with its gold alignment where the data has one
        probe = default_probe(preset, data)
        if data.gold is not None:
            gold = list(data.gold[0].tgt), list(data.gold[0].alignment)
    torch.manual_seed(settings.seed)

    def preparing(p: Progress) -> None:
        run.preparing = (p.step, p.steps)

    trainee = make_trainee(preset, data, device, run.stop, (preparing,))
    run.vocab_cut = list(trainee.vocab_cut)
    optimizer = make_optimizer(trainee.model, settings, trainee.param_groups)
    start, before = 0, 0.0
    if state is not None:
        start, before = restore_state(state, trainee.model, optimizer, device)
        trainee.carry.update(to_device(state.get("carry", {}), device))
        run.step, run.elapsed = start, before
        run.losses = truncate_log(run.folder, start)
        run.snapshots = truncate_snapshots(run.folder, start)
    when = snapshot_steps(settings.steps, int(preset.data["snapshots"]))
    every = int(preset.data["checkpoint_every"])

    def snap(step: int) -> None:
        shot = take_snapshot(step, trainee, probe, gold)
        run.snapshots.append(shot)
        with (run.folder / SNAPSHOT_FILE).open("a", encoding="utf-8") as fh:
            fh.write(shot.to_json() + "\n")

    def save(cut_short: str | None, stats: dict[str, Any]) -> None:
        """The checkpoint of the model as it is now, and (a run that stops before its last step) its state."""
        last = run.snapshots[-1]
        record = dict(
            stats,
            seconds=round(run.elapsed, 1),
            label=s.name,
            user_run=True,
            run_id=run.id,
            data=data.description,
            aer=last.aer,
            settings=settings.to_dict(),
            studio=asdict(s),
            preset_settings=preset.to_dict(),
            **{f"valid_{last.metric}": last.score},
            parameters=sum(p.numel() for p in trainee.model.parameters()),
        )
        trainee.save(run.checkpoint, record)
        trainee.model.to(device)  # a save moves the model to the CPU
        if cut_short:
            write_state(
                run.folder,
                dict(
                    step=run.step,
                    seconds=run.elapsed,
                    model=trainee.model.state_dict(),
                    optimizer=optimizer.state_dict(),
                    upload=upload,
                    carry=trainee.carry,
                    **random_state(device),
                ),
            )

    def on_step(p: Progress) -> None:
        run.losses.append(p.loss)
        run.step, run.elapsed, run.tokens_per_second = p.step, before + p.elapsed, p.tokens_per_second
        if p.step in when:
            snap(p.step)
        if every and p.step % every == 0 and p.step < settings.steps:
            save("periodic", {"steps": p.step, "cut_short": "periodic"})
            write_meta(run)

    log, close = jsonl_log(run.folder / LOG_FILE)
    try:
        if state is None:
            snap(0)
        stats = fit(
            trainee.model,
            trainee.loss_of_batch,
            settings,
            (log, on_step),
            run.stop,
            start_step=start,
            optimizer=optimizer,
        )
    finally:
        close()
    if run.snapshots[-1].step != run.step:
        snap(run.step)  # a stopped run ends with a snapshot of the model it keeps
    save(stats["cut_short"], stats)
    if not stats["cut_short"]:
        shutil.rmtree(run.folder / RESUME, ignore_errors=True)
    run.message = stats["cut_short"] or ""
    final = STOPPED if stats["cut_short"] else FINISHED
    write_meta(run, final)  # run.json first: a caller that sees the status may change the file at once
    return final


def random_state(device: torch.device) -> dict[str, Tensor | None]:
    """torch's random state (dropout, teacher forcing): the CPU generator's, and the CUDA device's."""
    return {
        "rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state(device) if device.type == "cuda" else None,
    }


def to_device(value: Any, device: torch.device) -> Any:
    """Tensors (alone, or in lists and dicts) moved to ``device``; anything else as it is."""
    if isinstance(value, Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return [to_device(v, device) for v in value]
    if isinstance(value, dict):
        return {k: to_device(v, device) for k, v in value.items()}
    return value


def write_state(folder: Path, state: dict[str, Any]) -> None:
    """A stopped run's training state as ``resume/state.pt``, written atomically (whole folder swap)."""
    buffer = io.BytesIO()
    torch.save(state, buffer)
    with atomic_folder(folder / RESUME) as staging:
        write_new(staging / STATE, buffer.getvalue())


def read_state(folder: Path) -> dict[str, Any]:
    """The training state a stopped run kept (tensors and plain values only: ``weights_only``)."""
    try:
        return torch.load(folder / RESUME / STATE, map_location="cpu", weights_only=True)
    except (OSError, RuntimeError, EOFError, ValueError) as exc:
        raise RunError("run.err.no_resume") from exc


def restore_state(
    state: dict[str, Any], model: nn.Module, optimizer: torch.optim.Optimizer, device: torch.device
) -> tuple[int, float]:
    """Load a kept state into a freshly built model and optimizer and set torch's random state;
    returns (the step to go on from, the seconds trained so far)."""
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["rng"])
    if state.get("cuda_rng") is not None and device.type == "cuda":
        torch.cuda.set_rng_state(state["cuda_rng"], device)
    return int(state["step"]), float(state["seconds"])


def write_meta(run: Run, status: str | None = None) -> None:
    """run.json: the run's name, settings, status (``status``, default the run's) and summary (atomic)."""
    write_json_atomic(
        run.folder / RUN_FILE,
        {
            "id": run.id,
            "name": run.settings.name,
            "family": CHECKPOINT_FAMILY[run.settings.family],
            "created": run.created,
            "owner": run.owner,
            "published": run.published,
            "status": status or run.status,
            "message": run.message,
            "device": run.device,
            "data": run.data,
            "steps": run.step,
            "seconds": round(run.elapsed, 1),
            "settings": asdict(run.settings),
            "kind": ARCHITECTURES.get(run.settings.family),  # run.json's key for the architecture
            "metric": metric_of(run.settings),
            "score": run.snapshots[-1].score if run.snapshots else None,
            "aer": run.snapshots[-1].aer if run.snapshots else None,
            "vocab": [list(c) for c in run.vocab_cut],
        },
    )
