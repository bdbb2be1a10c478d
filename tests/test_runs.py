"""The Training studio's engine (models.training.runs), the uploaded-TSV validator and run zips."""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
import time
import zipfile
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytest
import torch

from corpora import nli
from corpora.text import CorpusFormatError
from corpora.user_tsv import MAX_BYTES, MIN_PAIRS, check_tsv
from models.checkpoints import load_bert, load_seq2seq, load_transformer, load_txl, load_xlnet
from models.inference.bert import fill_mask
from models.inference.generate import generate_text
from models.inference.translate import translate, translate_transformer
from models.priority import BACKGROUND_NICENESS
from models.runs import registry as registry_module
from models.runs import store
from models.runs.registry import Registry
from models.runs.store import export_zip, import_zip, list_runs
from models.training import runs
from models.training.runs import (
    FAILED,
    FINISHED,
    PRESETS,
    STOPPED,
    WAITING,
    RunError,
    RunSettings,
)
from models.runs.snapshots import read_losses, read_snapshots, snapshot_steps

ROOT = Path(__file__).resolve().parent.parent
TINY = replace(PRESETS["tiny"], steps=12, snapshots=3, name="tiny test run", probe="the small cat is not red .")
# a plain text for the LM (a line each) and BERT (paragraphs of sentences): 40 paragraphs of 5 sentences
ANIMALS = ("cat", "dog", "bird", "horse", "sheep")
TEXT = "\n\n".join(
    " ".join(f"The {ANIMALS[(i + j) % 5]} number {i} saw {j} small {ANIMALS[j]}s." for j in range(5)) for i in range(40)
)


def _status_on_disk(folder: Path) -> str | None:
    """The status a run's run.json holds (what another process sees)."""
    return json.loads((folder / runs.RUN_FILE).read_text(encoding="utf-8")).get("status")


def wait(registry: Registry, run_id: str, until=lambda run: not run.active, timeout: float = 120) -> runs.Run:
    run = registry.runs[run_id]
    deadline = time.monotonic() + timeout
    while not until(run):
        assert time.monotonic() < deadline, f"run still {run.status} at step {run.step}"
        time.sleep(0.05)
    return run


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """One tiny run trained to the end: (registry, run)."""
    registry = Registry(tmp_path_factory.mktemp("runs"), max_active=1)
    run = wait(registry, registry.start(TINY))
    assert run.status == FINISHED, run.message
    return registry, run


@pytest.mark.slow
def test_run_reports_every_step_and_takes_snapshots(finished):
    _, run = finished
    assert run.step == TINY.steps and len(run.losses) == TINY.steps
    assert [s.step for s in run.snapshots] == sorted(snapshot_steps(TINY.steps, TINY.snapshots)) == [0, 4, 8, 12]
    assert read_losses(run.folder) == pytest.approx(run.losses)  # the JSONL log holds every step
    assert [s.step for s in read_snapshots(run.folder)] == [0, 4, 8, 12]
    shot = run.snapshots[-1]
    assert shot.weights.shape == (len(shot.tgt_tokens), len(shot.src_tokens))  # one row per output token
    assert shot.aer is not None and 0 <= shot.aer <= 1  # the grammar has gold alignments
    assert shot.src_tokens == ["the", "small", "cat", "is", "not", "red", ".", "</s>"] and shot.gold is None


def test_checkpoint_is_loadable_and_is_the_trained_model(finished):
    registry, run = finished
    loaded = load_seq2seq(run.checkpoint)
    assert loaded.training["user_run"] and loaded.training["label"] == "tiny test run"
    assert loaded.training["steps"] == TINY.steps and loaded.model.cfg.attention == "bahdanau"
    trace = translate(loaded, TINY.probe)
    assert trace.tgt_tokens == run.snapshots[-1].tgt_tokens  # the saved weights decode as the last snapshot
    assert not [p for p in run.folder.iterdir() if p.name.startswith(".")]  # no staging folder left behind
    assert [r.id for r in list_runs(registry.root)] == [run.id]
    assert store.user_checkpoints("seq2seq", registry.root) == [(str(run.checkpoint), "tiny test run", True)]
    assert store.user_checkpoints("transformer", registry.root) == []


@pytest.mark.slow
def test_stop_ends_the_run_and_keeps_its_model(tmp_path):
    registry = Registry(tmp_path, max_active=1)
    run_id = registry.start(replace(TINY, steps=runs.MAX_STEPS))
    wait(registry, run_id, lambda run: run.step >= 3)
    registry.stop(run_id)
    run = wait(registry, run_id)
    assert run.status == STOPPED and 3 <= run.step < runs.MAX_STEPS
    assert "stopped by request" in run.message
    assert run.snapshots[-1].step == run.step  # the kept model's snapshot
    assert load_seq2seq(run.checkpoint).training["cut_short"]


