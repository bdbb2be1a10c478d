"""The Training studio's pieces: the server's run registry, the settings popover, the live panel
polled while a run trains, the snapshot scrubber, and the saved-runs manager.

Training runs in background threads of :class:`models.training.runs.Registry`, kept in one
``st.cache_resource`` (DESIGN.md, "Training from the app"); the live panel is an
``st.fragment(run_every=…)`` that redraws only the progress and the curves. No ``st.*`` call
runs in a training thread.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable, MutableMapping
from dataclasses import replace
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

from models.nn.transformer_xl import xl_mask
from corpora.text import CorpusFormatError, decode_text
from corpora.user_tsv import MAX_BYTES, check_tsv
from models.errors import without_paths
from models.runs.owners import cookie_value, new_owner_id, owner_key, read_cookie
from models.runs.registry import Registry
from models.runs.store import (
    SavedRun,
    delete_run,
    export_zip,
    import_zip,
    list_runs,
    mine,
    publish_run,
    rename_run,
    resumable,
    user_checkpoints,
)
from models.training.runs import (
    ACTIVE_STATES,
    BLEU,
    CHECKPOINT,
    DATA_SOURCES,
    FAILED,
    FINETUNE,
    FINISHED,
    MAX_WINDOW,
    MAX_XL_MEM,
    MLM_ACCURACY,
    PERPLEXITY,
    PLM_PERPLEXITY,
    PRESETS,
    STATES,
    STOPPED,
    TRAINEES,
    WAITING,
    XL,
    XLNET,
    Run,
    RunError,
    RunSettings,
    data_for,
    finetune_bases,
    metric_of,
)
from models.runs.snapshots import EXACT_MATCH, FRACTIONS, TASK_ACCURACY, Snapshot, read_losses, read_snapshots
from models.training.finetune import TASKS, recorded_test
from ui.checkpoints import release
from ui.export import PLOT
from ui.i18n import Labels, figure_texts, tr
from ui.plot import chart
from ui.state import checked, labels, url_check, url_value
from ui.grid import AVERAGE, head_name, head_picker, pick
from ui.stepper import step_control
from ui.tokens import md_escape, model_text
from viz_core.seq2seq import attention_heatmap
from viz_core.transformer_xl import xl_attention_figure
from viz_core.studio import aer_figure, curves_figure

MAX_ZIP_UPLOAD = 25_000_000  # a run zip (a studio-sized checkpoint is under 5 MB; it unpacks to at most 100 MB)
RUN_KEY = "studio_run"  # the run this session shows: an id of the registry or of a saved run
OWNER_KEY = "studio_owner"  # this browser session's secret id (its runs record a key derived from it)
OWNER_COOKIE, _COOKIE_WRITTEN = "attention_lab_owner", "studio_owner_cookie"
_SIGNED_FORM = re.compile(r"[0-9a-f]{32}\.[0-9a-f]{64}")  # models.runs.owners.cookie_value
_COOKIE_AGE_S = 180 * 24 * 3600
ATTENTION_OPTIONS = ("bahdanau", "luong-general", "luong-dot", "luong-concat", "none")
ATTENTION_LABELS = Labels({a: f"studio.attn.{a}" for a in ATTENTION_OPTIONS})
DATA_LABELS = Labels({d: f"studio.data.{d}" for d in DATA_SOURCES})
PRESET_LABELS = Labels({p: f"studio.preset.{p}" for p in PRESETS})
FAMILY_LABELS = Labels({f: f"studio.family.{f}" for f in TRAINEES})
STATUS_LABELS = Labels({s: f"studio.status.{s}" for s in STATES})
TASK_LABELS = Labels({t: f"studio.task.{t}" for t in TASKS})
# each validation metric's axis, curves title, snapshot caption and what the probe's predictions are
SCORE_AXIS = Labels(
    {
        BLEU: "studio.axis.bleu",
        PERPLEXITY: "studio.axis.perplexity",
        MLM_ACCURACY: "studio.axis.mlm_accuracy",
        PLM_PERPLEXITY: "studio.axis.plm_perplexity",
        TASK_ACCURACY: "studio.axis.task_accuracy",
        EXACT_MATCH: "studio.axis.exact_match",
    }
)
CURVES_TITLE = Labels(
    {
        BLEU: "studio.fig.curves",
        PERPLEXITY: "studio.fig.curves_lm",
        MLM_ACCURACY: "studio.fig.curves_bert",
        PLM_PERPLEXITY: "studio.fig.curves_xlnet",
        TASK_ACCURACY: "studio.fig.curves_finetune",
        EXACT_MATCH: "studio.fig.curves_span",
    }
)
CAPTIONS = {
    BLEU: "studio.snapshot_caption",
    PERPLEXITY: "studio.snapshot_caption_lm",
    MLM_ACCURACY: "studio.snapshot_caption_bert",
    PLM_PERPLEXITY: "studio.snapshot_caption_xlnet",
    TASK_ACCURACY: "studio.snapshot_caption_finetune",
    EXACT_MATCH: "studio.snapshot_caption_span",
}
PREDICTIONS = Labels(
    {
        PERPLEXITY: "studio.next_tokens",
        MLM_ACCURACY: "studio.mask_fill",
        PLM_PERPLEXITY: "studio.xlnet_predictions",
        TASK_ACCURACY: "studio.predicted_label",
        EXACT_MATCH: "studio.predicted_span",
    }
)
ROWS = {
    BLEU: "studio.run_row",
    PERPLEXITY: "studio.run_row_lm",
    MLM_ACCURACY: "studio.run_row_bert",
    PLM_PERPLEXITY: "studio.run_row_xlnet",
    TASK_ACCURACY: "studio.run_row_finetune",
    EXACT_MATCH: "studio.run_row_span",
}
UNBOUNDED = (PERPLEXITY, PLM_PERPLEXITY)  # metrics without a 0–100 axis
HIDDEN, BATCHES, HEADS = (8, 16, 32, 48, 64, 96, 128), (8, 16, 32, 64, 128), (1, 2, 4, 8)
RATES = (3e-4, 1e-3, 2e-3, 3e-3, 5e-3, 1e-2)
#: The probe's map spans the page's column: 1280 × 720 with the sidebar open (measured 762 px), so that every
#: token of the probe (18 words and more) has a label.
HEATMAP_PX = 740
SNAP_STEP_KEY = "studio_snap_step"  # the scrubber's position (1-based), also its name in the URL
SNAP_RUN_KEY = "studio_snap_run"  # the run whose snapshots the scrubber was last put on
# the settings' widget keys and how a preset's value is written into each
_FIELDS = {
    "studio_family": lambda s: s.family,
    "studio_layers": lambda s: s.layers,
    "studio_heads": lambda s: s.heads,
    "studio_smoothing": lambda s: s.label_smoothing,
    "studio_attention": lambda s: s.attention if s.attention != "luong" else f"luong-{s.score}",
    "studio_bidirectional": lambda s: s.bidirectional,
    "studio_hidden": lambda s: s.hidden,
    "studio_dropout": lambda s: s.dropout,
    "studio_teacher": lambda s: s.teacher_forcing,
    "studio_batch": lambda s: s.batch_size,
    "studio_lr": lambda s: s.lr,
    "studio_steps": lambda s: s.steps,
    "studio_n_train": lambda s: s.n_train,
    "studio_seg_len": lambda s: s.seg_len,
    "studio_mem_len": lambda s: s.mem_len,
    "studio_window": lambda s: s.window,
    "studio_k_split": lambda s: s.k_split,
    "studio_task": lambda s: s.task,
    "studio_base": lambda s: s.base,
}


@st.cache_resource(show_spinner=False)
def registry() -> Registry:
    """The server's one run registry (its threads outlive every script run). Made once per server: it
    first queues again the runs a killed server left waiting (:meth:`Registry.recover`)."""
    reg = Registry()
    reg.recover()
    return reg


def user_choices(family: str, architecture: str | None = None) -> list[tuple[str, str]]:
    """(checkpoint folder, "Your run: name" or "Class run: name") of the saved runs of ``family`` (and
    transformer ``architecture``) that this session sees, for the model pickers."""
    return [
        (path, tr("studio.your_run" if own else "studio.class_run", name=name))
        for path, name, own in user_checkpoints(family, owner=session_owner(), architecture=architecture)
    ]


def _owner_id() -> str:
    """This browser's secret id: kept in its session state and, by :func:`keep_owner`, in a cookie that
    this server signed (:mod:`models.runs.owners`). A cookie the server did not sign (forged, edited, of
    the old unsigned form) is ignored: the session gets a fresh id. Anything else left under its key
    (a stale or hostile value) is replaced the same way."""
    owner_id = st.session_state.get(OWNER_KEY)
    if not (isinstance(owner_id, str) and re.fullmatch(r"[0-9a-f]{32}", owner_id)):
        owner_id = read_cookie(st.context.cookies.get(OWNER_COOKIE), registry().root) or new_owner_id()
        st.session_state[OWNER_KEY] = owner_id
    return owner_id


def session_owner() -> str:
    """What this browser's runs record as their owner: a key derived from its secret id
    (:func:`models.runs.owners.owner_key`); its runs are private to it until published
    (:func:`models.runs.store.publish_run`). Nothing a run holds can be turned into the cookie."""
    return owner_key(_owner_id(), registry().root)


def keep_owner() -> None:
    """Keep this session's id in a cookie of this site, signed by the server (a same-origin script writes
    the value the server made; once per session), so that a reload or a new tab of the same browser
    still finds its private runs. Only hex digits and a dot reach the script: nothing typed."""
    owner_id = _owner_id()
    if st.session_state.get(_COOKIE_WRITTEN) == owner_id:
        return
    value = cookie_value(owner_id, registry().root)
    if st.context.cookies.get(OWNER_COOKIE) != value and _SIGNED_FORM.fullmatch(value):
        st.html(
            f"<script>document.cookie = '{OWNER_COOKIE}={value}; path=/; max-age={_COOKIE_AGE_S}; "
            f"SameSite=Strict';</script>",
            unsafe_allow_javascript=True,
        )
    st.session_state[_COOKIE_WRITTEN] = owner_id


def error_text(exc: RunError | CorpusFormatError) -> str:
    """A run's or an uploaded file's error in the reader's language (its ``key`` and ``params``, see
    :func:`ui.tokens.model_text`; a ``reason`` param is a string id too), else its own English."""
    return without_paths(_said(exc.key or "", exc.params, str(exc)))


def _said(key: str, params: dict[str, object], english: str = "") -> str:
    if "reason" in params:
        params = {**params, "reason": tr(str(params["reason"]))}
    return model_text(key, params, english)


def _data_label(run: Run | SavedRun) -> str:
    """The run's data in the reader's language (a saved run that names no known source: its own words)."""
    if isinstance(run, Run):
        return DATA_LABELS[run.settings.data]
    settings = run.meta.get("settings")
    source = settings.get("data") if isinstance(settings, dict) else None
    return DATA_LABELS[source] if source in DATA_SOURCES else str(run.meta.get("data", ""))


def vocab_note(cuts: object) -> None:
    """Say where a vocabulary was cut to its cap (words kept of words seen, per side): the rest read as <unk>."""
    if not isinstance(cuts, list):
        return
    for kept, seen in (c for c in cuts if isinstance(c, (list, tuple)) and len(c) == 2):
        if isinstance(kept, int) and isinstance(seen, int) and seen > kept:
            st.caption(tr("studio.vocab_cut", kept=kept, seen=seen), help=tr("studio.vocab_cut_help"))
            return


def _apply_preset() -> None:
    preset = PRESETS.get(st.session_state.get("studio_preset"))  # a crafted client may send anything
    if preset is None:
        return
    for key, value_of in _FIELDS.items():
        st.session_state[key] = value_of(preset)
    _fit_data_to_family()  # a fine-tuning preset's data is its task


def _fit_data_to_family() -> None:
    """A family change keeps the chosen data when the new family trains on it, else takes its first source."""
    sources = data_for(st.session_state.get("studio_family"))
    if st.session_state.get("studio_data") not in sources:
        st.session_state["studio_data"] = sources[0]


def settings_popover() -> None:
    """The settings (a preset fills them in) and the Train button; a started run becomes this session's run."""
    url_check("studio_preset", labels(PRESETS), tr("studio.preset"), url=False)  # read by _apply_preset below
    if "studio_attention" not in st.session_state:
        st.session_state.setdefault("studio_preset", "bahdanau")
        _apply_preset()
    with st.popover(tr("studio.settings"), icon=":material/tune:"):
        checked(
            st.selectbox,
            tr("studio.preset"),
            list(PRESETS),
            key="studio_preset",
            format_func=PRESET_LABELS.get,
            on_change=_apply_preset,
            help=tr("studio.preset_help"),
        )
        # outside the form, so that the data choices follow the family at once
        family = checked(
            st.segmented_control,
            tr("studio.family"),
            list(TRAINEES),
            key="studio_family",
            format_func=FAMILY_LABELS.get,
            required=True,
            on_change=_fit_data_to_family,
        )
        with st.form("studio_form", border=False):
            data = checked(
                st.selectbox, tr("studio.data"), list(data_for(family)), key="studio_data", format_func=DATA_LABELS.get
            )
            upload = None
            if family == FINETUNE:  # the synthetic task: nothing to upload
                st.caption(tr("studio.no_upload"))
            else:
                upload = st.file_uploader(
                    tr("studio.upload"),
                    type=["tsv", "txt"],
                    key="studio_upload",
                    max_upload_size=MAX_BYTES // 1_000_000,
                )
            task = _task_settings(family)
            left, right = st.columns(2)
            model = _model_settings(family, left, right)
            batch = checked(
                left.select_slider, tr("studio.batch"), list(BATCHES), key="studio_batch", help=tr("studio.batch_help")
            )
            steps = checked(
                right.slider, tr("studio.steps"), 10, 3000, step=10, key="studio_steps", help=tr("studio.steps_help")
            )
            lr = checked(left.select_slider, tr("studio.lr"), list(RATES), key="studio_lr", help=tr("studio.lr_help"))
            n_train = checked(
                left.slider,
                tr("studio.n_train"),
                100,
                40000,
                step=100,
                key="studio_n_train",
                help=tr("studio.n_train_help"),
            )
            lengths = _length_settings(family, right)
            name = checked(right.text_input, tr("studio.name"), "", max_chars=60, key="studio_name")
            probe = checked(
                st.text_input,
                tr("studio.probe"),
                "",
                max_chars=200,
                key="studio_probe",
                placeholder=tr("studio.probe_placeholder"),
                help=tr("studio.probe_help"),
            )
            if st.form_submit_button(
                tr("studio.train"), type="primary", icon=":material/play_arrow:", key="studio_train"
            ):
                start_run(
                    dict(
                        name=name,
                        family=family,
                        data=data,
                        **model,
                        batch_size=int(batch),
                        lr=float(lr),
                        steps=int(steps),
                        n_train=int(n_train),
                        probe=probe,
                        **lengths,
                        **task,
                    ),
                    upload,
                )


