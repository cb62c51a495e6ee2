"""Word lists and sentence makers for the demo suite (all text here is written for steb)."""

from __future__ import annotations

import random

NAMES = [
    "Mara",
    "Tobias",
    "Ines",
    "Rafael",
    "Yuki",
    "Oskar",
    "Leila",
    "Dmitri",
    "Amara",
    "Jonas",
    "Priya",
    "Felix",
    "Noor",
    "Matteo",
    "Sofia",
    "Kwame",
    "Elena",
    "Hugo",
    "Zara",
    "Anton",
]
SUBJECTS = [
    "my neighbour",
    "the committee",
    "our teacher",
    "the new manager",
    "her brother",
    "the old farmer",
    "the city council",
    "my cousin",
    "the bakery owner",
    "the night nurse",
    "the bus driver",
    "the landlord",
]
OBJECTS = [
    "the garden fence",
    "the quarterly report",
    "a second-hand bicycle",
    "the kitchen window",
    "the summer festival",
    "an old piano",
    "the school library",
    "the parking rules",
    "a wooden canoe",
    "the village bridge",
    "the train schedule",
    "a stack of letters",
    "the rooftop antenna",
    "the football pitch",
    "a box of tools",
]
VERBS = [
    ("fix", "fixing", "fixed"),
    ("paint", "painting", "painted"),
    ("sell", "selling", "sold"),
    ("inspect", "inspecting", "inspected"),
    ("move", "moving", "moved"),
    ("replace", "replacing", "replaced"),
    ("clean", "cleaning", "cleaned"),
    ("measure", "measuring", "measured"),
    ("repair", "repairing", "repaired"),
    ("photograph", "photographing", "photographed"),
]
TIMES = [
    "on Monday",
    "next week",
    "before the storm",
    "after lunch",
    "at dawn",
    "in the spring",
    "this evening",
    "over the weekend",
    "before noon",
    "in late autumn",
]
PLACES = [
    "near the river",
    "behind the station",
    "in the town square",
    "at the harbour",
    "beside the church",
    "on the hill",
    "in the back yard",
    "at the market",
]
ITEMS = ["apples", "chairs", "tickets", "books", "candles", "lamps", "plates", "bottles", "maps", "keys"]
NUMBER_WORDS = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    12: "twelve",
    15: "fifteen",
    20: "twenty",
    30: "thirty",
    40: "forty",
    50: "fifty",
}
ADJECTIVES = ["likely", "clear", "obvious", "possible", "strange", "true", "surprising"]


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def plain_sentence(rng: random.Random) -> str:
    subj = rng.choice(SUBJECTS + NAMES)
    verb = rng.choice(VERBS)[2]
    return cap(f"{subj} {verb} {rng.choice(OBJECTS)} {rng.choice(PLACES)} {rng.choice(TIMES)}.")


# (expanded, contracted) sentence pairs: the same content with and without contractions
def contraction_pair(rng: random.Random) -> tuple[str, str]:
    subj = rng.choice(SUBJECTS + NAMES)
    base, ing, past = rng.choice(VERBS)
    obj, time = rng.choice(OBJECTS), rng.choice(TIMES)
    templates = [
        (f"{cap(subj)} is not {ing} {obj} {time}.", f"{cap(subj)} isn't {ing} {obj} {time}."),
        (f"{cap(subj)} did not {base} {obj} {time}.", f"{cap(subj)} didn't {base} {obj} {time}."),
        (f"I am sure {subj} will not {base} {obj}.", f"I'm sure {subj} won't {base} {obj}."),
        (
            f"It is {rng.choice(ADJECTIVES)} that {subj} would have {past} {obj}.",
            f"It's {rng.choice(ADJECTIVES)} that {subj} would've {past} {obj}.",
        ),
        (f"We are not certain that {subj} has {past} {obj}.", f"We aren't certain that {subj}'s {past} {obj}."),
        (
            f"They have not {past} {obj} {time}, and they do not plan to.",
            f"They haven't {past} {obj} {time}, and they don't plan to.",
        ),
    ]
    return rng.choice(templates)


