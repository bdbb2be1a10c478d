"""The embedded English→French corpus: a deterministic grammar with gold word alignments.

No data set can be downloaded, so the lab writes its own parallel text. A small grammar
samples a sentence *structure* (clauses, noun phrases, relative clauses, ...) and renders it
in both languages at once, so every French token knows the English token it came from.

Phenomena (the ``tags`` of a :class:`Pair`, see :data:`TAGS`):

* ``adj_noun`` — adjective after the noun (the red car → la voiture rouge); ``adj_prenominal``
  for the few French adjectives that stay in front (petit, grand, vieux/vieil, jeune, beau/bel,
  bon, nouveau/nouvel);
* ``agreement`` — gender/number agreement of adjectives and verbs (verts/vertes, mangent);
* ``pronoun`` / ``object_pronoun`` — subject pronouns; object pronouns move before the verb
  (she sees him → elle le voit);
* ``negation`` — not → ne … pas, never → ne … jamais, un/une/des → de after a negation;
* ``possessive`` — my/your/his/her/our/their agree with the possessed noun (sa voiture,
  son école, ses livres);
* ``number`` — counts (two red cars → deux voitures rouges); ``age`` — she is five years
  old → elle a cinq ans, … five years younger than me → … cinq ans de moins que moi;
* ``comparison`` — bigger than → plus grand que, more expensive → plus cher, better →
  meilleur, as big as → aussi grand que;
* ``question`` — yes/no questions always with « est-ce que », where/who/what/why;
* ``relative`` — that → qui (subject gap) or que (object gap); ``coordination`` — and/but/
  because between clauses, and between subject noun phrases;
* ``pp`` — prepositional phrases; ``adverb`` — often/always/sometimes after the French verb;
  ``elision`` — l', n', qu', d', j', m'.

Fixed choices, so that every English sentence has exactly one translation: you → vous (with a
singular adjective), they → ils, I/you/we take masculine adjectives, yes/no questions use
« est-ce que », and « where is NP? » → « où est NP ? ».

Gold alignment: every French token is linked to exactly one English token (one-to-many from
the English side: not → ne + pas, bigger → plus + grand, because → parce + que, the question
auxiliary does/is → est-ce + que). English tokens left unlinked: do/does in a negation, and
"old" in "… years old".

Splits: :func:`heldout_combinations` lists adjective+noun pairs (e.g. ("red", "car")) never
used attributively in training; every valid/test pair contains at least one of them.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import random
from dataclasses import dataclass
from collections.abc import Sequence
from typing import TypeVar

from corpora.text import detokenize, tokenize

__all__ = [
    "Pair",
    "TAGS",
    "generate_pairs",
    "make_splits",
    "heldout_combinations",
    "attributive_pairs",
    "example_sentences",
    "lookup",
    "vocabulary",
]


@dataclass(frozen=True)
class Pair:
    """One sentence pair with gold word alignment."""

    src: tuple[str, ...]  # English tokens, exactly as tokenize() gives them
    tgt: tuple[str, ...]  # French tokens
    alignment: tuple[tuple[int, int], ...]  # gold links (src_index, tgt_index), sorted
    tags: tuple[str, ...] = ()  # phenomena present, e.g. ("adj_noun", "negation")


#: Every phenomenon tag the generator can emit.
TAGS: tuple[str, ...] = (
    "adj_noun",
    "adj_prenominal",
    "agreement",
    "pronoun",
    "object_pronoun",
    "negation",
    "possessive",
    "number",
    "age",
    "comparison",
    "question",
    "relative",
    "coordination",
    "pp",
    "adverb",
    "elision",
)

# --------------------------------------------------------------------------- lexicon


@dataclass(frozen=True)
class _Noun:
    key: str
    en_pl: str
    fr: str
    fr_pl: str
    fem: bool
    feats: frozenset[str]


@dataclass(frozen=True)
class _Adj:
    key: str
    fr: tuple[str, str, str, str]  # masc sg, fem sg, masc pl, fem pl
    pre: bool  # French position: before the noun
    category: str  # size / age / opinion / color / quality
    feats: frozenset[str]  # noun features it applies to
    include: frozenset[str]  # extra nouns it applies to
    exclude: frozenset[str]  # nouns it does not apply to
    comp: tuple[str, ...]  # English comparative tokens, () = not comparable
    ms_vowel: str | None  # masc sg before a vowel (vieil, bel, nouvel)
    comp_fr: tuple[str, str, str, str] | None = None  # irregular comparative (meilleur)
    attributive_only: bool = False


@dataclass(frozen=True)
class _Verb:
    key: str
    en3: str
    fr: tuple[str, str, str, str, str]  # je, vous, il/elle, nous, ils
    subj: frozenset[str]
    obj: frozenset[str] | None  # None: intransitive
    pron_obj: bool  # object may be a person pronoun (him → le)
    preps: tuple[str, ...]
    need_pp: bool = False


@dataclass(frozen=True)
class _Agr:
    slot: int  # 0 je, 1 vous, 2 il/elle, 3 nous, 4 ils
    en3: bool  # English third person singular (eats, does, is)
    be: str  # am / is / are
    fem: bool
    pl: bool
    person: int


@dataclass(frozen=True)
class _Pron:
    key: str
    en_obj: str
    fr_subj: str
    fr_clitic: str
    fr_disj: str
    agr: _Agr


def _feats(s: str) -> frozenset[str]:
    return frozenset(s.split())


def _adj_forms(forms: str) -> tuple[str, str, str, str]:
    """An adjective's French forms from one row: masc sg, fem sg, masc pl, fem pl."""
    ms, fs, mp, fp = forms.split()
    return ms, fs, mp, fp


def _verb_forms(forms: str) -> tuple[str, str, str, str, str]:
    """A verb's French present forms from one row: je, vous, il/elle, nous, ils."""
    je, vous, il, nous, ils = forms.split()
    return je, vous, il, nous, ils


_NOUN_ROWS = [
    # English sg, pl, French sg, pl, gender, features
    ("man", "men", "homme", "hommes", "m", "person"),
    ("woman", "women", "femme", "femmes", "f", "person"),
    ("boy", "boys", "garçon", "garçons", "m", "person"),
    ("girl", "girls", "fille", "filles", "f", "person"),
    ("child", "children", "enfant", "enfants", "m", "person"),
    ("brother", "brothers", "frère", "frères", "m", "person"),
    ("sister", "sisters", "sœur", "sœurs", "f", "person"),
    ("teacher", "teachers", "professeur", "professeurs", "m", "person"),
    ("cat", "cats", "chat", "chats", "m", "animal washable"),
    ("dog", "dogs", "chien", "chiens", "m", "animal washable"),
    ("bird", "birds", "oiseau", "oiseaux", "m", "animal"),
    ("horse", "horses", "cheval", "chevaux", "m", "animal washable"),
    ("cow", "cows", "vache", "vaches", "f", "animal"),
    ("mouse", "mice", "souris", "souris", "f", "animal"),
    ("apple", "apples", "pomme", "pommes", "f", "food"),
    ("cake", "cakes", "gâteau", "gâteaux", "m", "food"),
    ("egg", "eggs", "œuf", "œufs", "m", "food"),
    ("banana", "bananas", "banane", "bananes", "f", "food"),
    (
        "car",
        "cars",
        "voiture",
        "voitures",
        "f",
        "thing vehicle washable inside container under behind paintable buyable",
    ),
    ("book", "books", "livre", "livres", "m", "thing readable writable openable buyable"),
    ("letter", "letters", "lettre", "lettres", "f", "thing readable writable openable"),
    ("box", "boxes", "boîte", "boîtes", "f", "thing openable container paintable buyable"),
    ("bag", "bags", "sac", "sacs", "m", "thing openable container buyable"),
    ("door", "doors", "porte", "portes", "f", "thing openable paintable washable behind"),
    ("window", "windows", "fenêtre", "fenêtres", "f", "thing openable paintable washable"),
    ("table", "tables", "table", "tables", "f", "thing surface under paintable washable buyable"),
    ("chair", "chairs", "chaise", "chaises", "f", "thing surface under paintable washable buyable"),
    ("bed", "beds", "lit", "lits", "m", "thing surface under buyable"),
    ("hat", "hats", "chapeau", "chapeaux", "m", "thing wearable washable buyable"),
    ("shirt", "shirts", "chemise", "chemises", "f", "thing wearable washable buyable"),
    ("dress", "dresses", "robe", "robes", "f", "thing wearable washable buyable"),
    ("key", "keys", "clé", "clés", "f", "thing"),
    ("umbrella", "umbrellas", "parapluie", "parapluies", "m", "thing buyable"),
    ("house", "houses", "maison", "maisons", "f", "place inside container behind paintable buyable"),
    ("garden", "gardens", "jardin", "jardins", "m", "place inside"),
    ("kitchen", "kitchens", "cuisine", "cuisines", "f", "place inside paintable"),
    ("room", "rooms", "chambre", "chambres", "f", "place inside container paintable"),
    ("school", "schools", "école", "écoles", "f", "place inside behind"),
    ("tree", "trees", "arbre", "arbres", "m", "place under behind"),
    ("hotel", "hotels", "hôtel", "hôtels", "m", "place inside behind"),
]
NOUNS: dict[str, _Noun] = {r[0]: _Noun(r[0], r[1], r[2], r[3], r[4] == "f", _feats(r[5])) for r in _NOUN_ROWS}

