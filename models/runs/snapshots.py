"""A run's record of its training, kept beside its checkpoint: the per-step losses (``log.jsonl``) and
the probe's snapshots (``snapshots.jsonl``: the probe decoded at a step, its attention and the
validation scores). Written by :func:`models.training.runs.train_run`, read by the studio's curves and
scrubber and by the run store's zips; a resumed run truncates both to its step first, so no step is
logged twice. No Streamlit, no torch."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from models.atomic import write_atomic

LOG_FILE, SNAPSHOT_FILE = "log.jsonl", "snapshots.jsonl"
#: The validation metrics a snapshot records: translation BLEU, LM perplexity, BERT's masked-LM top-1
#: accuracy, XLNet's permutation-LM perplexity; a fine-tuned BERT's test accuracy (classification) or
#: exact match of the answer's words (spans).
BLEU, PERPLEXITY, MLM_ACCURACY, PLM_PERPLEXITY = "bleu", "perplexity", "mlm_accuracy", "plm_perplexity"
TASK_ACCURACY, EXACT_MATCH = "task_accuracy", "exact_match"
FRACTIONS = (MLM_ACCURACY, TASK_ACCURACY, EXACT_MATCH)  # the metrics in [0, 1] (drawn in percent)


@dataclass(frozen=True)
class Snapshot:
    """The probe decoded at one training step: its tokens, α (target × source; the Transformer's
    cross-attention as layers × heads × target × source), the validation scores at that step (AER
    only where the data has gold alignments), and the probe's gold links (src_i, tgt_j) when it has
    them and the output is its reference translation. ``score`` is the validation ``metric``: BLEU
    (translation), perplexity (LM) or masked-LM top-1 accuracy (BERT). For the LM and BERT,
    ``src_tokens`` is the whole sequence read (the LM's prompt and its greedy next tokens; BERT's
    pieces with [CLS]/[SEP]), ``tgt_tokens`` the predictions (the next tokens; the top piece at each
    [MASK]) and ``attention`` the self-attention, layers × heads × sequence × sequence. Transformer-XL:
    ``src_tokens`` = [memory | segment] of the probe's last segment (:attr:`memory` tokens of memory),
    ``attention`` its layers × heads × segment × (memory + segment), ``tgt_tokens`` the greedy next
    tokens. XLNet: the probe's words under the identity order, ``attention`` the query stream's
    layers × heads × n × n, ``tgt_tokens`` the top prediction at each predicted position (the last
    ⌈n/K⌉)."""

    step: int
    src_tokens: list[str]
    tgt_tokens: list[str]
    attention: np.ndarray | None  # float32; a list of lists in snapshots.jsonl
    score: float
    aer: float | None
    gold: list[tuple[int, int]] | None = None
    metric: str = BLEU

    @property
    def weights(self) -> np.ndarray | None:
        return None if self.attention is None else np.asarray(self.attention, dtype=float)

    @property
    def memory(self) -> int:
        """Transformer-XL's memory: how many of the keys come before the queries' own tokens (a language
        model's self-attention: 0 for a square map; translation's maps are not self-attention: 0)."""
        if self.attention is None or self.metric != PERPLEXITY:
            return 0
        return int(self.attention.shape[-1] - self.attention.shape[-2])

    def to_json(self) -> str:
        weights = None if self.attention is None else np.round(self.attention.astype(float), 4).tolist()
        return json.dumps(dict(asdict(self), attention=weights))

    @classmethod
    def from_json(cls, line: str) -> Snapshot:
        data = json.loads(line)
        if data.get("attention") is not None:
            data["attention"] = np.asarray(data["attention"], dtype=np.float32)
        if "bleu" in data:  # a run saved before the LM and BERT families: its score is BLEU
            data["score"] = data.pop("bleu")
        return cls(**data)


def read_snapshots(folder: Path) -> list[Snapshot]:
    """The snapshots a run wrote (a saved run's scrubber); unreadable lines are skipped."""
    out: list[Snapshot] = []
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


def snapshot_steps(steps: int, n: int) -> set[int]:
    """The steps after which snapshots are taken: 0, then n evenly spaced up to the last step."""
    return {0} | {max(1, round(steps * (i + 1) / n)) for i in range(n)}


def truncate_log(folder: Path, step: int) -> list[float]:
    """Keep the lines of ``log.jsonl`` up to ``step`` (a resumed run logs the later steps again) and
    return their losses."""
    path = folder / LOG_FILE
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    kept, losses = [], []
    for line in lines:
        try:
            record = json.loads(line)
            if int(record["step"]) > step:
                break
            losses.append(float(record["loss"]))
        except (ValueError, TypeError, KeyError):
            continue
        kept.append(line)
    write_json_lines(path, kept)
    return losses


def truncate_snapshots(folder: Path, step: int) -> list[Snapshot]:
    """Keep the snapshots up to ``step`` in ``snapshots.jsonl`` and return them."""
    kept = [shot for shot in read_snapshots(folder) if shot.step <= step]
    write_json_lines(folder / SNAPSHOT_FILE, [shot.to_json() for shot in kept])
    return kept


def write_json_lines(path: Path, lines: list[str]) -> None:
    """Replace a .jsonl file atomically (:func:`models.atomic.write_atomic`)."""
    write_atomic(path, "".join(line + "\n" for line in lines).encode("utf-8"))
