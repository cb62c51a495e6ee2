"""Loaders of the demo datasets: deterministic given the run seed."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from .._io import seeded_rng
from .._records import (
    DatasetBundle,
    FeatureText,
    LabelledText,
    OrderGroup,
    RetrievalSet,
    TextCollection,
    TextPair,
)
from .._sampling import REFERENCE_N_KEY
from .._specs import LoadContext
from . import text as T
from .features import SurfaceFeatures


def _quadruples(
    pair_maker: Callable[[random.Random], tuple[str, str]], n: int, rng: random.Random, style_type: str, prefix: str
) -> list[OrderGroup]:
    """STEB order alignment with k = 2 styles (STEB §3): per instance the plain STEL quadruple (anchors =
    content X in styles (1, 2); alternatives = content Y in both styles, shuffled) and its distractor
    instance (STEL-or-Content: a seeded held-out style h; anchor X in the other style, alternative Y in
    that style, distractor X_h -- the anchor's content in the style it does not have)."""
    groups = []
    for i in range(n):
        x1, x2 = pair_maker(rng)
        y1, y2 = pair_maker(rng)
        while y1 == x1:
            y1, y2 = pair_maker(rng)
        if rng.random() < 0.5:
            alternatives, answer = (y1, y2), (0, 1)
        else:
            alternatives, answer = (y2, y1), (1, 0)
        groups.append(
            OrderGroup(
                anchors=(x1, x2), alternatives=alternatives, answer=answer, id=f"{prefix}-{i}", style_type=style_type
            )
        )
        xa, ya, xh = (x1, y1, x2) if rng.random() < 0.5 else (x2, y2, x1)
        groups.append(
            OrderGroup(
                anchors=(xa,),
                alternatives=(ya,),
                answer=(0,),
                distractor=xh,
                id=f"{prefix}-{i}-held-out",
                style_type=style_type,
            )
        )
    return groups


#: quadruples per style type of the demo's order-alignment sets
_INSTANCES = 60


def _order_info(ctx: LoadContext) -> dict[str, object]:
    """The info of a demo order-alignment set; its N per class is the sequences each style type holds (two per
    quadruple, X and Y), as the reference counts a label's sequences (``steb export`` names the folder by it)."""
    return {"generator": "steb demo", "seed": ctx.seed, REFERENCE_N_KEY: 2 * _INSTANCES}


def load_demo_style_features(ctx: LoadContext) -> DatasetBundle:
    rng = seeded_rng(ctx.seed, ctx.dataset)
    groups = _quadruples(T.contraction_pair, _INSTANCES, rng, "contraction", "contraction")
    groups += _quadruples(T.number_pair, _INSTANCES, rng, "nbr_substitution", "number")
    return DatasetBundle(order_groups=groups, info=_order_info(ctx))


def load_demo_formality(ctx: LoadContext) -> DatasetBundle:
    rng = seeded_rng(ctx.seed, ctx.dataset)
    return DatasetBundle(
        order_groups=_quadruples(T.formality_pair, _INSTANCES, rng, "formality", "formality"), info=_order_info(ctx)
    )


def load_demo_registers(ctx: LoadContext) -> DatasetBundle:
    rng = seeded_rng(ctx.seed, ctx.dataset)
    records = [
        LabelledText(T.register_text(register, rng, sentences=rng.randint(1, 3)), register, id=f"{register}-{i}")
        for register in sorted(T.REGISTERS)
        for i in range(40)
    ]
    return DatasetBundle(
        labelled_texts=records, info={"generator": "steb demo", "seed": ctx.seed, "per_class": 40, REFERENCE_N_KEY: 40}
    )


@dataclass(frozen=True)
class Habits:
    """A synthetic author's writing habits, applied to neutral sentences."""

    end: str  # sentence-final punctuation
    lowercase: bool
    filler: str | None  # discourse marker the author over-uses
    contractions: bool
    opener: str | None
    emoticon: str | None

    def apply(self, sentence: str, rng: random.Random) -> str:
        s = sentence.rstrip(".")
        if self.contractions:
            for full, short in (
                ("did not", "didn't"),
                ("is not", "isn't"),
                ("will not", "won't"),
                ("I am", "I'm"),
                ("It is", "It's"),
            ):
                s = s.replace(full, short)
        if self.filler and rng.random() < 0.7:
            words = s.split()
            words.insert(min(len(words), 2), self.filler + ",")
            s = " ".join(words)
        if self.opener and rng.random() < 0.6:
            s = f"{self.opener} {s[:1].lower()}{s[1:]}"
        s += self.end
        if self.emoticon and rng.random() < 0.5:
            s += " " + self.emoticon
        return s.lower() if self.lowercase else s


def _authors(seed: int, n: int = 12) -> list[Habits]:
    rng = seeded_rng(seed, "demo-authors")
    ends, fillers = [".", "!", "...", "!!", ";"], [None, "honestly", "basically", "indeed", "like", "frankly"]
    openers, emoticons = [None, "Well,", "So,", "Anyway,", "Look,"], [None, ":)", ":-(", ";)", "xD"]
    authors: list[Habits] = []
    seen: set[Habits] = set()
    while len(authors) < n:
        h = Habits(
            rng.choice(ends),
            rng.random() < 0.3,
            rng.choice(fillers),
            rng.random() < 0.5,
            rng.choice(openers),
            rng.choice(emoticons),
        )
        if h not in seen:
            seen.add(h)
            authors.append(h)
    return authors


def _author_text(h: Habits, rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(2, 4)):
        makers: list[Callable[[random.Random], str]] = [T.plain_sentence, lambda r: T.contraction_pair(r)[0]]
        maker = rng.choice(makers)
        sentences.append(h.apply(maker(rng), rng))
    return " ".join(sentences)


def load_demo_authors_pairs(ctx: LoadContext) -> DatasetBundle:
    rng = seeded_rng(ctx.seed, ctx.dataset)
    authors = _authors(ctx.seed)
    pairs = []
    for i in range(200):
        a = rng.randrange(len(authors))
        same = i % 2 == 0
        b = a if same else rng.choice([j for j in range(len(authors)) if j != a])
        pairs.append(TextPair(_author_text(authors[a], rng), _author_text(authors[b], rng), same, id=f"pair-{i}"))
    return DatasetBundle(pairs=pairs, info={"generator": "steb demo", "seed": ctx.seed, "authors": len(authors)})


def load_demo_authors_retrieval(ctx: LoadContext) -> DatasetBundle:
    rng = seeded_rng(ctx.seed, ctx.dataset)
    authors = _authors(ctx.seed)
    queries, targets = [], []
    for a, habits in enumerate(authors):
        queries.append(TextCollection(f"author{a}", tuple(_author_text(habits, rng) for _ in range(3)), id=f"q{a}"))
        targets.append(TextCollection(f"author{a}", tuple(_author_text(habits, rng) for _ in range(3)), id=f"t{a}"))
    return DatasetBundle(
        retrieval=RetrievalSet(tuple(queries), tuple(targets)), info={"generator": "steb demo", "seed": ctx.seed}
    )


def load_demo_probing(ctx: LoadContext) -> DatasetBundle:
    rng = seeded_rng(ctx.seed, ctx.dataset)
    authors = _authors(ctx.seed, n=20)
    texts = []
    for _ in range(600):
        kind = rng.random()
        if kind < 0.4:
            texts.append(_author_text(rng.choice(authors), rng))
        elif kind < 0.7:
            texts.append(T.register_text(rng.choice(sorted(T.REGISTERS)), rng, sentences=rng.randint(1, 4)))
        else:
            texts.append(" ".join(rng.choice(T.number_pair(rng)) for _ in range(rng.randint(1, 3))))
    extractor = SurfaceFeatures()
    values = extractor.extract(texts)
    records = [
        FeatureText(t, dict(zip(extractor.feature_names, map(float, row))), id=f"text-{i}")
        for i, (t, row) in enumerate(zip(texts, values))
    ]
    return DatasetBundle(
        feature_texts=records, info={"generator": "steb demo", "seed": ctx.seed, "features": extractor.feature_names}
    )
