"""Shared pieces of the style-corpus loaders: where a corpus lives, lenient text decoding, budgets.

Several STEB datasets come from one release (the ten MAGE domains from one ``test.csv``, blog age and
gender from one blog folder, six PASTEL attributes from one release). Rather than making the user copy
a release into each dataset's folder, a loader also looks for a shared *family* folder beside it:
``ROOT/<dataset>/`` first, then ``ROOT/<family>/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from collections import Counter
from typing import Any, Callable, Sequence

from steb_core import DataSource, DatasetBundle, DatasetNotFoundError, DataValidationError, DatasetSpec, LabelledText, LoadContext
from steb_core.generic import budgeted
from steb_core.io import read_bytes

from . import releases  # pinned sources and BibTeX of the datasets whose catalogue entry carries none
from .suite import suite_fields

__all__ = ["family_dir", "read_text_lenient", "Corpus", "ClassRule", "class_budget", "labelled_bundle", "option", "release_option"]


def family_dir(ctx: LoadContext, family: str | None, obtain: str, layout: str = "") -> Path:
    """The folder holding a release: the dataset's own folder, else the shared ``family`` folder beside it."""
    candidates: list[Path] = []
    if ctx.data_dir is not None:
        candidates.append(ctx.data_dir)
        if family:
            candidates.append(ctx.data_dir.parent / family)
            if ctx.data_dir.name == family:
                candidates.append(ctx.data_dir)
    for cand in candidates:
        if cand.is_dir():
            return cand
    where = " or ".join(str(c) for c in candidates) or f"$STEB_DATA_DIR/{ctx.dataset}" + (f" or $STEB_DATA_DIR/{family}" if family else "")
    msg = f"dataset '{ctx.dataset}': no data at {where}. Obtain it: {obtain}"
    if layout:
        msg += f". Expected layout: {layout}"
    raise DatasetNotFoundError(msg + ". Then pass --data-dir ROOT or set STEB_DATA_DIR.")


def read_text_lenient(path: Path) -> str:
    """A file from an older release: UTF-8 when it is, else Windows-1252/Latin-1 (Enron, blogs), newlines normalised."""
    raw = read_bytes(path)
    for enc in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            text = raw.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    return text.replace("\r\n", "\n").replace("\r", "\n")


def option(ctx: LoadContext, name: str, default: Any) -> Any:
    """A user option from ``ctx.options`` (``--dataset-option name=value``), else the spec's default."""
    return (ctx.options or {}).get(name, default)


#: reader(ctx, obtain) -> (records, info); ``obtain`` is the spec's download hint, for error messages.
def release_option(ctx: LoadContext, choices: Sequence[str]) -> str:
    """The ``--dataset-option release=...`` a reader was asked for, the first of ``choices`` (the release the
    paper names) when none was given; another value is an error listing the choices."""
    release = str(option(ctx, "release", choices[0])).lower()
    if release not in choices:
        raise DataValidationError(f"option release={release!r}", field="release", expected=" or ".join(choices))
    return release


Reader = Callable[[LoadContext, str], "tuple[list[LabelledText], dict[str, Any]]"]


@dataclass(frozen=True)
class ClassRule:
    """STEB's class-budget rule (issue 25): which classes are kept and how many texts each contributes.

    Table 15's odd budgets equal the release's smallest class (eWAVE 29, MAGE cmv 60): the budget is a
    *balanced* sample of ``min(budget, smallest kept class)`` texts per class. Classes the paper leaves out
    (FCE 16 first languages -> 15; PASTEL age/education/ethnic 8/10/10 values -> 6/8/9) are dropped by one
    stated rule: a class with fewer than ``min_class_size`` texts is dropped. ``balanced=False`` gives the
    earlier reading, a plain per-class cap (``--dataset-option balanced=false``).
    """

    min_class_size: int = 0
    balanced: bool = True


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise DataValidationError(f"option value {value!r}", field="balanced", expected="true or false")


def class_budget(counts: Counter, per_class: int | None, rule: ClassRule) -> tuple[int | None, dict[str, int], dict[str, Any]]:
    """(texts per class, dropped class -> its size, info) for class sizes ``counts`` under ``rule``."""
    dropped = {label: n for label, n in sorted(counts.items()) if n < rule.min_class_size}
    kept = {label: n for label, n in counts.items() if label not in dropped}
    info: dict[str, Any] = {"class_rule": {"min_class_size": rule.min_class_size, "balanced": rule.balanced}}
    if dropped:
        info["dropped_classes"] = dropped
        info["dropped_classes_why"] = f"fewer than {rule.min_class_size} texts (min_class_size)"
    if not kept:
        return per_class, dropped, info
    effective = per_class
    if rule.balanced:
        smallest = min(kept.values())
        effective = smallest if per_class is None else min(per_class, smallest)
    info["per_class_effective"] = effective
    return effective, dropped, info


