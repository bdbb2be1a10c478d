"""The Training studio page (AppTest): a tiny run started from the settings trains in the
background to the end, its curve and snapshot scrubber appear, it is saved and listed in the
Seq2seq page's model picker; Stop ends a long run; data choices that cannot train say why."""

from __future__ import annotations

import re
import time
from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from models.runs.registry import Registry
from models.runs.store import list_runs
from models.training.runs import PAIR_DATA, PRESETS, RUNS_ENV, TEXT_DATA
from ui.deck import VIEW_STATE
from ui.strings import STRINGS
from ui.studio import DATA_LABELS, OWNER_KEY, TASK_LABELS
from ui.views.studio import StudioState
from tests.conftest import APPTEST_TIMEOUT, ROOT, owner_id, owner_of
from tests.test_runs import TEXT

pytestmark = pytest.mark.slow  # each test here takes seconds (AppTest page runs, servers or training)

PAGE = str(ROOT / "pages" / "11_Training_studio.py")
OWNER = "this session"  # a test browser (tests.conftest.owner_id / owner_of)


@pytest.fixture
def runs_root(tmp_path, monkeypatch):
    monkeypatch.setenv(RUNS_ENV, str(tmp_path))
    return tmp_path


def _page(path: str = PAGE, owner: str = OWNER) -> AppTest:
    """A page run in a browser session whose id (the owner of its runs) is ``owner``."""
    at = AppTest.from_file(path, default_timeout=APPTEST_TIMEOUT)
    at.session_state[OWNER_KEY] = owner_id(owner)
    at.run()
    assert not at.exception
    return at


def _studio() -> AppTest:
    return _page()


def _until(at: AppTest, done, timeout: float = 120) -> AppTest:
    """Rerun the page (as the polling fragment would) until ``done(at)``."""
    deadline = time.monotonic() + timeout
    while not done(at):
        assert time.monotonic() < deadline
        time.sleep(0.5)
        at.run()
        assert not at.exception
    return at


def test_a_tiny_run_trains_and_appears_in_the_seq2seq_picker(runs_root):
    at = _studio()
    assert "No run yet" in at.info[0].value
    at.selectbox(key="studio_preset").select("tiny").run()
    assert at.slider(key="studio_steps").value == 40  # the preset filled in the settings
    at.text_input(key="studio_name").input("my first run")
    at.button(key="studio_train").click().run()
    assert not at.exception and not at.error
    _until(at, lambda a: len(a.success) > 0)
    assert "Finished: 40 steps" in at.success[0].value
    assert at.slider(key="studio_snap_step").max == 5  # snapshots at steps 0, 10, 20, 30, 40
    # the finished run opens on its trained model (the last snapshot), not on the untrained first one
    assert at.slider(key="studio_snap_step").value == 5
    assert any(c.value.startswith("Step 40: validation BLEU") for c in at.caption)
    at.button(key="studio_snap_prev").click().run()
    assert any(c.value.startswith("Step 30: validation BLEU") for c in at.caption)
    at.run()  # and it stays where it was put
    assert at.slider(key="studio_snap_step").value == 4
    (saved,) = list_runs(runs_root, owner_of(OWNER))
    assert saved.name == "my first run" and (saved.checkpoint / "model.safetensors").is_file()
    other = _page(str(ROOT / "pages" / "2_Seq2seq_attention.py"))  # another page of the same session
    picker = other.selectbox(key="s2s_model")
    assert "Your run: my first run" in picker.options
    picker.select(str(saved.checkpoint)).run()
    assert not other.exception and not other.error  # the user's run decodes on the seq2seq page
    at.text_input(key=f"studio_name_{saved.id}").input("renamed run")
    at.button(key=f"studio_rename_{saved.id}").click().run()
    assert list_runs(runs_root, owner_of(OWNER))[0].name == "renamed run"
    at.button(key=f"studio_delete_{saved.id}").click().run()
    assert not at.exception and not list_runs(runs_root, owner_of(OWNER))
    assert "No run yet" in at.info[0].value


def _progress_step(at: AppTest) -> int:
    """The step the progress bar shows ("Step 12 of 3000 · …"), 0 when there is none."""
    found = [re.match(r"Step (\d+) of", p.proto.text) for p in at.get("progress")]
    return max((int(m.group(1)) for m in found if m), default=0)


