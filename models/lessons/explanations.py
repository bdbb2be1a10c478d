"""Is attention an explanation? One input, every answer, and which one is faithful.

For one input and one output token of a model, every method gives one score per input token:

* raw attention: one head, the mean over the heads of the last layer, the mean over every layer
  and head (Jain & Wallace 2019, §2; Wiegreffe & Pinter 2019, §2);
* attention rollout and attention flow (Abnar & Zuidema 2020, §2–3), with the residual connection
  as the paper adds it, Ã = 0.5·A + 0.5·I, rows renormalised; rollout R = Ã_N ⋯ Ã_1, flow the max-flow
  from each input node to the output node of the layered graph whose edge capacities are Ã;
* sink-aware rollout: the share of rollout on the first token (an attention sink, Xiao et al. 2023,
  §3) and the rest renormalised over the other tokens;
* norm-based attention ‖Σ_h α^h_ij f^h(x_j)‖, f^h(x) = (x W_V^h + b_V^h) W_O^h (Kobayashi et al. 2020, §3);
* gradient × input and integrated gradients (Sundararajan et al. 2017, §3, its completeness
  axiom, §3 Proposition 1, checked);
* occlusion: the drop of log p(output) when the token is removed (Jain & Wallace 2019, §4.1's
  leave-one-out; Zeiler & Fergus 2014).

Faithfulness, measured against the model itself: Spearman's rank correlation of each method with
occlusion (Jain & Wallace 2019, §4.1 Table 2 uses Kendall's τ on leave-one-out), and the erasure
curve: p(output) as the top-k tokens of each method are removed, summarised as AOPC =
1/K Σ_{k=1..K} (p(x) − p(x without the top k)) (Samek et al. 2017, §III-B; DeYoung et al. 2020, §4
"comprehensiveness"). On the grammar translation models, the argmax of each method per output
token is a word link, scored against the gold alignment by AER (Och & Ney 2003).

Four subjects (:class:`Subject`): the lab's RNN seq2seq and encoder–decoder Transformer
checkpoints, the MiniLM masked LM and the real LLM SmolLM2-135M. Tensors stay in this module; the
record a page draws is :class:`Explanation` (numpy and token lists).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import torch
from torch import Tensor

from models.inference.traces import Trace
from models.nn.transformer import MultiHeadAttention, as_attention

#: Every method, in the figure's row order.
METHODS: tuple[str, ...] = (
    "attn_head",
    "attn_last",
    "attn_all",
    "rollout",
    "rollout_sink",
    "flow",
    "norm",
    "grad_input",
    "ig",
    "occlusion",
)
IG_STEPS = 64  # Gauss–Legendre nodes on [0, 1] (integrated_gradients' default rule)
IG_TOLERANCE = 0.01  # explain(): |Σ IG − (F(x) − F(x′))| ≤ 1% of |F(x) − F(x′)| (completeness, Sundararajan §3)
IG_START = {"llm": 8, "seq2seq": 32}  # explain()'s first trapezoid intervals per family (32 for the others) …
#: … and how many of the worst intervals each round halves (explain()'s ``batch`` for the others). The LLM's
#: F(α) is rough (its RMSNorms at small α): halving 4 at a time stopped at 24 intervals on the page's 64-token
#: text, 8 at a time at 40, for the same 1% (bench.explanations --page).
IG_REFINE = {"llm": 4}
IG_MAX_STEPS = 512  # … halved until the gap is within IG_TOLERANCE or this many intervals
ERASE_K = 5  # AOPC over k = 1 … 5 removed tokens (fewer when the input has fewer)
FLOW_SCALE = 10_000_000  # capacities are integers for scipy's max-flow: Ã · 1e7, rounded


# --------------------------------------------------------------------------------------
# Formulas on arrays
# --------------------------------------------------------------------------------------


def with_residual(attention: np.ndarray) -> np.ndarray:
    """Ã = 0.5·A + 0.5·I with rows renormalised (Abnar & Zuidema 2020, §2): the residual connection
    carries half of each token forward. ``attention`` (…, L, L), rows sum to 1 (or 0 where masked)."""
    a = np.asarray(attention, dtype=np.float64)
    mixed = 0.5 * a + 0.5 * np.eye(a.shape[-1])
    return mixed / mixed.sum(axis=-1, keepdims=True)


def rollout(layers: np.ndarray, residual: bool = True) -> np.ndarray:
    """R = Ã_N ⋯ Ã_2 Ã_1 (Abnar & Zuidema 2020, §3 "attention rollout"): ``layers`` (N, L, L), the
    attention of each layer (mean over heads), layer 1 first. Row i of R: how much of token i at the
    top comes from each input token."""
    layers = np.asarray(layers, dtype=np.float64)
    mats = with_residual(layers) if residual else layers
    out = mats[0]
    for m in mats[1:]:
        out = m @ out
    return out


def edmonds_karp(capacity: np.ndarray, source: int, sink: int) -> float:
    """Maximum flow from ``source`` to ``sink`` over a dense capacity matrix (capacity[u, v] ≥ 0 on edge
    u → v), by shortest augmenting paths (Edmonds & Karp 1972). Plain Python: for small graphs and tests."""
    residual = np.array(capacity, dtype=np.float64)
    n = residual.shape[0]
    total = 0.0
    while True:
        parent: list[int] = [-1] * n
        parent[source] = source
        queue: list[int] = [source]
        for u in queue:
            for v in (int(i) for i in np.nonzero(residual[u] > 1e-15)[0]):
                if parent[v] < 0:
                    parent[v] = u
                    queue.append(v)
        if parent[sink] < 0:
            return total
        bottleneck, node = np.inf, sink
        while node != source:
            bottleneck = min(bottleneck, residual[parent[node], node])
            node = parent[node]
        node = sink
        while node != source:
            residual[parent[node], node] -= bottleneck
            residual[node, parent[node]] += bottleneck
            node = parent[node]
        total += float(bottleneck)


def flow_graph(layers: np.ndarray, final_row: np.ndarray | None = None, residual: bool = True) -> np.ndarray:
    """The layered graph of Abnar & Zuidema 2020, §3 as a dense capacity matrix: node (l, j) =
    l·L + j for l = 0 … N; edge (l−1, j) → (l, i) with capacity Ã_l[i, j]. ``final_row`` (L,) adds one
    node (the output of an encoder–decoder: its cross-attention row) fed by the top layer."""
    mats = with_residual(layers) if residual else np.asarray(layers, dtype=np.float64)
    n_layers, length = mats.shape[0], mats.shape[-1]
    size = (n_layers + 1) * length + (final_row is not None)
    cap = np.zeros((size, size))
    for layer in range(n_layers):
        lo, hi = layer * length, (layer + 1) * length
        cap[lo : lo + length, hi : hi + length] = mats[layer].T  # from j below to i above: Ã[i, j]
    if final_row is not None:
        cap[n_layers * length : (n_layers + 1) * length, -1] = final_row
    return cap


def attention_flow(
    layers: np.ndarray, query: int, final_row: np.ndarray | None = None, residual: bool = True
) -> np.ndarray:
    """(L,): the max-flow value from each input token to the output node (Abnar & Zuidema 2020, §3
    "attention flow"): node (N, ``query``) at the top, or the extra node of ``final_row``. Solved by
    scipy's max-flow on integer capacities Ã · :data:`FLOW_SCALE` (an error below L · 1e-7)."""
    from scipy.sparse import csr_matrix  # type: ignore[import-untyped]
    from scipy.sparse.csgraph import maximum_flow  # type: ignore[import-untyped]

    cap = flow_graph(layers, final_row, residual)
    length = np.asarray(layers).shape[-1]
    sink = cap.shape[0] - 1 if final_row is not None else np.asarray(layers).shape[0] * length + query
    graph = csr_matrix(np.rint(cap * FLOW_SCALE).astype(np.int32))
    return np.array([maximum_flow(graph, j, sink).flow_value / FLOW_SCALE for j in range(length)])