#: The model's own settings: fine-tuning takes them from its pre-trained base, so they are not drawn for it.
_MODEL_KEYS = (
    "studio_layers",
    "studio_heads",
    "studio_attention",
    "studio_bidirectional",
    "studio_hidden",
    "studio_dropout",
    "studio_teacher",
    "studio_smoothing",
)


def _model_settings(family: str, left, right) -> dict[str, Any]:
    """Size, attention, dropout, teacher forcing and label smoothing, drawn in two columns, except for
    fine-tuning, whose model is its base's: there the values stay as they were (set again, so that
    Streamlit keeps an undrawn widget's value) and the run ignores them."""
    state = st.session_state
    if family == FINETUNE:
        for key in _MODEL_KEYS:
            if key in state:
                state[key] = state[key]
        values = {k: state.get(k, _FIELDS[k](RunSettings())) for k in _MODEL_KEYS}
    else:
        values = {
            "studio_layers": checked(
                left.slider, tr("studio.layers"), 1, 4, key="studio_layers", help=tr("studio.layers_help")
            ),
            "studio_heads": checked(
                right.select_slider, tr("studio.heads"), list(HEADS), key="studio_heads", help=tr("studio.heads_help")
            ),
            "studio_attention": checked(
                left.selectbox,
                tr("studio.attention"),
                list(ATTENTION_OPTIONS),
                key="studio_attention",
                format_func=ATTENTION_LABELS.get,
                help=tr("studio.attention_help"),
            ),
            "studio_bidirectional": checked(
                right.toggle,
                tr("studio.bidirectional"),
                key="studio_bidirectional",
                help=tr("studio.bidirectional_help"),
            ),
            "studio_hidden": checked(
                left.select_slider,
                tr("studio.hidden"),
                list(HIDDEN),
                key="studio_hidden",
                help=tr("studio.hidden_help"),
            ),
            "studio_dropout": checked(
                right.slider,
                tr("studio.dropout"),
                0.0,
                0.5,
                step=0.05,
                key="studio_dropout",
                help=tr("studio.dropout_help"),
            ),
            "studio_teacher": checked(
                left.slider,
                tr("studio.teacher"),
                0.0,
                1.0,
                step=0.05,
                key="studio_teacher",
                help=tr("studio.teacher_help"),
            ),
            "studio_smoothing": checked(
                right.slider,
                tr("studio.smoothing"),
                0.0,
                0.3,
                step=0.05,
                key="studio_smoothing",
                help=tr("studio.smoothing_help"),
            ),
        }
    mechanism, _, score = str(values["studio_attention"]).partition("-")
    return dict(
        layers=int(values["studio_layers"]),
        heads=int(values["studio_heads"]),
        attention=mechanism,
        score=score or "general",
        bidirectional=bool(values["studio_bidirectional"]),
        hidden=int(values["studio_hidden"]),
        dropout=float(values["studio_dropout"]),
        teacher_forcing=float(values["studio_teacher"]),
        label_smoothing=float(values["studio_smoothing"]),
    )


