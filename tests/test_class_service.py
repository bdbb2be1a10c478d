"""The studio as a class service (models.runs): ownership that cannot be forged or leaked, bounds
before work, per-student fairness, validated runs, escaped names, work that survives a kill, and
errors that show one line to a student."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from models.runs import owners, store
from models.runs.__main__ import main as teacher
from models.runs.registry import PENDING, Registry
from models.runs.snapshots import read_snapshots
from models.training import runs
from models.training.runs import FINISHED, PRESETS, RUN_FILE, STOPPED, RunError, RunSettings, capped_vocabs
from tests.conftest import APPTEST_TIMEOUT, ROOT, owner_id, owner_of
from tests.test_runs import TINY, wait

QUICK = replace(TINY, steps=2, snapshots=1)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """One finished tiny run of browser "ann": (registry, run)."""
    registry = Registry(tmp_path_factory.mktemp("runs"), max_active=1)
    run = wait(registry, registry.start(QUICK, owner=owner_of("ann")))
    assert run.status == FINISHED, run.message
    return registry, run


# --------------------------------------------------------------------------------------
# Ownership
# --------------------------------------------------------------------------------------


def test_a_cookie_is_believed_only_with_this_servers_signature(tmp_path, monkeypatch):
    monkeypatch.delenv(owners.SECRET_ENV)
    me = owners.new_owner_id()
    cookie = owners.cookie_value(me, tmp_path)
    assert owners.read_cookie(cookie, tmp_path) == me
    assert (tmp_path / owners.SECRET_FILE).stat().st_mode & 0o777 == 0o600
    forged = cookie[:-1] + ("0" if cookie[-1] != "0" else "1")
    other_server = tmp_path / "elsewhere"
    for bad in (
        forged,
        me,
        me + ".",
        f"{owners.new_owner_id()}.{cookie.split('.')[1]}",
        "",
        None,
        7,
        owners.cookie_value(me, other_server),
        "a" * 10_000,
    ):
        assert owners.read_cookie(bad, tmp_path) is None, bad
    # what a run records is neither the id nor anything the cookie can be made of
    key = owners.owner_key(me, tmp_path)
    assert me not in key and key not in cookie and owners.read_cookie(f"{key}.{cookie.split('.')[1]}", tmp_path) is None


def test_an_exported_zip_names_no_owner_and_an_import_belongs_to_the_importer(made):
    registry, run = made
    with zipfile.ZipFile(io.BytesIO(store.export_zip(run.id, registry.root, owner_of("ann")))) as archive:
        meta = json.loads(archive.read(RUN_FILE))
        config = archive.read("checkpoint/config.json").decode()
    assert not {"owner", "id", "created", "published", "imported", "message"} & meta.keys()
    assert meta["name"] == QUICK.name and owner_of("ann") not in config and owner_id("ann") not in config
    copy = store.import_zip(
        store.export_zip(run.id, registry.root, owner_of("ann")), registry.root, owner=owner_of("bob")
    )
    mine = store.find_run(copy, registry.root, owner_of("bob"))
    assert mine.meta["owner"] == owner_of("bob") and mine.meta["published"] is False and mine.meta["imported"]
    assert copy not in {r.id for r in store.list_runs(registry.root, owner_of("ann"))}  # private to bob
    with pytest.raises(RunError, match="no saved run"):  # ann's unpublished run: bob cannot even see it
        store.delete_run(run.id, registry.root, owner_of("bob"))
    store.delete_run(copy, registry.root, owner_of("bob"))


def _zip(meta: dict, config: dict | None = None, weights: bytes = b"x") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(RUN_FILE, json.dumps(meta))
        archive.writestr("checkpoint/config.json", json.dumps(config or {}))
        archive.writestr("checkpoint/model.safetensors", weights)
    return buffer.getvalue()


def _real_zip(made, **meta) -> bytes:
    registry, run = made
    data = store.export_zip(run.id, registry.root, owner_of("ann"))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        contents = {name: archive.read(name) for name in archive.namelist()}
    contents[RUN_FILE] = json.dumps(dict(json.loads(contents[RUN_FILE]), **meta)).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, body in contents.items():
            archive.writestr(name, body)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "field, value",
    [
        ("seconds", "x"),
        ("steps", -1),
        ("steps", True),
        ("score", float("nan")),
        ("status", "hacked"),
        ("settings", {"steps": 0}),
        ("settings", {"nope": 1}),
        ("data", "x" * 1000),
        ("vocab", [[1, "x"]]),
    ],
)
def test_an_imported_run_that_says_anything_else_is_refused_naming_the_field(made, tmp_path, field, value):
    with pytest.raises(RunError, match=f"field '{field}'"):
        store.import_zip(_real_zip(made, **{field: value}), tmp_path, owner=owner_of("cid"))
    assert not [p for p in tmp_path.iterdir() if p.name != owners.SECRET_FILE] if tmp_path.exists() else True


def test_a_bad_run_json_on_disk_is_not_listed(made, tmp_path):
    registry, run = made
    bad = tmp_path / run.id
    import shutil

    shutil.copytree(run.folder, bad)
    meta = json.loads((bad / RUN_FILE).read_text())
    (bad / RUN_FILE).write_text(json.dumps(dict(meta, seconds="x", published=True)))
    assert store.list_runs(tmp_path, owner_of("bob")) == [] and store.saved_runs(tmp_path) == []
    (bad / RUN_FILE).write_text(json.dumps(dict(meta, published=True)))
    assert [r.id for r in store.list_runs(tmp_path, owner_of("bob"))] == [run.id]


@pytest.mark.slow
def test_a_published_run_with_a_bad_field_breaks_no_page(made, tmp_path, monkeypatch):
    registry, run = made
    import shutil

    shutil.copytree(run.folder, tmp_path / run.id)
    meta = json.loads((tmp_path / run.id / RUN_FILE).read_text())
    (tmp_path / run.id / RUN_FILE).write_text(json.dumps(dict(meta, seconds="x", published=True, owner="zz")))
    monkeypatch.setenv(runs.RUNS_ENV, str(tmp_path))
    for page in ("11_Training_studio.py", "2_Seq2seq_attention.py"):
        at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
        at.session_state["studio_owner"] = owner_id("bob")
        at.run()
        assert not at.exception and not at.error


# --------------------------------------------------------------------------------------
# Bounds before work
# --------------------------------------------------------------------------------------


def test_a_vocabulary_is_cut_to_its_most_frequent_words():
    words = [f"w{i}" for i in range(runs.PAIR_VOCAB + 500)]
    pairs = [((w,), (w, "le")) for w in words] + [(("w0",), ("w0",))] * 3
    src, tgt, cut = capped_vocabs(pairs)
    kept = runs.PAIR_VOCAB - 4  # the cap counts the four specials (<pad> <unk> <s> </s>), as the LM's does
    assert cut == [(kept, len(words)), (kept, len(words) + 1)]
    assert len(src.itos) == len(tgt.itos) == runs.PAIR_VOCAB
    assert "w0" in src.stoi and "le" in tgt.stoi  # the most frequent stay


def test_a_model_over_the_cap_is_refused_before_anything_is_built(tmp_path, monkeypatch):
    with pytest.raises(RunError, match="too large"):
        RunSettings(family="transformer", hidden=512, layers=6, heads=8)
    RunSettings(family="transformer", hidden=128, layers=4, heads=4)  # the studio's largest choices
    built = []
    monkeypatch.setitem(store.LOADERS, "transformer", lambda folder: built.append(folder))
    huge = {
        "family": "transformer",
        "model": {
            "kind": "encoder-decoder",
            "config": {
                "vocab_size": 1_000_000,
                "src_vocab_size": 1_000_000,
                "d_model": 4096,
                "num_encoder_layers": 6,
                "num_decoder_layers": 6,
                "d_ff": 16384,
                "max_len": 64,
            },
        },
    }
    with pytest.raises(RunError, match="too large"):
        store.import_zip(_zip({"name": "big"}, huge), tmp_path, owner=owner_of("cid"))
    for lying in ({"d_model": "4096"}, {"d_model": -1}, {"d_model": 10**12}, {"d_model": True}):
        with pytest.raises(RunError, match="not a model the studio trains"):
            store.import_zip(
                _zip(
                    {"name": "odd"},
                    {
                        "family": "transformer",
                        "model": {"kind": "encoder-decoder", "config": {"vocab_size": 10, **lying}},
                    },
                ),
                tmp_path,
            )
    assert built == []


def test_a_zip_over_its_limit_is_refused_unread(tmp_path):
    with pytest.raises(RunError, match="more than"):
        store.import_zip(b"PK" + b"\0" * 2_000, tmp_path, max_bytes=1_000)


def test_the_upload_limits_are_set_server_side():
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    assert "maxUploadSize = 25" in config
    studio = (ROOT / "ui" / "studio.py").read_text()
    assert studio.count("max_upload_size=") == 2 and "upload.size > MAX_ZIP_UPLOAD" in studio
    assert "max_upload_size=1)" in (ROOT / "pages" / "12_Present.py").read_text()


def test_a_deleted_runs_model_is_released_from_every_family_cache(monkeypatch):
    import ui.bert
    import ui.seq2seq
    import ui.transformer
    import ui.transformer_xl
    import ui.xlnet
    from ui import checkpoints

    loaders = (ui.seq2seq._load, ui.transformer._load, ui.transformer_xl._load, ui.xlnet._load, ui.bert._load_small)
    assert all(loader in checkpoints._LOADERS for loader in loaders)
    cleared = []

    class Cached:
        def clear(self, *args):
            cleared.append(args)

    monkeypatch.setattr(checkpoints, "_LOADERS", [Cached(), Cached()])
    checkpoints.release("/runs/x/checkpoint")
    assert cleared == [("/runs/x/checkpoint",)] * 2


# --------------------------------------------------------------------------------------
# Fairness
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_each_browser_has_one_run_at_a_time_and_a_quota(tmp_path):
    registry = Registry(tmp_path, max_active=1)
    long = registry.start(replace(TINY, steps=runs.MAX_STEPS), owner=owner_of("ann"))
    with pytest.raises(RunError, match="already have a run"):
        registry.start(QUICK, owner=owner_of("ann"))
    other = registry.start(QUICK, owner=owner_of("bob"))  # another browser still queues
    registry.stop(long)
    wait(registry, long), wait(registry, other)
    store.set_limits(tmp_path, per_owner=2)
    wait(registry, registry.start(QUICK, owner=owner_of("ann")))
    with pytest.raises(RunError, match="at most 2 runs"):
        registry.start(QUICK, owner=owner_of("ann"))
    with pytest.raises(RunError, match="at most 2 runs"):
        store.import_zip(store.export_zip(other, tmp_path, owner_of("bob")), tmp_path, owner=owner_of("ann"))
    store.set_limits(tmp_path, total=len(store.saved_runs(tmp_path)))
    with pytest.raises(RunError, match="keeps at most"):
        registry.start(QUICK, owner=owner_of("cid"))


@pytest.mark.slow
def test_the_teachers_switch_caps_and_clears_the_classs_runs(tmp_path, capsys):
    registry = Registry(tmp_path, max_active=1)
    student = wait(registry, registry.start(QUICK, owner=owner_of("ann")))
    command_line = wait(registry, registry.start(QUICK))
    assert teacher(["--root", str(tmp_path), "cap", "--per-student", "3", "--total", "9"]) == 0
    assert store.limits(tmp_path) == store.Limits(3, 9)
    assert teacher(["--root", str(tmp_path), "clear"]) == 0
    assert "deleted 1 run" in capsys.readouterr().out
    assert not student.folder.exists() and command_line.folder.exists()


# --------------------------------------------------------------------------------------
# Names from one student, seen by another
# --------------------------------------------------------------------------------------

HOSTILE = "![x](http://127.0.0.1:9/p.png) <img src=x onerror=alert(1)>"


def test_a_name_can_make_no_link_image_or_tag():
    assert store.clean_name(HOSTILE + "\u0007\n") == "!(x)(http://127.0.0.1:9/p.png) ‹img src=x onerror=alert(1)›"
    assert store.clean_name("  a   run (big) ") == "a run (big)"


@pytest.mark.slow
def test_another_students_run_name_shows_as_text_on_the_translation_pages(tmp_path, monkeypatch):
    registry = Registry(tmp_path, max_active=1)
    for preset in ("tiny", "tiny-transformer"):
        run = wait(registry, registry.start(replace(PRESETS[preset], steps=2, snapshots=1), owner=owner_of("bob")))
        meta = json.loads((run.folder / RUN_FILE).read_text())  # a name written before names were cleaned
        (run.folder / RUN_FILE).write_text(json.dumps(dict(meta, name=HOSTILE, published=True)))
    monkeypatch.setenv(runs.RUNS_ENV, str(tmp_path))
    for page, key in (("2_Seq2seq_attention.py", "s2s_model"), ("4_Transformer_translation.py", "tf_model")):
        at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
        at.session_state["studio_owner"] = owner_id("ann")
        at.run()
        box = at.selectbox(key=key)
        family = "seq2seq" if key == "s2s_model" else "transformer"
        (path,) = [str(r.checkpoint) for r in store.list_runs(tmp_path, owner_of("ann")) if r.meta["family"] == family]
        box.select(path).run()
        assert not at.exception
        shown = [str(e.value) for kind in ("markdown", "caption", "info", "warning") for e in getattr(at, kind)]
        named = [text for text in shown if "onerror=alert" in text]  # the name, escaped or not
        assert named, page
        assert not [text for text in named if "![x](" in text or re.search(r"(?<!\\)<img", text)], named


# --------------------------------------------------------------------------------------
# Work that survives a kill
# --------------------------------------------------------------------------------------

_TRAINER = """
import sys, time
sys.path.insert(0, {root!r})
from dataclasses import replace
from models.runs.registry import Registry
from models.training.runs import PRESETS
registry = Registry(None, max_active=1)
settings = replace(PRESETS["tiny"], steps=240, snapshots=3, checkpoint_every=20, name="killed")
run_id = registry.start(settings, owner={owner!r})
print(run_id, flush=True)
while registry.runs[run_id].active:
    time.sleep(0.05)
