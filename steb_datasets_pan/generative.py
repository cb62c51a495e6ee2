"""AI-text detection (PAN24 generative authorship, PAN25/26 "Voight-Kampff" task 1, PAN25 task 2).

Two release layouts are read:

- *texts + truth* (PAN25/26 and the smoke test): jsonl files of ``{"id", "text", ...}`` and, where the
  labels are not inline, a ``*truth*.jsonl`` keyed by ``id``. Label fields: ``label`` (1 = machine,
  0 = human), ``model`` (the generating LLM or ``human``), ``genre`` (essays, fiction, news) and, for
  task 2, the collaboration category (``label_text``/``category``, else ``label``).
- *one file per source* (PAN24 news): ``human.jsonl`` and ``machines/<model>.jsonl`` (``id``,
  ``text``); the file name is the class.

Texts become :class:`LabelledText` for clustering: the class is ``human`` or the model name
(``machine`` where only the binary label exists), or the task-2 category. As the STEB reference reads
them (``steb/loaders/pan.py`` @a8445f54 ``load_pan24_generative_authorship``,
``load_pan25_26_generative_ai_detection``, ``load_pan25_collaborative_text_classification``): records in
file order (PAN24: ``human.jsonl`` then ``machines/*.jsonl`` sorted), texts not stripped, a blank text
skipped (counted); then the reference's first N per class (:func:`steb_core.sample_classes`, N =
max(25, min(smallest class, 200)); ``per_class`` and ``sampling`` options). The files are scanned once
for ids, labels and byte offsets; texts are parsed again only for the kept records, so memory follows
the sample size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from steb_core import (
    AUTO_PER_CLASS,
    DatasetBundle,
    DataValidationError,
    LabelledText,
    LoadContext,
    check_inside,
    located,
    parse_budget,
    release_path,
    sample_classes,
    sampling_mode,
    unique_keys,
)

from .files import choose_one, find_folder, read_jsonl_at, release_dir, scan_jsonl, truth_beside

__all__ = ["GenerativeSource", "load_generative"]

RELEASE_WORDS = ("generative", "voight", "genai", "ai-detection", "collaborative", "llm")
_LABEL_FIELDS = ("label", "model", "genre", "label_text", "category")
_HUMAN = {"human", "human-written", "human_written"}


@dataclass(frozen=True)
class GenerativeSource:
    """One STEB AI-detection dataset: which genre, how texts are labelled, Table 15's per-class budget (listings)."""

    release: str
    genre: str | None = None
    labelling: str = "model"  # "model": human/each LLM; "category": task-2 classes; "binary": human/machine
    per_class: int | None = None
    edition: str = ""  # official release folder prefix (pan24, pan25, pan26)

    def layout(self) -> str:
        return (
            '<data-dir>/[release folder/]<texts>.jsonl ({"id", "text"[, "model", "label", "genre"]}) '
            '[+ <name>-truth.jsonl keyed by "id"], or human.jsonl + machines/<model>.jsonl'
        )


@dataclass(slots=True)
class _Entry:
    id: str
    path: Path
    lineno: int
    offset: int
    fields: dict[str, Any] | None  # label fields until the entry is classified, then dropped to save memory
    label: str = ""


def _is_truth(p: Path) -> bool:
    return "truth" in p.name.lower()


