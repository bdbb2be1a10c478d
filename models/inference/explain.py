"""Click-to-explain: the derivation of one drawn attention weight α[query, key].

Every function re-runs the model that drew the heatmap, on the same input, and reads the
numbers its own modules compute for that query: the score function's terms for the clicked
key, the row of scores, the scaling, the mask and the softmax over the row. The record
(:class:`~models.inference.traces.CellExplanation`) also carries the row the model itself
returned in that run, so a view can show that the derivation reproduces the drawn weight.

* RNN decoders (:mod:`models.nn.rnn_seq2seq`): the decoding is replayed, feeding the tokens the
  trace emitted, up to the clicked step; Bahdanau scores the state s_{t−1} before the step,
  Luong the state s_t after its GRU (local attention adds its window and local-p its Gaussian).
* Transformer heads: :func:`models.inference.head.head_walkthrough` (q·k, ÷√d_k, mask, softmax).
* The small BERT and real Hugging Face encoders: the attention module's inputs are captured by
  a forward hook during one pass, and q, k are that module's own projections of them.
* The real decoder LLM (Llama: SmolLM2-135M): the decoder layer's input is captured, put through
  the layer's own input RMSNorm, projected by W_q and by the W_k of the head's key/value group
  (grouped-query attention), rotated by the model's own rotary embedding (RoPE) at each token's
  position, ÷ √d_head, the causal mask, softmax over the row.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor, nn

from models.checkpoints import LoadedSeq2Seq
from models.inference.common import device_of, eval_mode, softmax_row, to_numpy
from models.inference.head import head_walkthrough
from models.inference.traces import CellExplanation, HeadWalkthrough
from models.inference.translate import prepare_source
from models.nn.attention import additive_score_projected
from models.nn.bert import SmallBert
from models.nn.rnn_seq2seq import SOFT, AttentionMode, BahdanauDecoder, LuongDecoder
from models.nn.transformer import DecoderOnlyLM, Transformer, as_attention
from models.text.vocab import SOS_ID

if TYPE_CHECKING:
    from models.inference.hf_adapter import HFModel

#: The score function of each family, as the derivation names it.
FORMULAS = {
    "bahdanau": "e_{t,i} = vᵀ tanh(W s_{t−1} + U h_i + b)",
    "luong-dot": "e_{t,i} = s_tᵀ h_i",
    "luong-general": "e_{t,i} = s_tᵀ W h_i",
    "luong-concat": "e_{t,i} = vᵀ tanh(W [s_t; h_i])",
    "dot-product": "e_i = q · k_i   (q = x W^Q, k_i = x_i W^K: this head's d_k columns)",
    "llama": "e_i = (R_q W_q h_q) · (R_i W_k h_i)   (h: the layer's input after RMSNorm; W_k of the head's "
    "key/value group; R_p: RoPE's rotation to position p)",
}


def _check(index: int, size: int, what: str) -> None:
    if not 0 <= index < size:
        raise ValueError(f"{what} {index} out of range (0 … {size - 1})")


# --------------------------------------------------------------------------------------
# RNN seq2seq
# --------------------------------------------------------------------------------------


def _local_window(n: int, center: float, half_width: int) -> np.ndarray:
    """Luong's local window |s − p_t| ≤ D over n source positions (the nearest one always kept)."""
    offset = np.abs(np.arange(n) - center)
    allowed = offset <= half_width
    allowed[int(offset.argmin())] = True
    return allowed