def _length_settings(family: str, column) -> dict[str, int]:
    """Transformer-XL's segment length L and memory M, or XLNet's window n and K, drawn (in ``column``)
    only for that family (a slider left undrawn loses its value: it comes back at the settings' default);
    the other families keep the preset's values."""
    for key in ("studio_seg_len", "studio_mem_len", "studio_window", "studio_k_split"):
        st.session_state.setdefault(key, _FIELDS[key](RunSettings()))
    if family == XL:
        return {
            "seg_len": int(
                checked(
                    column.slider, tr("studio.seg_len"), 2, 64, key="studio_seg_len", help=tr("studio.seg_len_help")
                )
            ),
            "mem_len": int(
                checked(
                    column.slider,
                    tr("studio.mem_len"),
                    0,
                    MAX_XL_MEM,
                    key="studio_mem_len",
                    help=tr("studio.mem_len_help"),
                )
            ),
        }
    if family == XLNET:
        return {
            "window": int(
                checked(
                    column.slider,
                    tr("studio.window"),
                    4,
                    MAX_WINDOW,
                    key="studio_window",
                    help=tr("studio.window_help"),
                )
            ),
            "k_split": int(
                checked(
                    column.slider, tr("studio.k_split"), 1, 16, key="studio_k_split", help=tr("studio.k_split_help")
                )
            ),
        }
    return {}


