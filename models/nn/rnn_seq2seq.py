"""RNN encoder–decoder translation models, written from the papers' formulas.

- No attention (Cho et al. 2014): the encoder's final state is the only link; it sets s_0 and
  is fed to every decoder step as a fixed context.
- Bahdanau et al. (2014): e_{t,i} = vᵀ tanh(W s_{t-1} + U h_i) is computed from the
  *previous* decoder state; the context c_t is fed into the GRU that produces s_t.
- Luong et al. (2015): the GRU first produces s_t; scores come from s_t (dot, general
  s_tᵀ W h_i, or concat vᵀ tanh(W [s_t; h_i])); the attentional state
  h̃_t = tanh(W_c [c_t; s_t]) predicts y_t and is fed to the next step (input feeding).
  Global attention weighs every source position; local-m weighs a window of half-width D around
  p_t = t, local-p a window around a predicted p_t with a Gaussian (§3.2, Eqs. 7, 9, 10).
- Uniform (Wiegreffe & Pinter 2019, §3.1): Bahdanau's decoder with its weights frozen to
  α_{t,i} = 1/S over the S source words, so c_t is their mean: the baseline that shows whether
  learned attention mattered to a task.

How ours differs from the papers: GRUs instead of Luong's stacked LSTMs on a reversed source;
a bidirectional encoder for both; s_0 = tanh(W [h→_S; h←_1]) from both directions; Bahdanau's
readout is tanh(W [s_t; c_t; y_{t-1}]) where the paper uses a maxout layer.

Every decoder shares one ``step`` interface so that training, greedy and beam search reuse it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch
from torch import Tensor, nn

from models.nn.config import JsonConfig
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from models.nn.attention import (
    additive_score_projected,
    attend,
    dot_score,
    hard_weights,
    local_m_weights,
    local_p_weights,
    masked_softmax,
    predictive_position,
)
from models.text.vocab import PAD_ID

#: The decoder's attention (Bahdanau et al. 2015, Luong et al. 2015; uniform: Wiegreffe & Pinter 2019).
ATTENTIONS = ("none", "bahdanau", "luong", "uniform")
LUONG_SCORES = ("dot", "general", "concat")
LUONG_ALIGNMENTS = ("global", "local-m", "local-p")


@dataclass
class Seq2SeqConfig(JsonConfig):
    """Architecture of an encoder–decoder; stored as JSON beside the weights (unknown keys are dropped)."""

    IGNORE_UNKNOWN = True

    attention: str = "bahdanau"  # none | bahdanau | luong | uniform
    score: str = "general"  # Luong score: dot | general | concat (ignored otherwise)
    src_vocab_size: int = 0
    tgt_vocab_size: int = 0
    emb_dim: int = 64
    hidden_dim: int = 64  # per encoder direction
    bidirectional: bool = True
    attn_dim: int = 64
    dropout: float = 0.1
    input_feeding: bool = True
    max_src_len: int = 48
    max_tgt_len: int = 64
    alignment: str = "global"  # Luong: global | local-m | local-p (§3.2)
    window: int = 3  # D, the half-width of a local window [p_t − D, p_t + D]

    def __post_init__(self) -> None:
        if self.attention not in ATTENTIONS:
            raise ValueError(f"attention must be one of {ATTENTIONS}, not {self.attention!r}")
        if self.attention == "luong" and self.score not in LUONG_SCORES:
            raise ValueError(f"Luong score must be one of {LUONG_SCORES}, not {self.score!r}")
        if self.alignment not in LUONG_ALIGNMENTS or (self.alignment != "global" and self.attention != "luong"):
            raise ValueError(f"alignment must be one of {LUONG_ALIGNMENTS} (local ones for Luong models only)")

    @property
    def enc_dim(self) -> int:
        return self.hidden_dim * (2 if self.bidirectional else 1)

    @property
    def attention_variant(self) -> str:
        """'none', 'bahdanau', 'uniform', 'luong-dot' / 'luong-general' / 'luong-concat', or with a local
        alignment 'luong-general-local-m' / 'luong-general-local-p'."""
        if self.attention != "luong":
            return self.attention
        return f"luong-{self.score}" + ("" if self.alignment == "global" else f"-{self.alignment}")


@dataclass(frozen=True)
class AttentionMode:
    """How the weights are used at decoding time (``weighting``): ``soft`` as the model was trained; ``hard``
    a decoding-time variant (not trained so), one-hot at the argmax of the model's weights, so
    the context is a single encoder state (Xu et al. 2015 train hard attention with REINFORCE)."""

    weighting: str = "soft"  # soft | hard

    def apply(self, weights: Tensor) -> Tensor:
        return hard_weights(weights) if self.weighting == "hard" else weights


SOFT = AttentionMode()


@dataclass
class Memory:
    """What the decoder reads from the encoder: states h_i, their mask, pre-projected keys."""

    states: Tensor  # (B, S, enc_dim)
    mask: Tensor  # (B, S) True for real tokens
    keys: Tensor | None  # (B, S, ·) keys projected once per sentence, or None
    final: Tensor  # (B, dec_dim) bridged final encoder state

    def index_select(self, index: Tensor) -> Memory:
        """Rows ``index`` of every tensor (to expand or reorder beams)."""

        def pick(t: Tensor) -> Tensor:
            return t.index_select(0, index)

        return Memory(
            pick(self.states), pick(self.mask), None if self.keys is None else pick(self.keys), pick(self.final)
        )


@dataclass
class DecoderState:
    hidden: Tensor  # s_t (B, dec_dim)
    feed: Tensor | None  # Luong input feeding h̃_t (B, dec_dim), else None
    step: int = 0
    position: Tensor | None = None  # p_t (B,) of the last local-attention step, else None

    def index_select(self, index: Tensor) -> DecoderState:
        pick = lambda t: None if t is None else t.index_select(0, index)  # noqa: E731
        return DecoderState(self.hidden.index_select(0, index), pick(self.feed), self.step, pick(self.position))


class Encoder(nn.Module):
    """Embedding → GRU (optionally bidirectional) over the padded batch; h_i = [h→_i; h←_i]."""

    def __init__(self, cfg: Seq2SeqConfig) -> None:
        super().__init__()
        self.embedding = nn.Embedding(cfg.src_vocab_size, cfg.emb_dim, padding_idx=PAD_ID)
        self.rnn = nn.GRU(cfg.emb_dim, cfg.hidden_dim, batch_first=True, bidirectional=cfg.bidirectional)
        self.dropout = nn.Dropout(cfg.dropout)
        self.bridge = nn.Linear(cfg.enc_dim, cfg.enc_dim)

    def forward(self, src: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """(B, S) ids and (B,) lengths → states (B, S, enc_dim), mask (B, S), s_0 = tanh(W h_final)."""
        emb = self.dropout(self.embedding(src))
        packed = pack_padded_sequence(emb, lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, h_n = self.rnn(packed)
        states, _ = pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        final = torch.cat([h_n[-2], h_n[-1]], dim=-1) if self.rnn.bidirectional else h_n[-1]
        mask = torch.arange(src.shape[1], device=src.device).unsqueeze(0) < lengths.to(src.device).unsqueeze(1)
        return states, mask, torch.tanh(self.bridge(final))


class Decoder(nn.Module):
    """Shared parts of every decoder: target embedding, dropout and the step interface."""

    def __init__(self, cfg: Seq2SeqConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embedding = nn.Embedding(cfg.tgt_vocab_size, cfg.emb_dim, padding_idx=PAD_ID)
        self.dropout = nn.Dropout(cfg.dropout)

    def memory(self, states: Tensor, mask: Tensor, final: Tensor) -> Memory:
        return Memory(states, mask, self.project_keys(states), final)

    def project_keys(self, states: Tensor) -> Tensor | None:
        return None

    def initial_state(self, memory: Memory) -> DecoderState:
        return DecoderState(memory.final, None)

    def step(
        self, y_prev: Tensor, state: DecoderState, memory: Memory, mode: AttentionMode = SOFT
    ) -> tuple[Tensor, DecoderState, Tensor | None]:
        """One decoding step: (B,) previous tokens → logits (B, V), new state, α_t (B, S) or None."""
        raise NotImplementedError


class PlainDecoder(Decoder):
    """No attention: s_t = GRU([y_{t-1}; c], s_{t-1}) with the fixed c = s_0 from the encoder."""

    def __init__(self, cfg: Seq2SeqConfig) -> None:
        super().__init__(cfg)
        d = cfg.enc_dim
        self.rnn = nn.GRUCell(cfg.emb_dim + d, d)
        self.readout = nn.Linear(2 * d + cfg.emb_dim, d)
        self.out = nn.Linear(d, cfg.tgt_vocab_size)

    def step(self, y_prev, state, memory, mode=SOFT):
        emb = self.dropout(self.embedding(y_prev))
        context = memory.final
        hidden = self.rnn(torch.cat([emb, context], dim=-1), state.hidden)
        readout = torch.tanh(self.readout(torch.cat([hidden, context, emb], dim=-1)))
        return self.out(self.dropout(readout)), DecoderState(hidden, None, state.step + 1), None


class BahdanauDecoder(Decoder):
    """Bahdanau: e_{t,i} = vᵀ tanh(W s_{t-1} + U h_i), α = softmax(e), c_t = Σ α h_i,
    s_t = GRU([y_{t-1}; c_t], s_{t-1}), p(y_t) from [s_t; c_t; y_{t-1}]."""

    def __init__(self, cfg: Seq2SeqConfig) -> None:
        super().__init__(cfg)
        d = cfg.enc_dim
        self.init_scores(cfg)
        self.rnn = nn.GRUCell(cfg.emb_dim + d, d)
        self.readout = nn.Linear(2 * d + cfg.emb_dim, d)
        self.out = nn.Linear(d, cfg.tgt_vocab_size)

    def init_scores(self, cfg: Seq2SeqConfig) -> None:
        """The parameters of e_{t,i}: W, U (with the bias of the sum) and v."""
        self.w_query = nn.Linear(cfg.enc_dim, cfg.attn_dim, bias=False)  # W
        self.w_key = nn.Linear(cfg.enc_dim, cfg.attn_dim, bias=True)  # U
        self.v = nn.Parameter(torch.empty(cfg.attn_dim).uniform_(-0.1, 0.1))

    def project_keys(self, states):
        return self.w_key(states)

    def weights(self, state: DecoderState, memory: Memory) -> Tensor:
        """α_t = softmax_i vᵀ tanh(W s_{t-1} + U h_i) over the real source positions."""
        if memory.keys is None:
            raise ValueError("Bahdanau's score reads keys projected by project_keys; the memory has none")
        return masked_softmax(additive_score_projected(self.w_query(state.hidden), memory.keys, self.v), memory.mask)

    def step(self, y_prev, state, memory, mode=SOFT):
        emb = self.dropout(self.embedding(y_prev))
        alpha = mode.apply(self.weights(state, memory))
        context = attend(alpha, memory.states)
        hidden = self.rnn(torch.cat([emb, context], dim=-1), state.hidden)
        readout = torch.tanh(self.readout(torch.cat([hidden, context, emb], dim=-1)))
        return self.out(self.dropout(readout)), DecoderState(hidden, None, state.step + 1), alpha


class UniformDecoder(BahdanauDecoder):
    """Bahdanau's decoder with α frozen uniform (Wiegreffe & Pinter 2019, §3.1): α_{t,i} = 1/S over
    the S real source positions, so c_t = (1/S) Σ h_i; nothing scores the source."""

    def init_scores(self, cfg: Seq2SeqConfig) -> None:
        pass

    def project_keys(self, states):
        return None

    def weights(self, state: DecoderState, memory: Memory) -> Tensor:
        real = memory.mask.to(memory.states.dtype)
        return real / real.sum(dim=1, keepdim=True)


class LuongDecoder(Decoder):
    """Luong: s_t = GRU([y_{t-1}; h̃_{t-1}], s_{t-1}); e_{t,i} = score(s_t, h_i); c_t = Σ α h_i;
    h̃_t = tanh(W_c [c_t; s_t]); p(y_t) = softmax(W_s h̃_t).

    score: dot s_tᵀh_i; general s_tᵀ W h_i (keys W h_i projected once); concat vᵀ tanh(W [s_t; h_i]).
    """

    def __init__(self, cfg: Seq2SeqConfig) -> None:
        super().__init__(cfg)
        d = cfg.enc_dim
        self.rnn = nn.GRUCell(cfg.emb_dim + (d if cfg.input_feeding else 0), d)
        if cfg.score == "general":
            self.w_general = nn.Linear(d, d, bias=False)  # W in s_tᵀ W h_i
        elif cfg.score == "concat":
            self.w_concat = nn.Linear(2 * d, cfg.attn_dim, bias=False)  # W in vᵀ tanh(W [s_t; h_i])
            self.v = nn.Parameter(torch.empty(cfg.attn_dim).uniform_(-0.1, 0.1))
        if cfg.alignment == "local-p":
            self.w_p = nn.Linear(d, cfg.attn_dim, bias=False)  # W_p in p_t = S·sigmoid(v_pᵀ tanh(W_p h_t))
            self.v_p = nn.Parameter(torch.empty(cfg.attn_dim).uniform_(-0.1, 0.1))
        self.w_c = nn.Linear(2 * d, d, bias=False)
        self.out = nn.Linear(d, cfg.tgt_vocab_size)

    def project_keys(self, states):
        if self.cfg.score == "general":
            return self.w_general(states)
        if self.cfg.score == "concat":
            return states @ self.w_concat.weight[:, states.shape[-1] :].T
        return None

    def score(self, query: Tensor, memory: Memory) -> Tensor:
        if self.cfg.score == "dot":
            return dot_score(query, memory.states)
        if memory.keys is None:
            raise ValueError(f"the {self.cfg.score} score reads keys projected by project_keys; the memory has none")
        if self.cfg.score == "general":
            return dot_score(query, memory.keys)
        q_proj = query @ self.w_concat.weight[:, : query.shape[-1]].T
        return additive_score_projected(q_proj, memory.keys, self.v)

    def initial_state(self, memory):
        feed = torch.zeros_like(memory.final) if self.cfg.input_feeding else None
        return DecoderState(memory.final, feed)

    def align(self, hidden: Tensor, memory: Memory, step: int) -> tuple[Tensor, Tensor | None]:
        """a_t over the source and, for local attention, the aligned position p_t (B,).

        global: softmax over every position (Eq. 7). local-m: p_t = t, clamped to the last
        source position (monotonic alignment). local-p: p_t = S·sigmoid(v_pᵀ tanh(W_p h_t)) (Eq. 9)."""
        scores = self.score(hidden, memory)
        if self.cfg.alignment == "global":
            return masked_softmax(scores, memory.mask), None
        src_len = memory.mask.sum(dim=1)
        if self.cfg.alignment == "local-m":
            position = torch.clamp(torch.full_like(src_len, step), max=src_len - 1).to(scores.dtype)
            return local_m_weights(scores, memory.mask, position, self.cfg.window), position
        position = predictive_position(hidden, self.w_p.weight, self.v_p, src_len)
        return local_p_weights(scores, memory.mask, position, self.cfg.window), position

    def step(self, y_prev, state, memory, mode=SOFT):
        emb = self.dropout(self.embedding(y_prev))
        rnn_in = torch.cat([emb, state.feed], dim=-1) if state.feed is not None else emb
        hidden = self.rnn(rnn_in, state.hidden)
        weights, position = self.align(hidden, memory, state.step)
        alpha = mode.apply(weights)
        context = attend(alpha, memory.states)
        attentional = torch.tanh(self.w_c(torch.cat([context, hidden], dim=-1)))
        feed = attentional if self.cfg.input_feeding else None
        return self.out(self.dropout(attentional)), DecoderState(hidden, feed, state.step + 1, position), alpha


DECODERS: dict[str, type[Decoder]] = {
    "none": PlainDecoder,
    "bahdanau": BahdanauDecoder,
    "luong": LuongDecoder,
    "uniform": UniformDecoder,
}


class Seq2Seq(nn.Module):
    """Encoder plus the decoder named by ``cfg.attention``."""

    def __init__(self, cfg: Seq2SeqConfig) -> None:
        super().__init__()
        self.cfg = replace(cfg)
        self.encoder = Encoder(cfg)
        self.decoder = DECODERS[cfg.attention](cfg)

    def encode(self, src: Tensor, lengths: Tensor) -> Memory:
        states, mask, final = self.encoder(src, lengths)
        return self.decoder.memory(states, mask, final)

    def forward(
        self, src: Tensor, lengths: Tensor, tgt_in: Tensor, teacher_forcing: float = 1.0
    ) -> tuple[Tensor, Tensor | None]:
        """Logits (B, T, V) for target inputs ``tgt_in`` (<s> y_1 … y_{T-1}) and α (B, T, S) or None.

        With probability ``teacher_forcing`` per step the gold y_{t-1} is fed, else the model's own
        previous argmax (scheduled sampling, one coin per step for the whole batch).
        """
        memory = self.encode(src, lengths)
        state = self.decoder.initial_state(memory)
        logits: list[Tensor] = []
        alphas: list[Tensor] = []
        y_prev = tgt_in[:, 0]
        for t in range(tgt_in.shape[1]):
            if t > 0:
                use_gold = teacher_forcing >= 1.0 or torch.rand(()).item() < teacher_forcing
                y_prev = tgt_in[:, t] if use_gold else logits[-1].argmax(-1)
            step_logits, state, alpha = self.decoder.step(y_prev, state, memory)
            logits.append(step_logits)
            if alpha is not None:
                alphas.append(alpha)
        return torch.stack(logits, dim=1), (torch.stack(alphas, dim=1) if alphas else None)
