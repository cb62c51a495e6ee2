"""The component catalogue as data: rows for `steb list`, citations for `steb cite`, `steb data check`.

Kept apart from the CLI so the Python API (:func:`steb.get_datasets`) and the commands read the same
facts, and so `--format json|csv` are just other renderings of the same rows.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._errors import StebError
from ._plugins import StebPlugins
from ._records import DatasetBundle
from ._specs import STEB_PAPER_BIBTEX, STEB_PROTOCOL_VERSION, DatasetSpec, LoadContext

__all__ = [
    "component_rows",
    "declared_absent",
    "dataset_rows",
    "bibtex",
    "parse_citation",
    "citation_key",
    "encoder_readiness",
    "STEB_BIBTEX",
    "DataCheck",
    "check_dataset",
    "release_read",
    "shape_counts",
]

#: How to cite steb's protocol source (the STEB paper) and this software.
STEB_BIBTEX = (
    STEB_PAPER_BIBTEX
    + """
@software{steb_software,
  title = {steb: a plugin-based framework for evaluating linguistic style representations},
  note  = {implements """
    + STEB_PROTOCOL_VERSION
    + """},
}"""
)


def dataset_rows(plugins: StebPlugins, specs: Iterable[DatasetSpec], suite: str | None = None) -> list[dict[str, Any]]:
    """One dict per dataset with what a researcher needs to pick it (tasks shown for ``suite`` if given: a
    benchmark's pairs or a tag's ``suite_tasks``); ``suites``: its tags and every registered benchmark naming it."""
    from .run.selection import suite_selection

    registry = plugins.datasets()
    in_suite = {spec.name: tasks for spec, tasks in suite_selection(plugins, suite)} if suite else {}
    benchmarks = list(plugins.benchmarks())
    return [
        {
            "name": s.name,
            "tasks": list(in_suite.get(s.name, s.tasks_for_suite(suite))),
            "languages": list(s.languages),
            "categories": list(s.categories),
            "suites": list(dict.fromkeys((*s.suites, *(b.name for b in benchmarks if s.name in b.datasets)))),
            "size": s.size,
            "provider": registry.provider(s.name),
            "description": s.description,
            "obtain": s.obtain if s.needs_data else "",
            "source": "; ".join(src.describe() for src in s.sources),
            "citation": s.citation,
            "license": s.license,
        }
        for s in sorted(specs, key=lambda s: s.name)
    ]


def component_rows(plugins: StebPlugins, kind: str) -> list[dict[str, Any]]:
    """One dict per registered component of a non-dataset kind."""
    registry = plugins.registry(kind)
    rows = []
    for s in sorted(registry, key=lambda s: s.name):
        row: dict[str, Any] = {"name": s.name}
        if kind == "encoder":
            row["family"] = s.family + (" (similarity-only)" if s.similarity_only else "")
            row["here"], row["why_not"] = encoder_readiness(s)
            row["options"] = ", ".join(s.options_help)
        if kind == "task":
            row["records"], row["main_metric"] = s.shape, s.main_metric
        if kind == "judgement_set":
            row["aspects"], row["protocols"], row["size"] = ", ".join(s.aspects), ", ".join(s.protocols), s.size
        if kind == "benchmark":  # what `--suite NAME` runs: its datasets and (dataset, task) pairs
            row["version"], row["datasets"], row["pairs"] = s.version, len(s.datasets), len(s.pairs)
            row["clusters"] = len(s.clusters)
        row["provider"] = registry.provider(s.name)
        row["description"] = s.description
        if kind == "judgement_set":
            row["source"] = "; ".join(src.describe() for src in s.sources)
            row["obtain"], row["citation"], row["license"] = s.obtain, s.citation, s.license
        if kind == "encoder":  # the hub weights `steb models get` fetches, at the pinned commit when there is one
            hub_id = str(getattr(s, "hub_id", "") or "")
            revision = str(getattr(s, "revision", "") or "")
            row["weights"] = hub_id + (f"@{revision}" if hub_id and revision else "")
        rows.append(row)
    return rows


def encoder_readiness(spec: Any) -> tuple[str, str]:
    """("yes", "") when the encoder can run here now; ("no", why) when a module or its weights are
    missing; ("needs model=", what) for generic loaders that run whatever model they are given.

    Read from the spec's declared needs (:meth:`steb_core.EncoderSpec.availability`: modules, hub
    weights in the local cache, the plugin's own check), never guessed from its free-text ``requires``;
    a spec object without that method (a duck-typed one) counts as ready. A check that raises is
    reported as "no" with its error, so one broken plugin cannot break the listing.
    """
    check = getattr(spec, "availability", None)
    if check is None:
        return "yes", ""
    try:
        verdict = check()
    except Exception as exc:  # noqa: BLE001 - a plugin's check is third-party code: report it, keep listing
        return "no", f"availability check failed: {type(exc).__name__}: {exc}"
    return str(verdict.state), str(verdict.why)


_ACL_STYLE = re.compile(
    r"^(?P<author>[^.]+?(?:\b[A-Z]\.[^.]*?)*)\.\s+(?P<year>(?:19|20)\d\d)\.\s+(?P<title>.+?[.?!])(?:\s+(?:In\s+)?(?P<venue>.+))?$"
)
_PAN_STYLE = re.compile(
    r"^(?P<author>.+?)\s+\((?P<year>(?:19|20)\d\d)\)\.?\s+(?P<title>.+?[.?!])(?:\s+(?P<venue>.+))?$"
)
_NOTE_ONLY = re.compile(r"^@misc\{(?P<key>[^,]+),\s*note\s*=\s*\{(?P<note>.*)\}\s*,?\s*\}$", re.S)


def _authors(text: str) -> str:
    """``A, B and C`` / ``Surname, I. & Other, J.`` / ``X et al.`` as BibTeX's ``A and B and C`` (``others`` for et
    al.)."""
    text = text.strip().rstrip(",")
    etal = re.search(r"\s*(,\s*)?\bet al\.?$", text)
    if etal:
        text = text[: etal.start()]
    if re.search(r"[A-Z][a-z'-]+, [A-Z]\.", text):  # "Surname, I., Other, J. & Last, K."
        people = [p.strip() for p in re.findall(r"[^,&]+,\s*(?:[A-Z]\.\s*)+", text)]
    else:
        people = [p.strip() for p in re.split(r",\s*(?:and\s+)?|\s+and\s+|\s*&\s*", text) if p.strip()]
    return " and ".join(people + (["others"] if etal else []))


def parse_citation(text: str) -> dict[str, str] | None:
    """author, title, year and venue of a free-text citation in ACL style (``A and B. 2021. Title. In
    Proceedings of X.``) or PAN style (``Surname, I. et al. (2018). Title. Venue.``); None when neither."""
    text = " ".join(text.split())
    for pattern in (_PAN_STYLE, _ACL_STYLE):
        m = pattern.match(text)
        # strict: a title with '?' or '!' inside, a second reference in the venue, or ';' among the authors
        # cannot be split reliably, and a wrong field is worse than a note
        if (
            m
            and len(m.group("author")) < 300
            and ";" not in m.group("author")
            and not re.search(r"[?!]\s", m.group("title"))
            and not re.search(r"(?:19|20)\d\d[.)]\s+\S", m.group("venue") or "")
            and not re.search(r"[?!]$", m.group("title"))
        ):
            fields = {
                "author": _authors(m.group("author")),
                "title": m.group("title").rstrip("."),
                "year": m.group("year"),
            }
            venue = (m.group("venue") or "").strip().rstrip(".")
            if venue:
                fields["venue"] = venue
            return fields if fields["author"] else None
    return None


def citation_key(fields: Mapping[str, str]) -> str:
    """``wegmann2021does``: first author's surname, year, first word of the title (one key per work)."""
    first = fields["author"].split(" and ")[0]
    surname = first.split(",")[0] if "," in first else first.split()[-1]
    word = next(
        (w for w in re.findall(r"[A-Za-z]+", fields["title"]) if w.lower() not in {"a", "an", "the", "on", "of"}), ""
    )
    return re.sub(r"[^a-z0-9]", "", (surname + fields["year"] + word).lower())


