"""Generate text with a decoder-only checkpoint and return the per-step trace.

The prompt is tokenized like the training text (lowercase words and punctuation), cut to the
model's context, and preceded by ``<s>`` (the start of a verse). Each step samples the next
token from softmax(logits / T) restricted to the k most probable tokens (T = 0 or k = 1:
greedy) and records the model's top candidates, the distribution actually sampled and the
causal attention of every layer and head (:func:`models.inference.transformer.generate`).
The command line is ``python -m models.generate`` (:mod:`cli.generate`).
"""

from __future__ import annotations

from dataclasses import replace

from corpora.text import tokenize
from models.checkpoints import LoadedTransformer
from models.inference.common import InputError
from models.inference.traces import GenerationTrace
from models.inference.transformer import generate
from models.text.vocab import SOS, UNK

MAX_NEW = 60
MAX_TOP_K = 1000
MAX_TEMPERATURE = 5.0


def check_sampling(max_new: int, temperature: float) -> None:
    """Raise InputError unless 1 ≤ ``max_new`` ≤ MAX_NEW and 0 ≤ ``temperature`` ≤ MAX_TEMPERATURE
    (every language model of the lab samples within these bounds)."""
    if not 1 <= max_new <= MAX_NEW:
        raise InputError(f"The number of new tokens must be between 1 and {MAX_NEW}.", "err.max_new", max=MAX_NEW)
    if not 0 <= temperature <= MAX_TEMPERATURE:
        raise InputError(
            f"The temperature must be between 0 and {MAX_TEMPERATURE:g}.", "err.temperature", max=MAX_TEMPERATURE
        )


def prepare_prompt(text: str, loaded: LoadedTransformer, max_new: int) -> tuple[list[str], list[int], list[bool], int]:
    """(<s> + tokens, ids, unknown flags, tokens dropped): the prompt keeps its *last* tokens
    so that prompt + ``max_new`` new tokens fit the model's context."""
    tokens = tokenize(text)
    room = max(1, loaded.config.max_len - 1 - max_new)
    dropped = max(0, len(tokens) - room)
    kept = tokens[dropped:]
    unk = loaded.tgt_stoi[UNK]
    ids = [loaded.tgt_stoi[SOS]] + [loaded.tgt_stoi.get(t, unk) for t in kept]
    return [SOS] + kept, ids, [False] + [t not in loaded.tgt_stoi for t in kept], dropped


def generate_text(
    loaded: LoadedTransformer,
    prompt: str,
    max_new: int = 20,
    temperature: float = 1.0,
    top_k: int | None = None,
    seed: int | None = 0,
    n_candidates: int = 10,
) -> GenerationTrace:
    """Continue ``prompt`` with a decoder-only checkpoint; an empty prompt starts a new verse."""
    if loaded.architecture != "decoder-only":
        raise InputError(f"{loaded.name} is not a language model: use python -m models.translate")
    check_sampling(max_new, temperature)
    if top_k is not None and not 1 <= top_k <= MAX_TOP_K:
        raise InputError(
            f"top-k must be between 1 and {MAX_TOP_K} (or left out for no limit).", "err.top_k", max=MAX_TOP_K
        )
    max_new = min(max_new, loaded.config.max_len - 2)
    tokens, ids, unknown, dropped = prepare_prompt(prompt, loaded, max_new)
    trace = generate(
        loaded.language_model,
        ids,
        max_new=max_new,
        temperature=temperature,
        top_k=top_k,
        seed=seed,
        n_candidates=n_candidates,
        itos=loaded.tgt_itos,
    )
    return replace(
        trace,
        model=loaded.name,
        label=loaded.label,
        prompt_tokens=tokens,
        prompt_unknown=unknown,
        input_tokens_dropped=dropped,
    )
