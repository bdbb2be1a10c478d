"""A held-out set of 100 simple everyday English sentences for masked-LM evaluation, written for
this project (never used for training: :func:`is_held_out` filters them out of training text).

Each sentence hides one word, written in braces; a person would guess it from the rest (a
content word such as ``{teeth}`` or a function word such as ``{of}``). :func:`masked_items`
turns them into ``("… [MASK] …", "word")`` pairs; top-k accuracy is the share of sentences whose
hidden word is among a model's k most probable pieces at [MASK] (``python -m models.evaluate
--family bert``).
"""

from __future__ import annotations

import functools
import re

__all__ = ["SENTENCES", "MASK_TOKEN", "masked_items", "is_held_out"]

MASK_TOKEN = "[MASK]"

SENTENCES: tuple[str, ...] = (
    "I brush my {teeth} every morning.",
    "She drinks a cup of {coffee} before work.",
    "The sun rises in the {east}.",
    "We went to the {beach} to swim in the sea.",
    "My brother is ten {years} old.",
    "Please close the {door} when you leave.",
    "He reads the {newspaper} at breakfast.",
    "The baby is sleeping in her {bed}.",
    "It is very cold in {winter}.",
    "I need a pen to {write} a letter.",
    "The cat is sitting {on} the chair.",
    "They are watching a movie at the {cinema}.",
    "Can you {help} me carry this box?",
    "My mother is cooking {dinner} in the kitchen.",
    "We eat soup with a {spoon}.",
    "The children are playing in the {park}.",
    "I wash my {hands} before I eat.",
    "The train leaves at six in the {evening}.",
    "She wears glasses because she cannot {see} well.",
    "There are seven days in a {week}.",
    "He bought a new {car} last month.",
    "The sky is {blue} today.",
    "I am very {hungry}, let's eat now.",
    "My father goes to {work} by bus.",
    "Birds can {fly}.",
    "The water in the pot is {boiling}.",
    "She plays the {piano} very well.",
    "We need milk, eggs {and} bread.",
    "Turn off the {light} before you go to sleep.",
    "The doctor works at the {hospital}.",
    "I have two {brothers} and one sister.",
    "He is the {best} player on the team.",
    "It is raining, so take an {umbrella}.",
    "The library is full of {books}.",
    "She is talking to her friend {on} the phone.",
    "Monday comes after {sunday}.",
    "I forgot my {keys}, so I cannot open the door.",
    "The dog is barking {at} the mailman.",
    "We celebrate my {birthday} with a cake.",
    "Where {is} the nearest station?",
    "The shop opens at nine in the {morning}.",
    "He drank a glass of cold {water}.",
    "My teacher is very {kind} to us.",
    "Fish live in the {water}.",
    "I usually go to {bed} at ten.",
    "The students are listening to the {teacher}.",
    "She put the milk in the {fridge}.",
    "We waited for the {bus} for twenty minutes.",
    "This bag is too {heavy} to carry.",
    "I would like a {cup} of tea, please.",
    "The movie was so {funny} that we laughed a lot.",
    "He is {from} China.",
    "Summer is the {hottest} season of the year.",
    "They live in a small {house} near the river.",
    "I can't find my {phone}; can you call it?",
    "The boy kicked the {ball} into the goal.",
    "What {time} is it now?",
    "She is {wearing} a red dress.",
    "My grandmother lives in the {country}.",
    "We must {stop} when the light is red.",
    "He cut the bread with a {knife}.",
    "There is a big tree in {front} of our house.",
    "I have a bad {headache} today.",
    "The plane will land in ten {minutes}.",
    "Thank you very {much} for your help.",
    "She speaks English and {french}.",
    "The store is {closed} on sundays.",
    "He sat down {and} opened his book.",
    "Our {cat} likes to chase mice.",
    "I took a {shower} after the game.",
    "Don't forget to do your {homework}.",
    "The {moon} shines at night.",
    "They got married last {year}.",
    "I am {going} to visit my aunt tomorrow.",
    "The cake tastes very {sweet}.",
    "You should {eat} more vegetables.",
    "The river flows into the {sea}.",
    "She lost her {way} in the big city.",
    "We keep our clothes in the {closet}.",
    "The bread is in the {oven}.",
    "Everyone was {happy} at the party.",
    "He has {been} to Paris twice.",
    "I paid for the shoes with my credit {card}.",
    "The farmer has many cows and {sheep}.",
    "My sister is {taller} than me.",
    "Please sit {down}.",
    "The windows are {open} because it is hot.",
    "He runs every day to stay {healthy}.",
    "The {kitchen} is where we cook.",
    "I listen to {music} on the radio.",
    "The old man walks with a {stick}.",
    "She sent me a letter by {mail}.",
    "I don't {know} the answer.",
    "It's late; we {should} go home.",
    "The first month of the year is {january}.",
    "Snow is {white}.",
    "The ice cream {melted} in the sun.",
    "He {was} born in 1990.",
    "My friends came to {see} me at the hospital.",
    "We planted flowers in the {garden}.",
)

_BRACED = re.compile(r"\{([^{}]+)\}")


@functools.lru_cache(maxsize=1)
def masked_items() -> tuple[tuple[str, str], ...]:
    """("sentence with [MASK]", hidden word) for every sentence; one brace pair each."""
    items = []
    for sentence in SENTENCES:
        words = _BRACED.findall(sentence)
        if len(words) != 1:
            raise ValueError(f"expected one {{word}} in {sentence!r}")
        items.append((_BRACED.sub(MASK_TOKEN, sentence), words[0]))
    return tuple(items)


def _key(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


@functools.lru_cache(maxsize=1)
def _held_out_keys() -> frozenset[str]:
    return frozenset(_key(_BRACED.sub(r"\1", s)) for s in SENTENCES)


def is_held_out(text: str) -> bool:
    """True when ``text`` is one of the evaluation sentences (compared lower-cased, letters and digits only)."""
    return _key(text) in _held_out_keys()
