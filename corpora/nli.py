"""Synthetic fine-tuning data built from the lab's grammar (:mod:`corpora.en_fr`), labels true by construction.

The grammar samples a sentence's *structure* (subject, verb, object, adjectives, prepositional phrase)
before it writes the words, so a change made to the structure has a known effect on the meaning. Three
tasks of the kinds BERT §4 fine-tunes on (all English, lower-case grammar tokens):

* **sentence-pair classification (NLI)**: a premise (one clause, no negation) and a hypothesis made from
  it by one edit of its structure, labelled by what the edit does to the meaning:

  - *entailment*: an adjective dropped (the girl eats the green apple → the girl eats the apple), the
    prepositional phrase dropped, or a gendered subject replaced by its pronoun (the girl → she);
  - *contradiction*: a colour changed to another colour (green → red), or the clause negated;
  - *neutral*: the subject replaced by a different noun (the girl → the teacher), or an adjective added
    to a noun phrase that had none (the apple → the big apple): the premise does not say.

  The convention that makes a changed colour a contradiction: each sentence describes one scene, and
  the hypothesis speaks of the same things as the premise (as in SNLI's captions).
* **single-sentence classification**: what the subject of the (first) sentence is — a person, an animal
  or a thing (things, food and places) — read from the structure; relative clauses and prepositional
  phrases put other nouns in the same sentence.
* **span question answering**: a context of two clauses joined by "and"/"but" and a question the
  grammar writes about one of them ("what does the girl eat ?", "who reads a red book ?"); the answer is
  the object's (or the subject's) noun phrase, a span of the context's words (start, end inclusive).

Train and test items come from different seeds, and no test premise, sentence or context occurs in the
training split. :func:`label_of_edit` re-derives an NLI label from the two token sequences alone (an
independent check used by the tests).
"""

from __future__ import annotations

import copy
import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from corpora import en_fr
from corpora.en_fr import NP, Clause, Sentence

__all__ = [
    "NLI_LABELS",
    "SUBJECT_LABELS",
    "NLIPair",
    "QAItem",
    "ClsItem",
    "nli_pairs",
    "qa_items",
    "cls_items",
    "splits",
    "label_of_edit",
    "COLOURS",
]

NLI_LABELS = ("entailment", "contradiction", "neutral")
SUBJECT_LABELS = ("person", "animal", "thing")
ENTAILMENT, CONTRADICTION, NEUTRAL = range(3)
COLOURS = tuple(sorted(a for a, adj in en_fr.ADJS.items() if adj.category == "color"))
_HE = frozenset({"man", "boy", "brother"})
_SHE = frozenset({"woman", "girl", "sister"})
_PRONOUN_SUBJECTS = frozenset({"he", "she", "they", "i", "you", "we"})


@dataclass(frozen=True)
class NLIPair:
    premise: tuple[str, ...]
    hypothesis: tuple[str, ...]
    label: int  # index into NLI_LABELS
    edit: str  # drop-adjective, drop-pp, pronoun, colour, negate, subject, add-adjective


@dataclass(frozen=True)
class QAItem:
    question: tuple[str, ...]
    context: tuple[str, ...]
    start: int  # first answer word in context (inclusive)
    end: int  # last answer word (inclusive)

    @property
    def answer(self) -> tuple[str, ...]:
        return self.context[self.start : self.end + 1]


@dataclass(frozen=True)
class ClsItem:
    tokens: tuple[str, ...]
    label: int  # index into SUBJECT_LABELS


def _tokens(clauses: Sequence[Clause], conjs: Sequence[str] = (), q: str = "") -> tuple[str, ...] | None:
    """The English tokens of a structure, or None when the grammar's validator rejects it."""
    s = Sentence(tuple(clauses), tuple(conjs), q)
    try:
        en_fr.validate(s)
    except ValueError:
        return None
    return en_fr.render(s).src


def _np_tokens(phrase: NP, role: str) -> tuple[str, ...]:
    r = en_fr.Renderer()
    r.noun_phrase(phrase, role)
    return tuple(r.en)


def _simple_clause(sampler: en_fr.Sampler, need_object: bool = True) -> Clause:
    """One clause with a lexical verb and no relative clause, negation or adverb (``depth=1``); with
    ``need_object`` a transitive verb whose object is a noun phrase, given an adjective 70% of the time."""
    rng = sampler.rng
    while True:
        c = sampler.verb_clause(depth=1)
        if c.subj is None or c.subj.coord is not None:
            continue
        if need_object and (c.obj is None or c.obj.pron):
            continue
        if c.obj is not None and c.obj.noun and not c.obj.adjs and rng.random() < 0.7:
            choices = en_fr.attr_adjs(c.obj.noun)
            colours = [a for a in choices if a in COLOURS]
            c.obj.adjs = (rng.choice(colours if colours and rng.random() < 0.5 else choices),)
        if _tokens([c]) is not None:
            return c


