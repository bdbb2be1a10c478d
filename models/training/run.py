"""Train any preset and write its checkpoint: the one entry point for the command line (and the app).

:func:`run_preset` picks the family's recipe, runs it through the one training loop on the
best device (CUDA, then Apple MPS, then CPU), and writes the checkpoint with its training
record: the command, the settings it ran with, the statistics, the quality figure.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import torch

from models.checkpoints import CHECKPOINT_DIR, WEIGHTS, user_checkpoint_dir
from models.device import pick_device
from models.training import bert, finetune, seq2seq, transformer, transformer_xl, xlnet
from models.training.loop import Callback, progress_bar
from models.training.presets import BERT, FINETUNE, SEQ2SEQ, TRANSFORMER, TRANSFORMER_XL, XLNET, Preset

RECIPES = {
    SEQ2SEQ: seq2seq.train_preset,
    TRANSFORMER: transformer.train_preset,
    BERT: bert.train_preset,  # a BERT preset that fine-tunes (task finetune-…): finetune.train_preset
    TRANSFORMER_XL: transformer_xl.train_preset,
    XLNET: xlnet.train_preset,
}


def run_preset(
    preset: Preset,
    out: Path | None = None,
    data: Path | None = None,
    epochs: float | None = None,
    steps: int | None = None,
    minutes: float | None = None,
    device: str | None = None,
    command: str = "",
    callbacks: Sequence[Callback] = (),
    stop: threading.Event | None = None,
    progress: bool = False,
) -> tuple[Path, dict, str]:
    """Train ``preset`` and write its checkpoint to ``out`` (default checkpoints/<name>, or the user's
    checkpoint folder for a preset whose data says ``shipped: False``: weights too large for git).

    ``steps`` or ``epochs`` override the preset's number of steps, ``minutes`` its wall-clock
    guard. Returns (folder, training record, one-line summary).
    """
    settings = preset.train
    if steps:
        settings = replace(settings, steps=steps)
    if minutes:
        settings = replace(settings, max_minutes=minutes)
    torch.manual_seed(settings.seed)
    dev = pick_device(device)
    close = None
    if progress:
        bar, close = progress_bar(settings.steps, preset.name)
        callbacks = (*callbacks, bar)
    try:
        recipe = finetune.train_preset if preset.task.startswith(FINETUNE) else RECIPES[preset.family]
        trained = recipe(preset, data, epochs, settings, dev, callbacks, stop)
    finally:
        if close is not None:
            close()
    n_params = sum(p.numel() for p in {id(p): p for p in trained.model.parameters()}.values())
    record = dict(
        trained.stats,
        preset=preset.name,
        label=preset.label,
        order=preset.order,
        task=preset.task,
        command=command or f"python -m models.train --preset {preset.name}",
        settings=trained.settings.to_dict(),
        parameters=n_params,
    )
    default = CHECKPOINT_DIR if preset.data.get("shipped", True) else user_checkpoint_dir()
    folder = trained.save(Path(out) if out else default / preset.name, record)
    size = (folder / WEIGHTS).stat().st_size
    cut = f" — CUT SHORT: {record['cut_short']}" if record.get("cut_short") else ""
    line = (
        f"{preset.name}: {record['steps']} steps in {record['seconds']} s on {record['device']}, "
        f"{record['tokens_per_second']:,} target tokens/s, final loss {record['final_loss']}, {trained.summary}, "
        f"{n_params:,} parameters, {size / 1e6:.2f} MB → {folder}{cut}"
    )
    return folder, record, line