def bibtex(name: str, citation: str) -> str:
    """A dataset's citation as BibTeX: entries with fields as given; free text (and ``@misc{note=...}``)
    parsed into author, title, year and venue when it reads like a reference, keyed by work (first
    author, year, title word) so datasets from one paper share one entry; otherwise ``@misc`` with a note."""
    text = citation.strip()
    note = _NOTE_ONLY.match(text)
    if text.startswith("@") and not note:
        return text
    plain = note.group("note") if note else text
    fields = parse_citation(plain)
    if fields is None:
        key = re.sub(r"[^A-Za-z0-9_]+", "_", note.group("key") if note else name).strip("_") or "dataset"
        note_text = plain.replace("{", "(").replace("}", ")") or f"steb dataset {name}"
        return f"@misc{{{key},\n  note = {{{note_text}}},\n}}"
    venue = fields.pop("venue", "")
    kind, where = "misc", "howpublished"
    if re.search(r"\b(Proceedings|Conference|Workshop|EMNLP|ACL|NAACL|COLING|LREC|CLEF|Working Notes)\b", venue):
        kind, where = "inproceedings", "booktitle"
    elif re.search(r"\b(Journal|Transactions|Review)\b", venue):
        kind, where = "article", "journal"
    url = re.search(r"https?://\S+|\b[\w.-]+\.(?:org|de|net|com)\b[\w./-]*", venue)
    lines = [
        f"  author = {{{fields['author']}}}",
        f"  title = {{{{{fields['title']}}}}}",
        f"  year = {{{fields['year']}}}",
    ]
    if venue:
        lines.append(f"  {where} = {{{venue}}}")
    if url:
        lines.append(f"  url = {{{url.group(0) if url.group(0).startswith('http') else 'https://' + url.group(0)}}}")
    body = ",\n".join(lines)
    return f"@{kind}{{{citation_key(fields)},\n{body},\n}}"