_COLOR_PLACES = "house room kitchen"
_ADJ_ROWS = [
    # English, French ms fs mp fp, pre/post, category, features, include, exclude, comparative, ms_vowel
    ("small", "petit petite petits petites", "pre", "size", "person animal thing place food", "", "", "smaller", None),
    ("big", "grand grande grands grandes", "pre", "size", "person animal thing place", "cake", "man", "bigger", None),
    ("old", "vieux vieille vieux vieilles", "pre", "age", "person animal thing place", "", "", "older", "vieil"),
    ("young", "jeune jeune jeunes jeunes", "pre", "age", "person animal", "", "", "younger", None),
    ("new", "nouveau nouvelle nouveaux nouvelles", "pre", "age", "thing place", "teacher", "tree", "", "nouvel"),
    (
        "beautiful",
        "beau belle beaux belles",
        "pre",
        "opinion",
        "person animal thing place food",
        "",
        "",
        "more beautiful",
        "bel",
    ),
    ("good", "bon bonne bons bonnes", "pre", "opinion", "animal thing place food", "", "", "better", None),
    ("red", "rouge rouge rouges rouges", "post", "color", "thing", "apple bird " + _COLOR_PLACES, "", "", None),
    (
        "green",
        "vert verte verts vertes",
        "post",
        "color",
        "thing",
        "apple banana tree bird " + _COLOR_PLACES,
        "",
        "",
        None,
    ),
    ("blue", "bleu bleue bleus bleues", "post", "color", "thing", "bird " + _COLOR_PLACES, "", "", None),
    ("black", "noir noire noirs noires", "post", "color", "thing animal", _COLOR_PLACES, "", "", None),
    ("white", "blanc blanche blancs blanches", "post", "color", "thing animal", "egg " + _COLOR_PLACES, "", "", None),
    (
        "yellow",
        "jaune jaune jaunes jaunes",
        "post",
        "color",
        "thing",
        "apple banana bird " + _COLOR_PLACES,
        "",
        "",
        None,
    ),
    ("happy", "heureux heureuse heureux heureuses", "post", "quality", "person animal", "", "", "happier", None),
    ("sad", "triste triste tristes tristes", "post", "quality", "person animal", "", "", "sadder", None),
    ("tired", "fatigué fatiguée fatigués fatiguées", "post", "quality", "person animal", "", "", "more tired", None),
    ("rich", "riche riche riches riches", "post", "quality", "person", "", "", "richer", None),
    (
        "smart",
        "intelligent intelligente intelligents intelligentes",
        "post",
        "quality",
        "person animal",
        "",
        "",
        "smarter",
        None,
    ),
    ("lazy", "paresseux paresseuse paresseux paresseuses", "post", "quality", "person animal", "", "", "lazier", None),
    ("polite", "poli polie polis polies", "post", "quality", "person", "", "", "more polite", None),
    ("strong", "fort forte forts fortes", "post", "quality", "person animal", "", "", "stronger", None),
    ("fast", "rapide rapide rapides rapides", "post", "quality", "animal vehicle", "", "", "faster", None),
    ("heavy", "lourd lourde lourds lourdes", "post", "quality", "thing", "horse cow", "", "heavier", None),
    ("expensive", "cher chère chers chères", "post", "quality", "thing food", "house", "", "more expensive", None),
    ("clean", "propre propre propres propres", "post", "quality", "thing place animal", "", "tree", "cleaner", None),
    ("dirty", "sale sale sales sales", "post", "quality", "thing place animal", "", "tree", "dirtier", None),
    ("empty", "vide vide vides vides", "post", "quality", "container", "", "", "", None),
]
ADJS: dict[str, _Adj] = {}
for _r in _ADJ_ROWS:
    ADJS[_r[0]] = _Adj(
        key=_r[0],
        fr=_adj_forms(_r[1]),
        pre=_r[2] == "pre",
        category=_r[3],
        feats=_feats(_r[4]),
        include=_feats(_r[5]),
        exclude=_feats(_r[6]),
        comp=tuple(_r[7].split()),
        ms_vowel=_r[8],
        comp_fr=("meilleur", "meilleure", "meilleurs", "meilleures") if _r[0] == "good" else None,
        attributive_only=_r[0] == "new",
    )

_VERB_ROWS = [
    # English, 3sg, French je vous il nous ils, subject features, object features, pronoun
    # objects, prepositions for an optional phrase
    ("eat", "eats", "mange mangez mange mangeons mangent", "person animal", "food", False, "in with"),
    ("see", "sees", "vois voyez voit voyons voient", "person animal", "person animal thing food place", True, "in"),
    ("like", "likes", "aime aimez aime aimons aiment", "person animal", "animal thing food place", False, ""),
    ("have", "has", "ai avez a avons ont", "person", "animal thing buyable", False, ""),
    ("want", "wants", "veux voulez veut voulons veulent", "person animal", "animal thing food buyable", False, ""),
    ("buy", "buys", "achète achetez achète achetons achètent", "person", "buyable food", False, "for"),
    (
        "find",
        "finds",
        "trouve trouvez trouve trouvons trouvent",
        "person animal",
        "animal thing food",
        False,
        "in under behind on",
    ),
    ("read", "reads", "lis lisez lit lisons lisent", "person", "readable", False, "in on"),
    ("write", "writes", "écris écrivez écrit écrivons écrivent", "person", "writable", False, "in for"),
    ("open", "opens", "ouvre ouvrez ouvre ouvrons ouvrent", "person", "openable", False, ""),
    ("close", "closes", "ferme fermez ferme fermons ferment", "person", "openable", False, ""),
    ("wash", "washes", "lave lavez lave lavons lavent", "person", "washable", False, "in"),
    ("wear", "wears", "porte portez porte portons portent", "person", "wearable", False, ""),
    ("know", "knows", "connais connaissez connaît connaissons connaissent", "person", "person place", True, ""),
    ("help", "helps", "aide aidez aide aidons aident", "person animal", "person", True, "in"),
    ("call", "calls", "appelle appelez appelle appelons appellent", "person", "person animal", True, ""),
    (
        "watch",
        "watches",
        "regarde regardez regarde regardons regardent",
        "person animal",
        "person animal thing place",
        True,
        "in",
    ),
    ("take", "takes", "prends prenez prend prenons prennent", "person", "thing food", False, ""),
    ("sell", "sells", "vends vendez vend vendons vendent", "person", "buyable animal", False, ""),
    ("paint", "paints", "peins peignez peint peignons peignent", "person", "paintable", False, "for"),
    ("sleep", "sleeps", "dors dormez dort dormons dorment", "person animal", None, False, "in on under"),
    ("run", "runs", "cours courez court courons courent", "person animal", None, False, "in with behind"),
    ("sing", "sings", "chante chantez chante chantons chantent", "person", None, False, "in with for"),
    ("dance", "dances", "danse dansez danse dansons dansent", "person", None, False, "in with"),
    ("swim", "swims", "nage nagez nage nageons nagent", "person animal", None, False, "with"),
    ("work", "works", "travaille travaillez travaille travaillons travaillent", "person", None, False, "in with for"),
    ("play", "plays", "joue jouez joue jouons jouent", "person animal", None, False, "in with under"),
    ("walk", "walks", "marche marchez marche marchons marchent", "person animal", None, False, "in with"),
    ("live", "lives", "vis vivez vit vivons vivent", "person animal", None, False, "in with"),
    ("wait", "waits", "attends attendez attend attendons attendent", "person animal", None, False, "in under behind"),
]
VERBS: dict[str, _Verb] = {
    r[0]: _Verb(
        r[0],
        r[1],
        _verb_forms(r[2]),
        _feats(r[3]),
        None if r[4] is None else _feats(r[4]),
        r[5],
        tuple(r[6].split()),
        need_pp=r[0] == "live",
    )
    for r in _VERB_ROWS
}
_TRANSITIVE = tuple(k for k, v in VERBS.items() if v.obj is not None)
_INTRANSITIVE = tuple(k for k, v in VERBS.items() if v.obj is None)

_ETRE = ("suis", "êtes", "est", "sommes", "sont")
_AVOIR = ("ai", "avez", "a", "avons", "ont")
_PRONS: dict[str, _Pron] = {
    "i": _Pron("i", "me", "je", "me", "moi", _Agr(0, False, "am", False, False, 1)),
    "you": _Pron("you", "you", "vous", "vous", "vous", _Agr(1, False, "are", False, False, 2)),
    "he": _Pron("he", "him", "il", "le", "lui", _Agr(2, True, "is", False, False, 3)),
    "she": _Pron("she", "her", "elle", "la", "elle", _Agr(2, True, "is", True, False, 3)),
    "we": _Pron("we", "us", "nous", "nous", "nous", _Agr(3, False, "are", False, True, 1)),
    "they": _Pron("they", "them", "ils", "les", "eux", _Agr(4, False, "are", False, True, 3)),
}
_PRON_KEYS = tuple(_PRONS)
_AGR_SG = _Agr(2, True, "is", False, False, 3)
_AGR_PL = _Agr(4, False, "are", False, True, 3)
_WHO_AGR = _AGR_SG