@torch.no_grad()
def explain_seq2seq_cell(
    loaded: LoadedSeq2Seq, text: str, output_tokens: Sequence[str], step: int, key: int, mode: AttentionMode = SOFT
) -> CellExplanation:
    """α[step, key] of an RNN decoding of ``text`` whose output was ``output_tokens``: the decoder
    is replayed feeding those tokens (as greedy and beam search fed them) up to ``step``."""
    model, cfg = loaded.model, loaded.model.cfg
    if cfg.attention == "none":
        raise ValueError("a model without attention has no attention weights to explain")
    _check(step, len(output_tokens), "step")
    src_ids = prepare_source(text, loaded).ids
    _check(key, len(src_ids), "source position")
    fed = [loaded.tgt_vocab.stoi[t] for t in output_tokens[:step]]
    dec = model.decoder
    device = device_of(model)
    with eval_mode(model):
        memory = model.encode(torch.tensor([src_ids], device=device), torch.tensor([len(src_ids)]))
        state, y_prev = dec.initial_state(memory), torch.tensor([SOS_ID], device=device)
        for s in range(step + 1):
            before = state
            _, state, alpha = dec.step(y_prev, state, memory, mode)
            if s < step:
                y_prev = torch.tensor([fed[s]], device=device)
        if alpha is None:
            raise ValueError(f"the {type(dec).__name__} returned no attention weights")
        h_key = memory.keys[0, key] if memory.keys is not None else memory.states[0, key]
        if cfg.attention == "bahdanau":
            if not isinstance(dec, BahdanauDecoder) or memory.keys is None:
                raise ValueError(f"a Bahdanau model needs its decoder and projected keys, not a {type(dec).__name__}")
            family = "bahdanau"
            w_s = dec.w_query(before.hidden)
            scores = additive_score_projected(w_s, memory.keys, dec.v)
            inner = torch.tanh(w_s[0] + h_key)
            terms = {"W s_{t−1}": w_s[0], "U h_i + b": h_key, "tanh(W s_{t−1} + U h_i + b)": inner, "v": dec.v}
        else:
            if not isinstance(dec, LuongDecoder):
                raise ValueError(f"a Luong model needs a Luong decoder, not a {type(dec).__name__}")
            family = f"luong-{cfg.score}"
            s_t = state.hidden
            scores = dec.score(s_t, memory)
            if cfg.score == "dot":
                terms = {"s_t": s_t[0], "h_i": h_key}
            elif cfg.score == "general":
                terms = {"s_t": s_t[0], "W h_i": h_key}
            else:
                w_q = s_t[0] @ dec.w_concat.weight[:, : s_t.shape[-1]].T
                terms = {"W₁ s_t": w_q, "W₂ h_i": h_key, "tanh(W [s_t; h_i])": torch.tanh(w_q + h_key), "v": dec.v}
        row = to_numpy(scores[0])
        allowed = memory.mask[0].cpu().numpy().astype(bool)
        position = None if state.position is None else float(state.position[0])
    factor = None
    after = ""
    if position is not None:
        allowed &= _local_window(len(row), position, cfg.window)
    masked = np.where(allowed, row, -np.inf).astype(np.float32)
    soft = softmax_row(masked)
    weights = soft
    if cfg.alignment == "local-p":
        if position is None:
            raise ValueError("local-p attention without its aligned position p_t")
        sigma = cfg.window / 2
        factor = np.exp(-((np.arange(len(row)) - position) ** 2) / (2 * sigma**2)).astype(np.float32)
        weights, after = (soft * factor).astype(np.float32), "local-p Gaussian"
    if mode.weighting == "hard":
        weights, after = np.eye(len(row), dtype=np.float32)[int(weights.argmax())], "hard one-hot"
    return CellExplanation(
        family=family,
        score_formula=FORMULAS[family],
        query_index=step,
        key_index=key,
        terms={name: to_numpy(v) for name, v in terms.items()},
        scores=row,
        scale=1.0,
        allowed=allowed,
        masked=masked,
        softmax=soft,
        weights=weights,
        model_weights=to_numpy(alpha[0]),
        after_softmax=after,
        factor=factor,
        position=position,
    )


# --------------------------------------------------------------------------------------
# Dot-product heads: Transformer, decoder-only LM, small BERT, real encoders
# --------------------------------------------------------------------------------------