def test_stop_ends_a_long_run_and_resume_goes_on(runs_root):
    at = _studio()
    at.selectbox(key="studio_preset").select("tiny").run()
    at.slider(key="studio_steps").set_value(3000)
    at.button(key="studio_train").click().run()
    _until(at, lambda a: any("Step " in p.proto.text for p in a.get("progress")))
    at.button(key="studio_stop").click().run()
    _until(at, lambda a: len(a.success) > 0)
    assert "Stopped at step" in at.success[0].value
    (saved,) = list_runs(runs_root, owner_of(OWNER))
    assert saved.meta["status"] == "stopped"
    at.button(key="studio_resume").click().run()  # goes on from the step it stopped at
    assert not at.exception and not at.error
    _until(at, lambda a: _progress_step(a) > saved.meta["steps"])
    at.button(key="studio_stop").click().run()
    _until(at, lambda a: len(a.success) > 0)
    (again,) = list_runs(runs_root, owner_of(OWNER))
    assert again.id == saved.id and again.meta["status"] == "stopped" and again.meta["steps"] > saved.meta["steps"]


def test_an_upload_choice_without_a_file_says_so(runs_root):
    at = _studio()
    at.selectbox(key="studio_data").select("upload")
    at.button(key="studio_train").click().run()
    assert "Choose a file of sentence pairs" in at.error[0].value
    assert not list_runs(runs_root, owner_of(OWNER)) and "No run yet" in at.info[0].value


def test_the_data_choices_follow_the_family(runs_root):
    at = _studio()
    assert at.selectbox(key="studio_data").options == [DATA_LABELS[d] for d in PAIR_DATA]
    at.selectbox(key="studio_data").select("hsk").run()
    at.segmented_control(key="studio_family").set_value("lm").run()
    assert at.selectbox(key="studio_data").options == [DATA_LABELS[d] for d in TEXT_DATA]
    assert at.session_state["studio_data"] == TEXT_DATA[0]  # a pair source cannot train an LM
    at.segmented_control(key="studio_family").set_value("bert").run()
    assert at.session_state["studio_data"] == TEXT_DATA[0]  # still valid: kept
    at.segmented_control(key="studio_family").set_value("rnn").run()
    assert at.selectbox(key="studio_data").options == [DATA_LABELS[d] for d in PAIR_DATA]
    assert not at.exception and not at.warning


def test_a_transformer_run_shows_its_heads_and_appears_in_the_transformer_picker(runs_root):
    at = _studio()
    at.selectbox(key="studio_preset").select("tiny-transformer").run()
    assert at.session_state["studio_family"] == "transformer"
    at.slider(key="studio_steps").set_value(10)
    at.button(key="studio_train").click().run()
    _until(at, lambda a: len(a.success) > 0)
    assert at.selectbox(key="studio_layer").options == ["layer 1"]
    assert at.selectbox(key="studio_head").options == ["head 1", "head 2", "average over heads"]
    at.selectbox(key="studio_head").select(1).run()
    assert not at.exception
    (saved,) = list_runs(runs_root, owner_of(OWNER))
    # the page draws from (and "Add this view" records) the run's state with the head picked
    assert at.session_state[VIEW_STATE] == ("11_Training_studio", StudioState(saved.id, 0, 1))
    other = _page(str(ROOT / "pages" / "4_Transformer_translation.py"))
    picker = other.selectbox(key="tf_model")
    assert f"Your run: {saved.name}" in picker.options
    picker.select(str(saved.checkpoint)).run()
    assert not other.exception


