"""The component catalogue as data: rows for `steb list`, citations for `steb cite`, `steb data check`.

Kept apart from the CLI so the Python API (:func:`steb.get_datasets`) and the commands read the same
facts, and so `--format json|csv` are just other renderings of the same rows.
"""

from __future__ import annotations

import importlib.util
import os
import re
import time
from importlib.metadata import PackageNotFoundError, version
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from .errors import StebError
from .plugins import StebPlugins
from .records import DatasetBundle
from .specs import STEB_PROTOCOL_VERSION, DatasetSpec, LoadContext

__all__ = ["component_rows", "dataset_rows", "bibtex", "parse_citation", "citation_key", "encoder_readiness", "STEB_BIBTEX", "DataCheck", "check_dataset", "shape_counts"]

#: How to cite steb's protocol source (the STEB paper) and this software.
STEB_BIBTEX = """@misc{steb2026,
  title  = {{STEB}: Style Text Embedding Benchmark},
  author = {Rivera Soto, Rafael and Wegmann, Anna and Aggazzotti, Cristina},
  year   = {2026},
  note   = {arXiv:2606.31741},
}
@software{steb_software,
  title = {steb: a plugin-based framework for evaluating linguistic style representations},
  note  = {implements %s},
}""" % STEB_PROTOCOL_VERSION


