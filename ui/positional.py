"""Pieces of the "Positional encoding" page: cached lesson computations and the explanations
under each figure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from models.checkpoints import LoadedTransformer, load_transformer
from models.lessons import positional as pos_enc
from ui.checkpoints import load_or_message
from ui.export import PLOT
from ui.i18n import figure_texts, spinning, tr
from ui.plot import chart
from viz_core import positional as viz

ROOT = Path(__file__).resolve().parent.parent
SCORE_MODEL = "tf-en-fr"  # the shipped translation Transformer whose W_Q, W_K the page uses
D_CHOICES = [8, 16, 32, 64, 128, 256, 512]  # the sinusoids tab's d_model (the page's select slider, its slide)


# ------------------------------------------------------------------------------ cached lessons


@st.cache_data(max_entries=16, show_spinner=False)
def sinusoids(length: int, d_model: int) -> pos_enc.SinusoidTrace:
    """The sinusoidal table, its similarities and wavelengths for ``length`` positions."""
    return pos_enc.sinusoid_trace(length, d_model)


@st.cache_data(max_entries=16, show_spinner=False)
def rotation(length: int, d_model: int, k: int, pos: int) -> pos_enc.RotationCheck:
    """The rotation M_k with PE(pos + k) = M_k PE(pos), checked for every pos and k."""
    return pos_enc.rotation_check(length, d_model, k, pos)


@st.cache_data(max_entries=16, show_spinner=False)
def mix(d_model: int, scale: float, init: str) -> pos_enc.EmbeddingMix:
    """Word embeddings scaled by ``scale`` plus the encoding, and how much of each survives."""
    return pos_enc.embedding_mix(d_model, scale, init)


@st.cache_data(ttl=60, max_entries=1, show_spinner=False)
def learned_positions() -> pos_enc.LearnedPositions | None:
    """The learned position table of a shipped checkpoint, or None when there is none."""
    return pos_enc.find_learned_positions(ROOT / "checkpoints")


@st.cache_data(max_entries=16, show_spinner=False)
def schemes(
    train_len: int, eval_len: int, d_model: int, alibi_head: int, with_learned: bool
) -> pos_enc.SchemeComparison:
    """The position-only score maps of every scheme (the learned one when ``with_learned``)."""
    return pos_enc.compare_schemes(
        train_len,
        eval_len,
        d_model,
        n_heads=8,
        alibi_head=alibi_head,
        learned=learned_positions() if with_learned else None,
    )


@st.cache_resource(show_spinner=False)
@spinning("spin.tf_en_fr")
def _load(name: str) -> LoadedTransformer:
    return load_transformer(name)


def score_model() -> LoadedTransformer | str:
    """The shared read-only tf-en-fr, or a one-line message naming the missing or bad file."""
    return load_or_message(_load, SCORE_MODEL, tr("positional.model_missing_hint"))


@st.cache_data(max_entries=16, show_spinner=False)
def model_scores(name: str, layer: int, head: int) -> pos_enc.ModelPositionScores:
    """The position-only score of encoder layer ``layer``, head ``head`` (0-based) of ``name``,
    over positions 0 … (longest training source − 1)."""
    loaded = _load(name)
    length = loaded.training.get("max_src_len") or loaded.model.src_embed.positions.pe.shape[0]
    return pos_enc.model_position_scores(loaded.model, layer, head, int(length))


# ------------------------------------------------------------------------------ explanations


def explain_sinusoids() -> None:
    """Each sine/cosine pair is one frequency: fast ones tell near positions apart, slow ones far ones."""
    st.markdown(tr("positional.explain.sinusoids"))


def explain_wavelengths(container, wavelengths: np.ndarray, d_model: int) -> None:
    """The wavelengths of the pairs form a geometric progression (next to the wavelength chart)."""
    ratio = 10000 ** (2 / d_model)
    container.markdown(
        tr("positional.explain.wavelengths", ratio=ratio, longest=wavelengths[-1], d2=d_model - 2, d1=d_model - 1)
    )


def explain_offsets(offset_spread: np.ndarray) -> None:
    """PE(pos)·PE(pos + k) depends on the offset k only, and is the same for +k and −k."""
    st.markdown(tr("positional.explain.offsets", spread=offset_spread.max()))


def model_score_formula() -> None:
    """The position-only part of a trained head's score, as the figure computes it."""
    st.latex(
        r"s^{pos}_{ij} = \frac{(W_Q\, PE_i)\cdot(W_K\, PE_j)}{\sqrt{d_k}}\qquad" + tr("positional.rot.formula_note")
    )


def explain_model_scores(result: pos_enc.ModelPositionScores) -> None:
    """Why the trained score is not a function of i − j, and what that motivated."""
    (i1, j1), (i2, j2) = result.worst_low, result.worst_high
    s = result.scores
    st.caption(
        tr(
            "positional.score.caption",
            layer=result.layer,
            head=result.head + 1,
            last=result.scores.shape[0] - 1,
            d_k=result.d_k,
            peak=result.peak,
        )
    )
    layer_note = tr("positional.score.layer0_note" if result.layer == 0 else "positional.score.layer1_note")
    st.markdown(
        tr(
            "positional.explain.model_scores",
            offset=result.worst_offset,
            low=s[i1, j1],
            i1=i1,
            j1=j1,
            high=s[i2, j2],
            i2=i2,
            j2=j2,
            variation=result.variation,
            layer_note=layer_note,
        )
    )


