"""`python -m models.evaluate [--json] [--write]`: the quality of every shipped checkpoint.

Seq2seq: test BLEU, BLEU by source length and AER on the embedded corpus's test split; the models
trained on real pairs (Bible verses en→fr, HSK zh→en): test BLEU and chrF on their corpus's fixed test
split, beside the no-attention model and a copy baseline (under "real"), and so are the Transformers
trained on them (tf-bible, tf-hsk); where the page reads a typed sentence differently from the corpus's
tokens (HSK: re-segmented), the same figures through the page's own input pipeline (``page``), and each
model's wrong-output notice (``notice``: fitted on the validation split, its ROC AUC for "sentence chrF < 30"
on the test split, against the bar of 0.75);
Transformers: held-out exact match, test BLEU or held-out perplexity by task; BERT: held-out
masked-token and next-sentence accuracy; Transformer-XL: held-out perplexity against memory length,
beside the vanilla LM against its context window; XLNet: held-out permutation-LM log-likelihood.
Then the issue-27 comparisons: BERT fine-tuned end to end (§4) beside the frozen-feature head (§5.3), test
accuracy or exact match per task (``finetuned``; MiniLM-L6's rows, recorded by ``--preset minilm-…`` whose
weights are not shipped, recomputed where this machine has the weights and kept as recorded where not);
the ε = 0 / ε = 0.1 Transformer pairs' BLEU, perplexity and expected calibration error on each pair's test
split (``label_smoothing``: the grammar's small pair, tf-hsk and its ε = 0 twin); the teacher-forcing 1.0 /
0.5 RNNs (``teacher_forcing``).
``--write`` keeps the results beside the checkpoints (the seq2seq page's BLEU-against-length chart reads them).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from models.atomic import why_write_failed, write_json_atomic
from models.checkpoints import CHECKPOINT_DIR, SEQ2SEQ_RESULTS
from models.device import configure_threads
from models.training import bert, finetune, seq2seq, transformer, transformer_xl, xlnet

FAMILIES = {"transformer": transformer, "bert": bert, "transformer-xl": transformer_xl, "xlnet": xlnet}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Evaluate every shipped checkpoint.")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--write", action="store_true", help=f"also write them to checkpoints/{SEQ2SEQ_RESULTS}")
    args = parser.parse_args(argv)
    try:
        configure_threads()
        results = seq2seq.evaluate_shipped()
        transformer.add_real(results)  # tf-bible, tf-hsk beside the RNNs and the copy baseline of their corpus
        results["families"] = {name: family.evaluate_shipped() for name, family in FAMILIES.items()}
        results["finetuned"] = finetune.evaluate_shipped()
        results["label_smoothing"] = transformer.label_smoothing_comparison()
        results["teacher_forcing"] = seq2seq.exposure_comparison()
        for part in ("finetuned", "label_smoothing", "teacher_forcing"):
            results["errors"] += results[part]["errors"]
    except Exception as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.write:
        try:
            write_json_atomic(CHECKPOINT_DIR / SEQ2SEQ_RESULTS, results)
        except OSError as exc:  # a full disk: one line, and the previous file is still whole
            print(
                f"error: cannot write {CHECKPOINT_DIR / SEQ2SEQ_RESULTS}: {why_write_failed(exc)}; "
                "the previous file is unchanged",
                file=sys.stderr,
            )
            return 1
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(seq2seq.format_results(results))
        for name, family in FAMILIES.items():
            print(family.format_results(results["families"][name]))
        print(finetune.format_results(results["finetuned"]))
        print(transformer.format_label_smoothing(results["label_smoothing"]))
        print(seq2seq.format_exposure(results["teacher_forcing"]))
    return 1 if results["errors"] or not results["models"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
