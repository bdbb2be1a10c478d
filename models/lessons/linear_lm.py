"""Softmax against linear attention, trained here: two small decoder LMs, identical but for their attention.

Each is a pre-norm decoder (token embedding + sinusoidal positions, ``n_layers`` blocks of causal
self-attention and a feed-forward layer, tied output) whose attention is either

* softmax: softmax(QKᵀ/√d + M)V with the causal mask M (Vaswani et al. 2017), or
* linear: φ(x) = elu(x) + 1 in place of exp(q·k/√d) (Katharopoulos et al. 2020, eq. 4–7): in its
  parallel form V'_i = φ(q_i)ᵀ Σ_{j≤i} φ(k_j)v_jᵀ / φ(q_i)ᵀ Σ_{j≤i} φ(k_j), with the masked n × n matrix
  φ(Q)φ(K)ᵀ (how it trains), and in its recurrent form S_t = S_{t−1} + φ(k_t)v_tᵀ, z_t = z_{t−1} + φ(k_t)
  (§3.4: a d × d state per head whatever the length; how it generates).

Both are trained by the lab's one loop (:func:`models.training.loop.fit`) on the same batches of the World
English Bible (word level, :mod:`corpora.lm_data`'s split by chapter) for the same steps, and compared on
held-out perplexity (:func:`train_pair`); :func:`measure_lengths` times them against length. Small models
trained here in a few minutes of CPU: the comparison is of these models, not of the methods at scale.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any, cast

import numpy as np
import torch
from torch import Tensor, nn

from models.inference.traces import Trace
from models.nn.positional import sinusoid_at

ATTENTIONS = ("softmax", "linear")
EPS = 1e-6  # added to linear attention's normaliser φ(q)ᵀz, in both forms


@dataclass(frozen=True)
class TinyLMConfig:
    """Sizes of the small decoder LM and its ``attention``: "softmax" or "linear"."""

    vocab_size: int
    attention: str = "softmax"
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 256
    context: int = 64  # the training sequence length

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads


def feature_map(x: Tensor) -> Tensor:
    """φ(x) = elu(x) + 1 > 0 (Katharopoulos et al. 2020, eq. 7)."""
    return torch.nn.functional.elu(x) + 1


class Attention(nn.Module):
    """Causal multi-head self-attention, softmax or linear, with a parallel form (``forward``, the whole
    sequence at once) and a recurrent form (``step``, one token against a state: the KV cache for softmax,
    S and z for linear)."""

    def __init__(self, c: TinyLMConfig) -> None:
        super().__init__()
        if c.attention not in ATTENTIONS:
            raise ValueError(f"attention {c.attention!r} is not one of {ATTENTIONS}")
        self.attention, self.h, self.dh = c.attention, c.n_heads, c.d_head
        self.qkv = nn.Linear(c.d_model, 3 * c.d_model)
        self.out = nn.Linear(c.d_model, c.d_model)

    def _heads(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        b, n, _ = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
        return q, k, v  # each (b, h, n, dh)

    def forward(self, x: Tensor) -> Tensor:
        q, k, v = self._heads(x)
        n = x.shape[1]
        causal = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()
        if self.attention == "softmax":
            s = (q @ k.transpose(-1, -2)) / math.sqrt(self.dh)
            o = torch.softmax(s.masked_fill(~causal, float("-inf")), dim=-1) @ v
        else:
            a = (feature_map(q) @ feature_map(k).transpose(-1, -2)) * causal
            o = (a @ v) / (a.sum(-1, keepdim=True) + EPS)
        return self.out(o.transpose(1, 2).reshape(x.shape))

    def forward_chunked(self, x: Tensor, chunk: int = 64) -> Tensor:
        """Linear attention's recurrent form a chunk at a time (the state carried between chunks, the parallel
        form inside each): O(n) time and O(chunk² + d²) memory per head; the same output as ``forward``."""
        if self.attention != "linear":
            raise ValueError("only linear attention has a chunked recurrent form")
        q, k, v = self._heads(x)
        fq, fk = feature_map(q), feature_map(k)
        b, n = x.shape[:2]
        s = x.new_zeros(b, self.h, self.dh, self.dh)
        z = x.new_zeros(b, self.h, self.dh)
        outs = []
        for c0 in range(0, n, chunk):
            c1 = min(n, c0 + chunk)
            qc, kc, vc = fq[:, :, c0:c1], fk[:, :, c0:c1], v[:, :, c0:c1]
            a = (qc @ kc.transpose(-1, -2)).tril()
            num = qc @ s + a @ vc
            den = (qc @ z.unsqueeze(-1)).squeeze(-1) + a.sum(-1)
            outs.append(num / (den.unsqueeze(-1) + EPS))
            s = s + kc.transpose(-1, -2) @ vc
            z = z + kc.sum(2)
        o = torch.cat(outs, dim=2)
        return self.out(o.transpose(1, 2).reshape(x.shape))

    def empty_state(self, batch: int, device: torch.device) -> dict[str, Tensor]:
        if self.attention == "softmax":
            return {
                "k": torch.zeros(batch, self.h, 0, self.dh, device=device),
                "v": torch.zeros(batch, self.h, 0, self.dh, device=device),
            }
        return {
            "s": torch.zeros(batch, self.h, self.dh, self.dh, device=device),
            "z": torch.zeros(batch, self.h, self.dh, device=device),
        }

    def step(self, x: Tensor, state: dict[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        """One token x (b, 1, d) against ``state``: softmax appends k, v to its cache and attends over it;
        linear updates S_t = S_{t−1} + φ(k_t)v_tᵀ, z_t = z_{t−1} + φ(k_t) and reads φ(q_t)ᵀS_t / φ(q_t)ᵀz_t."""
        q, k, v = self._heads(x)
        if self.attention == "softmax":
            keys, values = torch.cat([state["k"], k], 2), torch.cat([state["v"], v], 2)
            o = torch.softmax((q @ keys.transpose(-1, -2)) / math.sqrt(self.dh), dim=-1) @ values
            new = {"k": keys, "v": values}
        else:
            fq, fk = feature_map(q), feature_map(k)
            s = state["s"] + fk.transpose(-1, -2) @ v
            z = state["z"] + fk[:, :, 0]
            o = (fq @ s) / ((fq[:, :, 0] * z).sum(-1)[..., None, None] + EPS)
            new = {"s": s, "z": z}
        return self.out(o.transpose(1, 2).reshape(x.shape)), new


class Block(nn.Module):
    def __init__(self, c: TinyLMConfig) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(c.d_model), nn.LayerNorm(c.d_model)
        self.attn = Attention(c)
        self.ff = nn.Sequential(nn.Linear(c.d_model, c.d_ff), nn.GELU(), nn.Linear(c.d_ff, c.d_model))

    def forward(self, x: Tensor, chunked: bool = False) -> Tensor:
        h = self.norm1(x)
        x = x + (self.attn.forward_chunked(h) if chunked else self.attn(h))
        return x + self.ff(self.norm2(x))

    def step(self, x: Tensor, state: dict[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        a, state = self.attn.step(self.norm1(x), state)
        x = x + a
        return x + self.ff(self.norm2(x)), state


class TinyLM(nn.Module):
    """The small decoder LM: embedding × √d + sinusoidal positions (any length), blocks, final norm, tied output."""

    def __init__(self, c: TinyLMConfig) -> None:
        super().__init__()
        self.config = c
        self.embed = nn.Embedding(c.vocab_size, c.d_model)
        self.blocks = nn.ModuleList(Block(c) for _ in range(c.n_layers))
        self.norm = nn.LayerNorm(c.d_model)
        nn.init.normal_(self.embed.weight, std=c.d_model**-0.5)  # unit-size inputs after × √d; logits ~ 1

    @property
    def layers(self) -> list[Block]:
        """The blocks, typed."""
        return [cast(Block, b) for b in self.blocks]

    def _inputs(self, ids: Tensor, start: int = 0) -> Tensor:
        pos = sinusoid_at(torch.arange(start, start + ids.shape[1]), self.config.d_model).to(ids.device)
        return self.embed(ids) * math.sqrt(self.config.d_model) + pos

    def _logits(self, x: Tensor) -> Tensor:
        return self.norm(x) @ self.embed.weight.T

    def forward(self, ids: Tensor, chunked: bool = False) -> Tensor:
        """Logits (b, n, vocab) of every position: the parallel form (``chunked``: linear attention's recurrent
        form a chunk at a time)."""
        x = self._inputs(ids)
        for block in self.layers:
            x = block(x, chunked)
        return self._logits(x)

    def empty_state(self, batch: int = 1) -> list[dict[str, Tensor]]:
        device = self.embed.weight.device
        return [block.attn.empty_state(batch, device) for block in self.layers]

    def step(
        self, ids: Tensor, position: int, state: list[dict[str, Tensor]]
    ) -> tuple[Tensor, list[dict[str, Tensor]]]:
        """The recurrent form: logits (b, vocab) of one token (b,) at ``position`` and the updated state."""
        x = self._inputs(ids[:, None], position)
        new = []
        for block, layer_state in zip(self.layers, state):
            x, layer_state = block.step(x, layer_state)
            new.append(layer_state)
        return self._logits(x)[:, 0], new

    def recurrent_logits(self, ids: Tensor) -> Tensor:
        """Logits (b, n, vocab) computed one token at a time through :meth:`step` (generation's path)."""
        state = self.empty_state(ids.shape[0])
        out = []
        for t in range(ids.shape[1]):
            logits, state = self.step(ids[:, t], t, state)
            out.append(logits)
        return torch.stack(out, dim=1)


def state_bytes(state: list[dict[str, Tensor]]) -> int:
    """Bytes the recurrent state holds: the KV cache (grows with the tokens seen) or S and z (fixed)."""
    return sum(t.numel() * t.element_size() for layer in state for t in layer.values())


# --------------------------------------------------------------------------------------
# Data and training
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """Word-level World English Bible streams (``<s> verse </s>``, ids), train and held out (by chapter)."""

    vocab: list[str]
    train: np.ndarray
    heldout: np.ndarray


def bible_corpus(vocab_cap: int = 2000) -> Corpus:
    """The lab's LM text (:mod:`corpora.lm_data`): the most frequent ``vocab_cap`` training words."""
    from corpora.lm_data import build_vocab, load_verses, split_verses, verse_stream

    split = split_verses(load_verses())
    vocab = build_vocab(split["train"], vocab_cap)
    return Corpus(
        list(vocab.itos),
        np.asarray(verse_stream(split["train"], vocab), dtype=np.int64),
        np.asarray(verse_stream(split["heldout"], vocab), dtype=np.int64),
    )


def batch(stream: np.ndarray, step: int, batch_size: int, context: int, seed: int) -> Tensor:
    """``batch_size`` windows of ``context`` + 1 tokens at random places of ``stream``, a function of the step
    (so both models read the very same batches)."""
    rng = np.random.default_rng([seed, step])
    starts = rng.integers(0, len(stream) - context - 1, batch_size)
    return torch.from_numpy(np.stack([stream[s : s + context + 1] for s in starts]))


def heldout_perplexity(model: TinyLM, stream: np.ndarray, context: int, windows: int = 200) -> float:
    """exp(mean NLL) over the first ``windows`` non-overlapping windows of ``context`` + 1 held-out tokens."""
    n = min(windows, (len(stream) - 1) // (context + 1))
    data = torch.from_numpy(stream[: n * (context + 1)].reshape(n, context + 1))
    total, count = 0.0, 0
    model.eval()
    with torch.inference_mode():
        for chunk in data.split(50):
            logits = model(chunk[:, :-1])
            nll = nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), chunk[:, 1:].reshape(-1), reduction="sum"
            )
            total, count = total + float(nll), count + chunk[:, 1:].numel()
    return math.exp(total / count)


