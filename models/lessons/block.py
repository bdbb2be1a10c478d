"""The Transformer block's live tensors (Vaswani et al. 2017, §3.1–3.3): one sentence through one of the
lab's own models, read off its modules by forward hooks.

For every sub-layer of every block (self-attention, cross-attention, the position-wise FFN) the trace keeps
the residual stream x entering it, the sub-layer's output Sublayer(x), what its LayerNorm read and wrote
(post-norm, as in the paper: LN(x + Sublayer(x)); pre-norm, Xiong et al. 2020: x + Sublayer(LN(x))), γ and
β, the attention weights and the FFN's hidden units max(0, xW₁ + b₁) (GELU for BERT). The three families
(encoder–decoder, decoder-only LM, encoder-only BERT) give the same record, so that a page draws them
from one view. Nothing is recomputed by hand here: every array is what the module computed
(``tests/test_block.py`` checks the arithmetic against the modules).

:func:`init_gradient_norms` is Xiong et al. (2020)'s measurement on freshly initialised models: the
per-layer gradient norm at initialisation with post-LN and pre-LN.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.checkpoints import DECODER_ONLY, LoadedBert, LoadedTransformer
from models.inference.common import InputError, eval_mode, to_numpy
from models.inference.traces import Trace
from models.nn.bert import SmallBert
from models.nn.transformer import (
    DecoderLayer,
    EncoderLayer,
    PositionwiseFeedForward,
    Transformer,
    TransformerConfig,
)

ENCODER_DECODER, DECODER_ONLY_LM, ENCODER_ONLY = "encoder-decoder", "decoder-only", "encoder-only"
ARCHITECTURES = (ENCODER_DECODER, DECODER_ONLY_LM, ENCODER_ONLY)
SELF, MASKED_SELF, CROSS, FFN = "self", "masked_self", "cross", "ffn"
TOP_K = 5


@dataclass
class SublayerTrace(Trace):
    """One sub-layer of one block for every token (L tokens, width d): ``stream_in`` x (L, d) the residual
    stream entering it; ``output`` Sublayer(x) (L, d) (for pre-norm, Sublayer(LN(x))); ``norm_in`` and
    ``norm_out`` (L, d) what its LayerNorm read and wrote (post-norm: x + Sublayer(x) → the stream after;
    pre-norm: x → what the sub-layer read); ``stream_out`` (L, d) the stream after; γ, β (d,) and ε of that
    LayerNorm; ``attention`` (h, L, S) of an attention sub-layer; ``pre_activation`` xW₁ + b₁ and
    ``hidden`` its activation (L, d_ff) of the FFN."""

    sublayer_type: str
    stream_in: np.ndarray
    output: np.ndarray
    norm_in: np.ndarray
    norm_out: np.ndarray
    stream_out: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    eps: float
    attention: np.ndarray | None = None
    pre_activation: np.ndarray | None = None
    hidden: np.ndarray | None = None

    DERIVED: ClassVar[tuple[str, ...]] = ("change",)

    @property
    def change(self) -> np.ndarray:
        """‖Sublayer(x)_t‖ / ‖x_t‖ per token (L,): how much this sub-layer adds to the residual stream,
        against the stream it was added to."""
        return np.linalg.norm(self.output, axis=-1) / np.maximum(np.linalg.norm(self.stream_in, axis=-1), 1e-12)

    def zeros(self, token: int) -> int:
        """How many of token ``token``'s FFN hidden units are exactly 0 (ReLU; GELU: those ≤ 0, none exactly 0)."""
        if self.hidden is None:
            raise ValueError("not a feed-forward sub-layer")
        return int((self.hidden[token] <= 0).sum())