@pytest.mark.slow
def test_queue_runs_one_at_a_time_in_order(tmp_path):
    registry = Registry(tmp_path, max_active=1)
    first = registry.start(replace(TINY, steps=runs.MAX_STEPS))
    second, third = registry.start(TINY), registry.start(TINY)
    wait(registry, first, lambda run: run.step >= 1)
    assert registry.get(second).status == WAITING and registry.get(third).status == WAITING
    assert (registry.position(second), registry.position(third), registry.position(first)) == (0, 1, -1)
    registry.stop(second)  # leaving the queue
    assert wait(registry, second).status == STOPPED and registry.get(second).step == 0
    assert registry.position(third) == 0
    registry.stop(first)
    assert wait(registry, third).status == FINISHED
    assert {r.id for r in list_runs(tmp_path)} == {first, third}


def test_without_a_probe_the_first_validation_sentence_is_shown_with_its_gold_alignment(tmp_path):
    registry = Registry(tmp_path, max_active=1)
    run = wait(registry, registry.start(replace(TINY, probe="", steps=2, snapshots=1)))
    first = runs.load_data(run.settings.preset()).gold[0]
    shot = run.snapshots[-1]
    assert shot.src_tokens == [*first.src, "</s>"]
    assert shot.gold == ([tuple(link) for link in first.alignment] if shot.tgt_tokens == [*first.tgt, "</s>"] else None)


def test_gold_links_are_kept_only_for_the_reference_output():
    reference, links = ["le", "chat", "."], [(0, 0), (1, 1), (2, 2)]

    def trainee(output: list[str]) -> runs.Trainee:
        return runs.Trainee(
            torch.nn.Linear(1, 1),
            None,
            lambda m, probe: (["the", "cat", ".", "</s>"], output, np.full((len(output), 4), 0.25)),
            lambda m: 12.5,
            None,
            None,
        )

    shot = runs.take_snapshot(7, trainee([*reference, "</s>"]), "the cat .", (reference, links))
    assert (shot.step, shot.gold, shot.score, shot.aer) == (7, links, 12.5, None)
    assert runs.take_snapshot(7, trainee(["le", "chien", ".", "</s>"]), "the cat .", (reference, links)).gold is None


@pytest.mark.slow
def test_a_transformer_run_keeps_every_layer_and_head(tmp_path):
    registry = Registry(tmp_path, max_active=1)
    settings = replace(PRESETS["tiny-transformer"], steps=6, snapshots=2, layers=2, heads=2, probe=TINY.probe)
    run = wait(registry, registry.start(settings))
    assert run.status == FINISHED, run.message
    shot = run.snapshots[-1]
    assert shot.weights.shape == (2, 2, len(shot.tgt_tokens), len(shot.src_tokens))  # layers × heads × T × S
    assert np.allclose(shot.weights.sum(-1), 1, atol=1e-3) and shot.aer is None
    loaded = load_transformer(run.checkpoint)
    assert loaded.architecture == "encoder-decoder" and loaded.training["user_run"]
    assert translate_transformer(loaded, TINY.probe).tgt_tokens == shot.tgt_tokens
    assert store.user_checkpoints("transformer", tmp_path) == [(str(run.checkpoint), run.settings.name, True)]
    copy_id = import_zip(export_zip(run.id, tmp_path), tmp_path / "elsewhere")
    assert load_transformer(tmp_path / "elsewhere" / copy_id / "checkpoint").architecture == "encoder-decoder"


@pytest.mark.slow
def test_a_failing_run_says_why_and_the_next_one_trains(tmp_path):
    registry = Registry(tmp_path, max_active=1)
    bad = wait(registry, registry.start(replace(TINY, data="upload"), pairs=[]))
    assert bad.status == FAILED and "no sentence pairs" in bad.message
    assert not bad.folder.exists()  # nothing of a failed run is kept on disk
    assert wait(registry, registry.start(TINY)).status == FINISHED


