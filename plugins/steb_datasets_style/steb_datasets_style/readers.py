"""Readers of the labelled corpora's official releases, written once and parameterised per dataset.

Most releases are a table with a text and a label column: :func:`table` wraps steb-core's generic
loader for those. The others (folders of files, XML, CLDF, parallel verse tables) get a reader each.
Every reader returns all usable records (the per-class budget is applied by the caller) and an info
dict recording the files read and anything dropped.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from steb_core import DataValidationError, DatasetNotFoundError, LabelledText, LoadContext, located, parse_json, seeded_rng
from steb_core.generic import GenericLoader, read_table
from steb_core.io import release_path, unique_keys

from .common import family_dir, option, read_text_lenient, with_dir



def _files(root: Path, pattern: str, obtain: str) -> list[Path]:
    files = sorted(p for p in root.glob(pattern) if p.is_file())
    if not files:
        raise DataValidationError(f"no file matches '{pattern}' under this folder. Obtain it: {obtain}", path=root)
    return files


def _make(text: str, label: str, rid: str | None, path: Path, record: str, stats: Counter) -> LabelledText | None:
    """A record, or None (counted) for a blank text: real releases hold a few empty documents."""
    if not text.strip():
        stats["skipped_empty"] += 1
        return None
    with located(path, record):
        return LabelledText(text=text, label=label, id=rid)


# --------------------------------------------------------------------------------------------
# tables (CSV / TSV / JSON / JSONL / Parquet) through the generic loader
# --------------------------------------------------------------------------------------------
def table(
    path: str | tuple[str, ...],
    *,
    columns: Mapping[str, Any],
    family: str | None = None,
    layout: str = "",
    hub_id: str | None = None,
    **loader_options: Any,
) -> Callable[[LoadContext, str], Any]:
    """A reader for a release that is one table (or a glob of tables) with text and label columns.

    ``path`` may be a tuple of candidate globs (the file at the top of the release, or where a clone
    keeps it, e.g. ``data/labeled_data.csv``): the first one that matches a file is read.
    """

    def read(ctx: LoadContext, obtain: str):
        root = release_root(ctx, family, obtain, layout, hub_id)
        chosen = first_match(root, path)
        loader = GenericLoader(path=chosen, shape="labelled_texts", columns=dict(columns), skip_empty=True, obtain=obtain, **loader_options)
        bundle = loader(with_dir(ctx, root))
        info = {k: v for k, v in bundle.info.items() if k in ("files", "format", "columns", "rows", "filtered", "dropped_label", "skipped_empty")}
        return bundle.labelled_texts, {"root": str(root), **info}

    return read


def release_root(ctx: LoadContext, family: str | None, obtain: str, layout: str, hub_id: str | None) -> Path:
    """``family_dir``; for a Hugging Face-hosted release (``hub_id``) also the local hub cache's snapshot."""
    try:
        return family_dir(ctx, family, obtain, layout)
    except DatasetNotFoundError:
        if hub_id:
            from steb_core.hub import hub_cache_snapshot

            snap = hub_cache_snapshot(hub_id)
            if snap is not None:
                return snap
        raise


def first_match(root: Path, path: str | tuple[str, ...]) -> str:
    """The first candidate glob that matches a file under ``root`` (else the first, whose absence is then reported)."""
    candidates = (path,) if isinstance(path, str) else tuple(path)
    for cand in candidates:
        if any(p.is_file() for p in root.glob(cand)):
            return cand
    return candidates[0]


XGENRE_HUB_ID = "TajaKuzman/X-GENRE-text-genre-dataset"


