"""Which explanation is faithful? Every method of models.lessons.explanations on a fixed set of inputs
per model, one table: method × model → mean Spearman ρ with occlusion, mean AOPC (erasure of the top
1 … 5 tokens), and on the grammar translation models the AER of each method's argmax links against
the gold word alignment (Och & Ney 2003). Also printed: integrated gradients' completeness gap
(median and worst |Σ IG − (F(x) − F(x′))| / |F(x) − F(x′)|) at the documented number of steps, plain
rollout's share on the first token (the attention sink), and the seconds of one page view of the
real LLM at 64 tokens, first time and revisited (the page's st.cache_data does the revisit).

Inputs: the grammar models (s2s-bahdanau, tf-en-fr) read the first N test pairs of
``corpora.en_fr.make_splits()`` (their greedy translation's middle token for ρ and AOPC; the gold
reference, teacher-forced, every token, for AER); MiniLM (minilm-mlm) the N held-out sentences of
``corpora.mlm_eval``; SmolLM2 the first N of them with ≥ 2 tokens before their hidden word, cut there
(the model's next token).

    python -m bench.explanations [--model NAME] [--n 50] [--aer-n 50] [--page]
"""

from __future__ import annotations

import argparse
import time
import warnings
from typing import Any

import numpy as np

MODELS = ("s2s-bahdanau", "tf-en-fr", "minilm-mlm", "smollm2")
AER_IG_STEPS = 16  # AER reads only each IG row's argmax: 16 trapezoid intervals, no refinement (cheap)
PAGE_TEXT = (
    "In the beginning God created the heavens and the earth. The earth was formless and empty, and "
    "darkness was on the surface of the deep. God's Spirit was hovering over the surface of the waters. "
    "God said, let there be light, and there was light. God saw the light, and saw that it was good."
)


def _load(name: str) -> Any:
    if name == "smollm2":
        from models.inference.llm import load_llm

        return load_llm()
    from models.checkpoints import load_bert, load_seq2seq, load_transformer

    return {"s2s-bahdanau": load_seq2seq, "tf-en-fr": load_transformer, "minilm-mlm": load_bert}[name](name)


def _subjects(name: str, model: Any, n: int) -> list[Any]:
    from corpora.mlm_eval import masked_items
    from models.lessons import explanations as ex

    if name in ("s2s-bahdanau", "tf-en-fr"):
        from corpora.en_fr import make_splits

        return [ex.translation_subject(model, " ".join(p.src)) for p in make_splits()["test"][:n]]
    if name == "minilm-mlm":
        return [ex.mlm_subject(model, text) for text, _ in masked_items()[:n]]
    from models.inference.common import InputError

    subjects = []
    for text, _ in masked_items():  # the held-out sentences whose words before the hidden one are ≥ 2 tokens
        try:
            subjects.append(ex.llm_subject(model, text.split("[MASK]")[0].rstrip()))
        except InputError:
            continue
        if len(subjects) == n:
            break
    return subjects


def _aer(name: str, model: Any, n: int) -> dict[str, float]:
    """AER of each method's argmax links, the gold reference teacher-forced, every target token."""
    from corpora.en_fr import make_splits
    from models.lessons import explanations as ex

    predicted: dict[str, list[set[tuple[int, int]]]] = {m: [] for m in ex.METHODS}
    gold = []
    for pair in make_splits()["test"][:n]:
        text = " ".join(pair.src)
        rows: dict[str, list[np.ndarray]] = {m: [] for m in ex.METHODS}
        for t in range(len(pair.tgt)):
            e = ex.explain(
                ex.translation_subject(model, text, t, pair.tgt), erase_k=0, ig_steps=AER_IG_STEPS, ig_tolerance=None
            )
            for m in ex.METHODS:
                rows[m].append(e.row(m))
        for m in ex.METHODS:
            predicted[m].append(ex.aligned_links(np.array(rows[m]), len(pair.src)))
        gold.append(set(pair.alignment))
    return {m: ex.alignment_error_rate(predicted[m], gold) if any(predicted[m]) else float("nan") for m in ex.METHODS}