def test_a_run_trains_at_a_lower_cpu_priority_than_the_pages(tmp_path, monkeypatch):
    seen = []

    def train_run(run, upload, resume):  # what the training thread's priority is while it trains
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        run.status = FINISHED

    monkeypatch.setattr(registry_module, "train_run", train_run)
    page = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    wait(registry := Registry(tmp_path, max_active=1), registry.start(TINY))
    assert seen == [min(19, page + BACKGROUND_NICENESS)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == page  # the caller's thread is untouched


@pytest.mark.slow
def test_the_registry_forgets_old_ended_runs_but_not_their_files(tmp_path, monkeypatch):
    monkeypatch.setattr(registry_module, "MAX_KEPT", 1)
    registry = Registry(tmp_path, max_active=1)
    first = wait(registry, registry.start(replace(TINY, steps=2, snapshots=1)))
    second = registry.start(replace(TINY, steps=2, snapshots=1))
    assert registry.get(first.id) is None and registry.get(second) is not None
    wait(registry, second)
    assert {r.id for r in list_runs(tmp_path)} == {first.id, second}
    assert [s.step for s in read_snapshots(first.folder)] == [0, 2]


def test_uploaded_pairs_train(tmp_path):
    pairs = [(("a", str(i)), ("b", str(i))) for i in range(60)]
    run = wait(registry := Registry(tmp_path, max_active=1), registry.start(replace(TINY, data="upload"), pairs))
    assert run.status == FINISHED and run.snapshots[-1].aer is None  # no gold alignment
    assert len(load_seq2seq(run.checkpoint).src_vocab) == 4 + 1 + 57  # specials, "a", the 57 training numbers


@pytest.mark.parametrize(
    "bad",
    [
        dict(steps=0),
        dict(steps=runs.MAX_STEPS + 1),
        dict(data="web"),
        dict(attention="sparse"),
        dict(lr=0.0),
        dict(probe="x" * 501),
        dict(hidden=1),
        dict(family="lstm"),
        dict(family="transformer", hidden=48, heads=5),
        dict(family="transformer", layers=0),
    ],
)
def test_settings_out_of_range_are_refused(bad):
    with pytest.raises(RunError):
        RunSettings(**bad)


def test_runs_folder_is_outside_the_repository(monkeypatch, tmp_path):
    monkeypatch.delenv(runs.RUNS_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert runs.runs_dir() == tmp_path / "attention-lab" / "runs"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert runs.runs_dir() == Path.home() / ".local" / "share" / "attention-lab" / "runs"
    assert ROOT not in runs.runs_dir().parents
    monkeypatch.setenv(runs.RUNS_ENV, str(tmp_path / "mine"))
    assert runs.runs_dir() == tmp_path / "mine"


# ---- uploaded sentence pairs ---------------------------------------------------------------

GOOD = "".join(f"I see {i} cats.\tJe vois {i} chats.\tCC-BY 2.0 (France)\n" for i in range(MIN_PAIRS)).encode()


def test_tsv_keeps_good_rows_and_lists_bad_ones():
    data = GOOD + b"no tab here\n\tempty source\nempty target\t \n" + "caf\xe9\tcaf\xe9\n".encode("latin-1")
    found = check_tsv(data, "pairs.tsv")
    assert len(found.pairs) == MIN_PAIRS and found.pairs[0] == (
        ("i", "see", "0", "cats", "."),
        ("je", "vois", "0", "chats", "."),
    )
    n = MIN_PAIRS
    assert found.problems == [
        f"line {n + 1}: no tab between the two sentences",
        f"line {n + 2}: the first sentence is empty",
        f"line {n + 3}: the second sentence is empty",
        f"line {n + 4}: not valid UTF-8 (save the file as UTF-8)",
    ]
    assert found.n_bad == 4


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (b"  \n\n", "empty"),
        (b"one column only\n" * 50, "0 usable sentence pairs"),
        (GOOD + b"\x89PNG\x00\x00\x01", "binary data"),
        (GOOD[: len(GOOD) // 2], "at least 20"),
    ],
)
def test_tsv_refuses_unusable_files(data, message):
    with pytest.raises(CorpusFormatError, match=message):
        check_tsv(data, "pairs.tsv")


def test_tsv_refuses_a_file_over_the_limit():
    with pytest.raises(CorpusFormatError, match="over the limit"):
        check_tsv(GOOD * (MAX_BYTES // len(GOOD) + 1), "big.tsv")


# ---- zips of runs ----------------------------------------------------------------------------


def test_zip_round_trip(finished, tmp_path):
    registry, run = finished
    new_id = import_zip(export_zip(run.id, registry.root), tmp_path)
    (copy,) = list_runs(tmp_path)
    assert copy.id == new_id and copy.name == "tiny test run" and copy.meta["imported"]
    assert translate(load_seq2seq(copy.checkpoint), TINY.probe).tgt_tokens == run.snapshots[-1].tgt_tokens
    assert [s.step for s in read_snapshots(copy.folder)] == [0, 4, 8, 12]


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in entries.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def _entries(registry: Registry, run_id: str) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(export_zip(run_id, registry.root))) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda e: {**e, "../escape.txt": b"x"}, "does not have"),
        (lambda e: {**e, "/etc/passwd": b"x"}, "does not have"),
        (lambda e: {**e, "checkpoint/../../escape.txt": b"x"}, "does not have"),
        (lambda e: {k: v for k, v in e.items() if not k.endswith("model.safetensors")}, "no checkpoint"),
        (lambda e: {**e, "checkpoint/config.json": b"{not json"}, "does not load"),
        (lambda e: {**e, "checkpoint/model.safetensors": b"\x00" * 64}, "does not load"),
    ],
)
def test_malicious_or_broken_zips_are_refused(finished, tmp_path, change, message):
    registry, run = finished
    with pytest.raises(RunError, match=message):
        import_zip(_zip(change(_entries(registry, run.id))), tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing written, nothing left
    assert not (tmp_path.parent / "escape.txt").exists()


def test_a_zip_that_unpacks_too_large_is_refused(finished, tmp_path):
    registry, run = finished
    bomb = _zip({**_entries(registry, run.id), "log.jsonl": b"\n" * 5_000_000})  # ~5 MB of newlines, ~5 kB zipped
    with pytest.raises(RunError, match="more than"):
        import_zip(bomb, tmp_path, max_bytes=1_000_000)
    with pytest.raises(RunError, match="not a zip"):
        import_zip(b"PK\x03\x04 not really", tmp_path)
    assert not list_runs(tmp_path)


def test_rename_and_delete(finished, tmp_path):
    registry, run = finished
    new_id = import_zip(export_zip(run.id, registry.root), tmp_path)
    store.rename_run(new_id, "  a   better name ", tmp_path)
    assert list_runs(tmp_path)[0].name == "a better name"
    assert json.loads((tmp_path / new_id / runs.RUN_FILE).read_text())["name"] == "a better name"
    with pytest.raises(RunError):
        store.rename_run(new_id, "   ", tmp_path)
    store.delete_run(new_id, tmp_path)
    assert not list_runs(tmp_path) and not (tmp_path / new_id).exists()
    with pytest.raises(RunError, match="no saved run"):
        store.delete_run("../" + run.id, tmp_path)


@pytest.mark.slow
def test_a_transformer_run_on_hsk_reads_typed_chinese(tmp_path):
    """Its languages travel with the run: the probe and the saved checkpoint segment Chinese."""
    registry = Registry(tmp_path, max_active=1)
    settings = replace(
        PRESETS["tiny-transformer"],
        steps=4,
        snapshots=2,
        layers=1,
        heads=2,
        data="hsk",
        n_train=200,
        probe="我想喝茶。",
    )
    run = wait(registry, registry.start(settings))
    assert run.status == FINISHED, run.message
    assert run.snapshots[-1].src_tokens[:3] == ["我", "想", "喝"]  # segmented, not one unknown string
    loaded = load_transformer(run.checkpoint)
    assert (loaded.training["src_lang"], loaded.training["tgt_lang"]) == ("zh", "en")
    assert translate_transformer(loaded, "我想喝茶。").src_tokens[:3] == ["我", "想", "喝"]


def test_real_corpora_give_pairs():
    hsk = runs.load_data(replace(TINY, data="hsk").preset())
    assert len(hsk.train) == TINY.n_train and len(hsk.valid) == runs.N_VALID and hsk.gold is None
    assert "CC-BY-SA-4.0" in hsk.description
    chinese = [w for src, _ in hsk.train for w in src]
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in w) for w in chinese[:50])  # segmented Chinese words
    bible = runs.load_data(replace(TINY, data="bible").preset())
    assert len(bible.train) == TINY.n_train and "Louis Segond" in bible.description
    assert all(0 < len(src) <= 20 and 0 < len(tgt) <= 20 for src, tgt in bible.train)
    assert not {src for src, _ in bible.valid} & {src for src, _ in bible.train}  # the Bible repeats verses


