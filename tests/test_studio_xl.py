"""The Training studio's Transformer-XL and XLNet families (issue 12 §1): tiny runs train to the end in
the registry, keep their snapshots, save checkpoints that load_txl / load_xlnet read as the snapshots
show; the studio page trains one, and the Transformer-XL and XLNet pages list and render the runs."""

from __future__ import annotations

from dataclasses import replace

import re
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from models.checkpoints import load_txl, load_xlnet
from models.inference.transformer_xl import generate_with_memory, read_passage
from models.inference.xlnet import identity_order, predict
from models.nn.transformer_xl import xl_mask
from models.runs.snapshots import read_snapshots
from models.training import runs
from models.runs import store
from models.runs.registry import Registry
from models.runs.store import list_runs
from models.training.runs import FINISHED, PRESETS, RUNS_ENV, RunError, RunSettings
from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_runs import TEXT, wait
from tests.conftest import owner_of
from tests.test_studio_page import OWNER, _page, _until

XL_PROBE = "The cat number 3 saw 0 small cats. The dog number 4 saw 1 small dogs."  # 18 words: 3 segments of 8


@pytest.fixture(scope="module")
def xl_run(tmp_path_factory):
    registry = Registry(tmp_path_factory.mktemp("xl"), max_active=1)
    settings = replace(PRESETS["tiny-xl"], data="text", steps=6, snapshots=2, name="my XL", probe=XL_PROBE)
    run = wait(registry, registry.start(settings, text=TEXT, owner=owner_of(OWNER)))
    assert run.status == FINISHED, run.message
    return run


@pytest.fixture(scope="module")
def xlnet_run(tmp_path_factory):
    registry = Registry(tmp_path_factory.mktemp("xlnet"), max_active=1)
    settings = replace(
        PRESETS["tiny-xlnet"],
        data="text",
        steps=6,
        snapshots=2,
        name="my XLNet",
        probe="the cat number 3 saw 0 small cats",
    )
    run = wait(registry, registry.start(settings, text=TEXT, owner=owner_of(OWNER)))
    assert run.status == FINISHED, run.message
    return run


def test_an_xl_run_keeps_its_last_segment_over_memory_and_saves_a_txl_checkpoint(xl_run):
    run, s = xl_run, xl_run.settings
    assert [x.step for x in run.snapshots] == [0, 3, 6] and len(run.losses) == 6
    assert [x.step for x in read_snapshots(run.folder)] == [0, 3, 6]
    shot = run.snapshots[-1]
    assert shot.metric == runs.PERPLEXITY and shot.score > 1
    # <s> + 18 words in segments of L = 8: the last segment holds 3 tokens after a memory of M = 8
    assert shot.memory == s.mem_len == 8 and len(shot.src_tokens) == 8 + 3
    assert shot.src_tokens[-3:] == ["small", "dogs", "."]
    assert shot.weights.shape == (s.layers, s.heads, 3, 11)  # layers × heads × segment × (memory + segment)
    assert np.allclose(shot.weights.sum(-1), 1, atol=1e-3)
    assert np.all(shot.weights[..., ~xl_mask(3, 8).numpy()] == 0)  # no query reads a later token
    loaded = load_txl(run.checkpoint)
    assert loaded.training["user_run"] and loaded.config.seg_len == 8 and loaded.config.mem_len == 8
    last = read_passage(loaded, XL_PROBE, s.seg_len, s.mem_len).segments[-1]
    assert np.allclose(last.attention, shot.weights, atol=1e-4)  # the saved weights read as the last snapshot
    nexts = generate_with_memory(loaded, XL_PROBE, runs.LM_PROBE_NEW, s.mem_len, s.seg_len, temperature=0.0, top_k=None)
    assert [x.token for x in nexts.steps] == shot.tgt_tokens
    assert set(loaded.training["memory_evaluation"]["perplexity_by_memory"]) == {"0", "8"}
    mine = owner_of(OWNER)
    assert store.user_checkpoints("transformer-xl", run.folder.parent, mine) == [(str(run.checkpoint), "my XL", True)]
    assert store.user_checkpoints("transformer", run.folder.parent, mine) == []
    copy_id = store.import_zip(store.export_zip(run.id, run.folder.parent, mine), run.folder.parent / "elsewhere")
    assert load_txl(run.folder.parent / "elsewhere" / copy_id / "checkpoint").config.mem_len == 8


def test_an_xlnet_run_keeps_its_query_stream_and_saves_an_xlnet_checkpoint(xlnet_run):
    run, s = xlnet_run, xlnet_run.settings
    shot = run.snapshots[-1]
    assert shot.metric == runs.PLM_PERPLEXITY and shot.score > 1 and shot.memory == 0
    n = len(shot.src_tokens)
    assert shot.src_tokens == s.probe.split() and n == 8
    assert len(shot.tgt_tokens) == 3  # the last ⌈8 / K⌉ = ⌈8 / 3⌉ positions of the identity order
    assert shot.weights.shape == (s.layers, s.heads, n, n)
    assert np.all(np.triu(shot.weights, 0) == 0)  # the query stream reads strictly earlier positions
    loaded = load_xlnet(run.checkpoint)
    assert loaded.config.max_len == s.window and loaded.config.k_split == s.k_split
    trace = predict(loaded, s.probe, identity_order(n), s.k_split, top_k=1)
    assert [top[0] for top in trace.predictions.top_tokens] == shot.tgt_tokens
    assert np.allclose(trace.query_attention, shot.weights, atol=1e-4)
    mine = owner_of(OWNER)
    assert store.user_checkpoints("xlnet", run.folder.parent, mine) == [(str(run.checkpoint), "my XLNet", True)]


