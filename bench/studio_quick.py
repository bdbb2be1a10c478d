"""The Training studio's quick presets, trained through the studio's own engine (not a test).

`python -m bench.studio_quick [--preset bahdanau] [--device cpu|cuda|mps] [--steps N]` trains one
preset of :data:`models.training.runs.PRESETS` in a background run of a
:class:`~models.runs.registry.Registry` (a temporary runs folder), exactly as the page does, and
prints the device, wall time, target tokens per second, validation BLEU and the AER of the first and
last snapshots, and BLEU on the grammar's test split (the LM and BERT presets: their validation
perplexity or masked-LM accuracy at the first and last snapshots; fine-tuning: the task's test
metric, and the frozen-feature head's recorded beside it). Issue 12's bar: test BLEU ≥ 80 within 2 minutes,
AER from above 0.6 to below 0.3; on a CUDA machine run it with --device cuda and --device cpu to
compare tokens per second.

With ``--browser`` the preset is trained from the page itself, as a teacher would: headless Chromium
at 1280×720 opens the Training studio on a server of its own, picks the preset in Settings and
presses Train; the time is from the click to "Finished" on the page, and the figures are those of
the run it saved (issue 12's bar is "from the page, in a real browser").
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from corpora.en_fr import make_splits
from models.checkpoints import load_seq2seq, load_transformer
from models.device import configure_threads
from models.training.metrics import bleu
from models.runs.registry import Registry
from models.runs.store import SavedRun, list_runs
from models.runs.snapshots import Snapshot, read_snapshots
from models.training.finetune import recorded_test
from models.training.runs import CHECKPOINT, FINETUNE, N_VALID, PRESETS, RNN, TEXT_DATA, RunSettings
from models.training.seq2seq import translate_all
from models.training.transformer import translate_batch


def browser_run(preset: str) -> tuple[float, SavedRun]:
    """Train ``preset`` from the Training studio page in headless Chromium; (seconds from the Train
    click to "Finished" on the page, the run it saved)."""
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, pick_studio_preset, wait_for_app
    from tests.server import streamlit_server
    from ui.strings import STRINGS
    from ui.studio import OWNER_COOKIE

    root = Path(tempfile.mkdtemp(prefix="studio-browser-"))
    with streamlit_server("app.py", env=dict(os.environ, ATTENTION_LAB_RUNS=str(root))) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(f"{url}/Training_studio", wait_until="domcontentloaded")
        wait_for_app(page)
        pick_studio_preset(page, preset)
        start = time.perf_counter()
        page.get_by_role("button", name=STRINGS["studio.train"][0], exact=True).click()
        page.get_by_text(re.compile(r"^Finished: \d+ steps")).wait_for(timeout=900_000)
        seconds = time.perf_counter() - start
        owner = next(c["value"] for c in page.context.cookies() if c["name"] == OWNER_COOKIE)  # the run's owner
        browser.close()
    (saved,) = list_runs(root, owner)
    return seconds, saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="bahdanau", choices=sorted(PRESETS))
    parser.add_argument("--device", choices=["cpu", "cuda", "mps"])
    parser.add_argument("--steps", type=int)
    parser.add_argument("--browser", action="store_true", help="train from the page in headless Chromium")
    args = parser.parse_args()
    if args.browser:
        seconds, saved = browser_run(args.preset)
        shots = read_snapshots(saved.folder)
        print(
            f"preset {args.preset} from the page in Chromium: {saved.meta.get('steps')} steps on "
            f"{saved.meta.get('device')}, Train click to Finished {seconds:.1f} s"
        )
        report(PRESETS[args.preset], saved.folder / CHECKPOINT, shots[0], shots[-1])
        return
    if args.device:
        os.environ["ATTN_LAB_DEVICE"] = args.device
    configure_threads()
    settings = PRESETS[args.preset]
    if args.steps:
        settings = replace(settings, steps=args.steps)
    registry = Registry(Path(tempfile.mkdtemp(prefix="studio-bench-")), max_active=1)
    start = time.perf_counter()
    run = registry.get(registry.start(settings))
    while run.active:
        time.sleep(0.2)
    wall = time.perf_counter() - start
    if run.status != "finished":
        raise SystemExit(f"run {run.status}: {run.message}")
    print(
        f"preset {args.preset}: {run.step} steps on {run.device} in {wall:.1f} s wall "
        f"(training loop {run.elapsed:.1f} s), {run.tokens_per_second:,.0f} target tokens/s"
    )
    report(settings, run.checkpoint, run.snapshots[0], run.snapshots[-1])


def report(settings: RunSettings, checkpoint: Path, first: Snapshot, last: Snapshot) -> None:
    """Print a finished run's figures: the validation metric at its first and last snapshots, and for
    the encoder–decoders test BLEU on the grammar's test split and the snapshots' AER."""
    if settings.data in TEXT_DATA:  # the LM and BERT: their validation metric, first and last snapshot
        print(f"validation {last.metric} {first.score} at the first snapshot, {last.score} at the last")
        return
    if settings.family == FINETUNE:  # the task's test metric, and the frozen-feature head's beside it
        test = recorded_test(checkpoint) or {}
        print(
            f"test {last.metric} {first.score} at the first snapshot, {last.score} at the last; recorded: all "
            f"parameters {test.get('finetuned')}, frozen head {test.get('frozen')} on {test.get('n')} items"
        )
        return
    test = make_splits(seed=settings.seed, n_train=settings.n_train, n_valid=N_VALID, n_test=1000)["test"]
    sources = [p.src for p in test]
    if settings.family == RNN:
        loaded = load_seq2seq(checkpoint)
        hyps = translate_all(loaded.model, loaded.src_vocab, loaded.tgt_vocab, sources)
    else:
        hyps = translate_batch(load_transformer(checkpoint), sources)
    test_bleu = bleu(hyps, [list(p.tgt) for p in test])
    print(
        f"validation BLEU {last.score:.1f} (first snapshot {first.score:.1f}); test BLEU {test_bleu:.1f} "
        f"on {len(test)} pairs; AER first snapshot {first.aer}, last {last.aer}"
    )


if __name__ == "__main__":
    main()