def shape_counts(bundle: DatasetBundle, shape: str) -> dict[str, int]:
    """The catalogue's counts for one record shape: classes (labels, trials, style types, authors,
    features) and texts (records, pair texts, groups, collection texts)."""
    data = bundle.get(shape)
    if data is None:
        return {}
    if shape == "labelled_texts":
        return {"classes": len({r.label for r in data}), "texts": len(data)}
    if shape == "pairs":
        return {"classes": len(data), "texts": 2 * len(data)}
    if shape == "order_groups":  # instances: plain groups when the construction also made distractor ones
        plain = [g for g in data if g.distractor is None]
        return {"classes": len({g.style_type for g in data}), "texts": len(plain) or len(data)}
    if shape == "retrieval":
        queries = getattr(data, "queries", [])
        targets = getattr(data, "targets", [])
        return {"classes": len({q.author for q in queries}), "texts": sum(len(c.texts_) for c in [*queries, *targets])}
    if shape == "feature_texts":
        return {"classes": len(data[0].features) if data else 0, "texts": len(data)}
    return {"texts": len(data) if hasattr(data, "__len__") else 0}


@dataclass
class DataCheck:
    """What `steb data check` found for one dataset."""

    dataset: str
    status: str  # "ok", "differs", "missing", "error", "builtin"
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    expected: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    message: str = ""
    seconds: float = 0.0
    #: which release the loader read (its ``bundle.info`` "release" or "source", else the folder it read)
    release: str = ""


def release_read(info: Mapping[str, Any]) -> str:
    """A short name of the release a loader read, from what it recorded in ``bundle.info``: an explicit
    ``release`` (e.g. ``carlson``, ``hf``) or ``source``, else the last component of the folder or file read."""
    for key in ("release", "source"):
        value = info.get(key)
        if isinstance(value, str) and value:
            return value
    for key in ("root", "folder", "path", "pairs_file", "file"):
        value = info.get(key)
        if isinstance(value, str) and value:
            return Path(value).name or value
    return ""


def declared_absent(spec: DatasetSpec, data_dir: str | Path | None) -> list[str]:
    """The entries the dataset's git and hub sources declare (what ``steb data get`` fetches, and so all its
    loader may read: ``steb_core.testing.check_declared_reads``) that match no file in their target folder under
    the data root, by the fetch's own rule (:func:`steb_core.obtain.git.matches`); [] when there is no data root
    or the target folder itself is absent (nothing fetched yet: the loader's message says that)."""
    from .obtain.git import matches

    root = Path(data_dir) if data_dir else None
    if root is None or not root.is_dir():
        return []
    out = []
    for source in spec.sources:
        if source.kind not in ("git", "hf") or not source.files:
            continue
        folder = root / (source.target or spec.name) / source.subdir
        if not folder.is_dir():
            continue
        present = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]
        for pattern in source.files:
            if not any(matches(rel, (pattern.strip("/"),)) for rel in present):
                out.append(f"{(Path(source.target or spec.name) / source.subdir / pattern).as_posix()}")
    return out


def check_dataset(
    spec: DatasetSpec,
    data_dir: str | Path | None,
    *,
    seed: int = 0,
    tasks: Iterable[str] | None = None,
    shapes: Mapping[str, str] | None = None,
    options: Mapping[str, Any] | None = None,
) -> DataCheck:
    """Load ``spec`` (nothing is encoded) and compare its counts with the catalogue's promise."""
    started = time.perf_counter()
    ctx = LoadContext(spec.name, LoadContext.resolve_data_dir(spec.name, data_dir), seed, dict(options or {}))
    try:
        bundle = spec.loader(ctx)
    except (StebError, OSError) as exc:
        missing = isinstance(exc, FileNotFoundError)
        # what is missing in the loader's own words (the path it looked for), not the catalogue's obtain text,
        # which named all_files/ for hate_speech while the loader looked for sampled_test/ (issue 45)
        absent = declared_absent(spec, data_dir) if missing else []
        return DataCheck(
            spec.name,
            "missing" if missing else "error",
            expected=spec.expected,
            message=str(exc)
            + (f" (of what `steb data get` fetches for it, not there: {', '.join(absent)})" if absent else ""),
            seconds=time.perf_counter() - started,
        )
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plugin's KeyError or sys.exit fails this dataset's check only
        from .run.summary import describe_failure  # the run engine imports much; only needed here

        return DataCheck(
            spec.name,
            "error",
            expected=spec.expected,
            message=describe_failure(exc),
            seconds=time.perf_counter() - started,
        )
    counts: dict[str, dict[str, int]] = {}
    for task in tasks or spec.tasks:
        shape = (shapes or {}).get(task)
        if shape:
            counts[task] = shape_counts(bundle, shape)
    status = "ok" if spec.needs_data else "builtin"
    notes = []
    for task, promise in spec.expected.items():
        got = counts.get(task, {})
        for key in ("classes", "texts"):
            if key in promise and got.get(key) is not None and got[key] != promise[key]:
                status = "differs"
                notes.append(f"{task} {key} {got[key]} vs {promise[key]}")
    return DataCheck(
        spec.name,
        status,
        counts,
        spec.expected,
        "; ".join(notes),
        time.perf_counter() - started,
        release=release_read(getattr(bundle, "info", None) or {}),
    )
