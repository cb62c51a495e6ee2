"""The Blog Authorship Corpus (Schler et al. 2006): posts labelled with the blogger's age band or gender."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from steb_core import DatasetNotFoundError, DataValidationError, LabelledText, LoadContext, open_release, seeded_rng

from ..common import Loaded, Reader, family_dir, read_text_lenient
from .base import make_record, release_files

__all__ = [
    "BLOG_AGE_GROUPS",
    "BLOG_HUB_ID",
    "BLOG_HUB_REVISION",
    "blog_age_group",
    "blog_xml_dir",
    "blog_posts",
    "hub_split_files",
    "hub_builder_rows",
    "blog_hub",
    "blog",
]


_BLOG_NAME = re.compile(r"^(?P<id>\d+)\.(?P<gender>male|female)\.(?P<age>\d+)\.[^.]*\.[^.]*\.xml$")
_POST = re.compile(r"<post>(.*?)</post>", re.S)
#: the corpus holds three age bands with gaps between them (Schler et al. 2006), named as the hub card names them; the
#: STEB reference's ``_age_bucket`` (``steb/loaders/blog.py`` @45257350) ends the 30s at 47, so 48-year-olds are dropped
BLOG_AGE_GROUPS = (("10s", 13, 17), ("20s", 23, 27), ("30s", 33, 47))


def blog_age_group(age: int) -> str | None:
    for name, lo, hi in BLOG_AGE_GROUPS:
        if lo <= age <= hi:
            return name
    return None


def blog_posts(
    ctx: LoadContext, obtain: str, attribute: str, want: int | None
) -> tuple[list[LabelledText], dict[str, Any]]:
    """Blog Authorship Corpus: ``blogs/<id>.<gender>.<age>.<industry>.<sign>.xml`` with ``<post>`` elements.

    Files are read in a seeded order per class until ``10 x want`` posts per class are collected (the
    corpus has 681k posts; reading all of it for a 200-per-class sample is wasted time), so the sample
    is still a seeded random draw over many authors. The files are not always well-formed XML, hence
    the regular expression.
    """
    root = family_dir(ctx, "blogs", obtain, "blogs/<id>.<gender>.<age>.<industry>.<sign>.xml")
    base = blog_xml_dir(root) or root
    files = release_files(base, "*.xml", obtain)
    by_class: dict[str, list[Path]] = defaultdict(list)
    for f in files:
        m = _BLOG_NAME.match(f.name)
        if m is None:
            raise DataValidationError(
                "file name does not follow <id>.<gender>.<age>.<industry>.<sign>.xml", path=f, field="file name"
            )
        label = m["gender"] if attribute == "gender" else blog_age_group(int(m["age"]))
        if label is not None:
            by_class[label].append(f)
    rng = seeded_rng(ctx.seed, "blog-files", ctx.dataset)
    stats: Counter[str] = Counter()
    out: list[LabelledText] = []
    for label in sorted(by_class):
        order = list(by_class[label])
        rng.shuffle(order)
        got = 0
        for f in order:
            for i, post in enumerate(_POST.findall(read_text_lenient(f))):
                text = re.sub(r"\s+", " ", post).strip()
                rec = make_record(text, label, f"{f.name.split('.')[0]}:{i}", f, f"post {i}", stats)
                if rec:
                    out.append(rec)
                    got += 1
            if want is not None and got >= 10 * want:
                break
    return out, {"root": str(root), "files": len(files), "attribute": attribute, **stats}


BLOG_HUB_ID = "barilan/blog_authorship_corpus"
#: the hub repository's main commit (README, loading script blog_authorship_corpus.py, data/blogs.zip), as the hub's
#: file tree showed it; the parquet conversion lives on the unpinned branch refs/convert/parquet
BLOG_HUB_REVISION = "728947f6c98ade87aa396004440cb3b58f173cb8"
#: the hub loading script puts every 20th blog file (sorted by name, from the first) in the validation split
BLOG_HUB_VALIDATION_EVERY = 20


def blog_xml_dir(root: Path) -> Path | None:
    """The folder of ``<id>.<gender>.<age>.<industry>.<sign>.xml`` files: ``data/blogs/`` (the hub's
    ``data/blogs.zip`` unzipped in ``data/``), ``blogs/`` (unzipped at the top, as ``steb data get`` does), or
    ``root``."""
    for cand in (root / "data" / "blogs", root / "blogs", root):
        if cand.is_dir() and any(cand.glob("*.xml")):
            return cand
    return None


def hub_split_files(files: list[Path], split: str) -> list[Path]:
    """The blog files of one split as the hub's loading script makes it: files sorted by name; index 0, 20, 40, ...
    are ``validation`` (5%), the others ``train``. The rule needs the whole release (19,320 files) to give the hub's
    split."""
    ordered = sorted(files, key=lambda p: p.name)
    return [f for i, f in enumerate(ordered) if (i % BLOG_HUB_VALIDATION_EVERY == 0) == (split == "validation")]


def hub_builder_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row) as the hub's loading script yields them for one blog file: the file read as Latin-1 line by
    line (universal newlines), a ``<date>`` line sets the date, every other non-blank line not opening with ``<`` is one
    row (so a post of several lines gives several rows) with the file name's gender, age, job and sign."""
    m = _BLOG_NAME.match(path.name)
    if m is None:
        raise DataValidationError(
            "file name does not follow <id>.<gender>.<age>.<industry>.<sign>.xml", path=path, field="file name"
        )
    _, _, _, job, sign = path.name.split(".")[:-1]
    with open_release(path, "r", encoding="latin-1") as fh:  # newline=None: the script's own reading
        date = ""
        for n, line in enumerate(fh, start=1):
            line = line.strip()
            if "<date>" in line:
                date = line.split("<date>")[-1].split("</date>")[0]
            elif line and not line.startswith("<"):
                yield (
                    n,
                    {
                        "text": line,
                        "date": date,
                        "gender": m["gender"],
                        "age": int(m["age"]),
                        "job": job,
                        "horoscope": sign,
                    },
                )


