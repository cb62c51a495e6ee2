"""PAN20/PAN21 cross-domain authorship verification (fanfiction) from the official jsonl files.

``pairs.jsonl`` (official test name ``pan2X-authorship-verification-test.jsonl``): one object per
line with ``id``, ``fandoms`` (two fandom names) and ``pair`` (two texts). ``truth.jsonl``
(``...-truth.jsonl``): ``id``, ``same`` (bool) and ``authors`` (two author ids).

As the STEB reference reads it (``steb/loaders/pan.py`` @a8445f54 ``load_pan_jsonl_dataset``): every pair
of the folder's data file, in file order, side A = ``pair[0]``, side B = ``pair[1]``, not stripped. The
reference expects the folder to hold an already subsampled release (its download script makes it; STEB
Table 15 lists 500 pairs); the subsample itself is not in the reference code, so steb reads the folder it
is given. ``--dataset-option pairs_per_class=250`` draws steb's earlier seeded balanced sample instead.

The pairs file of the test set is large (texts of ~21k characters); it is scanned once for ids and
byte offsets and only the sampled lines are parsed again, so memory holds the sample, not the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steb_core import (
    DatasetBundle,
    DataValidationError,
    LoadContext,
    TextPair,
    check_inside,
    located,
    release_path,
    require_field,
    sample_per_class,
    unique_keys,
)

from .files import choose_one, find_folder, read_jsonl_at, release_dir, scan_jsonl, truth_beside

__all__ = ["AVJsonlSource", "load_av_jsonl"]


@dataclass(frozen=True)
class AVJsonlSource:
    """A PAN20/21 release and STEB's balanced sample size (per class)."""

    release: str
    pairs_per_class: int = 250
    edition: str = ""  # official release folder prefix (pan20, pan21)

    def layout(self) -> str:
        return (
            '<data-dir>/[release folder/]pairs.jsonl ({"id", "fandoms": [a, b], "pair": [text, text]}) + truth.jsonl '
            '({"id", "same": true|false, "authors": [a, b]}); the official names '
            "pan2X-authorship-verification-test.jsonl / ...-test-truth.jsonl work too"
        )


def _is_truth(p: Path) -> bool:
    return "truth" in p.name.lower()


def load_av_jsonl(ctx: LoadContext, source: AVJsonlSource, obtain: str) -> DatasetBundle:
    """Every pair of the data file (the reference), or with option ``pairs_per_class`` a seeded balanced sample;
    ``pairs_file`` and ``truth_file`` name the files inside the data folder when it holds several."""
    root = release_dir(ctx, obtain, source.layout(), source.edition or "pan", ("verification",))
    folder = find_folder(
        root,
        lambda f: any(_is_truth(p) for p in f.glob("*.jsonl")) and any(not _is_truth(p) for p in f.glob("*.jsonl")),
    )
    if folder is None:
        ctx.require_file("truth.jsonl", obtain, source.layout())
        folder = root
    pairs_path = _pick(
        folder,
        ctx.options.get("pairs_file"),
        [p for p in folder.glob("*.jsonl") if not _is_truth(p)],
        "pairs file",
        "pairs_file",
        ("pairs", "test"),
    )
    truth_candidates = [p for p in folder.glob("*.jsonl") if _is_truth(p)]
    truth_name = ctx.options.get("truth_file")
    beside = None if truth_name else truth_beside(pairs_path, truth_candidates)
    truth_path = beside or _pick(folder, truth_name, truth_candidates, "truth file", "truth_file", ())
    for found in (pairs_path, truth_path):  # found by glob: a link may lead outside the release
        check_inside(found, root, what="release folder")

    truth: dict[str, bool] = unique_keys(_truth_rows(truth_path), path=truth_path, field="id", what="same")

    entries: list[tuple[str, bool, int, int]] = []  # id, same, offset, line
    first_line: dict[str, int] = {}
    for row in scan_jsonl(pairs_path):
        rid = str(require_field(row.obj, "id", path=pairs_path, record=f"line {row.lineno}"))
        if first_line.setdefault(rid, row.lineno) != row.lineno:  # one truth label cannot belong to two pairs
            raise DataValidationError(
                f"appears twice: first at line {first_line[rid]}, again at line {row.lineno}",
                path=pairs_path,
                record=rid,
                field="id",
                expected="each pair id once (the truth file labels pairs by id)",
            )
        pair = require_field(row.obj, "pair", path=pairs_path, record=rid, types=list, expected="a list of two texts")
        _check_pair(pair, pairs_path, rid)
        if rid not in truth:
            raise DataValidationError(
                f"has no truth line (pair at {pairs_path.name} line {row.lineno})",
                path=truth_path,
                record=rid,
                field="id",
                expected="a truth record for every pair id",
            )
        entries.append((rid, truth[rid], row.offset, row.lineno))
    if not entries:
        raise DataValidationError("holds no pairs", path=pairs_path)

    per_class = ctx.options.get("pairs_per_class")
    per_class = None if per_class is None or str(per_class).strip().lower() in ("all", "none") else int(per_class)
    chosen = (
        entries
        if per_class is None
        else sample_per_class(entries, key=lambda e: e[1], per_class=per_class, seed=ctx.seed, salt=ctx.dataset)
    )
    pairs = []
    for (rid, same, _, _), obj in zip(chosen, read_jsonl_at(pairs_path, ((e[2], e[3]) for e in chosen))):
        a, b = obj["pair"]
        with located(pairs_path, rid):
            pairs.append(TextPair(a, b, same=same, id=rid))
    n_same = sum(p.same for p in pairs)
    return DatasetBundle(
        pairs=pairs,
        info={
            "source": source.release,
            "pairs_file": str(pairs_path),
            "truth_file": str(truth_path),
            "pairs_available": len(entries),
            "same_available": sum(e[1] for e in entries),
            "pairs_per_class": per_class,
            "seed": ctx.seed,
            "same": n_same,
            "different": len(pairs) - n_same,
            "sampling": (
                "every pair in file order (STEB reference; the folder is expected to be subsampled already)"
                if per_class is None
                else "steb_core.sample_per_class on `same`, salted with the dataset name"
            ),
        },
    )


def _truth_rows(truth_path: Path) -> Iterator[tuple[str, str, bool]]:
    """``(record, id, same)`` per truth line; :func:`unique_keys` refuses a repeated id."""
    for row in scan_jsonl(truth_path):
        rid = str(require_field(row.obj, "id", path=truth_path, record=f"line {row.lineno}"))
        same = require_field(row.obj, "same", path=truth_path, record=rid, types=bool, expected="true or false")
        yield f"line {row.lineno}", rid, same


def _check_pair(pair: list[Any], path: Path, rid: str) -> None:
    if len(pair) != 2:
        raise DataValidationError(
            f"has {len(pair)} texts", path=path, record=rid, field="pair", expected="exactly two texts"
        )
    for i, text in enumerate(pair):
        if not isinstance(text, str) or not text.strip():
            raise DataValidationError(
                "is empty" if isinstance(text, str) else f"is a {type(text).__name__}",
                path=path,
                record=rid,
                field=f"pair[{i}]",
                expected="non-empty text",
            )


def _pick(
    folder: Path, name: str | None, candidates: list[Path], what: str, option: str, preferred: tuple[str, ...]
) -> Path:
    if name:
        path = release_path(folder, name, path=folder, field=option)
        if not path.is_file():
            raise DataValidationError(f"option {option}={name!r} names no file", path=path)
        return path
    return choose_one(candidates, what, folder, option, preferred=[w.lower() for w in preferred])