def x_genre(ctx: LoadContext, obtain: str):
    """X-GENRE (Kuzman et al. 2023), hosted on the Hugging Face hub as ``X-GENRE-{train,dev,test}.jsonl``
    (fields ``text``, ``labels``, ``dataset``, ``language``): read from the dataset folder (a
    ``huggingface-cli download --local-dir`` copy or a ``save_to_disk`` folder) or the local hub cache.
    All three splits are read; rows not in English are dropped."""
    from steb_core.hub import find_hub_location, load_hub_split

    layout = "X-GENRE-train.jsonl, X-GENRE-dev.jsonl, X-GENRE-test.jsonl (text, labels, language)"
    location = find_hub_location(ctx.data_dir, XGENRE_HUB_ID) or family_dir(ctx, None, obtain, layout)  # the latter raises "obtain it"
    candidates = ("X-GENRE-*.jsonl", "X-GENRE*.json", "X-GENRE*.csv", "X-GENRE*.tsv")
    if any(p.is_file() for c in candidates for p in location.glob(c)):
        return table(candidates, columns={"text": "text", "label": "labels"}, where=english_rows, layout=layout)(with_dir(ctx, location), obtain)
    saved = (location / "dataset_dict.json").is_file() or ((location / "state.json").is_file() and (location / "dataset_info.json").is_file())
    if not saved:
        raise DatasetNotFoundError(f"dataset '{ctx.dataset}': {location} holds neither X-GENRE-*.jsonl files nor a save_to_disk folder "
                                   f"(the GitHub repository Genre-Datasets-Comparison holds code only). Obtain it: {obtain}")
    stats: Counter = Counter()
    out = []
    for i, row in enumerate(load_hub_split(location, XGENRE_HUB_ID, split="train", dataset=ctx.dataset)):
        where = f"row {i + 1}"
        if not english_rows(row):
            stats["filtered"] += 1
            continue
        for col in ("text", "labels"):
            if not isinstance(row.get(col), str):
                raise DataValidationError(f"holds {type(row.get(col)).__name__}", path=location, record=where, field=col, expected="text")
        if rec := _make(row["text"], row["labels"], None, location, where, stats):
            out.append(rec)
    return out, {"root": str(location), **stats}


def lowercase_sub_labels(label: str) -> str | None:
    """CORE: sub-register labels are lower case (``ne``, ``dtp``); upper-case main registers are dropped."""
    return label if label.islower() else None


def english_rows(row: Mapping[Any, Any]) -> bool:
    """X-GENRE: keep English rows when the release marks the language (a file without the column is English)."""
    return str(row.get("language", row.get("lang", "en")) or "en").strip().lower() in {"en", "eng", "english"}


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
            raise DataValidationError(f"holds {src!r}", field="src", expected="'<domain>_human' or '<domain>_machine_<method>_<generator>'")
        if m["domain"] != domain:
            return None
        return "human" if m["human"] else m["model"]

    return label


# --------------------------------------------------------------------------------------------
# folders of text files
# --------------------------------------------------------------------------------------------
def paragraphs(text: str, min_chars: int = 20) -> list[str]:
    """Blank-line separated paragraphs (single lines when a file has no blank line), short ones dropped."""
    blocks = re.split(r"\n\s*\n", text) if re.search(r"\n\s*\n", text) else text.split("\n")
    return [b.strip() for b in blocks if len(b.strip()) >= min_chars]


def masc(ctx: LoadContext, obtain: str):
    """MASC: ``data/{written,spoken}/<genre>/*.txt``; each document split into paragraphs, label = genre folder."""
    root = family_dir(ctx, None, obtain, "data/written/<genre>/*.txt and data/spoken/<genre>/*.txt")
    base = root / "data" if (root / "data").is_dir() else root
    files = _files(base, "*/*/*.txt", obtain)
    stats: Counter = Counter()
    out = []
    min_chars = int(option(ctx, "min_chars", 20))
    for f in files:
        genre = f.parent.name
        for i, para in enumerate(paragraphs(read_text_lenient(f), min_chars)):
            rec = _make(para, genre, f"{f.stem}:{i}", f, f"paragraph {i}", stats)
            if rec:
                out.append(rec)
    return out, {"root": str(root), "files": len(files), "segmentation": f"paragraphs >= {min_chars} chars", **stats}


def enron_spam(ctx: LoadContext, obtain: str):
    """Enron-Spam (pre-processed): ``enron1..6/{ham,spam}/*.txt``, one e-mail per file (Latin-1 in places)."""
    root = family_dir(ctx, None, obtain, "enron1/ham/*.txt, enron1/spam/*.txt, ... enron6/")
    files = [f for f in _files(root, "**/*.txt", obtain) if f.parent.name in ("ham", "spam")]
    if not files:
        raise DataValidationError(f"no ham/ or spam/ folder with .txt files. Obtain it: {obtain}", path=root)
    stats: Counter = Counter()
    out = [r for f in files if (r := _make(read_text_lenient(f), f.parent.name, f"{f.parent.parent.name}/{f.parent.name}/{f.name}", f, "file", stats))]
    return out, {"root": str(root), "files": len(files), **stats}