def _task_settings(family: str) -> dict[str, str]:
    """Fine-tuning's task and pre-trained base (Devlin et al. 2019 §4), drawn only for that family (the other
    families keep the preset's values, which they do not use)."""
    for key in ("studio_task", "studio_base"):
        st.session_state.setdefault(key, _FIELDS[key](RunSettings()))
    if family != FINETUNE:
        return {}
    bases = finetune_bases()
    if st.session_state.get("studio_base") not in bases and bases:
        st.session_state["studio_base"] = bases[0]
    left, right = st.columns(2)
    task = checked(
        left.selectbox,
        tr("studio.task"),
        list(TASKS),
        key="studio_task",
        format_func=TASK_LABELS.get,
        help=tr("studio.task_help"),
    )
    base = checked(right.selectbox, tr("studio.base"), bases, key="studio_base", help=tr("studio.base_help"))
    return {"task": str(task), "base": str(base)}


def start_run(values: dict, upload) -> None:
    """Check the settings (over the chosen preset's) and the uploaded file, and queue the run; every
    problem is one message."""
    pairs = text = None
    if values["data"] in ("upload", "text") and upload is None:
        st.error(tr("studio.no_file"))
        return
    if upload is not None and upload.size > MAX_BYTES:  # the box says so too; a crafted client may not listen
        st.error(
            tr(
                "studio.bad_file",
                error=md_escape(tr("tsv.too_big", name=upload.name, mb=upload.size / 1e6, limit=MAX_BYTES / 1e6)),
            )
        )
        return
    if values["data"] == "text":
        try:
            text = decode_text(upload.getvalue(), upload.name)
        except CorpusFormatError as exc:
            st.error(tr("studio.bad_file", error=md_escape(error_text(exc))))
            return
    if values["data"] == "upload":
        try:
            found = check_tsv(upload.getvalue(), upload.name)
        except CorpusFormatError as exc:
            st.error(tr("studio.bad_file", error=md_escape(error_text(exc))))
            return
        if found.bad_lines:
            st.warning(tr("studio.bad_rows", n=found.n_bad))
            st.code(
                "\n".join(_said("tsv.line", {"line": line, "reason": reason}) for line, reason in found.bad_lines),
                language=None,
            )
        pairs = found.pairs
    try:
        settings = replace(PRESETS[st.session_state.get("studio_preset", "bahdanau")], **values)
        st.session_state[RUN_KEY] = registry().start(settings, pairs, owner=session_owner(), text=text)
    except RunError as exc:
        st.error(tr("studio.cannot_start", error=md_escape(error_text(exc))))