@dataclass
class StackTrace(Trace):
    """One stack (``name`` "encoder" or "decoder") over its ``tokens``: ``embedding`` (L, d) the stream
    entering block 1 (token embedding ×√d + positions, or BERT's LN(token + segment + position)),
    ``layers[i]`` block i's sub-layers in order, ``output`` (L, d) what the stack gives (after the final
    LayerNorm of a pre-norm stack). ``ids`` (and BERT's ``segments``) are what the stack read, so that one
    of its attention weights can be derived again (click-to-explain)."""

    name: str
    tokens: list[str]
    embedding: np.ndarray
    layers: list[list[SublayerTrace]]
    output: np.ndarray
    ids: list[int] = field(default_factory=list)
    segments: list[int] = field(default_factory=list)

    def stream(self) -> np.ndarray:
        """The residual stream at every point (P, L, d): the embedding, then after each sub-layer."""
        points = [self.embedding] + [s.stream_out for layer in self.layers for s in layer]
        return np.stack(points)

    def stream_norms(self) -> np.ndarray:
        """‖x_t‖ at every point of :meth:`stream` (P, L)."""
        return np.linalg.norm(self.stream(), axis=-1)

    def changes(self) -> np.ndarray:
        """Mean over tokens of ‖Sublayer(x)_t‖/‖x_t‖ (N, sub-layers per block)."""
        return np.array([[s.change.mean() for s in layer] for layer in self.layers])


@dataclass
class BlockTrace(Trace):
    """A sentence through a whole model: its ``architecture`` (encoder-decoder | decoder-only | encoder-only),
    sizes, ``stacks`` (encoder, then decoder) and the output layer's softmax at each position of the last
    stack: ``top_tokens``/``top_probs`` (L, k)."""

    model: str
    label: str
    architecture: str
    norm_first: bool
    activation: str
    d_model: int
    d_ff: int
    n_heads: int
    vocab_size: int
    stacks: list[StackTrace]
    top_tokens: list[list[str]]
    top_probs: np.ndarray
    unknown: list[str] = field(default_factory=list)

    def stack(self, name: str) -> StackTrace:
        found = next((s for s in self.stacks if s.name == name), None)
        if found is None:
            raise ValueError(f"no {name} in a {self.architecture} model")
        return found


# ------------------------------------------------------------------------------------------------
# Hooks
# ------------------------------------------------------------------------------------------------


class _Recorder:
    """Forward hooks on one block's modules; what they saw, in call order."""

    def __init__(self) -> None:
        self.seen: dict[tuple[int, str], Any] = {}
        self.handles: list[Any] = []

    def watch(self, module: nn.Module, key: tuple[int, str]) -> None:
        def hook(_: nn.Module, args: tuple, out: Any) -> None:
            self.seen[key] = (
                tuple(a.detach() if isinstance(a, Tensor) else a for a in args),
                out[0].detach() if isinstance(out, tuple) else out.detach(),
                out[1].detach() if isinstance(out, tuple) and out[1] is not None else None,
            )

        self.handles.append(module.register_forward_hook(hook))

    def remove(self) -> None:
        for h in self.handles:
            h.remove()


def _sublayers(layer: nn.Module, masked: bool) -> list[tuple[str, nn.Module, nn.LayerNorm]]:
    """(sub-layer type, module, the LayerNorm of its residual wrapper) of an encoder or decoder layer, in order."""
    if isinstance(layer, EncoderLayer):
        return [(SELF, layer.self_attn, layer.sub_attn.norm), (FFN, layer.feed_forward, layer.sub_ff.norm)]
    if isinstance(layer, DecoderLayer):
        out: list[tuple[str, nn.Module, nn.LayerNorm]] = [
            (MASKED_SELF if masked else SELF, layer.self_attn, layer.sub_self.norm)
        ]
        if layer.cross_attn is not None and layer.sub_cross is not None:
            out.append((CROSS, layer.cross_attn, layer.sub_cross.norm))
        return out + [(FFN, layer.feed_forward, layer.sub_ff.norm)]
    raise TypeError(f"not a Transformer layer: {type(layer).__name__}")