def test_an_xlnet_probe_of_one_word_fails_the_run_with_its_reason(tmp_path):
    registry = Registry(tmp_path, max_active=1)
    run = wait(registry, registry.start(replace(PRESETS["tiny-xlnet"], data="text", probe="cat"), text=TEXT))
    assert run.status == runs.FAILED and run.message_key == "run.err.short_probe" and not run.folder.exists()


@pytest.mark.parametrize(
    "bad",
    [
        dict(family="xl", seg_len=1),
        dict(family="xl", mem_len=runs.MAX_XL_MEM + 1),
        dict(family="xlnet", window=3),
        dict(family="xlnet", window=8, k_split=9),
        dict(family="xl", data="grammar"),
    ],
)
def test_xl_and_xlnet_settings_out_of_range_are_refused(bad):
    with pytest.raises(RunError):
        RunSettings(**{"data": "bible-text", **bad})


# ---- the pages ---------------------------------------------------------------------------


@pytest.fixture
def runs_root(tmp_path, monkeypatch):
    monkeypatch.setenv(RUNS_ENV, str(tmp_path))
    return tmp_path


@pytest.mark.slow
def test_the_studio_trains_an_xlnet_run_that_the_xlnet_page_lists_and_renders(runs_root):
    at = _page()
    at.selectbox(key="studio_preset").select("tiny-xlnet").run()
    assert at.session_state["studio_family"] == "xlnet" and at.slider(key="studio_window").value == 12
    assert at.slider(key="studio_k_split").value == 3
    at.slider(key="studio_steps").set_value(10)
    at.text_input(key="studio_name").input("class XLNet")
    at.button(key="studio_train").click().run()
    assert not at.exception and not at.error
    _until(at, lambda a: len(a.success) > 0)
    assert "Finished: 10 steps" in at.success[0].value
    # a finished run opens on its latest snapshot
    assert any(re.match(r"Step \d+: permutation-LM perplexity", c.value) for c in at.caption)
    assert at.selectbox(key="studio_head").options == ["head 1", "head 2", "average over heads"]
    (saved,) = list_runs(runs_root, owner_of(OWNER))
    page = _page(str(ROOT / "pages" / "13_XLNet.py"))
    picker = page.selectbox(key="xlnet_model")
    assert picker.options[0] != "Your run: class XLNet" and "Your run: class XLNet" in picker.options
    picker.select(str(saved.checkpoint)).run()
    assert not page.exception and not page.error
    assert page.slider(key="xlnet_k").value == 3  # this model's K
    assert page.selectbox(key="xlnet_head").options == ["head 1", "head 2", "average over heads"]
    other = _page(str(ROOT / "pages" / "13_XLNet.py"), "another session")
    assert "Your run: class XLNet" not in other.selectbox(key="xlnet_model").options


@pytest.mark.slow
def test_an_xl_run_shows_in_the_studio_and_on_the_transformer_xl_page(runs_root):
    registry = Registry(runs_root, max_active=1)
    run = wait(
        registry,
        registry.start(
            replace(PRESETS["tiny-xl"], data="text", steps=4, snapshots=1, name="my XL", probe=XL_PROBE),
            owner=owner_of(OWNER),
            text=TEXT,
        ),
    )
    assert run.status == FINISHED, run.message
    at = _page()
    at.button(key=f"studio_show_{run.id}").click().run()
    assert not at.exception and "Finished: 4 steps" in at.success[0].value
    assert any(c.value.startswith(f"Step {run.snapshots[-1].step}: validation perplexity") for c in at.caption)
    titles = [c.spec for c in charts(at) if "memory | segment" in c.spec]
    assert titles  # the probe's map: the last segment over [memory | segment]
    page = _page(str(ROOT / "pages" / "10_Transformer_XL.py"))
    picker = page.selectbox(key="txl_model")
    assert picker.options[0] != "Your run: my XL" and "Your run: my XL" in picker.options
    picker.select(str(run.checkpoint)).run()
    assert not page.exception and not page.error
    assert page.selectbox(key="txl_head").options == ["head 1", "head 2", "average over heads"]
    page.session_state["topic"] = "Does memory help?"
    page.run()
    assert not page.exception and not page.error
    assert any("no memory" in m.value for m in page.markdown)  # the run's own evaluation, M = 0 and M = 8


@pytest.mark.parametrize("path, key", [("10_Transformer_XL.py", "txl_model"), ("13_XLNet.py", "xlnet_model")])
@pytest.mark.slow
def test_a_link_to_a_model_that_is_not_listed_falls_back_with_a_notice(runs_root, path, key):
    at = AppTest.from_file(str(ROOT / "pages" / path), default_timeout=APPTEST_TIMEOUT)
    at.query_params[key] = "a deleted run"
    at.run()
    assert not at.exception and not at.error
    assert any("“a deleted run”" in i.value for i in at.info)
    assert at.selectbox(key=key).index == 0  # the shipped model