_POSSESSIVES = {  # English → French masc sg, fem sg, plural
    "my": ("mon", "ma", "mes"),
    "your": ("votre", "votre", "vos"),
    "his": ("son", "sa", "ses"),
    "her": ("son", "sa", "ses"),
    "our": ("notre", "notre", "nos"),
    "their": ("leur", "leur", "leurs"),
}
_COUNTS = {
    "two": "deux",
    "three": "trois",
    "four": "quatre",
    "five": "cinq",
    "six": "six",
    "seven": "sept",
    "eight": "huit",
    "nine": "neuf",
    "ten": "dix",
}
_AGES = {"one": "un", **_COUNTS, "twenty": "vingt", "thirty": "trente"}
_ADVERBS = {"often": "souvent", "always": "toujours", "sometimes": "parfois"}
PREPS = {"in": "dans", "on": "sur", "under": "sous", "behind": "derrière", "with": "avec", "for": "pour"}
# Noun features a preposition's object needs: after a verb, and after "is" (location).
_PREP_FEATS = {
    "in": _feats("inside"),
    "on": _feats("surface"),
    "under": _feats("under"),
    "behind": _feats("behind"),
    "with": _feats("person animal"),
    "for": _feats("person"),
}
_LOC_PREP_FEATS = {**_PREP_FEATS, "in": _feats("inside container")}
_LOC_PREPS = ("in", "on", "under", "behind")
_PHYSICAL = _feats("person animal thing food")
_ALL_FEATS = _feats("person animal thing food place")

# --------------------------------------------------------------------------- structure


@dataclass(slots=True)
class NP:
    """A noun phrase: a pronoun, or determiner + adjectives (English order) + noun."""

    noun: str = ""
    pron: str = ""
    det: str = "the"  # the, a, some, my/your/his/her/our/their, two..ten
    plural: bool = False
    adjs: tuple[str, ...] = ()
    rel: Rel | None = None
    coord: NP | None = None  # "NP and coord" (subjects only)


@dataclass(slots=True)
class PP:
    """A prepositional phrase."""

    prep: str
    noun_phrase: NP


@dataclass(slots=True)
class Clause:
    """One clause. ``subj`` None is a subject gap (relative clause, who-question); ``obj``
    None with a transitive verb is an object gap (relative clause, what-question)."""

    subj: NP | None
    predicate_type: str  # verb, adj, loc, comp, equal, age, agecomp
    verb: str = ""
    obj: NP | None = None
    pp: PP | None = None  # verb adjunct, or the predicate of type "loc"
    adj: str = ""
    std: NP | None = None  # standard of comparison ("than NP")
    num: str = ""
    older: bool = True
    neg: str = ""  # "", "not", "never"
    adv: str = ""


@dataclass(slots=True)
class Rel:
    """A relative clause introduced by "that"; ``gap`` is "subj" or "obj"."""

    gap: str
    clause: Clause


@dataclass(slots=True)
class Sentence:
    """Clauses joined by conjunctions ("and", "but", "because", ","), or one question."""

    clauses: tuple[Clause, ...]
    conjs: tuple[str, ...] = ()
    q: str = ""  # "", yn, where, who, what, why


# --------------------------------------------------------------------------- predicates


def adj_ok(adj: str, noun: str) -> bool:
    a = ADJS[adj]
    if noun in a.exclude:
        return False
    return bool(NOUNS[noun].feats & a.feats) or noun in a.include


def _adj_ok_np(adj: str, phrase: NP) -> bool:
    if phrase.pron:
        return "person" in ADJS[adj].feats
    return adj_ok(adj, phrase.noun) and (phrase.coord is None or _adj_ok_np(adj, phrase.coord))


def _np_ok(phrase: NP, feats: frozenset[str]) -> bool:
    """Every conjunct of ``phrase`` has one of ``feats`` (a pronoun counts as a person)."""
    if phrase.pron:
        return "person" in feats
    return bool(NOUNS[phrase.noun].feats & feats) and (phrase.coord is None or _np_ok(phrase.coord, feats))


def _agr_of(phrase: NP) -> _Agr:
    if phrase.pron:
        return _PRONS[phrase.pron].agr
    if phrase.coord is not None:
        fem = NOUNS[phrase.noun].fem and _agr_of(phrase.coord).fem
        return _Agr(4, False, "are", fem, True, 3)
    if phrase.plural:
        return _Agr(4, False, "are", NOUNS[phrase.noun].fem, True, 3)
    return _Agr(2, True, "is", NOUNS[phrase.noun].fem, False, 3)


def nouns_with(feats: frozenset[str], exclude: str = "") -> tuple[str, ...]:
    return _nouns_with_cached(feats, exclude)


@functools.cache
def _nouns_with_cached(feats: frozenset[str], exclude: str) -> tuple[str, ...]:
    return tuple(k for k, n in NOUNS.items() if n.feats & feats and k != exclude)


@functools.cache
def attr_adjs(noun: str) -> tuple[str, ...]:
    """Adjectives that can modify ``noun`` attributively, in lexicon order."""
    return tuple(a for a in ADJS if adj_ok(a, noun))


@functools.cache
def _pred_adjs(noun: str) -> tuple[str, ...]:
    """Adjectives that can be predicated of ``noun`` ("" = a person pronoun)."""
    if not noun:
        return tuple(a for a, A in ADJS.items() if "person" in A.feats and not A.attributive_only)
    return tuple(a for a in attr_adjs(noun) if not ADJS[a].attributive_only)


@functools.cache
def _adj_pairs(noun: str) -> tuple[tuple[str, str], ...]:
    """Two-adjective sequences (English order) that can modify ``noun``."""
    cands = attr_adjs(noun)
    return tuple((a, b) for a in cands for b in cands if _adj_pair_ok(a, b))


def _adj_pair_ok(first: str, second: str) -> bool:
    """Two adjectives in English order: size/age/opinion + color, or quality + age."""
    a, b = ADJS[first], ADJS[second]
    return (a.pre and b.category == "color") or (a.category == "quality" and b.category == "age")


def _verb_takes(verb: str, feats: frozenset[str]) -> bool:
    """``verb`` is transitive and takes an object with one of ``feats``."""
    o = VERBS[verb].obj
    return o is not None and bool(o & feats)


def _verb_can_take(verb: str, noun: str) -> bool:
    return _verb_takes(verb, NOUNS[noun].feats)


@functools.cache
def _verbs_taking(noun: str) -> tuple[str, ...]:
    return tuple(v for v in _TRANSITIVE if _verb_can_take(v, noun))


@functools.cache
def _verbs_for_subject(feats: frozenset[str], transitive: bool) -> tuple[str, ...]:
    pool = _TRANSITIVE if transitive else _INTRANSITIVE
    return tuple(v for v in pool if VERBS[v].subj & feats)


def _predicate_ok(adj: str, subj: NP) -> bool:
    """No "the red car is red" or "the red car is green": a predicate adjective repeats
    none of the subject's adjectives, and is no color when the subject already has one."""
    if subj.pron:
        return True
    if adj in subj.adjs:
        return False
    return not (ADJS[adj].category == "color" and any(ADJS[a].category == "color" for a in subj.adjs))


def _small(phrase: NP) -> bool:
    """Things and food can be in a box or a bag; people and animals cannot."""
    return not phrase.pron and bool(NOUNS[phrase.noun].feats & _feats("thing food"))


def _cmp_class(phrase: NP) -> str:
    """What a noun phrase may be compared with: people and animals with each other, things
    with things, food with food, places with places."""
    if phrase.pron:
        return "animate"
    f = NOUNS[phrase.noun].feats
    if f & _feats("person animal"):
        return "animate"
    return next(c for c in ("thing", "food", "place") if c in f)


def _std_nouns(adj: str, subj: NP) -> tuple[str, ...]:
    """Nouns a subject can be compared with: same adjective, same class, another noun."""
    return _std_nouns_cached(adj, _cmp_class(subj), "" if subj.pron else subj.noun)


@functools.cache
def _std_nouns_cached(adj: str, cls: str, noun: str) -> tuple[str, ...]:
    return tuple(n for n in NOUNS if adj_ok(adj, n) and n != noun and _cmp_class(NP(noun=n)) == cls)


def _pron_clash(a: str, b: str) -> bool:
    """I … me, we … us, you … you: a reflexive meaning the grammar does not generate."""
    pa, pb = _PRONS[a].agr.person, _PRONS[b].agr.person
    return pa == pb and pa in (1, 2) or a == b


# --------------------------------------------------------------------------- sampling


_Table = tuple[tuple[str, ...], tuple[float, ...]]


def _table(*pairs: tuple[str, float]) -> _Table:
    """A weighted choice table: items and cumulative weights."""
    return tuple(p[0] for p in pairs), tuple(itertools.accumulate(p[1] for p in pairs))


def _pick(rng: random.Random, table: _Table) -> str:
    items, cum = table
    return items[bisect.bisect_right(cum, rng.random() * cum[-1])]