def test_the_pickers_show_a_session_its_own_runs_and_published_ones(runs_root):
    registry = Registry(runs_root, max_active=1)
    names = {}
    for owner in ("ann", "bob"):
        settings = replace(PRESETS["tiny"], steps=2, snapshots=1, name=f"{owner}'s run")
        run_id = registry.start(settings, owner=owner_of(owner))
        names[owner] = run_id
    for run_id in names.values():
        while registry.runs[run_id].active:
            time.sleep(0.1)
        assert registry.runs[run_id].status == "finished"

    def picker_options(owner: str) -> list[str]:
        return list(_page(str(ROOT / "pages" / "2_Seq2seq_attention.py"), owner).selectbox(key="s2s_model").options)

    assert "Your run: ann's run" in picker_options("ann") and "Your run: bob's run" not in picker_options("ann")
    assert not [o for o in picker_options("cid") if o.startswith(("Your run", "Class run"))]
    at = _page(owner="bob")
    at.toggle(key=f"studio_publish_{names['bob']}").set_value(True).run()  # bob publishes his run
    assert not at.exception and list_runs(runs_root, owner_of("ann"))[0].meta["published"]
    assert "Class run: bob's run" in picker_options("ann") and "Class run: bob's run" in picker_options("cid")
    ann = _page(owner="ann")
    keys = {w.key for w in ann.button} | {w.key for w in ann.toggle}
    assert f"studio_show_{names['bob']}" in keys and f"studio_delete_{names['bob']}" not in keys
    assert f"studio_publish_{names['ann']}" in keys and f"studio_delete_{names['ann']}" in keys


def test_an_lm_run_shows_perplexity_and_self_attention_and_appears_in_the_generation_picker(runs_root):
    registry = Registry(runs_root, max_active=1)
    run = registry.runs[
        registry.start(
            replace(PRESETS["tiny-lm"], data="text", steps=4, snapshots=1, name="my LM", probe="The cat number"),
            owner=owner_of(OWNER),
            text=TEXT,
        )
    ]
    while run.active:
        time.sleep(0.1)
    assert run.status == "finished", run.message
    at = _page()
    at.button(key=f"studio_show_{run.id}").click().run()
    assert not at.exception and "Finished: 4 steps" in at.success[0].value
    # a finished run opens on its latest snapshot
    last = run.snapshots[-1].step
    assert any(c.value.startswith(f"Step {last}: validation perplexity") for c in at.caption), [
        c.value for c in at.caption
    ]
    assert at.selectbox(key="studio_layer").options == ["layer 1"]  # every layer × head of the causal attention
    assert at.selectbox(key="studio_head").options == ["head 1", "head 2", "average over heads"]
    # the probe's next tokens at the latest snapshot
    assert " ".join(run.snapshots[-1].tgt_tokens) in [x.value for x in at.text]
    generation = _page(str(ROOT / "pages" / "6_Generation.py"))
    picker = generation.selectbox(key="gen_model")
    assert "Your run: my LM" in picker.options
    picker.select(str(run.checkpoint)).run()
    assert not generation.exception and not generation.error
    assert (
        "Your run: my LM"
        not in _page(str(ROOT / "pages" / "6_Generation.py"), "another session").selectbox(key="gen_model").options
    )


