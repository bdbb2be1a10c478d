"""Honest output: the notes a translation carries when its input is outside what the model knows.

Every translation (RNN seq2seq or Transformer) gets, next to its output:

* how many input words the model does not know (it reads them as <unk>);
* whether the input was cut to the model's length limit;
* whether the output stopped at the length limit (2·|x| + 10 tokens) without an end token;
* for the models trained on real pairs, whether the output is probably wrong: a logistic regression
  on signals the page computes from the model alone (:data:`SIGNALS`), fitted on the validation split
  to predict "sentence chrF < 30" (its ROC AUC on the test split is in ``python -m models.evaluate``),
  with the likeliest reason in plain words (unknown words, named; a long sentence; a sentence unlike
  its corpus); for the others, the model's own confidence — the mean log-probability per output
  token — against the same figure on its test set (median and 1st / 5th percentiles, written by
  ``python -m models.evaluate --write``);
* what the model was trained on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from models.inference.traces import Notice

#: The per-sentence signals a page computes from the model alone, in the order of a fit's coefficients.
SIGNALS = ("mean_log_prob", "min_log_prob", "unknown_share", "src_len", "single_share", "length_ratio")


def mean_log_prob(log_prob: float, n_tokens: int) -> float:
    """The confidence figure: Σ log p(y_t | y_<t, x) / |y| over the output tokens (end token included)."""
    return log_prob / max(1, n_tokens)


def output_signals(
    src_words: Sequence[str], src_unknown: Sequence[bool], token_log_probs: Sequence[float]
) -> dict[str, float]:
    """The signals of one translation, from the source words as read (up to the model's limit) and the
    output: mean and minimum of log p(y_t | y_<t, x) over the output tokens (end token included); the
    share of source words read as <unk>; the number of source words |x|; the share of one-character
    source words (in Chinese, mostly unknown words the page split into characters); |y| / |x|."""
    n_src, n_out = max(1, len(src_unknown)), max(1, len(token_log_probs))
    return {
        "mean_log_prob": sum(token_log_probs) / n_out,
        "min_log_prob": min(token_log_probs, default=0.0),
        "unknown_share": sum(map(bool, src_unknown)) / n_src,
        "src_len": float(len(src_unknown)),
        "single_share": sum(len(w) == 1 for w in src_words[: len(src_unknown)]) / n_src,
        "length_ratio": len(token_log_probs) / n_src,
    }


def bad_output_chance(fit: dict, signals: dict[str, float]) -> float:
    """p(sentence chrF < 30) = σ(b + Σ_i w_i (s_i − μ_i) / σ_i): the logistic fit (``fit``: "signals",
    "mean", "scale", "coef", "intercept", fitted on the validation split) applied to ``signals``."""
    z = float(fit["intercept"]) + sum(
        w * (signals[name] - mu) / sd for name, w, mu, sd in zip(fit["signals"], fit["coef"], fit["mean"], fit["scale"])
    )
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def translation_notices(
    src_words: Sequence[str],
    src_unknown: Sequence[bool],
    dropped: int,
    finished: bool,
    confidence: float,
    typical: dict | None,
    scope: Notice,
    token_log_probs: Sequence[float] | None = None,
    fit: dict | None = None,
) -> list[Notice]:
    """The notices of one translation: ``src_words`` as read (without the end token) and which are
    unknown; ``dropped`` input tokens cut off; ``finished`` = ended with the end token;
    ``confidence`` = :func:`mean_log_prob`; ``typical`` = {"median", "p05", "p01"} of that figure
    on the model's test set, or None; ``scope`` = what the model was trained on (:func:`scope_notice`).
    With the output's ``token_log_probs`` and the model's wrong-output ``fit`` (its evaluation's "notice"),
    the confidence notice is the wrong-output notice (:func:`wrong_output_notice`)."""
    notices = []
    unknown = [w for w, u in zip(src_words, src_unknown) if u]
    shown = ", ".join(f"“{w[:20]}”" for w in dict.fromkeys(unknown))
    shown = shown if len(shown) <= 160 else shown[:157] + "…"
    if unknown:
        notices.append(
            Notice(
                "unknown",
                "warning",
                f"{len(unknown)} of {len(src_words)} input words are unknown to this model and read "
                f"as <unk>: {shown}. Its output for them is a guess.",
                "notice.unknown",
                {"n": len(unknown), "total": len(src_words), "shown": shown},
            )
        )
    if dropped:
        notices.append(
            Notice(
                "cut",
                "warning",
                f"The input is longer than this model reads: the last {dropped} tokens were cut off.",
                "notice.cut",
                {"dropped": dropped},
            )
        )
    if not finished:
        notices.append(
            Notice(
                "length",
                "warning",
                "The output stopped at the length limit (2·|input| + 10 tokens) "
                "without an end token: it is unfinished.",
                "notice.length",
            )
        )
    if fit and token_log_probs is not None:
        signals = output_signals(src_words, src_unknown, token_log_probs)
        notices.append(wrong_output_notice(fit, signals, confidence, shown, str(scope.args.get("data", ""))))
    else:
        notices.append(_confidence_notice(confidence, typical))
    notices.append(scope)
    return notices


def scope_notice(training: dict, n_words: int) -> Notice:
    """What the model was trained on: ``training`` is its config.json's training record (its "data"
    names the data), ``n_words`` the size of its source vocabulary."""
    data = str(training.get("data", "data in its config.json"))
    return Notice(
        "scope",
        "info",
        f"This model was trained only on the {data} ({n_words:,} source words); it has not learned ordinary language.",
        "notice.scope",
        {"data": data, "n_words": n_words},
    )


def wrong_output_notice(fit: dict, signals: dict[str, float], confidence: float, unknown: str, data: str) -> Notice:
    """Whether this output is probably bad (sentence chrF < 30): p = :func:`bad_output_chance`
    against the fit's cut (chosen on validation); when p ≥ the cut, the likeliest reason in plain words:
    the ``unknown`` words (named), a sentence longer than 95% of the corpus's ("long_src"), or else a
    sentence unlike the ``data`` it learned from (it is unsure of every word)."""
    p = bad_output_chance(fit, signals)
    args: dict = {"p": p, "confidence": confidence}
    if p < fit["threshold"]:
        args.update(threshold=fit["threshold"], passed_bad=fit.get("bad_share_passed") or 0.0)
        return Notice(
            "confidence",
            "info",
            f"Not flagged as probably wrong: estimated chance of a bad translation "
            f"{p:.0%}, below this model's flag at {args['threshold']:.0%} (mean "
            f"log-probability per output token {confidence:.3f}). This is no promise: "
            f"on its test set {args['passed_bad']:.0%} of the translations not flagged "
            "were bad too (sentence chrF < 30).",
            "notice.risk.low",
            args,
        )
    args["flagged_bad"] = fit.get("bad_share_flagged") or 0.0
    head = (
        f"Probably wrong: estimated chance of a bad translation {p:.0%} (mean log-probability per output token "
        f"{confidence:.3f}; on its test set {args['flagged_bad']:.0%} of the translations flagged like this were "
        "bad, sentence chrF < 30)."
    )
    if unknown:
        args["shown"] = unknown
        return Notice(
            "confidence",
            "warning",
            f"{head} The model does not know {unknown}: it guesses at what they "
            "mean, and often at the sentence around them.",
            "notice.risk.unknown",
            args,
        )
    if signals["src_len"] > fit.get("long_src", float("inf")):
        args.update(n=int(signals["src_len"]), long=int(fit["long_src"]))
        return Notice(
            "confidence",
            "warning",
            f"{head} The sentence is long ({args['n']} words; 95% of its corpus's "
            f"sentences have at most {args['long']}): on long sentences it drops "
            "words and loses their order.",
            "notice.risk.long",
            args,
        )
    args["data"] = data
    return Notice(
        "confidence",
        "warning",
        f"{head} It knows every word, but the sentence is probably unlike the "
        f"{data} it learned from, in wording or style: it falls back on phrases "
        "it learned there.",
        "notice.risk.style",
        args,
    )


def _confidence_notice(confidence: float, typical: dict | None) -> Notice:
    figure = f"Confidence: mean log-probability per output token {confidence:.3f}"
    if not typical:
        return Notice(
            "confidence",
            "info",
            f"{figure} (no test-set figure to compare with: run python -m models.evaluate --write).",
            "notice.confidence.none",
            {"confidence": confidence},
        )
    context = (
        f"on its test set the median is {typical['median']:.3f}, and 99% of sentences score above {typical['p01']:.3f}"
    )
    args = {"confidence": confidence, "median": typical["median"], "p01": typical["p01"]}
    if confidence < typical["p01"]:
        return Notice(
            "confidence",
            "warning",
            f"{figure} — far below the test set ({context}): the input is "
            "probably outside what this model learned, however fluent the output.",
            "notice.confidence.far",
            args,
        )
    if confidence < typical["p05"]:
        return Notice(
            "confidence",
            "warning",
            f"{figure} — lower than 95% of the test set ({context}).",
            "notice.confidence.low",
            args,
        )
    return Notice(
        "confidence", "info", f"{figure} — typical of the test set ({context}).", "notice.confidence.typical", args
    )