# (digits, number words): the same content with numerals or spelled-out numbers
def number_pair(rng: random.Random) -> tuple[str, str]:
    a, b = rng.sample(sorted(NUMBER_WORDS), 2)
    subj, item, time, place = rng.choice(SUBJECTS + NAMES), rng.choice(ITEMS), rng.choice(TIMES), rng.choice(PLACES)
    templates = [
        (
            f"{cap(subj)} bought {a} {item} for {b} dollars {time}.",
            f"{cap(subj)} bought {NUMBER_WORDS[a]} {item} for {NUMBER_WORDS[b]} dollars {time}.",
        ),
        (
            f"The shop {place} sold {a} {item} in {b} minutes.",
            f"The shop {place} sold {NUMBER_WORDS[a]} {item} in {NUMBER_WORDS[b]} minutes.",
        ),
        (
            f"{cap(subj)} waited {a} hours for {b} {item}.",
            f"{cap(subj)} waited {NUMBER_WORDS[a]} hours for {NUMBER_WORDS[b]} {item}.",
        ),
    ]
    digits, words = rng.choice(templates)
    return digits, words


# (informal, formal) paraphrases
def formality_pair(rng: random.Random) -> tuple[str, str]:
    name = rng.choice(NAMES)
    base, ing, past = rng.choice(VERBS)
    obj, time = rng.choice(OBJECTS), rng.choice(TIMES)
    templates = [
        (f"hey so {name.lower()} is gonna {base} {obj} {time} lol", f"{name} intends to {base} {obj} {time}."),
        (f"omg {name.lower()} totally {past} {obj}!!", f"{name} has {past} {obj} completely."),
        (f"dunno if {name.lower()} wanna {base} {obj} tbh", f"I am uncertain whether {name} wishes to {base} {obj}."),
        (f"yeah {name.lower()} kinda {past} {obj} {time} i guess", f"It appears that {name} {past} {obj} {time}."),
        (
            f"u think {name.lower()} can {base} {obj}?? pls say yes",
            f"Do you believe {name} is able to {base} {obj}? I would appreciate a positive answer.",
        ),
    ]
    return rng.choice(templates)


REGISTERS = {
    "chat": [
        "omg did u see {obj} {place}?? lol",
        "brb, {name} wants to {base} {obj} rn",
        "haha {name} {past} {obj} again {time} :D",
        "ok ok i'll {base} {obj} later, promise",
    ],
    "legal": [
        "The Lessee shall {base} {obj} pursuant to Section {n} of this Agreement.",
        "Notwithstanding the foregoing, {subj} may not {base} {obj} without prior written consent.",
        "Any party that fails to {base} {obj} within {n} days shall be deemed in breach hereof.",
        "The obligations set forth herein regarding {obj} shall survive termination for {n} years.",
    ],
    "news": [
        "{Subj} announced {time} that {obj} {place} would be {past}, officials said.",
        "Residents gathered {place} {time} after {subj} {past} {obj}, according to witnesses.",
        "{Name}, a spokesperson, said {obj} had been {past} and further updates would follow.",
        "Authorities confirmed {time} that {n} people were involved in efforts to {base} {obj}.",
    ],
    "recipe": [
        "Preheat the oven to {n}0 degrees and bake the {item} for {m} minutes.",
        "Whisk {n} eggs with a pinch of salt, then fold in the flour gently.",
        "Simmer the sauce for {m} minutes, stirring occasionally, until it thickens.",
        "Chop {n} onions finely and fry them in butter until golden.",
    ],
}


def register_text(register: str, rng: random.Random, sentences: int = 2) -> str:
    out = []
    for _ in range(sentences):
        base, ing, past = rng.choice(VERBS)
        subj = rng.choice(SUBJECTS)
        template = rng.choice(REGISTERS[register])
        out.append(
            template.format(
                obj=rng.choice(OBJECTS),
                place=rng.choice(PLACES),
                name=rng.choice(NAMES),
                base=base,
                past=past,
                time=rng.choice(TIMES),
                subj=subj,
                Subj=cap(subj),
                Name=rng.choice(NAMES),
                n=rng.randint(2, 30),
                m=rng.randint(5, 60),
                item=rng.choice(["bread", "pie", "cake", "buns"]),
            )
        )
    return " ".join(out)
