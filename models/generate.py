"""Generate text with the decoder-only language model and return the per-step trace.

`python -m models.generate --model tf-lm [--temperature T] [--top-k K] [--max-new N] [--seed S] [--json] "prompt"`

The prompt is tokenized like the training text (lowercase words and punctuation), cut to the
model's context, and preceded by ``<s>`` (the start of a verse). Each step samples the next
token from softmax(logits / T) restricted to the k most probable tokens (T = 0 or k = 1:
greedy) and records the model's top candidates, the distribution actually sampled and the
causal attention of every layer and head.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from corpora.text import detokenize, tokenize
from models.translate import InputError
from models.vocab import EOS, SOS, UNK

MAX_NEW = 60
MAX_TOP_K = 1000
MAX_TEMPERATURE = 5.0


@dataclass
class GenerationStepView:
    """One generated token: the query position that produced it, the token, p under the sampled
    distribution, the model's top candidates with their model and sampling probabilities, and
    that position's attention row over every token so far (layers, heads, position + 1)."""

    position: int
    token: str
    prob: float
    top_tokens: list[str]
    top_probs: np.ndarray
    sampling_probs: np.ndarray
    attention: np.ndarray


@dataclass
class GeneratedText:
    """A whole generation: prompt tokens (with the leading <s>), generated tokens, per-step views,
    and the causal self-attention of the whole final sequence (layers, heads, T, T)."""

    model: str
    label: str
    prompt_tokens: list[str]
    prompt_unknown: list[bool]
    input_tokens_dropped: int
    generated_tokens: list[str]
    steps: list[GenerationStepView]
    attention: np.ndarray
    temperature: float
    top_k: int | None
    seed: int | None

    @property
    def tokens(self) -> list[str]:
        return self.prompt_tokens + self.generated_tokens

    @property
    def text(self) -> str:
        """Prompt and continuation as display text (without <s> and </s>)."""
        return detokenize([t for t in self.tokens if t not in (SOS, EOS)])

    @property
    def continuation(self) -> str:
        return detokenize([t for t in self.generated_tokens if t not in (SOS, EOS)])

    def to_dict(self) -> dict:
        return {
            "model": self.model, "label": self.label, "prompt_tokens": self.prompt_tokens,
            "prompt_unknown": self.prompt_unknown, "input_tokens_dropped": self.input_tokens_dropped,
            "generated_tokens": self.generated_tokens, "text": self.text, "temperature": self.temperature,
            "top_k": self.top_k, "seed": self.seed,
            "steps": [{
                "position": s.position, "token": s.token, "prob": s.prob,
                "top": [{"token": t, "prob": float(p), "sampling_prob": float(q)}
                        for t, p, q in zip(s.top_tokens, s.top_probs, s.sampling_probs)],
                "attention": s.attention.tolist(),
            } for s in self.steps],
        }


def prepare_prompt(text: str, loaded, max_new: int) -> tuple[list[str], list[int], list[bool], int]:
    """(<s> + tokens, ids, unknown flags, tokens dropped): the prompt keeps its *last* tokens
    so that prompt + ``max_new`` new tokens fit the model's context."""
    tokens = tokenize(text)
    room = max(1, loaded.config.max_len - 1 - max_new)
    dropped = max(0, len(tokens) - room)
    kept = tokens[dropped:]
    unk = loaded.tgt_stoi[UNK]
    ids = [loaded.tgt_stoi[SOS]] + [loaded.tgt_stoi.get(t, unk) for t in kept]
    return [SOS] + kept, ids, [False] + [t not in loaded.tgt_stoi for t in kept], dropped


def generate_text(loaded, prompt: str, max_new: int = 20, temperature: float = 1.0, top_k: int | None = None,
                  seed: int | None = 0, n_candidates: int = 10) -> GeneratedText:
    """Continue ``prompt`` with a decoder-only checkpoint; an empty prompt starts a new verse."""
    from models.transformer import generate

    if loaded.kind != "decoder-only":
        raise InputError(f"{loaded.name} is not a language model: use python -m models.translate")
    if not 1 <= max_new <= MAX_NEW:
        raise InputError(f"The number of new tokens must be between 1 and {MAX_NEW}.")
    if not 0 <= temperature <= MAX_TEMPERATURE:
        raise InputError(f"The temperature must be between 0 and {MAX_TEMPERATURE:g}.")
    if top_k is not None and not 1 <= top_k <= MAX_TOP_K:
        raise InputError(f"top-k must be between 1 and {MAX_TOP_K} (or left out for no limit).")
    max_new = min(max_new, loaded.config.max_len - 2)
    tokens, ids, unknown, dropped = prepare_prompt(prompt, loaded, max_new)
    trace = generate(loaded.model, ids, max_new=max_new, temperature=temperature, top_k=top_k, seed=seed,
                     n_candidates=n_candidates)
    itos = loaded.tgt_itos
    steps = [GenerationStepView(
        position=s.position - 1, token=itos[s.token_id], prob=s.prob,
        top_tokens=[itos[i] for i in s.top_ids.tolist()], top_probs=s.top_probs, sampling_probs=s.sampling_probs,
        attention=s.attention,
    ) for s in trace.steps]
    return GeneratedText(
        model=loaded.name, label=loaded.label, prompt_tokens=tokens, prompt_unknown=unknown,
        input_tokens_dropped=dropped, generated_tokens=[itos[i] for i in trace.generated_ids], steps=steps,
        attention=trace.attention, temperature=temperature, top_k=top_k, seed=seed,
    )


def main(argv: Sequence[str] | None = None) -> int:
    from models.checkpoint import CheckpointError

    parser = argparse.ArgumentParser(description="Continue a prompt with the decoder-only language model.")
    parser.add_argument("prompt", nargs="?", default="", help="text to continue (empty: a new verse)")
    parser.add_argument("--model", default="tf-lm", help="checkpoint name or folder")
    parser.add_argument("--temperature", type=float, default=1.0, help="0 = greedy; higher = more random")
    parser.add_argument("--top-k", type=int, default=None, help="sample among the k most probable tokens")
    parser.add_argument("--max-new", type=int, default=20, help=f"new tokens, 1–{MAX_NEW}")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the sampler")
    parser.add_argument("--json", action="store_true", help="print the per-step trace as JSON")
    args = parser.parse_args(argv)
    try:
        import torch

        from models.transformer_train import load_transformer

        torch.set_num_threads(1)
        loaded = load_transformer(args.model)
        result = generate_text(loaded, args.prompt, args.max_new, args.temperature, args.top_k, args.seed)
    except (CheckpointError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        if result.input_tokens_dropped:
            print(f"note: prompt cut to the model's context; its first {result.input_tokens_dropped} tokens dropped",
                  file=sys.stderr)
        print(result.text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