def _run_stack(
    layers: Sequence[nn.Module],
    embed: nn.Module,
    tokens: list[str],
    name: str,
    masked: bool,
    norm_first: bool,
    final: nn.Module,
) -> Callable[[], StackTrace]:
    """Hook a stack's modules; returns the function that reads the trace once the model has run."""
    rec = _Recorder()
    rec.watch(embed, (-1, "embed"))
    plan = [_sublayers(layer, masked) for layer in layers]
    for i, subs in enumerate(plan):
        rec.watch(layers[i], (i, "layer"))
        for j, (_, module, norm) in enumerate(subs):
            rec.watch(module, (i, f"sub{j}"))
            rec.watch(norm, (i, f"norm{j}"))
            if isinstance(module, PositionwiseFeedForward):
                rec.watch(module.w_1, (i, "w1"))
    rec.watch(final, (-1, "final"))

    def read() -> StackTrace:
        rec.remove()
        seen = rec.seen
        out_layers: list[list[SublayerTrace]] = []
        for i, subs in enumerate(plan):
            items = []
            for j, (sublayer_type, module, ln) in enumerate(subs):
                args, output, weights = seen[(i, f"sub{j}")]
                (norm_in,), norm_out, _ = seen[(i, f"norm{j}")]
                if norm_first:
                    x, stream_out = norm_in, norm_in + output
                else:
                    x, stream_out = args[0], norm_out
                pre = hidden = None
                if isinstance(module, PositionwiseFeedForward):
                    pre_t = seen[(i, "w1")][1]
                    pre, hidden = to_numpy(pre_t[0]), to_numpy(module.activation(pre_t)[0])
                items.append(
                    SublayerTrace(
                        sublayer_type,
                        to_numpy(x[0]),
                        to_numpy(output[0]),
                        to_numpy(norm_in[0]),
                        to_numpy(norm_out[0]),
                        to_numpy(stream_out[0]),
                        to_numpy(ln.weight),
                        to_numpy(ln.bias),
                        float(ln.eps),
                        None if weights is None else to_numpy(weights[0]),
                        pre,
                        hidden,
                    )
                )
            out_layers.append(items)
        return StackTrace(
            name, tokens, to_numpy(seen[(-1, "embed")][1][0]), out_layers, to_numpy(seen[(-1, "final")][1][0])
        )

    return read


def _top(logits: Tensor, itos: Callable[[int], str], k: int = TOP_K) -> tuple[list[list[str]], np.ndarray]:
    probs = torch.softmax(logits.float(), dim=-1)
    p, i = probs.topk(min(k, probs.shape[-1]), dim=-1)
    return [[itos(int(j)) for j in row] for row in i.tolist()], to_numpy(p)