@dataclass
class TrainedPair(Trace):
    """Both models' sizes, the shared settings, each one's held-out perplexity, final training loss and
    training seconds (on ``device``), and the training losses every ``every`` steps."""

    kinds: list[str]
    config: dict[str, Any]
    settings: dict[str, Any]
    parameters: int
    heldout_ppl: list[float]
    final_loss: list[float]
    seconds: list[float]
    device: str
    every: int = 10
    losses: list[list[float]] = field(default_factory=list)


def train_one(
    attention: str,
    corpus: Corpus,
    steps: int,
    batch_size: int = 32,
    lr: float = 3e-3,
    seed: int = 0,
    config: TinyLMConfig | None = None,
) -> tuple[TinyLM, dict[str, Any], list[float]]:
    """One model trained by the lab's loop; returns (model, fit's statistics, every step's loss)."""
    from models.training.loop import TrainSettings, fit

    c = config or TinyLMConfig(len(corpus.vocab))
    c = replace(c, attention=attention)
    torch.manual_seed(seed)
    model = TinyLM(c)
    settings = TrainSettings(steps=steps, batch_size=batch_size, lr=lr, warmup=max(1, steps // 10), seed=seed)
    losses: list[float] = []

    def loss_of_batch(step: int) -> tuple[Tensor, int]:
        b = batch(corpus.train, step, batch_size, c.context, seed)
        logits = model(b[:, :-1])
        return nn.functional.cross_entropy(logits.reshape(-1, c.vocab_size), b[:, 1:].reshape(-1)), b[:, 1:].numel()

    stats = fit(model, loss_of_batch, settings, callbacks=[lambda p: losses.append(p.loss)])
    return model, stats, losses


def train_pair(
    steps: int = 600, batch_size: int = 32, seed: int = 0, vocab_cap: int = 2000, every: int = 10
) -> tuple[dict[str, TinyLM], TrainedPair]:
    """Softmax and linear attention, the same sizes, the same batches, the same steps and seed."""
    corpus = bible_corpus(vocab_cap)
    models, ppl, final, seconds, curves = {}, [], [], [], []
    stats: dict[str, Any] = {}
    for attention in ATTENTIONS:
        start = time.perf_counter()
        model, stats, losses = train_one(attention, corpus, steps, batch_size, seed=seed)
        seconds.append(time.perf_counter() - start)
        models[attention] = model
        ppl.append(heldout_perplexity(model, corpus.heldout, model.config.context))
        final.append(float(np.mean(losses[-50:])))
        curves.append([float(np.mean(losses[i : i + every])) for i in range(0, len(losses), every)])
    c = models["softmax"].config
    return models, TrainedPair(
        list(ATTENTIONS),
        {k: v for k, v in asdict(c).items() if k != "attention"},
        {"steps": steps, "batch_size": batch_size, "seed": seed, "lr": 3e-3, "vocab_cap": vocab_cap},
        sum(p.numel() for p in models["softmax"].parameters()),
        ppl,
        final,
        seconds,
        str(stats.get("device", "cpu")),
        every,
        curves,
    )


# --------------------------------------------------------------------------------------
# Time and memory against length
# --------------------------------------------------------------------------------------


@dataclass
class LengthCost(Trace):
    """Per length n: the seconds of one whole-sequence forward pass (softmax: parallel, n × n; linear:
    recurrent form in chunks) and of one generation step after n tokens (the mean of :data:`STEPS` steps;
    softmax: against its KV cache;
    linear: its S, z), and the bytes each one's state holds after n tokens (KV cache, or S and z)."""

    lengths: list[int]
    forward_seconds: dict[str, list[float]]
    step_seconds: dict[str, list[float]]
    state_bytes: dict[str, list[int]]
    repeats: int
    threads: int


STEPS = 16  # generation steps timed together (one step is about a millisecond)


def measure_lengths(
    models: dict[str, TinyLM],
    lengths: tuple[int, ...] = (128, 256, 512, 1024, 2048, 4096),
    repeats: int = 3,
    seed: int = 0,
) -> LengthCost:
    """Time (the fastest of ``repeats``) and state size of both models against length, on random tokens; state sizes
    after reading n tokens (before the timed steps)."""
    gen = torch.Generator().manual_seed(seed)
    fwd: dict[str, list[float]] = {k: [] for k in models}
    step: dict[str, list[float]] = {k: [] for k in models}
    held: dict[str, list[int]] = {k: [] for k in models}
    with torch.inference_mode():
        for n in lengths:
            for attention, model in models.items():
                model.eval()
                ids = torch.randint(0, model.config.vocab_size, (1, n + 1), generator=gen)
                chunked = attention == "linear"
                times = []
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    model(ids[:, :n], chunked=chunked)
                    times.append(time.perf_counter() - t0)
                fwd[attention].append(min(times))
                state = prefill(model, ids[:, :n])
                held[attention].append(state_bytes(state))
                times = []
                for _ in range(repeats):  # STEPS steps from the same state (n … n + STEPS − 1 tokens before)
                    now, t0 = state, time.perf_counter()
                    for i in range(STEPS):
                        _, now = model.step(ids[:, n], n + i, now)
                    times.append((time.perf_counter() - t0) / STEPS)
                step[attention].append(min(times))
    return LengthCost(list(lengths), fwd, step, held, repeats, torch.get_num_threads())


def prefill(model: TinyLM, ids: Tensor) -> list[dict[str, Tensor]]:
    """The state after reading ``ids``, built from the parallel pass's keys and values (softmax: the KV cache) or
    their sums (linear: S = Σ φ(k)vᵀ, z = Σ φ(k)), layer by layer."""
    x = model._inputs(ids)
    state = []
    for block in model.layers:
        h = block.norm1(x)
        _, k, v = block.attn._heads(h)
        if block.attn.attention == "softmax":
            state.append({"k": k, "v": v})
        else:
            fk = feature_map(k)
            state.append({"s": fk.transpose(-1, -2) @ v, "z": fk.sum(2)})
        x = x + block.attn(h)
        x = x + block.ff(block.norm2(x))
    return state