def page_view(llm: Any) -> tuple[float, float, Any]:
    """Seconds of the page's LLM view at 64 tokens computed once, then (cached) again."""
    from models.lessons import explanations as ex

    cache: dict[str, Any] = {}

    def view(text: str) -> Any:
        if text not in cache:
            cache[text] = ex.explain(ex.llm_subject(llm, text, 64))
        return cache[text]

    start = time.perf_counter()
    first = view(PAGE_TEXT)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    view(PAGE_TEXT)
    return cold, time.perf_counter() - start, first


def main(argv: list[str] | None = None) -> None:
    from models.device import configure_threads
    from models.lessons import explanations as ex

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=MODELS, action="append", help="one model (repeatable); default all")
    parser.add_argument("--n", type=int, default=50, help="inputs per model (default 50)")
    parser.add_argument("--aer-n", type=int, default=50, help="grammar pairs for AER (default 50)")
    parser.add_argument("--page", action="store_true", help="also time one LLM page view at 64 tokens")
    args = parser.parse_args(argv)
    print(f"torch threads: {configure_threads()}")
    names = args.model or list(MODELS)
    table: dict[str, dict[str, tuple[float, float, float]]] = {}
    for name in names:
        model = _load(name)
        start = time.perf_counter()
        results = [ex.explain(s) for s in _subjects(name, model, args.n)]
        with warnings.catch_warnings():  # a method undefined for a model (rollout of an RNN) is all NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            rho = np.nanmean([r.spearman for r in results], axis=0)
            area = np.nanmean([r.aopc for r in results], axis=0)
        gaps = np.array([r.ig_relative_gap for r in results])
        aer = _aer(name, model, args.aer_n) if name in ("s2s-bahdanau", "tf-en-fr") else {}
        table[name] = {m: (rho[i], area[i], aer.get(m, float("nan"))) for i, m in enumerate(ex.METHODS)}
        sink = np.array([r.rollout_sink_share for r in results])
        steps = np.array([r.ig_steps for r in results])
        print(
            f"{name}: {len(results)} inputs in {time.perf_counter() - start:.1f} s; IG at {np.median(steps):.0f} "
            f"(max {steps.max()}) steps: completeness gap median {np.nanmedian(gaps):.2%}, "
            f"worst {np.nanmax(gaps):.2%}, "
            f"≤ 1% on {np.mean(gaps <= 0.01):.0%}; plain rollout on the first token: "
            f"mean {np.nanmean(sink):.3f}, > 0.5 on {np.mean(sink > 0.5):.0%}"
            if not np.isnan(sink).all()
            else f"{name}: {len(results)} inputs in {time.perf_counter() - start:.1f} s; IG at {np.median(steps):.0f} "
            f"(max {steps.max()}) steps: completeness gap median {np.nanmedian(gaps):.2%}, "
            f"worst {np.nanmax(gaps):.2%}, "
            f"≤ 1% on {np.mean(gaps <= 0.01):.0%}; rollout: not defined (one attention)",
            flush=True,
        )
    print()
    header = "method".ljust(13) + "".join(f"{n:>27s}" for n in names)
    print(header)
    print(" " * 13 + "".join(f"{'ρ_occl':>9s}{'AOPC':>9s}{'AER':>9s}" for _ in names))
    for m in ex.METHODS:
        cells = "".join("".join(f"{v:9.3f}" if not np.isnan(v) else f"{'—':>9s}" for v in table[n][m]) for n in names)
        print(m.ljust(13) + cells)
    if args.page:
        llm = _load("smollm2")
        cold, warm, first = page_view(llm)
        print(
            f"\nLLM page view, {len(first.tokens)} tokens, every method: {cold:.1f} s first "
            f"({', '.join(f'{k} {v:.1f} s' for k, v in first.seconds.items())}), {warm * 1000:.2f} ms revisited; "
            f"IG gap {first.ig_relative_gap:.2%}; rollout on the first token {first.rollout_sink_share:.3f}"
        )


if __name__ == "__main__":
    main()
