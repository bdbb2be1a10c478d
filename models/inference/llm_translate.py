"""Few-shot translation by a real decoder LLM, with the attention of each generated token over the
source sentence.

The model is not trained to translate: it continues a prompt of :data:`SHOTS` example pairs from the
corpus's training split (Brown et al. 2020, "in-context learning"), then the source and the target
language's name, greedily, until the line ends:

    Chinese: 他被大学录取了。
    English: He was admitted to university.
    …
    Chinese: 我的妹妹明天去北京。
    English:

A decoder has no cross-attention: each generated token's query row reads every earlier token, the
examples and the prompt's start included. :func:`translate_few_shot` keeps, per generated token and per
layer × head, the row's weights on the source sentence's tokens (found by their character offsets in
the prompt) and the share of the row they hold together; the rest goes to the examples, the labels and
the start token (an attention sink, Xiao et al. 2023).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from corpora.real_pairs import BIBLE, HSK, LANGUAGES
from corpora.text import detokenize
from models.inference.common import InputError
from models.inference.traces import Trace

#: direction → the real corpus whose test split measures it (the lab's own translators' corpus)
DIRECTIONS: dict[str, str] = {"zh-en": HSK, "en-fr": BIBLE}
LANGUAGE_NAMES = {"zh": "Chinese", "en": "English", "fr": "French"}  # as the prompt names them
#: The prompt's example pairs, each from its corpus's training split (never a test or validation
#: sentence: tests/test_llm_translate.py), as the corpus holds them and written out by :func:`sentence`.
SHOTS: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {
    "zh-en": (
        (("他", "被", "大学", "录取", "了"), ("he", "was", "admitted", "to", "university", ".")),
        (("老师", "对", "我们", "很", "亲切"), ("the", "teacher", "is", "warm", "to", "us", ".")),
        (
            ("学习", "以外", "他", "还", "喜欢", "运动"),
            ("besides", "studying", ",", "he", "also", "likes", "sports", "."),
        ),
    ),
    "en-fr": (
        (
            ("he", "shall", "take", "a", "wife", "in", "her", "virginity", "."),
            ("il", "prendra", "pour", "femme", "une", "vierge", "."),
        ),
        (
            ("the", "famine", "was", "severe", "in", "the", "land", "."),
            ("la", "famine", "s'", "appesantissait", "sur", "le", "pays", "."),
        ),
        (
            ("cursed", "shall", "be", "your", "basket", "and", "your", "kneading-trough", "."),
            ("ta", "corbeille", "et", "ta", "huche", "seront", "maudites", "."),
        ),
    ),
}
#: the lab's own translators of each direction, Transformer first (the Seq2seq and Transformer pages' models)
LAB_TRANSLATORS: dict[str, tuple[str, str]] = {
    "zh-en": ("tf-hsk", "s2s-hsk-bahdanau"),
    "en-fr": ("tf-bible", "s2s-bible-bahdanau"),
}
DEFAULT_SOURCES = {"zh-en": "我的妹妹明天去北京。", "en-fr": "My sister is going to Paris tomorrow."}
MAX_SOURCE_CHARS = 300
MAX_NEW_TOKENS = 48


def sentence(tokens: Sequence[str], language: str) -> str:
    """A corpus sentence (lowercase tokens; the HSK's Chinese without punctuation) as a person writes it:
    its tokens joined (corpora.text.detokenize), the first letter capitalised, a Chinese sentence ended
    with 。."""
    text = detokenize(list(tokens))
    if language == "zh":
        return text if text.endswith(("。", "？", "！")) else text + "。"
    return text[:1].upper() + text[1:]


def languages(direction: str) -> tuple[str, str]:
    """(source, target) ISO codes of ``direction`` ("zh-en" or "en-fr")."""
    if direction not in DIRECTIONS:
        raise ValueError(f"unknown direction {direction!r}: one of {sorted(DIRECTIONS)}")
    return LANGUAGES[DIRECTIONS[direction]]


def prompt_parts(direction: str, source: str) -> tuple[str, str, str]:
    """The few-shot prompt as (before the source, the source, after it): every example pair as two
    labelled lines, a blank line between pairs, then the source line and the target's label."""
    src, tgt = languages(direction)
    src_name, tgt_name = LANGUAGE_NAMES[src], LANGUAGE_NAMES[tgt]
    examples = "".join(
        f"{src_name}: {sentence(s, src)}\n{tgt_name}: {sentence(t, tgt)}\n\n" for s, t in SHOTS[direction]
    )
    return f"{examples}{src_name}: ", " ".join(source.split()), f"\n{tgt_name}:"


def source_positions(offsets: Sequence[tuple[int, int]], start: int, end: int) -> list[int]:
    """The positions of the tokens whose character span overlaps [start, end): the source sentence's
    tokens in the prompt (a token that joins the space before the source to its first word counts)."""
    return [i for i, (a, b) in enumerate(offsets) if b > a and a < end and b > start]


@dataclass
class LLMTranslation(Trace):
    """A few-shot translation by a real LLM: the prompt's tokens, the positions of the source sentence's
    tokens among them, the generated tokens (the line break that ends the answer left out), and per
    generated token and layer × head its attention weights on the source tokens (``attention``: steps ×
    layers × heads × source tokens, each row a part of a softmax row, summing to ``on_source``)."""

    DERIVED: ClassVar[tuple[str, ...]] = ("text",)

    model: str
    direction: str
    source: str
    prompt: str
    prompt_ids: list[int]
    prompt_tokens: list[str]
    source_index: list[int]
    output_ids: list[int]
    output_tokens: list[str]
    attention: np.ndarray
    on_source: np.ndarray
    finished: bool  # the answer's line ended before MAX_NEW_TOKENS

    @property
    def source_tokens(self) -> list[str]:
        return [self.prompt_tokens[i] for i in self.source_index]

    @property
    def text(self) -> str:
        """The translation, as the model wrote it."""
        return "".join(self.output_tokens).strip()

    def summary(self, layer: int | None = None, head: int | None = None, renormalise: bool = False) -> np.ndarray:
        """(generated tokens × source tokens): one head's weights (``layer`` and ``head``, 0-based), the mean
        of one layer's heads (``layer``), or of every layer's and head's (neither). With ``renormalise``,
        each head's weights are first divided by their sum over the source, α_ti / Σ_j α_tj: how the head
        shares out among the source tokens what it gives the source at all."""
        if head is not None and layer is None:
            raise ValueError("a head needs its layer")
        a = self.attention
        if renormalise:
            a = a / np.maximum(a.sum(axis=-1, keepdims=True), np.finfo(np.float32).tiny)
        if layer is not None:
            a = a[:, layer : layer + 1]
        if head is not None:
            a = a[:, :, head : head + 1]
        return a.mean(axis=(1, 2))


def translate_few_shot(
    llm: Any, direction: str, source: str, max_new: int = MAX_NEW_TOKENS, with_attention: bool = True
) -> LLMTranslation:
    """Greedy few-shot translation of ``source`` by ``llm`` (models.inference.llm.LLM), stopped at the end of
    its line; InputError (a ValueError) for an empty or over-long source (:data:`MAX_SOURCE_CHARS`)."""
    from models.inference.llm import generate, spec_of

    text = " ".join(source.split())
    if not text:
        raise InputError("Type a sentence to translate.", "llm_explorer.tr.empty")
    if len(text) > MAX_SOURCE_CHARS:
        raise InputError(
            f"The sentence is longer than {MAX_SOURCE_CHARS} characters.",
            "llm_explorer.tr.too_long",
            n=MAX_SOURCE_CHARS,
        )
    before, middle, after = prompt_parts(direction, text)
    prompt = before + middle + after
    tok = llm.tokenizer
    encoded = tok(prompt, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = list(encoded["input_ids"]), [tuple(o) for o in encoded["offset_mapping"]]
    if spec_of(llm.name).bos and tok.bos_token_id is not None:
        ids, offsets = [tok.bos_token_id, *ids], [(0, 0), *offsets]
    index = source_positions(offsets, len(before), len(before) + len(middle))
    stops = tuple(i for i in (tok.eos_token_id, getattr(tok, "pad_token_id", None)) if i is not None)
    trace = generate(llm, ids, max_new=max_new, temperature=0.0, stop_ids=stops, stop_text="\n")
    steps = list(trace.steps)
    finished = bool(steps) and (steps[-1].token_id in stops or "\n" in steps[-1].token)
    if steps and "\n" in steps[-1].token:  # the line break that ends the answer, and what follows it
        kept = steps[-1].token.split("\n", 1)[0]
        steps = [*steps[:-1], replace(steps[-1], token=kept)] if kept.strip() else steps[:-1]
    if with_attention and steps:
        rows = np.stack([s.attention[:, :, : len(ids)] for s in steps])  # steps × layers × heads × prompt
    else:
        rows = np.zeros((len(steps), llm.n_layers, llm.n_heads, len(ids)), dtype=np.float32)
    # C order, as a cached copy (pickled) has it: sums in another memory order round differently
    attention = np.ascontiguousarray(rows[..., index])
    return LLMTranslation(
        model=llm.name,
        direction=direction,
        source=text,
        prompt=prompt,
        prompt_ids=[int(i) for i in ids],
        prompt_tokens=trace.prompt_tokens,
        source_index=index,
        output_ids=[s.token_id for s in steps],
        output_tokens=[s.token for s in steps],
        attention=attention,
        on_source=attention.sum(axis=-1),
        finished=finished,
    )