def _noun_phrases(c: Clause) -> list[NP]:
    nps = [phrase for phrase in (c.subj, c.obj) if phrase is not None and phrase.noun]
    if c.pp is not None and c.pp.noun_phrase.noun:
        nps.append(c.pp.noun_phrase)
    return nps


_Edit = tuple[str, Callable[[], Clause]]


def _edits(c: Clause, rng: random.Random, sampler: en_fr.Sampler) -> dict[int, list[_Edit]]:
    """The applicable edits of clause ``c`` by label: (name, a function making the changed deep copy)."""
    out: dict[int, list[_Edit]] = {ENTAILMENT: [], CONTRADICTION: [], NEUTRAL: []}

    def edit(label: int, name: str, change: Callable[[Clause], None]) -> None:
        def make() -> Clause:
            h = copy.deepcopy(c)
            change(h)
            return h

        out[label].append((name, make))

    def set_adjs(k: int, adjs: tuple[str, ...]) -> Callable[[Clause], None]:
        def change(h: Clause) -> None:
            _noun_phrases(h)[k].adjs = adjs

        return change

    def set_attr(name: str, value: object) -> Callable[[Clause], None]:
        def change(h: Clause) -> None:
            setattr(h, name, copy.deepcopy(value))

        return change

    for k, phrase in enumerate(_noun_phrases(c)):
        if phrase.adjs:
            drop = rng.randrange(len(phrase.adjs))
            edit(ENTAILMENT, "drop-adjective", set_adjs(k, tuple(a for i, a in enumerate(phrase.adjs) if i != drop)))
        else:
            edit(NEUTRAL, "add-adjective", set_adjs(k, (rng.choice(en_fr.attr_adjs(phrase.noun)),)))
        for i, a in enumerate(phrase.adjs):
            if a in COLOURS:
                others = [o for o in COLOURS if o != a and en_fr.adj_ok(o, phrase.noun)]
                if others:
                    new = rng.choice(others)
                    swapped = tuple(new if j == i else b for j, b in enumerate(phrase.adjs))
                    edit(CONTRADICTION, "colour", set_adjs(k, swapped))
    if c.pp is not None and not en_fr.VERBS[c.verb].need_pp:
        edit(ENTAILMENT, "drop-pp", set_attr("pp", None))
    subj = c.subj
    if (
        subj is not None
        and subj.noun
        and not subj.adjs
        and (subj.plural or subj.noun in _HE | _SHE)
        and subj.det != "a"
        and "person" in en_fr.NOUNS[subj.noun].feats
    ):
        pron = "they" if subj.plural else ("he" if subj.noun in _HE else "she")
        if not (c.obj is not None and c.obj.pron):
            edit(ENTAILMENT, "pronoun", set_attr("subj", NP(pron=pron)))
    edit(CONTRADICTION, "negate", set_attr("neg", "not"))
    if subj is not None:
        for _ in range(10):
            other = sampler.noun_np(en_fr.nouns_with(en_fr.VERBS[c.verb].subj), "subj")
            if other.noun != subj.noun and not (c.obj is not None and other.noun == c.obj.noun):
                edit(NEUTRAL, "subject", set_attr("subj", other))
                break
    return out


def nli_pairs(n: int, seed: int) -> list[NLIPair]:
    """``n`` premise–hypothesis pairs, the three labels in turn (balanced), from seed ``seed``."""
    rng = random.Random(seed)
    sampler = en_fr.Sampler(rng)
    out: list[NLIPair] = []
    while len(out) < n:
        label = len(out) % 3
        c = _simple_clause(sampler, need_object=rng.random() < 0.85)
        premise = _tokens([c])
        options = _edits(c, rng, sampler)[label]
        if premise is None or not options:
            continue
        kinds = sorted({name for name, _ in options})  # each kind of edit equally likely
        name = rng.choice(kinds)
        h = rng.choice([make for edit, make in options if edit == name])()
        hypothesis = _tokens([h])
        if hypothesis is None or hypothesis == premise:
            continue
        out.append(NLIPair(premise, hypothesis, label, name))
    return out


def _subject_label(phrase: NP) -> int:
    if phrase.pron:
        return 0
    feats = en_fr.NOUNS[phrase.noun].feats
    return 0 if "person" in feats else 1 if "animal" in feats else 2


def cls_items(n: int, seed: int) -> list[ClsItem]:
    """``n`` grammar sentences labelled by their (first) subject's kind, the classes in turn."""
    sampler = en_fr.Sampler(random.Random(seed))
    out: list[ClsItem] = []
    while len(out) < n:
        want = len(out) % 3
        s, pair = en_fr.sample_pair(sampler)
        subj = s.clauses[0].subj
        if subj is None or subj.coord is not None or _subject_label(subj) != want:
            continue
        out.append(ClsItem(pair.src, want))
    return out