# ---- stop and resume ------------------------------------------------------------------------


class StopAtStep(threading.Event):
    """A stop request that is set once ``run`` has trained ``step`` steps (an exact place to stop)."""

    def __init__(self, run: runs.Run, step: int) -> None:
        super().__init__()
        self.run, self.step = run, step

    def is_set(self) -> bool:
        return self.run.step >= self.step


@pytest.mark.parametrize(
    "preset, loader, text",
    [
        ("tiny", load_seq2seq, None),
        ("tiny-transformer", load_transformer, None),
        ("tiny-lm", load_transformer, TEXT),
        ("tiny-bert", load_bert, TEXT),
        ("tiny-xl", load_txl, TEXT),
        ("tiny-xlnet", load_xlnet, TEXT),
    ],
    ids=["rnn", "transformer", "lm", "bert", "xl", "xlnet"],
)
@pytest.mark.slow
def test_stop_and_resume_give_the_weights_of_an_uninterrupted_run(tmp_path, preset, loader, text):
    # dropout and scheduled sampling draw random numbers: the resumed run must draw the same ones
    settings = replace(
        PRESETS[preset],
        steps=10,
        snapshots=1,
        dropout=0.3,
        teacher_forcing=0.5,
        probe="" if text else TINY.probe,
        data="text" if text else PRESETS[preset].data,
    )
    whole = runs.Run("whole", settings, tmp_path / "whole")
    assert runs.train_run(whole, text) == FINISHED
    cut = runs.Run("cut", settings, tmp_path / "cut")
    cut.stop = StopAtStep(cut, 4)
    assert runs.train_run(cut, text) == STOPPED
    assert _status_on_disk(cut.folder) == STOPPED and cut.step == 4
    assert (cut.folder / runs.RESUME / runs.STATE).is_file()
    assert loader(cut.checkpoint).training["steps"] == 4
    resumed = runs.Run("cut", settings, tmp_path / "cut")
    assert runs.train_run(resumed, resume=True) == FINISHED
    assert resumed.step == 10 and not (cut.folder / runs.RESUME).exists()
    assert resumed.losses == whole.losses and read_losses(cut.folder) == pytest.approx(whole.losses)
    assert [s.step for s in read_snapshots(cut.folder)] == [0, 4, 10]  # the stop's snapshot stays
    a, b = loader(whole.checkpoint).model.state_dict(), loader(resumed.checkpoint).model.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    differs = runs.Run("other", replace(settings, seed=1), tmp_path / "other")
    runs.train_run(differs, text)  # the check can fail: another seed gives other weights
    c = loader(differs.checkpoint).model.state_dict()
    assert not all(torch.equal(a[k], c[k]) for k in a)


