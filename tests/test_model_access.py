"""Confined loading of local model folders (issue 14, part 1): hostile paths all get one message that
reveals nothing, aliases share one key and load once, caps refuse before any weights are read,
pickles load only with weights_only=True, the modes and the settings, and page 8 with a hostile path."""

import json
import os
import shutil
import threading
import weakref
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from models.inference import hf_adapter
from models.inference.model_access import (
    OFF,
    REFUSED,
    ModelAccessError,
    ModelRegistry,
    Settings,
    check_caps,
    estimate_parameters,
    folder_label,
    load_settings,
    resolve_folder,
)
from bench.hostile_paths import HOSTILE, OVERSIZED_CONFIG, aliases, fake_model, make_layout
from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_hf_adapter import make_tiny_bert
from ui.tokens import md_escape

REAL_PAGE = str(ROOT / "pages" / "8_Real_model_explorer.py")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """bench.hostile_paths' layout around a tiny BertForMaskedLM: root/model (allowed), root/sub,
    root/alias-link → model, root/escape → /etc, root/out-model → outside/model (a valid model outside)."""
    tiny = make_tiny_bert(tmp_path_factory.mktemp("tiny-src"))
    lab = make_layout(tmp_path_factory.mktemp("access"), tiny)
    return {**lab, "settings": Settings(roots=(lab["root"],))}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_paths_get_one_message_that_reveals_nothing(lab, name):
    typed = HOSTILE[name](lab)
    with pytest.raises(ModelAccessError) as err:
        resolve_folder(typed, lab["settings"])
    message = str(err.value)
    assert message == REFUSED
    assert "/" not in message and "\\" not in message and str(lab["base"]) not in message
    assert typed not in message and "exist" not in message and "file" not in message


def test_the_tiny_model_itself_is_allowed_and_labelled_without_server_paths(lab):
    folder = resolve_folder("model", lab["settings"])
    assert folder == lab["root"] / "model" and folder.is_absolute()
    assert folder_label(folder, lab["settings"]) == "model"
    assert check_caps(folder, lab["settings"])["model_type"] == "bert"


def test_aliases_map_to_one_key_and_load_once(lab):
    root = lab["root"]
    spellings = [*aliases(lab), "model/", f"{root}/sub/../model", "alias-link", " model "]
    keys = {resolve_folder(a, lab["settings"]) for a in spellings}
    assert keys == {root / "model"}
    loads, gate = [], threading.Barrier(4)

    def load(key):
        loads.append(key)
        return object()

    registry = ModelRegistry(load, max_entries=2)
    results = []

    def student(alias):
        gate.wait()
        results.append(registry.get(str(resolve_folder(alias, lab["settings"]))))

    threads = [threading.Thread(target=student, args=(a,)) for a in aliases(lab)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert loads == [str(root / "model")] and len({id(r) for r in results}) == 1


def test_registry_is_lru_and_releases_what_it_evicts():
    class Model:
        pass

    registry = ModelRegistry(lambda key: Model(), max_entries=2)
    a = weakref.ref(registry.get("a"))
    registry.get("b")
    registry.get("a")  # a is now the most recent: b goes next
    registry.get("c")
    assert registry.holds("a") and registry.holds("c") and not registry.holds("b")
    registry.get("d")
    assert not registry.holds("a") and a() is None, "an evicted model is released"


def test_registry_loads_one_at_a_time():
    running, peak, lock = [0], [0], threading.Lock()

    def load(key):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        threading.Event().wait(0.05)
        with lock:
            running[0] -= 1
        return key

    registry = ModelRegistry(load, max_entries=8)
    threads = [threading.Thread(target=registry.get, args=(k,)) for k in "abcd"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 1 and all(registry.holds(k) for k in "abcd")


@pytest.fixture()
def no_weights_read(monkeypatch):
    """Every way a model, config, tokenizer or weights file could be read fails the test."""
    import safetensors.torch
    import torch
    import transformers

    def boom(*args, **kwargs):
        raise AssertionError("read before the caps were checked")

    for cls in (
        transformers.AutoModel,
        transformers.AutoModelForMaskedLM,
        transformers.AutoConfig,
        transformers.AutoTokenizer,
    ):
        monkeypatch.setattr(cls, "from_pretrained", boom)
    monkeypatch.setattr(torch, "load", boom)
    monkeypatch.setattr(safetensors.torch, "load_file", boom)
    monkeypatch.setattr(safetensors, "safe_open", boom)


def test_oversized_config_refused_before_any_weights_are_read(tmp_path, no_weights_read):
    fake_model(tmp_path / "big", OVERSIZED_CONFIG)
    settings = Settings(roots=(tmp_path,))
    with pytest.raises(ModelAccessError, match="billion parameters, more than this server's cap of 350.0 million"):
        hf_adapter.load_hf_model(resolve_folder("big", settings), settings=settings)
    assert estimate_parameters(OVERSIZED_CONFIG) > 150_000_000_000


def test_folder_over_the_size_cap_refused_before_any_weights_are_read(lab, no_weights_read):
    settings = Settings(roots=(lab["root"],), max_bytes=10_000)
    with pytest.raises(ModelAccessError, match="larger than this server's cap"):
        hf_adapter.load_hf_model(resolve_folder("model", settings), settings=settings)


@pytest.mark.parametrize(
    "config, message",
    [
        ({"hidden_size": -1, "num_hidden_layers": 2}, "unusable hidden_size"),
        ({"hidden_size": "abc", "num_hidden_layers": 2}, "unusable hidden_size"),
        ({"hidden_size": 1e30, "num_hidden_layers": 2}, "unusable hidden_size"),
        ({"hidden_size": True, "num_hidden_layers": 2}, "unusable hidden_size"),
        ({"hidden_size": 64, "num_hidden_layers": 10**12}, "unusable num_hidden_layers"),
        ({"hidden_size": 64, "num_hidden_layers": 2, "vocab_size": [1]}, "unusable vocab_size"),
        ({"num_hidden_layers": 2}, "does not give the model's size"),
        ({"hidden_size": 64, "num_hidden_layers": 64, "num_attention_heads": 64}, "4,096 attention maps"),
    ],
)
def test_absurd_configs_refused_with_a_clear_message(tmp_path, no_weights_read, config, message):
    folder = fake_model(tmp_path / "odd", config)
    with pytest.raises(ModelAccessError, match=message):
        hf_adapter.load_hf_model(folder, settings=Settings(roots=(tmp_path,)))


def test_nan_in_config_is_unusable(tmp_path, no_weights_read):
    folder = fake_model(tmp_path / "nan", {})
    (folder / "config.json").write_text('{"model_type": "bert", "hidden_size": NaN, "num_hidden_layers": 2}')
    with pytest.raises(ModelAccessError, match="unusable hidden_size"):
        check_caps(folder, Settings(roots=(tmp_path,)))


def test_links_and_shard_names_out_of_the_folder_are_refused(tmp_path, no_weights_read):
    settings = Settings(roots=(tmp_path / "root",))
    linked = fake_model(tmp_path / "root" / "linked", {"hidden_size": 32, "num_hidden_layers": 2})
    (linked / "tokenizer.json").symlink_to("/etc/passwd")
    with pytest.raises(ModelAccessError, match="links outside"):
        check_caps(linked, settings)
    sharded = fake_model(tmp_path / "root" / "sharded", {"hidden_size": 32, "num_hidden_layers": 2})
    (sharded / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"w": "../../x.safetensors"}}))
    with pytest.raises(ModelAccessError, match="names files outside"):
        check_caps(sharded, settings)


