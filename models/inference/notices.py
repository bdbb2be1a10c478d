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

import functools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from corpora.bible import CorpusError
from models.inference.traces import Notice

#: The per-sentence signals a page computes from the model and its training sources, in the order of a
#: fit's coefficients: the model's own (its output's log-probabilities; unknown, one-character and all
#: source words; the length ratio), then how unlike its training sources the sentence is (CORPUS_SIGNALS).
MODEL_SIGNALS = ("mean_log_prob", "min_log_prob", "unknown_share", "src_len", "single_share", "length_ratio")
CORPUS_SIGNALS = ("novel_pairs", "rarity", "nearest_overlap")
SIGNALS = MODEL_SIGNALS + CORPUS_SIGNALS


@dataclass(frozen=True)
class CorpusProfile:
    """What a sentence is compared with: the training split's source sentences (as word lists), their
    word counts, their adjacent word pairs, and for each word the sentences that hold it."""

    counts: Counter
    pairs: frozenset
    holders: dict[str, np.ndarray]  # word → indices of the training sentences that hold it
    sizes: np.ndarray  # distinct words per training sentence

    @classmethod
    def of(cls, sources: Sequence[Sequence[str]]) -> CorpusProfile:
        holders: dict[str, list[int]] = {}
        for i, src in enumerate(sources):
            for w in set(src):
                holders.setdefault(w, []).append(i)
        return cls(
            Counter(w for src in sources for w in src),
            frozenset((a, b) for src in sources for a, b in zip(src, src[1:])),
            {w: np.array(ids) for w, ids in holders.items()},
            np.array([len(set(src)) for src in sources]),
        )

    def signals(self, src_words: Sequence[str]) -> dict[str, float]:
        """novel_pairs: the share of the sentence's adjacent word pairs that no training source holds;
        rarity: the mean of −ln(1 + c_w) over its words, c_w the word's count in the training sources;
        nearest_overlap: the largest Jaccard overlap |A ∩ B| / |A ∪ B| of its word set A with a training
        source's B (1: it is a training sentence's words)."""
        words = list(src_words)
        pairs = list(zip(words, words[1:]))
        held = [self.holders[w] for w in set(words) if w in self.holders]
        nearest = 0.0
        if held:
            shared = np.bincount(np.concatenate(held), minlength=len(self.sizes))  # |A ∩ B| per sentence
            nearest = float((shared / (self.sizes + len(set(words)) - shared)).max())
        return {
            "novel_pairs": sum(p not in self.pairs for p in pairs) / max(1, len(pairs)),
            "rarity": -sum(math.log1p(self.counts[w]) for w in words) / max(1, len(words)),
            "nearest_overlap": nearest,
        }


@functools.lru_cache(maxsize=4)
def corpus_profile(corpus: str) -> CorpusProfile:
    """The :class:`CorpusProfile` of a real corpus's training split (:func:`corpora.real_pairs.real_splits`)."""
    from corpora.real_pairs import real_splits

    return CorpusProfile.of([list(src) for src, _ in real_splits(corpus)["train"]])


def mean_log_prob(log_prob: float, n_tokens: int) -> float:
    """The confidence figure: Σ log p(y_t | y_<t, x) / |y| over the output tokens (end token included)."""
    return log_prob / max(1, n_tokens)


def output_signals(
    src_words: Sequence[str],
    src_unknown: Sequence[bool],
    token_log_probs: Sequence[float],
    profile: CorpusProfile | None = None,
) -> dict[str, float]:
    """The signals of one translation, from the source words as read (up to the model's limit) and the
    output: mean and minimum of log p(y_t | y_<t, x) over the output tokens (end token included); the
    share of source words read as <unk>; the number of source words |x|; the share of one-character
    source words (in Chinese, mostly unknown words the page split into characters); |y| / |x|; with the
    training sources' ``profile``, also :meth:`CorpusProfile.signals` of the words read."""
    n_src, n_out = max(1, len(src_unknown)), max(1, len(token_log_probs))
    corpus = profile.signals(src_words[: len(src_unknown)]) if profile is not None else {}
    return {
        **corpus,
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
    profile = None
    if fit and token_log_probs is not None:
        try:  # the corpus signals read the training sources: without them (corpus not installed), no fit
            needs = set(fit["signals"]) & set(CORPUS_SIGNALS)
            profile = corpus_profile(str(fit["corpus"])) if needs else None
        except (CorpusError, KeyError, ValueError):
            fit = None
    if fit and token_log_probs is not None:
        signals = output_signals(src_words, src_unknown, token_log_probs, profile)
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
    sentence unlike the ``data`` it learned from (it is unsure of every word), with its overlap with the
    closest training sentence when the signals hold it."""
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
    if "nearest_overlap" in signals:  # measured against the training sources
        args["overlap"] = signals["nearest_overlap"]
        return Notice(
            "confidence",
            "warning",
            f"{head} It knows every word, but the sentence is unlike the {data} it learned from: the closest "
            f"training sentence has only {args['overlap']:.0%} of their words in common (words in both ÷ words "
            "in either). It falls back on phrases it learned there.",
            "notice.risk.unlike",
            args,
        )
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
