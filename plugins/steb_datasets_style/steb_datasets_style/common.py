"""Shared pieces of the style-corpus loaders: where a corpus lives, lenient text decoding, budgets.

Several STEB datasets come from one release (the ten MAGE domains from one ``test.csv``, blog age and
gender from one blog folder, six PASTEL attributes from one release). Rather than making the user copy
a release into each dataset's folder, a loader also looks for a shared *family* folder beside it:
``ROOT/<dataset>/`` first, then ``ROOT/<family>/``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from steb_core import (
    AUTO_PER_CLASS,
    DatasetBundle,
    DatasetNotFoundError,
    DatasetSpec,
    DataSource,
    DataValidationError,
    LabelledText,
    LoadContext,
    read_bytes,
    sample_classes,
    sampling_mode,
)

from . import releases  # pinned sources and BibTeX of the datasets whose catalogue entry carries none
from .suite import suite_fields

__all__ = ["family_dir", "read_text_lenient", "Corpus", "labelled_bundle"]


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
    where = " or ".join(str(c) for c in candidates) or f"$STEB_DATA_DIR/{ctx.dataset}" + (
        f" or $STEB_DATA_DIR/{family}" if family else ""
    )
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


#: What a reader returns: the records and the facts of the release read (counts, files, ...).
Loaded = tuple[list[LabelledText], dict[str, Any]]
#: reader(ctx, obtain) -> (records, info); ``obtain`` is the spec's download hint, for error messages.
Reader = Callable[[LoadContext, str], Loaded]


def _per_class(value: Any) -> int | str | None:
    """``--dataset-option per_class=...``: ``auto`` (the reference's rule), ``all``, or a positive integer."""
    if value is None or isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text == AUTO_PER_CLASS:
        return AUTO_PER_CLASS
    if text in ("all", "none"):
        return None
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise DataValidationError(
        f"option per_class={value!r}", field="per_class", expected="auto, all or a positive integer"
    )


def labelled_bundle(ctx: LoadContext, records: Sequence[LabelledText], info: dict[str, Any]) -> DatasetBundle:
    """The texts a run evaluates, chosen as the STEB reference code chooses them, and how, in ``bundle.info``.

    Default (github.com/rrivera1849/STEB ``steb/dataset_loader.py`` ``DatasetLoader.load``, index file
    62147402711, with ``n_episodes_per_class="auto"``, every task's default in ``steb/core.py`` @18c49153):
    N = max(25, min(smallest class, 200)) texts per class; classes with fewer than N texts are dropped; the
    first N texts of each kept class *in the reader's order* are kept (nothing is random); the records come
    out class by class, classes in order of first appearance -- the order the reference's tasks see, which
    its k-means (random_state 42) depends on. This is :func:`steb_core.sample_classes`.

    Options: ``per_class`` (``auto``, ``all`` or an integer: the first that many of every class with at least
    that many) and ``sampling=random`` (the same classes and N, the texts drawn with the run seed; salted by the
    dataset name, as before protocol 2). STEB Table 15's budget (``Corpus.per_class``) is what ``auto`` gives on
    the release the paper used; it is kept in the catalogue for listings and ``steb data check``.
    """
    if not records:
        raise DataValidationError(f"dataset '{ctx.dataset}': the release holds no usable text", path=info.get("root"))
    n = _per_class(ctx.option("per_class", AUTO_PER_CLASS))
    kept, sampling = sample_classes(
        records, lambda r: r.label, n, sampling=sampling_mode(ctx.options), seed=ctx.seed, salt=ctx.dataset
    )
    if not kept:
        sizes = sampling["class_counts_available"]
        raise DataValidationError(
            f"dataset '{ctx.dataset}': every class has fewer than {sampling['per_class']} texts ({sizes}); "
            "pass --dataset-option per_class=N",
            path=info.get("root"),
        )
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
    #: the pinned public release(s) the reader reads (``steb data get``); empty -> ``releases.SOURCES``
    sources: tuple[DataSource, ...] = ()

    def load(self, ctx: LoadContext) -> DatasetBundle:
        records, info = self.reader(ctx, self.obtain)
        return labelled_bundle(ctx, records, {"dataset": self.name, "catalogue_per_class": self.per_class, **info})

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
            extra={"per_class": self.per_class, "classes": self.classes, **self.extra},
            sources=self.sources or tuple(releases.SOURCES.get(self.name, ())),
            **suite_fields(self.name, self.tasks),
        )


def with_dir(ctx: LoadContext, data_dir: Path) -> LoadContext:
    """The same context pointed at another folder, without the user options the caller already applied."""
    opts = {k: v for k, v in (ctx.options or {}).items() if k == "path"}
    return replace(ctx, data_dir=data_dir, options=opts)