def dataset_rows(plugins: StebPlugins, specs: Iterable[DatasetSpec], suite: str | None = None) -> list[dict[str, Any]]:
    """One dict per dataset with what a researcher needs to pick it (tasks shown for ``suite`` if given)."""
    registry = plugins.datasets()
    return [
        {
            "name": s.name,
            "tasks": list(s.tasks_for_suite(suite)),
            "languages": list(s.languages),
            "categories": list(s.categories),
            "suites": list(s.suites),
            "size": s.size,
            "provider": registry.provider(s.name),
            "description": s.description,
            "obtain": s.obtain if s.needs_data else "",
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
        row["provider"] = registry.provider(s.name)
        row["description"] = s.description
        rows.append(row)
    return rows


#: the Python modules each encoder family imports when it runs (checked without importing them)
_FAMILY_MODULES = {
    "sentence-transformers": ("torch", "transformers", "sentence_transformers"),
    "masked-lm": ("torch", "transformers"),
    "causal-lm": ("torch", "transformers"),
    "episode": ("torch", "transformers"),
    "multi-label-classifier": ("torch", "transformers"),
}
_HUB_WEIGHTS = re.compile(r"weights of (?P<repo>[\w.-]+/[\w.-]+) in the local Hugging Face cache")
_PIP = re.compile(r"pip install (?P<dist>[\w.-]+)")


def _hub_cache_dirs() -> list[Path]:
    env = os.environ
    dirs = [env.get("HF_HUB_CACHE"), env.get("HUGGINGFACE_HUB_CACHE"),
            str(Path(env["HF_HOME"]) / "hub") if env.get("HF_HOME") else None,
            str(Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "huggingface" / "hub")]
    return [Path(d) for d in dirs if d]


def _in_hub_cache(repo: str) -> bool:
    folder = "models--" + repo.replace("/", "--")
    return any(any((root / folder / "snapshots").glob("*/*")) for root in _hub_cache_dirs() if (root / folder / "snapshots").is_dir())


def _distribution_installed(name: str) -> bool:
    try:
        version(name)
    except PackageNotFoundError:
        return False
    return True


def encoder_readiness(spec: Any) -> tuple[str, str]:
    """("yes", "") when the encoder can run here now; ("no", why) when a library or its weights are
    missing; ("needs model=", what) for generic loaders that run whatever path they are given.

    Checked without importing anything heavy: the family's modules are looked up with
    ``importlib.util.find_spec``, hub weights in the local Hugging Face cache, ``pip install X`` and
    bare distribution names (a spaCy model) in the installed distributions.
    """
    missing = [m for m in _FAMILY_MODULES.get(spec.family, ()) if importlib.util.find_spec(m) is None]
    if missing:
        return "no", f"needs {', '.join(missing)} (pip install steb-models-neural)"
    requires = " ".join(str(spec.requires or "").split())
    if not requires:
        return "yes", ""
    hub = _HUB_WEIGHTS.search(requires)
    if hub:
        return ("yes", "") if _in_hub_cache(hub.group("repo")) else ("no", f"weights not in the HF cache: hf download {hub.group('repo')}")
    pip = _PIP.search(requires)
    if pip:
        return ("yes", "") if _distribution_installed(pip.group("dist")) else ("no", f"pip install {pip.group('dist')}")
    if re.fullmatch(r"[\w.-]+", requires):  # a distribution name, e.g. a spaCy model package
        return ("yes", "") if _distribution_installed(requires) else ("no", f"pip install {requires}")
    return "needs model=", requires


_ACL_STYLE = re.compile(r"^(?P<author>[^.]+?(?:\b[A-Z]\.[^.]*?)*)\.\s+(?P<year>(?:19|20)\d\d)\.\s+(?P<title>.+?[.?!])(?:\s+(?:In\s+)?(?P<venue>.+))?$")
_PAN_STYLE = re.compile(r"^(?P<author>.+?)\s+\((?P<year>(?:19|20)\d\d)\)\.?\s+(?P<title>.+?[.?!])(?:\s+(?P<venue>.+))?$")
_NOTE_ONLY = re.compile(r"^@misc\{(?P<key>[^,]+),\s*note\s*=\s*\{(?P<note>.*)\}\s*,?\s*\}$", re.S)


def _authors(text: str) -> str:
    """``A, B and C`` / ``Surname, I. & Other, J.`` / ``X et al.`` as BibTeX's ``A and B and C`` (``others`` for et al.)."""
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
        if (m and len(m.group("author")) < 300 and ";" not in m.group("author") and not re.search(r"[?!]\s", m.group("title"))
                and not re.search(r"(?:19|20)\d\d[.)]\s+\S", m.group("venue") or "") and not re.search(r"[?!]$", m.group("title"))):
            fields = {"author": _authors(m.group("author")), "title": m.group("title").rstrip("."), "year": m.group("year")}
            venue = (m.group("venue") or "").strip().rstrip(".")
            if venue:
                fields["venue"] = venue
            return fields if fields["author"] else None
    return None


def citation_key(fields: Mapping[str, str]) -> str:
    """``wegmann2021does``: first author's surname, year, first word of the title (one key per work)."""
    first = fields["author"].split(" and ")[0]
    surname = first.split(",")[0] if "," in first else first.split()[-1]
    word = next((w for w in re.findall(r"[A-Za-z]+", fields["title"]) if w.lower() not in {"a", "an", "the", "on", "of"}), "")
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
        return "@misc{%s,\n  note = {%s},\n}" % (key, plain.replace("{", "(").replace("}", ")") or f"steb dataset {name}")
    venue = fields.pop("venue", "")
    kind, where = "misc", "howpublished"
    if re.search(r"\b(Proceedings|Conference|Workshop|EMNLP|ACL|NAACL|COLING|LREC|CLEF|Working Notes)\b", venue):
        kind, where = "inproceedings", "booktitle"
    elif re.search(r"\b(Journal|Transactions|Review)\b", venue):
        kind, where = "article", "journal"
    url = re.search(r"https?://\S+|\b[\w.-]+\.(?:org|de|net|com)\b[\w./-]*", venue)
    lines = [f"  author = {{{fields['author']}}}", f"  title = {{{{{fields['title']}}}}}", f"  year = {{{fields['year']}}}"]
    if venue:
        lines.append(f"  {where} = {{{venue}}}")
    if url:
        lines.append(f"  url = {{{url.group(0) if url.group(0).startswith('http') else 'https://' + url.group(0)}}}")
    return "@%s{%s,\n%s,\n}" % (kind, citation_key(fields), ",\n".join(lines))


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


def check_dataset(spec: DatasetSpec, data_dir: str | Path | None, *, seed: int = 0, tasks: Iterable[str] | None = None,
                  shapes: Mapping[str, str] | None = None, options: Mapping[str, Any] | None = None) -> DataCheck:
    """Load ``spec`` (nothing is encoded) and compare its counts with the catalogue's promise."""
    started = time.perf_counter()
    ctx = LoadContext(spec.name, LoadContext.resolve_data_dir(spec.name, data_dir), seed, dict(options or {}))
    try:
        bundle = spec.loader(ctx)
    except (StebError, OSError) as exc:
        missing = isinstance(exc, FileNotFoundError)
        return DataCheck(spec.name, "missing" if missing else "error", expected=spec.expected,
                         message=str(exc) if not missing else (spec.obtain or str(exc)), seconds=time.perf_counter() - started)
    except ValueError as exc:
        return DataCheck(spec.name, "error", expected=spec.expected, message=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - started)
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
    return DataCheck(spec.name, status, counts, spec.expected, "; ".join(notes), time.perf_counter() - started)