def test_the_registry_resumes_a_stopped_upload_run_and_refuses_a_finished_one(tmp_path):
    pairs = [(("a", str(i)), ("b", str(i))) for i in range(60)]
    registry = Registry(tmp_path, max_active=1)
    run_id = registry.start(replace(TINY, data="upload", steps=runs.MAX_STEPS), pairs)
    wait(registry, run_id, lambda run: run.step >= 2)
    registry.stop(run_id)
    stopped = wait(registry, run_id)
    assert stopped.status == STOPPED and list_runs(tmp_path)[0].meta["status"] == STOPPED
    with pytest.raises(RunError, match="no saved run"):
        registry.resume("nope")
    assert registry.resume(run_id) == run_id  # the uploaded pairs come back from the kept state
    run = wait(registry, run_id, lambda r: r.step > stopped.step)
    assert run is not stopped and run.status in (runs.RUNNING, FINISHED)
    assert run.losses[: stopped.step] == stopped.losses
    registry.stop(run_id)
    assert wait(registry, run_id).status == STOPPED
    finished = wait(registry, registry.start(replace(TINY, steps=2, snapshots=1)))
    with pytest.raises(RunError, match="cannot be resumed"):
        registry.resume(finished.id)


def test_a_run_reads_stopped_only_once_its_lock_is_let_go(tmp_path, monkeypatch):
    """A run's thread lets go of the run's lock after training (longer on a busy machine): until then the run
    does not read STOPPED, so a resume (or delete, rename) that sees STOPPED is never refused as "training in
    another process"."""
    let_go, release = store.run_lock, threading.Event()

    @contextlib.contextmanager
    def slow_lock(folder):
        with let_go(folder):
            yield
            release.wait(60)  # training is over; the lock is still held until the test lets go

    monkeypatch.setattr(registry_module, "run_lock", slow_lock)
    pairs = [(("a", str(i)), ("b", str(i))) for i in range(60)]
    registry = Registry(tmp_path, max_active=1)
    run_id = registry.start(replace(TINY, data="upload", steps=runs.MAX_STEPS), pairs)
    wait(registry, run_id, lambda run: run.step >= 2)
    registry.stop(run_id)
    live = registry.get(run_id)
    assert live is not None
    deadline = time.monotonic() + 120
    while _status_on_disk(live.folder) != STOPPED and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _status_on_disk(live.folder) == STOPPED  # train_run has returned, its lock is held
    time.sleep(0.5)
    assert store.locked(live.folder) and live.active and live.status != STOPPED
    release.set()
    stopped = wait(registry, run_id)
    assert stopped.status == STOPPED
    assert registry.resume(run_id) == run_id  # at once: no wait, no refusal
    registry.stop(run_id)
    wait(registry, run_id, lambda run: run is not stopped and not run.active)