def qa_items(n: int, seed: int) -> list[QAItem]:
    """``n`` questions on two-clause contexts, "what" (object answer) and "who" (subject answer) in turn."""
    rng = random.Random(seed)
    sampler = en_fr.Sampler(rng)
    out: list[QAItem] = []
    while len(out) < n:
        first, second = _simple_clause(sampler), _simple_clause(sampler)
        if first.verb == second.verb:
            continue
        conj = rng.choice(("and", "but"))
        context = _tokens([first, second], [conj])
        if context is None:
            continue
        target = rng.choice((first, second))
        if len(out) % 2 == 0:  # what does SUBJ VERB ?  → the object
            answer_np, role = target.obj, "obj"
            question = _tokens([Clause(copy.deepcopy(target.subj), "verb", verb=target.verb)], q="what")
        else:  # who VERB OBJ ? → the subject
            answer_np, role = target.subj, "subj"
            question = _tokens(
                [Clause(None, "verb", verb=target.verb, obj=copy.deepcopy(target.obj), pp=copy.deepcopy(target.pp))],
                q="who",
            )
        if question is None or answer_np is None:
            continue
        answer = _np_tokens(answer_np, role)
        spans = [i for i in range(len(context) - len(answer) + 1) if context[i : i + len(answer)] == answer]
        if len(spans) != 1:
            continue
        out.append(QAItem(question, context, spans[0], spans[0] + len(answer) - 1))
    return out


#: seeds of the train and test splits of each task (disjoint streams of the grammar)
_SEEDS = {"train": 101, "test": 202}


@functools.lru_cache(maxsize=8)
def splits(task: str, n_train: int, n_test: int) -> dict[str, list]:
    """{"train": …, "test": …} of a task ("nli", "qa", "cls"); test items whose premise, sentence or
    context occurs in the training split are dropped (so the test split may hold a few less)."""
    makers: dict[str, Callable[[int, int], list]] = {"nli": nli_pairs, "qa": qa_items, "cls": cls_items}
    make = makers[task]
    train, test = make(n_train, _SEEDS["train"]), make(n_test, _SEEDS["test"])
    key: Callable[[object], tuple[str, ...]] = {
        "nli": lambda x: x.premise,
        "qa": lambda x: x.context,
        "cls": lambda x: x.tokens,
    }[task]
    seen = {key(x) for x in train}
    return {"train": train, "test": [x for x in test if key(x) not in seen]}


def label_of_edit(premise: Sequence[str], hypothesis: Sequence[str]) -> int | None:
    """The NLI label read off the two token sequences alone (no structure), or None when the edit is
    none of the generator's: an independent check of :func:`nli_pairs` (tests/test_finetune_data.py).
    "an" reads as "a" (an adjective dropped or added changes the article)."""
    p = ["a" if t == "an" else t for t in premise]
    h = ["a" if t == "an" else t for t in hypothesis]
    adjectives = set(en_fr.ADJS)
    if "not" in h and "not" not in p:
        return CONTRADICTION
    if len(h) == len(p):
        diff = [i for i, (a, b) in enumerate(zip(p, h)) if a != b]
        if len(diff) == 1 and p[diff[0]] in COLOURS and h[diff[0]] in COLOURS:
            return CONTRADICTION

    def minus(longer: list[str], shorter: list[str]) -> list[str] | None:
        """The tokens of ``longer`` left out of ``shorter`` when it is a subsequence of it, else None."""
        left, k = [], 0
        for t in longer:
            if k < len(shorter) and shorter[k] == t:
                k += 1
            else:
                left.append(t)
        return left if k == len(shorter) else None

    dropped = minus(p, h)
    if dropped and all(t in adjectives for t in dropped):
        return ENTAILMENT
    if dropped and dropped[0] in en_fr.PREPS and p[-len(dropped) - 1 : -1] == dropped:
        return ENTAILMENT  # a trailing prepositional phrase
    added = minus(h, p)
    if added and len(added) == 1 and added[0] in adjectives:
        return NEUTRAL
    # the subject replaced: a common tail after the verb, the verb's stem the same
    tail = 0
    while tail < min(len(p), len(h)) and p[-1 - tail] == h[-1 - tail]:
        tail += 1
    head_p, head_h = p[: len(p) - tail], h[: len(h) - tail]
    subj_p, subj_h = head_p, head_h  # the verb is in the common tail, or the heads end with its two forms
    if len(head_p) >= 2 and len(head_h) >= 2 and head_p[-1][:3] == head_h[-1][:3]:
        subj_p, subj_h = head_p[:-1], head_h[:-1]
    if subj_p and subj_h:
        if subj_h in (["he"], ["she"], ["they"]) and subj_p[-1] not in _PRONOUN_SUBJECTS:
            return ENTAILMENT
        if subj_h[-1] != subj_p[-1] and subj_h[-1] not in _PRONOUN_SUBJECTS:
            return NEUTRAL
    return None


def describe() -> str:
    """One line on the data, for training records and the page."""
    return (
        "synthetic: sentences of the lab's English grammar (corpora/en_fr.py), edited in their structure "
        "so that the label is known (corpora/nli.py)"
    )
