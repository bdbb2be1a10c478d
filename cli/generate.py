"""`python -m models.generate --model tf-lm [--temperature T] [--top-k K] [--max-new N] [--seed S] [--json] "prompt"`;
with a Transformer-XL checkpoint (``--model xl-lm``) the prompt is read in segments and every new token is
generated with the memory carried over (``--mem-len M``, ``--seg-len L``); ``--model smollm2`` continues the
prompt with the real pretrained LLM (converted once by `python -m models.prepare_llm`), in its chat template
unless ``--plain``, with ``--top-p`` too; ``--json`` then holds every layer × head's attention of each new token."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cli.output import print_trace
from models.checkpoints import CheckpointError, family_of, load_transformer, load_txl
from models.device import configure_threads
from models.inference.common import InputError
from models.inference.generate import MAX_NEW, generate_text
from models.inference.llm import MODEL_NAME as LLM_NAME
from models.inference.traces import display_text
from models.inference.transformer_xl import generate_with_memory


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Continue a prompt with the decoder-only language model.")
    parser.add_argument("prompt", nargs="?", default="", help="text to continue (empty: a new verse)")
    parser.add_argument("--model", default="tf-lm", help="checkpoint name or folder")
    parser.add_argument("--temperature", type=float, default=1.0, help="0 = greedy; higher = more random")
    parser.add_argument("--top-k", type=int, default=None, help="sample among the k most probable tokens")
    parser.add_argument("--max-new", type=int, default=20, help=f"new tokens, 1–{MAX_NEW}")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the sampler")
    parser.add_argument("--mem-len", type=int, default=64, help="Transformer-XL: memory length M (0 = none)")
    parser.add_argument("--seg-len", type=int, default=32, help="Transformer-XL: segment length L of the prompt")
    parser.add_argument(
        "--top-p",
        type=float,
        default=None,
        help=f"{LLM_NAME}: sample from the smallest set of tokens whose probability reaches p",
    )
    parser.add_argument(
        "--plain", action="store_true", help=f"{LLM_NAME}: continue the text as it is, not as a chat message"
    )
    parser.add_argument("--json", action="store_true", help="print the per-step trace as JSON")
    args = parser.parse_args(argv)
    if args.model == LLM_NAME:
        return _real_llm(args)
    try:
        configure_threads()
        if family_of(args.model) == "transformer-xl":
            xl = generate_with_memory(
                load_txl(args.model),
                args.prompt,
                args.max_new,
                args.mem_len,
                args.seg_len,
                args.temperature,
                args.top_k,
                args.seed,
            )
            return print_trace(
                xl,
                display_text(xl.tokens[1:]),
                args.json,
                [f"memory length {xl.mem_len}, prompt read in segments of {xl.seg_len}"],
            )
        result = generate_text(
            load_transformer(args.model), args.prompt, args.max_new, args.temperature, args.top_k, args.seed
        )
    except (CheckpointError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    dropped = result.input_tokens_dropped
    notes = [f"prompt cut to the model's context; its first {dropped} tokens dropped"] if dropped else []
    return print_trace(result, result.text, args.json, notes)


def _real_llm(args: argparse.Namespace) -> int:
    """Continue the prompt with SmolLM2 (models.inference.llm): one line of error if it is not
    converted yet, the prompt is empty or a setting is out of range."""
    from models.inference.llm import MAX_PROMPT_TOKENS, LLMError, generate_text, load_llm

    if not 1 <= args.max_new <= MAX_NEW:
        print(f"error: --max-new must be from 1 to {MAX_NEW}", file=sys.stderr)
        return 1
    try:
        trace = generate_text(
            load_llm(),
            args.prompt,
            chat=not args.plain,
            max_new=args.max_new,
            temperature=args.temperature,
            top_k=args.top_k,
            top_p=args.top_p,
            seed=args.seed,
        )
    except (LLMError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    notes = [f"prompt cut to its last {MAX_PROMPT_TOKENS} tokens; {trace.dropped} dropped"] if trace.dropped else []
    return print_trace(trace, trace.text, args.json, notes)


if __name__ == "__main__":
    raise SystemExit(main())
