"""Tests of the embedded English→French corpus, the tokenizer and the Tatoeba loader."""

from __future__ import annotations

import collections
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpora import en_fr
from corpora.en_fr import (
    TAGS,
    Pair,
    attributive_pairs,
    example_sentences,
    generate_pairs,
    heldout_combinations,
    lookup,
    make_splits,
    vocabulary,
)
from corpora.tatoeba import CorpusFormatError, load_tatoeba
from corpora.text import detokenize, tokenize

ROOT = Path(__file__).resolve().parent.parent
# English tokens the gold alignment leaves unlinked: "do/does" of a negation, "old" in
# "five years old". Every French token is linked (to exactly one English token).
UNLINKED_EN = {"do", "does", "old"}
PUNCT = {".", ",", "?"}


@pytest.fixture(scope="module")
def sample() -> list[Pair]:
    return generate_pairs(5000, 123)


@pytest.fixture(scope="module")
def splits() -> dict[str, list[Pair]]:
    return make_splits()


def _french_of(pair: Pair, i: int) -> list[str]:
    return [pair.tgt[j] for s, j in pair.alignment if s == i]


# ----------------------------------------------------------------- generator


def test_deterministic_by_seed():
    a = generate_pairs(300, 5)
    assert a == generate_pairs(300, 5)
    assert a != generate_pairs(300, 6)


def test_deterministic_across_processes():
    """No dependence on str hashing (PYTHONHASHSEED) or anything else per process."""
    code = (
        "import hashlib; from corpora.en_fr import generate_pairs, heldout_combinations;"
        "print(hashlib.sha256(repr((generate_pairs(300, 9), sorted(heldout_combinations())))"
        ".encode()).hexdigest())"
    )
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
        )
        digests.add(out.stdout.strip())
    here = hashlib.sha256(repr((generate_pairs(300, 9), sorted(heldout_combinations()))).encode()).hexdigest()
    assert digests == {here}


def test_every_tag_present(sample):
    counts = collections.Counter(t for p in sample for t in p.tags)
    assert set(counts) == set(TAGS)
    assert min(counts.values()) >= 100, counts


def test_lengths(sample):
    lengths = [len(p.src) for p in sample]
    assert min(lengths) == 3
    assert max(lengths) >= 25
    assert max(lengths) <= 32
    share = sum(5 <= n <= 15 for n in lengths) / len(lengths)
    assert share > 0.6


def test_tokens_are_what_the_tokenizer_gives(sample):
    for p in sample[:2000]:
        assert tokenize(detokenize(list(p.src))) == list(p.src), p.src
        assert tokenize(detokenize(list(p.tgt))) == list(p.tgt), p.tgt


def test_alignment_well_formed(sample):
    for p in sample:
        assert list(p.alignment) == sorted(set(p.alignment))
        for s, t in p.alignment:
            assert 0 <= s < len(p.src) and 0 <= t < len(p.tgt)
        per_target = collections.Counter(t for _, t in p.alignment)
        assert all(per_target[j] == 1 for j in range(len(p.tgt))), (p.src, p.tgt)
        linked = {s for s, _ in p.alignment}
        for i, tok in enumerate(p.src):
            if i not in linked:
                assert tok in UNLINKED_EN, (tok, p.src)
            if tok in PUNCT:
                assert _french_of(p, i) == [tok]


def test_alignment_rules(sample):
    seen = collections.Counter()
    for p in sample:
        for i, tok in enumerate(p.src):
            fr = _french_of(p, i)
            if tok == "not":
                assert fr[0] in ("ne", "n'") and fr[1] == "pas"
                seen["not"] += 1
            elif tok == "never":
                assert fr[0] in ("ne", "n'") and fr[1] == "jamais"
            elif tok == "the":
                assert fr[0] in ("le", "la", "les", "l'")
            elif tok == "because":
                assert fr in (["parce", "que"], ["parce", "qu'"])
            elif tok in ("younger", "older") and i + 1 < len(p.src) and p.src[i - 1] == "years":
                assert fr == ["de", "moins" if tok == "younger" else "plus"]
                seen["age"] += 1
            elif tok == "bigger":
                assert fr[0] == "plus" and fr[1].startswith("grand")
    assert seen["not"] > 100 and seen["age"] > 50


# ----------------------------------------------------------------- agreement


_NOUN_OF = {**{n.key: (n, False) for n in en_fr.NOUNS.values()}, **{n.en_pl: (n, True) for n in en_fr.NOUNS.values()}}