@torch.inference_mode()
def block_trace(loaded: LoadedTransformer | LoadedBert, text: str) -> BlockTrace:
    """``text`` through ``loaded`` (a shipped or studio checkpoint: encoder–decoder, decoder-only or BERT),
    every block's tensors recorded. An encoder–decoder reads its greedy translation of ``text`` on the
    decoder side (teacher-forced on its own output); InputError for text it cannot read."""
    if isinstance(loaded, LoadedBert):
        return _bert_trace(loaded, text)
    from models.inference.generate import prepare_prompt
    from models.inference.transformer import greedy_decode
    from models.inference.translate import decode_len, prepare_transformer_source

    model = loaded.model
    c: TransformerConfig = model.config
    with eval_mode(model):
        if loaded.architecture == DECODER_ONLY:
            lm = loaded.language_model
            tokens, ids, unknown, _ = prepare_prompt(text, loaded, 0)
            if len(tokens) < 2:
                raise InputError("Type a few words.", "block.err.empty")
            x = torch.tensor([ids], dtype=torch.long)
            read = _run_stack(list(lm.decoder.layers), lm.embed, tokens, "decoder", True, c.norm_first, lm.decoder.norm)
            hidden = lm.run(x).logits
            stacks = [replace(read(), ids=[int(i) for i in ids])]
            architecture, unk = DECODER_ONLY_LM, [t for t, u in zip(tokens, unknown) if u]
        else:
            tf = loaded.encoder_decoder
            source = prepare_transformer_source(text, loaded)
            decoded = greedy_decode(tf, source.ids, max_len=decode_len(loaded, source))
            dec_ids = decoded.decoder_input_ids if decoded.output_ids else [c.bos_id]
            src = torch.tensor([source.ids], dtype=torch.long)
            tgt = torch.tensor([dec_ids], dtype=torch.long)
            read_enc = _run_stack(
                list(tf.encoder.layers), tf.src_embed, source.tokens, "encoder", False, c.norm_first, tf.encoder.norm
            )
            read_dec = _run_stack(
                list(tf.decoder.layers),
                tf.tgt_embed,
                loaded.tgt_tokens(dec_ids),
                "decoder",
                True,
                c.norm_first,
                tf.decoder.norm,
            )
            hidden = tf.run(src, tgt).logits
            stacks = [replace(read_enc(), ids=[int(i) for i in source.ids]), replace(read_dec(), ids=list(dec_ids))]
            architecture = ENCODER_DECODER
            unk = [t for t, u in zip(source.tokens, source.unknown) if u]
        top_tokens, top_probs = _top(hidden[0], lambda i: loaded.tgt_itos[i])
    return BlockTrace(
        loaded.name,
        loaded.label,
        architecture,
        c.norm_first,
        c.activation,
        c.d_model,
        c.d_ff,
        c.n_heads,
        c.vocab_size,
        stacks,
        top_tokens,
        top_probs,
        unk,
    )


def _bert_trace(loaded: LoadedBert, text: str) -> BlockTrace:
    model: SmallBert = loaded.model
    c = model.config
    if not text.strip():
        raise InputError("Type a few words.", "block.err.empty")
    enc = loaded.tokenizer.encode_pair(text, None, max_len=c.max_len)
    tokens = loaded.tokenizer.convert_ids(enc.ids)
    with eval_mode(model):
        ids = torch.tensor([enc.ids], dtype=torch.long)
        seg = torch.tensor([enc.segment_ids], dtype=torch.long)
        read = _run_stack(
            list(model.encoder.layers), model.embeddings, tokens, "encoder", False, c.norm_first, model.encoder.norm
        )
        out = model(ids, seg)
        stacks = [replace(read(), ids=list(enc.ids), segments=list(enc.segment_ids))]
        top_tokens, top_probs = _top(model.mlm_logits(out.hidden[0]), loaded.tokenizer.id_to_token)
    return BlockTrace(
        loaded.name,
        str(loaded.training.get("label", loaded.name)),
        ENCODER_ONLY,
        c.norm_first,
        "gelu",
        c.d_model,
        c.d_ff,
        c.n_heads,
        c.vocab_size,
        stacks,
        top_tokens,
        top_probs,
    )


# ------------------------------------------------------------------------------------------------
# Post-LN against pre-LN at initialisation (Xiong et al. 2020)
# ------------------------------------------------------------------------------------------------


@dataclass
class GradientNorms(Trace):
    """‖∂L/∂W₂‖_F of the FFN's second matrix in each block at initialisation, mean over ``seeds`` fresh
    models, for post-LN and pre-LN: ``encoder_post`` … (N,); ``layer_*``: the same for all of a block's
    parameters together. Sizes in ``n_layers``, ``d_model``, ``n_heads``, ``d_ff``, ``vocab``."""

    n_layers: int
    d_model: int
    n_heads: int
    d_ff: int
    vocab: int
    seeds: int
    encoder_post: np.ndarray
    encoder_pre: np.ndarray
    decoder_post: np.ndarray
    decoder_pre: np.ndarray
    layer_encoder_post: np.ndarray
    layer_encoder_pre: np.ndarray
    layer_decoder_post: np.ndarray
    layer_decoder_pre: np.ndarray

    def growth(self) -> tuple[float, float]:
        """How much the decoder's last block's gradient exceeds its first's, (post-LN, pre-LN): Xiong et al.'s
        finding is the first ratio well above 1 (the gradient grows toward the output), the second near 1."""
        return (
            float(self.decoder_post[-1] / self.decoder_post[0]),
            float(self.decoder_pre[-1] / self.decoder_pre[0]),
        )


