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

from models.checkpoints import CHECKPOINT_DIR, WEIGHTS, read_json, user_checkpoint_dir
from models.device import pick_device
from models.training import bert, finetune, seq2seq, transformer, transformer_xl, xlnet
from models.training.loop import Callback, Progress, progress_bar
from models.training.runs import FAILED, RUN_FILE, RunError, RunSettings
from models.training.runs import PRESETS as STUDIO_PRESETS
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


def studio_settings(spec: str) -> RunSettings:
    """A studio preset by name, or the settings a run's ``run.json`` (or its folder) records; ValueError,
    RunError or CheckpointError (one line) when it is neither."""
    if spec in STUDIO_PRESETS:
        return STUDIO_PRESETS[spec]
    path = Path(spec)
    if not (path / RUN_FILE if path.is_dir() else path).is_file():
        raise ValueError(f"{spec!r} is neither a studio preset ({', '.join(STUDIO_PRESETS)}) nor a run's run.json")
    meta = read_json(path / RUN_FILE if path.is_dir() else path)
    try:
        return RunSettings(**meta["settings"])
    except (KeyError, TypeError) as exc:
        raise RunError("run.err.bad_field", field="settings") from exc


def train_studio(spec: str, steps: int | None = None, root: Path | None = None, progress: bool = True) -> str:
    """Train a studio run from the command line with the studio's engine (its queue, the one settings shape,
    its snapshots and checkpoints) into the runs folder ``root`` (default ``$ATTENTION_LAB_RUNS``), as a
    command-line run (no owner: every session's studio lists it). Returns a one-line summary; RuntimeError
    with the run's message when it fails."""
    from models.runs.registry import Registry  # it imports the studio's engine: only when a studio run trains

    settings = studio_settings(spec)
    if steps:
        settings = replace(settings, steps=steps)
    if not settings.name:
        settings = replace(settings, name=f"{spec if spec in STUDIO_PRESETS else Path(spec).stem} (command line)")
    registry = Registry(root, max_active=1)
    run = registry.runs[registry.start(settings)]
    bar, close = progress_bar(settings.steps, run.settings.name)
    done = 0
    try:
        while run.thread is not None and run.thread.is_alive():
            run.thread.join(0.5)
            for step in range(done + 1, min(run.step, len(run.losses)) + 1) if progress else ():
                bar(Progress(step, settings.steps, run.losses[step - 1], run.tokens_per_second, run.elapsed))
                done = step
    finally:
        close()
    if run.status == FAILED:
        raise RuntimeError(run.message or "the run failed")
    last = run.snapshots[-1]
    return (
        f"studio run {run.id} ({settings.family}, {run.status}): {run.step} steps in {run.elapsed:.0f} s, "
        f"validation {last.metric} {last.score} → {run.folder}"
    )