def labelled_bundle(ctx: LoadContext, records: Sequence[LabelledText], per_class: int | None, info: dict[str, Any],
                    rule: ClassRule = ClassRule()) -> DatasetBundle:
    """Apply STEB's class-budget rule (:class:`ClassRule`; the sample is seeded by run seed + dataset name)
    and record it in ``bundle.info``: the nominal budget (``per_class``), the texts per class actually
    drawn (``per_class_effective``), and the classes dropped with their sizes and the reason."""
    if not records:
        raise DataValidationError(f"dataset '{ctx.dataset}': the release holds no usable text", path=info.get("root"))
    rule = ClassRule(int(option(ctx, "min_class_size", rule.min_class_size)), _flag(option(ctx, "balanced", rule.balanced)))
    counts = Counter(r.label for r in records)
    effective, dropped, rule_info = class_budget(counts, per_class, rule)
    if len(dropped) == len(counts):
        raise DataValidationError(f"dataset '{ctx.dataset}': every class has fewer than {rule.min_class_size} texts "
                                  f"({dict(sorted(counts.items()))}); lower --dataset-option min_class_size", path=info.get("root"))
    kept_records = [r for r in records if r.label not in dropped]
    kept, sampling = budgeted(kept_records, lambda r: r.label, effective, ctx.seed, salt=ctx.dataset)
    sampling["per_class"] = per_class
    return DatasetBundle(labelled_texts=kept, info={**info, **sampling, **rule_info})


@dataclass(frozen=True)
class Corpus:
    """One STEB labelled dataset: metadata as data plus a reader of the official release.

    ``reader(ctx)`` returns every usable record of the release (multi-label documents once per label)
    and an info dict; the budget is applied afterwards so that it is recorded the same way for all.
    """

    name: str
    description: str
    reader: Reader
    per_class: int | None
    categories: tuple[str, ...]
    obtain: str
    tasks: tuple[str, ...] = ("clustering", "pair_all")
    applications: tuple[str, ...] = ()
    citation: str = ""
    license: str = ""
    homepage: str = ""
    classes: int | None = None  # STEB's class count, for listings
    languages: tuple[str, ...] = ("en",)
    extra: dict[str, Any] = field(default_factory=dict)
    #: what the public release cannot deliver of the catalogue's promise (shown in the listing's size)
    size_note: str = ""
    #: the pinned public release(s) the reader reads (``steb data get``); empty -> ``releases.SOURCES``
    sources: tuple[DataSource, ...] = ()
    #: classes smaller than this are dropped (the classes STEB leaves out; see :class:`ClassRule`)
    min_class_size: int = 0

    def load(self, ctx: LoadContext) -> DatasetBundle:
        records, info = self.reader(ctx, self.obtain)
        return labelled_bundle(ctx, records, option(ctx, "per_class", self.per_class), {"dataset": self.name, **info},
                               ClassRule(self.min_class_size))

    def spec(self) -> DatasetSpec:
        size = f"{self.classes} classes x <= {self.per_class} texts" if self.classes else ""
        if self.size_note:
            size += f" ({self.size_note})"
        return DatasetSpec(
            name=self.name,
            description=self.description,
            tasks=self.tasks,
            loader=self.load,
            languages=self.languages,
            categories=self.categories,
            applications=self.applications,
            citation=self.citation or releases.CITATIONS.get(self.name, ""),
            license=self.license,
            obtain=self.obtain,
            homepage=self.homepage,
            size=size,
            extra={"per_class": self.per_class, "classes": self.classes, "min_class_size": self.min_class_size, **self.extra},
            sources=self.sources or tuple(releases.SOURCES.get(self.name, ())),
            **suite_fields(self.name, self.tasks),
        )


def with_dir(ctx: LoadContext, data_dir: Path) -> LoadContext:
    """The same context pointed at another folder, without the user options the caller already applied."""
    opts = {k: v for k, v in (ctx.options or {}).items() if k == "path"}
    return replace(ctx, data_dir=data_dir, options=opts)
