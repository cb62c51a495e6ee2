"""One key, one text: a BibTeX key cited by several components must carry the same entry everywhere.

``steb cite`` prints each key once (the first entry it meets); if two plugins spelled the same work
differently, the fields printed would depend on plugin order. This checks every dataset and encoder
that the installed plugins register (issue 26, "one key per work").
"""

from __future__ import annotations

import re
from collections import defaultdict

import steb_core
from steb_core._plugins import get_manager

_ENTRY = re.compile(r"^@(?P<type>\w+)\{(?P<key>[^,\s]+),", re.M)


def _entries(citation: str) -> dict[str, str]:
    """key -> whitespace-normalised entry text, for every ``@type{key, ...}`` entry in ``citation``."""
    starts = list(_ENTRY.finditer(citation))
    out = {}
    for m, nxt in zip(starts, [*starts[1:], None]):
        out[m.group("key")] = " ".join(citation[m.start() : nxt.start() if nxt else len(citation)].split())
    return out


def test_entries_split_by_key():
    text = "@misc{a,\n title={X},\n}\n@article{b,\n  title = {Y},\n}"
    assert _entries(text) == {"a": "@misc{a, title={X}, }", "b": "@article{b, title = {Y}, }"}


def test_every_key_has_one_text_across_plugins():
    manager = get_manager()
    texts: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    components = [*manager.datasets(), *manager.encoders()]
    for spec in components:
        for key, entry in _entries(str(getattr(spec, "citation", "") or "")).items():
            texts[key][entry].append(spec.name)
    assert len(texts) > 20, "the installed plugins should cite many works"
    conflicts = {
        key: {e[:80]: names[:3] for e, names in variants.items()}
        for key, variants in texts.items()
        if len(variants) > 1
    }
    assert not conflicts, f"one key, several texts: {conflicts}"


def _title(entry: str) -> str:
    m = re.search(r"\btitle\s*=\s*\{(.*?)\},", entry)
    return re.sub(r"[^a-z0-9]", "", m.group(1).lower()) if m else ""


def test_every_work_has_one_key_across_plugins():
    manager = get_manager()
    keys: dict[str, set[str]] = defaultdict(set)
    for spec in [*manager.datasets(), *manager.encoders()]:
        for key, entry in _entries(str(getattr(spec, "citation", "") or "")).items():
            if title := _title(entry):
                keys[title].add(key)
    assert len(keys) > 20
    several = {title: sorted(k) for title, k in keys.items() if len(k) > 1}
    assert not several, f"one work cited under several keys: {several}"


def test_the_steb_paper_is_cited_with_the_cores_entry():
    manager = get_manager()
    citing = [s.name for s in manager.datasets() if "steb2026" in _entries(s.citation or "")]
    assert citing, "some datasets (introduced by the STEB paper) cite it"
    for spec in manager.datasets():
        entry = _entries(spec.citation or "").get("steb2026")
        if entry is not None:
            assert entry == " ".join(steb_core.STEB_PAPER_BIBTEX.split()), spec.name