def from_walkthrough(walk: HeadWalkthrough, key: int, family: str = "transformer") -> CellExplanation:
    """The cell (walk.query_index, ``key``) of a one-head walkthrough: q·k, ÷√d_k, mask, softmax."""
    _check(key, len(walk.scores), "key")
    return CellExplanation(
        family=family,
        score_formula=FORMULAS["dot-product"],
        query_index=walk.query_index,
        key_index=key,
        terms={"q": walk.q, "k": walk.keys[key]},
        scores=walk.scores,
        scale=walk.scale,
        allowed=walk.allowed,
        masked=walk.masked,
        softmax=walk.weights,
        weights=walk.weights,
        model_weights=walk.model_weights,
        layer=walk.layer,
        head=walk.head,
    )


def explain_head_cell(
    model: Transformer | DecoderOnlyLM,
    site: str,
    layer: int,
    head: int,
    query: int,
    key: int,
    src_ids: Sequence[int] | None = None,
    tgt_ids: Sequence[int] | None = None,
) -> CellExplanation:
    """α[query, key] of one head of a Transformer (``site`` encoder, decoder or cross, with the
    source and the decoder input) or of a decoder-only LM (site "lm", the sequence as ``tgt_ids``)."""
    return from_walkthrough(head_walkthrough(model, site, layer, head, query, src_ids, tgt_ids), key)