_DETS = {
    "subj": _table(("the", 45), ("a", 13), ("poss", 27), ("count", 15)),
    "obj": _table(("the", 35), ("a", 20), ("some", 10), ("poss", 25), ("count", 10)),
    "pp": _table(("the", 60), ("a", 10), ("poss", 30)),
    "std": _table(("the", 60), ("poss", 40)),
}
_Q_KINDS = _table(("yn", 35), ("where", 20), ("who", 15), ("what", 15), ("why", 15))
_YN_PREDICATE_TYPES = _table(("verb", 60), ("adj", 20), ("loc", 6), ("comp", 8), ("age", 6))
_CONJS = _table(("and", 50), ("but", 30), ("because", 20))
_POSS_KEYS = tuple(_POSSESSIVES)
_NO_POSSESSIVE = frozenset({"man", "woman"})  # "her man", "their woman": not what we mean
_COUNT_KEYS = tuple(_COUNTS)
_AGE_KEYS = tuple(_AGES)
_ANIMAL_AGE_KEYS = tuple(k for k in _AGES if k not in ("twenty", "thirty"))


def _age_keys(phrase: NP) -> tuple[str, ...]:
    """Ages a subject can have: twenty and thirty only for people."""
    return _AGE_KEYS if _np_ok(phrase, _feats("person")) else _ANIMAL_AGE_KEYS


class Sampler:
    """Draws sentence structures from the grammar with a seeded ``random.Random``."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    # ---- noun phrases
    def noun_np(self, cands: Sequence[str], role: str, rel: bool = False, question: bool = False) -> NP:
        rng = self.rng
        noun = rng.choice(cands)
        det = _pick(rng, _DETS[role])
        if det == "some" and question:
            det = "the"
        if det == "poss":
            det = "the" if noun in _NO_POSSESSIVE else rng.choice(_POSS_KEYS)
        if det == "count":
            det, plural = rng.choice(_COUNT_KEYS), True
        elif det in ("a",):
            plural = False
        elif det == "some":
            plural = True
        else:
            plural = rng.random() < 0.35
        adjs: tuple[str, ...] = ()
        r = rng.random()
        if r < 0.40:
            cands_a = attr_adjs(noun)
            first = rng.choice(cands_a)
            adjs = (first,)
            if r < 0.07:
                pairs = _adj_pairs(noun)
                if pairs:
                    adjs = rng.choice(pairs)
        phrase = NP(noun=noun, det=det, plural=plural, adjs=adjs)
        if rel and rng.random() < 0.12:
            phrase.rel = self.relative(phrase)
        return phrase

    def pronoun(self, avoid: str = "", no_i: bool = False) -> NP:
        while True:
            p = self.rng.choice(_PRON_KEYS)
            if (avoid and _pron_clash(p, avoid)) or (no_i and p == "i"):
                continue
            return NP(pron=p)

    def subject(
        self, feats: frozenset[str], rel: bool = True, coord: bool = False, question: bool = False, p_pron: float = 0.35
    ) -> NP:
        rng = self.rng
        if "person" in feats and rng.random() < p_pron:
            return self.pronoun(no_i=question)
        phrase = self.noun_np(nouns_with(feats), "subj", rel=rel, question=question)
        if coord and phrase.rel is None and rng.random() < 0.06:
            other = self.noun_np(nouns_with(feats, phrase.noun), "subj")
            phrase.coord = other
        return phrase

    def obj_for(self, verb: str, subj: NP | None, rel: bool = True, question: bool = False) -> NP:
        v = VERBS[verb]
        if v.obj is None:
            raise ValueError(f"{verb} is intransitive: it takes no object")
        if v.pron_obj and self.rng.random() < 0.45:
            return self.pronoun(avoid=subj.pron if subj is not None and subj.pron else "")
        exclude = subj.noun if subj is not None and subj.noun else ""
        return self.noun_np(nouns_with(v.obj, exclude), "obj", rel=rel, question=question)

    def pp(self, prep: str, avoid: str = "", small: bool = False, avoid_pron: str = "") -> PP:
        """A prepositional phrase; ``small``: "in" may also take a box or a bag; ``avoid``
        and ``avoid_pron``: the subject's noun or pronoun (no "I sing with me")."""
        if prep in ("with", "for") and self.rng.random() < 0.25:
            return PP(prep, self.pronoun(avoid=avoid_pron))
        feats = (_LOC_PREP_FEATS if small else _PREP_FEATS)[prep]
        return PP(prep, self.noun_np(nouns_with(feats, avoid), "pp"))

    def standard(self, adj: str, subj: NP, person_ok: bool) -> NP:
        """The "than …" phrase: a compatible noun phrase or a disjunctive pronoun."""
        rng = self.rng
        if person_ok and rng.random() < 0.35:
            return self.pronoun(avoid=subj.pron)
        return self.noun_np(_std_nouns(adj, subj), "std")

    # ---- clauses
    def relative(self, head: NP) -> Rel:
        """A relative clause on ``head`` (no further relatives inside)."""
        rng = self.rng
        noun = head.noun
        feats = NOUNS[noun].feats
        by_obj = _verbs_taking(noun)
        if by_obj and rng.random() < 0.4:
            verb = rng.choice(by_obj)
            subj = self.subject(VERBS[verb].subj, rel=False)
            if subj.noun == noun:
                subj = self.pronoun()
            c = Clause(subj, "verb", verb=verb)
            if rng.random() < 0.15:
                c.neg = "not"
            return Rel("obj", c)
        predicate_types = [("adj", 2.0)]
        if _verbs_for_subject(feats, True) or _verbs_for_subject(feats, False):
            predicate_types.append(("verb", 6.0))
        if feats & _PHYSICAL:
            predicate_types.append(("loc", 1.0))
        if feats & _feats("person animal"):
            predicate_types.append(("age", 1.0))
        predicate_type = _pick(rng, _table(*predicate_types))
        if predicate_type == "verb":
            c = self.verb_clause(gap_feats=feats, gap_noun=noun, depth=1)
        elif predicate_type == "adj":
            adj = rng.choice(_pred_adjs(noun))
            while not _predicate_ok(adj, head):
                adj = rng.choice(_pred_adjs(noun))
            c = Clause(None, "adj", adj=adj)
        elif predicate_type == "loc":
            prep = rng.choice(_LOC_PREPS)
            c = Clause(None, "loc", pp=self.pp(prep, avoid=noun, small=_small(head)))
        else:
            c = Clause(None, "age", num=rng.choice(_age_keys(NP(noun=noun))))
        if rng.random() < 0.15:
            c.neg = "not"
        return Rel("subj", c)

    def verb_clause(
        self, gap_feats: frozenset[str] | None = None, gap_noun: str = "", depth: int = 0, question: str = ""
    ) -> Clause:
        """A clause with a lexical verb; a subject gap when ``gap_feats`` is given."""
        rng = self.rng
        transitive = question == "what" or rng.random() < 0.62
        if gap_feats is not None:
            verbs = _verbs_for_subject(gap_feats, transitive) or _verbs_for_subject(gap_feats, not transitive)
            verb = rng.choice(verbs)
            subj = None
        else:
            pool = _TRANSITIVE if transitive else _INTRANSITIVE
            if question == "what":
                pool = _WHAT_VERBS
            verb = rng.choice(pool)
            subj = self.subject(
                VERBS[verb].subj, rel=depth == 0, coord=depth == 0 and not question, question=bool(question)
            )
        v = VERBS[verb]
        c = Clause(subj, "verb", verb=verb)
        if v.obj is not None and question != "what":
            c.obj = self.obj_for(
                verb, subj if subj is not None else NP(noun=gap_noun), rel=depth == 0, question=bool(question)
            )
        p_pp = 1.0 if v.need_pp else (0.3 if depth == 0 else 0.2)
        if v.preps and rng.random() < p_pp and question != "where":
            avoid = subj.noun if subj is not None else gap_noun
            c.pp = self.pp(rng.choice(v.preps), avoid=avoid, avoid_pron=subj.pron if subj is not None else "")
        if not question and depth == 0:
            r = rng.random()
            if r < 0.16:
                c.neg = "not"
            elif r < 0.22:
                c.neg = "never"
            elif r < 0.32:
                c.adv = rng.choice(tuple(_ADVERBS))
        return c

    def be_clause(self, predicate_type: str, question: str = "") -> Clause:
        """A clause with "be": adjective, location, comparison, age."""
        rng = self.rng
        q = bool(question)
        if predicate_type == "adj":
            subj = self.subject(_ALL_FEATS, coord=not q, question=q)
            adj = rng.choice(_pred_adjs(subj.noun if not subj.pron else ""))
            while not _predicate_ok(adj, subj):
                adj = rng.choice(_pred_adjs(subj.noun if not subj.pron else ""))
            if subj.coord is not None and not _adj_ok_np(adj, subj):
                subj.coord = None
            c = Clause(subj, "adj", adj=adj)
        elif predicate_type == "loc":
            subj = self.subject(_PHYSICAL, question=q)
            prep = rng.choice(_LOC_PREPS)
            c = Clause(subj, "loc", pp=self.pp(prep, avoid=subj.noun, small=_small(subj)))
        elif predicate_type in ("comp", "equal"):
            while True:
                adj = rng.choice(_COMPARABLE)
                A = ADJS[adj]
                person_ok = "person" in A.feats
                if person_ok and rng.random() < 0.35:
                    subj = self.pronoun(no_i=q)
                else:
                    subj = self.noun_np(_ADJ_NOUNS[adj], "subj", rel=True, question=q)
                if _std_nouns(adj, subj):
                    break
            std_person_ok = person_ok and _np_ok(subj, _feats("person animal"))
            c = Clause(subj, predicate_type, adj=adj, std=self.standard(adj, subj, std_person_ok))
        elif predicate_type == "age":
            subj = self.subject(_feats("person animal"), question=q)
            c = Clause(subj, "age", num=rng.choice(_age_keys(subj)))
        else:  # agecomp
            subj = self.subject(_feats("person animal"), question=q)
            person = _np_ok(subj, _feats("person"))
            std = (
                self.pronoun(avoid=subj.pron)
                if person and rng.random() < 0.4
                else self.noun_np(nouns_with(_feats("person" if person else "animal"), subj.noun), "std")
            )
            c = Clause(subj, "agecomp", num=rng.choice(_age_keys(subj)), older=rng.random() < 0.5, std=std)
        if not q:
            r = rng.random()
            if r < 0.18:
                c.neg = "not"
            elif predicate_type == "adj" and _np_ok(subj, _feats("person animal")):
                if r < 0.23:
                    c.neg = "never"
                elif r < 0.32:
                    c.adv = rng.choice(tuple(_ADVERBS))
        return c

    def clause(self) -> Clause:
        predicate_type = _pick(self.rng, _PREDICATE_TYPES)
        if predicate_type == "verb":
            return self.verb_clause()
        return self.be_clause(predicate_type)

    def question(self) -> Sentence:
        rng = self.rng
        q = _pick(rng, _Q_KINDS)
        if q == "yn":
            predicate_type = _pick(rng, _YN_PREDICATE_TYPES)
            c = self.verb_clause(question="yn") if predicate_type == "verb" else self.be_clause(predicate_type, "yn")
        elif q == "where":
            if rng.random() < 0.5:
                subj = self.noun_np(nouns_with(_PHYSICAL), "subj", rel=True, question=True)
                c = Clause(subj, "loc")
            else:
                c = self.verb_clause(question="where")
        elif q == "who":
            if rng.random() < 0.75:
                c = self.verb_clause(gap_feats=_feats("person"), question="who")
            else:
                c = Clause(None, "adj", adj=rng.choice(_pred_adjs("")))
        elif q == "what":
            c = self.verb_clause(question="what")
        else:
            if rng.random() < 0.6:
                c = self.verb_clause(question="why")
            else:
                c = self.be_clause("adj", "why")
        return Sentence((c,), (), q)

    def sentence(self) -> Sentence:
        rng = self.rng
        r = rng.random()
        if r < 0.18:
            return self.question()
        if r < 0.63:
            return Sentence((self.clause(),))
        if r < 0.96:
            conj = _pick(rng, _CONJS)
            return Sentence((self.clause(), self.clause()), (conj,))
        return Sentence((self.clause(), self.clause(), self.clause()), (",", "and"))