def load_generative(ctx: LoadContext, source: GenerativeSource, obtain: str) -> DatasetBundle:
    """Labelled texts of one genre, the reference's first N per class. Options: ``texts_file``, ``truth_file``,
    ``per_class`` (``auto``, ``all`` or an int), ``sampling`` (``random``: N drawn with the run seed)."""
    root = release_dir(ctx, obtain, source.layout(), source.edition or "pan", RELEASE_WORDS, task="generative")
    folder = find_folder(root, lambda f: any(f.glob("*.jsonl")))
    if folder is None:
        ctx.require_file("dataset.jsonl", obtain, source.layout())
        folder = root
    classify = partial(_classify, source=source, dataset=ctx.dataset)
    blank: list[str] = []
    if (folder / "human.jsonl").is_file():
        entries, files = _scan_per_source(folder, classify, blank)
    else:
        entries, files = _scan_with_truth(folder, ctx.options, classify, blank)
    if not entries:
        raise DataValidationError(f"holds no texts of genre '{source.genre}'", path=files[0])
    default = (
        AUTO_PER_CLASS if source.per_class is not None else None
    )  # a set outside STEB's catalogue (the smoke test): every text
    chosen, sampled = sample_classes(
        entries,
        lambda e: e.label,
        parse_budget(ctx.options, default),
        sampling=sampling_mode(ctx.options),
        seed=ctx.seed,
        salt=ctx.dataset,
    )
    if not chosen:
        raise DataValidationError(
            f"every class has fewer than {sampled['per_class']} texts ({sampled['class_counts_available']}); "
            "pass --dataset-option per_class=N",
            path=files[0],
        )
    by_entry: dict[int, LabelledText] = {}
    for path in dict.fromkeys(e.path for e in chosen):  # file by file, one handle each
        mine = sorted((e for e in chosen if e.path == path), key=lambda e: e.offset)
        for e, obj in zip(mine, read_jsonl_at(path, ((e.offset, e.lineno) for e in mine))):
            with located(e.path, e.id):
                by_entry[id(e)] = LabelledText(text=obj["text"], label=e.label, id=e.id)
    texts = [by_entry[id(e)] for e in chosen]  # class by class, as sample_classes ordered them
    return DatasetBundle(
        labelled_texts=texts,
        info={
            "source": source.release,
            "files": [str(f) for f in files],
            "genre": source.genre,
            "labelling": source.labelling,
            "catalogue_per_class": source.per_class,
            "blank_texts_skipped": len(blank),
            **sampled,
        },
    )


def _scan_texts(
    path: Path,
    seen: set[str],
    classify: Callable[[_Entry], str | None] | None,
    extra: dict[str, Any] | None = None,
    blank: list[str] | None = None,
) -> Iterator[_Entry]:
    """Entries (id, position, label fields) of every record of ``path``; the text is checked, not kept.

    With ``classify`` the entry is labelled at once and dropped when it is of another genre, so a
    large release costs memory only for the texts of the requested genre. A blank text is skipped and
    its id appended to ``blank`` (the reference skips it too).
    """
    for row in scan_jsonl(path):
        obj = row.obj
        if "id" not in obj:
            raise DataValidationError("is missing", path=path, record=f"line {row.lineno}", field="id")
        rid = str(obj["id"])
        text = obj.get("text")
        if not isinstance(text, str):
            raise DataValidationError(
                "is missing" if text is None else f"is a {type(text).__name__}",
                path=path,
                record=rid,
                field="text",
                expected="text",
            )
        if not text.strip():
            if blank is not None:
                blank.append(rid)
                continue
            raise DataValidationError("is empty", path=path, record=rid, field="text", expected="non-empty text")
        if rid in seen:
            raise DataValidationError(
                f"appears twice (again at line {row.lineno})", path=path, record=rid, field="id", expected="unique ids"
            )
        seen.add(rid)
        fields = {k: obj[k] for k in _LABEL_FIELDS if k in obj}
        if extra:
            fields.update(extra)
        entry = _Entry(rid, path, row.lineno, row.offset, fields)
        if classify is not None:
            label = classify(entry)
            if label is None:
                continue
            entry.label, entry.fields = label, None
        yield entry


def _scan_per_source(
    folder: Path, classify: Callable[[_Entry], str | None], blank: list[str]
) -> tuple[list[_Entry], list[Path]]:
    files = [folder / "human.jsonl"]
    machines = folder / "machines"
    files += (
        sorted(machines.glob("*.jsonl"))
        if machines.is_dir()
        else sorted(p for p in folder.glob("*.jsonl") if p.name != "human.jsonl")
    )
    seen: set[str] = set()
    entries: list[_Entry] = []
    for path in files:
        check_inside(path, folder, what="release folder")  # found by glob: a link may lead outside the release
        model = "human" if path.name == "human.jsonl" else path.stem
        entries.extend(
            _scan_texts(path, seen, classify, {"model": model, "label": 0 if model == "human" else 1}, blank)
        )
    return entries, files