def shown_run() -> Run | SavedRun | None:
    """This session's run (first: the link's ``?studio_run=``): a live one of the registry, else a
    saved one, else the newest saved run. Its id is kept in the URL, so that a link, or "Add this
    view to the deck", shows the same run."""
    reg = registry()
    run_id = st.session_state.get(RUN_KEY, st.query_params.get(RUN_KEY))
    run = reg.get(run_id if isinstance(run_id, str) else None, session_owner())
    if run is None:
        saved = list_runs(reg.root, session_owner())
        run = next((r for r in saved if r.id == run_id), saved[0] if saved else None)
    if run is not None:
        st.query_params[RUN_KEY] = run.id
    elif RUN_KEY in st.query_params:
        del st.query_params[RUN_KEY]
    return run


def _snapshots(run: Run | SavedRun) -> list[Snapshot]:
    return list(run.snapshots) if isinstance(run, Run) else read_snapshots(run.folder)


def _losses(run: Run | SavedRun) -> list[float]:
    return list(run.losses) if isinstance(run, Run) else read_losses(run.folder)


def _probe_map(shot: Snapshot, layer: int | None, head: int) -> tuple:
    """The probe's map to draw and its title: α of the RNN, or the Transformer's cross-attention (the
    LM's and BERT's self-attention) of one layer (default: the last) and head (or the average over
    heads, :data:`ui.grid.AVERAGE`)."""
    weights = shot.weights
    if weights.ndim == 2:
        return weights, tr("studio.fig.attention", step=shot.step)
    layer = weights.shape[0] - 1 if layer is None else layer
    key = {BLEU: "studio.fig.cross", PLM_PERPLEXITY: "studio.fig.query_stream"}.get(shot.metric, "studio.fig.self")
    if shot.memory:
        key = "studio.fig.xl"
    return pick(weights, layer, head), tr(key, step=shot.step, head=head_name(layer, head))