def test_a_bert_run_appears_in_the_bert_page_picker_of_its_session(runs_root):
    registry = Registry(runs_root, max_active=1)
    run = registry.runs[
        registry.start(
            replace(PRESETS["tiny-bert"], data="text", steps=4, snapshots=1, name="my BERT"),
            owner=owner_of(OWNER),
            text=TEXT,
        )
    ]
    while run.active:
        time.sleep(0.1)
    assert run.status == "finished", run.message
    page = _page(str(ROOT / "pages" / "7_BERT_masking.py"))
    picker = page.selectbox(key="bert_model")
    assert "Your run: my BERT" in picker.options
    picker.select(str(run.checkpoint)).run()
    assert not page.exception and not page.error  # the page reads the user's BERT
    assert (
        "Your run: my BERT"
        not in _page(str(ROOT / "pages" / "7_BERT_masking.py"), "another session").selectbox(key="bert_model").options
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_finetune_family_and_its_task_can_be_chosen_in_both_languages(runs_root, lang):
    """Issue 27: fine-tuning is a studio family; its task and base are chosen, its data is the synthetic task
    (no upload box), in English and in 中文, without an exception."""
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.session_state[OWNER_KEY] = owner_id(OWNER)
    at.query_params["lang"] = lang
    if lang == "zh":  # AppTest formats a selectbox's value in English when it reruns: one run, family preset
        at.session_state["studio_preset"] = "tiny-finetune"
    at.run()
    assert not at.exception
    if lang == "en":
        at.segmented_control(key="studio_family").set_value("finetune").run()
        assert not at.exception
    assert at.session_state["studio_data"] == "task" and len(at.selectbox(key="studio_data").options) == 1
    assert not [u for u in at.get("file_uploader") if u.key == "studio_upload"]
    zh = {t: STRINGS[f"studio.task.{t}"][1] for t in ("cls", "nli", "qa")}
    assert at.selectbox(key="studio_task").options == (
        [TASK_LABELS[t] for t in zh] if lang == "en" else list(zh.values())
    )
    assert at.selectbox(key="studio_base").options == ["bert-small"]
    assert at.selectbox(key="studio_task").value == ("nli" if lang == "en" else "cls")  # the preset's
    if lang == "zh":
        assert at.selectbox(key="studio_task").label == "任务" and "微调 BERT" in at.segmented_control[0].options


def test_finetuning_hides_the_model_settings_its_base_decides_and_keeps_them(runs_root):
    """Size, attention, dropout, teacher forcing and label smoothing are the base's for fine-tuning: not drawn
    for that family, and back with the values the teacher had set when another family is chosen again."""
    at = _studio()
    at.segmented_control(key="studio_family").set_value("transformer").run()
    at.session_state["studio_layers"], at.session_state["studio_smoothing"] = 3, 0.2  # as a preset sets them
    at.segmented_control(key="studio_family").set_value("finetune").run()
    assert not at.exception
    drawn = {w.key for w in [*at.slider, *at.select_slider, *at.selectbox, *at.toggle]}
    assert not drawn & {"studio_layers", "studio_heads", "studio_hidden", "studio_smoothing", "studio_dropout"}
    assert not drawn & {"studio_attention", "studio_bidirectional", "studio_teacher"}
    assert {"studio_steps", "studio_batch", "studio_lr", "studio_n_train", "studio_task"} <= drawn
    at.segmented_control(key="studio_family").set_value("transformer").run()
    assert at.slider(key="studio_layers").value == 3 and at.slider(key="studio_smoothing").value == 0.2


def test_the_frozen_head_stage_shows_its_progress_and_stop_ends_it(runs_root):
    """Fine-tuning first trains the §5.3 head on the same steps: the live panel counts those steps (not
    "Preparing the data" for a minute), and Stop, pressed then, ends the run."""
    at = _studio()
    at.selectbox(key="studio_preset").select("tiny-finetune").run()
    at.session_state["studio_steps"] = 3000  # long enough to be caught in its first stage
    at.run()
    at.button(key="studio_train").click().run()
    _until(at, lambda a: any("frozen-feature head" in str(p.proto.text) for p in a.get("progress")))
    shown = next(str(p.proto.text) for p in at.get("progress") if "frozen-feature head" in str(p.proto.text))
    assert "(§5.3)" in shown and "of 3000" in shown
    at.button(key="studio_stop").click().run()
    _until(at, lambda a: list_runs(runs_root, owner_of(OWNER)) and not a.get("progress"), timeout=60)
    saved = list_runs(runs_root, owner_of(OWNER))[0]
    assert saved.meta["status"] == "stopped"
    from models.training.finetune import recorded_test

    test = recorded_test(saved.checkpoint)  # the §5.3 figure is of a head stopped part-way, and says so
    assert test is not None and test["frozen_of"] == 3000 and 0 < test["frozen_steps"] < 3000
    _until(at, lambda a: any("Stop ended the frozen head's training" in m.value for m in a.markdown))
    line = next(m.value for m in at.markdown if "Stop ended the frozen head's training" in m.value)
    assert f"at step {test['frozen_steps']} of 3000" in line and "(§5.3)" in line


def test_a_tiny_finetune_run_shows_both_test_figures(runs_root):
    at = _studio()
    at.selectbox(key="studio_preset").select("tiny-finetune").run()  # its family, task and data
    at.button(key="studio_train").click().run()
    assert not at.exception and not at.error
    _until(at, lambda a: any("§5.3" in m.value for m in a.markdown))
    figures = next(m.value for m in at.markdown if "§5.3" in m.value)
    assert "Test accuracy on" in figures and "(§4)" in figures
    run = list_runs(runs_root, owner_of(OWNER))[0]
    assert run.meta["family"] == "bert-finetuned" and 0 <= run.meta["score"] <= 1
