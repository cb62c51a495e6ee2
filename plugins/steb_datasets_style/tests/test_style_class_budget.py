"""Issue 25 §2: STEB's class-budget rule and the releases/units the paper names (synthetic fixtures in the real
layouts)."""

from __future__ import annotations

import json
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from steb_core import DataValidationError, LabelledText, LoadContext
from steb_datasets_style.catalogue import labelled_corpora
from steb_datasets_style.common import labelled_bundle
from steb_datasets_style.readers import twenty_year_period
from steb_datasets_style.readers.bible import bible_carlson

CORPORA = {c.name: c for c in labelled_corpora()}


def w(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def load(root: Path, name: str, **options):
    """Every record the reader returns unless asked (``per_class=all``): the reader tests below use a few texts per
    class."""
    ctx = LoadContext(dataset=name, data_dir=root / name, seed=0, options={"per_class": "all", **options})
    return CORPORA[name].load(ctx)


def records(sizes: dict[str, int]) -> list[LabelledText]:
    return [LabelledText(text=f"text {label} {i}", label=label) for label, n in sizes.items() for i in range(n)]


# ---- the rule: the STEB reference's first N per class (issue 37) -------------------------------------------------
def ctx(**options) -> LoadContext:
    return LoadContext(dataset="x", data_dir=None, seed=3, options=options)


def test_n_is_the_smallest_class_clamped_to_25_200_and_smaller_classes_are_dropped():
    b = labelled_bundle(ctx(), records({"a": 40, "b": 31, "c": 24}), {"root": "r"})  # smallest 24 -> N = 25: c dropped
    assert b.info["class_counts"] == {"a": 25, "b": 25}
    assert b.info["class_counts_available"] == {"a": 40, "b": 31, "c": 24}
    assert b.info["per_class"] == 25 and b.info["dropped_classes"] == {"c": 24}
    b = labelled_bundle(ctx(), records({"a": 40, "b": 29}), {"root": "r"})  # eWAVE-style: the smallest class sets N
    assert b.info["class_counts"] == {"a": 29, "b": 29} and "dropped_classes" not in b.info
    assert labelled_bundle(ctx(), records({"a": 900, "b": 300}), {}).info["per_class"] == 200  # capped at 200


def test_first_n_in_reader_order_class_by_class_in_order_of_first_appearance():
    recs = [LabelledText(text=f"t{i}", label="ba"[i % 2]) for i in range(70)] + [LabelledText(text="late b", label="b")]
    b = labelled_bundle(ctx(), recs, {})  # b, a, b, a, ...: b has 36, a 35 -> N = 35
    assert [r.text for r in b.labelled_texts] == [f"t{i}" for i in range(0, 70, 2)] + [f"t{i}" for i in range(1, 70, 2)]
    assert b.info["class_order"] == ["b", "a"] and b.info["sampling"] == "first"


def test_per_class_and_sampling_options():
    assert labelled_bundle(ctx(per_class="10"), records({"a": 40, "b": 9}), {}).info["class_counts"] == {"a": 10}
    every = labelled_bundle(ctx(per_class="all"), records({"a": 40, "b": 9}), {})
    assert every.info["class_counts"] == {"a": 40, "b": 9}
    drawn = labelled_bundle(ctx(sampling="random"), records({"a": 40, "b": 31}), {})
    assert drawn.info["class_counts"] == {"a": 31, "b": 31}
    assert drawn.info["sampling"] == "random" and drawn.info["seed"] == 3
    first = labelled_bundle(ctx(), records({"a": 40, "b": 31}), {})
    assert [r.text for r in drawn.labelled_texts] != [r.text for r in first.labelled_texts]


def test_every_class_dropped_is_an_error():
    with pytest.raises(DataValidationError, match="every class has fewer than 10"):
        labelled_bundle(ctx(per_class=10), records({"a": 3, "b": 2}), {})


def test_bad_options_are_refused():
    with pytest.raises(DataValidationError, match="sampling"):
        labelled_bundle(ctx(sampling="maybe"), records({"a": 3}), {})
    with pytest.raises(DataValidationError, match="per_class"):
        labelled_bundle(ctx(per_class="-3"), records({"a": 3}), {})


def _story(i: int, age: str) -> dict:
    persona = {
        "country": "U.S.A",
        "politics": "LeftWing",
        "tod": "Night",
        "age": age,
        "education": "Bachelor",
        "ethnic": "Caucasian",
        "gender": "Female",
    }
    return {
        "annotation_id": str(i),
        "per_annotation_id": str(i),
        "id": f"{i}_1",
        "persona": persona,
        "input.keywords": ["(a|b)"] * 5,
        "input.images": ["https://example.org/i.jpg"] * 5,
        "input.sentences": ["x ."] * 5,
        "output.sentences": [f"Story {i} sentence {k}." for k in range(5)],
    }


def test_pastel_age_drops_small_classes_by_the_stated_rule(tmp_path):
    sizes = {"18-24": 30, "25-34": 26, "75<": 24, "Under12": 3}  # made-up release: two values under 25 stories
    i = 0
    for age, n in sizes.items():
        for _ in range(n):
            split = ("train", "valid", "test")[i % 3]
            w(tmp_path / "PASTEL" / "data" / "v2" / "stories" / split / f"{i}_1.json", json.dumps(_story(i, age)))
            i += 1
    b = load(tmp_path, "pastel_age", per_class="auto")
    assert b.info["class_counts"] == {"18-24": 25, "25-34": 25}  # N = max(25, smallest 3) = 25: the classes under 25 go
    assert b.info["dropped_classes"] == {"75<": 24, "Under12": 3} and b.info["unit"] == "story"
    assert all(r.text.count("sentence") == 5 for r in b.labelled_texts)
    kept_all = load(tmp_path, "pastel_age", per_class=3)
    assert kept_all.info["class_counts"] == {a: 3 for a in sizes}  # no class dropped: 3 each


# ---- bible_versions: StyleTransferBibleData --------------------------------------------------------------------
def _bible(root: Path) -> Path:
    base = root / "bible_versions" / "Data" / "Bibles"
    for v in ("ASV", "KJV", "DRA"):
        w(
            base / v / "1John" / "1John1.txt",
            f"1 That which was from the beginning ({v}).\n2 For the life was manifested.\n",
        )
        w(base / v / "1John" / "1John2.txt", f"1 My little children, {v} writes.\n")
    return base


def test_bible_reference_selection_same_sorted_references_in_every_version(tmp_path):
    """Issue 37: the references every version has, sorted (book as a string, chapter and verse as numbers), one record
    per version in version order; the first N of each version are then the same verses."""
    base = tmp_path / "bible_versions" / "Data" / "Bibles"
    for v in ("KJV", "ASV", "YLT"):
        w(base / v / "John" / "John10.txt", f"1 Ten one {v}.\n")
        w(base / v / "John" / "John2.txt", f"10 Two ten {v}.\n9 Two nine {v}.\n9 Two nine again {v}.\n")
        w(base / v / "1John" / "1John1.txt", f"1 First John {v}.\n" + ("2 Only here.\n" if v == "KJV" else ""))
    b = load(tmp_path, "bible_versions", per_class=2)
    # "1John" < "John"; chapter 2 before 10 and verse 9 before 10 (numbers, not strings)
    refs = ["1John.1.1", "John.2.9"]
    assert [r.id for r in b.labelled_texts] == [f"{v}:{ref}" for v in ("ASV", "KJV", "YLT") for ref in refs]
    every = load(tmp_path, "bible_versions")
    assert [r.id for r in every.labelled_texts if r.label == "KJV"] == [
        "KJV:1John.1.1",
        "KJV:John.2.9",
        "KJV:John.2.10",
        "KJV:John.10.1",
    ]
    # a repeated verse number keeps its last text
    assert "Two nine again KJV." in {r.text for r in every.labelled_texts}
    assert every.info["references"] == 4 and every.info["repeated_verse_last_kept"] == 3
    assert every.info["selection"] == "reference"


#: a chapter file with the lines the reference's parse meets in odd releases (each line: what it reads as)
ODD_CHAPTER = (
    b"1 First verse.\r\n"  # Windows line end
    b"+2 Plus two.  \r\n"  # int('+2') == 2; the text stripped
    b"  4\tTabbed   text \xff here\n"  # leading whitespace, a tab between the fields; an undecodable byte -> U+FFFD
    b"\n"
    b"   \t \n"  # blank lines: not counted
    b"[[5 Disputed.\n"  # LEB's [[: not a verse
    b"6\n"  # no text: not a verse
    b"1_000 Thousand.\n"  # int('1_000') == 1000
    + "\u0663 Arabic-Indic three.\n".encode()  # int('\u0663') == 3
    + b"3 Three again.\n"  # verse 3 repeated: the last text kept
    b"1 First again.\rold mac\n"  # a lone CR ends a line too; 'old' is not a number
    + "7 Seven\u0085 next\n".encode()  # U+0085 is whitespace, not a line end
    + b"-1 Minus one."  # no line end at the end of the file
)


def test_bible_reference_reads_each_line_as_the_reference_parses_it(tmp_path):
    base = tmp_path / "bible_versions" / "Data" / "Bibles"
    for v in ("KJV", "ASV"):
        (base / v / "Acts").mkdir(parents=True)
        (base / v / "Acts" / "Acts1.txt").write_bytes(ODD_CHAPTER)
    ctx = LoadContext(dataset="bible_versions", data_dir=tmp_path / "bible_versions")
    records, info = bible_carlson(ctx, "obtain")
    verses = [
        (-1, "Minus one."),
        (1, "First again."),
        (2, "Plus two."),
        (3, "Three again."),
        (4, "Tabbed   text \ufffd here"),
        (7, "Seven\u0085 next"),
        (1000, "Thousand."),
    ]
    assert records == [LabelledText(t, v, f"{v}:Acts.1.{n}") for n, t in verses for v in ("ASV", "KJV")]
    # the counters in the order the lines first raised them: a line that is no verse comes before a repeated one
    assert list(info)[-3:] == ["lines_not_a_verse", "repeated_verse_last_kept", "references"]
    assert (info["lines_not_a_verse"], info["repeated_verse_last_kept"], info["references"]) == (6, 4, 7)
    assert info["files"] == 2


def test_bible_collision_free_selection_drops_shared_texts_and_shuffles_with_random_42(tmp_path):
    base = tmp_path / "bible_versions" / "Data" / "Bibles"
    for v in ("KJV", "ASV"):
        verses = "".join(f"{n} Verse {n} of {v}.\n" for n in range(1, 13))
        w(base / v / "Acts" / "Acts1.txt", verses + "13 The  same.\n")
    w(base / "ASV" / "Acts" / "Acts1.txt", "".join(f"{n} Verse {n} of ASV.\n" for n in range(1, 13)) + "13 the same.\n")
    b = load(tmp_path, "bible_versions", selection="collision-free")
    expected = [("Acts", 1, n) for n in range(1, 13)]  # 1:13 dropped: the two versions read alike (case, spaces aside)
    random.Random(42).shuffle(expected)
    assert [r.id for r in b.labelled_texts if r.label == "KJV"] == [f"KJV:Acts.1.{n}" for _, _, n in expected]
    assert b.info["references_with_a_shared_text_dropped"] == 1
    with pytest.raises(DataValidationError, match="selection"):
        load(tmp_path, "bible_versions", selection="newest")


def test_bible_carlson_versions_option_and_identical_verses(tmp_path):
    _bible(tmp_path)
    b = load(tmp_path, "bible_versions", selection="dedup")
    assert b.info["versions"] == ["DRA", "KJV", "ASV"] or sorted(b.info["versions"]) == ["ASV", "DRA", "KJV"]
    assert b.info["dropped_identical"] == 3 and b.info["files"] == 6  # 1 John 1:2 is the same in all three
    assert Counter(r.label for r in b.labelled_texts) == {"ASV": 2, "KJV": 2, "DRA": 2}
    assert "KJV:1John.2.1" in {r.id for r in b.labelled_texts}
    picked = load(tmp_path, "bible_versions", versions="KJV,ASV")
    assert {r.label for r in picked.labelled_texts} == {"KJV", "ASV"} and "LEB" not in picked.info["versions_missing"]
    assert sorted(load(tmp_path, "bible_versions", versions="all").info["versions"]) == ["ASV", "DRA", "KJV"]


def test_bible_identical_rule_shared_or_all(tmp_path):
    base = tmp_path / "bible_versions" / "Data" / "Bibles"
    texts = {
        "ASV": ("Jesus wept.", "Rejoice  always."),
        "KJV": ("JESUS  wept.", "Rejoice evermore."),
        "YLT": ("Jesus wept.", "Always rejoice."),
    }
    for v, (a, b) in texts.items():
        w(base / v / "John" / "John11.txt", f"35 {a}\n36 {b}\n")
    shared = load(tmp_path, "bible_versions", selection="dedup")  # 11:35 all alike: 3 dropped; 11:36 none shared
    assert sorted(r.id for r in shared.labelled_texts) == ["ASV:John.11.36", "KJV:John.11.36", "YLT:John.11.36"]
    w(
        base / "KJV" / "John" / "John11.txt", "35 Jesus wept.\n36 Rejoice  ALWAYS.\n"
    )  # 11:36 now shared by ASV and KJV only
    dedup = load(tmp_path, "bible_versions", selection="dedup")
    assert sorted(r.id for r in dedup.labelled_texts) == ["YLT:John.11.36"]
    only_all = load(tmp_path, "bible_versions", selection="dedup", identical="all")
    assert sorted(r.id for r in only_all.labelled_texts) == ["ASV:John.11.36", "KJV:John.11.36", "YLT:John.11.36"]
    assert only_all.info["dropped_identical"] == 3
    with pytest.raises(DataValidationError, match="identical"):
        load(tmp_path, "bible_versions", selection="dedup", identical="some")


def test_bible_file_name_outside_the_layout_is_refused(tmp_path):
    base = _bible(tmp_path)
    w(base / "KJV" / "1John" / "chapter3.txt", "1 x\n")
    with pytest.raises(DataValidationError) as err:
        load(tmp_path, "bible_versions")
    assert all(n in str(err.value) for n in ("chapter3.txt", "file name", "1John<chapter>.txt")), str(err.value)


def test_bible_scrollmapper_clone_points_to_the_option(tmp_path):
    w(
        tmp_path / "bible_versions" / "formats" / "csv" / "KJV.csv",
        "Book,Chapter,Verse,Text\nGenesis,1,1,In the beginning.\n",
    )
    with pytest.raises(DataValidationError, match="release=scrollmapper"):
        load(tmp_path, "bible_versions")


# ---- ceeces --------------------------------------------------------------------------------------------------
def test_twenty_year_periods_span_1680_to_1800():
    assert [twenty_year_period(y) for y in (1679, 1680, 1699, 1700, 1799, 1800, 1801)] == [
        None,
        "1680-1699",
        "1680-1699",
        "1700-1719",
        "1780-1799",
        "1780-1799",
        None,
    ]


def test_ceeces_one_tei_file_per_letter_header_paragraphs_left_out(tmp_path):
    tei = (
        '<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc><publicationStmt><p>Header '
        "text.</p></publicationStmt>"
        '</fileDesc><profileDesc><creation><date when="1792"/></creation></profileDesc></teiHeader>'
        '<text><body><p>First paragraph of a letter.</p><fw>page 3</fw><p>Second one.<pb n="4"/> Still '
        "second.</p></body></text></TEI>"
    )
    w(tmp_path / "ceeces" / "part2" / "letter_0001.xml", tei)
    b = load(tmp_path, "ceeces")
    assert sorted(r.text for r in b.labelled_texts) == ["First paragraph of a letter.", "Second one. Still second."]
    assert {r.label for r in b.labelled_texts} == {"1780-1799"} and b.info["unit"] == "paragraph"


def test_ceeces_cocoa_release_stays_an_option(tmp_path):
    w(
        tmp_path / "ceeces" / "smith.txt",
        "<Q A 1685 SMITH>\n<A JOHN SMITH>\nDear Sir, I {ED:illegible} received yours.\n<Q B 1745 X>\nMy lord.\n",
    )
    b = load(tmp_path, "ceeces", release="cocoa")
    assert sorted(r.label for r in b.labelled_texts) == ["1680-1699", "1740-1759"]
    assert "ED:" not in b.labelled_texts[0].text and "JOHN" not in b.labelled_texts[0].text


# ---- blogs ---------------------------------------------------------------------------------------------------
def test_blog_schler_release_stays_an_option_with_the_same_labels(tmp_path):
    root = tmp_path / "blogs" / "blogs"
    w(root / "1000.male.15.Student.Aries.xml", "<Blog><post>teen post</post></Blog>")
    w(root / "2000.female.25.Arts.Leo.xml", "<Blog><post>twenties post</post></Blog>")
    b = load(tmp_path, "blog_age", release="schler")
    assert {r.label for r in b.labelled_texts} == {"10s", "20s"}


def test_blog_folder_without_the_split_says_so(tmp_path):
    w(
        tmp_path / "blog_gender" / "blog_authorship_corpus" / "train" / "0000.jsonl",
        json.dumps({"text": "t", "gender": "male", "age": 15}) + "\n",
    )
    with pytest.raises(Exception, match="validation"):
        load(tmp_path, "blog_gender")


# ---- GEDE ----------------------------------------------------------------------------------------------------
def _gede_db(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE jobs (id INTEGER PRIMARY KEY, model TEXT, prompt_mode TEXT);"
        "CREATE TABLE answers (id INTEGER PRIMARY KEY, question_id INTEGER, job_id INTEGER, is_human BOOLEAN, answer "
        "TEXT);"
        "INSERT INTO jobs VALUES (1, 'meta-llama/Llama-3.3-70B-Instruct', 'task'), (2, 'gpt-4o-mini-2024-07-18', "
        "'rewrite-1'),"
        " (3, 'dipper', 'dipper-2'), (4, 'gpt-4o-mini-2024-07-18', 'improve-human');"
        "INSERT INTO answers VALUES (1, 1, NULL, 1, 'A human essay.'), (2, 1, 1, 0, 'A llama essay.'), (3, 1, 2, 0, "
        "'A rewrite.'),"
        " (4, 1, 3, 0, 'A humanized essay.'), (5, 1, 4, 0, 'An improved essay.'), (6, 2, NULL, 1, '');"
    )
    con.commit()
    con.close()


def test_gede_database_four_authors_or_eight_levels(tmp_path):
    _gede_db(tmp_path / "gede_essay_detection" / "database" / "database.db")
    b = load(tmp_path, "gede_essay_detection", per_class=1)
    assert Counter(r.label for r in b.labelled_texts) == {
        "human": 1,
        "meta-llama/Llama-3.3-70B-Instruct": 1,
        "gpt-4o-mini-2024-07-18": 1,
        "dipper": 1,
    }  # first 1 each
    assert b.info["class_counts_available"]["gpt-4o-mini-2024-07-18"] == 2 and b.info["skipped_empty"] == 1
    levels = load(tmp_path, "gede_essay_detection", label="contribution_level")
    assert {r.label for r in levels.labelled_texts} == {"Human", "Task", "Rewrite-LLM", "Humanize", "Improved-Human"}


def test_gede_zipped_database_says_unzip(tmp_path):
    w(tmp_path / "gede_essay_detection" / "database" / "database.db.zip", "PK")
    with pytest.raises(Exception, match="unzip"):
        load(tmp_path, "gede_essay_detection")


# ---- sources and citations -------------------------------------------------------------------------------------
#: dataset -> the folder its reader reads (the DataSource target)
TARGETS = {
    "bible_versions": "bible_versions",
    "ceeces": "ceeces",
    "blog_age": "blogs",
    "blog_gender": "blogs",
    "gede_essay_detection": "gede_essay_detection",
    **{f"pastel_{a}": "PASTEL" for a in ("age", "education", "ethnic", "gender", "politics", "tod")},
}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_sources_and_bibtex_of_the_issue_25_datasets(name):
    spec = CORPORA[name].spec()
    assert spec.sources and {s.target for s in spec.sources} == {TARGETS[name]}
    assert all(s.revision and len(s.revision) == 40 for s in spec.sources if s.kind == "git")
    assert spec.citation.startswith("@") and all(f in spec.citation for f in ("author", "title", "year"))
    assert ("doi" in spec.citation) or ("url" in spec.citation)
    assert spec.obtain.split()[0:3] != []


def test_ceeces_sources_are_the_two_zenodo_records():
    assert [(s.kind, s.url) for s in CORPORA["ceeces"].spec().sources] == [("zenodo", "6411789"), ("zenodo", "5887101")]


def test_other_datasets_fall_back_to_releases_module():
    from steb_datasets_style import releases

    for name, corpus in CORPORA.items():
        if name in TARGETS or corpus.sources:
            continue
        assert corpus.spec().sources == tuple(releases.SOURCES.get(name, ()))


def _blog_release(blogs: Path) -> None:
    """41 made-up blog files 1000..1040; sorted by name the hub script puts indices 0, 20, 40 (1000, 1020, 1040) in
    validation."""
    ages = {1000: 15, 1020: 25, 1040: 40}
    for k in range(41):
        bid = 1000 + k
        gender = "female" if bid == 1020 else "male"
        w(
            blogs / f"{bid}.{gender}.{ages.get(bid, 16)}.Student.Aries.xml",
            f"<Blog>\n\n<date>1,May,2004</date>\n<post>\n\n   first line of {bid}\n\tsecond line of "
            f"{bid}\n</post>\n\n</Blog>\n",
        )


def test_blog_hub_zip_unzipped_gives_the_hub_validation_split(tmp_path):
    _blog_release(tmp_path / "blogs" / "data" / "blogs")  # data/blogs.zip of the hub repository, unzipped in data/
    b = load(tmp_path, "blog_age", split="validation")
    assert sorted((r.label, r.text) for r in b.labelled_texts) == [
        ("10s", "first line of 1000"),
        ("10s", "second line of 1000"),
        ("20s", "first line of 1020"),
        ("20s", "second line of 1020"),
        ("30s", "first line of 1040"),
        ("30s", "second line of 1040"),
    ]
    assert b.info["files_in_release"] == 41 and b.info["files_in_split"] == 3 and b.info["split"] == "validation"
    g = load(tmp_path, "blog_gender", per_class=2, split="validation")
    assert Counter(r.label for r in g.labelled_texts) == {"male": 2, "female": 2}  # available male 4, female 2
    # the reference's default: the train files first (1001..1019, 1021..1039), then validation
    both = load(tmp_path, "blog_age")
    assert [r.text for r in both.labelled_texts[:2]] == ["first line of 1001", "second line of 1001"]
    assert both.info["split"] == "train,validation" and len(both.labelled_texts) == 2 * 41
    from steb_datasets_style.readers import blog_age_group

    # the reference's buckets: 30s ends at 47
    assert [blog_age_group(a) for a in (13, 17, 18, 33, 47, 48)] == ["10s", "10s", None, "30s", "30s", None]
    train = load(tmp_path, "blog_age", split="train")
    assert len(train.labelled_texts) == 2 * 38 and {r.label for r in train.labelled_texts} == {"10s"}


def test_blog_hub_rows_follow_the_script_line_rule(tmp_path):
    from steb_datasets_style.readers import hub_builder_rows

    f = tmp_path / "7.female.33.Arts.Leo.xml"
    f.write_bytes(
        b"<Blog>\r\n<date>2,June,2004</date>\r\n<post>\r\n caf\xe9 line\r\n<br> not text\r\n\r\n</post>\r\n</Blog>"
    )
    assert list(hub_builder_rows(f)) == [
        (
            4,
            {
                "text": "caf\xe9 line",
                "date": "2,June,2004",
                "gender": "female",
                "age": 33,
                "job": "Arts",
                "horoscope": "Leo",
            },
        )
    ]


def test_blog_hub_zip_not_unzipped_says_so(tmp_path):
    w(tmp_path / "blogs" / "data" / "blogs.zip", "PK")
    with pytest.raises(Exception, match="not unzipped"):
        load(tmp_path, "blog_age")


def test_blog_schler_option_reads_the_same_folder(tmp_path):
    _blog_release(tmp_path / "blogs" / "blogs")  # unzipped at the top, as steb data get unpacks it
    b = load(tmp_path, "blog_age", release="schler", balanced="false")
    assert Counter(r.label for r in b.labelled_texts) == {"10s": 39, "20s": 1, "30s": 1}  # one post per file, all files


def test_blog_source_is_the_pinned_hub_commit():
    (src,) = CORPORA["blog_age"].spec().sources
    assert (src.kind, src.url, src.revision, src.unpack, src.target) == (
        "hf",
        "barilan/blog_authorship_corpus",
        "728947f6c98ade87aa396004440cb3b58f173cb8",
        ("data/blogs.zip",),
        "blogs",
    )


def test_gede_database_unpacked_at_the_top(tmp_path):
    _gede_db(
        tmp_path / "gede_essay_detection" / "database.db"
    )  # steb data get unpacks database.db.zip at the clone's top
    assert load(tmp_path, "gede_essay_detection").info["file"] == "database.db"