def _scan_with_truth(
    folder: Path, options: Mapping[str, Any], classify: Callable[[_Entry], str | None], blank: list[str]
) -> tuple[list[_Entry], list[Path]]:
    jsonl = sorted(folder.glob("*.jsonl"))
    if options.get("texts_file"):
        texts_path = release_path(folder, options["texts_file"], path=folder, field="texts_file")
    else:
        texts_path = choose_one(
            [p for p in jsonl if not _is_truth(p)],
            "texts file (*.jsonl)",
            folder,
            "texts_file",
            preferred=("test", "val", "dev", "dataset"),
        )  # the reference reads val.jsonl (task 1), dev.jsonl (task 2)
    truth_candidates = [p for p in jsonl if _is_truth(p)]
    truth_path: Path | None
    if options.get("truth_file"):
        truth_path = release_path(folder, options["truth_file"], path=folder, field="truth_file")
    elif truth_candidates:
        truth_path = truth_beside(texts_path, truth_candidates) or choose_one(
            truth_candidates, "truth file", folder, "truth_file", preferred=("test",)
        )
    else:
        truth_path = None
    for found in (texts_path, truth_path):  # found by glob: a link may lead outside the release
        if found is not None:
            check_inside(found, folder, what="release folder")
    if truth_path is None:  # labels inline: classify while scanning
        return list(_scan_texts(texts_path, set(), classify, blank=blank)), [texts_path]
    entries = {
        e.id: e for e in _scan_texts(texts_path, set(), None)
    }  # a truth-file release (the smoke test): blank is an error
    truth = unique_keys(_truth_rows(truth_path, texts_path, entries), path=truth_path, field="id", what="truth")
    for rid, fields in truth.items():
        _fields(entries[rid]).update(fields)
    seen = set(truth)
    missing = [rid for rid in entries if rid not in seen]
    if missing:
        e = entries[missing[0]]
        raise DataValidationError(
            f"has no truth record ({len(missing)} id(s) missing; text at {texts_path.name} line {e.lineno})",
            path=truth_path,
            record=e.id,
            field="id",
            expected="a truth record for every text id",
        )
    kept = []
    for e in entries.values():
        label = classify(e)
        if label is not None:
            e.label, e.fields = label, None
            kept.append(e)
    return kept, [texts_path, truth_path]


def _truth_rows(
    truth_path: Path, texts_path: Path, entries: Mapping[str, _Entry]
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(record, id, label fields)`` per truth line; :func:`unique_keys` refuses an id given twice (issue 20:
    a duplicated line with a flipped label used to overwrite the first silently)."""
    for row in scan_jsonl(truth_path):
        if "id" not in row.obj:
            raise DataValidationError("is missing", path=truth_path, record=f"line {row.lineno}", field="id")
        rid = str(row.obj["id"])
        if rid not in entries:
            raise DataValidationError(
                f"has no text in {texts_path.name}",
                path=truth_path,
                record=rid,
                field="id",
                expected="truth only for ids of the texts file",
            )
        yield f"line {row.lineno}", rid, {k: row.obj[k] for k in _LABEL_FIELDS if k in row.obj}


def _fields(e: _Entry) -> dict[str, Any]:
    """An entry's label fields; only entries not yet classified (which still hold them) are asked."""
    assert e.fields is not None, f"entry {e.id}: label fields asked for after classification"
    return e.fields


def _classify(e: _Entry, source: GenerativeSource, dataset: str) -> str | None:
    """The entry's class, or None when it is of another genre; records lacking the needed fields are errors."""
    if source.genre is not None:
        genre = _fields(e).get("genre")
        if genre is None:
            raise DataValidationError(
                f"has no 'genre'; dataset '{dataset}' takes the {source.genre} texts of a genre-annotated release",
                path=e.path,
                record=e.id,
                field="genre",
            )
        if str(genre).lower() != source.genre:
            return None
    return _class_of(e, source.labelling)


def _class_of(e: _Entry, labelling: str) -> str:
    f = _fields(e)
    if labelling == "category":
        for key in ("label_text", "category", "label"):
            if f.get(key) is not None and str(f[key]).strip():
                return str(f[key]).strip()
        raise DataValidationError(
            "is missing", path=e.path, record=e.id, field="label", expected="a collaboration category"
        )
    binary = f.get("label")
    if binary is not None and binary not in (0, 1):
        raise DataValidationError(
            f"is {binary!r}", path=e.path, record=e.id, field="label", expected="1 (machine) or 0 (human)"
        )
    if labelling == "model" and isinstance(f.get("model"), str) and f["model"].strip():
        model = f["model"].strip()
        return "human" if model.lower() in _HUMAN else model
    if binary is None:
        raise DataValidationError(
            "is missing", path=e.path, record=e.id, field="label", expected="'label' (1 machine, 0 human) or 'model'"
        )
    return "machine" if binary == 1 else "human"