@contextmanager
def _capture(module: nn.Module) -> Iterator[dict[str, Any]]:
    """The positional and keyword inputs and the output of ``module``'s next forward pass in
    this thread (a model shared between sessions may run in other threads meanwhile)."""
    captured: dict[str, Any] = {}
    me = threading.get_ident()

    def hook(_mod: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
        if threading.get_ident() == me:
            captured.update(args=args, kwargs=kwargs, out=out)

    handle = module.register_forward_hook(hook, with_kwargs=True)
    try:
        yield captured
    finally:
        handle.remove()


def _arg(captured: dict[str, Any], index: int, name: str) -> Any:
    args = captured["args"]
    return args[index] if len(args) > index else captured["kwargs"].get(name)


def _dot_product_cell(
    family: str,
    q: Tensor,
    keys: Tensor,
    scale: float,
    addend: np.ndarray,
    model_weights: np.ndarray,
    query: int,
    key: int,
    layer: int,
    head: int,
    terms: dict[str, Tensor] | None = None,
) -> CellExplanation:
    """q·kᵢ, ÷ scale, + the mask's addend (0 or −∞), softmax; ``keys`` (S, d_k). ``terms``: the
    named vectors shown, when more than q and k (default {"q": q, "k": keys[key]})."""
    _check(key, keys.shape[0], "key")
    scores = to_numpy(keys @ q)
    allowed = np.isfinite(addend)
    masked = np.where(allowed, scores / np.float32(scale) + np.where(allowed, addend, 0), -np.inf).astype(np.float32)
    soft = softmax_row(masked)
    return CellExplanation(
        family=family,
        score_formula=FORMULAS.get(family, FORMULAS["dot-product"]),
        query_index=query,
        key_index=key,
        terms={name: to_numpy(v) for name, v in (terms or {"q": q, "k": keys[key]}).items()},
        scores=scores,
        scale=scale,
        allowed=allowed,
        masked=masked,
        softmax=soft,
        weights=soft,
        model_weights=model_weights,
        layer=layer,
        head=head,
    )


@torch.inference_mode()
def explain_bert_cell(
    model: SmallBert, ids: Sequence[int], segment_ids: Sequence[int], layer: int, head: int, query: int, key: int
) -> CellExplanation:
    """α[query, key] of one head of the small BERT on ``ids``/``segment_ids``: the layer's
    self-attention inputs are captured during one pass, q and k are its W^Q, W^K projections."""
    _check(layer, len(model.encoder.layers), "layer")
    module = as_attention(model.encoder.layers[layer].self_attn)
    _check(head, module.n_heads, "head")
    _check(query, len(ids), "query")
    device = device_of(model)
    with eval_mode(model), _capture(module) as captured:
        model(torch.tensor([list(ids)], device=device), torch.tensor([list(segment_ids)], device=device))
    x_q, x_k, mask = _arg(captured, 0, "query"), _arg(captured, 1, "key"), _arg(captured, 3, "mask")
    rows = slice(head * module.d_k, (head + 1) * module.d_k)
    keys = module.w_k(x_k)[0, :, rows]
    n = keys.shape[0]
    allowed = (
        np.ones(n, dtype=bool)
        if mask is None
        else mask.reshape(-1, mask.shape[-2], n)[0, min(query, mask.shape[-2] - 1)].cpu().numpy().astype(bool)
    )
    return _dot_product_cell(
        "bert",
        module.w_q(x_q)[0, query, rows],
        keys,
        math.sqrt(module.d_k),
        np.where(allowed, 0.0, -np.inf),
        to_numpy(captured["out"][1][0, head, query]),
        query,
        key,
        layer,
        head,
    )


def _hf_attention_modules(model: nn.Module) -> list[nn.Module]:
    """The self-attention modules of a BERT-style encoder (``query``/``key`` projections), in order."""
    return [
        m
        for m in model.modules()
        if isinstance(getattr(m, "query", None), nn.Linear) and isinstance(getattr(m, "key", None), nn.Linear)
    ]


def explain_hf_cell(
    m: HFModel, ids: Sequence[int], segment_ids: Sequence[int], layer: int, head: int, query: int, key: int
) -> CellExplanation:
    """α[query, key] of one head of a real encoder: :func:`explain_hf_heads` for one head."""
    return explain_hf_heads(m, ids, segment_ids, layer, [head], query, key)[0]


@torch.inference_mode()
def explain_hf_heads(
    m: HFModel, ids: Sequence[int], segment_ids: Sequence[int], layer: int, heads: Sequence[int], query: int, key: int
) -> list[CellExplanation]:
    """α[query, key] of ``heads`` of one layer of a real encoder (BERT-style self-attention with
    ``query`` and ``key`` projections, as MiniLM, BERT, RoBERTa), from one pass on the trace's ids:
    the layer's input hidden states are captured, q and k come from its own projections, then
    ×``scaling`` (= 1/√d_k) and the additive attention mask as the eager implementation applies them."""
    modules = _hf_attention_modules(m.model)
    if len(modules) != m.n_layers:
        raise ValueError(
            f"click-to-explain reads BERT-style attention (query/key projections); "
            f"this {m.model_type} model has another kind"
        )
    _heads_to_explain(m, layer, heads, query, len(ids))
    module = modules[layer]
    device = next(m.model.parameters()).device
    inputs = {
        "input_ids": torch.tensor([list(ids)], device=device),
        "attention_mask": torch.ones(1, len(ids), dtype=torch.long, device=device),
    }
    if "token_type_ids" in getattr(m.tokenizer, "model_input_names", ()):
        inputs["token_type_ids"] = torch.tensor([list(segment_ids)], device=device)
    with _capture(module) as captured:
        out = m.model(**inputs, output_attentions=True)
    hidden, mask = _arg(captured, 0, "hidden_states"), _arg(captured, 1, "attention_mask")
    d_k = int(getattr(module, "attention_head_size", m.hidden // m.n_heads))
    scale = 1.0 / float(getattr(module, "scaling", d_k**-0.5))
    query_proj, key_proj = module.query, module.key
    if not isinstance(query_proj, nn.Linear) or not isinstance(key_proj, nn.Linear):
        raise ValueError(f"click-to-explain reads query/key projections; this {m.model_type} layer has none")
    q_all, k_all = query_proj(hidden)[0], key_proj(hidden)[0]
    n = k_all.shape[0]
    if mask is None:
        addend = np.zeros(n, dtype=np.float32)
    else:
        row = mask.reshape(-1, mask.shape[-2], n)[0, min(query, mask.shape[-2] - 1)]
        if row.dtype == torch.bool:
            addend = np.where(row.cpu().numpy(), 0.0, -np.inf)
        else:  # additive: 0 where allowed, the dtype's minimum where masked
            values = row.float().cpu().numpy()
            addend = np.where(values <= torch.finfo(row.dtype).min / 2, -np.inf, values)
    cells = []
    for head in heads:
        rows = slice(head * d_k, (head + 1) * d_k)
        cells.append(
            _dot_product_cell(
                "hf",
                q_all[query, rows],
                k_all[:, rows],
                scale,
                addend.astype(np.float32),
                to_numpy(out.attentions[layer][0, head, query]),
                query,
                key,
                layer,
                head,
            )
        )
    return cells


#: The model type (``config.model_type``) whose attention :func:`explain_llama_heads` derives.
LLAMA_TYPE = "llama"


def _heads_to_explain(m: HFModel, layer: int, heads: Sequence[int], query: int, n: int) -> None:
    """ValueError unless ``layer``, each of ``heads`` and ``query`` (of ``n`` tokens) exist in ``m``."""
    _check(layer, m.n_layers, "layer")
    for head in heads:
        _check(head, m.n_heads, "head")
    _check(query, n, "query")


@torch.inference_mode()
def explain_llama_heads(
    m: HFModel, ids: Sequence[int], layer: int, heads: Sequence[int], query: int, key: int
) -> list[CellExplanation]:
    """α[query, key] of ``heads`` of one layer of the real decoder (a Llama-type causal LM seen by
    :func:`models.inference.hf_adapter.llm_view`), from one pass on the trace's ids: the decoder
    layer's input is captured and put through the layer's own input RMSNorm (h); q = W_q h of the
    query head, k = W_k h of its key/value head h // (n_heads / n_kv_heads) (grouped-query
    attention, Ainslie et al. 2023); both rotated by the model's own rotary embedding at their
    positions (RoPE, Su et al. 2021); score = (R_q W_q h_q)·(R_k W_k h_k) / √d_head, −∞ above the
    diagonal (causal mask), softmax over the row."""
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    base = m.model.base_model
    layers = getattr(base, "layers", None)
    # Gemma 3 has the same modules and more (query/key norms, local layers with their own RoPE): only a
    # Llama's attention is derived here, not one that merely looks like it
    llama = m.model_type == LLAMA_TYPE
    if not (llama and m.causal) or layers is None or not hasattr(base, "rotary_emb") or len(layers) != m.n_layers:
        raise ValueError(
            f"click-to-explain of a decoder reads Llama-type attention; this {m.model_type} model has another kind"
        )
    _heads_to_explain(m, layer, heads, query, len(ids))
    _check(key, len(ids), "key")
    block, attn = layers[layer], layers[layer].self_attn
    device = next(m.model.parameters()).device
    with _capture(block) as captured:
        out = base(input_ids=torch.tensor([list(ids)], device=device), use_cache=False, output_attentions=True)
    h = block.input_layernorm(_arg(captured, 0, "hidden_states"))  # (1, n, hidden)
    n, d = h.shape[1], attn.head_dim
    positions = torch.arange(n, device=device)[None]
    cos, sin = base.rotary_emb(h, positions)  # the model's own RoPE angles at positions 0 … n−1
    q_plain = attn.q_proj(h).view(1, n, -1, d).transpose(1, 2)  # (1, heads, n, d)
    k_plain = attn.k_proj(h).view(1, n, -1, d).transpose(1, 2)  # (1, kv heads, n, d)
    q_rot, k_rot = apply_rotary_pos_emb(q_plain, k_plain, cos, sin)
    causal = np.where(np.arange(n) <= query, 0.0, -np.inf).astype(np.float32)
    cells = []
    for head in heads:
        group = head // attn.num_key_value_groups
        terms = {
            "W_q h_q": q_plain[0, head, query],
            "R_q W_q h_q": q_rot[0, head, query],
            "W_k h_k": k_plain[0, group, key],
            "R_k W_k h_k": k_rot[0, group, key],
        }
        cells.append(
            _dot_product_cell(
                "llama",
                q_rot[0, head, query],
                k_rot[0, group],
                1.0 / attn.scaling,
                causal,
                to_numpy(out.attentions[layer][0, head, query]),
                query,
                key,
                layer,
                head,
                terms=terms,
            )
        )
    return cells
