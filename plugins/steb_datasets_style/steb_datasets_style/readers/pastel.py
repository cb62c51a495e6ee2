"""PASTEL (Kang, Gangal and Hovy 2019): stories (STEB's unit) or sentences labelled with the writer's persona."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from steb_core import DataValidationError, LoadContext, parse_json, read_table

from ..common import Loaded, Reader, family_dir, read_text_lenient
from .base import make_record

__all__ = ["PASTEL_ATTRIBUTES", "PASTEL_LEVELS", "pastel_level_files", "pastel_sentence_files", "pastel"]


PASTEL_ATTRIBUTES = {
    "age": ("age",),
    "education": ("education", "edu"),
    "gender": ("gender",),
    "ethnic": ("ethnic", "ethnicity"),
    "politics": ("politics", "political"),
    "tod": ("tod", "time_of_day"),
}


def _pastel_text(obj: Mapping[str, Any]) -> Any:
    """The annotated text: ``output.sentences`` in the release (a string or a one-item list at sentence level, the
    story's five sentences at story level, joined with a space)."""
    for key in ("output.sentences", "sentence", "sentences", "output", "text"):
        if key in obj:
            value = obj[key]
            return (
                " ".join(value)
                if isinstance(value, list) and value and all(isinstance(v, str) for v in value)
                else value
            )
    return None


PASTEL_LEVELS = {"story": "stories", "sentence": "sentences"}


def pastel_level_files(root: Path, level: str, obtain: str) -> tuple[list[Path], Path]:
    """The JSON files of one PASTEL level (``stories`` or ``sentences``), never the other level's.

    ``data_v2.zip`` unpacks to ``v2/{stories,sentences}/{train,valid,test}/*.json`` (under ``data/`` in a
    clone) and ``data.zip`` (v1) to ``{stories,sentences}/...``; when both are present v2 is read (v1 is its
    noisier superset). A folder of JSON files without a level folder is read as is, minus the other level.
    """
    other = "sentences" if level == "stories" else "stories"
    levels = sorted(p for p in root.rglob(level) if p.is_dir() and other not in p.relative_to(root).parts)
    if levels:
        v2 = [p for p in levels if "v2" in p.relative_to(root).parts]
        chosen = v2 or levels
        if len(chosen) > 1:
            raise DataValidationError(
                f"holds several PASTEL {level} folders ({', '.join(str(p.relative_to(root)) for p in chosen)}); "
                "point --data-dir at one release",
                path=root,
            )
        base = chosen[0]
    else:
        base = root
    # sorted by the full path as a string, as the reference's sorted(glob(...)) is (test/, train/, valid/)
    files = sorted(
        (
            p
            for p in base.rglob("*")
            if p.suffix in (".json", ".jsonl") and p.is_file() and other not in p.relative_to(base).parts
        ),
        key=str,
    )
    if not files:
        raise DataValidationError(
            f"no {level}-level .json file (data/v2/{level}/<split>/*.json) under this folder. Obtain it: {obtain}",
            path=root,
        )
    return files, base


def pastel_sentence_files(root: Path, obtain: str) -> tuple[list[Path], Path]:
    """The sentence-level files (the earlier reading; ``--dataset-option unit=sentence``)."""
    return pastel_level_files(root, "sentences", obtain)


def _story_text(obj: Mapping[str, Any]) -> Any:
    """A story as the reference joins it: the stripped, non-empty strings of ``output.sentences`` joined by a space."""
    sentences = obj.get("output.sentences")
    if not isinstance(sentences, list):
        return sentences
    return " ".join(t.strip() for t in sentences if isinstance(t, str) and t.strip())


def pastel(attribute: str) -> Reader:
    """PASTEL (Kang et al. 2019): one JSON object per ``.json`` file (or per ``.jsonl`` line) with ``persona``
    {``age``, ``education``, ``gender``, ``ethnic``, ``politics``, ``tod``, ``country``} and the annotated
    text under ``output.sentences``; label = the persona attribute.

    STEB's unit is the story, read as the STEB reference reads it (``steb/loaders/pastel.py`` @ccaa9dfc
    ``load_pastel``, the config form used for all six attributes; other stored versions have per-attribute
    functions and pastel_tod @0770049a reads the test split only): every story file under ``v2/stories/``
    (test/, train/, valid/), sorted by full path; text = :func:`_story_text`; label = ``str(persona[attribute])``;
    a story whose value is missing, empty or the release's ``"Empty"`` is skipped (``no_attribute``). An id seen
    twice with the same text and label is kept twice, as the reference keeps it (``duplicate_id``; at sentence level
    once); with another label it is an error. ``--dataset-option unit=sentence`` reads the sentence level (39,778
    sentences) instead.
    """
    keys = PASTEL_ATTRIBUTES[attribute]

    def read(ctx: LoadContext, obtain: str) -> Loaded:
        unit = str(ctx.option("unit", "story")).lower()
        if unit not in PASTEL_LEVELS:
            raise DataValidationError(f"option unit={unit!r}", field="unit", expected=" or ".join(PASTEL_LEVELS))
        level = PASTEL_LEVELS[unit]
        root = family_dir(
            ctx, "PASTEL", obtain, f"data/v2/{level}/{{train,valid,test}}/*.json (persona + output.sentences)"
        )
        files, base = pastel_level_files(root, level, obtain)
        stats: Counter[str] = Counter()
        out = []
        seen_ids: dict[str, tuple[Path, str, tuple[str, str]]] = {}
        for f in files:
            rows: Iterable[tuple[str, Any]]
            if f.suffix == ".jsonl":
                rows = read_table(f, "jsonl")
            else:
                doc = parse_json(read_text_lenient(f), path=f)
                rows = [(f"item {i}", o) for i, o in enumerate(doc)] if isinstance(doc, list) else [("object", doc)]
            for where, obj in rows:
                persona = obj.get("persona") if isinstance(obj, dict) else None
                if not isinstance(persona, dict):
                    raise DataValidationError(
                        "is missing or not an object",
                        path=f,
                        record=where,
                        field="persona",
                        expected="persona attributes",
                    )
                rid = None if obj.get("id") is None else str(obj["id"])
                value = next((persona[k] for k in keys if k in persona), None)
                if rid is not None:  # the same sentence twice (a file copied into two splits) must not carry two labels
                    fingerprint = (str(value), json.dumps(_pastel_text(obj), sort_keys=True))
                    if rid in seen_ids:
                        first_file, first_where, first_fp = seen_ids[rid]
                        if first_fp != fingerprint:
                            raise DataValidationError(
                                f"conflicting id {rid!r}: first in {first_file} ({first_where}) with {attribute} "
                                f"{first_fp[0]!r}, here {fingerprint[0]!r}",
                                path=f,
                                record=where,
                                field="id",
                                expected="each id once",
                            )
                        stats["duplicate_id"] += 1
                        if (
                            unit == "sentence"
                        ):  # steb's sentence level keeps one copy; the reference's stories keep both
                            continue
                    seen_ids[rid] = (f, where, fingerprint)
                if value is None or not str(value).strip() or str(value) == "Empty":
                    stats["no_attribute"] += 1
                    continue
                text = _story_text(obj) if unit == "story" else _pastel_text(obj)
                if not isinstance(text, str):
                    raise DataValidationError(
                        f"holds {type(text).__name__}",
                        path=f,
                        record=where,
                        field="output.sentences",
                        expected=f"the annotated {unit} (a string or a list of strings)",
                    )
                rec = make_record(text, str(value) if unit == "story" else str(value).strip(), rid, f, where, stats)
                if rec:
                    out.append(rec)
        return out, {"root": str(base), "files": len(files), "attribute": attribute, "unit": unit, **stats}

    return read