def test_attributive_adjectives_agree(sample):
    checked = 0
    for p in sample:
        for i, tok in enumerate(p.src):
            if tok not in en_fr.ADJS:
                continue
            j = i + 1
            while j < len(p.src) and p.src[j] in en_fr.ADJS:
                j += 1
            if j >= len(p.src) or p.src[j] not in _NOUN_OF:
                continue
            noun, plural = _NOUN_OF[p.src[j]]
            forms = en_fr.ADJS[tok].fr
            expected = forms[2 * plural + noun.fem]
            [fr] = _french_of(p, i)
            assert fr == expected or fr == en_fr.ADJS[tok].ms_vowel, (p.src, p.tgt)
            if tok == "red":
                assert fr == ("rouges" if plural else "rouge")
            if tok == "green":
                assert fr == forms[2 * plural + noun.fem]
            checked += 1
    assert checked > 1000


def test_possessives_agree(sample):
    for p in sample:
        for i, tok in enumerate(p.src):
            if tok not in ("my", "his", "her", "our", "their", "your"):
                continue
            fr = _french_of(p, i)
            if not fr or fr[0] in ("la", "l'", "elle"):  # "her" as a pronoun
                continue
            j = i + 1
            while p.src[j] in en_fr.ADJS:
                j += 1
            noun, plural = _NOUN_OF[p.src[j]]
            j_fr = p.tgt.index(fr[0], [t for s, t in p.alignment if s == i][0])
            next_fr = p.tgt[j_fr + 1]
            if fr[0] in ("sa", "ma"):
                assert noun.fem and not plural and not en_fr._fr_vowel(next_fr)
            if fr[0] in ("son", "mon"):
                assert not plural and (not noun.fem or en_fr._fr_vowel(next_fr))
            if fr[0] in ("ses", "mes", "nos", "vos", "leurs"):
                assert plural


def test_specific_agreement():
    pairs = generate_pairs(3000, 77)
    joined = [" ".join(p.tgt) for p in pairs]
    assert any(" son école" in s for s in joined) or any(" mon école" in s for s in joined)
    for p in pairs:
        src, tgt = p.src, p.tgt
        for i, tok in enumerate(src):
            fr = _french_of(p, i)
            if tok == "eats":
                assert fr == ["mange"]
            if tok == "eat" and src[i - 1] == "they":
                assert fr == ["mangent"]
            if tok == "is" and src[i - 1] == "she" and src[i + 1] == "happy":
                [j] = [t for s, t in p.alignment if s == i]
                assert tgt[j : j + 2] == ("est", "heureuse")
        # negation of an indefinite direct object: pas de / pas d'
        if "not" in src and "have" in src:
            k = src.index("have")
            if src[k - 1] == "not" and src[k + 1] == "a":
                assert _french_of(p, k + 1) in (["de"], ["d'"])


def test_elision_and_vowel_forms(sample):
    for p in sample:
        for a, b in zip(p.tgt, p.tgt[1:]):
            if a in ("le", "la", "de", "ne", "que", "je", "me"):
                assert not en_fr._fr_vowel(b), p.tgt
            if a.endswith("'"):
                assert en_fr._fr_vowel(b), p.tgt
            if a in ("vieux", "beau", "nouveau") and b in ("homme", "arbre", "hôtel", "œuf"):
                pytest.fail(f"{a} {b}")
        for a, b in zip(p.src, p.src[1:]):
            if a == "a":
                assert b[0] not in "aeiou"
            if a == "an":
                assert b[0] in "aeiou"


# ----------------------------------------------------------------- splits


@pytest.mark.slow
def test_splits_sizes_and_disjoint(splits):
    assert [len(splits[k]) for k in ("train", "valid", "test")] == [40000, 1000, 1000]
    srcs = [set(p.src for p in splits[k]) for k in ("train", "valid", "test")]
    assert [len(s) for s in srcs] == [40000, 1000, 1000]
    assert not (srcs[0] & srcs[1] or srcs[0] & srcs[2] or srcs[1] & srcs[2])
    assert make_splits() is splits


def test_heldout_property(splits):
    held = heldout_combinations()
    assert len(held) >= 40
    assert attributive_pairs(("the", "big", "red", "cars", "sleep", ".")) == {("big", "car"), ("red", "car")}
    assert attributive_pairs(("the", "car", "is", "red", ".")) == frozenset()
    for p in splits["train"]:
        assert not attributive_pairs(p.src) & held, p.src
    for k in ("valid", "test"):
        for p in splits[k]:
            assert attributive_pairs(p.src) & held, p.src


