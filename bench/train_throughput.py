"""Batched training against the classic one-sentence, one-time-step-at-a-time loop.

`python -m bench.train_throughput` trains the same Bahdanau model (same weights at the start,
same data) both ways for a fixed time each and prints target tokens per second and the ratio.
The reference reads the source one token at a time through GRU cells (both directions), decodes
one step at a time with batch size 1, and takes an optimizer step per sentence, as the classic
PyTorch tutorial does.
"""

from __future__ import annotations

import argparse
import copy
import random
import time

import torch
from torch import Tensor, nn

from models.training.presets import PRESETS
from models.nn.rnn_seq2seq import Seq2Seq, Seq2SeqConfig
from models.training.seq2seq import EncodedPair, build_vocabs, collate, encode_pairs, pair_batches, sequence_loss
from models.text.vocab import SOS_ID


def gru_cell(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor, b_hh: Tensor) -> Tensor:
    """r = σ(W_ir x + W_hr h), z = σ(W_iz x + W_hz h), n = tanh(W_in x + r ⊙ (W_hn h)), h' = (1 − z) n + z h."""
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    i_r, i_z, i_n = gi.chunk(3, -1)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h


def encode_one_token_at_a_time(model: Seq2Seq, src: list[int]):
    """The encoder run token by token (both directions) for one sentence: the model's memory."""
    enc = model.encoder
    emb = enc.dropout(enc.embedding(torch.tensor(src)))
    rnn = enc.rnn
    directions = [("", range(len(src)))] + ([("_reverse", range(len(src) - 1, -1, -1))] if rnn.bidirectional else [])
    outputs, finals = [], []
    for suffix, order in directions:
        weights = [getattr(rnn, f"{n}_l0{suffix}") for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        h = torch.zeros(rnn.hidden_size)
        states = [None] * len(src)
        for i in order:
            h = gru_cell(emb[i], h, *weights)
            states[i] = h
        outputs.append(torch.stack(states))
        finals.append(h)
    states = torch.cat(outputs, -1).unsqueeze(0)
    final = torch.tanh(enc.bridge(torch.cat(finals, -1))).unsqueeze(0)
    mask = torch.ones(1, len(src), dtype=torch.bool)
    return model.decoder.memory(states, mask, final)


def reference_step(model: Seq2Seq, optimizer, pair: EncodedPair) -> int:
    """One sentence, one time step at a time; returns its number of target tokens."""
    memory = encode_one_token_at_a_time(model, pair.src)
    state = model.decoder.initial_state(memory)
    y_prev = torch.tensor([SOS_ID])
    loss = torch.zeros(())
    for target in pair.tgt:
        logits, state, _ = model.decoder.step(y_prev, state, memory)
        loss = loss + nn.functional.cross_entropy(logits, torch.tensor([target]))
        y_prev = torch.tensor([target])
    optimizer.zero_grad()
    (loss / len(pair.tgt)).backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return len(pair.tgt)


def batched_step(model: Seq2Seq, optimizer, items: list[EncodedPair]) -> int:
    batch = collate(items, torch.device("cpu"))
    logits, _ = model(batch.src, batch.lengths, batch.tgt_in)
    loss = sequence_loss(logits, batch.tgt_out)
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return batch.n_tokens


def rate(fn, items, seconds: float) -> float:
    """Target tokens per second of ``fn`` over ``items`` for about ``seconds``."""
    tokens, start = 0, time.perf_counter()
    for item in items:
        tokens += fn(item)
        if time.perf_counter() - start > seconds:
            break
    return tokens / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="time for each of the two loops")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    from corpora.en_fr import make_splits

    preset = PRESETS["s2s-bahdanau"]
    pairs = [(p.src, p.tgt) for p in make_splits()["train"][:20000]]
    src_vocab, tgt_vocab = build_vocabs(pairs)
    cfg = Seq2SeqConfig(**preset.model, src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab))
    data = encode_pairs(pairs, src_vocab, tgt_vocab, cfg)
    torch.manual_seed(0)
    batched_model = Seq2Seq(cfg).train()
    reference_model = copy.deepcopy(batched_model)
    stream = pair_batches(data, args.batch_size, random.Random(0))
    batches = [next(stream) for _ in range(-(-len(data) // args.batch_size))]
    opt_b = torch.optim.Adam(batched_model.parameters(), lr=preset.train.lr)
    fast = rate(lambda b: batched_step(batched_model, opt_b, b), batches, args.seconds)
    opt_r = torch.optim.Adam(reference_model.parameters(), lr=preset.train.lr)
    slow = rate(lambda p: reference_step(reference_model, opt_r, p), data, args.seconds)
    print(
        f"model: {preset.label}, {sum(p.numel() for p in batched_model.parameters()):,} parameters, "
        f"{args.threads} torch thread(s)"
    )
    print(f"batched (batch {args.batch_size}, padded, masked): {fast:10.0f} target tokens/s")
    print(f"reference (1 sentence, 1 step at a time):   {slow:10.0f} target tokens/s")
    print(f"ratio: {fast / slow:.1f}x")


if __name__ == "__main__":
    main()