def _metric(run: Run | SavedRun) -> str:
    """The run's validation metric (a saved run of before the LM and BERT families: BLEU)."""
    return metric_of(run.settings) if isinstance(run, Run) else str(run.meta.get("metric", BLEU))


def snapshot_caption(shot: Snapshot) -> str:
    """ "Step s: validation BLEU b, AER a." (perplexity for the LM, masked-LM accuracy for BERT)."""
    aer = "" if shot.aer is None else tr("studio.aer_part", aer=shot.aer)
    return tr(CAPTIONS[shot.metric], step=shot.step, bleu=shot.score, score=shot.score, aer=aer)


def run_curves(run: Run | SavedRun, shot: Snapshot | None) -> go.Figure:
    """The loss and validation-metric curves of ``run`` with the snapshot's step marked (None: no mark);
    masked-LM accuracy in percent."""
    shots, metric = _snapshots(run), _metric(run)
    scale = 100 if metric in FRACTIONS else 1
    return curves_figure(
        _losses(run),
        [s.step for s in shots],
        [s.score * scale for s in shots],
        marker=None if shot is None else shot.step,
        title=CURVES_TITLE[metric],
        x_title=tr("studio.axis.step"),
        loss_name=tr("studio.axis.loss"),
        score_name=SCORE_AXIS[metric],
        score_range=None if metric in UNBOUNDED else (0.0, 100.0),
    )


def probe_figure(
    shot: Snapshot, layer: int | None = None, head: int = AVERAGE, width: float = HEATMAP_PX, height: int | None = None
) -> go.Figure:
    """The probe's attention map of a snapshot whose model has attention (with its gold links
    where it has them), planned for ``width`` × ``height`` px (height None: as tall as it needs)."""
    weights, title = _probe_map(shot, layer, head)
    if height is None:  # each row one line of label text and more
        height = max(360, 200 + 28 * int(weights.shape[0]))
    if shot.memory:  # Transformer-XL: the last segment's queries over [memory | segment], the causal mask
        memory, segment = shot.src_tokens[: shot.memory], shot.src_tokens[shot.memory :]
        return xl_attention_figure(
            weights,
            memory,
            segment,
            xl_mask(len(segment), shot.memory).numpy(),
            memory_label=tr("txl.memory", n=len(memory)),
            segment_label=tr("txl.current", n=len(segment)),
            title=title,
            x_title=tr("txl.x_key"),
            y_title=tr("txl.y_query"),
            texts=figure_texts(),
            width=width,
            height=height,
        )
    if shot.metric != BLEU:  # self-attention: each token (row) over the tokens it may read (columns)
        texts = {**figure_texts(), "s2s.x": tr("studio.axis.key"), "s2s.y": tr("studio.axis.query")}
        return attention_heatmap(
            weights, shot.src_tokens, shot.src_tokens, title=title, width=width, height=height, texts=texts
        )
    # any language pair: the axes say source and output, not English and French
    texts = {**figure_texts(), "s2s.x": tr("studio.axis.source"), "s2s.y": tr("studio.axis.output")}
    return attention_heatmap(
        weights, shot.src_tokens, shot.tgt_tokens, gold=shot.gold, title=title, width=width, height=height, texts=texts
    )


def main_figures(run: Run | SavedRun, shot: Snapshot | None, layer: int | None = None, head: int = AVERAGE) -> None:
    """The probe's attention map across the column (every token labelled), then the loss and BLEU
    curves with the snapshot's step marked."""
    if shot is not None and shot.weights is None:
        st.info(tr("studio.no_attention"))
        st.text(" ".join(shot.tgt_tokens))
    elif shot is not None:
        chart(probe_figure(shot, layer, head), config=PLOT)
        if shot.metric != BLEU:  # the LM's next tokens, BERT's top piece at each [MASK]
            st.caption(PREDICTIONS[shot.metric])
            st.text(" ".join(shot.tgt_tokens) or "—")
    chart(run_curves(run, shot), config=PLOT)


def scrub_to_latest(state: MutableMapping[str, object], run_id: str, n_shots: int, linked: bool = False) -> None:
    """Put the scrubber on the latest of ``n_shots`` snapshots when a run is first shown here: one
    that has just finished (the live panel forgets :data:`SNAP_RUN_KEY`), or another run picked; after
    that it stays where the user puts it. A link's step (``linked``) wins on the page's first run."""
    if state.get(SNAP_RUN_KEY) == run_id:
        return
    state[SNAP_RUN_KEY] = run_id
    if not linked and n_shots:
        state[SNAP_STEP_KEY] = n_shots


