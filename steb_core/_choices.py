"""Checking the values of filters (``--task``, ``--category``, ``--language``, ``--encoder`` ...).

Why: a filter value that matches nothing used to select nothing, and an empty list or leaderboard
looks like an answer ("no dataset has that category") when it is a typo. Every value of a filter is
checked against the values that exist, and an unknown one is an error with "did you mean".
Languages are compared as ISO 639 codes, so ``eng`` finds the datasets tagged ``en`` and back.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from ._errors import StebError

__all__ = ["check_values", "language_codes", "ISO_639_3"]

#: ISO 639-1 -> ISO 639-3 for the languages of steb's catalogue and their close neighbours; a code
#: outside this table is compared as given
ISO_639_3 = {
    "ar": "ara",
    "bg": "bul",
    "ca": "cat",
    "cs": "ces",
    "da": "dan",
    "de": "deu",
    "el": "ell",
    "en": "eng",
    "es": "spa",
    "et": "est",
    "fa": "fas",
    "fi": "fin",
    "fr": "fra",
    "ga": "gle",
    "he": "heb",
    "hi": "hin",
    "hr": "hrv",
    "hu": "hun",
    "id": "ind",
    "it": "ita",
    "ja": "jpn",
    "ko": "kor",
    "lt": "lit",
    "lv": "lav",
    "nl": "nld",
    "no": "nor",
    "pl": "pol",
    "pt": "por",
    "ro": "ron",
    "ru": "rus",
    "sk": "slk",
    "sl": "slv",
    "sv": "swe",
    "tr": "tur",
    "uk": "ukr",
    "zh": "zho",
}
#: bibliographic ISO 639-2 codes people also type
_ALIASES = {
    "ger": "deu",
    "fre": "fra",
    "dut": "nld",
    "gre": "ell",
    "chi": "zho",
    "per": "fas",
    "cze": "ces",
    "slo": "slk",
    "rum": "ron",
}
_TO_1 = {three: one for one, three in ISO_639_3.items()}


def language_codes(code: str) -> set[str]:
    """The spellings of one language code: ``eng`` -> {``eng``, ``en``}, ``en`` -> {``en``, ``eng``}."""
    value = code.strip().lower().split("-")[0].split("_")[0]
    value = _ALIASES.get(value, value)
    out = {value}
    if value in ISO_639_3:
        out.add(ISO_639_3[value])
    if value in _TO_1:
        out.add(_TO_1[value])
    return out


def _suggest(value: str, known: list[str]) -> list[str]:
    lower = {k.lower(): k for k in known}
    if value.lower() in lower:
        return [lower[value.lower()]]
    variants = {value, value.replace("-", "_"), value.replace("_", "-")}
    for variant in variants:
        if variant in known:
            return [variant]
    close = difflib.get_close_matches(value.lower(), list(lower), n=3, cutoff=0.6)
    return [lower[c] for c in close] or [k for k in known if value.lower() in k.lower()][:3]


def check_values(what: str, values: Iterable[str] | None, known: Iterable[str], *, hint: str = "") -> None:
    """Raise a :class:`StebError` naming the first value of ``values`` not in ``known``, with close
    matches ("did you mean") and the known values; ``hint`` says where to see them."""
    if not values:
        return
    known_list = sorted(set(known))
    for value in values:
        if value in known_list:
            continue
        close = _suggest(value, known_list)
        text = f"unknown {what} '{value}'"
        if close:
            text += f"; did you mean {' or '.join(repr(c) for c in close)}?"
        shown = known_list[:30]
        text += f" Known: {', '.join(shown) or 'none'}" + (
            f" ... and {len(known_list) - 30} more" if len(known_list) > 30 else ""
        )
        if hint:
            text += f" ({hint})"
        raise StebError(text + ".")
