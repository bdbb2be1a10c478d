"""Everyday English written by SmolLM2 for the masked-LM head: the reply parser, the filters and the
shipped file (corpora/data/smollm2_everyday.txt.gz)."""

from __future__ import annotations

import gzip

from corpora.llm_text import SENTENCES_FILE, read_sentences
from corpora.mlm_eval import SENTENCES, is_held_out
from models.training.llm_sentences import keep_new, save, sentences_of
from models.training.mlm_head import data_of, how_made, training_sentences

REPLY = """Here are ten sentences about breakfast:
1. I eat bread with butter every morning.
2) My sister drinks orange juice. She likes it cold!
- We have eggs on Sunday.
3. "Breakfast is ready," said Mom.
4. Café au lait is my favourite.
5. Yes.
6. These sentences use simple words.
7. A very long sentence that goes on and on with far too many words in it to be kept by the filter at all here."""


def test_sentences_of_strips_numbering_splits_and_filters():
    assert list(sentences_of(REPLY)) == [
        "I eat bread with butter every morning.",
        "My sister drinks orange juice.",
        "She likes it cold!",
        "We have eggs on Sunday.",
    ]  # quotes inside, non-ASCII, one-word, about-the-task and over-20-word lines are dropped


def test_keep_new_drops_duplicates_and_held_out_sentences():
    held_out = SENTENCES[0].replace("{", "").replace("}", "")
    assert is_held_out(held_out)
    seen: set[str] = set()
    kept = keep_new(["We have eggs.", "we  have EGGS.", held_out, "The bus is late."], seen)
    assert kept == ["We have eggs.", "The bus is late."] and len(seen) == 2
    assert keep_new(["The bus is late."], seen) == []


def test_save_and_read_round_trip(tmp_path):
    path = tmp_path / "s.txt.gz"
    save(["One two three.", "Four five six!"], path)
    assert read_sentences(path) == ["One two three.", "Four five six!"]
    assert not path.with_suffix(".tmp").exists()
    assert read_sentences(tmp_path / "missing.txt.gz") == []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        assert f.read().endswith("\n")


def test_shipped_file_is_clean_and_held_out_free():
    sentences = read_sentences(SENTENCES_FILE)
    assert len(sentences) > 30_000
    assert len({" ".join(s.lower().split()) for s in sentences}) == len(sentences)
    assert not any(is_held_out(s) for s in sentences)
    assert all(list(sentences_of(s)) == [s] for s in sentences[:2000])  # each line passes the filter as is


def test_training_text_counts_and_description():
    sentences, counts = training_sentences(n_bible=0, n_grammar=50, seed=0)
    assert counts["bible"] == 0 and counts["smollm2"] > 30_000 and counts["hsk"] > 4000 and counts["grammar"] <= 50
    assert len(sentences) == sum(counts.values()) and not any(is_held_out(s) for s in sentences)
    text = data_of(counts)
    assert "SmolLM2" in text and "HSK" in text and "Bible" not in text
    assert "all 6 encoder layers" in how_made("p", "1", 6, 6) and "last 3 of 6" in how_made("p", "1", 3, 6)