# ---- private runs per browser session -------------------------------------------------------


@pytest.mark.slow
def test_each_session_sees_its_own_runs_until_one_is_published(finished, tmp_path):
    registry, cli_run = finished
    mine = wait(registry, registry.start(replace(TINY, name="ann's", steps=2, snapshots=1), owner="ann"))
    theirs = wait(registry, registry.start(replace(TINY, name="bob's", steps=2, snapshots=1), owner="bob"))
    root = registry.root
    assert {r.name for r in list_runs(root, "ann")} == {"ann's", "tiny test run"}  # the command line's is everyone's
    assert {r.name for r in list_runs(root, "bob")} == {"bob's", "tiny test run"}
    assert {r.name for r in list_runs(root)} == {"tiny test run"}  # a session without runs
    assert [n for _, n, _ in store.user_checkpoints("seq2seq", root, "ann")] == ["ann's", "tiny test run"]
    assert registry.get(theirs.id, "ann") is None and registry.get(theirs.id, "bob") is theirs
    for change in (
        lambda: store.rename_run(theirs.id, "mine now", root, "ann"),
        lambda: store.delete_run(theirs.id, root, "ann"),
        lambda: export_zip(theirs.id, root, "ann"),
        lambda: store.publish_run(theirs.id, True, root, "ann"),
    ):
        with pytest.raises(RunError, match="no saved run"):
            change()
    store.publish_run(theirs.id, True, root, "bob")
    assert {r.name for r in list_runs(root, "ann")} == {"ann's", "bob's", "tiny test run"}
    assert ("bob's", False) in [(n, own) for _, n, own in store.user_checkpoints("seq2seq", root, "ann")]
    with pytest.raises(RunError, match="only the session"):  # seen, used, downloaded, but not changed
        store.delete_run(theirs.id, root, "ann")
    assert export_zip(theirs.id, root, "ann")
    copy_id = import_zip(export_zip(theirs.id, root, "ann"), root, owner="ann")  # an upload is the uploader's
    assert {r.id for r in list_runs(root, "cid")} == {theirs.id, cli_run.id}
    assert copy_id in {r.id for r in list_runs(root, "ann")}
    store.publish_run(theirs.id, False, root, "bob")
    assert theirs.id not in {r.id for r in list_runs(root, "ann")}
    store.delete_run(mine.id, root, "ann")
    store.delete_run(theirs.id, root, "bob")
    store.delete_run(copy_id, root, "ann")
    assert [r.id for r in list_runs(root)] == [cli_run.id]


# ---- the decoder-only LM and the small BERT ---------------------------------------------------


def test_an_lm_run_saves_a_decoder_only_checkpoint_the_generation_page_can_use(tmp_path):
    registry = Registry(tmp_path, max_active=1)
    settings = replace(PRESETS["tiny-lm"], data="text", steps=6, snapshots=2, probe="The cat number")
    run = wait(registry, registry.start(settings, text=TEXT, owner="ann"))
    assert run.status == FINISHED, run.message
    shot = run.snapshots[-1]
    assert shot.metric == runs.PERPLEXITY and shot.score > 1 and [s.step for s in run.snapshots] == [0, 3, 6]
    assert shot.src_tokens[:4] == ["<s>", "the", "cat", "number"] and shot.src_tokens[4:] == shot.tgt_tokens
    n = len(shot.src_tokens) - 1  # the attention of every layer × head over the tokens read (the last is read by none)
    assert shot.weights.shape[:2] == (1, 2) and shot.weights.shape[2] == shot.weights.shape[3] >= n
    assert np.allclose(np.triu(shot.weights[0, 0], 1), 0)  # causal: no token reads a later one
    loaded = load_transformer(run.checkpoint)
    assert loaded.architecture == "decoder-only" and loaded.task == "lm" and loaded.training["user_run"]
    again = generate_text(loaded, settings.probe, max_new=runs.LM_PROBE_NEW, temperature=0.0)
    assert again.generated_tokens == shot.tgt_tokens  # the saved weights continue as the last snapshot
    assert store.user_checkpoints("transformer", tmp_path, "ann", architecture="decoder-only") == [
        (str(run.checkpoint), run.settings.name, True)
    ]
    assert store.user_checkpoints("transformer", tmp_path, "ann", architecture="encoder-decoder") == []
    assert list_runs(tmp_path, "ann")[0].meta["metric"] == "perplexity"


