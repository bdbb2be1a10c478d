"""Positional encoding: sinusoids, their rotation property, adding them to embeddings, learned,
relative (Transformer-XL), rotary (RoPE) and ALiBi encodings, and the PAD convention."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from ui.deck import publish_view
from ui.export import PLOT
from ui.frame import page_frame
from ui.i18n import figure_texts, tr
from ui.plot import chart

page_frame(tr("nav.3"), icon="〰️", intro=tr("positional.intro"))

from models.lessons import positional as pos_enc  # noqa: E402
from ui.state import checked, linked, labels as url_labels, number_in, topic_tabs, url_check  # noqa: E402
from ui.positional import (  # noqa: E402
    D_CHOICES,
    explain_embeddings,
    explain_model_scores,
    explain_offsets,
    explain_padding,
    explain_rotation,
    explain_scheme_maps,
    explain_schemes,
    explain_sinusoids,
    explain_wavelengths,
    learned_positions,
    learned_positions_view,
    mix,
    model_score_formula,
    rotation,
    rotation_formulas,
    rotation_metrics,
    scheme_titles,
    schemes,
    score_model,
    sinusoids,
)
from ui.views.positional import (  # noqa: E402
    ROTATION,
    SINUSOIDS,
    PositionalState,
    encoding,
    position_score_view,
    position_scores,
    sinusoid_view,
)
from viz_core import positional as viz  # noqa: E402

TABS = tuple(f"positional.tab.{name}" for name in ("sinusoids", "rotation", "embeddings", "schemes", "padding"))


def sinusoid_section() -> None:
    st.subheader(tr("positional.sin.header"))
    c1, c2, c3 = st.columns([3, 3, 2], vertical_alignment="bottom")
    d_model = linked(c1.select_slider, "d_model", D_CHOICES, value=64, key="pe_d", persist_state="page")
    length = checked(
        c2.slider,
        tr("positional.seq_len"),
        10,
        400,
        100,
        step=10,
        key="pe_len",
        persist_state="page",
        bind="query-params",
    )
    state = PositionalState(SINUSOIDS, d_model, length)  # what a link and a slide hold
    publish_view(state)
    trace = encoding(state)  # its slide's too
    # a fast, a medium and a slow frequency, and the cosine partner of the first
    default = sorted({2 * (d_model // 16), 2 * (d_model // 16) + 1, 2 * (d_model // 8), 2 * (d_model // 4)})
    dims_box = c3.popover(tr("positional.dims"), icon=":material/tune:", width="stretch")
    dims = linked(
        dims_box.multiselect,
        tr("positional.dims"),
        list(range(state.d_model)),
        default=default,
        key=f"pe_dims_{state.d_model}",
        persist_state="page",
    )
    left, right = st.columns(2)
    words = figure_texts()
    chart(
        viz.pe_curves_figure(trace.pe, dims, title=tr("positional.fig.curves"), texts=words),
        key="pe_curves",
        config=PLOT,
        where=left,
    )
    chart(sinusoid_view(trace.pe), key="pe_heatmap", config=PLOT, where=right)
    st.latex(
        r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right),\qquad "
        r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
    )
    explain_sinusoids()
    left, right = st.columns([3, 2])
    chart(
        viz.wavelength_figure(trace.wavelengths, state.d_model, texts=words),
        key="pe_wavelengths",
        config=PLOT,
        where=left,
    )
    explain_wavelengths(right, trace.wavelengths, state.d_model)


def similarity_rotation_section() -> None:
    st.subheader(tr("positional.rot.header"))
    c1, c2, c3, c4 = st.columns(4)
    d_model = linked(c1.select_slider, "d_model", D_CHOICES[:-1], value=64, key="rot_d", persist_state="page")
    length = checked(
        c2.slider,
        tr("positional.positions"),
        16,
        256,
        100,
        step=4,
        key="rot_len",
        persist_state="page",
        bind="query-params",
    )
    k = checked(
        c3.slider,
        tr("positional.shift"),
        0,
        length - 1,
        min(5, length - 1),
        key="rot_k",
        persist_state="page",
        bind="query-params",
    )
    pos = checked(
        c4.slider,
        tr("positional.example_pos"),
        0,
        length - 1,
        min(10, length - 1),
        key="rot_pos",
        persist_state="page",
        bind="query-params",
    )
    trace = sinusoids(length, d_model)
    words = figure_texts()
    left, right = st.columns(2)
    chart(
        viz.similarity_figure(trace.similarity, title=tr("positional.fig.similarity"), texts=words),
        key="rot_similarity",
        config=PLOT,
        where=left,
    )
    chart(
        viz.offset_figure(
            trace.offsets, trace.offset_formula, trace.offset_measured, title=tr("positional.fig.offset"), texts=words
        ),
        key="rot_offset",
        config=PLOT,
        where=right,
    )
    explain_offsets(trace.offset_spread)

    st.divider()
    with st.spinner(tr("positional.rotation_spinner")):
        check = rotation(length, d_model, k, pos)
    rotation_formulas()
    rotation_metrics(check, k, length)
    left, right = st.columns([2, 3])
    chart(viz.rotation_matrix_figure(check.matrix, k, texts=words), key="rot_matrix", config=PLOT, where=left)
    chart(
        viz.rotation_vectors_figure(check.pe_shifted, check.rotated, pos, k, texts=words),
        key="rot_vectors",
        config=PLOT,
        where=right,
    )
    left, right = st.columns([3, 2], vertical_alignment="center")
    chart(
        viz.rotation_error_figure(check.ks, check.max_error_by_k, texts=words),
        key="rot_errors",
        config=PLOT,
        where=left,
    )
    explain_rotation(right)
    st.divider()
    model_score_section()


def model_score_section() -> None:
    st.markdown(tr("positional.score.header"))
    loaded = score_model()
    if isinstance(loaded, str):
        st.warning(loaded)
        return
    c1, c2 = st.columns(2)
    layers = loaded.model.encoder.layers
    url_check(
        "rot_tf_layer", url_labels(range(len(layers))), tr("positional.score.layer_what"), tr("positional.score.layer0")
    )
    layer = linked(
        c1.radio,
        tr("positional.score.layer"),
        list(range(len(layers))),
        horizontal=True,
        key="rot_tf_layer",
        persist_state="page",
    )
    url_check(
        "rot_tf_head",
        number_in(1, layers[layer].self_attn.n_heads),
        tr("positional.score.head_what"),
        tr("positional.score.head1"),
    )
    head = c2.slider(
        tr("positional.score.head"),
        1,
        layers[layer].self_attn.n_heads,
        1,
        key="rot_tf_head",
        persist_state="page",
        bind="query-params",
    )
    state = PositionalState(ROTATION, layer=layer, head=head - 1)  # what a link and a slide hold
    publish_view(state)
    result = position_scores(state)  # its slide's too
    model_score_formula()
    left, right = st.columns(2)
    words = figure_texts()
    chart(position_score_view(result), key="rot_tf_scores", config=PLOT, where=left)
    offsets = sorted({0, 3, result.worst_offset})
    chart(
        viz.diagonal_profile_figure(result.scores, offsets, title=tr("positional.fig.diagonals"), texts=words),
        key="rot_tf_diagonals",
        config=PLOT,
        where=right,
    )
    explain_model_scores(result)


def embeddings_section() -> None:
    st.subheader(tr("positional.emb.header"))
    c1, c2, c3 = st.columns([2, 3, 3])
    d_model = linked(c1.select_slider, "d_model", D_CHOICES[1:], value=64, key="emb_d", persist_state="page")
    init_label = linked(
        c2.radio,
        tr("positional.emb.init"),
        list(pos_enc.EMBEDDING_INITS),
        index=0,
        key="emb_init",
        persist_state="page",
        format_func=lambda label: tr(f"positional.emb.init.{pos_enc.EMBEDDING_INITS[label]}"),
    )
    scaled = checked(
        c3.toggle, tr("positional.emb.scaled"), value=True, key="emb_scaled", persist_state="page", bind="query-params"
    )
    scale = math.sqrt(d_model) if scaled else 1.0
    result = mix(d_model, scale, pos_enc.EMBEDDING_INITS[init_label])
    st.latex(
        r"x_{pos} = s\cdot E[\text{word}_{pos}] + PE(pos),\qquad s = "
        + (r"\sqrt{d_{model}} = " + f"{scale:.2f}" if scaled else "1")
    )
    chart(
        viz.embedding_mix_figure(result.tokens, result.embedded, result.pe, result.summed, texts=figure_texts()),
        key="emb_heatmaps",
        config=PLOT,
    )
    m1, m2, m3 = st.columns(3)
    m1.metric(tr("positional.emb.word_norm"), f"{result.word_norm:.2f}")
    m2.metric("‖PE(pos)‖ = √(d/2)", f"{result.pe_norm:.2f}")
    i = int(np.argmin(np.abs(result.scales - scale)))
    m3.metric(tr("positional.emb.word_share"), f"{result.word_share[i]:.0%}")
    chart(
        viz.embedding_scale_figure(
            result.scales,
            result.same_word_cos,
            result.same_pos_cos,
            result.word_share,
            scale,
            math.sqrt(d_model),
            texts=figure_texts(),
        ),
        key="emb_curve",
        config=PLOT,
    )
    explain_embeddings()


def schemes_section() -> None:
    st.subheader(tr("positional.sch.header"))
    c1, c2, c3, c4 = st.columns(4)
    train_len = checked(
        c1.slider,
        tr("positional.sch.train_len"),
        8,
        128,
        32,
        step=8,
        key="sch_train",
        persist_state="page",
        bind="query-params",
    )
    eval_len = checked(
        c2.slider,
        tr("positional.sch.eval_len"),
        16,
        256,
        96,
        step=8,
        key="sch_eval",
        persist_state="page",
        bind="query-params",
    )
    d_model = linked(c3.select_slider, "d_model", [16, 32, 64, 128], value=64, key="sch_d", persist_state="page")
    head = checked(
        c4.slider, tr("positional.sch.alibi_head"), 1, 8, 1, key="sch_head", persist_state="page", bind="query-params"
    )
    eval_len = max(eval_len, train_len)
    learned = learned_positions()
    result = schemes(train_len, eval_len, d_model, head - 1, learned is not None)
    maps = {name: m for name, m in result.maps.items() if learned is not None or name != "Learned (absolute)"}
    words = figure_texts()
    chart(viz.schemes_figure(maps, train_len, scheme_titles(learned), texts=words), key="sch_maps", config=PLOT)
    explain_scheme_maps(learned)
    left, right = st.columns([3, 2])
    chart(viz.scheme_profile_figure(maps, train_len, texts=words), key="sch_profile", config=PLOT, where=left)
    explain_schemes(right, result, d_model, train_len, head)
    st.table(viz.scheme_table(texts=words))
    learned_positions_view(learned)


def padding_section() -> None:
    st.subheader(tr("positional.pad.header"))
    cols = st.columns(3)
    lengths = tuple(
        int(
            checked(
                col.slider,
                tr("positional.pad.length", i=i + 1),
                1,
                10,
                n,
                key=f"pad_len{i}",
                persist_state="page",
                bind="query-params",
            )
        )
        for i, (col, n) in enumerate(zip(cols, (5, 3, 7)))
    )
    trace = pos_enc.padded_positions(lengths, d_model=16)
    words = figure_texts()
    chart(
        viz.padding_ids_figure(trace.position_ids, title=tr("positional.fig.pad_ids"), texts=words),
        key="pad_ids",
        config=PLOT,
    )
    chart(viz.padding_encoded_figure(trace.encoded, texts=words), key="pad_encoded", config=PLOT)
    explain_padding()


SECTIONS = (sinusoid_section, similarity_rotation_section, embeddings_section, schemes_section, padding_section)

topic_tabs(TABS, SECTIONS)
