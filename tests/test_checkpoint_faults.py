"""Faults during a save: a process SIGKILLed at every file-system call of a save, a full disk, file
modes, and caches that are half-written or corrupt (issue 14, "5. Faults").

The kills happen in real processes: this file, run as a script, is the worker. For every mode it
records the file-system calls of one save, then for each call N prepares a fresh folder holding the
previous version, forks a child that kills itself with SIGKILL at call N (inside a write, after
half of its bytes), and leaves the folder for the test to load.
"""

from __future__ import annotations

import errno
import json
import os
import re
import resource
import signal
import stat
import subprocess
import sys
import traceback
from collections.abc import Callable
from functools import partial
from pathlib import Path

if __name__ == "__main__":  # the worker: the repository root on the path, as tests/conftest.py does
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pytest
import torch

import models.atomic as atomic
import models.checkpoints as ck
from models import cache
from models.atomic import write_json_atomic
from models.checkpoints import CheckpointError, load_seq2seq, save_seq2seq
from models.nn.rnn_seq2seq import Seq2Seq, Seq2SeqConfig
from models.text.vocab import Vocab

HOOKED = ("mkdir", "open", "write", "fsync", "chmod", "rename", "replace", "unlink", "rmdir")
MODES = ("over", "first", "fallback", "cache", "json")
TARGET = {"over": "m", "first": "m", "fallback": "m", "cache": "c", "json": "r.json"}


# ------------------------------------------------------------------------------ what is saved


def _model(label: str, hidden: int = 4) -> tuple[Seq2Seq, Vocab, Vocab]:
    """A tiny seq2seq: "first" and "second" differ in weights and target vocabulary size, so a mix
    of one's weights with the other's config or vocab.json cannot load."""
    torch.manual_seed(len(label))
    src = Vocab.build([["a", "b"]])
    tgt = Vocab.build([["x", "y"]] if label == "first" else [["x", "y", "z"]])
    cfg = Seq2SeqConfig(
        attention="bahdanau", src_vocab_size=len(src), tgt_vocab_size=len(tgt), emb_dim=4, hidden_dim=hidden, attn_dim=4
    )
    return Seq2Seq(cfg), src, tgt


def _save(folder: Path, label: str, hidden: int = 4) -> Path:
    model, src, tgt = _model(label, hidden)
    return save_seq2seq(folder, model, src, tgt, {"label": label})


def _cache_files(label: str) -> Callable[[Path], None]:
    def write(staging: Path) -> None:
        (staging / "sub").mkdir()
        atomic.write_new(staging / "weights.bin", label.encode() * 100)
        atomic.write_new(staging / "sub" / "meta.txt", label.encode())

    return write


def _prepare(mode: str, folder: Path) -> None:
    """The previous version (none for a first save)."""
    if mode in ("over", "fallback"):
        _save(folder / "m", "first")
    elif mode == "cache":
        cache.build(folder / "c", _cache_files("first"), key="first")
    elif mode == "json":
        write_json_atomic(folder / "r.json", {"label": "first", "pad": "x" * 200})


def _act(mode: str, folder: Path) -> None:
    """The save that gets killed: the new version over the previous one."""
    if mode == "cache":
        cache.build(folder / "c", _cache_files("second"), key="second")
    elif mode == "json":
        write_json_atomic(folder / "r.json", {"label": "second", "pad": "y" * 200})
    else:
        if mode == "fallback":  # as on a system without renameat2(RENAME_EXCHANGE)
            atomic.exchange = lambda a, b: False
        _save(folder / "m", "second")


# ------------------------------------------------------------------------------ the worker


def _short(path: object) -> str:
    """A path's last part without the per-process suffix, so that labels repeat from run to run."""
    return re.sub(r"-\d+-[0-9a-f]{8}$", "", os.path.basename(os.fsdecode(path)))