def hate_speech_forum(ctx: LoadContext, obtain: str):
    """de Gibert et al. (2018): ``annotations_metadata.csv`` (``file_id``, ``label``) + ``all_files/<file_id>.txt``.

    Only the two definite classes are kept (``hate`` / ``noHate``); ``relation`` and ``idk/skip`` are dropped.
    A ``file_id`` listed twice (with the same or a flipped label) is refused: the metadata is the only
    source of the labels. File names come from the release and must stay inside it.
    """
    root = family_dir(ctx, None, obtain, "annotations_metadata.csv and all_files/<file_id>.txt")
    meta = root / "annotations_metadata.csv"
    if not meta.is_file():
        raise DatasetNotFoundError(f"dataset '{ctx.dataset}': missing file {meta}. Obtain it: {obtain}")
    entries = []
    for where, row in read_table(meta):
        fid = row.get("file_id")
        label = row.get("label")
        if not fid or label in (None, ""):
            raise DataValidationError("is missing or empty", path=meta, record=where, field="file_id" if not fid else "label")
        entries.append((where, fid, label))
    labels = unique_keys(entries, path=meta, field="file_id", what="label")
    stats: Counter = Counter()
    out = []
    for where, fid, _ in entries:
        label = labels[fid]
        if label not in ("hate", "noHate"):
            stats["dropped_label"] += 1
            continue
        txt = release_path(root / "all_files", f"{fid}.txt", path=meta, record=where, field="file_id")
        if not txt.is_file():
            raise DataValidationError(f"names file all_files/{fid}.txt, which does not exist", path=meta, record=where, field="file_id")
        rec = _make(read_text_lenient(txt).strip(), label, fid, txt, "file", stats)
        if rec:
            out.append(rec)
    return out, {"root": str(root), **stats}