def test_heldout_words_seen_in_training(splits):
    train_pairs = set()
    for p in splits["train"]:
        train_pairs |= attributive_pairs(p.src)
    for adj, noun in heldout_combinations():
        assert any(a == adj and n != noun for a, n in train_pairs), adj
        assert any(n == noun and a != adj for a, n in train_pairs), noun
    en_train, fr_train = vocabulary(splits["train"])
    en_test, fr_test = vocabulary(splits["test"] + splits["valid"])
    assert set(en_test) <= set(en_train) and set(fr_test) <= set(fr_train)
    assert 120 <= len(en_train) <= 260


def test_test_lengths_follow_train(splits):
    mean = {k: sum(len(p.src) for p in v) / len(v) for k, v in splits.items()}
    assert abs(mean["test"] - mean["train"]) < 1.0, mean
    assert abs(mean["valid"] - mean["train"]) < 1.0, mean


def test_small_splits():
    s = make_splits(seed=3, n_train=500, n_valid=20, n_test=30)
    assert [len(s[k]) for k in ("train", "valid", "test")] == [500, 20, 30]


# ----------------------------------------------------------------- examples and lookup


def test_examples_are_generable_and_round_trip():
    sentences = example_sentences()
    assert 10 <= len(sentences) <= 16
    assert sum(len(tokenize(s)) >= 20 for s in sentences) >= 2
    tags = set()
    for s in sentences:
        assert s[0].isupper() and s[-1] in ".?"
        pair = lookup(tokenize(s))
        assert pair is not None and pair.src == tuple(tokenize(s))
        assert lookup(s) == pair
        assert len(pair.src) <= 32
        tags |= set(pair.tags)
    assert tags == set(TAGS)
    for structure in en_fr._example_structures():
        en_fr.validate(structure)  # the same constraints the sampler obeys


@pytest.mark.parametrize(
    "english, french",
    [
        ("Where is the cat?", "où est le chat ?"),
        ("Is she happy?", "est-ce qu' elle est heureuse ?"),
        ("He is not happy.", "il n' est pas heureux ."),
        ("She is five years younger than me.", "elle a cinq ans de moins que moi ."),
        ("The cat is bigger than the dog.", "le chat est plus grand que le chien ."),
        ("The red car is in the small house.", "la voiture rouge est dans la petite maison ."),
        ("She does not eat the green apples.", "elle ne mange pas les pommes vertes ."),
    ],
)
def test_example_translations(english, french):
    assert english in example_sentences()
    assert " ".join(lookup(english).tgt) == french


def test_example_alignment():
    p = lookup("She is five years younger than me.")
    links = {(p.src[s], p.tgt[t]) for s, t in p.alignment}
    assert links == {
        ("she", "elle"),
        ("is", "a"),
        ("five", "cinq"),
        ("years", "ans"),
        ("younger", "de"),
        ("younger", "moins"),
        ("than", "que"),
        ("me", "moi"),
        (".", "."),
    }
    p = lookup("She does not eat the green apples.")
    links = {(p.src[s], p.tgt[t]) for s, t in p.alignment}
    assert ("not", "ne") in links and ("not", "pas") in links and ("green", "vertes") in links
    assert all(p.src[s] != "does" for s, _ in p.alignment)


def test_lookup_corpus_and_unknown(splits):
    for p in (splits["train"][0], splits["train"][-1], splits["test"][5]):
        assert lookup(p.src) == p
        assert lookup(list(p.src)) == p
    assert lookup(["the", "cat", "flies", "."]) is None
    assert lookup([]) is None
    assert lookup("") is None


# ----------------------------------------------------------------- tokenizer


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \t\n ",
        "😀👍🏽 🇫🇷",
        "你好，世界。",
        "<script>alert(1)</script>",
        "x" * 10_000,
        "a\x00b\x07c\x1b[31md\u200b\u202e",
        "\ud800 lone surrogate",
        "l'''",
        "'",
        "-'-",
        "ＡＢＣ",
        "word " * 2_000,
        "é" * 3 + "\u0301" * 5,
        "\\",
        "\x85\u2028\u2029",
    ],
)
def test_tokenize_never_raises(text):
    tokens = tokenize(text)
    assert isinstance(tokens, list)
    for t in tokens:
        assert isinstance(t, str) and t and not any(c.isspace() for c in t)
        assert all(not (0xD800 <= ord(c) <= 0xDFFF) for c in t)
    detokenize(tokens)