def test_a_bert_run_saves_a_checkpoint_whose_masked_lm_fills_as_its_snapshot(tmp_path):
    registry = Registry(tmp_path, max_active=1)
    settings = replace(
        PRESETS["tiny-bert"], data="text", steps=6, snapshots=1, probe="The cat number 3 saw [MASK] small dogs."
    )
    run = wait(registry, registry.start(settings, text=TEXT))
    assert run.status == FINISHED, run.message
    shot = run.snapshots[-1]
    assert shot.metric == runs.MLM_ACCURACY and 0 <= shot.score <= 1 and len(shot.tgt_tokens) == 1
    assert shot.src_tokens[0] == "[CLS]" and "[MASK]" in shot.src_tokens and shot.src_tokens[-1] == "[SEP]"
    assert shot.weights.shape == (1, 2, len(shot.src_tokens), len(shot.src_tokens))
    loaded = load_bert(run.checkpoint)
    assert loaded.training["user_run"] and "mlm" in loaded.config.trained_heads
    filled = fill_mask(loaded, settings.probe, top_k=1)
    assert [m["predictions"][0]["token"] for m in filled.masks] == shot.tgt_tokens
    assert store.user_checkpoints("bert", tmp_path) == [(str(run.checkpoint), run.settings.name, True)]
    copy_id = import_zip(export_zip(run.id, tmp_path), tmp_path / "elsewhere")  # a BERT zip travels too
    assert load_bert(tmp_path / "elsewhere" / copy_id / "checkpoint").config.vocab_size == loaded.config.vocab_size


@pytest.mark.parametrize(
    "family, data", [("lm", "grammar"), ("bert", "upload"), ("rnn", "text"), ("transformer", "bible-text")]
)
def test_each_family_trains_only_on_its_kind_of_data(family, data):
    with pytest.raises(RunError, match="trains on"):
        RunSettings(family=family, data=data)


@pytest.mark.parametrize(
    "preset, text, message",
    [
        ("tiny-lm", "", "no text"),
        ("tiny-lm", "one line only", "too short"),
        ("tiny-bert", "Just one. Short text.", "too short"),
    ],
)
def test_a_text_too_short_says_so(tmp_path, preset, text, message):
    registry = Registry(tmp_path, max_active=1)
    run = wait(registry, registry.start(replace(PRESETS[preset], data="text"), text=text))
    assert run.status == FAILED and message in run.message and not run.folder.exists()


def test_a_finetune_run_scores_its_task_and_saves_a_checkpoint_the_lab_loads(tmp_path):
    """Fine-tuning (issue 27) through the service's real path: train_run on bert-small, a test score in
    [0, 1] at each snapshot, the probe's pieces, label and attention, a checkpoint that load_finetuned reads
    with both test figures (§4 and the frozen head's §5.3), a zip that travels, a run.json the store keeps."""
    from models.training import finetune

    settings = replace(PRESETS["tiny-finetune"], name="ft", steps=3, n_train=60, snapshots=1)
    run = runs.Run("20250101-000000-abcdef", settings, tmp_path / "20250101-000000-abcdef")
    assert runs.train_run(run) == FINISHED
    shots = [s.step for s in run.snapshots]
    assert shots == [0, 3]
    shot = run.snapshots[-1]
    assert shot.metric == runs.TASK_ACCURACY and 0.0 <= shot.score <= 1.0
    assert shot.src_tokens[0] == "[CLS]" and shot.src_tokens[-1] == "[SEP]"
    assert shot.tgt_tokens[0] in finetune.LABELS["cls"]
    assert shot.weights.shape[2:] == (len(shot.src_tokens), len(shot.src_tokens))
    loaded = finetune.load_finetuned(run.checkpoint)
    assert loaded.task == "cls" and loaded.training["user_run"]
    assert loaded.training["test"]["finetuned"] == pytest.approx(shot.score, abs=1e-4)
    assert 0.0 <= loaded.training["test"]["frozen"] <= 1.0
    test = finetune.encode_all(loaded.tokenizer, "cls", nli.splits("cls", 60, runs.FINETUNE_TEST)["test"], 64)
    assert finetune.score_of(finetune.predict(loaded.model, "cls", test)) == pytest.approx(shot.score, abs=1e-4)
    probe = finetune.probe_text("cls", test[0][0])  # the default probe: the task's first test item
    assert finetune.read_probe(loaded.model, loaded.tokenizer, "cls", probe)[:2] == (shot.src_tokens, shot.tgt_tokens)
    saved = list_runs(tmp_path)[0]
    assert saved.meta["family"] == finetune.FAMILY and saved.meta["metric"] == runs.TASK_ACCURACY
    copy_id = import_zip(export_zip(saved.id, tmp_path), tmp_path / "elsewhere")  # with its frozen head
    assert finetune.load_finetuned(tmp_path / "elsewhere" / copy_id / "checkpoint").frozen_head.out_features == 3


