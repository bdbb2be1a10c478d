"""Named training presets: `python -m models.train --preset NAME` produces the shipped checkpoints."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from models.seq2seq import Seq2SeqConfig


@dataclass(frozen=True)
class TrainSettings:
    """Optimisation settings: Adam, gradient clipping, teacher forcing, a time budget."""

    epochs: int = 6
    batch_size: int = 64
    lr: float = 2e-3
    teacher_forcing: float = 1.0
    clip: float = 1.0
    seed: int = 0
    n_train: int = 40000
    max_minutes: float = 5.0  # training stops after this long even if epochs remain

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Preset:
    name: str
    label: str
    model: Seq2SeqConfig
    train: TrainSettings
    order: int  # position in model pickers


def _s2s(name: str, label: str, order: int, attention: str, score: str = "general") -> Preset:
    return Preset(name, label, Seq2SeqConfig(attention=attention, score=score), TrainSettings(), order)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        _s2s("s2s-none", "No attention", 0, "none"),
        _s2s("s2s-bahdanau", "Bahdanau (additive)", 1, "bahdanau"),
        _s2s("s2s-luong-dot", "Luong dot", 2, "luong", "dot"),
        _s2s("s2s-luong-general", "Luong general", 3, "luong", "general"),
        _s2s("s2s-luong-concat", "Luong concat", 4, "luong", "concat"),
    )
}
