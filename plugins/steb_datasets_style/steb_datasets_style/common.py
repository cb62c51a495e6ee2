"""Shared pieces of the style-corpus loaders: where a corpus lives, lenient text decoding, budgets.

Several STEB datasets come from one release (the ten MAGE domains from one ``test.csv``, blog age and
gender from one blog folder, six PASTEL attributes from one release). Rather than making the user copy
a release into each dataset's folder, a loader also looks for a shared *family* folder beside it:
``ROOT/<dataset>/`` first, then ``ROOT/<family>/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from steb_core import DatasetBundle, DatasetNotFoundError, DataValidationError, DatasetSpec, LabelledText, LoadContext
from steb_core.generic import budgeted

from .suite import suite_fields

__all__ = ["family_dir", "read_text_lenient", "Corpus", "labelled_bundle", "option"]


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
    raw = path.read_bytes()
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
Reader = Callable[[LoadContext, str], "tuple[list[LabelledText], dict[str, Any]]"]


def labelled_bundle(ctx: LoadContext, records: Sequence[LabelledText], per_class: int | None, info: dict[str, Any]) -> DatasetBundle:
    """Apply the STEB per-class budget (seeded by run seed + dataset name) and record it in ``bundle.info``."""
    if not records:
        raise DataValidationError(f"dataset '{ctx.dataset}': the release holds no usable text", path=info.get("root"))
    kept, sampling = budgeted(records, lambda r: r.label, per_class, ctx.seed, salt=ctx.dataset)
    return DatasetBundle(labelled_texts=kept, info={**info, **sampling})


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

    def load(self, ctx: LoadContext) -> DatasetBundle:
        records, info = self.reader(ctx, self.obtain)
        return labelled_bundle(ctx, records, option(ctx, "per_class", self.per_class), {"dataset": self.name, **info})

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
            citation=self.citation,
            license=self.license,
            obtain=self.obtain,
            homepage=self.homepage,
            size=size,
            extra={"per_class": self.per_class, "classes": self.classes, **self.extra},
            **suite_fields(self.name, self.tasks),
        )


def with_dir(ctx: LoadContext, data_dir: Path) -> LoadContext:
    """The same context pointed at another folder, without the user options the caller already applied."""
    opts = {k: v for k, v in (ctx.options or {}).items() if k == "path"}
    return replace(ctx, data_dir=data_dir, options=opts)
