"""Honest output: the notes a translation carries when its input is outside what the model knows.

Every translation (RNN seq2seq or Transformer) gets, next to its output:

* how many input words the model does not know (it reads them as <unk>);
* whether the input was cut to the model's length limit;
* whether the output stopped at the length limit (2·|x| + 10 tokens) without an end token;
* the model's own confidence — the mean log-probability per output token — against the same
  figure on its test set (median and 1st / 5th percentiles, written by
  ``python -m models.evaluate --write``): far below the test set, the input is probably a word or
  a structure the model never learned, however fluent the output looks;
* what the model was trained on.
"""
from __future__ import annotations

from collections.abc import Sequence

from models.inference.traces import Notice


def mean_log_prob(log_prob: float, n_tokens: int) -> float:
    """The confidence figure: Σ log p(y_t | y_<t, x) / |y| over the output tokens (end token included)."""
    return log_prob / max(1, n_tokens)


def translation_notices(
    src_words: Sequence[str], src_unknown: Sequence[bool], dropped: int, finished: bool, confidence: float,
    typical: dict | None, scope: Notice,
) -> list[Notice]:
    """The notices of one translation: ``src_words`` as read (without the end token) and which are
    unknown; ``dropped`` input tokens cut off; ``finished`` = ended with the end token;
    ``confidence`` = :func:`mean_log_prob`; ``typical`` = {"median", "p05", "p01"} of that figure
    on the model's test set, or None; ``scope`` = what the model was trained on (:func:`scope_notice`)."""
    notices = []
    unknown = [w for w, u in zip(src_words, src_unknown) if u]
    if unknown:
        shown = ", ".join(f"“{w[:20]}”" for w in dict.fromkeys(unknown))
        shown = shown if len(shown) <= 160 else shown[:157] + "…"
        notices.append(Notice("unknown", "warning",
                              f"{len(unknown)} of {len(src_words)} input words are unknown to this model and read "
                              f"as <unk>: {shown}. Its output for them is a guess.",
                              "notice.unknown", {"n": len(unknown), "total": len(src_words), "shown": shown}))
    if dropped:
        notices.append(Notice("cut", "warning", f"The input is longer than this model reads: the last {dropped} "
                                                "tokens were cut off.", "notice.cut", {"dropped": dropped}))
    if not finished:
        notices.append(Notice("length", "warning", "The output stopped at the length limit (2·|input| + 10 tokens) "
                                                   "without an end token: it is unfinished.", "notice.length"))
    notices.append(_confidence_notice(confidence, typical))
    notices.append(scope)
    return notices


def scope_notice(training: dict, n_words: int) -> Notice:
    """What the model was trained on: ``training`` is its config.json's training record (its "data"
    names the data), ``n_words`` the size of its source vocabulary."""
    data = str(training.get("data", "data in its config.json"))
    return Notice("scope", "info", f"This model was trained only on the {data} ({n_words:,} source words); it has not "
                                   "learned ordinary language.", "notice.scope", {"data": data, "n_words": n_words})


def _confidence_notice(confidence: float, typical: dict | None) -> Notice:
    figure = f"Confidence: mean log-probability per output token {confidence:.3f}"
    if not typical:
        return Notice("confidence", "info", f"{figure} (no test-set figure to compare with: run "
                                            "python -m models.evaluate --write).", "notice.confidence.none",
                      {"confidence": confidence})
    context = (f"on its test set the median is {typical['median']:.3f}, and 99% of sentences score above "
               f"{typical['p01']:.3f}")
    args = {"confidence": confidence, "median": typical["median"], "p01": typical["p01"]}
    if confidence < typical["p01"]:
        return Notice("confidence", "warning", f"{figure} — far below the test set ({context}): the input is "
                                               "probably outside what this model learned, however fluent the output.",
                      "notice.confidence.far", args)
    if confidence < typical["p05"]:
        return Notice("confidence", "warning", f"{figure} — lower than 95% of the test set ({context}).",
                      "notice.confidence.low", args)
    return Notice("confidence", "info", f"{figure} — typical of the test set ({context}).",
                  "notice.confidence.typical", args)