def rotation_formulas() -> None:
    """PE(pos + k) = M_k PE(pos): one 2×2 rotation per frequency pair."""
    st.latex(
        r"\begin{bmatrix} PE_{(pos+k,\,2i)} \\ PE_{(pos+k,\,2i+1)} \end{bmatrix} = "
        r"\underbrace{\begin{bmatrix} \cos \omega_i k & \sin \omega_i k \\ "
        r"-\sin \omega_i k & \cos \omega_i k \end{bmatrix}}_{R(\omega_i k)}"
        r"\begin{bmatrix} PE_{(pos,\,2i)} \\ PE_{(pos,\,2i+1)} \end{bmatrix}"
    )
    st.latex(
        r"PE(pos + k) = M_k\, PE(pos),\qquad M_k = "
        r"\operatorname{diag}\big(R(\omega_0 k), \dots, R(\omega_{d/2-1} k)\big)"
    )


def rotation_metrics(check: pos_enc.RotationCheck, k: int, length: int) -> None:
    """How exactly M_k maps PE(pos) to PE(pos + k): for this k, for every k, and in float32."""
    m1, m2, m3 = st.columns(3)
    m1.metric(
        tr("positional.rot.err_k", k=k), f"{check.max_error:.1e}", help=tr("positional.rot.err_k_help", last=length - 1)
    )
    m2.metric(
        tr("positional.rot.err_all", last=length - 1),
        f"{check.max_error_by_k.max():.1e}",
        help=tr("positional.rot.err_all_help"),
    )
    m3.metric(
        tr("positional.rot.err_f32", k=k), f"{check.max_error_float32:.1e}", help=tr("positional.rot.err_f32_help")
    )


def explain_rotation(container) -> None:
    """Why one fixed M_k per shift lets a linear layer attend by relative offset."""
    container.markdown(tr("positional.explain.rotation"))


def explain_embeddings() -> None:
    """Why the Transformer multiplies its word embeddings by √d_model before adding PE, and how
    our models differ from the paper's setup."""
    st.markdown(tr("positional.explain.embeddings"))
    st.info(tr("positional.emb.differ"), icon=":material/info:")


def scheme_titles(learned: pos_enc.LearnedPositions | None) -> dict[str, str]:
    """Subplot titles that say what each map is (not every map is an attention score)."""
    source = Path(learned.path).parent.name if learned is not None else tr("positional.sch.title.learned_source")
    return {
        "Learned (absolute)": tr("positional.sch.title.learned", source=source),
        "Sinusoidal (absolute)": tr("positional.sch.title.sinusoidal"),
        "Transformer-XL (relative)": tr("positional.sch.title.xl"),
        "RoPE": tr("positional.sch.title.rope"),
        "ALiBi": tr("positional.sch.title.alibi"),
    }


def explain_scheme_maps(learned: pos_enc.LearnedPositions | None) -> None:
    """What the scheme maps show and how they were made."""
    learned_note = (
        tr("positional.sch.learned_note", source=Path(learned.path).parent.name) if learned is not None else ""
    )
    st.caption(tr("positional.sch.caption", learned_note=learned_note))


def explain_schemes(container, result: pos_enc.SchemeComparison, d_model: int, train_len: int, head: int) -> None:
    """How each scheme behaves past the training length (in ``container``; ALiBi ``head`` is
    1-based), then the RoPE, ALiBi and Transformer-XL formulas."""
    container.markdown(
        tr(
            "positional.explain.schemes",
            unseen=result.rope_unseen_pairs,
            pairs=d_model // 2,
            train_len=train_len,
            head=head,
            slope=result.alibi_slope,
        )
    )
    c1, c2 = st.columns(2)
    c1.latex(r"\text{RoPE: } (R_{m} q)^\top (R_{n} k) = q^\top R_{n-m}\, k")
    c2.latex(r"\text{ALiBi: } e_{ij} = q_i^\top k_j - m_h\,(i - j),\quad j \le i")
    st.latex(
        r"\text{Transformer-XL: } A_{ij} = q_i^\top k_j + q_i^\top W_R R_{i-j} + u^\top k_j "
        r"+ v^\top W_R R_{i-j}"
    )


def learned_positions_view(learned: pos_enc.LearnedPositions | None) -> None:
    """A shipped checkpoint's learned position table, or where such a table would come from."""
    st.markdown(tr("positional.learned.header"))
    if learned is None:
        st.info(tr("positional.learned.none"), icon=":material/inventory_2:")
    else:
        st.caption(
            tr(
                "positional.learned.caption",
                name=Path(learned.path).parent.name,
                tensor=learned.tensor_name,
                rows=learned.matrix.shape[0],
                cols=learned.matrix.shape[1],
            )
        )
        chart(
            viz.learned_figure(learned.matrix, tr("positional.fig.learned"), texts=figure_texts()),
            key="sch_learned",
            config=PLOT,
        )


def explain_padding() -> None:
    """The PAD convention (position id 0, a zero row), and what our Transformers do instead."""
    st.markdown(tr("positional.explain.padding"))
    st.info(tr("positional.pad.differ"), icon=":material/info:")
