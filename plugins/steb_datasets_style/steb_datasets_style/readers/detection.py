"""Machine-text detection corpora: DetectRL, M4, MAGE's label map and GEDE (Gehring and Paassen 2025)."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from steb_core import DatasetNotFoundError, DataValidationError, LoadContext, read_table, release_file

from ..common import Loaded, Reader, family_dir
from .base import make_record, release_files
from .tables import table

__all__ = [
    "MAGE_DOMAINS",
    "mage_generator",
    "DETECTRL_FILES",
    "detectrl_files",
    "detectrl",
    "M4_LIST_DOMAINS",
    "m4",
    "GEDE_LABELS",
    "gede",
]


#: MAGE ``src`` values: ``<domain>_human`` or ``<domain>_machine_<prompt method>_<generator>``.
MAGE_DOMAINS = ("cmv", "eli5", "hswag", "roct", "sci_gen", "squad", "tldr", "wp", "xsum", "yelp")
_MAGE_SRC = re.compile(
    rf"^(?P<domain>{'|'.join(MAGE_DOMAINS)})_(?:(?P<human>human)|machine_(?:continuation|topical|specified)_(?P<model>.+))$"
)


def mage_generator(domain: str) -> Callable[[str], str | None]:
    """Label map for one MAGE domain: the generator (prompt methods collapsed), 'human', or None for other domains."""

    def label(src: str) -> str | None:
        m = _MAGE_SRC.match(src)
        if m is None:
            raise DataValidationError(
                f"holds {src!r}", field="src", expected="'<domain>_human' or '<domain>_machine_<method>_<generator>'"
            )
        if m["domain"] != domain:
            return None
        return "human" if m["human"] else m["model"]

    return label


#: DetectRL setting -> its file in the clone, ``Benchmark/Benchmark_Data/<folder>/<stem>_<split>.json``
DETECTRL_FILES = {
    "arxiv": ("Multi_Domain", "multi_domains_arxiv"),
    "writing_prompt": ("Multi_Domain", "multi_domains_writing_prompt"),
    "xsum": ("Multi_Domain", "multi_domains_xsum"),
    "yelp_review": ("Multi_Domain", "multi_domains_yelp_review"),
    "direct_prompt": ("Direct_Prompt", "direct_prompt"),
    "paraphrase_attacks": ("Paraphrase_Attacks", "paraphrase_attacks_llm"),
    "perturbation_attacks": ("Perturbation_Attacks", "perturbation_attacks_llm"),
    "prompt_attacks": ("Prompt_Attacks", "prompt_attacks_llm"),
}


def detectrl_files(root: Path, setting: str, split: str, obtain: str) -> list[Path]:
    """The setting's JSON file(s): ``Benchmark/Benchmark_Data/<folder>/<stem>_<split>.json`` in a clone of
    github.com/NLP2CT/DetectRL (``split`` = test, train or all), else ``*.json`` copied into the dataset folder."""
    folder, stem = DETECTRL_FILES[setting]
    splits = ("train", "test") if split == "all" else (split,)
    for base in (root / "Benchmark" / "Benchmark_Data" / folder, root / "Benchmark_Data" / folder, root / folder):
        if base.is_dir():
            files = [base / f"{stem}_{sp}.json" for sp in splits]
            missing = [f for f in files if not f.is_file()]
            if missing:
                raise DataValidationError(
                    f"missing {', '.join(f.name for f in missing)} (split={split}). Obtain it: {obtain}", path=base
                )
            return files
    named = sorted(root.glob(f"{stem}_*.json"))
    if named:
        return [f for f in named if split == "all" or f.stem.endswith(f"_{split}")] or named
    return release_files(root, "*.json*", obtain)


def detectrl(setting: str, binary: bool) -> Reader:
    """DetectRL (Wu et al. 2024) JSON files of one setting: a list of objects with ``text``, ``label``
    ('human' or 'llm'), ``llm_type`` and ``data_type``; label = 'human' or the generating LLM (or 'llm'
    for the binary attack sets). STEB reads the test split (``--dataset-option split=train|all``)."""

    def read(ctx: LoadContext, obtain: str) -> Loaded:
        root = family_dir(
            ctx,
            "DetectRL",
            obtain,
            f"Benchmark/Benchmark_Data/{'/'.join(DETECTRL_FILES[setting])}_test.json (text, label, llm_type)",
        )
        split = str(ctx.option("split", "test"))
        if split not in ("test", "train", "all"):
            raise DataValidationError(f"option split={split!r}", field="split", expected="test, train or all")
        files = detectrl_files(root, setting, split, obtain)
        stats: Counter[str] = Counter()
        out = []
        for f in files:
            for where, row in read_table(f):
                for col in ("text", "label") + (() if binary else ("llm_type",)):
                    if col not in row and not (col == "llm_type" and row.get("label") == "human"):
                        raise DataValidationError(
                            "is missing",
                            path=f,
                            record=where,
                            field=col,
                            expected="DetectRL fields text, label, llm_type",
                        )
                kind = str(row["label"]).strip().lower()
                if kind not in ("human", "llm", "0", "1"):
                    raise DataValidationError(
                        f"holds {row['label']!r}", path=f, record=where, field="label", expected="'human' or 'llm'"
                    )
                human = kind in ("human", "0")
                label = "human" if human else ("llm" if binary else str(row["llm_type"]))
                if not isinstance(row["text"], str):
                    raise DataValidationError("is not text", path=f, record=where, field="text")
                rec = make_record(row["text"], label, row.get("id") and str(row["id"]), f, where, stats)
                if rec:
                    out.append(rec)
        return out, {"root": str(root), "files": [str(f) for f in files], "split": split, **stats}

    return read


#: M4 domains whose text fields are lists (several reviews per record), flattened by the reference
M4_LIST_DOMAINS = ("peerread",)


def m4(domain: str) -> Reader:
    """M4 (Wang et al. 2024): ``data/<domain>_<model>.jsonl`` in a clone of github.com/mbzuai-nlp/M4 (or the
    files in the folder itself), with ``human_text`` and ``machine_text`` per line.

    As the STEB reference reads it (``steb/loaders/m4.py`` @567400cd ``load_m4``): the domain's files in sorted name
    order; a file whose first record has no ``human_text`` is skipped (BloomZ's files have another schema); a record
    without both fields is skipped; per record its human text (label ``human``) then its machine text (label = the
    file's first record's ``model`` field, else the file name); a text already seen for its side is not repeated;
    peerread's list-valued fields are flattened into one record per item; empty texts are skipped.
    """

    def read(ctx: LoadContext, obtain: str) -> Loaded:
        root = family_dir(ctx, "M4", obtain, f"data/{domain}_<model>.jsonl with human_text, machine_text")
        base = root / "data" if (root / "data").is_dir() else root  # a clone keeps the files in data/
        files = release_files(base, f"{domain}_*.jsonl", obtain)  # sorted names
        stats: Counter[str] = Counter()
        seen: dict[str, set[str]] = {"human": set(), "machine": set()}
        out = []
        used = []
        for f in files:
            rows = list(read_table(f, "jsonl"))
            if not rows or "human_text" not in rows[0][1]:
                stats["files_without_human_text_skipped"] += 1
                continue
            used.append(f.name)
            model = str(rows[0][1].get("model", f.name))
            for where, row in rows:
                human, machine = row.get("human_text"), row.get("machine_text")
                if human is None or machine is None:
                    stats["records_without_both_texts"] += 1
                    continue
                sides = (("human", "human", human), ("machine", model, machine))
                for side, label, value in sides:
                    items = value if domain in M4_LIST_DOMAINS and isinstance(value, list) else [value]
                    for text in items:
                        if not isinstance(text, str) or not text or text in seen[side]:
                            stats[f"{side}_texts_repeated_or_empty"] += 1
                            continue
                        seen[side].add(text)
                        if rec := make_record(text, label, None, f, where, stats):
                            out.append(rec)
        return out, {"root": str(base), "files": used, **stats}

    return read


# --------------------------------------------------------------------------------------------
# GEDE: github.com/lukasgehring/Assessing-LLM-Text-Detection-in-Educational-Contexts
# --------------------------------------------------------------------------------------------
#: label columns GEDE offers: ``text_author`` (STEB's 4 classes) or ``contribution_level`` (the paper's 8 levels)
GEDE_LABELS = ("text_author", "contribution_level")
_GEDE_LEVELS = {
    "task": "Task",
    "summary": "Summary",
    "task+summary": "Task+Summary",
    "improve-human": "Improved-Human",
    "rewrite-human": "Rewrite-Human",
    "human": "Human",
}
_GEDE_QUERY = (
    "SELECT a.id, a.answer, a.is_human, j.model, j.prompt_mode FROM answers AS a "
    "LEFT JOIN jobs AS j ON a.job_id = j.id ORDER BY a.id"
)


def gede_level(prompt_mode: str | None) -> str:
    """A job's prompt mode as the release's contribution level (``rewrite-<job>`` and ``dipper-<job>`` collapse)."""
    mode = (prompt_mode or "human").strip()
    if re.fullmatch(r"rewrite-\d+", mode):
        return "Rewrite-LLM"
    if re.fullmatch(r"dipper(-\d+)?", mode):
        return "Humanize"
    return _GEDE_LEVELS.get(mode, mode)


def _gede_db_rows(db: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Rows of the release's SQLite database (opened read-only): answers joined with the job that wrote them."""
    try:
        # as_uri escapes ?, # and spaces in the path
        con = sqlite3.connect(f"{release_file(db).resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise DataValidationError(f"cannot be opened as SQLite ({exc})", path=db) from None
    try:
        try:
            cursor = con.execute(_GEDE_QUERY)
        except sqlite3.DatabaseError as exc:
            raise DataValidationError(
                f"is not the GEDE database ({exc})", path=db, expected="tables answers and jobs"
            ) from None
        for aid, answer, is_human, model, mode in cursor:
            human = bool(is_human) or model is None
            yield (
                f"answer {aid}",
                {
                    "id": str(aid),
                    "answer": answer,
                    "text_author": "human" if human else model,
                    "contribution_level": "Human" if human else gede_level(mode),
                },
            )
    finally:
        con.close()


def _gede_csv_rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for where, row in read_table(path):
        for col in ("answer", "text_author", "contribution_level"):
            if col not in row:
                raise DataValidationError(
                    "is missing",
                    path=path,
                    record=where,
                    field=col,
                    expected="the columns database/export_to_csv.py writes (answer, contribution_level, text_author)",
                )
        yield where, dict(row)


def gede(ctx: LoadContext, obtain: str) -> Loaded:
    """GEDE (Generative Essay Detection in Education) as its repository ships it.

    The release is a SQLite database, ``database/database.db`` (unzip ``database/database.db.zip``):
    table ``answers`` (``answer``, ``is_human``, ``job_id``) and ``jobs`` (``model``, ``prompt_mode``).
    The CSV that the repository's ``database/export_to_csv.py`` writes, ``dataset/essays.csv`` (``answer``,
    ``contribution_level``, ``text_author``), is read when present instead.

    Label: ``text_author`` by default, the author of the text as the release records it: ``human`` or the
    job's model. STEB's 4 classes are these four authors: human, ``meta-llama/Llama-3.3-70B-Instruct``,
    ``gpt-4o-mini-2024-07-18`` and ``dipper`` (the DIPPER paraphraser behind the release's "Humanize"
    level). This reading is inferred from the repository's code (its evaluation scripts name exactly these
    generators and remap ``dipper`` rows); the database itself is not in the public git mirror steb could
    inspect, so it is not verified on the data. ``--dataset-option label=contribution_level`` gives the
    paper's 8 contribution levels instead. Human essays of the Argument Annotated Essays corpus are blank
    until the repository's ``database/add_aae_to_database.py`` restores them (licence); blank texts are
    skipped and counted. ``--dataset-option release=table`` reads a plain table with ``text``/``label``
    columns (the earlier reading).
    """
    if ctx.choice("release", ("repository", "table")) == "table":
        reader = table("*.csv", columns={"text": "text", "label": "label"}, layout="*.csv with columns text, label")
        return reader(ctx, obtain)
    label_col = str(ctx.option("label", "text_author"))
    if label_col not in GEDE_LABELS:
        raise DataValidationError(f"option label={label_col!r}", field="label", expected=" or ".join(GEDE_LABELS))
    root = family_dir(ctx, None, obtain, "database/database.db (unzipped database.db.zip) or dataset/essays.csv")
    csv_path = root / "dataset" / "essays.csv"
    # database/database.db when unzipped by hand in database/; database.db at the top when ``steb data get`` unpacked it
    db = next(
        (p for p in (root / "database" / "database.db", root / "database.db") if p.is_file()),
        root / "database" / "database.db",
    )
    if csv_path.is_file():
        source, rows = csv_path, _gede_csv_rows(csv_path)
    elif db.is_file():
        source, rows = db, _gede_db_rows(db)
    else:
        zipped = (
            " (database/database.db.zip is there: unzip it in database/)"
            if (root / "database" / "database.db.zip").is_file()
            else ""
        )
        raise DatasetNotFoundError(f"dataset '{ctx.dataset}': neither {db} nor {csv_path}{zipped}. Obtain it: {obtain}")
    stats: Counter[str] = Counter()
    out = []
    for where, row in rows:
        text, label = row["answer"], row[label_col]
        if text is not None and not isinstance(text, str):
            raise DataValidationError(
                f"holds {type(text).__name__}", path=source, record=where, field="answer", expected="the essay text"
            )
        if label in (None, ""):
            raise DataValidationError("is missing or empty", path=source, record=where, field=label_col)
        if rec := make_record(text or "", str(label), row.get("id") and str(row["id"]), source, where, stats):
            out.append(rec)
    return out, {"root": str(root), "file": str(source.relative_to(root)), "label": label_col, **stats}