def test_mode_off_refuses_everything(lab):
    off = Settings(mode="off", roots=(lab["root"],))
    for typed in ("model", str(lab["root"] / "model"), "/etc", ""):
        with pytest.raises(ModelAccessError) as err:
            resolve_folder(typed, off)
        assert str(err.value) == OFF


def test_mode_open_allows_a_folder_anywhere(lab):
    open_ = Settings(mode="open", roots=(lab["root"],))
    folder = resolve_folder(str(lab["outside"] / "model"), open_)
    assert folder == lab["outside"] / "model"
    assert hf_adapter.load_hf_model(folder, settings=open_).n_layers == 2
    with pytest.raises(ModelAccessError) as err:
        resolve_folder(str(lab["outside"] / "none"), open_)
    assert str(err.value) == REFUSED


def test_pickle_checkpoint_loads_only_with_weights_only(lab, tmp_path, monkeypatch):
    import torch
    import transformers
    from safetensors.torch import load_file

    folder = tmp_path / "bin"
    shutil.copytree(lab["root"] / "model", folder)
    torch.save(load_file(folder / "model.safetensors"), folder / "pytorch_model.bin")
    (folder / "model.safetensors").unlink()
    calls, real_load = [], torch.load
    monkeypatch.setattr(torch, "load", lambda *a, **kw: calls.append(kw.get("weights_only")) or real_load(*a, **kw))
    asked, real_from = [], transformers.AutoModelForMaskedLM.from_pretrained
    monkeypatch.setattr(
        transformers.AutoModelForMaskedLM, "from_pretrained", lambda *a, **kw: asked.append(kw) or real_from(*a, **kw)
    )
    m = hf_adapter.load_hf_model(folder, settings=Settings(roots=(tmp_path,)))
    assert m.n_layers == 2 and calls and all(w is True for w in calls), calls
    assert asked[0]["weights_only"] is True and asked[0]["use_safetensors"] is False, "set in our code, not by default"
    assert asked[0]["trust_remote_code"] is False