"""


@pytest.mark.slow
def test_a_run_killed_mid_training_resumes_from_its_last_save_with_no_step_twice(tmp_path):
    env = dict(os.environ, ATTENTION_LAB_RUNS=str(tmp_path))
    child = subprocess.Popen(
        [sys.executable, "-c", _TRAINER.format(root=str(ROOT), owner=owner_of("ann"))],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        run_id = child.stdout.readline().strip()
        folder = tmp_path / run_id
        deadline = time.monotonic() + 300
        while not store.resumable(folder):
            assert time.monotonic() < deadline and child.poll() is None, "no periodic save"
            time.sleep(0.05)
        assert store.locked(folder)  # the child trains it
        time.sleep(0.3)  # a few more steps logged after the save
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert not store.locked(folder)  # the kernel freed the dead trainer's lock
    (saved,) = store.list_runs(tmp_path, owner_of("ann"))
    assert saved.meta["status"] == STOPPED and store.resumable(folder)
    registry = Registry(tmp_path, max_active=1)
    assert registry.recover() == []  # it has a state: resumable, not queued from scratch
    run = wait(registry, registry.resume(run_id, owner_of("ann")), timeout=300)
    assert run.status == FINISHED, run.message
    steps = [json.loads(line)["step"] for line in (folder / runs.LOG_FILE).read_text().splitlines()]
    assert steps == list(range(1, 241))
    shots = [s.step for s in read_snapshots(folder)]
    assert shots == sorted(set(shots)) and shots[-1] == 240


@pytest.mark.slow
def test_a_queued_run_survives_a_restart(tmp_path):
    first = Registry(tmp_path, max_active=1)
    run = runs.Run(
        "20260101-000000-abcdef",
        replace(TINY, data="upload", steps=3, snapshots=1, name="queued"),
        tmp_path / "20260101-000000-abcdef",
        owner=owner_of("ann"),
    )
    pairs = [(("the", "cat", str(i)), ("le", "chat", str(i))) for i in range(60)]
    first._keep_pending(run, pairs)  # on disk as the server queued it; then the server was killed
    assert (run.folder / PENDING).is_file()
    again = Registry(tmp_path, max_active=1)
    assert again.recover() == [run.id]
    assert wait(again, run.id).status == FINISHED
    assert not (run.folder / PENDING).exists()
    assert [r.id for r in store.list_runs(tmp_path, owner_of("ann"))] == [run.id]


def test_one_process_per_run(tmp_path):
    with store.run_lock(tmp_path):
        assert store.locked(tmp_path)
        with pytest.raises(RunError, match="another process"):
            with store.run_lock(tmp_path):
                pass
    assert not store.locked(tmp_path)


def test_staging_left_by_a_killed_import_is_cleaned(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = tmp_path / f".20260101-000000-abcdef.saving-{dead.pid}-00ff00ff"
    live = tmp_path / f".20260101-000000-fedcba.saving-{os.getpid()}-00ff00ff"
    for folder in (left, live):
        folder.mkdir()
        (folder / "run.json").write_text("{}")
    assert store.clean_staging(tmp_path) == 1
    assert not left.exists() and live.exists()


# --------------------------------------------------------------------------------------
# Nothing internal reaches a student
# --------------------------------------------------------------------------------------


def _page_that_fails() -> None:
    from ui.frame import page_frame

    page_frame("x")
    raise RuntimeError("/srv/secret/path/model.bin is broken")


def test_an_uncaught_error_shows_one_line_and_a_reference(caplog):
    at = AppTest.from_function(_page_that_fails, default_timeout=APPTEST_TIMEOUT)
    with caplog.at_level("ERROR", logger="attention_lab.errors"):
        at.run()
    assert not at.exception
    (shown,) = [e.value for e in at.error]
    assert "/srv" not in shown and "RuntimeError" not in shown
    ref = shown.split("(error ")[1].split(")")[0]
    assert any(ref in r.getMessage() and r.exc_info for r in caplog.records)


def test_the_class_server_hides_error_details_and_logs_no_typed_text(tmp_path):
    from deploy.serve import nginx_config, streamlit_command

    command = streamlit_command("127.0.0.1", 8600)
    assert command[command.index("--client.showErrorDetails") + 1] == "none"
    assert command[command.index("--runner.postScriptGC") + 1] == "false"
    conf = nginx_config("127.0.0.1:8600", [8601, 8602], tmp_path)
    log_format = next(line for line in conf.splitlines() if "log_format" in line)
    for leak in ("$request ", "$request_uri", "$args", "$query_string", "$http_referer", "$remote_addr"):
        assert leak not in log_format
    assert "access_log" in conf and " lab;" in conf and "proxy_next_upstream error" in conf


def test_messages_name_files_never_where_the_server_keeps_them():
    from models.errors import without_paths

    said = without_paths(
        "corrupt checkpoint file /home/lab/.local/share/attention-lab/runs/2026-x/checkpoint/"
        "model.safetensors: bad header"
    )
    assert said == "corrupt checkpoint file …/checkpoint/model.safetensors: bad header"
    for kept in ("http://example.org/a/b", "a/b/c", "~/x/y", "3/4", "/single"):
        assert without_paths(kept) == kept


def test_a_crafted_model_name_is_refused_before_the_file_system_sees_it():
    from models.checkpoints import CheckpointError, checkpoint_path, load_seq2seq

    for name in ("x" * 10_000, "a\x00b", "/tmp/" + "y" * 300):
        with pytest.raises(CheckpointError, match="no such checkpoint"):
            checkpoint_path(name)
        with pytest.raises(CheckpointError):
            load_seq2seq(name)


@pytest.mark.slow
def test_a_studio_run_is_a_comparison_model_on_the_seq2seq_page(made, monkeypatch):
    registry, run = made
    monkeypatch.setenv(runs.RUNS_ENV, str(registry.root))
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.session_state["studio_owner"] = owner_id("ann")
    at.run()
    at.selectbox(key="s2s_compare").select(str(run.checkpoint)).run()
    assert not at.exception and not at.error
    assert len(at.text) >= 2  # both models' translations, side by side


def test_a_run_on_disk_and_training_counts_once(made, tmp_path):
    """A resumed run is a saved run and an active one at once: it takes one place of its owner's quota."""
    import shutil

    registry, run = made
    shutil.copytree(run.folder, tmp_path / run.id)
    store.set_limits(tmp_path, per_owner=2)
    store.check_room(tmp_path, owner_of("ann"), [(run.id, owner_of("ann"))])  # 1 of 2
    with pytest.raises(RunError, match="at most 2 runs"):
        store.check_room(
            tmp_path, owner_of("ann"), [(run.id, owner_of("ann")), ("20260101-000000-aaaaaa", owner_of("ann"))]
        )