def _install_kill_hooks(kill_at: int | None, labels: list[str]) -> None:
    """Count every file-system call of this process; at call ``kill_at`` SIGKILL it (inside a
    write: after writing half of the bytes)."""
    real_write = os.write
    fd_names: dict[int, str] = {}

    def hook(kind: str, fn: Callable) -> Callable:
        def wrapper(*args, **kwargs):
            first = args[1] if kind == "save_model" else args[0]
            name = fd_names.get(first, "?") if isinstance(first, int) else _short(first)
            labels.append(
                f"{kind} {name} -> {_short(args[1])}" if kind in ("rename", "replace", "exchange") else f"{kind} {name}"
            )
            if len(labels) == kill_at:
                if kind == "write":
                    real_write(args[0], bytes(args[1])[: len(args[1]) // 2])
                os.kill(os.getpid(), signal.SIGKILL)
            result = fn(*args, **kwargs)
            if kind == "open":
                fd_names[result] = name
            return result

        return wrapper

    for kind in HOOKED:
        setattr(os, kind, hook(kind, getattr(os, kind)))
    atomic.exchange = hook("exchange", atomic.exchange)
    ck.save_model = hook("save_model", ck.save_model)


def _in_child(fn: Callable[[], None]) -> int:
    """Run ``fn`` in a forked child; its wait status."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            fn()
        except BaseException:
            traceback.print_exc()
            code = 3
        os._exit(code)
    return os.waitpid(pid, 0)[1]


def _dry_run(mode: str, folder: Path, out: Path) -> None:
    labels: list[str] = []
    _install_kill_hooks(None, labels)
    _act(mode, folder)
    out.write_text(json.dumps(labels))  # io's own open and write: not counted


def _killed_at(mode: str, folder: Path, n: int) -> None:
    _install_kill_hooks(n, [])
    _act(mode, folder)


def _disk_limit(folder: Path) -> None:
    """A real write error from the weights writer (Rust, out of reach of Python hooks): a file-size
    limit (EFBIG, as a full disk gives ENOSPC) below the size of the new weights."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    limit = 2 * (folder / "m" / ck.WEIGHTS).stat().st_size
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    try:
        _save(folder / "m", "second", hidden=64)
    except CheckpointError as exc:
        (folder / "message.txt").write_text(str(exc))


def worker(root: Path) -> None:
    results: dict = {}
    for mode in MODES:
        (root / mode / "dry").mkdir(parents=True)
        _prepare(mode, root / mode / "dry")
        labels_file = root / mode / "labels.json"
        assert _in_child(partial(_dry_run, mode, root / mode / "dry", labels_file)) == 0, mode
        labels = json.loads(labels_file.read_text())
        runs = []
        for n in range(1, len(labels) + 1):
            folder = root / mode / str(n)
            folder.mkdir()
            _prepare(mode, folder)
            status = _in_child(partial(_killed_at, mode, folder, n))
            runs.append(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL)
        results[mode] = {"labels": labels, "killed": runs}
    (root / "fsize").mkdir()
    _save(root / "fsize" / "m", "first")
    assert _in_child(lambda: _disk_limit(root / "fsize")) == 0
    (root / "results.json").write_text(json.dumps(results))


if __name__ == "__main__":
    worker(Path(sys.argv[1]))
    raise SystemExit(0)


# ------------------------------------------------------------------------------ the tests


@pytest.fixture(scope="module")
def killed(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("kills")
    proc = subprocess.run([sys.executable, __file__, str(root)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root, json.loads((root / "results.json").read_text())


def _state_dict_equal(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def _commit(labels: list[str], mode: str) -> int:
    """The 1-based number of the call that makes the new version visible (the last exchange or
    rename of the staging folder or file onto the target)."""
    target = re.escape(TARGET[mode])
    pattern = re.compile(rf"(exchange|rename|replace) \.{target}\.saving -> {target}")
    return max(i for i, label in enumerate(labels, 1) if pattern.fullmatch(label))


def _version(mode: str, folder: Path) -> str | None:
    """Which whole version ``folder`` holds ("first", "second" or "third"), None when there is none;
    fails on anything else (a mix, a half file)."""
    if mode == "cache":
        found = [
            key for key in ("first", "second", "third") if cache.is_complete(folder / "c", key, verify=cache.SHA256)
        ]
        assert found or not (folder / "c").exists(), sorted(p.name for p in (folder / "c").rglob("*"))
        return found[0] if found else None
    if mode == "json":
        return json.loads((folder / "r.json").read_text())["label"]
    try:
        loaded = load_seq2seq(folder / "m")
    except CheckpointError as exc:
        assert "missing checkpoint file" in str(exc) and not (folder / "m").exists(), exc
        return None
    label = loaded.training["label"]
    assert _state_dict_equal(loaded.model, _model(label)[0]), f"{label}: weights differ from its own model"
    return label


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.slow
def test_a_save_killed_at_any_call_leaves_a_whole_version(killed, mode: str) -> None:
    root, results = killed
    labels, runs = results[mode]["labels"], results[mode]["killed"]
    assert len(labels) >= 5 and all(runs), (labels, runs)  # the child died at every call, by SIGKILL
    commit = _commit(labels, mode)
    previous = None if mode == "first" else "first"
    for n in range(1, len(labels) + 1):
        expected = previous if n <= commit else "second"
        assert _version(mode, root / mode / str(n)) == expected, f"killed at call {n}: {labels[n - 1]}"


def test_a_killed_save_never_lists_a_half_checkpoint(killed, monkeypatch) -> None:
    root, results = killed
    commit = _commit(results["first"]["labels"], "first")
    for n in range(1, commit + 1):  # a first save killed before its rename: nothing to pick
        monkeypatch.setattr(ck, "CHECKPOINT_DIR", root / "first" / str(n))
        assert ck.shipped("seq2seq") == []


def test_the_kills_include_the_config_write_and_the_swap(killed) -> None:
    _, results = killed
    labels = results["over"]["labels"]
    assert "write config.json" in labels  # killed with half of config.json written
    assert "write vocab.json" in labels and "save_model model.safetensors" in labels
    assert "exchange .m.saving -> m" in labels
    assert "rename m -> .m.replaced" in results["fallback"]["labels"]


@pytest.mark.parametrize("mode", MODES)
def test_the_next_save_cleans_up_after_a_killed_one(killed, mode: str) -> None:
    root, results = killed
    for n in range(1, len(results[mode]["labels"]) + 1):
        folder = root / mode / str(n)
        if mode == "cache":
            cache.ensure(folder / "c", _cache_files("third"), key="third")
            assert cache.is_complete(folder / "c", "third", verify=cache.SHA256)
        elif mode == "json":
            write_json_atomic(folder / "r.json", {"label": "third"})
        else:
            _save(folder / "m", "third")
        assert _version(mode, folder) == "third"
        assert sorted(p.name for p in folder.iterdir()) == [TARGET[mode]], f"after a kill at call {n}"


def test_a_write_error_in_the_weights_writer_is_one_line_and_keeps_the_old(killed) -> None:
    root, _ = killed
    message = (root / "fsize" / "message.txt").read_text()
    assert message.startswith(f"cannot save checkpoint {root / 'fsize' / 'm'}: ") and "\n" not in message
    assert message.endswith("the previous checkpoint is unchanged")
    assert load_seq2seq(root / "fsize" / "m").training["label"] == "first"
    assert sorted(p.name for p in (root / "fsize").iterdir()) == ["m", "message.txt"]


# ------------------------------------------------------------------------------ a full disk


def _disk_full(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_gives_one_clear_line_and_loses_nothing(tmp_path: Path, monkeypatch) -> None:
    folder = _save(tmp_path / "m", "first")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with monkeypatch.context() as patch:
        patch.setattr(os, "write", _disk_full)
        with pytest.raises(CheckpointError) as info:
            _save(tmp_path / "m", "second")
    assert str(info.value) == (
        f"cannot save checkpoint {folder}: the disk is full (no space left on device); "
        "the previous checkpoint is unchanged"
    )
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]
    assert load_seq2seq(folder).training["label"] == "first"


def test_a_full_disk_on_a_first_save_leaves_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(os, "write", _disk_full)
    with pytest.raises(CheckpointError, match=r"the disk is full .*; nothing was saved$"):
        _save(tmp_path / "m", "first")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_the_train_command_prints_a_full_disk_as_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    from cli.train import main

    monkeypatch.setattr(os, "write", _disk_full)
    assert main(["--preset", "tf-copy", "--steps", "1", "--out", str(tmp_path / "tf")]) == 1
    monkeypatch.undo()
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (
        f"error: cannot save checkpoint {tmp_path / 'tf'}: the disk is full (no space left on device); "
        "nothing was saved"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_keeps_a_json_file_whole(tmp_path: Path, monkeypatch) -> None:
    write_json_atomic(tmp_path / "r.json", {"label": "first"})
    monkeypatch.setattr(os, "write", _disk_full)
    with pytest.raises(OSError) as info:
        write_json_atomic(tmp_path / "r.json", {"label": "second"})
    monkeypatch.undo()
    assert atomic.why_write_failed(info.value) == "the disk is full (no space left on device)"
    assert json.loads((tmp_path / "r.json").read_text()) == {"label": "first"}
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_the_evaluate_command_prints_a_full_disk_as_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    import cli.evaluate as evaluate

    write_json_atomic(tmp_path / ck.SEQ2SEQ_RESULTS, {"label": "first"})
    monkeypatch.setattr(evaluate, "CHECKPOINT_DIR", tmp_path)
    monkeypatch.setattr(evaluate.seq2seq, "evaluate_shipped", lambda: {"errors": [], "models": []})
    monkeypatch.setattr(evaluate.transformer, "add_real", lambda results: None)  # no real evaluation here
    monkeypatch.setattr(evaluate, "FAMILIES", {})
    empty = {"errors": [], "models": []}
    monkeypatch.setattr(evaluate.finetune, "evaluate_shipped", lambda: dict(empty))
    monkeypatch.setattr(evaluate.transformer, "label_smoothing_comparison", lambda: dict(empty))
    monkeypatch.setattr(evaluate.seq2seq, "exposure_comparison", lambda: dict(empty))
    monkeypatch.setattr(os, "write", _disk_full)
    assert evaluate.main(["--json", "--write"]) == 1
    monkeypatch.undo()
    assert capsys.readouterr().err == (
        f"error: cannot write {tmp_path / ck.SEQ2SEQ_RESULTS}: the disk is full "
        "(no space left on device); the previous file is unchanged\n"
    )
    assert json.loads((tmp_path / ck.SEQ2SEQ_RESULTS).read_text()) == {"label": "first"}


# ------------------------------------------------------------------------------ file modes


@pytest.fixture()
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _modes(folder: Path) -> dict[str, int]:
    return {
        p.relative_to(folder.parent).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in [folder, *folder.rglob("*")]
    }


def test_files_are_readable_like_any_other(tmp_path: Path, umask_022) -> None:
    folder = _save(tmp_path / "m", "first")
    assert _modes(folder) == {"m": 0o755, "m/model.safetensors": 0o644, "m/config.json": 0o644, "m/vocab.json": 0o644}
    cache.build(tmp_path / "c", _cache_files("first"), key="first")
    assert set(_modes(tmp_path / "c").values()) == {0o755, 0o644}
    write_json_atomic(tmp_path / "r.json", {"a": 1})
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o644


def test_modes_follow_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)  # a private user's umask stays private
    try:
        folder = _save(tmp_path / "m", "first")
    finally:
        os.umask(old)
    assert set(_modes(folder).values()) == {0o700, 0o600}


# ------------------------------------------------------------------------------ caches


def test_a_cache_is_built_once_and_reused(tmp_path: Path) -> None:
    calls = []

    def write(staging: Path) -> None:
        calls.append(staging)
        _cache_files("first")(staging)

    folder = tmp_path / "c"
    assert not cache.is_complete(folder)
    cache.ensure(folder, write, key="first")
    cache.ensure(folder, write, key="first")
    assert len(calls) == 1 and cache.is_complete(folder, "first", verify=cache.SHA256)
    assert (folder / "sub" / "meta.txt").read_text() == "first"
    cache.ensure(folder, write, key={"source": "other"})  # built from something else: rebuilt
    assert len(calls) == 2 and cache.is_complete(folder, {"source": "other"})


@pytest.mark.parametrize("damage", ["truncate", "grow", "delete", "no manifest", "bad manifest", "escape"])
def test_a_half_written_or_corrupt_cache_is_detected_and_rebuilt(tmp_path: Path, damage: str) -> None:
    folder = cache.build(tmp_path / "c", _cache_files("first"), key="first")
    weights = folder / "weights.bin"
    manifest = folder / cache.MANIFEST
    if damage == "truncate":
        weights.write_bytes(weights.read_bytes()[:10])
    elif damage == "grow":
        weights.write_bytes(weights.read_bytes() + b"x")
    elif damage == "delete":
        (folder / "sub" / "meta.txt").unlink()
    elif damage == "no manifest":
        manifest.unlink()
    elif damage == "bad manifest":
        manifest.write_text('{"format": 1, "key": "fir')
    else:  # a manifest naming a file outside the cache
        data = json.loads(manifest.read_text())
        data["files"]["../outside"] = {"size": 1}
        manifest.write_text(json.dumps(data))
    assert not cache.is_complete(folder, "first")
    cache.ensure(folder, _cache_files("first"), key="first")
    assert cache.is_complete(folder, "first", verify=cache.SHA256)
    assert weights.read_bytes() == b"first" * 100


def test_changed_bytes_of_the_same_size_need_the_checksum(tmp_path: Path) -> None:
    folder = cache.build(tmp_path / "c", _cache_files("first"), key="first")
    (folder / "weights.bin").write_bytes(b"F" + (folder / "weights.bin").read_bytes()[1:])
    assert cache.is_complete(folder, "first")  # the cheap check sees sizes only
    assert not cache.is_complete(folder, "first", verify=cache.SHA256)
    cache.ensure(folder, _cache_files("first"), key="first", verify=cache.SHA256)
    assert (folder / "weights.bin").read_bytes() == b"first" * 100


def test_a_failed_cache_build_keeps_the_previous_cache(tmp_path: Path) -> None:
    folder = cache.build(tmp_path / "c", _cache_files("first"), key="first")

    def broken(staging: Path) -> None:
        _cache_files("second")(staging)
        raise RuntimeError("conversion failed")

    with pytest.raises(RuntimeError, match="conversion failed"):
        cache.build(folder, broken, key="second")
    assert cache.is_complete(folder, "first", verify=cache.SHA256)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c"]


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ATTN_LAB_CACHE", str(tmp_path / "mine"))
    assert cache.user_cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("ATTN_LAB_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.user_cache_dir() == tmp_path / "xdg" / "attention-lab"