def sink_split(row: np.ndarray) -> tuple[float, np.ndarray]:
    """(share of ``row`` on the first token, the row with the first token left out and the rest
    renormalised to sum 1; its first entry NaN)."""
    row = np.asarray(row, dtype=np.float64)
    share = float(row[0] / row.sum()) if row.sum() > 0 else float("nan")
    rest = row.copy()
    rest[0] = np.nan
    total = np.nansum(rest)
    return share, rest / total if total > 0 else rest


def gauss_legendre(steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the ``steps``-point Gauss–Legendre rule on [0, 1] (weights sum to 1)."""
    nodes, weights = np.polynomial.legendre.leggauss(steps)
    return (nodes + 1) / 2, weights / 2


def riemann(steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The right Riemann sum of Sundararajan et al. 2017, §5 eq. 3: α = k/m, weights 1/m."""
    return np.arange(1, steps + 1) / steps, np.full(steps, 1.0 / steps)


def ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1 … n with ties given their mean rank."""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    r = np.empty(len(x))
    r[order] = np.arange(1, len(x) + 1)
    for value in np.unique(x):
        tied = x == value
        if tied.sum() > 1:
            r[tied] = r[tied].mean()
    return r


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's ρ: the Pearson correlation of the ranks (NaN when either side is constant or has NaN)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) < 2 or np.isnan(a).any() or np.isnan(b).any():
        return float("nan")
    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def aopc(curve: np.ndarray) -> float:
    """Area over the perturbation curve: mean over k = 1 … K of p(0 removed) − p(k removed)
    (``curve`` = p for k = 0 … K)."""
    curve = np.asarray(curve, dtype=np.float64)
    return float(np.mean(curve[0] - curve[1:])) if len(curve) > 1 else float("nan")


def top_order(scores: np.ndarray, allowed: np.ndarray) -> list[int]:
    """Positions in ``allowed`` by decreasing score (NaN last; ties by position)."""
    idx = [int(i) for i in np.nonzero(allowed)[0]]
    return sorted(idx, key=lambda i: (np.isnan(scores[i]), -np.nan_to_num(scores[i], nan=0.0), i))


def alignment_error_rate(predicted: Sequence[set[tuple[int, int]]], gold: Sequence[set[tuple[int, int]]]) -> float:
    """AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|) with S = P = gold (Och & Ney 2003, §3); the same
    formula as models.training.metrics (inference code does not import training)."""
    hits = sum(len(a & g) for a, g in zip(predicted, gold))
    total = sum(len(a) + len(g) for a, g in zip(predicted, gold))
    return 1.0 - 2.0 * hits / total if total else float("nan")


# --------------------------------------------------------------------------------------
# The subjects: one model, one input, one output token
# --------------------------------------------------------------------------------------


@dataclass
class AttentionRecord:
    """What the attention methods read: ``rows`` (N, H, L) every layer × head's row from the output
    to the input tokens; ``layers`` (N', L, L) the mean-over-heads self-attention among the input
    tokens (None where there is none: the RNN); ``final_row`` (L,) the output's own attention
    after those layers (an encoder–decoder's last cross-attention, mean over heads) or None when
    the output is row ``query`` of the top layer; ``norms`` (N, L) ‖Σ_h α^h f^h(x_j)‖ of each layer's row."""

    rows: np.ndarray
    layers: np.ndarray | None
    final_row: np.ndarray | None
    query: int
    norms: np.ndarray


class Subject:
    """One model with one input and one output token. Subclasses say how to embed, run and remove."""

    family: ClassVar[str] = ""  # the model family: seq2seq | transformer | mlm | llm | given
    tokens: list[str]
    removable: np.ndarray  # bool (L,): tokens that occlusion and erasure may remove
    target: str
    target_id: int

    def embeddings(self) -> Tensor:  # (L, d): the token embeddings that the gradients are taken at
        raise NotImplementedError

    def baseline(self) -> Tensor:
        """(L, d) integrated gradients' x′: the zero embedding (Sundararajan et al. 2017, §6.3's text
        baseline); the position and segment embeddings that the model adds stay."""
        return torch.zeros_like(self.embeddings())

    def logprob_embedded(self, emb: Tensor) -> Tensor:  # (B, L, d) → (B,) log p(target), differentiable
        raise NotImplementedError

    def logprob_without(self, removed: Sequence[Sequence[int]]) -> np.ndarray:  # log p(target), positions removed
        raise NotImplementedError

    def attention(self) -> AttentionRecord:
        raise NotImplementedError


def _norms_mha(module: MultiHeadAttention, x: Tensor, weights: Tensor, query: int) -> Tensor:
    """(L,) ‖Σ_h α^h_{query,j} f^h(x_j)‖ with f^h(x) = (x W_V^h + b_V^h) W_O^h for the lab's
    MultiHeadAttention (Kobayashi et al. 2020, §3, eq. 6); ``x`` (S, d) the value input, ``weights`` (h, L, S)."""
    h, dk = module.n_heads, module.d_k
    v = module.w_v(x).view(x.shape[0], h, dk).transpose(0, 1)  # (h, S, dk)
    w_o = module.w_o.weight.view(module.d_model, h, dk).permute(1, 2, 0)  # (h, dk, d)
    f = v @ w_o  # (h, S, d)
    return (weights[:, query, :, None] * f).sum(0).norm(dim=-1)


class _Hooks:
    """Forward hooks that keep each module's positional inputs; removed on exit."""

    def __init__(self, modules: Sequence[torch.nn.Module]) -> None:
        self.inputs: list[tuple[Any, ...]] = [()] * len(modules)
        self.kwargs: list[dict[str, Any]] = [{}] * len(modules)
        self.outputs: list[Any] = [None] * len(modules)
        self.handles = [m.register_forward_hook(self._keep(i), with_kwargs=True) for i, m in enumerate(modules)]

    def _keep(self, i: int) -> Callable[..., None]:
        def hook(module: torch.nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
            self.inputs[i], self.kwargs[i], self.outputs[i] = args, kwargs, out

        return hook

    def __enter__(self) -> _Hooks:
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self.handles:
            handle.remove()


class Seq2SeqSubject(Subject):
    """An RNN encoder–decoder (Bahdanau or Luong attention): the source tokens (with </s>) explain
    output token ``step`` of ``output_ids`` (teacher-forced: the decoder is fed the earlier ones)."""

    family = "seq2seq"

    def __init__(
        self, loaded: Any, src_ids: Sequence[int], src_tokens: Sequence[str], output_ids: Sequence[int], step: int
    ) -> None:
        from models.text.vocab import SOS_ID

        self.loaded, self.model = loaded, loaded.model.eval()
        self.ids = [int(i) for i in src_ids]
        self.tokens = list(src_tokens)
        self.removable = np.array([True] * (len(self.ids) - 1) + [False])  # </s> stays
        self.step = step
        self.prefix = [SOS_ID] + [int(i) for i in output_ids[:step]]
        self.target_id = int(output_ids[step])
        self.target = loaded.tgt_vocab.itos[self.target_id]

    def embeddings(self) -> Tensor:
        return self.model.encoder.embedding(torch.tensor(self.ids)).detach()

    def _run(self, emb: Tensor) -> tuple[Tensor, Tensor | None, Tensor]:
        """(log p(target) (B,), α at the step (B, S) or None, encoder states (B, S, enc)) from embeddings."""
        enc = self.model.encoder
        states, h_n = enc.rnn(emb)
        final = torch.cat([h_n[-2], h_n[-1]], dim=-1) if enc.rnn.bidirectional else h_n[-1]
        mask = torch.ones(emb.shape[:2], dtype=torch.bool)
        memory = self.model.decoder.memory(states, mask, torch.tanh(enc.bridge(final)))
        state = self.model.decoder.initial_state(memory)
        alpha = None
        for y in self.prefix:
            logits, state, alpha = self.model.decoder.step(torch.full((emb.shape[0],), y), state, memory)
        return torch.log_softmax(logits.float(), -1)[:, self.target_id], alpha, states

    def logprob_embedded(self, emb: Tensor) -> Tensor:
        return self._run(emb)[0]

    @torch.no_grad()
    def logprob_without(self, removed: Sequence[Sequence[int]]) -> np.ndarray:
        out = []
        emb = self.embeddings()
        for drop in removed:
            keep = [i for i in range(len(self.ids)) if i not in set(drop)]
            out.append(float(self._run(emb[keep].unsqueeze(0))[0][0]))
        return np.array(out)

    @torch.no_grad()
    def attention(self) -> AttentionRecord:
        _, alpha, states = self._run(self.embeddings().unsqueeze(0))
        if alpha is None:
            raise ValueError("this model has no attention")
        row = alpha[0]
        norms = (row[:, None] * states[0]).norm(dim=-1)  # ‖α_tj h_j‖: the context c_t = Σ_j α_tj h_j
        return AttentionRecord(
            row.numpy()[None, None].astype(np.float64), None, None, -1, norms.numpy()[None].astype(np.float64)
        )


class TransformerSubject(Subject):
    """An encoder–decoder Transformer: the source tokens (with </s>) explain output token ``step``."""

    family = "transformer"

    def __init__(
        self, loaded: Any, src_ids: Sequence[int], src_tokens: Sequence[str], output_ids: Sequence[int], step: int
    ) -> None:
        self.loaded, self.model = loaded, loaded.encoder_decoder.eval()
        self.ids = [int(i) for i in src_ids]
        self.tokens = list(src_tokens)
        self.removable = np.array([True] * (len(self.ids) - 1) + [False])
        self.step = step
        self.tgt_in = torch.tensor([[self.model.config.bos_id] + [int(i) for i in output_ids[:step]]])
        self.target_id = int(output_ids[step])
        self.target = loaded.tgt_itos[self.target_id]

    def embeddings(self) -> Tensor:
        return self.model.src_embed.tokens(torch.tensor(self.ids)).detach()

    def _embed(self, emb: Tensor) -> Tensor:
        e = self.model.src_embed
        return e.positions(emb * e.scale)

    def logprob_embedded(self, emb: Tensor) -> Tensor:
        m = self.model
        memory, _ = m.encoder(self._embed(emb), None)
        hidden, _, _ = m.decode(self.tgt_in.expand(emb.shape[0], -1), memory)
        return torch.log_softmax(m.generator(hidden[:, -1]).float(), -1)[:, self.target_id]

    @torch.no_grad()
    def logprob_without(self, removed: Sequence[Sequence[int]]) -> np.ndarray:
        emb = self.embeddings()
        out = []
        for drop in removed:
            keep = [i for i in range(len(self.ids)) if i not in set(drop)]
            out.append(float(self.logprob_embedded(emb[keep].unsqueeze(0))[0]))
        return np.array(out)

    @torch.no_grad()
    def attention(self) -> AttentionRecord:
        m = self.model
        crosses = [as_attention(layer.cross_attn) for layer in m.decoder.layers]
        with _Hooks(crosses) as hooks:
            memory, enc_w = m.encoder(self._embed(self.embeddings().unsqueeze(0)), None)
            _, _, cross_w = m.decode(self.tgt_in, memory)
        rows = torch.stack([w[0, :, -1, :] for w in cross_w if w is not None])  # (N, h, S)
        norms = torch.stack(
            [_norms_mha(mod, hooks.inputs[i][2][0], cross_w[i][0], -1) for i, mod in enumerate(crosses)]
        )
        layers = torch.stack([w[0].mean(0) for w in enc_w])
        return AttentionRecord(
            rows.double().numpy(),
            layers.double().numpy(),
            rows[-1].mean(0).double().numpy(),
            -1,
            norms.double().numpy(),
        )


class MaskedLMSubject(Subject):
    """A BERT masked LM (MiniLM): ``[CLS] text [SEP]`` with one [MASK]; the output is the model's
    top piece there; [CLS], [SEP] and the [MASK] itself are never removed."""

    family = "mlm"

    def __init__(self, loaded: Any, ids: Sequence[int], target_id: int | None = None) -> None:
        self.loaded, self.model = loaded, loaded.model.eval()
        tok = loaded.tokenizer
        self.ids = [int(i) for i in ids]
        if self.ids.count(tok.mask_id) != 1:
            raise ValueError("the text needs exactly one [MASK]")
        self.query = self.ids.index(tok.mask_id)
        self.tokens = [tok.id_to_token(i) for i in self.ids]
        self.removable = np.array([i not in (tok.cls_id, tok.sep_id, tok.mask_id) for i in self.ids])
        if target_id is None:
            with torch.no_grad():
                hidden, _ = self.model.encode(torch.tensor([self.ids]), torch.zeros(1, len(self.ids), dtype=torch.long))
                target_id = int(self.model.mlm_logits(hidden[0, self.query]).argmax())
        self.target_id = int(target_id)
        self.target = tok.id_to_token(self.target_id)

    def embeddings(self) -> Tensor:
        return self.model.embeddings.tokens(torch.tensor(self.ids)).detach()

    def _logprob(self, tok_emb: Tensor, query: int) -> Tensor:
        e = self.model.embeddings
        n = tok_emb.shape[1]
        pos = e.positions(torch.arange(n)).unsqueeze(0)
        seg = e.segments(torch.zeros(1, n, dtype=torch.long))
        hidden, _ = self.model.encoder(e.norm(tok_emb + seg + pos), None)
        return torch.log_softmax(self.model.mlm_logits(hidden[:, query]).float(), -1)[:, self.target_id]

    def logprob_embedded(self, emb: Tensor) -> Tensor:
        return self._logprob(emb, self.query)

    @torch.no_grad()
    def logprob_without(self, removed: Sequence[Sequence[int]]) -> np.ndarray:
        emb = self.embeddings()
        out = []
        for drop in removed:
            keep = [i for i in range(len(self.ids)) if i not in set(drop)]
            out.append(float(self._logprob(emb[keep].unsqueeze(0), keep.index(self.query))[0]))
        return np.array(out)

    @torch.no_grad()
    def attention(self) -> AttentionRecord:
        m = self.model
        attns = [as_attention(layer.self_attn) for layer in m.encoder.layers]
        ids = torch.tensor([self.ids])
        with _Hooks(attns) as hooks:
            _, weights = m.encode(ids, torch.zeros_like(ids))
        rows = torch.stack([w[0, :, self.query, :] for w in weights])
        norms = torch.stack(
            [_norms_mha(mod, hooks.inputs[i][2][0], weights[i][0], self.query) for i, mod in enumerate(attns)]
        )
        layers = torch.stack([w[0].mean(0) for w in weights])
        return AttentionRecord(rows.double().numpy(), layers.double().numpy(), None, self.query, norms.double().numpy())


def llama_weighted_values(module: Any, x: Tensor, weights: Tensor, query: int) -> Tensor:
    """(L, d) the vectors Σ_h α^h_{query,j} f^h(x_j), f^h(x) = (x W_V^h) W_O^h, of a Llama attention module
    (Kobayashi et al. 2020, §3; no biases; the key/value heads shared by their query heads): ``x`` (L, d) the
    module's input (after its RMSNorm), ``weights`` (H, L, L). Their sum is the module's output at ``query``."""
    from transformers.models.llama.modeling_llama import repeat_kv

    hd = module.head_dim
    v = module.v_proj(x).view(x.shape[0], -1, hd).transpose(0, 1)  # (kv, L, hd)
    v = repeat_kv(v.unsqueeze(0), module.num_key_value_groups)[0]  # (H, L, hd)
    n_heads = v.shape[0]
    w_o = module.o_proj.weight.view(-1, n_heads, hd).permute(1, 2, 0)  # (H, hd, d)
    f = (v @ w_o).double()
    return (weights[:, query, :, None].double() * f).sum(0)


class LLMSubject(Subject):
    """A decoder LLM (Llama: SmolLM2): the prompt's tokens explain the next token, the model's own
    top choice. Removing token j shifts the later ones one position left (RoPE reads positions)."""

    family = "llm"

    def __init__(self, llm: Any, ids: Sequence[int], target_id: int | None = None) -> None:
        self.llm, self.model = llm, llm.model.eval()
        self.ids = [int(i) for i in ids]
        self.tokens = llm.token_text(self.ids)
        self.removable = np.array([True] * len(self.ids))
        if len(self.ids) < 2:
            raise ValueError("the prompt needs at least two tokens")
        if target_id is None:
            with torch.no_grad():
                target_id = int(self._last(torch.tensor([self.ids]))[0].argmax())
        self.target_id = int(target_id)
        self.target = llm.token_text([self.target_id])[0]
        tok = llm.tokenizer
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        self.pad_id = int(pad if pad is not None else 0)  # IG's baseline token (SmolLM2: <|im_end|>)
        self.pad_token = llm.token_text([self.pad_id])[0]

    def _last(self, ids: Tensor | None = None, emb: Tensor | None = None) -> Tensor:
        """Log-probabilities (B, V) at the last position; the output layer runs on that position only."""
        out = self.model.model(input_ids=ids, inputs_embeds=emb, use_cache=False)
        return torch.log_softmax(self.model.lm_head(out.last_hidden_state[:, -1]).float(), -1)

    def embeddings(self) -> Tensor:
        return self.model.get_input_embeddings()(torch.tensor(self.ids)).detach()

    def logprob_embedded(self, emb: Tensor) -> Tensor:
        return self._last(emb=emb)[:, self.target_id]

    def baseline(self) -> Tensor:
        """x′ = the first token's own embedding, then the padding token's (:attr:`pad_id`) at every other
        position: a sentence of padding, the usual text baseline of IG tools. Not the zero embedding of
        Sundararajan et al. §6.3: the all-zero input is a degenerate point of a Llama (no position embedding is
        added; every RMSNorm x / √(mean x² + ε) amplifies a tiny residual stream up to 1/√ε), and along α·x
        F(α) was measured chaotic at every α down to 1e-7, F(0) = −ln V. Zero after a kept first token was
        measured on the page's 64-token text: the adaptive trapezoid needed 112 intervals for a 0.9% gap,
        against 32 intervals for 0.7% with padding (both paths end at the same F(x)). The first token gets no
        IG attribution (x − x′ = 0 there)."""
        x = self.embeddings()
        pad = self.model.get_input_embeddings()(torch.tensor([self.pad_id])).detach()
        return torch.cat([x[:1], pad.expand(len(self.ids) - 1, -1)])

    @torch.no_grad()
    def logprob_without(self, removed: Sequence[Sequence[int]], batch: int = 8) -> np.ndarray:
        """log p(target) with each set of positions removed. A causal model's states before the first removed
        position are those of the full input: the sets are sorted by their first position and run ``batch`` at
        a time (sets of one size together, so the shortened inputs have one length), each batch from the full
        run's keys and values cut at its smallest first position j (RoPE already applied at 0 … j−1), computing
        only the tokens kept from j on, at positions j, j+1, …: the numbers of re-running each shortened input,
        for 64 single removals in about 55% of the work."""
        from transformers.cache_utils import DynamicCache

        out = np.zeros(len(removed))
        drops = [sorted({int(i) for i in d}) for d in removed]
        if any(len(d) >= len(self.ids) for d in drops):
            raise ValueError("every token removed")
        full = self.model.model(input_ids=torch.tensor([self.ids]), use_cache=True).past_key_values
        layers = [(layer.keys, layer.values) for layer in full.layers]
        by_size: dict[int, list[int]] = {}
        for n, d in enumerate(drops):
            by_size.setdefault(len(d), []).append(n)
        for size, members in by_size.items():
            members.sort(key=lambda n: drops[n][0] if drops[n] else len(self.ids))
            for s in range(0, len(members), batch):
                part = members[s : s + batch]
                j = min(drops[part[0]][0] if size else len(self.ids), len(self.ids) - size - 1)  # ≥ 1 token to run
                tails = [[t for i, t in enumerate(self.ids[j:], start=j) if i not in drops[n]] for n in part]
                cache = None
                if j:
                    b = len(part)
                    cache = DynamicCache(
                        [(k[:, :, :j].expand(b, -1, -1, -1), v[:, :, :j].expand(b, -1, -1, -1)) for k, v in layers]
                    )
                states = self.model.model(input_ids=torch.tensor(tails), past_key_values=cache, use_cache=j > 0)
                logits = self.model.lm_head(states.last_hidden_state[:, -1]).float()
                out[part] = torch.log_softmax(logits, -1)[:, self.target_id].numpy()
        return out

    @torch.no_grad()
    def attention(self) -> AttentionRecord:
        layers_mod = list(self.model.model.layers)
        attns = [layer.self_attn for layer in layers_mod]
        ids = torch.tensor([self.ids])
        with _Hooks(attns) as hooks:
            out = self.model.model(input_ids=ids, use_cache=False, output_attentions=True)
        weights = [a[0].double() for a in out.attentions]  # (H, L, L)
        q = len(self.ids) - 1
        norms = []
        for i, mod in enumerate(attns):
            x = (hooks.kwargs[i]["hidden_states"] if "hidden_states" in hooks.kwargs[i] else hooks.inputs[i][0])[0]
            norms.append(llama_weighted_values(mod, x, weights[i], q).norm(dim=-1))
        rows = torch.stack([w[:, q, :] for w in weights])
        layers = torch.stack([w.mean(0) for w in weights])
        return AttentionRecord(rows.numpy(), layers.numpy(), None, q, torch.stack(norms).numpy())


# --------------------------------------------------------------------------------------
# Gradients
# --------------------------------------------------------------------------------------


@dataclass
class IGResult:
    """Integrated gradients per token and its completeness check (Sundararajan et al. 2017, §3)."""

    attributions: np.ndarray  # (L,) Σ_d of (x − x′) ⊙ ∫ ∂F/∂x(x′ + α(x − x′)) dα
    f_input: float  # F(x) = log p(target)
    f_baseline: float  # F(x′), x′ = the zero embedding
    steps: int
    rule: str

    @property
    def gap(self) -> float:
        """|Σ attributions − (F(x) − F(x′))|: zero for the exact integral (completeness)."""
        return abs(float(self.attributions.sum()) - (self.f_input - self.f_baseline))

    @property
    def relative_gap(self) -> float:
        return self.gap / abs(self.f_input - self.f_baseline) if self.f_input != self.f_baseline else float("nan")


def _grads(subject: Subject, points: Tensor, batch: int) -> tuple[Tensor, Tensor]:
    """(F, ∂F/∂x) at every point (P, L, d), ``batch`` points per backward pass."""
    values, grads = [], []
    for s in range(0, points.shape[0], batch):
        x = points[s : s + batch].clone().requires_grad_(True)
        f = subject.logprob_embedded(x)
        (g,) = torch.autograd.grad(f.sum(), x)
        values.append(f.detach())
        grads.append(g.detach())
    return torch.cat(values), torch.cat(grads)


def gradient_x_input(subject: Subject) -> np.ndarray:
    """(L,) Σ_d x_d ∂F/∂x_d at the input (Shrikumar et al. 2016; Sundararajan et al. 2017, §2)."""
    x = subject.embeddings()
    _, g = _grads(subject, x.unsqueeze(0), 1)
    return (g[0] * x).sum(-1).double().numpy()


def integrated_gradients(
    subject: Subject,
    steps: int = IG_STEPS,
    rule: str = "gauss",
    batch: int = 8,
    tolerance: float | None = None,
    max_steps: int = IG_MAX_STEPS,
) -> IGResult:
    """IG_i = (x_i − x′_i) ∫₀¹ ∂F/∂x_i(x′ + α(x − x′)) dα, summed over each token's embedding
    dimensions, x′ = ``subject.baseline()`` (Sundararajan et al. 2017, §3 eq. 1). The integral by ``rule``:
    "gauss" (Gauss–Legendre, ``steps`` nodes), "riemann" (§5 eq. 3, right sums) or "trapezoid" (``steps``
    equal intervals; with ``tolerance``, adaptive: §3's advice to add steps until completeness holds, applied
    to each interval: the trapezoid of dF/dα over [a, b] should equal F(b) − F(a), which the same runs give;
    the ``batch`` intervals that miss most are halved, every earlier gradient reused, until
    |Σ IG − (F(x) − F(x′))| ≤ ``tolerance`` · |F(x) − F(x′)| or there are ``max_steps`` intervals).
    F(x) and F(x′) are the values of the same differentiated runs (trapezoid), else one more run of the
    same function."""
    x = subject.embeddings()
    base = subject.baseline()
    if rule != "trapezoid":
        alphas, weights = gauss_legendre(steps) if rule == "gauss" else riemann(steps)
        _, g = _grads(subject, torch.stack([base + float(a) * (x - base) for a in alphas]), batch)
        avg = (torch.as_tensor(weights, dtype=g.dtype)[:, None, None] * g).sum(0)
        with torch.no_grad():
            ends = subject.logprob_embedded(torch.stack([x, base]))
        return IGResult(((x - base) * avg).sum(-1).double().numpy(), float(ends[0]), float(ends[1]), steps, rule)
    alphas = np.linspace(0, 1, steps + 1)
    values, grads = _grads(subject, torch.stack([base + float(a) * (x - base) for a in alphas]), batch)
    dot = (grads * (x - base)).sum(-1).double()  # (P, L): each token's share of dF/dα at each node
    f = values.double().numpy()
    while True:
        h = np.diff(alphas)
        pieces = 0.5 * h[:, None] * (dot[:-1] + dot[1:]).numpy()  # (intervals, L): the trapezoid on each
        result = IGResult(pieces.sum(0), float(f[-1]), float(f[0]), len(h), rule)
        local = np.abs(pieces.sum(1) - np.diff(f))  # each interval's own completeness gap
        if tolerance is None or len(h) >= max_steps or not result.relative_gap > tolerance:
            return result
        worst = np.sort(np.argsort(-local)[: min(batch, max_steps - len(h))])
        mids = 0.5 * (alphas[worst] + alphas[worst + 1])
        v_new, g_new = _grads(subject, torch.stack([base + float(a) * (x - base) for a in mids]), batch)
        order = np.argsort(np.concatenate([alphas, mids]), kind="stable")
        alphas = np.concatenate([alphas, mids])[order]
        f = np.concatenate([f, v_new.double().numpy()])[order]
        dot = torch.cat([dot, (g_new * (x - base)).sum(-1).double()])[torch.as_tensor(order)]


# --------------------------------------------------------------------------------------
# Every method, and how faithful each one is
# --------------------------------------------------------------------------------------


@dataclass
class Explanation(Trace):
    """One input, one output, every method. ``scores`` (methods, L): each method's score of each
    input token (NaN where a method is not defined for the model); ``occlusion`` is the drop of log p;
    ``erasure`` (methods, K+1): p(output) with the method's top 0 … K removable tokens removed;
    ``spearman``/``aopc`` per method; ``seconds`` per stage. ``family``: the subject's (its JSON key
    stays "kind", as first published)."""

    JSON_KEYS: ClassVar[dict[str, str]] = {"family": "kind"}

    family: str  # the subject's model family: seq2seq | transformer | mlm | llm | given
    tokens: list[str]
    removable: np.ndarray
    target: str
    log_prob: float
    methods: list[str]
    scores: np.ndarray
    erasure: np.ndarray
    spearman: np.ndarray
    aopc: np.ndarray
    rollout_sink_share: float
    attn_head: tuple[int, int]
    ig_f_input: float
    ig_f_baseline: float
    ig_sum: float
    ig_steps: int
    seconds: dict[str, float] = field(default_factory=dict)
    ig_baseline_token: str = ""  # x′: "" for the zero embedding, else the token at every position but the first

    @property
    def ig_relative_gap(self) -> float:
        delta = self.ig_f_input - self.ig_f_baseline
        return abs(self.ig_sum - delta) / abs(delta) if delta else float("nan")

    def row(self, method: str) -> np.ndarray:
        return self.scores[self.methods.index(method)]


def attention_scores(rec: AttentionRecord, layer: int, head: int) -> dict[str, np.ndarray]:
    """The attention-based rows of one record: one head, the last layer's mean, every layer's mean,
    rollout, sink-aware rollout, flow and the last layer's norm-based row."""
    n = rec.rows.shape[-1]
    out = {
        "attn_head": rec.rows[layer, head],
        "attn_last": rec.rows[-1].mean(0),
        "attn_all": rec.rows.mean((0, 1)),
        "norm": rec.norms[-1],
    }
    if rec.layers is None:  # one attention (an RNN decoder): nothing to roll out
        out["rollout"] = out["rollout_sink"] = out["flow"] = np.full(n, np.nan)
        return out
    roll = rollout(rec.layers)
    if rec.final_row is not None:  # encoder–decoder: the output's cross-attention over the rolled-out encoder
        out["rollout"] = rec.final_row @ roll
        out["flow"] = attention_flow(rec.layers, -1, rec.final_row)
    else:
        out["rollout"] = roll[rec.query]
        out["flow"] = attention_flow(rec.layers, rec.query)
    out["rollout_sink"] = sink_split(out["rollout"])[1]
    return out


def explain(
    subject: Subject,
    layer: int = -1,
    head: int = 0,
    ig_steps: int | None = None,
    erase_k: int = ERASE_K,
    batch: int = 16,
    ig_tolerance: float | None = IG_TOLERANCE,
) -> Explanation:
    """Every method on ``subject``, occlusion by re-running the model with each removable token
    removed, and each method's Spearman ρ with occlusion and its erasure curve (AOPC). Integrated gradients:
    the trapezoid rule from ``ig_steps`` intervals (default :data:`IG_START`), the worst :data:`IG_REFINE` halved
    at a time until completeness holds within ``ig_tolerance`` (None: no refinement) or :data:`IG_MAX_STEPS`
    intervals."""
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    rec = subject.attention()
    n_layers, n_heads = rec.rows.shape[:2]
    layer = layer % n_layers
    head = head % n_heads
    rows = attention_scores(rec, layer, head)
    seconds["attention"] = time.perf_counter() - start
    start = time.perf_counter()
    rows["grad_input"] = gradient_x_input(subject)
    start_steps = ig_steps or IG_START.get(subject.family, 32)
    refine = IG_REFINE.get(subject.family, batch)
    ig = integrated_gradients(subject, start_steps, "trapezoid", refine, ig_tolerance, IG_MAX_STEPS)
    rows["ig"] = ig.attributions
    seconds["gradients"] = time.perf_counter() - start
    start = time.perf_counter()
    removable = subject.removable
    n = len(subject.tokens)
    full = ig.f_input
    positions = [int(i) for i in np.nonzero(removable)[0]]
    occl = np.full(n, np.nan)
    alone = subject.logprob_without([[j] for j in positions])  # log p(target) with token j removed
    occl[positions] = full - alone
    rows["occlusion"] = occl
    seconds["occlusion"] = time.perf_counter() - start
    start = time.perf_counter()
    scores = np.stack([np.asarray(rows[m], dtype=np.float64) for m in METHODS])
    k_max = min(erase_k, max(0, len(positions) - 1))
    wanted: dict[tuple[int, ...], int] = {}
    plans = []
    for row in scores:
        order = top_order(row, removable)
        plan = [tuple(sorted(order[:k])) for k in range(1, k_max + 1)] if not np.isnan(row[removable]).all() else []
        plans.append(plan)
        for drop in plan:
            wanted.setdefault(drop, len(wanted))
    drops = list(wanted)
    known = {(j,): float(v) for j, v in zip(positions, alone)}  # one token removed: occlusion's own runs
    rerun = [d for d in drops if d not in known]
    lp_rerun = dict(zip(rerun, subject.logprob_without(rerun))) if rerun else {}
    lp = np.array([known[d] if d in known else lp_rerun[d] for d in drops])
    p0 = float(np.exp(full))
    erasure = np.full((len(METHODS), k_max + 1), np.nan)
    for m, plan in enumerate(plans):
        if plan:
            erasure[m] = [p0] + [float(np.exp(lp[wanted[d]])) for d in plan]
    rho = np.array([spearman(row[removable], occl[removable]) for row in scores])
    area = np.array([aopc(curve) if not np.isnan(curve).any() else np.nan for curve in erasure])
    seconds["erasure"] = time.perf_counter() - start
    share = sink_split(rows["rollout"])[0] if not np.isnan(rows["rollout"]).all() else float("nan")
    return Explanation(
        subject.family,
        list(subject.tokens),
        removable.copy(),
        subject.target,
        full,
        list(METHODS),
        scores,
        erasure,
        rho,
        area,
        share,
        (layer, head),
        ig.f_input,
        ig.f_baseline,
        float(ig.attributions.sum()),
        ig.steps,
        seconds,
        getattr(subject, "pad_token", ""),
    )


def aligned_links(score_rows: np.ndarray, n_src: int) -> set[tuple[int, int]]:
    """Links (source i, target t) from each target row's argmax over the first ``n_src`` source tokens
    (the rule of forced-alignment AER: a link to </s> is no link); a row of NaN gives no link."""
    links = set()
    for t, row in enumerate(score_rows):
        part = np.asarray(row[:n_src], dtype=np.float64)
        if n_src and not np.isnan(part).all():
            links.add((int(np.nanargmax(part)), t))
    return links


# --------------------------------------------------------------------------------------
# Building a subject from typed text
# --------------------------------------------------------------------------------------


def translation_subject(
    loaded: Any, text: str, step: int | None = None, output_tokens: Sequence[str] | None = None
) -> Subject:
    """A seq2seq or Transformer checkpoint on ``text``: the output is the model's greedy translation
    (or ``output_tokens``, e.g. the gold reference for AER); ``step`` the output token explained
    (default: the middle one). InputError for text the model cannot read."""
    from models.checkpoints import LoadedSeq2Seq
    from models.inference.translate import prepare_source, prepare_transformer_source, translate, translate_transformer

    if isinstance(loaded, LoadedSeq2Seq):
        source = prepare_source(text, loaded)
        stoi = loaded.tgt_vocab.stoi
        out = list(output_tokens) if output_tokens is not None else list(translate(loaded, text).tgt_tokens)
        ids = [stoi.get(t, stoi["<unk>"]) for t in out]
        step = len(ids) // 2 if step is None else step
        return Seq2SeqSubject(loaded, source.ids, source.tokens, ids, min(step, len(ids) - 1))
    source = prepare_transformer_source(text, loaded)
    if output_tokens is not None:
        ids = [loaded.tgt_stoi.get(t, loaded.tgt_stoi["<unk>"]) for t in output_tokens]
    else:
        ids = list(translate_transformer(loaded, text).output_ids)
    step = len(ids) // 2 if step is None else step
    return TransformerSubject(loaded, source.ids, source.tokens, ids, min(step, len(ids) - 1))


def output_tokens_of(subject: Subject) -> list[str]:
    """The whole output of a translation subject (the explained one is ``subject.step``)."""
    if isinstance(subject, Seq2SeqSubject):
        return [subject.loaded.tgt_vocab.itos[i] for i in subject.prefix[1:]] + [subject.target]
    if isinstance(subject, TransformerSubject):
        return [subject.loaded.tgt_itos[int(i)] for i in subject.tgt_in[0, 1:]] + [subject.target]
    return [subject.target]


def mlm_subject(loaded: Any, text: str, max_pieces: int = 126) -> MaskedLMSubject:
    """``[CLS] text [SEP]`` for a BERT with a masked-LM head; ``text`` holds one [MASK]."""
    from models.inference.common import InputError

    tok = loaded.tokenizer
    ids, _ = tok.pieces(text)
    if ids.count(tok.mask_id) != 1:
        raise InputError(
            'write [MASK] once where a word is missing, e.g. "the cat sat on the [MASK] ."', "err.explain.one_mask"
        )
    ids = ids[:max_pieces]
    if tok.mask_id not in ids:
        raise InputError("write [MASK] once where a word is missing", "err.explain.one_mask")
    return MaskedLMSubject(loaded, [tok.cls_id] + ids + [tok.sep_id])


def llm_subject(llm: Any, text: str, max_tokens: int = 64) -> LLMSubject:
    """The LLM continuing ``text`` (plain text, no chat template): its last ``max_tokens`` tokens
    explain the next token the model finds most probable."""
    from models.inference.common import InputError

    ids = llm.tokenizer(text, add_special_tokens=False)["input_ids"][-max_tokens:]
    if len(ids) < 2:
        raise InputError("type at least two tokens for the model to continue", "err.explain.too_short")
    return LLMSubject(llm, ids)


# --------------------------------------------------------------------------------------
# Different attention, the same output? (Jain & Wallace 2019, §4.2)
# --------------------------------------------------------------------------------------

SWAP_PERMUTATIONS = 100  # random permutations of one step's weights (Jain & Wallace 2019, §4.2.1 use 100)
SWAP_EPSILON = 0.01  # the adversary's bound on the output change, TVD ≤ ε (Jain & Wallace 2019, §4.2.2)
SWAP_STEPS = 150  # Adam steps of the adversary's search


def js_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """Jensen–Shannon divergence ½ KL(p‖m) + ½ KL(q‖m), m = ½(p + q), in nats (0 … ln 2)."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    m = 0.5 * (p + q)

    def kl(a: np.ndarray) -> float:
        nz = a > 0
        return float(np.sum(a[nz] * np.log(a[nz] / m[nz])))

    return 0.5 * kl(p) + 0.5 * kl(q)


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    """TVD(p, q) = ½ Σ |p − q| (Jain & Wallace 2019, §4.1: the change of the output distribution)."""
    return 0.5 * float(np.abs(np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64)).sum())


def _js_torch(p: Tensor, q: Tensor) -> Tensor:
    m = 0.5 * (p + q)
    return 0.5 * (p * (p.clamp_min(1e-30) / m.clamp_min(1e-30)).log()).sum(-1) + 0.5 * (
        q * (q.clamp_min(1e-30) / m.clamp_min(1e-30)).log()
    ).sum(-1)


@dataclass
class AttentionSwap(Trace):
    """One decoding step of an RNN seq2seq with its attention α replaced: by a random permutation of α
    and by an adversary's α̃ (far from α in JSD, the output within TVD ≤ ε). ``weights`` (3, S): the
    original, the shown permutation and the adversarial row; ``outputs`` (3,) the argmax token under each,
    ``probs`` (3,) its probability; ``jsd``/``tvd`` (3,) against the original (0 for the original)."""

    tokens: list[str]
    step: int
    weights: np.ndarray
    outputs: list[str]
    probs: np.ndarray
    jsd: np.ndarray
    tvd: np.ndarray
    permutation: list[int]
    perm_tvd_median: float
    perm_jsd_median: float
    perm_same_output: float
    n_permutations: int
    epsilon: float


class _GivenWeights:
    """An AttentionMode that ignores the model's weights and returns ``weights`` (B, S)."""

    family = "given"

    def __init__(self, weights: Tensor) -> None:
        self.weights = weights

    def apply(self, weights: Tensor) -> Tensor:
        return self.weights.to(weights.dtype)


def step_probabilities(subject: Seq2SeqSubject) -> Callable[[Tensor], Tensor]:
    """A function ``alphas`` (B, S) → (B, V): the output distribution at ``subject.step`` with that step's
    attention replaced by each row of ``alphas``; the encoder and the earlier steps (teacher-forced, the
    model's own attention) run once, here. Differentiable in ``alphas``."""
    model = subject.model
    emb = subject.embeddings().unsqueeze(0)
    enc = model.encoder
    with torch.no_grad():
        states, h_n = enc.rnn(emb)
        final = torch.cat([h_n[-2], h_n[-1]], dim=-1) if enc.rnn.bidirectional else h_n[-1]
        mask = torch.ones(emb.shape[:2], dtype=torch.bool)
        memory = model.decoder.memory(states, mask, torch.tanh(enc.bridge(final)))
        state = model.decoder.initial_state(memory)
        for y in subject.prefix[:-1]:
            _, state, _ = model.decoder.step(torch.tensor([y]), state, memory)

    def run(alphas: Tensor) -> Tensor:
        index = torch.zeros(alphas.shape[0], dtype=torch.long)
        given: Any = _GivenWeights(alphas)  # duck-typed AttentionMode: apply(weights) → alphas
        logits, _, _ = model.decoder.step(
            torch.full((alphas.shape[0],), subject.prefix[-1]),
            state.index_select(index),
            memory.index_select(index),
            given,
        )
        return torch.softmax(logits.float(), -1)

    return run


def attention_swap(
    subject: Seq2SeqSubject,
    permutations: int = SWAP_PERMUTATIONS,
    epsilon: float = SWAP_EPSILON,
    steps: int = SWAP_STEPS,
    seed: int = 0,
) -> AttentionSwap:
    """Jain & Wallace 2019, §4.2: (1) permute α_t at random ``permutations`` times and measure the output's
    change (TVD) and JSD(α, permuted α); (2) search α̃ = softmax(z) that maximises JSD(α, α̃) with the output
    kept close: Adam on −JSD + 100·max(0, TVD − ε), the best α̃ with TVD ≤ ε kept."""
    rec = subject.attention()
    alpha = torch.as_tensor(rec.rows[0, 0], dtype=torch.float32)
    n = alpha.shape[0]
    gen = np.random.default_rng(seed)
    perms = [gen.permutation(n) for _ in range(permutations)]
    probs = step_probabilities(subject)
    with torch.no_grad():
        p0 = probs(alpha[None])[0]
        permuted = torch.stack([alpha[torch.as_tensor(p)] for p in perms])
        pp = probs(permuted)
    perm_tvd = np.array([total_variation(p0.numpy(), q.numpy()) for q in pp])
    perm_jsd = np.array([js_divergence(alpha.numpy(), a.numpy()) for a in permuted])
    same = float(np.mean(pp.argmax(-1).numpy() == int(p0.argmax())))
    shown = int(np.argsort(perm_tvd)[len(perm_tvd) // 2])  # the permutation of median output change
    torch.manual_seed(seed)
    z = (alpha.clamp_min(1e-8).log() + torch.randn(n)).requires_grad_(True)
    opt = torch.optim.Adam([z], lr=0.1)
    best, best_jsd = alpha.clone(), 0.0
    for _ in range(steps):
        a = torch.softmax(z, -1)
        p = probs(a[None])[0]
        tvd = 0.5 * (p - p0).abs().sum()
        jsd = _js_torch(alpha, a)
        if float(tvd.detach()) <= epsilon and float(jsd.detach()) > best_jsd:
            best, best_jsd = a.detach().clone(), float(jsd.detach())
        loss = -jsd + 100.0 * torch.relu(tvd - epsilon)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        pa = probs(best[None])[0]
    rows = [alpha.numpy(), permuted[shown].numpy(), best.numpy()]
    dists = [p0.numpy(), pp[shown].numpy(), pa.numpy()]
    itos = subject.loaded.tgt_vocab.itos
    return AttentionSwap(
        list(subject.tokens),
        subject.step,
        np.array(rows, dtype=np.float64),
        [itos[int(d.argmax())] for d in dists],
        np.array([float(d.max()) for d in dists]),
        np.array([js_divergence(rows[0], r) for r in rows]),
        np.array([total_variation(dists[0], d) for d in dists]),
        [int(i) for i in perms[shown]],
        float(np.median(perm_tvd)),
        float(np.median(perm_jsd)),
        same,
        permutations,
        epsilon,
    )