def live_panel() -> None:
    """Polled every second while this session's run waits or trains: queue place or progress with
    ETA, speed, Stop, and the curves with the latest snapshot; reruns the page when the run ends."""
    run = shown_run()
    if not isinstance(run, Run) or run.status not in ACTIVE_STATES:
        st.rerun(scope="app")
        return
    reg = registry()
    status, stop = st.columns([6, 1], vertical_alignment="center")
    if run.status == WAITING:
        ahead = reg.position(run.id)
        status.info(
            tr("studio.waiting", n=ahead) if ahead > 0 else tr("studio.waiting_next"), icon=":material/schedule:"
        )
    elif run.preparing_now:  # fine-tuning's frozen-feature head trains first (again, on a resumed run)
        done, total = run.preparing
        status.progress(done / total, text=tr("studio.preparing_head", step=done, steps=total))
    elif not run.step:
        status.progress(0.0, text=tr("studio.starting"))
    else:
        status.progress(
            run.step / run.settings.steps,
            text=tr("studio.progress", step=run.step, steps=run.settings.steps, eta=run.eta() or 0.0),
        )
        status.caption(
            tr("studio.stats", loss=run.losses[-1], tps=run.tokens_per_second, device=run.device, data=_data_label(run))
        )
        vocab_note(run.vocab_cut)
    stop.button(
        tr("studio.stop"),
        key="studio_stop",
        on_click=reg.stop,
        args=(run.id,),
        icon=":material/stop:",
        help=tr("studio.stop_help"),
    )
    st.session_state.pop(SNAP_RUN_KEY, None)  # when it ends, the result's scrubber starts on its last snapshot
    main_figures(run, run.snapshots[-1] if run.snapshots else None)


def result_view(run: Run | SavedRun, head_picked: Callable[[int, int], None]) -> None:
    """A finished, stopped or failed run: its outcome, the scrubber over its snapshots beside the loss curve,
    and the AER of the snapshots where the data has gold alignments. A Transformer's layer and head, picked
    here, go to ``head_picked`` (the page publishes its view state with them: ui.views.studio.StudioState)."""
    status = run.status if isinstance(run, Run) else str(run.meta.get("status", FINISHED))
    name = run.settings.name if isinstance(run, Run) else run.name
    if status == FAILED:
        if not isinstance(run, Run):  # an imported run.json may say anything
            message = str(run.meta.get("message", ""))
        else:
            message = model_text(run.message_key, run.message_params, run.message)
        st.error(tr("studio.failed", error=md_escape(message)))
        return
    meta = run.meta if isinstance(run, SavedRun) else {"steps": run.step, "seconds": run.elapsed}
    key = "studio.finished" if status == FINISHED else "studio.stopped"
    st.success(tr(key, steps=meta.get("steps", 0), seconds=float(meta.get("seconds") or 0), name=md_escape(name)))
    vocab_note(run.vocab_cut if isinstance(run, Run) else run.meta.get("vocab"))
    finetune_test(run)
    if (
        status == STOPPED
        and resumable(run.folder)
        and st.button(
            tr("studio.resume"), key="studio_resume", icon=":material/play_arrow:", help=tr("studio.resume_help")
        )
    ):
        _resume(run.id)
        st.rerun(scope="app")  # the whole page: the live panel takes over from this fragment
    shots = _snapshots(run)
    if not shots:
        return
    scrub_to_latest(st.session_state, run.id, len(shots), linked=url_value(SNAP_STEP_KEY) is not None)
    index = step_control(len(shots), key="studio_snap", label=tr("studio.snapshot"))
    shot = shots[index]
    layer, head = None, AVERAGE
    if shot.weights is not None and shot.weights.ndim == 4:
        layer, head = head_picker(*shot.weights.shape[:2], key="studio", columns=st.columns(4)[:2])
        head_picked(layer, head)
    main_figures(run, shot, layer, head)
    st.caption(snapshot_caption(shot))
    scored = [s for s in shots if s.aer is not None]
    if scored:
        chart(
            aer_figure(
                [s.step for s in scored],
                [s.aer for s in scored],
                marker=shot.step,
                title=tr("studio.fig.aer"),
                x_title=tr("studio.axis.step"),
                y_title=tr("studio.axis.aer"),
            ),
            config=PLOT,
        )


def finetune_test(run: Run | SavedRun) -> None:
    """A fine-tuning run's test figures, as its checkpoint recorded them: every parameter fine-tuned (§4)
    beside the frozen-feature head (§5.3), on the same test split (nothing for the other families)."""
    if _metric(run) not in (TASK_ACCURACY, EXACT_MATCH):
        return
    test = recorded_test(run.checkpoint)
    if test is not None:
        metric = tr(f"studio.metric.{test['metric']}")
        partial = (
            " " + tr("studio.finetune_frozen_partial", step=test["frozen_steps"], steps=test["frozen_of"])
            if "frozen_steps" in test
            else ""
        )
        st.markdown(
            tr("studio.finetune_test", metric=metric, n=test["n"], tuned=test["finetuned"], frozen=test["frozen"])
            + partial
        )