_PREDICATE_TYPES = _table(("verb", 58), ("adj", 14), ("loc", 7), ("comp", 8), ("equal", 3), ("age", 5), ("agecomp", 5))
_COMPARABLE = tuple(a for a, A in ADJS.items() if A.comp)
_ADJ_NOUNS = {a: tuple(n for n in NOUNS if adj_ok(a, n)) for a in ADJS}
_WHAT_VERBS = tuple(
    v
    for v in _TRANSITIVE
    if _verb_takes(v, _feats("thing food readable openable wearable washable buyable paintable writable"))
)

# --------------------------------------------------------------------------- rendering

_VOWELS = frozenset("aeiouyàâäéèêëîïôöùûüœ")
_H_MUET = frozenset({"homme", "hommes", "hôtel", "hôtels"})
_ELIDE = {"le": "l'", "la": "l'", "de": "d'", "ne": "n'", "que": "qu'", "je": "j'", "me": "m'"}
_POSS_VOWEL = {"ma": "mon", "sa": "son"}


def _fr_vowel(word: str) -> bool:
    """Does the French word start with a vowel sound (elision, mon école, vieil homme)?"""
    return word[:1] in _VOWELS and word != "y" or word in _H_MUET


class Renderer:
    """Renders a structure in English and French at once; French tokens carry their link."""

    def __init__(self) -> None:
        self.en: list[str] = []
        self.tags: set[str] = set()

    def e(self, word: str) -> int:
        self.en.append(word)
        return len(self.en) - 1

    # ---- noun phrases
    def noun_phrase(self, phrase: NP, role: str, neg: bool = False) -> list[list]:
        """English tokens of ``phrase`` are appended; its French tokens are returned."""
        if phrase.pron:
            p = _PRONS[phrase.pron]
            if role == "subj":
                self.tags.add("pronoun")
                return [[p.fr_subj, self.e(p.key)]]
            if role == "obj":
                self.tags.add("object_pronoun")
                return [[p.fr_clitic, self.e(p.en_obj)]]
            return [[p.fr_disj, self.e(p.en_obj)]]
        n = NOUNS[phrase.noun]
        pl, fem = phrase.plural, n.fem
        det = phrase.det
        if det == "some" and neg:
            d = self.e("any")
        else:
            d = self.e(det)
        adj_ids = [self.e(a) for a in phrase.adjs]
        k = self.e(n.en_pl if pl else n.key)
        noun_fr = n.fr_pl if pl else n.fr
        form = 2 * pl + fem
        pre = [[ADJS[a].fr[form], i] for a, i in zip(phrase.adjs, adj_ids) if ADJS[a].pre]
        post = [[ADJS[a].fr[form], i] for a, i in zip(phrase.adjs, adj_ids) if not ADJS[a].pre]
        for item, a in zip(pre, [a for a in phrase.adjs if ADJS[a].pre]):
            if form == 0 and ADJS[a].ms_vowel and _fr_vowel(noun_fr):
                item[0] = ADJS[a].ms_vowel
        # determiner
        if det == "the":
            det_fr = "les" if pl else ("la" if fem else "le")
        elif det in ("a", "some"):
            if neg:
                det_fr = "de"
            elif det == "a":
                det_fr = "une" if fem else "un"
            else:
                det_fr = "de" if pre else "des"
        elif det in _POSSESSIVES:
            det_fr = _POSSESSIVES[det][2 if pl else int(fem)]
            self.tags.add("possessive")
        else:
            det_fr = _COUNTS[det]
            self.tags.add("number")
        if pre:
            self.tags.add("adj_prenominal")
        if post:
            self.tags.add("adj_noun")
        if phrase.adjs and form:
            self.tags.add("agreement")
        fr = [[det_fr, d], *pre, [noun_fr, k], *post]
        if phrase.rel is not None:
            self.tags.add("relative")
            t = self.e("that")
            if phrase.rel.gap == "subj":
                fr.append(["qui", t])
                fr += self.clause(phrase.rel.clause, head=_agr_of(NP(noun=phrase.noun, plural=pl)))
            else:
                fr.append(["que", t])
                fr += self.clause(phrase.rel.clause)
        if phrase.coord is not None:
            self.tags.add("coordination")
            fr.append(["et", self.e("and")])
            fr += self.noun_phrase(phrase.coord, role)
        return fr

    def pp(self, pp: PP) -> list[list]:
        self.tags.add("pp")
        p = self.e(pp.prep)
        return [[PREPS[pp.prep], p], *self.noun_phrase(pp.noun_phrase, "pp")]

    # ---- clauses
    def clause(self, c: Clause, head: _Agr | None = None, q: str = "") -> list[list]:
        """Render one clause; ``head`` is the agreement of a subject gap's antecedent."""
        if c.predicate_type == "verb":
            return self._verb_clause(c, head, q)
        return self._be_clause(c, head, q)

    def _question_prefix(self, q: str) -> list[list]:
        if q == "where":
            return [["où", self.e("where")]]
        if q == "why":
            return [["pourquoi", self.e("why")]]
        if q == "what":
            return [["que", self.e("what")]]
        return []

    def _verb_clause(self, c: Clause, head: _Agr | None, q: str) -> list[list]:
        v = VERBS[c.verb]
        fr: list[list] = []
        ne: list[list] = []
        pas: list[list] = []
        adv: list[list] = []
        if q in ("yn", "where", "why", "what"):
            self.tags.add("question")
            fr += self._question_prefix(q)
            subj = _needed(c.subj, "question without a subject")
            agr = _agr_of(subj)
            d = self.e("does" if agr.en3 else "do")
            fr += [["est-ce", d], ["que", d]]
            fr += self.noun_phrase(subj, "subj")
            vi = self.e(v.key)
        else:
            if q == "who":
                self.tags.add("question")
                fr.append(["qui", self.e("who")])
                agr = _WHO_AGR
            elif c.subj is None:
                agr = _needed(head, "subject gap without an antecedent")
            else:
                fr += self.noun_phrase(c.subj, "subj")
                agr = _agr_of(c.subj)
            if c.neg == "not":
                self.e("does" if agr.en3 else "do")
                n = self.e("not")
                vi = self.e(v.key)
                ne, pas = [["ne", n]], [["pas", n]]
            else:
                if c.neg == "never":
                    n = self.e("never")
                    ne, pas = [["ne", n]], [["jamais", n]]
                elif c.adv:
                    self.tags.add("adverb")
                    adv = [[_ADVERBS[c.adv], self.e(c.adv)]]
                vi = self.e(v.en3 if agr.en3 else v.key)
        if c.neg:
            self.tags.add("negation")
        if agr.slot == 4:
            self.tags.add("agreement")
        clitic: list[list] = []
        obj: list[list] = []
        if c.obj is not None:
            o = self.noun_phrase(c.obj, "obj", neg=bool(c.neg))
            if c.obj.pron:
                clitic = o
            else:
                obj = o
        pp = self.pp(c.pp) if c.pp is not None else []
        return fr + ne + clitic + [[v.fr[agr.slot], vi]] + pas + adv + obj + pp

    def _be_clause(self, c: Clause, head: _Agr | None, q: str) -> list[list]:
        fr: list[list] = []
        ne: list[list] = []
        pas: list[list] = []
        adv: list[list] = []
        subj_fr: list[list] = []
        verbs = _AVOIR if c.predicate_type in ("age", "agecomp") else _ETRE
        if q in ("yn", "why"):
            self.tags.add("question")
            fr += self._question_prefix(q)
            subj = _needed(c.subj, "question without a subject")
            agr = _agr_of(subj)
            b = self.e(agr.be)
            fr += [["est-ce", b], ["que", b]]
            subj_fr = self.noun_phrase(subj, "subj")
        elif q == "where":
            self.tags.add("question")
            fr += self._question_prefix(q)
            subj = _needed(c.subj, "where-question without a subject")
            agr = _agr_of(subj)
            b = self.e(agr.be)
            fr.append([verbs[agr.slot], b])
            return fr + self.noun_phrase(subj, "subj")
        else:
            if q == "who":
                self.tags.add("question")
                fr.append(["qui", self.e("who")])
                agr = _WHO_AGR
            elif c.subj is None:
                agr = _needed(head, "subject gap without an antecedent")
            else:
                subj_fr = self.noun_phrase(c.subj, "subj")
                agr = _agr_of(c.subj)
            b = self.e(agr.be)
            if c.neg:
                self.tags.add("negation")
                n = self.e(c.neg)
                ne, pas = [["ne", n]], [["pas" if c.neg == "not" else "jamais", n]]
            elif c.adv:
                self.tags.add("adverb")
                adv = [[_ADVERBS[c.adv], self.e(c.adv)]]
        form = 2 * agr.pl + agr.fem
        if agr.slot == 4:
            self.tags.add("agreement")
        if c.predicate_type == "adj":
            A = ADJS[c.adj]
            pred = [[A.fr[form], self.e(c.adj)]]
            if form:
                self.tags.add("agreement")
        elif c.predicate_type == "loc":
            pred = self.pp(_needed(c.pp, "location without a phrase"))
        elif c.predicate_type in ("comp", "equal"):
            self.tags.add("comparison")
            A = ADJS[c.adj]
            if c.predicate_type == "equal":
                a1 = self.e("as")
                pred = [["aussi", a1], [A.fr[form], self.e(c.adj)], ["que", self.e("as")]]
            elif A.comp_fr is not None:
                pred = [[A.comp_fr[form], self.e(A.comp[0])], ["que", self.e("than")]]
            elif len(A.comp) == 2:
                m = self.e(A.comp[0])
                pred = [["plus", m], [A.fr[form], self.e(A.comp[1])], ["que", self.e("than")]]
            else:
                m = self.e(A.comp[0])
                pred = [["plus", m], [A.fr[form], m], ["que", self.e("than")]]
            if form:
                self.tags.add("agreement")
            pred += self.noun_phrase(_needed(c.std, "standard of comparison"), "std")
        else:
            self.tags.add("age")
            one = c.num == "one"
            pred = [[_AGES[c.num], self.e(c.num)], ["an" if one else "ans", self.e("year" if one else "years")]]
            self.tags.add("number")
            if c.predicate_type == "age":
                self.e("old")
            else:
                self.tags.add("comparison")
                m = self.e("older" if c.older else "younger")
                pred += [["de", m], ["plus" if c.older else "moins", m], ["que", self.e("than")]]
                pred += self.noun_phrase(_needed(c.std, "standard of comparison"), "std")
        return fr + subj_fr + ne + [[verbs[agr.slot], b]] + pas + adv + pred

    # ---- sentences
    def sentence(self, s: Sentence) -> Pair:
        fr: list[list] = []
        for k, c in enumerate(s.clauses):
            if k:
                self.tags.add("coordination")
                conj = s.conjs[k - 1]
                if conj == "and":
                    fr.append(["et", self.e("and")])
                elif conj == "but":
                    fr.append([",", self.e(",")])
                    fr.append(["mais", self.e("but")])
                elif conj == "because":
                    b = self.e("because")
                    fr += [["parce", b], ["que", b]]
                else:
                    fr.append([",", self.e(",")])
            fr += self.clause(c, q=s.q)
        end = "?" if s.q else "."
        fr.append([end, self.e(end)])
        return self._finish(fr)

    def _finish(self, fr: list[list]) -> Pair:
        en = self.en
        for i in range(len(en) - 1):
            if en[i] == "a" and en[i + 1][:1] in "aeiou":
                en[i] = "an"
        for i in range(len(fr) - 1):
            w, nxt = fr[i][0], fr[i + 1][0]
            if _fr_vowel(nxt):
                if w in _POSS_VOWEL:
                    fr[i][0] = _POSS_VOWEL[w]
                elif w in _ELIDE:
                    fr[i][0] = _ELIDE[w]
                    self.tags.add("elision")
        alignment = tuple(sorted((i, j) for j, (_, i) in enumerate(fr) if i >= 0))
        return Pair(tuple(en), tuple(w for w, _ in fr), alignment, tuple(t for t in TAGS if t in self.tags))