def test_the_frozen_head_reports_its_steps_and_stop_ends_it(tmp_path):
    """Fine-tuning trains its frozen-feature head before step 0: the run shows that stage's steps (the
    studio draws them), and Stop, pressed then, ends it instead of waiting for all its steps."""
    from models.training import finetune

    settings = replace(PRESETS["tiny-finetune"], steps=6, n_train=40)
    data = runs.load_task(settings.preset())
    stop, seen = threading.Event(), []

    def before(p) -> None:
        seen.append((p.step, p.steps))
        if p.step == 2:
            stop.set()

    trainee = runs.make_trainee(settings.preset(), data, torch.device("cpu"), stop, (before,))
    assert seen == [(1, 6), (2, 6)]
    assert finetune.head_of(trainee.model, "cls").out_features == 3
    run = runs.Run("20250101-000000-aaaaaa", replace(settings, steps=2, snapshots=1), tmp_path / "run")
    assert runs.train_run(run) == FINISHED and run.preparing == (2, 2) and not run.preparing_now
    resumed = runs.Run("20250101-000000-aaaaaa", run.settings, run.folder, step=40)  # as the registry resumes it
    assert not resumed.preparing_now
    resumed.preparing = (1, 2)  # its frozen head trains again: the studio shows that stage, not "step 40"
    assert resumed.preparing_now


def test_a_span_run_is_scored_by_exact_match_and_reads_an_answer():
    from models.training import finetune

    settings = replace(PRESETS["tiny-finetune"], task="qa", steps=1, n_train=20)
    data = runs.load_task(settings.preset())
    trainee = runs.make_trainee(settings.preset(), data, torch.device("cpu"))
    assert trainee.metric == runs.EXACT_MATCH == runs.metric_of(settings)
    probe = runs.default_probe(settings.preset(), data)
    assert finetune.PROBE_SEPARATOR in probe
    shot = runs.take_snapshot(0, trainee, probe)
    assert 0.0 <= shot.score <= 1.0 and shot.metric == runs.EXACT_MATCH
    context = shot.src_tokens[shot.src_tokens.index("[SEP]") + 1 : -1]
    assert all(piece in context for piece in shot.tgt_tokens)  # the answer is a span of the context


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(task="ner"), "fine-tuning needs"),
        (dict(base="bert-huge"), "fine-tuning needs"),
        (dict(task=["nli"]), "fine-tuning needs"),
        (dict(data="grammar"), "trains on"),
        (dict(data="text"), "trains on"),
    ],
)
def test_finetune_settings_refuse_a_bad_task_base_or_data(change, message):
    with pytest.raises(RunError, match=message):
        replace(PRESETS["tiny-finetune"], **change)


def test_finetune_size_is_its_base_and_a_missing_or_too_large_base_is_refused(monkeypatch):
    from models.checkpoints import CheckpointError
    from models.training import finetune

    assert PRESETS["finetune"].parameters() == sum(p.numel() for p in load_bert("bert-small").model.parameters())

    def missing(name):
        raise CheckpointError(f"{name} is not installed")

    monkeypatch.setattr(finetune, "base_parameters", missing)
    with pytest.raises(RunError, match="not installed"):
        replace(PRESETS["finetune"], base=runs.MINILM_PACKAGE)
    monkeypatch.setattr(finetune, "base_parameters", lambda name: 22_700_000)  # MiniLM-L6's size
    with pytest.raises(RunError, match="too large"):
        replace(PRESETS["finetune"], base=runs.MINILM_PACKAGE)


def test_a_run_json_with_a_bad_finetune_field_is_refused_not_listed(tmp_path):
    meta = {"name": "x", "family": "bert-finetuned", "settings": dict(asdict(PRESETS["tiny-finetune"]), task="ner")}
    with pytest.raises(RunError, match="'settings'"):
        store.checked_meta(meta)
    good = dict(meta, settings=asdict(PRESETS["tiny-finetune"]), metric=runs.EXACT_MATCH)
    assert store.checked_meta(good)["metric"] == runs.EXACT_MATCH