def blog_hub(ctx: LoadContext, obtain: str, attribute: str) -> tuple[list[LabelledText], dict[str, Any]]:
    """The Hugging Face release ``barilan/blog_authorship_corpus``, as the STEB reference reads it
    (``steb/loaders/blog.py`` @45257350 ``load_blog``: every split of the release concatenated, train then
    validation; option ``split=validation`` or ``train`` reads one).

    Rows carry ``text``, ``date``, ``gender``, ``age``, ``horoscope``, ``job``; the hub's loading script makes
    the validation split from every 20th blog file (sorted by name, 37,919 rows), the train split from the others,
    and one row per non-blank text line of a post, so the unit is the post line as the hub gives it. Label =
    ``gender`` (``male``/``female``), or the age bucket ``10s``/``20s``/``30s`` (13-17, 23-27, 33-47, the
    reference's buckets); any other value is dropped and counted.

    The hub repository (main, :data:`BLOG_HUB_REVISION`) ships ``data/blogs.zip`` and the script, not the
    rows: when the folder holds the unzipped blog files (``blogs/`` or ``data/blogs/``), the script's split and
    row rules are applied to them (:func:`hub_split_files`, :func:`hub_builder_rows`; steb runs no hub code).
    Otherwise the rows are read as data files whose path names the split (the hub's parquet conversion,
    ``blog_authorship_corpus/validation/0000.parquet``), or a ``save_to_disk`` folder. Looked for in the
    dataset folder, the shared ``ROOT/blogs/`` folder, then the local hub cache.
    """
    from steb_core import hub_cache_snapshot, load_hub_split

    splits = [s.strip() for s in str(ctx.option("split", "train,validation")).split(",") if s.strip()]
    split = ",".join(splits)
    location = None
    for cand in (ctx.data_dir, None if ctx.data_dir is None else ctx.data_dir.parent / "blogs"):
        if cand is not None and cand.is_dir():
            location = cand
            break
    location = location or hub_cache_snapshot(BLOG_HUB_ID)
    if location is None:
        # raises: family_dir looks where the loop above looked
        location = family_dir(
            ctx, "blogs", obtain, f"{BLOG_HUB_ID} data/blogs.zip unzipped, or data files of the {split} split"
        )
    if not splits or any(s not in ("train", "validation") for s in splits):
        raise DataValidationError(
            f"option split={split!r}",
            field="split",
            expected="train, validation or both as train,validation (the hub's two splits)",
        )
    xml_dir = blog_xml_dir(location)
    extra: dict[str, Any] = {}
    rows: Iterable[tuple[Path, str, dict[str, Any]]]
    if xml_dir is not None:
        all_files = sorted(xml_dir.glob("*.xml"))
        chosen = [f for s in splits for f in hub_split_files(all_files, s)]
        rows = ((f, f"{f.name} line {n}", row) for f in chosen for n, row in hub_builder_rows(f))
        extra = {
            "from": "blogs.zip, the hub script's split rule",
            "files_in_release": len(all_files),
            "files_in_split": len(chosen),
        }
    elif zips := [z for z in (location / "data" / "blogs.zip", location / "blogs.zip") if z.is_file()]:
        raise DatasetNotFoundError(
            f"dataset '{ctx.dataset}': {zips[0]} is not unzipped; unzip it where it is (blogs/*.xml). Obtain it: "
            f"{obtain}"
        )
    else:
        rows = (
            (location, f"{BLOG_HUB_ID} {s} row {i + 1}", row)
            for s in splits
            for i, row in enumerate(load_hub_split(location, BLOG_HUB_ID, split=s, dataset=ctx.dataset))
        )
        extra = {"from": "hub data files"}
    stats: Counter[str] = Counter()
    out: list[LabelledText] = []
    for path, where, row in rows:
        for col in ("text", attribute):
            if col not in row:
                raise DataValidationError(
                    "is missing",
                    path=path,
                    record=where,
                    field=col,
                    expected="hub fields text, date, gender, age, horoscope, job",
                )
        if attribute == "gender":
            label = row["gender"] if row["gender"] in ("male", "female") else None
        else:
            try:
                label = blog_age_group(int(row["age"]))
            except (TypeError, ValueError):
                raise DataValidationError(
                    f"holds {row['age']!r}", path=path, record=where, field="age", expected="an integer"
                ) from None
        if label is None:
            stats["dropped_label"] += 1
            continue
        if not isinstance(row["text"], str):
            raise DataValidationError(
                f"holds {type(row['text']).__name__}", path=path, record=where, field="text", expected="text"
            )
        if rec := make_record(row["text"].strip(), label, None, path, where, stats):
            out.append(rec)
    return out, {
        "root": str(location),
        "release": "hf",
        "hub_id": BLOG_HUB_ID,
        "split": split,
        "attribute": attribute,
        **extra,
        **stats,
    }


def blog(attribute: str, per_class: int) -> Reader:
    """blog_age / blog_gender: the hub release (default) or ``--dataset-option release=schler`` (the XML files)."""

    def read(ctx: LoadContext, obtain: str) -> Loaded:
        if ctx.choice("release", ("hf", "schler")) == "hf":
            return blog_hub(ctx, obtain, attribute)
        want = str(ctx.option("per_class", per_class))  # auto/all: read as for the catalogue budget
        return blog_posts(ctx, obtain, attribute, int(want) if want.isdigit() else per_class)

    return read