def render(s: Sentence) -> Pair:
    return Renderer().sentence(s)


# --------------------------------------------------------------------------- validation


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise ValueError(f"not generable by the grammar: {what}")


_T = TypeVar("_T")


def _needed(value: _T | None, what: str) -> _T:
    """``value``, which the structure must have: the same ValueError as :func:`_check`."""
    if value is None:
        raise ValueError(f"not generable by the grammar: {what}")
    return value


def _validate_np(phrase: NP, role: str, question: bool, depth: int) -> None:
    if phrase.pron:
        _check(
            phrase.pron in _PRONS and not phrase.adjs and phrase.rel is None and phrase.coord is None,
            f"pronoun {phrase}",
        )
        _check(role != "subj" or not (question and phrase.pron == "i"), "question with I")
        return
    _check(phrase.noun in NOUNS, f"noun {phrase.noun}")
    det = phrase.det
    allowed = {
        "subj": {"the", "a", "poss", "count"},
        "obj": {"the", "a", "some", "poss", "count"},
        "pp": {"the", "a", "poss"},
        "std": {"the", "poss"},
    }[role]
    det_class = "poss" if det in _POSSESSIVES else "count" if det in _COUNTS else det
    _check(det_class in allowed, f"determiner {det} as {role}")
    _check(not (det_class == "poss" and phrase.noun in _NO_POSSESSIVE), f"{det} {phrase.noun}")
    _check(not (det == "some" and question), "some in a question")
    _check(
        phrase.plural if det_class in ("count", "some") else (not phrase.plural if det == "a" else True),
        f"number of {phrase}",
    )
    _check(
        len(phrase.adjs) <= 2 and all(a in ADJS and adj_ok(a, phrase.noun) for a in phrase.adjs),
        f"adjectives {phrase.adjs} on {phrase.noun}",
    )
    if len(phrase.adjs) == 2:
        _check(_adj_pair_ok(*phrase.adjs), f"adjective order {phrase.adjs}")
    if phrase.rel is not None:
        _check(depth == 0 and role in ("subj", "obj") and phrase.coord is None, "relative here")
        _validate_rel(phrase)
    if phrase.coord is not None:
        _check(
            depth == 0
            and role == "subj"
            and not question
            and phrase.coord.rel is None
            and phrase.coord.coord is None
            and phrase.coord.noun != phrase.noun,
            "coordination",
        )
        _validate_np(phrase.coord, role, question, 1)


def _validate_rel(head: NP) -> None:
    rel = _needed(head.rel, "relative clause")
    c = rel.clause
    _check(not c.adv and c.neg in ("", "not"), "adverb or never in a relative")
    if rel.gap == "obj":
        subj = _needed(c.subj, "object relative")
        _check(
            c.predicate_type == "verb"
            and c.obj is None
            and c.pp is None
            and _verb_can_take(c.verb, head.noun)
            and subj.coord is None
            and subj.rel is None
            and subj.noun != head.noun,
            "object relative",
        )
        _check(_np_ok(subj, VERBS[c.verb].subj), "relative subject")
        _validate_np(subj, "subj", False, 1)
        return
    _check(rel.gap == "subj" and c.subj is None, "relative gap")
    feats = NOUNS[head.noun].feats
    if c.predicate_type == "verb":
        _validate_verb(c, NP(noun=head.noun), head.noun, 1, "")
    elif c.predicate_type == "adj":
        _check(c.adj in _pred_adjs(head.noun) and _predicate_ok(c.adj, head), "relative adjective")
    elif c.predicate_type == "loc":
        _check(bool(feats & _PHYSICAL), "relative location")
        _validate_pp(_needed(c.pp, "relative location"), True, head.noun, _small(head))
    elif c.predicate_type == "age":
        _check(bool(feats & _feats("person animal")) and c.num in _age_keys(NP(noun=head.noun)), "relative age")
    else:
        _check(False, f"relative of kind {c.predicate_type}")