def test_tokenize_rules():
    assert tokenize("") == []
    assert tokenize("The Red CAR.") == ["the", "red", "car", "."]
    assert tokenize("L'homme n'est pas là !") == ["l'", "homme", "n'", "est", "pas", "là", "!"]
    assert tokenize("Qu'est-ce qu'elle mange?") == ["qu'", "est-ce", "qu'", "elle", "mange", "?"]
    assert tokenize("d'un j'ai c'est s'il") == ["d'", "un", "j'", "ai", "c'", "est", "s'", "il"]
    assert tokenize("L’homme") == ["l'", "homme"]  # typographic apostrophe
    assert tokenize("l' homme") == ["l'", "homme"]
    assert tokenize("aujourd'hui") == ["aujourd'hui"]
    assert tokenize("a\tb\nc") == ["a", "b", "c"]
    assert tokenize("a\x00b") == ["ab"]  # control characters dropped
    assert tokenize("Hello,world") == ["hello", ",", "world"]
    assert tokenize("ﬁne") == ["fine"]  # NFKC
    assert len(tokenize("x" * 10_000)) == 1


def test_detokenize():
    assert detokenize(["l'", "homme", "n'", "est", "pas", "là", "."]) == "l'homme n'est pas là."
    assert detokenize(["où", "est", "le", "chat", "?"]) == "où est le chat?"
    assert detokenize(["a", ",", "b"]) == "a, b"
    assert detokenize([]) == ""


# ----------------------------------------------------------------- Tatoeba


GOOD = (
    "Go.\tVa !\tCC-BY 2.0 (France) Attribution: tatoeba.org #2877272 (CM) & #1158250\n"
    "\n"
    "I'm here.\tJe suis là.\tCC-BY 2.0\r\n"
    "Where is the cat?\tOù est le chat ?\n"
)


def test_tatoeba_good_text():
    pairs = load_tatoeba(GOOD)
    assert [p.src for p in pairs] == [("go", "."), ("i'm", "here", "."), ("where", "is", "the", "cat", "?")]
    assert pairs[2].tgt == ("où", "est", "le", "chat", "?")
    assert all(p.alignment == () for p in pairs)
    assert len(load_tatoeba(GOOD, max_pairs=2)) == 2


def test_tatoeba_bytes_bom_and_path(tmp_path):
    data = GOOD.encode("utf-8")
    assert load_tatoeba(data) == load_tatoeba(GOOD)
    assert load_tatoeba(b"\xef\xbb\xbf" + data) == load_tatoeba(GOOD)
    assert load_tatoeba("\ufeff" + GOOD) == load_tatoeba(GOOD)
    f = tmp_path / "fra.txt"
    f.write_bytes(b"\xef\xbb\xbf" + data)
    assert load_tatoeba(f) == load_tatoeba(str(f)) == load_tatoeba(GOOD)


def test_tatoeba_bad_line_names_file_and_line(tmp_path):
    f = tmp_path / "pairs.tsv"
    f.write_text("Go.\tVa !\n\nno tab on this line\nHi.\tSalut.\n", encoding="utf-8")
    with pytest.raises(CorpusFormatError) as err:
        load_tatoeba(f)
    msg = str(err.value)
    assert "pairs.tsv" in msg and "line 3" in msg and "\n" not in msg
    with pytest.raises(CorpusFormatError, match="line 2: the second sentence is empty"):
        load_tatoeba("Go.\tVa !\nHello.\t   \n")
    with pytest.raises(CorpusFormatError) as every:  # every bad line, so the file is fixed in one pass
        load_tatoeba("Go.\tVa !\nno tab\nHi.\t\n\tSalut.\n")
    assert str(every.value) == (
        "<text>: line 2: no tab between the two sentences; line 3: the second sentence "
        "is empty; line 4: the first sentence is empty"
    )
    with pytest.raises(CorpusFormatError, match="upload.tsv: .*line 1: the first sentence is empty"):
        load_tatoeba(b"\tVa !\n", name="upload.tsv")
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    "data, fragment",
    [
        (b"Go.\tVa !\nCaf\xe9.\tCaf\xe9.\n", "line 2: not valid UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "line 3: binary"),
        (b"Go.\tVa !\n\x00\x01\x02", "line 2: binary"),
        (b"", "empty"),
        (b"\n  \n\r\n", "empty"),
    ],
)
def test_tatoeba_bad_files(data, fragment):
    with pytest.raises(CorpusFormatError, match=fragment):
        load_tatoeba(data)


def test_tatoeba_missing_file(tmp_path):
    with pytest.raises(CorpusFormatError, match="no such file"):
        load_tatoeba(tmp_path / "missing.tsv")
