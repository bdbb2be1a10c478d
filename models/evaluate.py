"""Quality of the shipped seq2seq checkpoints: test BLEU, BLEU by source length, and AER.

`python -m models.evaluate [--json] [--write]` evaluates every shipped seq2seq checkpoint on the
embedded corpus's test split (word combinations never seen in training). BLEU is sacrebleu's
corpus BLEU on the corpus's own tokens (tokenize="none"). AER compares the argmax of each
model's attention, with the reference translation forced, against the gold word alignments:
AER = 1 − 2|A ∩ G| / (|A| + |G|) (sure = possible = gold; an argmax on </s> is no link).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import numpy as np
import torch

from models.checkpoint import CHECKPOINT_DIR, CheckpointError, load_seq2seq, shipped
from models.decode import greedy_batch
from models.seq2seq import Seq2Seq
from models.train import EncodedPair, collate
from models.vocab import EOS_ID, Vocab

RESULTS_FILE = CHECKPOINT_DIR / "seq2seq_evaluation.json"
LENGTH_BUCKETS = ((3, 5), (6, 10), (11, 15), (16, 20), (21, 25), (26, 60))
BATCH = 128


def translate_all(model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab, sources: Sequence[Sequence[str]]) -> list[list[str]]:
    """Greedy translations (tokens, without </s>) of many sentences, in batches."""
    limit = model.cfg.max_src_len - 1
    encoded = [src_vocab.encode(s)[:limit] + [EOS_ID] for s in sources]
    out: list[list[str]] = []
    for i in range(0, len(encoded), BATCH):
        for ids, _ in greedy_batch(model, encoded[i : i + BATCH]):
            out.append(tgt_vocab.decode([t for t in ids if t != EOS_ID]))
    return out


def bleu(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> float:
    """Corpus BLEU (0–100) on space-joined tokens."""
    import sacrebleu

    if not hypotheses:
        return float("nan")
    return sacrebleu.corpus_bleu([" ".join(h) for h in hypotheses], [[" ".join(r) for r in references]],
                                 tokenize="none", force=True).score


def corpus_bleu_of(model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> float:
    return bleu(translate_all(model, src_vocab, tgt_vocab, [p[0] for p in pairs]), [p[1] for p in pairs])


def alignment_error_rate(predicted: Sequence[set[tuple[int, int]]], gold: Sequence[set[tuple[int, int]]]) -> float:
    """AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|) summed over sentences, with S = P = gold."""
    hits = sum(len(a & g) for a, g in zip(predicted, gold))
    total = sum(len(a) + len(g) for a, g in zip(predicted, gold))
    return 1.0 - 2.0 * hits / total if total else float("nan")


@torch.no_grad()
def forced_alignments(model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab, pairs) -> list[set[tuple[int, int]]]:
    """Argmax-attention links (src_i, tgt_j) with the reference target forced (teacher forcing)."""
    model.eval()
    limit_s, limit_t = model.cfg.max_src_len - 1, model.cfg.max_tgt_len - 1
    links = []
    for i in range(0, len(pairs), BATCH):
        chunk = pairs[i : i + BATCH]
        items = [EncodedPair(src_vocab.encode(p.src)[:limit_s] + [EOS_ID], tgt_vocab.encode(p.tgt)[:limit_t] + [EOS_ID])
                 for p in chunk]
        batch = collate(items, torch.device("cpu"))
        _, alphas = model(batch.src, batch.lengths, batch.tgt_in)
        argmax = alphas.argmax(-1).numpy()
        for item, row in zip(items, argmax):
            n_src = len(item.src) - 1  # a link to </s> is no link
            links.append({(int(s), j) for j, s in enumerate(row[: len(item.tgt) - 1]) if s < n_src})
    return links


def evaluate_checkpoint(name: str, test_pairs) -> dict:
    """BLEU, BLEU by source length and (for attention models) AER of one checkpoint."""
    loaded = load_seq2seq(name)
    hyps = translate_all(loaded.model, loaded.src_vocab, loaded.tgt_vocab, [p.src for p in test_pairs])
    refs = [list(p.tgt) for p in test_pairs]
    by_length = []
    for lo, hi in LENGTH_BUCKETS:
        idx = [i for i, p in enumerate(test_pairs) if lo <= len(p.src) <= hi]
        by_length.append({"min_len": lo, "max_len": hi, "n": len(idx),
                          "bleu": round(bleu([hyps[i] for i in idx], [refs[i] for i in idx]), 2) if idx else None})
    aer = None
    if loaded.model.cfg.attention != "none":
        predicted = forced_alignments(loaded.model, loaded.src_vocab, loaded.tgt_vocab, test_pairs)
        aer = round(alignment_error_rate(predicted, [set(p.alignment) for p in test_pairs]), 4)
    return {
        "name": name,
        "label": loaded.training.get("label", name),
        "kind": loaded.kind,
        "bleu": round(bleu(hyps, refs), 2),
        "aer": aer,
        "n_test": len(test_pairs),
        "exact_match": round(float(np.mean([h == r for h, r in zip(hyps, refs)])), 4),
        "bleu_by_length": by_length,
        "train_seconds": loaded.training.get("seconds"),
    }


def evaluate_all() -> dict:
    from corpora.en_fr import make_splits

    test_pairs = make_splits()["test"]
    models, errors = [], []
    for name in shipped("seq2seq"):
        try:
            models.append(evaluate_checkpoint(name, test_pairs))
        except CheckpointError as exc:
            errors.append(str(exc))
    return {"command": "python -m models.evaluate", "test_set": "embedded corpus, test split",
            "models": models, "errors": errors}


def load_results() -> dict | None:
    """The evaluation shipped with the checkpoints (written by `--write`), or None."""
    try:
        return json.loads(RESULTS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def family_evaluations() -> list[object]:
    """Modules of other model families that define evaluate_shipped() -> dict and format_results(dict) -> str."""
    from models.train import FAMILY_MODULES
    import importlib

    modules = []
    for module_name in FAMILY_MODULES:
        try:
            modules.append(importlib.import_module(module_name))
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
    return [m for m in modules if hasattr(m, "evaluate_shipped")]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Evaluate every shipped seq2seq checkpoint on the test split.")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--write", action="store_true", help=f"also write them to {RESULTS_FILE.name}")
    args = parser.parse_args(argv)
    try:
        torch.set_num_threads(2)
        results = evaluate_all()
        families = {m.__name__.rsplit(".", 1)[1]: m for m in family_evaluations()}
        results["families"] = {name: m.evaluate_shipped() for name, m in families.items()}
    except Exception as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.write:
        RESULTS_FILE.write_text(json.dumps(results, indent=1))
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(f"{'model':24} {'BLEU':>6} {'AER':>6} {'exact':>6}  BLEU by source length")
        for m in results["models"]:
            lengths = "  ".join(f"{b['min_len']}-{b['max_len']}:{b['bleu']}" for b in m["bleu_by_length"])
            aer = "—" if m["aer"] is None else f"{m['aer']:.3f}"
            print(f"{m['label']:24} {m['bleu']:6.2f} {aer:>6} {m['exact_match']:6.3f}  {lengths}")
        for err in results["errors"]:
            print(f"error: {err}")
        for name, family_results in results["families"].items():
            print(families[name].format_results(family_results))
    return 1 if results["errors"] or not results["models"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