def _validate_pp(pp: PP, loc: bool, avoid: str, small: bool = False) -> None:
    """``loc``: the predicate of "be"; ``small``: its subject fits in a box."""
    table = _LOC_PREP_FEATS if small else _PREP_FEATS
    _check(pp.prep in table and (not loc or pp.prep in _LOC_PREPS), f"preposition {pp.prep}")
    if pp.noun_phrase.pron:
        _check(pp.prep in ("with", "for"), "pronoun after a preposition")
    else:
        _check(
            bool(NOUNS[pp.noun_phrase.noun].feats & table[pp.prep]) and pp.noun_phrase.noun != avoid,
            f"{pp.prep} {pp.noun_phrase.noun}",
        )
    _validate_np(pp.noun_phrase, "pp", False, 1)


def _validate_verb(c: Clause, subj: NP, subj_noun: str, depth: int, q: str) -> None:
    _check(c.verb in VERBS, f"verb {c.verb}")
    v = VERBS[c.verb]
    _check(_np_ok(subj, v.subj), f"subject of {c.verb}")
    if q == "what":
        _check(c.obj is None and c.verb in _WHAT_VERBS, "what-question")
    elif v.obj is None:
        _check(c.obj is None, f"object of intransitive {c.verb}")
    else:
        obj = _needed(c.obj, f"missing object of {c.verb}")
        if obj.pron:
            _check(v.pron_obj, f"pronoun object of {c.verb}")
            if c.subj is not None and c.subj.pron:
                _check(not _pron_clash(c.subj.pron, obj.pron), "reflexive pronouns")
        else:
            _check(_verb_can_take(c.verb, obj.noun) and obj.noun != subj_noun, f"object {obj.noun} of {c.verb}")
        _validate_np(obj, "obj", bool(q), depth)
    if c.pp is not None:
        _check(c.pp.prep in v.preps and q != "where", f"{c.pp.prep} after {c.verb}")
        _check(
            not (
                c.pp.noun_phrase.pron
                and subj.pron
                and c.subj is not None
                and _pron_clash(subj.pron, c.pp.noun_phrase.pron)
            ),
            "reflexive after a preposition",
        )
        _validate_pp(c.pp, False, subj_noun)
    else:
        _check(not v.need_pp or q == "where", f"{c.verb} needs a phrase")
    _check(
        not (c.neg or c.adv) or (depth == 0 and not q) or (depth == 1 and c.neg == "not" and not c.adv),
        "negation/adverb placement",
    )
    _check(
        not (c.neg and c.adv) and c.neg in ("", "not", "never") and (not c.adv or c.adv in _ADVERBS), "negation/adverb"
    )


def _validate_clause(c: Clause, q: str) -> None:
    question = bool(q)
    if c.subj is None:
        _check(q == "who", "subject gap outside a relative or who-question")
        subj, subj_noun = NP(pron="he"), ""
    else:
        _validate_np(c.subj, "subj", question, 0)
        subj = c.subj
        subj_noun = "" if c.subj.pron or c.subj.coord is not None else c.subj.noun
        _check(c.subj.coord is None or c.predicate_type in ("verb", "adj"), "coordinated subject here")
    if c.predicate_type == "verb":
        _validate_verb(c, subj, subj_noun, 0, q)
        return
    _check(not question or (not c.neg and not c.adv), "negation in a question")
    _check(c.neg in ("", "not") or (c.predicate_type == "adj" and c.neg == "never"), "never here")
    _check(not c.adv or (c.predicate_type == "adj" and c.adv in _ADVERBS and not c.neg), "adverb here")
    if (c.neg == "never" or c.adv) and c.subj is not None:
        _check(_np_ok(subj, _feats("person animal")), "adverb with this subject")
    if c.predicate_type == "adj":
        ok = _adj_ok_np(c.adj, c.subj) if c.subj is not None else "person" in ADJS[c.adj].feats
        _check(ok and not ADJS[c.adj].attributive_only, f"predicate {c.adj}")
        _check(c.subj is None or _predicate_ok(c.adj, c.subj), f"predicate {c.adj} repeats")
    elif c.predicate_type == "loc":
        loc_subj = _needed(c.subj, "location subject")
        _check(_np_ok(loc_subj, _PHYSICAL), "location subject")
        if q == "where":
            _check(c.pp is None and not loc_subj.pron, "where-question")
        else:
            _validate_pp(_needed(c.pp, "location phrase"), True, subj_noun, _small(loc_subj))
    elif c.predicate_type in ("comp", "equal"):
        comp_subj = _needed(c.subj, f"comparison {c.adj}")
        _check(c.adj in _COMPARABLE and _adj_ok_np(c.adj, comp_subj) and comp_subj.coord is None, f"comparison {c.adj}")
        std = _validate_std(c, "person" in ADJS[c.adj].feats and _np_ok(subj, _feats("person animal")))
        if not std.pron:
            _check(std.noun in _std_nouns(c.adj, comp_subj), f"standard {std.noun} of {c.adj}")
    elif c.predicate_type in ("age", "agecomp"):
        _check(_np_ok(subj, _feats("person animal")) and c.num in _age_keys(subj), "age")
        if c.predicate_type == "agecomp":
            std = _validate_std(c, True)
            person = _np_ok(subj, _feats("person"))
            _check(person or not std.pron, "pronoun age standard of an animal")
            if not std.pron:
                _check(bool(NOUNS[std.noun].feats & _feats("person" if person else "animal")), "age standard")
    else:
        _check(False, f"clause kind {c.predicate_type}")


def _validate_std(c: Clause, person_ok: bool) -> NP:
    """Validate the standard of comparison of ``c`` ("than NP") and return it."""
    std = _needed(c.std, "standard of comparison")
    subj = _needed(c.subj, "subject of a comparison")
    if std.pron:
        _check(person_ok and not (subj.pron and _pron_clash(subj.pron, std.pron)), "pronoun standard")
    else:
        subj_noun = subj.noun if not subj.pron else ""
        _check(std.noun != subj_noun, "comparison with itself")
        _validate_np(std, "std", False, 1)
    return std


def validate(s: Sentence) -> None:
    """Raise ValueError unless the sampler can produce ``s`` (same constraints)."""
    if s.q:
        _check(len(s.clauses) == 1 and s.q in ("yn", "where", "who", "what", "why"), "question")
        c = s.clauses[0]
        _check(
            not c.neg and not c.adv and (c.subj is None or c.subj.coord is None),
            "question with negation/adverb/coordination",
        )
        if s.q == "yn":
            _check(c.predicate_type in ("verb", "adj", "loc", "comp", "age"), "yes/no question kind")
        elif s.q == "where":
            _check(c.predicate_type == "loc" or (c.predicate_type == "verb" and c.pp is None), "where-question")
        elif s.q == "who":
            _check(c.subj is None and c.predicate_type in ("verb", "adj"), "who-question")
            if c.predicate_type == "adj":
                _check(c.adj in _pred_adjs(""), "who-question adjective")
        elif s.q == "what":
            _check(c.predicate_type == "verb", "what-question")
        else:
            _check(c.predicate_type in ("verb", "adj"), "why-question")
        _validate_clause(c, s.q)
        return
    n = len(s.clauses)
    _check(n in (1, 2, 3), "number of clauses")
    if n == 2:
        _check(s.conjs[0] in ("and", "but", "because"), "conjunction")
    if n == 3:
        _check(s.conjs == (",", "and"), "three clauses")
    for c in s.clauses:
        _validate_clause(c, "")


# --------------------------------------------------------------------------- public API

_MAX_LEN = 32


def sample_pair(sampler: Sampler) -> tuple[Sentence, Pair]:
    while True:
        s = sampler.sentence()
        p = render(s)
        if len(p.src) <= _MAX_LEN and len(p.tgt) <= _MAX_LEN + 4:
            return s, p


def generate_pairs(n: int, seed: int) -> list[Pair]:
    """``n`` pairs sampled from the grammar; the same ``seed`` gives the same list."""
    sampler = Sampler(random.Random(seed))
    return [sample_pair(sampler)[1] for _ in range(n)]


_EN_NOUN_LEMMA = {**{n.key: n.key for n in NOUNS.values()}, **{n.en_pl: n.key for n in NOUNS.values()}}


def attributive_pairs(src: Sequence[str]) -> frozenset[tuple[str, str]]:
    """(adjective, noun) pairs where the adjective directly modifies the noun, from English
    tokens: the adjectives immediately in front of a noun (the grammar never puts a
    predicate adjective right before a noun)."""
    out = set()
    for i, tok in enumerate(src):
        lemma = _EN_NOUN_LEMMA.get(tok)
        if lemma is None:
            continue
        j = i - 1
        while j >= 0 and src[j] in ADJS:
            out.add((src[j], lemma))
            j -= 1
    return frozenset(out)