def _one_model_gradients(
    norm_first: bool,
    seed: int,
    n_layers: int,
    d_model: int,
    n_heads: int,
    d_ff: int,
    vocab: int,
    batch: int,
    length: int,
) -> dict[str, np.ndarray]:
    torch.manual_seed(seed)
    cfg = TransformerConfig(
        vocab_size=vocab,
        d_model=d_model,
        n_heads=n_heads,
        num_encoder_layers=n_layers,
        num_decoder_layers=n_layers,
        d_ff=d_ff,
        dropout=0.0,
        norm_first=norm_first,
        max_len=length + 2,
    )
    model = Transformer(cfg)  # Glorot-initialised as in models.nn.transformer, never trained
    g = torch.Generator().manual_seed(10_000 + seed)  # the same batch for post-LN and pre-LN
    src = torch.randint(3, vocab, (batch, length), generator=g)
    tgt = torch.randint(3, vocab, (batch, length + 1), generator=g)
    logits = model(src, tgt[:, :-1])
    F.cross_entropy(logits.reshape(-1, vocab), tgt[:, 1:].reshape(-1)).backward()
    out: dict[str, np.ndarray] = {}
    for stack_name, stack in (("encoder", model.encoder), ("decoder", model.decoder)):
        w2, whole = [], []
        for layer in stack.layers:
            ff = layer.get_submodule("feed_forward")
            assert isinstance(ff, PositionwiseFeedForward) and ff.w_2.weight.grad is not None
            w2.append(float(ff.w_2.weight.grad.norm()))
            grads = [p.grad.reshape(-1) for p in layer.parameters() if p.grad is not None]
            whole.append(float(torch.cat(grads).norm()))
        out[stack_name], out[f"layer_{stack_name}"] = np.array(w2), np.array(whole)
    return out


def init_gradient_norms(
    n_layers: int = 6,
    d_model: int = 256,
    n_heads: int = 4,
    d_ff: int = 1024,
    vocab: int = 1000,
    seeds: int = 4,
    batch: int = 16,
    length: int = 24,
) -> GradientNorms:
    """Xiong et al. (2020), §3–4 and Fig. 3: the gradient norm of each block's FFN W₂ at initialisation, for
    an N-block encoder–decoder of the lab's own modules, post-LN and pre-LN (same seeds, same random batch;
    no training). With post-LN the gradients grow toward the output layer, with pre-LN they stay level:
    why post-LN needs a learning-rate warm-up."""
    runs: dict[str, list[np.ndarray]] = {}
    for seed in range(seeds):
        for norm_first, tag in ((False, "post"), (True, "pre")):
            got = _one_model_gradients(norm_first, seed, n_layers, d_model, n_heads, d_ff, vocab, batch, length)
            for key, value in got.items():
                runs.setdefault(f"{key}_{tag}", []).append(value)
    mean = {k: np.mean(v, axis=0) for k, v in runs.items()}
    return GradientNorms(
        n_layers,
        d_model,
        n_heads,
        d_ff,
        vocab,
        seeds,
        mean["encoder_post"],
        mean["encoder_pre"],
        mean["decoder_post"],
        mean["decoder_pre"],
        mean["layer_encoder_post"],
        mean["layer_encoder_pre"],
        mean["layer_decoder_post"],
        mean["layer_decoder_pre"],
    )


__all__ = [
    "ARCHITECTURES",
    "SublayerTrace",
    "StackTrace",
    "BlockTrace",
    "block_trace",
    "GradientNorms",
    "init_gradient_norms",
]
