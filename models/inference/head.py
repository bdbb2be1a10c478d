"""Inside one head: QKᵀ → ÷√d_k → + mask → softmax → ·V for one query, as numbers.

:func:`head_walkthrough` recomputes one head of one attention sub-layer of a Transformer or
decoder-only LM (:mod:`models.nn.transformer`) from the inputs that sub-layer really received.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from models.inference.common import as_ids, device_of, eval_mode, softmax_row, to_numpy
from models.inference.traces import TRANSFORMER_ATTENTIONS, HeadWalkthrough
from models.nn.transformer import DecoderOnlyLM, Transformer, as_attention


@torch.inference_mode()
def head_walkthrough(
    model: Transformer | DecoderOnlyLM,
    site: str,
    layer: int,
    head: int,
    query_index: int,
    src_ids: Sequence[int] | None = None,
    tgt_ids: Sequence[int] | None = None,
) -> HeadWalkthrough:
    """Recompute one head of one attention sub-layer for one query, step by step.

    ``site`` (which attention) in :data:`TRANSFORMER_ATTENTIONS`. For a :class:`Transformer` give ``src_ids`` and the
    decoder input ``tgt_ids`` (BOS + outputs so far); for a :class:`DecoderOnlyLM` (site
    "lm") the sequence as ``tgt_ids``. The sub-layer's real inputs (after LayerNorm when
    pre-norm) are captured by a forward hook during one teacher-forced pass.
    """
    if site not in TRANSFORMER_ATTENTIONS:
        raise ValueError(f"site must be one of {TRANSFORMER_ATTENTIONS}, not {site!r}")
    if isinstance(model, DecoderOnlyLM):
        if site != "lm":
            raise ValueError("a decoder-only LM has only causal self-attention: site='lm'")
        layers = model.decoder.layers
        module = as_attention(layers[layer].self_attn)
    else:
        if site == "lm":
            raise ValueError("site='lm' needs a DecoderOnlyLM")
        if site == "encoder":
            module = as_attention(model.encoder.layers[layer].self_attn)
        elif site == "decoder":
            module = as_attention(model.decoder.layers[layer].self_attn)
        else:
            module = as_attention(model.decoder.layers[layer].cross_attn)
    if not 0 <= head < module.n_heads:
        raise ValueError(f"head {head} out of range (0 … {module.n_heads - 1})")
    captured: dict[str, Any] = {}
    me = threading.get_ident()

    def hook(_mod: nn.Module, args: tuple[Any, ...], out: tuple[Tensor, Tensor]) -> None:
        # A model shared between sessions may run in other threads while the hook is on:
        # only this call's own forward pass is captured.
        if threading.get_ident() == me:
            captured["args"] = args
            captured["weights"] = out[1]

    device = device_of(model)
    handle = module.register_forward_hook(hook)
    try:
        with eval_mode(model):
            if isinstance(model, DecoderOnlyLM):
                model.run(as_ids(list(tgt_ids or []), device))
            else:
                model.run(as_ids(list(src_ids or []), device), as_ids(list(tgt_ids or []), device))
    finally:
        handle.remove()
    query, key, value, mask = captured["args"]
    n_queries = query.shape[1]
    if not 0 <= query_index < n_queries:
        raise ValueError(f"query {query_index} out of range (0 … {n_queries - 1})")
    d_k = module.d_k
    rows = slice(head * d_k, (head + 1) * d_k)
    q = module.w_q(query)[0, query_index, rows]
    k = module.w_k(key)[0, :, rows]
    v = module.w_v(value)[0, :, rows]
    scores = k @ q
    n_keys = k.shape[0]
    if mask is None:
        allowed = torch.ones(n_keys, dtype=torch.bool)
    else:
        m = mask
        while m.dim() < 4:
            m = m.unsqueeze(0) if m.dim() < 3 else m.unsqueeze(1)
        allowed = m.expand(1, module.n_heads, n_queries, n_keys)[0, head, query_index]
    scores_np = to_numpy(scores)
    scaled = scores_np / np.float32(math.sqrt(d_k))
    allowed_np = allowed.cpu().numpy().astype(bool)
    masked = np.where(allowed_np, scaled, -np.inf).astype(np.float32)
    weights = softmax_row(masked)
    unscaled = softmax_row(np.where(allowed_np, scores_np, -np.inf).astype(np.float32))
    v_np = to_numpy(v)
    return HeadWalkthrough(
        site=site,
        layer=layer,
        head=head,
        query_index=query_index,
        d_k=d_k,
        q=to_numpy(q),
        keys=to_numpy(k),
        values=v_np,
        scores=scores_np,
        scaled=scaled.astype(np.float32),
        allowed=allowed_np,
        masked=masked,
        weights=weights,
        output=(weights @ v_np).astype(np.float32),
        unscaled_weights=unscaled,
        unscaled_output=(unscaled @ v_np).astype(np.float32),
        model_weights=to_numpy(captured["weights"][0, head, query_index]),
    )