@functools.lru_cache(maxsize=1)
def heldout_combinations() -> frozenset[tuple[str, str]]:
    """Adjective+noun pairs (English lemmas) never used attributively in training.

    One adjective per noun (two for nouns with eight or more possible adjectives), chosen
    with a fixed seed, never an adjective's last remaining noun."""
    rng = random.Random(20240607)
    held: set[tuple[str, str]] = set()
    uses = {a: len(_ADJ_NOUNS[a]) for a in ADJS}
    for noun in NOUNS:
        cands = list(attr_adjs(noun))
        rng.shuffle(cands)
        k = 2 if len(cands) >= 8 else 1
        for a in cands:
            if k == 0:
                break
            if uses[a] > 2:
                held.add((a, noun))
                uses[a] -= 1
                k -= 1
    return frozenset(held)


def _match_lengths(cands: list[Pair], ref: dict[int, int], n: int) -> list[Pair]:
    """``n`` of ``cands`` (in their order) whose English lengths follow the histogram ``ref``;
    a length with too few candidates borrows from the nearest lengths."""
    total = sum(ref.values())
    quota = {L: n * c / total for L, c in ref.items()}
    want = {L: int(q) for L, q in quota.items()}
    by_frac = sorted(quota, key=lambda L: (-(quota[L] - want[L]), L))
    for L in by_frac[: n - sum(want.values())]:
        want[L] += 1
    pools: dict[int, list[int]] = {}
    for i, p in enumerate(cands):
        pools.setdefault(len(p.src), []).append(i)
    for pool in pools.values():
        pool.reverse()  # pop() takes candidates in generation order
    chosen: list[int] = []
    missing: list[int] = []
    for L in sorted(want):
        pool = pools.get(L, [])
        for _ in range(want[L]):
            (chosen if pool else missing).append(pool.pop() if pool else L)
    for L in missing:  # nearest available length: L+1, L-1, L+2, L-2, ...
        for d in range(1, 100):
            near = pools.get(L + d) or pools.get(L - d)
            if near:
                chosen.append(near.pop())
                break
    return [cands[i] for i in sorted(chosen)]


@functools.lru_cache(maxsize=4)
def make_splits(seed: int = 0, n_train: int = 40000, n_valid: int = 1000, n_test: int = 1000) -> dict[str, list[Pair]]:
    """Train/valid/test splits; valid and test hold unseen adjective+noun combinations.

    Every valid/test pair contains at least one pair from :func:`heldout_combinations`, no
    training pair contains any; all sources are distinct across (and within) the splits.
    Sentences with held-out pairs tend to be long (more adjectives), so valid and test are
    drawn from twice as many candidates to follow the length histogram of train."""
    held = heldout_combinations()
    sampler = Sampler(random.Random(seed))
    train: list[Pair] = []
    cands: list[Pair] = []
    seen: set[tuple[str, ...]] = set()
    n_other = n_valid + n_test
    while len(train) < n_train or len(cands) < 2 * n_other:
        _, p = sample_pair(sampler)
        if p.src in seen:
            continue
        if attributive_pairs(p.src) & held:
            if len(cands) < 2 * n_other:
                seen.add(p.src)
                cands.append(p)
        elif len(train) < n_train:
            seen.add(p.src)
            train.append(p)
    ref: dict[int, int] = {}
    for p in train or cands:
        ref[len(p.src)] = ref.get(len(p.src), 0) + 1
    other = _match_lengths(cands, ref, n_other) if n_other else []
    random.Random(seed + 1).shuffle(other)
    return {"train": train, "valid": other[:n_valid], "test": other[n_valid:]}


def vocabulary(pairs: Sequence[Pair]) -> tuple[list[str], list[str]]:
    """Sorted English and French token types of ``pairs``."""
    en: set[str] = set()
    fr: set[str] = set()
    for p in pairs:
        en.update(p.src)
        fr.update(p.tgt)
    return sorted(en), sorted(fr)


# --------------------------------------------------------------------------- examples


def _noun_phrase(
    noun: str = "",
    det: str = "the",
    plural: bool = False,
    adjs: tuple[str, ...] = (),
    rel: Rel | None = None,
    pron: str = "",
    coord: NP | None = None,
) -> NP:
    return NP(noun=noun, pron=pron, det=det, plural=plural, adjs=adjs, rel=rel, coord=coord)


def _example_structures() -> list[Sentence]:
    """Curated sentences, one or more per phenomenon; each passes :func:`validate`."""
    P = _noun_phrase
    return [
        # adjective–noun reordering, a location, a prenominal adjective
        Sentence((Clause(P("car", adjs=("red",)), "loc", pp=PP("in", P("house", adjs=("small",)))),)),
        # negation with do-support, agreement of the adjective with a feminine plural noun
        Sentence((Clause(P(pron="she"), "verb", verb="eat", obj=P("apple", plural=True, adjs=("green",)), neg="not"),)),
        # negation of "be": n' est pas
        Sentence((Clause(P(pron="he"), "adj", adj="happy", neg="not"),)),
        # possessives agree with the possessed noun; plural verb agreement
        Sentence(
            (
                Clause(P("sister", det="my"), "verb", verb="wash", obj=P("car", det="her", adjs=("red",))),
                Clause(
                    P("brother", det="our", plural=True),
                    "verb",
                    verb="read",
                    obj=P("book", det="their", plural=True, adjs=("new",)),
                ),
            ),
            ("and",),
        ),
        # age comparison with a number
        Sentence((Clause(P(pron="she"), "agecomp", num="five", older=False, std=P(pron="i")),)),
        # comparison
        Sentence((Clause(P("cat"), "comp", adj="big", std=P("dog")),)),
        # questions
        Sentence((Clause(P("cat"), "loc"),), (), "where"),
        Sentence((Clause(P(pron="she"), "adj", adj="happy"),), (), "yn"),
        Sentence((Clause(P("teacher"), "verb", verb="read", obj=P("letter")),), (), "yn"),
        # object pronoun before the verb, object relative with que, negation
        Sentence(
            (
                Clause(
                    P("boy", rel=Rel("obj", Clause(P(pron="i"), "verb", verb="know"))),
                    "verb",
                    verb="see",
                    obj=P(pron="she"),
                    neg="not",
                ),
            )
        ),
        # coordination with "but", agreement in gender and number, negation
        Sentence(
            (
                Clause(P("girl", plural=True), "adj", adj="tired"),
                Clause(P("boy", plural=True), "adj", adj="tired", neg="not"),
            ),
            ("but",),
        ),
        # never → ne … jamais, object relative, vieil before a vowel
        Sentence(
            (
                Clause(
                    P(pron="we"),
                    "verb",
                    verb="eat",
                    obj=P("cake", plural=True, rel=Rel("obj", Clause(P("man", adjs=("old",)), "verb", verb="buy"))),
                    neg="never",
                ),
            )
        ),
        # long: subject relative with a phrase, age comparison, but, pronoun comparison
        Sentence(
            (
                Clause(
                    P(
                        "girl",
                        adjs=("young",),
                        rel=Rel(
                            "subj",
                            Clause(None, "verb", verb="read", obj=P("book", adjs=("blue",)), pp=PP("in", P("garden"))),
                        ),
                    ),
                    "agecomp",
                    num="three",
                    older=True,
                    std=P("brother", det="her"),
                ),
                Clause(P(pron="she"), "comp", adj="happy", std=P(pron="he"), neg="not"),
            ),
            ("but",),
        ),
        # long: counts, a prenominal adjective, an object relative, an adverb, "with"
        Sentence(
            (
                Clause(
                    P("cat", det="two", plural=True, adjs=("white",)),
                    "verb",
                    verb="sleep",
                    pp=PP("under", P("table", adjs=("old",))),
                ),
                Clause(
                    P("dog", adjs=("black",), rel=Rel("obj", Clause(P("child", plural=True), "verb", verb="like"))),
                    "verb",
                    verb="play",
                    adv="often",
                    pp=PP("with", P("brother", det="my")),
                ),
            ),
            ("and",),
        ),
    ]


def _display(tokens: Sequence[str]) -> str:
    """Tokens as a user would type them: capital first letter and capital I."""
    words = ["I" if t == "i" else t for t in tokens]
    text = detokenize(words)
    return text[:1].upper() + text[1:]


@functools.lru_cache(maxsize=1)
def _example_pairs() -> tuple[Pair, ...]:
    out = []
    for s in _example_structures():
        validate(s)
        out.append(render(s))
    return tuple(out)


def example_sentences() -> list[str]:
    """Curated English sentences (with capitals and final punctuation) that show each
    phenomenon; :func:`lookup` gives their translation and gold alignment."""
    return [_display(p.src) for p in _example_pairs()]


@functools.lru_cache(maxsize=1)
def _index() -> dict[tuple[str, ...], Pair]:
    index: dict[tuple[str, ...], Pair] = {}
    for split in make_splits().values():
        for p in split:
            index[p.src] = p
    for p in _example_pairs():
        index[p.src] = p
    return index


def lookup(src_tokens: Sequence[str] | str) -> Pair | None:
    """The gold pair whose English side is ``src_tokens`` (a string is tokenized first), from
    the default splits and the examples; None when the grammar's corpus does not hold it."""
    if isinstance(src_tokens, str):
        src_tokens = tokenize(src_tokens)
    key = tuple(str(t).lower() for t in src_tokens)
    pair = _example_index().get(key)
    return pair if pair is not None else _index().get(key)


@functools.lru_cache(maxsize=1)
def _example_index() -> dict[tuple[str, ...], Pair]:
    return {p.src: p for p in _example_pairs()}