class _Payload:
    """A pickle that would create a file when unpickled by a full (unsafe) torch.load."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_a_pickle_that_runs_code_is_refused(lab, tmp_path):
    import torch

    folder = tmp_path / "evil"
    shutil.copytree(lab["root"] / "model", folder)
    (folder / "model.safetensors").unlink()
    marker = tmp_path / "code-ran"
    torch.save({"bert.embeddings.word_embeddings.weight": _Payload(marker)}, folder / "pytorch_model.bin")
    with pytest.raises(ModelAccessError, match="cannot load the model"):
        hf_adapter.load_hf_model(folder, settings=Settings(roots=(tmp_path,)))
    assert not marker.exists()


def test_library_errors_name_no_server_path(lab, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(lab["root"] / "model", broken)
    (broken / "model.safetensors").write_bytes(b"garbage")
    with pytest.raises(ModelAccessError) as err:
        hf_adapter.load_hf_model(broken, settings=Settings(roots=(tmp_path,)))
    assert str(tmp_path) not in str(err.value) and "/tmp" not in str(err.value)


def test_settings_from_the_config_file_and_the_environment(tmp_path):
    toml = tmp_path / "lab.toml"
    toml.write_text('[model_folders]\nmode = "open"\nroots = ["/srv/models", "~"]\nmax_bytes = 5_000\n')
    s = load_settings({"ATTENTION_LAB_CONFIG": str(toml)})
    assert (s.mode, s.roots, s.max_bytes, s.max_params) == (
        "open",
        (Path("/srv/models"), Path.home()),
        5000,
        350_000_000,
    )
    s = load_settings(
        {
            "ATTENTION_LAB_CONFIG": str(toml),
            "ATTENTION_LAB_MODEL_FOLDERS": "off",
            "ATTENTION_LAB_MODEL_ROOTS": os.pathsep.join(["/a", "/b"]),
            "ATTENTION_LAB_MODEL_MAX_PARAMS": "1_000",
            "ATTENTION_LAB_MODEL_MAX_LOADED": "1",
        }
    )
    assert (s.mode, s.roots, s.max_bytes, s.max_params, s.max_loaded) == (
        "off",
        (Path("/a"), Path("/b")),
        5000,
        1000,
        1,
    )
    default = load_settings({"ATTENTION_LAB_CONFIG": ""})
    assert default.mode == "confined" and len(default.roots) == 1 and default.roots[0].name == "models"
    for env, what in (
        ({"ATTENTION_LAB_MODEL_FOLDERS": "sometimes"}, "model_folders.mode setting"),
        ({"ATTENTION_LAB_MODEL_ROOTS": "relative/dir"}, "model_folders.roots setting"),
        ({"ATTENTION_LAB_MODEL_ROOTS": "~nosuchuser/m"}, "model_folders.roots setting"),
        ({"ATTENTION_LAB_MODEL_MAX_BYTES": "-5"}, "model_folders.max_bytes setting"),
        ({"ATTENTION_LAB_MODEL_MAX_PARAMS": "lots"}, "model_folders.max_params setting"),
        ({"ATTENTION_LAB_CONFIG": str(tmp_path / "none.toml")}, "config file"),
    ):
        with pytest.raises(ModelAccessError, match=f"the server's {what} is invalid"):
            load_settings(env)


# --------------------------------------------------------------------------------------
# Page 8 with a hostile path
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_page_shows_the_one_message_for_hostile_paths(lab, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_MODEL_FOLDERS", "confined")
    monkeypatch.setenv("ATTENTION_LAB_MODEL_ROOTS", str(lab["root"]))
    at = AppTest.from_file(REAL_PAGE, default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.radio(key="real_source").set_value("folder").run()
    for name in ("markdown link", "markdown image", "~nosuchuser", "system file", "symlink out to a model", "NUL byte"):
        at.text_input(key="real_dir").set_value(HOSTILE[name](lab)).run()
        assert not at.exception, (name, at.exception)
        assert len(at.error) == 1 and at.error[0].value.endswith(md_escape(REFUSED)), name
        shown = [e.value for e in (*at.markdown, *at.caption, *at.error, *at.info, *at.warning)]
        assert not any("](" in v or "<img" in v or "http" in v or str(lab["base"]) in v for v in shown), name
    at.text_input(key="real_dir").set_value("model").run()
    assert not at.exception and not at.error
    assert any(c.value.startswith("**model** — ") and str(lab["base"]) not in c.value for c in at.caption)
    assert any("2 layers × 4 heads" in s.value for s in at.markdown)


def test_page_refuses_in_chinese_too(lab, monkeypatch):
    """The one refusal is shown in the reader's language (ui.bert.load_real_model), still naming nothing."""
    from ui.strings import STRINGS

    monkeypatch.setenv("ATTENTION_LAB_MODEL_FOLDERS", "confined")
    monkeypatch.setenv("ATTENTION_LAB_MODEL_ROOTS", str(lab["root"]))
    at = AppTest.from_file(REAL_PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    at.session_state["real_source"] = "folder"
    at.session_state["real_dir"] = HOSTILE["system file"](lab)
    at.run()
    assert not at.exception, at.exception
    assert len(at.error) == 1 and at.error[0].value.endswith(md_escape(STRINGS["real_model.access.refused"][1])), (
        at.error
    )
