"""Few-shot translation by the real LLMs, measured on the lab's test splits, beside the lab's own translators.

For each direction (Chinese → English on the HSK test split, English → French on the Bible test split),
the first ``--n`` test pairs are written out as a person types them (models.inference.llm_translate.sentence)
and translated through the page's own pipelines: the real LLM few-shot (translate_few_shot, greedy, the
prompt the page shows), and the lab's Transformer and RNN translators as their pages read typed text
(translate_transformer, translate; greedy). Each output is tokenised by the lab's tokenizer and scored
against the corpus's reference tokens: corpus BLEU (Papineni et al. 2002) and chrF (Popović 2015), as
models.evaluate scores the lab's models.

    python -m bench.llm_translate [--n 100] [--models gemma3 smollm2] [--out bench/baselines/llm_translate.json]

The page (Real LLM → Translation) states what this wrote. An LLM that is not installed is left out.
The corpora are public text an LLM may have read while it was trained (the World English Bible and the
Louis Segond certainly are on the web): its score is not a held-out score in the sense the lab's models' is.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from corpora.real_pairs import real_splits
from corpora.text import tokenize
from models.inference.llm_translate import DIRECTIONS, LAB_TRANSLATORS, languages, sentence, translate_few_shot
from models.training.metrics import bleu, chrf

OUT = Path(__file__).resolve().parent / "baselines" / "llm_translate.json"


def lab_translator(name: str):
    """A function text → output tokens (greedy) for one of the lab's checkpoints, as
    ``python -m models.translate`` runs it (models.inference.translate.load_translator)."""
    from models.inference.common import DEFAULT_LENGTH_PENALTY
    from models.inference.translate import load_translator
    from models.nn.rnn_seq2seq import SOFT

    run = load_translator(name)
    return lambda text: [t for t in run(text, 1, SOFT, 5, DEFAULT_LENGTH_PENALTY).tgt_tokens if t != "</s>"]


def score(outputs: list[list[str]], references: list[list[str]]) -> dict[str, float]:
    return {"bleu": round(bleu(outputs, references), 2), "chrf": round(chrf(outputs, references), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="test pairs per direction (the split's first n)")
    parser.add_argument("--models", nargs="*", default=["gemma3", "smollm2"])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from models.inference.llm import is_converted, load_llm

    result: dict = {"n": args.n, "directions": {}}
    llms = {name: load_llm(model=name) for name in args.models if is_converted(model=name)}
    for direction, corpus in DIRECTIONS.items():
        src_lang, tgt_lang = languages(direction)
        pairs = real_splits(corpus)["test"][: args.n]
        sources = [sentence(src, src_lang) for src, _ in pairs]
        references = [list(tgt) for _, tgt in pairs]
        rows: dict = {"corpus": corpus, "split": "test", "pairs": len(pairs), "models": {}, "examples": []}
        outputs_by_model: dict[str, list[str]] = {}
        for name in LAB_TRANSLATORS[direction]:
            run = lab_translator(name)
            started = time.perf_counter()
            outputs = [run(text) for text in sources]
            rows["models"][name] = score(outputs, references) | {"seconds": round(time.perf_counter() - started, 1)}
            outputs_by_model[name] = [" ".join(o) for o in outputs]
        for name, llm in llms.items():
            started = time.perf_counter()
            texts = [translate_few_shot(llm, direction, text, with_attention=False).text for text in sources]
            seconds = time.perf_counter() - started
            rows["models"][name] = score([tokenize(t) for t in texts], references) | {"seconds": round(seconds, 1)}
            outputs_by_model[name] = texts
            print(f"{direction} {name}: {rows['models'][name]}", flush=True)
        for i in range(min(5, len(sources))):
            rows["examples"].append(
                {"source": sources[i], "reference": " ".join(references[i])}
                | {name: out[i] for name, out in outputs_by_model.items()}
            )
        for name in LAB_TRANSLATORS[direction]:
            print(f"{direction} {name}: {rows['models'][name]}", flush=True)
        result["directions"][direction] = rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