def _run_action(action, *args) -> None:
    """Button callback: a saved-run action, its failure kept for one message."""
    try:
        action(*args)
    except RunError as exc:
        st.session_state["studio_error"] = error_text(exc)
    except OSError as exc:
        st.session_state["studio_error"] = str(exc)


def _resume(run_id: str) -> None:
    """Queue a stopped run to go on from its last step, and show it (a failure kept for one message)."""
    _run_action(registry().resume, run_id, session_owner())
    st.session_state[RUN_KEY] = run_id


def _rename(run_id: str, root) -> None:
    """Button callback: rename a run to what its name box holds now (read at the click, not at the drawing)."""
    _run_action(rename_run, run_id, str(st.session_state.get(f"studio_name_{run_id}", "")), root, session_owner())


def _publish(run_id: str, root) -> None:
    """Toggle callback: show the run to every session of this server, or to this one alone again."""
    _run_action(publish_run, run_id, bool(st.session_state.get(f"studio_publish_{run_id}")), root, session_owner())


def _delete(run_id: str, root) -> None:
    """Button callback: delete a saved run's folder and forget it here (it was perhaps the one shown)."""
    _run_action(delete_run, run_id, root, session_owner())
    registry().forget(run_id)
    release(str(Path(root) / run_id / CHECKPOINT))  # its model, if a page had loaded it, is freed
    if st.session_state.get(RUN_KEY) == run_id:
        del st.session_state[RUN_KEY]


def import_run(upload) -> None:
    try:
        if upload.size > MAX_ZIP_UPLOAD:  # the box says so too; a crafted client may not listen
            raise RunError("run.err.too_big", mb=MAX_ZIP_UPLOAD / 1e6)
        st.session_state[RUN_KEY] = import_zip(upload.getvalue(), registry().root, owner=session_owner())
    except RunError as exc:
        st.session_state["studio_error"] = error_text(exc)


def runs_manager() -> None:
    """The saved runs this session sees: show, download as a zip; its own ones also publish, rename,
    delete; add a run from a zip."""
    root, owner = registry().root, session_owner()
    saved = list_runs(root, owner)
    error = st.session_state.pop("studio_error", None)
    if error:
        st.error(tr("studio.run_error", error=md_escape(error)))
    with st.expander(tr("studio.runs", n=len(saved)), icon=":material/folder_open:"):
        st.caption(tr("studio.runs_where", folder=md_escape(str(root))))
        for run in saved:
            status = STATUS_LABELS.get(str(run.meta.get("status", FINISHED)), "?")
            with st.container(border=True):
                st.text(run.name)
                score = run.meta.get("score", run.meta.get("bleu"))  # "bleu": a run of before the LM and BERT
                shown = "—" if score is None else score
                st.caption(
                    md_escape(tr(ROWS[_metric(run)], status=status, bleu=shown, score=shown, data=_data_label(run)))
                )
                own = mine(run.meta, owner)
                if own:
                    checked(
                        st.toggle,
                        tr("studio.publish"),
                        bool(run.meta.get("published")),
                        key=f"studio_publish_{run.id}",
                        on_change=_publish,
                        args=(run.id, root),
                        help=tr("studio.publish_help"),
                    )
                else:
                    st.caption(tr("studio.published_by_other"))
                with st.container(horizontal=True, vertical_alignment="bottom"):
                    st.button(
                        tr("studio.show"),
                        key=f"studio_show_{run.id}",
                        on_click=st.session_state.__setitem__,
                        args=(RUN_KEY, run.id),
                    )
                    if own:
                        checked(st.text_input, tr("studio.rename"), run.name, max_chars=60, key=f"studio_name_{run.id}")
                        st.button(
                            tr("studio.rename_button"),
                            key=f"studio_rename_{run.id}",
                            on_click=_rename,
                            args=(run.id, root),
                        )
                    st.download_button(
                        tr("studio.download"),
                        lambda rid=run.id: export_zip(rid, root, owner),
                        file_name=f"attention-lab-run-{run.id}.zip",
                        mime="application/zip",
                        key=f"studio_zip_{run.id}",
                        on_click="ignore",
                    )
                    if own:
                        st.button(
                            tr("studio.delete"),
                            key=f"studio_delete_{run.id}",
                            on_click=_delete,
                            args=(run.id, root),
                            icon=":material/delete:",
                        )
        upload = st.file_uploader(
            tr("studio.import"), type=["zip"], key="studio_import", max_upload_size=MAX_ZIP_UPLOAD // 1_000_000
        )
        if upload is not None:
            st.button(tr("studio.import_button"), key="studio_import_button", on_click=import_run, args=(upload,))
