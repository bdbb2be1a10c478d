"""Seq2seq pieces shared by pages: cached model loading and translation, the BLEU chart, the explanation."""
from __future__ import annotations

import streamlit as st

from models.checkpoints import LoadedSeq2Seq, load_seq2seq, shipped
from models.nn.rnn_seq2seq import AttentionMode, Seq2SeqConfig
from models.inference.traces import DecodingTrace
from ui.checkpoints import labelled, load_or_message
from ui.export import PLOT

MODES = {
    "soft": "As trained",
    "hard": "Hard (decoding-time)",
}


@st.cache_data(ttl=60)
def model_choices() -> list[tuple[str, str]]:
    """(checkpoint name, display label) of every shipped seq2seq checkpoint, in teaching order."""
    return labelled(shipped("seq2seq"))


@st.cache_resource(show_spinner="Loading model …")
def _load(name: str) -> LoadedSeq2Seq:
    return load_seq2seq(name)


def load_model(name: str) -> LoadedSeq2Seq | str:
    """The shared read-only model, or a one-line error message naming the bad file."""
    return load_or_message(_load, name)


@st.cache_data(max_entries=128, show_spinner="Translating …")
def run_translation(name: str, text: str, beam: int, mode: str, length_penalty: float) -> DecodingTrace:
    """Decode ``text`` with checkpoint ``name``; raises models.inference.common.InputError for unusable input."""
    from models.inference.translate import translate

    loaded = _load(name)  # read-only use of the shared model
    return translate(loaded, text, beam, AttentionMode(mode), length_penalty=length_penalty)


def gold_alignment(trace: DecodingTrace) -> list[tuple[int, int]] | None:
    """The corpus's gold links for this sentence when the model produced the corpus translation."""
    from corpora.en_fr import lookup

    pair = lookup(trace.src_tokens[:-1])
    if pair is None or list(pair.tgt) != trace.tgt_tokens[:-1]:
        return None
    return list(pair.alignment)


def bleu_chart() -> None:
    """Test BLEU against source length for the shipped models, from `python -m models.evaluate --write`."""
    from models.checkpoints import load_results
    from viz_core.seq2seq import bleu_by_length_figure

    st.subheader("Quality against sentence length")
    results = load_results()
    if not results or not results.get("models"):
        st.info("No evaluation shipped yet: run `python -m models.evaluate --write`.")
        return
    st.plotly_chart(bleu_by_length_figure(results, title="Test BLEU by source length (as in Bahdanau et al. 2014, Fig. 2)"),
                    key="bleu_by_length", config=PLOT)
    rows = [{"model": m["label"], "test BLEU": m["bleu"], "AER": m["aer"], "exact match": m["exact_match"],
             "training (s)": m["train_seconds"]} for m in results["models"]]
    st.dataframe(rows, hide_index=True)
    st.caption(f"Test split of the embedded corpus: word combinations never seen in training. "
               f"Measured by `{results.get('command', 'python -m models.evaluate')}`.")


def explain() -> None:
    """The formulas, in the order each model applies them."""
    st.subheader("How attention works here")
    st.markdown(
        "The encoder turns the source words into states $h_1 … h_n$. At each target step $t$ the decoder "
        "scores every source state, turns the scores into weights that sum to 1, and mixes the states "
        "into a context vector:"
    )
    st.latex(r"e_{t,i} = \mathrm{score}(s, h_i) \qquad \alpha_{t,i} = \frac{\exp e_{t,i}}{\sum_j \exp e_{t,j}}"
             r"\qquad c_t = \sum_i \alpha_{t,i}\, h_i")
    st.markdown("**Bahdanau (additive)** scores first, then takes the RNN step. The score uses the *previous* "
                "decoder state $s_{t-1}$, and the context is an input of the GRU:")
    st.latex(r"e_{t,i} = v^\top \tanh(W s_{t-1} + U h_i) \qquad s_t = \mathrm{GRU}([y_{t-1}; c_t],\, s_{t-1})")
    st.markdown("**Luong** takes the RNN step first, then scores with the *current* state $s_t$ (dot, general "
                "or concat); context and state make the attentional state $\\tilde h_t$ that predicts the word "
                "and is fed to the next step:")
    st.latex(r"\mathrm{score}(s_t,h_i) \in \{\; s_t^\top h_i,\;\; s_t^\top W h_i,\;\; "
             r"v^\top \tanh(W[s_t; h_i]) \;\} \qquad \tilde h_t = \tanh(W_c [c_t; s_t])")
    st.markdown("**No attention**: the whole sentence must squeeze through one fixed vector, the encoder's final "
                "state. Long sentences suffer — see the chart above. **Hard** attention uses the single most "
                "attended state, $c_t = h_{\\arg\\max_i \\alpha_{t,i}}$; here it is a decoding-time variant "
                "of a trained model (Xu et al. 2015 train it with REINFORCE).")
    st.markdown("**Local attention** (Luong et al. 2015, §3.2) looks at a window $[p_t - D, p_t + D]$ only. "
                "**Local-m** assumes monotonic alignment, $p_t = t$, and takes the softmax inside the window. "
                "**Local-p** predicts $p_t$ from the state and favours words near it with a Gaussian "
                "($\\sigma = D/2$), so its weights sum to at most 1. Both are trained as such here, with $D = 3$ "
                "(the paper uses $D = 10$ for sentences of up to 50 words; ours have 3–32).")
    st.latex(r"\text{local-m: } a_t(s) = \underset{|s - t| \le D}{\mathrm{softmax}}\, e_{t,s}")
    st.latex(r"\text{local-p: } p_t = S\,\sigma(v_p^\top \tanh(W_p h_t)), \qquad "
             r"a_t(s) = \underset{|s - p_t| \le D}{\mathrm{softmax}}\, e_{t,s}\; e^{-\frac{(s - p_t)^2}{2\sigma^2}}")
    st.markdown("**How our models differ from the papers.** GRUs instead of Luong's stacked LSTMs on a reversed "
                "source; a bidirectional encoder for both families; $s_0 = \\tanh(W [\\overrightarrow{h}_n; "
                "\\overleftarrow{h}_1])$ from both directions where Bahdanau uses $\\tanh(W_s \\overleftarrow{h}_1)$; "
                "Bahdanau's output layer is $\\tanh(W[s_t; c_t; y_{t-1}])$ where the paper uses a maxout layer. "
                "Beam search ranks finished translations by $\\sum \\log p \\,/\\, ((5 + |y|)/6)^\\alpha$ "
                "(Wu et al. 2016), the same rule as on the Transformer page.")


def local_caption(cfg: Seq2SeqConfig) -> str:
    """What the diamonds on a local model's heatmap are."""
    if cfg.alignment == "local-m":
        return (f"Diamonds: p_t = t, the centre of local-m's window [p_t − {cfg.window}, p_t + {cfg.window}]; "
                "outside it the weights are exactly 0.")
    return (f"Diamonds: the position p_t that local-p predicted at each step; it attends within "
            f"[p_t − {cfg.window}, p_t + {cfg.window}], weighted by a Gaussian around p_t.")