# --------------------------------------------------------------------------------------------
# XML and markup releases
# --------------------------------------------------------------------------------------------
def _learner_text(elem: ET.Element) -> str:
    """FCE: the learner's original text: error spans keep ``<i>`` (incorrect) and drop ``<c>`` (correction)."""
    parts = [elem.text or ""]
    for child in elem:
        if child.tag != "c":
            parts.append(_learner_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def fce(ctx: LoadContext, obtain: str):
    """FCE (Yannakoudakis et al. 2011): ``dataset/<batch>/*.xml``; one text per answer, label = candidate L1.

    Fields: ``head/candidate/personnel/language`` and ``head/text/answer1|answer2/coded_answer/p``.
    """
    root = family_dir(ctx, None, obtain, "fce-released-dataset/dataset/<batch>/<script>.xml")
    files = _files(root, "**/*.xml", obtain)
    stats: Counter = Counter()
    out = []
    for f in files:
        try:
            tree = ET.fromstring(read_text_lenient(f))
        except ET.ParseError as exc:
            raise DataValidationError(f"is not well-formed XML ({exc})", path=f, record=f"line {exc.position[0]}") from None
        lang = tree.find(".//candidate/personnel/language")
        if lang is None or not (lang.text or "").strip():
            raise DataValidationError("has no candidate language", path=f, field="candidate/personnel/language", expected="the learner's L1")
        for answer in tree.iter():
            if not re.fullmatch(r"answer\d+", answer.tag):
                continue
            coded = answer.find("coded_answer")
            if coded is None:
                raise DataValidationError("has no coded_answer", path=f, record=answer.tag, field="coded_answer")
            paras = [re.sub(r"\s+", " ", _learner_text(p)).strip() for p in coded.iter("p")]
            rec = _make("\n".join(p for p in paras if p), lang.text.strip(), f"{f.stem}:{answer.tag}", f, answer.tag, stats)
            if rec:
                out.append(rec)
    return out, {"root": str(root), "files": len(files), **stats}


_BLOG_NAME = re.compile(r"^(?P<id>\d+)\.(?P<gender>male|female)\.(?P<age>\d+)\.[^.]*\.[^.]*\.xml$")
_POST = re.compile(r"<post>(.*?)</post>", re.S)
#: the corpus holds three age bands with gaps between them (Schler et al. 2006)
BLOG_AGE_GROUPS = (("13-17", 13, 17), ("23-27", 23, 27), ("33-48", 33, 48))


def blog_age_group(age: int) -> str | None:
    for name, lo, hi in BLOG_AGE_GROUPS:
        if lo <= age <= hi:
            return name
    return None


def blog_posts(ctx: LoadContext, obtain: str, attribute: str, want: int | None) -> tuple[list[LabelledText], dict[str, Any]]:
    """Blog Authorship Corpus: ``blogs/<id>.<gender>.<age>.<industry>.<sign>.xml`` with ``<post>`` elements.

    Files are read in a seeded order per class until ``10 x want`` posts per class are collected (the
    corpus has 681k posts; reading all of it for a 200-per-class sample is wasted time), so the sample
    is still a seeded random draw over many authors. The files are not always well-formed XML, hence
    the regular expression.
    """
    root = family_dir(ctx, "blogs", obtain, "blogs/<id>.<gender>.<age>.<industry>.<sign>.xml")
    base = root / "blogs" if (root / "blogs").is_dir() else root
    files = _files(base, "*.xml", obtain)
    by_class: dict[str, list[Path]] = defaultdict(list)
    for f in files:
        m = _BLOG_NAME.match(f.name)
        if m is None:
            raise DataValidationError("file name does not follow <id>.<gender>.<age>.<industry>.<sign>.xml", path=f, field="file name")
        label = m["gender"] if attribute == "gender" else blog_age_group(int(m["age"]))
        if label is not None:
            by_class[label].append(f)
    rng = seeded_rng(ctx.seed, "blog-files", ctx.dataset)
    stats: Counter = Counter()
    out: list[LabelledText] = []
    for label in sorted(by_class):
        order = list(by_class[label])
        rng.shuffle(order)
        got = 0
        for f in order:
            for i, post in enumerate(_POST.findall(read_text_lenient(f))):
                text = re.sub(r"\s+", " ", post).strip()
                rec = _make(text, label, f"{f.name.split('.')[0]}:{i}", f, f"post {i}", stats)
                if rec:
                    out.append(rec)
                    got += 1
            if want is not None and got >= 10 * want:
                break
    return out, {"root": str(root), "files": len(files), "attribute": attribute, **stats}


def blog(attribute: str, per_class: int):
    def read(ctx: LoadContext, obtain: str):
        return blog_posts(ctx, obtain, attribute, option(ctx, "per_class", per_class))

    return read


# --------------------------------------------------------------------------------------------
# CEEC letters (COCOA headers)
# --------------------------------------------------------------------------------------------
_LETTER_HEADER = re.compile(r"^<Q\b[^>]*>", re.M)
_YEAR = re.compile(r"\b(1[5-8]\d\d)\b")
_MARKUP = re.compile(r"<[^>]*>|\{[^}]*\}|\^|\$")


def twenty_year_period(year: int, start: int = 1680, periods: int = 6) -> str | None:
    """STEB's six 20-year periods of the CEEC extension (1680-1699 ... 1780-1799)."""
    k = (year - start) // 20
    return f"{start + 20 * k}-{start + 20 * k + 19}" if 0 <= k < periods else None


def ceeces(ctx: LoadContext, obtain: str):
    """CEEC(E) plain-text release: letters introduced by a COCOA ``<Q ...>`` header whose code holds the year.

    The header ``<Q ... 1695 ...>`` opens a letter; the letter's text runs to the next header. Other
    COCOA lines (``<A ...>``, ``<L ...>``), editorial ``{...}`` comments and font markers are removed.
    """
    root = family_dir(ctx, None, obtain, "one .txt file per letter collection with <Q ...> letter headers")
    files = _files(root, "**/*.txt", obtain)
    start = int(option(ctx, "first_year", 1680))
    stats: Counter = Counter()
    out = []
    for f in files:
        text = read_text_lenient(f)
        heads = list(_LETTER_HEADER.finditer(text))
        if not heads:
            raise DataValidationError("holds no <Q ...> letter header", path=f, field="<Q> header", expected="COCOA letter headers with the year")
        for k, h in enumerate(heads):
            years = _YEAR.findall(h.group(0))
            if not years:
                raise DataValidationError(f"header {h.group(0)!r} has no year", path=f, record=f"letter {k + 1}", field="<Q> header")
            period = twenty_year_period(int(years[0]), start)
            if period is None:
                stats["outside_periods"] += 1
                continue
            body = text[h.end(): heads[k + 1].start() if k + 1 < len(heads) else len(text)]
            body = "\n".join(ln for ln in body.split("\n") if not ln.lstrip().startswith("<"))
            body = re.sub(r"[ \t]+", " ", _MARKUP.sub("", body)).strip()
            rec = _make(body, period, f"{f.stem}:{k + 1}", f, f"letter {k + 1}", stats)
            if rec:
                out.append(rec)
    return out, {"root": str(root), "files": len(files), "periods_from": start, **stats}


# --------------------------------------------------------------------------------------------
# parallel verses
# --------------------------------------------------------------------------------------------
def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


#: STEB's eight English versions (Carlson et al. 2018) -> the file stems that hold them in the current
#: ``formats/csv/<Version>.csv`` layout and the older ``csv/t_<abbr>.csv`` one (case-insensitive).
BIBLE_VERSIONS: dict[str, tuple[str, ...]] = {
    "KJV": ("KJV", "t_kjv"),
    "ASV": ("ASV", "t_asv"),
    "BBE": ("BBE", "t_bbe"),
    "Darby": ("Darby", "t_dby"),
    "Douay-Rheims": ("DRC", "t_dra", "t_drc"),
    "Webster": ("Webster", "t_wbt"),
    "WEB": ("WEB", "t_web"),
    "YLT": ("YLT", "t_ylt"),
}
#: the columns (book, chapter, verse, text) of the two CSV layouts of github.com/scrollmapper/bible_databases
_BIBLE_COLUMNS = (("Book", "Chapter", "Verse", "Text"), ("b", "c", "v", "t"))


def _bible_files(root: Path, wanted: dict[str, tuple[str, ...]] | None) -> tuple[Path, dict[str, Path]]:
    """The CSV folder of the release and label -> file for the wanted versions found there."""
    for folder in ("formats/csv", "csv", "."):
        base = (root / folder) if folder != "." else root
        if not base.is_dir():
            continue
        by_stem = {f.stem.lower(): f for f in sorted(base.glob("*.csv")) if f.is_file()}
        if wanted is None:  # every version of the folder, named by its file
            found = {(stem[2:].upper() if stem.startswith("t_") else f.stem): f for stem, f in by_stem.items()
                     if not stem.startswith(("key_", "bible_version"))}
        else:
            found = {}
            for label, stems in wanted.items():
                hit = next((by_stem[s.lower()] for s in stems if s.lower() in by_stem), None)
                if hit is not None:
                    found[label] = hit
        if found:
            return base, found
    return root, {}


def bible_versions(ctx: LoadContext, obtain: str):
    """Bible versions from github.com/scrollmapper/bible_databases as cloned.

    Current layout: ``formats/csv/<Version>.csv`` with columns ``Book, Chapter, Verse, Text`` (a verse a
    version lacks has an empty ``Text`` and is skipped); older layout: ``csv/t_<abbr>.csv`` with
    ``id, b, c, v, t``. The default versions are STEB's eight (``BIBLE_VERSIONS``); ``--dataset-option
    versions=KJV,YLT,...`` picks file stems instead (``all`` = every CSV of the folder). Label = version;
    verses are aligned by (book, chapter, verse) and a verse text that equals another version's text
    of the same verse, ignoring case and whitespace, is dropped (it cannot tell versions apart).
    """
    root = family_dir(ctx, "bible_databases", obtain, "formats/csv/KJV.csv, formats/csv/ASV.csv, ... (Book,Chapter,Verse,Text) "
                                                      "or csv/t_kjv.csv, ... (id,b,c,v,t)")
    choice = option(ctx, "versions", None)
    if choice is None:
        wanted: dict[str, tuple[str, ...]] | None = BIBLE_VERSIONS
    elif str(choice).strip().lower() == "all":
        wanted = None
    else:
        names = [v.strip() for v in (choice.split(",") if isinstance(choice, str) else choice) if v.strip()]
        wanted = {n: BIBLE_VERSIONS.get(n, (n, f"t_{n.lower()}")) for n in names}
    base, files = _bible_files(root, wanted)
    if not files:
        raise DataValidationError(f"no CSV of the wanted versions ({', '.join(wanted or ['any'])}) in formats/csv/, csv/ or the folder itself. "
                                  f"Obtain it: {obtain}", path=root)
    verses: dict[tuple[str, str, str], list[tuple[str, str, Path, str]]] = defaultdict(list)
    stats: Counter = Counter()
    for version, f in sorted(files.items()):
        cols = None
        keyed = []
        for where, row in read_table(f):
            if cols is None:
                cols = next((c for c in _BIBLE_COLUMNS if all(k in row for k in c)), None)
                if cols is None:
                    raise DataValidationError(f"has columns {sorted(map(str, row))}", path=f, record="header",
                                              expected="Book,Chapter,Verse,Text or id,b,c,v,t")
            book, chapter, verse, text_col = cols
            for col in (book, chapter, verse):
                if row.get(col) in (None, ""):
                    raise DataValidationError("is missing or empty", path=f, record=where, field=col, expected="the verse reference")
            text = row.get(text_col)
            if text is None or not str(text).strip():
                stats["skipped_missing_verse"] += 1  # the version lacks this verse (e.g. a New-Testament-only version)
                continue
            keyed.append((where, (row[book], row[chapter], row[verse]), str(text)))
        texts = unique_keys(keyed, path=f, field="verse", what="text")
        first = {k: w for w, k, _ in keyed}
        for key, text in texts.items():
            verses[key].append((version, text, f, first[key]))
    out = []
    for key, texts in verses.items():
        seen = Counter(_norm(t) for _, t, _, _ in texts)
        for version, text, f, where in texts:
            if seen[_norm(text)] > 1:
                stats["dropped_identical"] += 1
                continue
            rec = _make(text.strip(), version, f"{version}:{'.'.join(key)}", f, where, stats)
            if rec:
                out.append(rec)
    missing = sorted(set(wanted or ()) - set(files))
    return out, {"root": str(base), "versions": sorted(files), "versions_missing": missing, **stats}


# --------------------------------------------------------------------------------------------
# JSON releases
# --------------------------------------------------------------------------------------------
PASTEL_ATTRIBUTES = {"age": ("age",), "education": ("education", "edu"), "gender": ("gender",),
                     "ethnic": ("ethnic", "ethnicity"), "politics": ("politics", "political"), "tod": ("tod", "time_of_day")}


def _pastel_text(obj: Mapping[str, Any]) -> Any:
    """The annotated text: ``output.sentences`` in the release (a string, or a one-item list at sentence level)."""
    for key in ("output.sentences", "sentence", "sentences", "output", "text"):
        if key in obj:
            value = obj[key]
            return " ".join(value) if isinstance(value, list) and value and all(isinstance(v, str) for v in value) else value
    return None


def pastel_sentence_files(root: Path, obtain: str) -> tuple[list[Path], Path]:
    """The sentence-level JSON files of a PASTEL release, never the 5-sentence ``stories`` level.

    ``data_v2.zip`` unpacks to ``v2/sentences/{train,valid,test}/*.json`` (under ``data/`` in a clone)
    and ``data.zip`` (v1) to ``sentences/...``; when both are present v2 is read (v1 is its noisier
    superset). A folder of JSON files without a ``sentences`` level is read as is, minus any ``stories`` part.
    """
    levels = sorted(p for p in root.rglob("sentences") if p.is_dir() and "stories" not in p.relative_to(root).parts)
    if levels:
        v2 = [p for p in levels if "v2" in p.relative_to(root).parts]
        chosen = v2 or levels
        if len(chosen) > 1:
            raise DataValidationError(f"holds several PASTEL sentence folders ({', '.join(str(p.relative_to(root)) for p in chosen)}); "
                                      "point --data-dir at one release", path=root)
        base = chosen[0]
    else:
        base = root
    files = sorted(p for p in base.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()
                   and "stories" not in p.relative_to(base).parts)
    if not files:
        raise DataValidationError(f"no sentence-level .json file (data/v2/sentences/<split>/*.json) under this folder. Obtain it: {obtain}",
                                  path=root)
    return files, base


def pastel(attribute: str):
    """PASTEL (Kang et al. 2019) sentences: one JSON object per ``.json`` file (or per ``.jsonl`` line)
    with ``persona`` {``age``, ``education``, ``gender``, ``ethnic``, ``politics``, ``tod``, ``country``}
    and the annotated sentence under ``output.sentences``; label = the persona attribute. Only the
    sentence level is read (``sentences/``, not ``stories/``); empty attribute values are skipped."""
    keys = PASTEL_ATTRIBUTES[attribute]

    def read(ctx: LoadContext, obtain: str):
        import json

        root = family_dir(ctx, "PASTEL", obtain, "data/v2/sentences/{train,valid,test}/*.json (persona + output.sentences)")
        files, base = pastel_sentence_files(root, obtain)
        stats: Counter = Counter()
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
                    raise DataValidationError("is missing or not an object", path=f, record=where, field="persona", expected="persona attributes")
                rid = None if obj.get("id") is None else str(obj["id"])
                value = next((persona[k] for k in keys if k in persona), None)
                if rid is not None:  # the same sentence twice (a file copied into two splits) must not carry two labels
                    fingerprint = (str(value), json.dumps(_pastel_text(obj), sort_keys=True))
                    if rid in seen_ids:
                        first_file, first_where, first_fp = seen_ids[rid]
                        if first_fp != fingerprint:
                            raise DataValidationError(f"conflicting id {rid!r}: first in {first_file} ({first_where}) with {attribute} "
                                                      f"{first_fp[0]!r}, here {fingerprint[0]!r}", path=f, record=where, field="id",
                                                      expected="each id once")
                        stats["duplicate_id"] += 1
                        continue
                    seen_ids[rid] = (f, where, fingerprint)
                if value is None or not str(value).strip():
                    stats["no_attribute"] += 1
                    continue
                text = _pastel_text(obj)
                if not isinstance(text, str):
                    raise DataValidationError(f"holds {type(text).__name__}", path=f, record=where, field="output.sentences",
                                              expected="the annotated sentence (a string or a list of strings)")
                rec = _make(text, str(value).strip(), rid, f, where, stats)
                if rec:
                    out.append(rec)
        return out, {"root": str(base), "files": len(files), "attribute": attribute, **stats}

    return read


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
                raise DataValidationError(f"missing {', '.join(f.name for f in missing)} (split={split}). Obtain it: {obtain}", path=base)
            return files
    named = sorted(root.glob(f"{stem}_*.json"))
    if named:
        return [f for f in named if split == "all" or f.stem.endswith(f"_{split}")] or named
    return _files(root, "*.json*", obtain)


def detectrl(setting: str, binary: bool):
    """DetectRL (Wu et al. 2024) JSON files of one setting: a list of objects with ``text``, ``label``
    ('human' or 'llm'), ``llm_type`` and ``data_type``; label = 'human' or the generating LLM (or 'llm'
    for the binary attack sets). STEB reads the test split (``--dataset-option split=train|all``)."""

    def read(ctx: LoadContext, obtain: str):
        root = family_dir(ctx, "DetectRL", obtain, f"Benchmark/Benchmark_Data/{'/'.join(DETECTRL_FILES[setting])}_test.json "
                                                   "(text, label, llm_type)")
        split = str(option(ctx, "split", "test"))
        if split not in ("test", "train", "all"):
            raise DataValidationError(f"option split={split!r}", field="split", expected="test, train or all")
        files = detectrl_files(root, setting, split, obtain)
        stats: Counter = Counter()
        out = []
        for f in files:
            for where, row in read_table(f):
                for col in ("text", "label") + (() if binary else ("llm_type",)):
                    if col not in row and not (col == "llm_type" and row.get("label") == "human"):
                        raise DataValidationError("is missing", path=f, record=where, field=col, expected="DetectRL fields text, label, llm_type")
                kind = str(row["label"]).strip().lower()
                if kind not in ("human", "llm", "0", "1"):
                    raise DataValidationError(f"holds {row['label']!r}", path=f, record=where, field="label", expected="'human' or 'llm'")
                human = kind in ("human", "0")
                label = "human" if human else ("llm" if binary else str(row["llm_type"]))
                if not isinstance(row["text"], str):
                    raise DataValidationError("is not text", path=f, record=where, field="text")
                rec = _make(row["text"], label, row.get("id") and str(row["id"]), f, where, stats)
                if rec:
                    out.append(rec)
        return out, {"root": str(root), "files": [str(f) for f in files], "split": split, **stats}

    return read


def m4(domain: str):
    """M4 (Wang et al. 2024): ``data/<domain>_<model>.jsonl`` in a clone of github.com/mbzuai-nlp/M4 (or the
    files in the folder itself), with ``human_text`` and ``machine_text`` per line.

    Label = 'human' or the model named by the file (the ``model`` field is not used: it is absent or
    spelled differently in some files); BloomZ files are dropped as in STEB; a human text repeated
    across the model files is kept once; a ``<domain>_human.jsonl`` file contributes human texts only.
    """

    def read(ctx: LoadContext, obtain: str):
        root = family_dir(ctx, "M4", obtain, f"data/{domain}_<model>.jsonl with human_text, machine_text")
        base = root / "data" if (root / "data").is_dir() else root  # a clone keeps the files in data/
        files = [f for f in _files(base, f"{domain}_*.jsonl", obtain) if "bloomz" not in f.stem.lower()]
        stats: Counter = Counter({"dropped_bloomz_files": len(list(base.glob(f"{domain}_*.jsonl"))) - len(files)})
        seen_human: set[str] = set()
        out = []
        for f in files:
            file_model = f.stem[len(domain) + 1:]
            human_only = file_model.lower() == "human"
            for where, row in read_table(f, "jsonl"):
                for col in ("human_text",) + (() if human_only else ("machine_text",)):
                    if col not in row:
                        raise DataValidationError("is missing", path=f, record=where, field=col, expected="M4 fields human_text, machine_text")
                human = row["human_text"]
                if isinstance(human, str):
                    if human not in seen_human:
                        seen_human.add(human)
                        if rec := _make(human, "human", None, f, where, stats):
                            out.append(rec)
                elif human is not None:
                    raise DataValidationError(f"holds {type(human).__name__}", path=f, record=where, field="human_text", expected="text")
                if human_only:
                    continue
                if not isinstance(row["machine_text"], str):
                    raise DataValidationError("is not text", path=f, record=where, field="machine_text")
                if rec := _make(row["machine_text"], file_model, None, f, where, stats):
                    out.append(rec)
        return out, {"root": str(base), "files": [f.name for f in files], **stats}

    return read


# --------------------------------------------------------------------------------------------
# derived labels: politeness quartiles, CLDF, wide dialect tables
# --------------------------------------------------------------------------------------------
def politeness(file_name: str):
    """Stanford Politeness Corpus CSV (``Request``, ``Normalized Score``): bottom quartile 'impolite',
    top quartile 'polite', the rest 'neutral' (the quartile split of Danescu-Niculescu-Mizil et al. 2013)."""

    def read(ctx: LoadContext, obtain: str):
        root = family_dir(ctx, "Stanford_politeness_corpus", obtain, f"{file_name} with columns Request, Normalized Score")
        path = root / file_name
        rows = []
        for where, row in read_table(path):
            for col in ("Request", "Normalized Score"):
                if row.get(col) in (None, ""):
                    raise DataValidationError("is missing or empty", path=path, record=where, field=col)
            try:
                score = float(row["Normalized Score"])
            except ValueError:
                raise DataValidationError(f"holds {row['Normalized Score']!r}", path=path, record=where, field="Normalized Score", expected="a number") from None
            rows.append((where, row, score))
        if not rows:
            raise DataValidationError("holds no request", path=path)
        lo, hi = np.quantile([s for _, _, s in rows], [0.25, 0.75])
        stats: Counter = Counter()
        out = []
        for where, row, score in rows:
            label = "impolite" if score <= lo else ("polite" if score >= hi else "neutral")
            if rec := _make(row["Request"], label, row.get("Id"), path, where, stats):
                out.append(rec)
        return out, {"root": str(root), "quartiles": [float(lo), float(hi)], **stats}

    return read


def ewave(ctx: LoadContext, obtain: str):
    """eWAVE CLDF: ``cldf/examples.csv`` (``Language_ID``, ``Primary_Text``) + ``cldf/languages.csv`` (``ID``, ``Name``)."""
    root = family_dir(ctx, None, obtain, "cldf/examples.csv and cldf/languages.csv (CLDF)")
    base = root / "cldf" if (root / "cldf").is_dir() else root
    entries = []
    for where, row in read_table(base / "languages.csv"):
        if not row.get("ID") or not row.get("Name"):
            raise DataValidationError("is missing or empty", path=base / "languages.csv", record=where, field="ID" if not row.get("ID") else "Name")
        entries.append((where, row["ID"], row["Name"]))
    names = unique_keys(entries, path=base / "languages.csv", field="ID", what="Name")
    stats: Counter = Counter()
    out = []
    path = base / "examples.csv"
    example_ids: dict[str, str] = {}
    for where, row in read_table(path):
        for col in ("Language_ID", "Primary_Text"):
            if col not in row:
                raise DataValidationError("is missing", path=path, record=where, field=col, expected="CLDF ExampleTable columns")
        lang = row["Language_ID"]
        if lang not in names:
            raise DataValidationError(f"names unknown language {lang!r}", path=path, record=where, field="Language_ID", expected="an ID of languages.csv")
        if row.get("ID"):
            if row["ID"] in example_ids:
                raise DataValidationError(f"duplicate example ID {row['ID']!r}: first at {example_ids[row['ID']]}", path=path, record=where,
                                          field="ID", expected="each ID once")
            example_ids[row["ID"]] = where
        if rec := _make(row["Primary_Text"] or "", names[lang], row.get("ID"), path, where, stats):
            out.append(rec)
    return out, {"root": str(root), **stats}


ENDIVE_DIALECTS = ("SAE", "AAVE", "ChcE", "CollSgE", "IndE", "JamE")


def endive(ctx: LoadContext, obtain: str):
    """EnDive: parallel tables with one text column per dialect (default: SAE and the five dialects);
    every non-empty cell becomes a text labelled with its column. ``--dataset-option dialects=...`` renames."""
    root = family_dir(ctx, None, obtain, f"*.csv / *.jsonl / *.parquet with columns {', '.join(ENDIVE_DIALECTS)}")
    dialects = option(ctx, "dialects", ENDIVE_DIALECTS)
    dialects = tuple(dialects.split(",")) if isinstance(dialects, str) else tuple(dialects)
    files = [f for f in _files(root, "*", obtain) if f.suffix in (".csv", ".tsv", ".jsonl", ".json", ".parquet")]
    stats: Counter = Counter()
    out = []
    for f in files:
        for where, row in read_table(f):
            present = [d for d in dialects if d in row]
            if not present:
                raise DataValidationError(f"has none of the dialect columns; row has {sorted(map(str, row))[:12]}", path=f, record=where,
                                          field="/".join(dialects))
            for d in present:
                value = row[d]
                if value in (None, ""):
                    continue
                if not isinstance(value, str):
                    raise DataValidationError(f"holds {type(value).__name__}", path=f, record=where, field=d, expected="text")
                if rec := _make(value, d, None, f, where, stats):
                    out.append(rec)
    return out, {"root": str(root), "dialects": list(dialects), **stats}
