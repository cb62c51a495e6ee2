"""Every parallel-corpus loader on a tiny fixture in its release layout, plus one malformed fixture each."""

from __future__ import annotations

from pathlib import Path

import pytest

from steb_core import DatasetNotFoundError, DataValidationError, LoadContext, new_manager
from steb_core.testing import check_declared_reads, cut_to_declared
from steb_datasets_parallel import gyafc_transfer_set
from steb_datasets_parallel.plugin import parallel_specs

SPECS = {s.name: s for s in parallel_specs()}


def load(name: str, root: Path, seed: int = 0, **options):
    """Every sequence the reader returns (``per_class=all``) unless asked: the fixtures hold a few per class, fewer than
    the reference's N (at least 25); the construction itself is tested in tests/core/test_parallel_groups.py."""
    return SPECS[name].loader(LoadContext(name, root, seed=seed, options={"per_class": "all", **options}))


def write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def assert_aligned(groups, style_of, content_of):
    """Each anchor's answer has its style but other content; the distractor has the anchors' content."""
    for g in groups:
        anchor_content = {content_of(a) for a in g.anchors}
        assert len(anchor_content) == 1
        for a, j in zip(g.anchors, g.answer):
            assert style_of(g.alternatives[j]) == style_of(a) and content_of(g.alternatives[j]) not in anchor_content
        if g.distractor is not None:
            assert content_of(g.distractor) in anchor_content
            assert style_of(g.distractor) not in {style_of(a) for a in g.anchors}


# ------------------------------------------------------------------ GYAFC


def make_gyafc(root: Path, n: int = 4) -> Path:
    corpus = root / "GYAFC_Corpus"
    for domain in ("Entertainment_Music", "Family_Relationships"):
        d = corpus / domain
        write(d / "train" / "informal", [f"inf {domain} {i}" for i in range(n)])
        write(d / "train" / "formal", [f"FOR {domain} {i}" for i in range(n)])
        for split in ("tune", "test"):
            write(d / split / "informal", [f"inf {domain} {split} src{i}" for i in range(n)])
            write(d / split / "formal", [f"FOR {domain} {split} fsrc{i}" for i in range(n)])
            for k in range(4):
                write(d / split / f"formal.ref{k}", [f"FOR {domain} {split} src{i} r{k}" for i in range(n)])
                write(d / split / f"informal.ref{k}", [f"inf {domain} {split} fsrc{i} r{k}" for i in range(n)])
    return root


def _style(text: str) -> str:
    return "formal" if text.startswith("FOR") else "informal"


def _content(text: str) -> str:
    return text.split()[3] if len(text.split()) > 3 else text


def test_gyafc_test_split_both_directions(tmp_path):
    bundle = load("GYAFC", make_gyafc(tmp_path))
    groups = bundle.order_groups
    assert (
        bundle.info["parallel_items"] == 16
    )  # 2 domains x 2 directions x 4 lines (groups: the shared builder's business)
    assert {g.style_type for g in groups} == {"Entertainment_Music", "Family_Relationships"}
    assert_aligned(groups, _style, lambda t: (t.split()[1], t.split()[3]))
    assert bundle.info["split"] == "test" and bundle.info["ref"] == 0 and bundle.info["distractors"] is True
    train = load("GYAFC", tmp_path, split="train", distractors="false")
    assert train.info["parallel_items"] == 8 and all(
        len(g.anchors) == 2 and g.distractor is None for g in train.order_groups
    )
    assert all(_style(g.anchors[0]) == "informal" and _style(g.anchors[1]) == "formal" for g in train.order_groups)


def test_gyafc_transfer_set(tmp_path):
    make_gyafc(tmp_path, n=3)
    sources, references = gyafc_transfer_set(tmp_path, "Family_Relationships")
    assert sources == [f"inf Family_Relationships test src{i}" for i in range(3)]
    assert references[2] == tuple(f"FOR Family_Relationships test src2 r{k}" for k in range(4))
    back = gyafc_transfer_set(
        tmp_path / "GYAFC_Corpus", "Family_Relationships", direction="formal_to_informal", split="tune"
    )
    assert back.references[0][3] == "inf Family_Relationships tune fsrc0 r3"


def test_gyafc_short_reference_file(tmp_path):
    make_gyafc(tmp_path)
    bad = write(tmp_path / "GYAFC_Corpus" / "Entertainment_Music" / "test" / "formal.ref0", ["FOR x", "FOR y"])
    with pytest.raises(DataValidationError) as err:
        load("GYAFC", tmp_path)
    assert err.value.path == str(bad) and err.value.record == "line 3" and err.value.field == "formal.ref0"


def test_gyafc_missing(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="Tetreault"):
        load("GYAFC", tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetNotFoundError, match="Entertainment_Music"):
        load("GYAFC", tmp_path / "empty")


# ------------------------------------------------------------------ SynthSTEL

#: (feature, feature_clean) as the release spells them: "presence / absence" and a readable name
FORMALITY = ("Formal / Informal", "Formality")
POLITENESS = ("Polite / Impolite", "Politeness")
HUMOR = ("With Humor / Without Humor", "Incorporation of Humor")
SLANG = ("Informal slang / Standard language", "Usage of Informal Slang")  # contains "formal": must not be register
#: two contrasts the release's feature_clean folds into one name (40 feature values, 38 feature_clean names)
SELF_INCLUSIVE = ("Self-focused / Inclusive", "Usage of Self-Focused Perspective or Words")
SELF_YOU = ("Self-focused / You-focused", "Usage of Self-Focused Perspective or Words")


def make_synthstel(root: Path, features: dict[tuple[str, str], int], bad_row: int | None = None) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = {"positive": [], "negative": [], "feature": [], "feature_clean": []}
    for k, ((feature, clean), n) in enumerate(features.items()):
        for i in range(n):
            rows["positive"].append(f"WITH f{k} {i}")
            rows["negative"].append(f"without f{k} {i}")
            rows["feature"].append(feature)
            rows["feature_clean"].append(clean)
    if bad_row is not None:
        rows["negative"][bad_row] = ""
    (root / "data").mkdir(parents=True, exist_ok=True)
    half = len(rows["positive"]) // 2
    pq.write_table(pa.table({k: v[:half] for k, v in rows.items()}), root / "data" / "train-00000-of-00001.parquet")
    pq.write_table(pa.table({k: v[half:] for k, v in rows.items()}), root / "data" / "test-00000-of-00001.parquet")
    return root


def test_synthstel_register_feature_split_by_the_stated_list(tmp_path):
    """Register features are the stated ``feature`` values, matched exactly (case aside): a slang feature whose name
    contains "formal" stays a linguistic feature; the class is ``feature``, so two contrasts that share one
    feature_clean name stay two classes; stated features the release lacks are reported, not silently dropped."""
    make_synthstel(
        tmp_path,
        {FORMALITY: 4, ("polite / impolite", "Politeness"): 4, HUMOR: 4, SLANG: 4, SELF_INCLUSIVE: 3, SELF_YOU: 3},
    )
    with pytest.warns(UserWarning, match="offensive / non-offensive"):
        reg = load("SynthSTEL_register", tmp_path)
    with pytest.warns(UserWarning):
        feat = load("SynthSTEL_feature", tmp_path)
    # classes = feature, lower-cased as the reference's record handler does
    assert {g.style_type for g in reg.order_groups} == {
        "formal / informal",
        "polite / impolite",
        "with humor / without humor",
    }
    assert {g.style_type for g in feat.order_groups} == {
        "informal slang / standard language",
        "self-focused / inclusive",
        "self-focused / you-focused",
    }
    assert reg.info["register_features"] == ["formal / informal", "polite / impolite", "with humor / without humor"]
    assert reg.info["class_column"] == "feature" and reg.info["features_in_release"] == 6
    assert reg.info["register_features_not_found"] == [
        "offensive / non-offensive",
        "with sarcasm / without sarcasm",
        "positive / negative",
        "certain / uncertain",
        "complex / simple",
    ]
    assert reg.info["parallel_items"] == 12 and feat.info["parallel_items"] == 10  # 4+4+4 and 4+3+3 pairs
    style = lambda t: t.split()[0]  # noqa: E731
    content = lambda t: tuple(t.split()[1:])  # noqa: E731
    assert_aligned([*reg.order_groups, *feat.order_groups], style, content)
    chosen = load("SynthSTEL_register", tmp_path, register_features="Incorporation of Humor")  # a feature_clean name
    assert {g.style_type for g in chosen.order_groups} == {"with humor / without humor"}
    assert chosen.info["register_features_not_found"] == []


def test_synthstel_register_list_is_the_eight_feature_values_steb_names():
    """The stated list, written out by hand from STEB's own loader (rrivera1849/STEB steb/loaders/synthstel.py)."""
    from steb_datasets_parallel.synthstel import REGISTER_FEATURES

    assert sorted(REGISTER_FEATURES) == sorted(
        [
            "formal / informal",
            "polite / impolite",
            "offensive / non-offensive",
            "with sarcasm / without sarcasm",
            "positive / negative",
            "with humor / without humor",
            "certain / uncertain",
            "complex / simple",
        ]
    )


def test_synthstel_rows_as_the_reference_reads_them(tmp_path):
    """Issue 37 (steb/loaders/synthstel.py @de04732e): train rows then test rows, [positive, negative] stripped."""
    make_synthstel(tmp_path, {FORMALITY: 4})  # rows 0-1 in train, 2-3 in test
    bundle = load("SynthSTEL_register", tmp_path, distractors="no", register_features="Formal / Informal")
    assert [g.anchors for g in bundle.order_groups[:3]] == [("WITH f0 0", "without f0 0")] * 3
    assert [g.alternatives[0] for g in bundle.order_groups[:3]] == ["WITH f0 1", "WITH f0 2", "WITH f0 3"]


def test_synthstel_empty_text(tmp_path):
    make_synthstel(tmp_path, {FORMALITY: 4}, bad_row=1)
    with pytest.raises(DataValidationError) as err:
        load("SynthSTEL_register", tmp_path)
    assert (
        err.value.path.endswith("train-00000-of-00001.parquet")
        and err.value.record == "row 2"
        and err.value.field == "negative"
    )


# ------------------------------------------------------------------ StylePTB


def make_styleptb(root: Path, n: int = 20) -> Path:
    """Checkout folders <CODE>/{train,valid,test}.tsv: train n, valid 2, test 3 pairs per code."""
    for code in ("TFU", "ATP", "NAR"):
        for split, k in (("train", n), ("valid", 2), ("test", 3)):
            write(
                root / code / f"{split}.tsv", [f"src {code} {split}{i} 's\ttgt {code} {split}{i} 's" for i in range(k)]
            )
    return root


def test_styleptb_kept_transfers_splits_combined_and_tokens_as_released(tmp_path):
    bundle = load("StylePTB", make_styleptb(tmp_path, n=45))  # 45 + 2 + 3 = 50 pairs per code: exactly the minimum
    assert {g.style_type for g in bundle.order_groups} == {"TFU", "ATP"}  # NAR (antonyms) is not kept
    assert bundle.info["parallel_items"] == 100 and bundle.info["splits"] == ["train", "valid", "test"]
    assert bundle.info["pairs_per_transfer"]["TFU"] == 50 and "NAR" not in bundle.info["pairs_per_transfer"]
    # 2 codes x every pair of 50 x (plain + 2 distractor groups)
    assert len(bundle.order_groups) == 2 * 3 * (50 * 49 // 2)
    assert all(t.endswith(" 's") for g in bundle.order_groups for t in g.alternatives)
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[2])
    assert "NAR" not in bundle.info["transfers"] and len(bundle.info["missing_transfers"]) == 13


def test_styleptb_class_below_the_minimum_size_is_left_out_and_named(tmp_path):
    make_styleptb(tmp_path, n=45)
    write(tmp_path / "ATP" / "train.tsv", [f"src ATP train{i}\ttgt ATP train{i}" for i in range(44)])  # 49 pairs
    bundle = load("StylePTB", tmp_path, per_class="auto")  # the minimum class size: Table 15's 50
    assert {g.style_type for g in bundle.order_groups} == {"TFU"}
    assert bundle.info["left_out_below_min_pairs"] == {"ATP": 49} and "50 distinct pairs" in bundle.info["class_rule"]
    assert {g.style_type for g in load("StylePTB", tmp_path, min_pairs=49).order_groups} == {"TFU", "ATP"}
    test_only = load("StylePTB", tmp_path, split="test", min_pairs=2)
    assert test_only.info["parallel_items"] == 6 and {
        t.split()[2] for g in test_only.order_groups for t in g.anchors
    } <= {"test0", "test1", "test2"}
    with pytest.raises(DatasetNotFoundError, match="min_pairs"):
        load("StylePTB", tmp_path, split="test", per_class="auto")


def test_styleptb_kept_codes_are_the_21_minus_antonyms_and_synonyms():
    from steb_datasets_parallel.styleptb import ALL_TRANSFERS, KEPT_TRANSFERS

    assert len(ALL_TRANSFERS) == 21 and len(KEPT_TRANSFERS) == 15
    assert set(KEPT_TRANSFERS) == {
        "IAD",
        "AEM",
        "VEM",
        "ARR",
        "PPR",
        "SBR",
        "MFS",
        "LFS",
        "TFU",
        "TPA",
        "TPR",
        "PTA",
        "ATP",
        "PFB",
        "PBF",
    }


def test_styleptb_line_without_tab(tmp_path):
    make_styleptb(tmp_path)
    bad = write(tmp_path / "ATP" / "test.tsv", ["a\tb", "c\td", "only one field"])
    with pytest.raises(DataValidationError) as err:
        load("StylePTB", tmp_path)
    assert err.value.path == str(bad) and err.value.record == "line 3" and err.value.field == "target"


# ------------------------------------------------------------------ Shakespeare, Twitter AAE, ASSET


def test_shakespeare(tmp_path):
    write(tmp_path / "data" / "test.original.nltktok", [f"thou {i}" for i in range(6)])
    write(tmp_path / "data" / "test.modern.nltktok", [f"you {i}" for i in range(6)])
    bundle = load("parallel_shakespeare", tmp_path, distractors=False)
    assert (
        bundle.info["parallel_items"] == 6
        and bundle.order_groups
        and all(g.distractor is None for g in bundle.order_groups)
    )
    assert all(g.anchors[0].startswith("thou") for g in bundle.order_groups)
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[1])


def test_shakespeare_unchanged_pairs_are_dropped_as_steb_does(tmp_path):
    """A pair whose modern side is the original again (case and spacing aside) has no style difference: dropped
    (STEB's loader does the same; 1,333 of the release's 21,079 pairs), counted in the info; keep_unchanged keeps it."""
    merged = tmp_path / "data" / "align" / "plays" / "merged"
    write(merged / "hamlet_original.snt.aligned", ["thou art 0", "Exeunt .", "thou art 2", "Good  night", "thou art 4"])
    write(merged / "hamlet_modern.snt.aligned", ["you are 0", "exeunt .", "you are 2", "good night", "you are 4"])
    bundle = load("parallel_shakespeare", tmp_path, distractors=False)
    assert bundle.info["parallel_items"] == 3 and bundle.info["unchanged_pairs_dropped"] == 2
    assert bundle.info["line_pairs_per_play"] == {"hamlet": 5}
    assert all("exeunt" not in t.lower() and "night" not in t.lower() for g in bundle.order_groups for t in g.anchors)
    kept = load("parallel_shakespeare", tmp_path, distractors=False, keep_unchanged="true")
    assert kept.info["parallel_items"] == 5 and kept.info["unchanged_pairs_dropped"] == 0


def test_shakespeare_blank_side_is_skipped_and_line_counts_must_match(tmp_path):
    """As the reference loader (@7e3c0424): a pair with a blank side gives no sequence; files of unequal length are
    an error."""
    write(tmp_path / "test.original.nltktok", ["thou 0", "  ", "thou 2"])
    write(tmp_path / "test.modern.nltktok", ["you 0", "you 1", "you 2"])
    bundle = load("parallel_shakespeare", tmp_path)
    assert bundle.info["parallel_items"] == 2 and bundle.info["blank_pairs_dropped"] == 1
    write(tmp_path / "test.modern.nltktok", ["you 0", "you 1"])
    with pytest.raises(DataValidationError) as err:
        load("parallel_shakespeare", tmp_path)
    assert err.value.path.endswith("test.original.nltktok") and "has 3 lines" in str(err.value)


def test_twitter_aae(tmp_path):
    write(tmp_path / "aave_samples.txt", [f"aae {i}" for i in range(5)])
    write(tmp_path / "sae_samples.txt", [f"sae {i}" for i in range(5)])
    bundle = load("twitter_aave_sae", tmp_path)
    assert bundle.info["parallel_items"] == 5 and any(g.distractor is not None for g in bundle.order_groups)
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[1])
    write(tmp_path / "sae_samples.txt", [f"sae {i}" for i in range(4)])
    with pytest.raises(DataValidationError) as err:
        load("twitter_aave_sae", tmp_path)
    assert err.value.path.endswith("sae_samples.txt") and err.value.record == "line 5" and err.value.field == "sae"


def test_asset_simplification_by_sha256_of_the_original(tmp_path):
    """Issue 37 (ASSET/loader.py @29e74df9): one sequence per row, [simplification, original], the simplification being
    number int(sha256(original)) mod 10; ``simplification=random`` is steb's earlier seeded draw."""
    import hashlib

    originals = [f"complex {i}" for i in range(8)]
    write(tmp_path / "dataset" / "asset.test.orig", originals)
    for k in range(10):
        write(tmp_path / "dataset" / f"asset.test.simp.{k}", [f" simple{k} {i} " for i in range(8)])
    a = load("ASSET", tmp_path, seed=3, split="test")
    chosen = [int(hashlib.sha256(o.encode("utf-8")).hexdigest(), 16) % 10 for o in originals]
    plain = [g for g in a.order_groups if g.distractor is None]
    assert [g.anchors for g in plain[:7]] == [(f"simple{chosen[0]} 0", "complex 0")] * 7  # row 0 anchors its 7 pairs
    assert [g.alternatives for g in plain[:7]] == [(f"simple{chosen[j]} {j}", f"complex {j}") for j in range(1, 8)]
    assert a.info["simplification_choice"] == "sha256"
    assert a.order_groups == load("ASSET", tmp_path, seed=9, split="test").order_groups
    seeds = {
        tuple(g.id for g in load("ASSET", tmp_path, seed=s, split="test", simplification="random").order_groups)
        for s in range(4)
    }
    assert len(seeds) > 1
    assert_aligned(a.order_groups, lambda t: t.split()[0][:6], lambda t: t.split()[1])


def test_asset_misaligned_simplification(tmp_path):
    write(tmp_path / "asset.test.orig", ["a", "b", "c"])
    write(tmp_path / "asset.test.simp.0", ["a0", "b0", "c0"])
    write(tmp_path / "asset.test.simp.1", ["a1", "b1"])
    with pytest.raises(DataValidationError) as err:
        load("ASSET", tmp_path, split="test")
    assert err.value.field == "asset.test.simp.1" and err.value.record == "line 3"


def test_asset_combines_validation_and_test_by_default(tmp_path):
    """Issue 15: STEB (like the ASSET paper) uses validation + test; the test split alone has 359 sources, not 400."""
    for split, n in (("valid", 5), ("test", 3)):
        write(tmp_path / "dataset" / f"asset.{split}.orig", [f"complex {split}{i}" for i in range(n)])
        for k in range(10):
            write(tmp_path / "dataset" / f"asset.{split}.simp.{k}", [f"simple{k} {split}{i}" for i in range(n)])
    bundle = load("ASSET", tmp_path)
    assert bundle.info["parallel_items"] == 8 and bundle.info["sources_per_split"] == {"valid": 5, "test": 3}
    assert {t.split()[1][:4] for g in bundle.order_groups for t in g.anchors} == {"vali", "test"}
    assert SPECS["ASSET"].expected == {"order_alignment": {"classes": 1, "per_class": 400, "texts": 400}}
    with pytest.raises(DatasetNotFoundError, match="asset.valid.orig"):
        (tmp_path / "dataset" / "asset.valid.orig").unlink()
        load("ASSET", tmp_path)


# ------------------------------------------------------------------ OneStopEnglish


def make_onestop(root: Path, titles: list[str]) -> Path:
    """The release's layout: Adv-Txt/, Ele-Txt/, and Int-Txt/ twice -- Int-Txt/Int-Txt/ (UTF-8 with a BOM, read by the
    reference) and Int-Txt/ itself (the same texts with a first line "Intermediate")."""
    base = root / "Texts-SeparatedByReadingLevel"
    for suffix, folder, name in (
        ("ele", "Ele-Txt", "Elementary"),
        ("int", "Int-Txt", "Intermediate"),
        ("adv", "Adv-Txt", "Advanced"),
    ):
        for t in titles:
            body = [f"{suffix} text of {t}.", "", f"{suffix} second paragraph of {t}."]
            if suffix == "int":
                write(base / folder / f"{t}-{suffix}.txt", [name, *body])
                path = base / folder / folder / f"{t}-{suffix}.txt"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes("\ufeff".encode() + "".join(f"{line}\n" for line in body).encode())
            else:
                write(base / folder / f"{t}-{suffix}.txt", body)
    return root


def test_onestop_reference_reads_the_int_header_line(tmp_path):
    """Issue 45: the reference's figures read the top-level Int-Txt files, header line "Intermediate" included, so
    the first triplet of every article pairs the advanced first line with that header (articles sorted)."""
    make_onestop(tmp_path, ["Banks", "Amazon"])
    bundle = load("OneStopEnglishCorpus", tmp_path, distractors="no")
    # per article: header + 3 lines at Int against 3 lines at Adv/Ele: index 1 and 2 meet an empty line, index 3
    # exists at Int only, so the one triplet left is the header's
    assert bundle.info["parallel_items"] == 2 and len(bundle.order_groups) == 1
    assert bundle.order_groups[0].anchors == ("adv text of Amazon.", "Intermediate", "ele text of Amazon.")
    assert bundle.order_groups[0].alternatives == ("adv text of Banks.", "Intermediate", "ele text of Banks.")
    nested = load("OneStopEnglishCorpus", tmp_path, int_folder="nested", distractors="no")
    assert nested.info["parallel_items"] == 4 and nested.order_groups[0].anchors[1] == "int text of Amazon."


def test_onestop_reference_sequences_are_line_triplets(tmp_path):
    """Issue 37 (OneStopEnglishCorpus/loader.py @7cca21e6): per article (sorted) and line index, [adv, int, ele] when
    all three lines exist and are non-empty; label 'complexity'; with int_folder=nested, Int read from
    Int-Txt/Int-Txt/ (BOM dropped)."""
    make_onestop(tmp_path, ["Banks", "Amazon", "Cats"])
    base = tmp_path / "Texts-SeparatedByReadingLevel"
    (base / "Adv-Txt" / "Cats-adv.txt").unlink()
    write(
        base / "Ele-Txt" / "Banks-ele.txt",
        ["ele text of Banks.", "", "ele second paragraph of Banks.", "an extra ele line."],
    )
    bundle = load("OneStopEnglishCorpus", tmp_path, int_folder="nested", distractors="no")
    assert bundle.info["parallel_items"] == 4 and bundle.info["articles_missing_a_level"] == ["Cats"]
    amazon = ("adv text of Amazon.", "int text of Amazon.", "ele text of Amazon.")
    assert [g.anchors for g in bundle.order_groups[:3]] == [amazon] * 3
    assert [g.alternatives[0] for g in bundle.order_groups] == [
        "adv second paragraph of Amazon.",
        "adv text of Banks.",
        "adv second paragraph of Banks.",
        "adv text of Banks.",
        "adv second paragraph of Banks.",
        "adv second paragraph of Banks.",
    ]
    assert {g.style_type for g in bundle.order_groups} == {"complexity"}
    top = load("OneStopEnglishCorpus", tmp_path, distractors="no")  # default top: the header shifts Int by one
    assert top.order_groups[0].anchors == ("adv text of Amazon.", "Intermediate", "ele text of Amazon.")


def test_onestop_v2_one_sequence_per_article(tmp_path):
    make_onestop(tmp_path / "OneStopEnglishCorpus", ["Amazon", "Banks", "Cats", "Dogs"])
    (tmp_path / "OneStopEnglishCorpus" / "Texts-SeparatedByReadingLevel" / "Adv-Txt" / "Dogs-adv.txt").unlink()
    name = "OneStopEnglishCorpus.v2"  # reads the OneStopEnglishCorpus folder
    bundle = SPECS[name].loader(LoadContext(name, tmp_path / name, options={"per_class": "all"}))
    assert bundle.info["parallel_items"] == 3 and bundle.info["articles_missing_a_level"] == ["Dogs"]
    plain = [g for g in bundle.order_groups if g.distractor is None]
    assert [a.split()[0] for a in plain[0].anchors] == ["adv", "int", "ele"]
    assert plain[0].anchors[1].endswith("second paragraph of Amazon.")
    assert not plain[0].anchors[1].startswith("Intermediate")
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[3])
    held_out = [g for g in bundle.order_groups if g.distractor is not None]
    assert held_out and all(len(g.anchors) == 2 and len(g.alternatives) == 2 for g in held_out)
    assert "steb" not in SPECS[name].suites


def test_onestop_empty_article_and_undecodable_file(tmp_path):
    make_onestop(tmp_path, ["Amazon", "Banks"])
    base = tmp_path / "Texts-SeparatedByReadingLevel"
    (base / "Int-Txt" / "Int-Txt" / "Banks-int.txt").write_bytes("caf\xe9 text.\n".encode("cp1252"))
    # the reference reads a non-UTF-8 file as empty
    ref = load("OneStopEnglishCorpus", tmp_path, int_folder="nested", distractors="no")
    assert ref.info["files_not_utf8_read_as_empty"] == ["Banks-int.txt"] and ref.info["parallel_items"] == 2
    bad = write(base / "Int-Txt" / "Int-Txt" / "Banks-int.txt", ["  "])
    with pytest.raises(DataValidationError) as err:
        load("OneStopEnglishCorpus.v2", tmp_path)
    assert err.value.path == str(bad) and err.value.record == "Banks-int" and err.value.field == "text"


# ------------------------------------------------------------------ graded formality, CDS


def test_graded_formality_five_levels(tmp_path):
    header = "id\tclass\t" + "\t".join(f"level_{i}" for i in range(1, 6))
    rows = [
        f"g{i}\t{'news' if i % 2 else 'chat'}\t" + "\t".join(f"L{lvl} c{i}" for lvl in range(1, 6)) for i in range(8)
    ]
    write(tmp_path / "graded_formality.tsv", [header, *rows])
    bundle = load("graded_formality", tmp_path, distractors=False)
    assert bundle.info["parallel_items"] == 8 and {g.style_type for g in bundle.order_groups} == {"news", "chat"}
    assert all(len(g.anchors) == 5 for g in bundle.order_groups)
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[1])
    rows[3] = "g3\tnews\tL1 c3\tL2 c3\t\tL4 c3\tL5 c3"
    write(tmp_path / "graded_formality.tsv", [header, *rows])
    with pytest.raises(DataValidationError) as err:
        load("graded_formality", tmp_path)
    assert err.value.field == "level_3" and err.value.record == "row 4 (id g3)"


def test_cds_strap_folder_feeds_three_tasks(tmp_path):
    styles = ["bible", "lyrics", "shakespeare"]
    lines = [(s, i) for s in styles for i in range(3)]
    write(tmp_path / "test.txt", [f"styled {s} {i}" for s, i in lines])
    write(tmp_path / "test.label", [s for s, _ in lines])
    write(tmp_path / "test.paraphrase.txt", [f"plain {s} {i}" for s, i in lines])
    bundle = load("corpus-of-diverse-styles", tmp_path)
    assert {g.style_type for g in bundle.order_groups} == set(styles) and bundle.info["rows"] == 9
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: (t.split()[1], t.split()[2]))
    assert sorted(t.label for t in bundle.labelled_texts) == sorted(s for s, _ in lines)
    assert all(t.text.startswith("styled") for t in bundle.labelled_texts)  # clustering uses the original sentences
    write(tmp_path / "test.label", [s for s, _ in lines][:-1])
    with pytest.raises(DataValidationError) as err:
        load("corpus-of-diverse-styles", tmp_path)
    assert err.value.field == "label" and err.value.record == "line 9"


def test_every_dataset_declares_the_rule_and_each_load_names_its_constructions(tmp_path):
    """Issue 48: the reference's rule is each spec's task default (not ``info["order_alignment_scoring"]``); a load
    of steb's earlier construction names STEL's rule on its bundle, which comes before the spec's."""
    reference, stel = {"order_alignment": {"scoring": "steb-reference"}}, {"order_alignment": {"scoring": "stel"}}
    assert all(spec.task_defaults == reference for spec in SPECS.values())
    make_gyafc(tmp_path / "GYAFC")
    bundle = load("GYAFC", tmp_path / "GYAFC")
    assert bundle.task_defaults == reference and "order_alignment_scoring" not in bundle.info
    earlier = load("GYAFC", tmp_path / "GYAFC", construction="steb-all-pairs/v1")
    assert earlier.task_defaults == stel and earlier.info["construction"] == "steb-all-pairs/v1"
    styles = ["bible", "lyrics"]
    lines = [(s, i) for s in styles for i in range(3)]
    write(tmp_path / "cds" / "test.txt", [f"styled {s} {i}" for s, i in lines])
    write(tmp_path / "cds" / "test.label", [s for s, _ in lines])
    write(tmp_path / "cds" / "test.paraphrase.txt", [f"plain {s} {i}" for s, i in lines])
    assert load("corpus-of-diverse-styles", tmp_path / "cds").task_defaults == reference
    assert load("corpus-of-diverse-styles", tmp_path / "cds", construction="steb-all-pairs/v1").task_defaults == stel


def _cds_hub_files(folder: Path, per_style: int = 6) -> None:
    """The hub copy as `huggingface-cli download billray110/corpus-of-diverse-styles` leaves it: development.csv
    (header text,label,paraphrase; quoted fields with commas) plus README.md and .gitattributes."""
    import csv

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text("---\npretty_name: Corpus of Diverse Styles\n---\n", encoding="utf-8")
    (folder / ".gitattributes").write_text("*.csv filter=lfs diff=lfs merge=lfs -text\n", encoding="utf-8")
    with open(folder / "development.csv", "w", newline="", encoding="utf-8") as handle:
        w = csv.writer(handle)
        w.writerow(["text", "label", "paraphrase"])
        for style in ("bible", "tweets", "switchboard"):
            for i in range(per_style):
                w.writerow([f"styled {style} {i}, with a comma", style, f"plain {style} {i}"])


def test_cds_hub_release_feeds_three_tasks_with_budgets(tmp_path):
    _cds_hub_files(tmp_path / "corpus-of-diverse-styles")
    bundle = load("corpus-of-diverse-styles", tmp_path / "corpus-of-diverse-styles", per_class=4, order_per_class=5)
    assert bundle.info["release"] == "hub billray110/corpus-of-diverse-styles" and bundle.info["rows"] == 18
    counts = {}
    for t in bundle.labelled_texts:
        counts[t.label] = counts.get(t.label, 0) + 1
    assert counts == {"bible": 4, "tweets": 4, "switchboard": 4}
    # the reference's folder N of each task (steb export reads it): the labelled sample's, and order alignment's own
    assert bundle.info["reference_n_per_class"] == {"clustering": 4, "pair_all": 4, "order_alignment": 5}
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: (t.split()[1], t.split()[2].rstrip(",")))
    spec = SPECS["corpus-of-diverse-styles"]
    assert spec.tasks == ("clustering", "pair_all", "order_alignment") and spec.suites == ("steb",)
    assert spec.expected["order_alignment"] == {"classes": 11, "per_class": 400, "texts": 4400}
    assert spec.expected["clustering"] == spec.expected["pair_all"] == {"classes": 11, "per_class": 200, "texts": 2200}
    assert "billray110/corpus-of-diverse-styles" in spec.obtain


def test_cds_hub_csv_with_a_quote_swallowing_rows_is_refused(tmp_path):
    """Issue 41, item 6: one quoted value running over the next two rows read 18 rows as 16 (pyarrow, like pandas,
    keeps the quotes balanced); CDS has one sentence per row, so a value holding a line break is refused."""
    folder = tmp_path / "corpus-of-diverse-styles"
    _cds_hub_files(folder)
    path = folder / "development.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = '"styled bible 2 opens,bible,plain bible 2'
    lines[5] = 'styled bible 4 closes",bible,plain bible 4'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataValidationError) as err:
        load("corpus-of-diverse-styles", folder)
    assert (err.value.path, err.value.record, err.value.field) == (str(path), "row 3 (line 4)", "text")


# ------------------------------------------------------------------ registration


def test_registered_with_catalogue_metadata():
    manager = new_manager(env=False)
    names = set(manager.datasets().names())
    assert set(SPECS) <= names
    for name in ("SynthSTEL_register", "OneStopEnglishCorpus", "ASSET", "graded_formality"):
        assert manager.datasets().get(name).categories == ("register",)
        assert manager.datasets().get(name).content_independence
    assert manager.datasets().get("twitter_aave_sae").categories == ("dialect",)
    assert manager.datasets().get("parallel_shakespeare").categories == ("time",)
    assert manager.datasets().get("StylePTB").extra["per_class_default"] == 50


# ------------------------------------------------------------------ issue 16: releases as published


def test_twitter_aae_from_the_supplementary_archive(tmp_path):
    """The EMNLP 2020 supplement: a zip with EMNLP-AAVE-files/{aave,sae}_samples.txt plus __MACOSX resource forks."""
    import zipfile

    aae = "".join(f"aae {i}\n" for i in range(5))
    sae = "".join(f"sae {i}\n" for i in range(5))
    with zipfile.ZipFile(tmp_path / "2020.emnlp-main.473.OptionalSupplementaryMaterial.zip", "w") as z:
        z.writestr("EMNLP-AAVE-files/aave_samples.txt", aae)
        z.writestr("EMNLP-AAVE-files/sae_samples.txt", sae)
        z.writestr("__MACOSX/EMNLP-AAVE-files/._aave_samples.txt", b"\x00\x05\x16\x07")
    bundle = load("twitter_aave_sae", tmp_path)
    assert bundle.info["parallel_items"] == 5 and bundle.info["read_from"].endswith(".zip")
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[1])
    unpacked = tmp_path / "unpacked"
    write(unpacked / "EMNLP-AAVE-files" / "aave_samples.txt", [f"aae {i}" for i in range(5)])
    write(unpacked / "EMNLP-AAVE-files" / "sae_samples.txt", [f"sae {i}" for i in range(5)])
    assert load("twitter_aave_sae", unpacked).info["read_from"] == "EMNLP-AAVE-files"


def test_twitter_aae_github_repository_alone_says_where_the_aae_side_is(tmp_path):
    write(tmp_path / "sae_samples.txt", [f"sae {i}" for i in range(3)])
    write(tmp_path / "README.md", ["# AAVE/SAE Paired Dataset"])
    with pytest.raises(DatasetNotFoundError, match="only the SAE side.*2020.emnlp-main.473"):
        load("twitter_aave_sae", tmp_path)
    assert "2020.emnlp-main.473" in SPECS["twitter_aave_sae"].obtain


def test_styleptb_reads_fulldata_as_cloned_all_splits_and_the_minimum_class_size(tmp_path):
    """The clone holds fulldata.h16: triples of a numbered code line (``TFU17``), the source and the target (PTB
    tokens, lower case). STEB combines all splits and leaves out a code below 50 pairs (PBF: 7 in the release)."""
    lines = []
    k = 0
    counts = (("TFU", 60), ("NAR", 70), ("NSR", 80), ("ATP", 55), ("PBF", 7), ("IAD", 50), ("ARR", 49))
    for code, n in counts:
        for i in range(n):
            lines += [f"{code}{k}", f"src {code} {i} 's", f"tgt {code} {i} 's"]
            k += 1
    write(tmp_path / "fulldata.h16", lines)
    bundle = load("StylePTB", tmp_path, per_class="auto")  # N = 50 (IAD), the minimum class size 50
    assert bundle.info["read_from"] == "fulldata.h16"
    assert (
        bundle.info["pairs_per_transfer_all_splits"]["TFU"] == 60
        and "NAR" not in bundle.info["pairs_per_transfer_all_splits"]
    )
    assert "NSR" not in bundle.info["pairs_per_transfer_all_splits"]  # WordNet synonyms: dropped by STEB
    assert {g.style_type for g in bundle.order_groups} == {"TFU", "ATP", "IAD"}
    assert bundle.info["left_out_below_min_pairs"] == {"PBF": 7, "ARR": 49}
    assert bundle.info["parallel_items"] == 60 + 55 + 50
    assert len(bundle.order_groups) == 3 * 3 * (50 * 49 // 2)  # the first 50 of each code, every pair, 3 groups each
    # every pair index of TFU can appear (train+valid+test), not only the checkout's test slice 3..5
    seen = {t.split()[2] for g in bundle.order_groups if g.style_type == "TFU" for t in (*g.anchors, *g.alternatives)}
    assert len(seen) > 6
    # split=test follows single_transform_checkout.py: TFU 60 -> valid 0..2, test 3..5; ATP 55 -> valid 0..1, test 2..4
    test = load("StylePTB", tmp_path, split="test", min_pairs=2)
    by_code = {
        c: {t.split()[2] for g in test.order_groups if g.style_type == c for t in (*g.anchors, *g.alternatives)}
        for c in ("TFU", "ATP")
    }
    assert by_code == {"TFU": {"3", "4", "5"}, "ATP": {"2", "3", "4"}}
    assert test.info["left_out_below_min_pairs"] == {"PBF": 1}  # PBF 7: valid 0, test 1
    valid = load("StylePTB", tmp_path, split="valid", min_pairs=2)
    assert {
        t.split()[2] for g in valid.order_groups if g.style_type == "TFU" for t in (*g.anchors, *g.alternatives)
    } == {"0", "1", "2"}


@pytest.mark.realdata
def test_shared_catalogue_rows_of_this_plugin(steb_catalogue):
    """The order-alignment budgets passed to the builder are Table 15's 'per class' column."""
    rows = {
        name: (classes, per_class)
        for (task, name), (classes, per_class, _) in steb_catalogue.items()
        if task == "order_alignment"
    }
    for name, spec in SPECS.items():
        if "steb" in spec.suites and "order_alignment" in spec.tasks:
            exp = spec.expected["order_alignment"]
            assert (exp["classes"], exp["per_class"]) == rows[name], name
            if name != "corpus-of-diverse-styles":
                assert spec.extra["per_class_default"] == rows[name][1], name


def test_steb_suite_pairs_are_the_catalogue_rows():
    """Issue 15: this plugin's (dataset, task) pairs in suite steb; GYAFC stays outside."""
    pairs = {(t, s.name) for s in SPECS.values() if "steb" in s.suites for t in s.tasks_for_suite("steb")}
    order = {
        "ASSET": (1, 400),
        "OneStopEnglishCorpus": (1, 600),
        "StylePTB": (14, 50),
        "SynthSTEL_feature": (32, 200),
        "SynthSTEL_register": (8, 200),
        "corpus-of-diverse-styles": (11, 400),
        "graded_formality": (2, 1000),
        "parallel_shakespeare": (1, 400),
        "twitter_aave_sae": (1, 400),
    }
    assert pairs == {("order_alignment", n) for n in order} | {
        ("clustering", "corpus-of-diverse-styles"),
        ("pair_all", "corpus-of-diverse-styles"),
    }
    for name, (classes, per_class) in order.items():
        assert dict(SPECS[name].expected["order_alignment"]) == {
            "classes": classes,
            "per_class": per_class,
            "texts": classes * per_class,
        }
    assert "steb" not in SPECS["GYAFC"].suites


def test_synthstel_from_a_save_to_disk_folder_and_the_hub_cache(tmp_path, monkeypatch):
    """Issue 16: hub releases load from a datasets.save_to_disk folder and from the local hub cache too."""
    datasets = pytest.importorskip("datasets")
    rows = {"positive": [], "negative": [], "feature": [], "feature_clean": []}
    for feature, clean in (FORMALITY, ("With emojis / Without emojis", "Usage of Emojis")):
        for i in range(4):
            rows["positive"].append(f"WITH {clean} {i}")
            rows["negative"].append(f"without {clean} {i}")
            rows["feature"].append(feature)
            rows["feature_clean"].append(clean)
    half = {k: v[::2] for k, v in rows.items()}
    rest = {k: v[1::2] for k, v in rows.items()}
    datasets.DatasetDict(
        {"train": datasets.Dataset.from_dict(half), "test": datasets.Dataset.from_dict(rest)}
    ).save_to_disk(str(tmp_path / "data" / "SynthSTEL"))
    name = "SynthSTEL_register"
    with pytest.warns(UserWarning, match="sarcasm"):
        ctx = LoadContext(name, LoadContext.resolve_data_dir(name, tmp_path / "data"), options={"per_class": "all"})
        bundle = SPECS[name].loader(ctx)
    assert bundle.info["parallel_items"] == 4 and {g.style_type for g in bundle.order_groups} == {"formal / informal"}
    # the hub cache: datasets--StyleDistance--synthstel/snapshots/<rev>/data/{train,test}-*.parquet, refs/main -> <rev>
    import pyarrow as pa
    import pyarrow.parquet as pq

    cache = tmp_path / "hf" / "hub"
    snap = cache / "datasets--StyleDistance--synthstel" / "snapshots" / "abc123"
    (snap / "data").mkdir(parents=True)
    pq.write_table(pa.table(half), snap / "data" / "train-00000-of-00001.parquet")
    pq.write_table(pa.table(rest), snap / "data" / "test-00000-of-00001.parquet")
    (cache / "datasets--StyleDistance--synthstel" / "refs").mkdir()
    (cache / "datasets--StyleDistance--synthstel" / "refs" / "main").write_text("abc123", encoding="utf-8")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    with pytest.warns(UserWarning):
        cached = SPECS["SynthSTEL_feature"].loader(
            LoadContext("SynthSTEL_feature", tmp_path / "nowhere" / "SynthSTEL_feature", options={"per_class": "all"})
        )
    assert {g.style_type for g in cached.order_groups} == {"with emojis / without emojis"}


def test_asset_hub_copy_validation_and_test(tmp_path):
    """The hub copy facebook/asset as downloaded: <config>/<split>-*.parquet with columns original, simplifications."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for split, n in (("validation", 4), ("test", 3)):
        folder = tmp_path / "simplification"
        folder.mkdir(exist_ok=True)
        pq.write_table(
            pa.table(
                {
                    "original": [f"complex {split}{i}" for i in range(n)],
                    "simplifications": [[f"simple{k} {split}{i}" for k in range(10)] for i in range(n)],
                }
            ),
            folder / f"{split}-00000-of-00001.parquet",
        )
    (tmp_path / "ratings").mkdir()
    pq.write_table(
        pa.table({"original": ["x"], "simplification": ["y"]}), tmp_path / "ratings" / "full-00000-of-00001.parquet"
    )
    bundle = load("ASSET", tmp_path)
    assert bundle.info["release"] == "hub facebook/asset" and bundle.info["sources_per_split"] == {
        "valid": 4,
        "test": 3,
    }
    assert_aligned(bundle.order_groups, lambda t: t.split()[0][:6], lambda t: t.split()[1])


def test_onestop_two_files_for_one_article_level_are_refused(tmp_path):
    """Issue 20: a second file naming the same article and level used to replace the first silently."""
    make_onestop(tmp_path, ["Amazon", "Banks"])
    write(tmp_path / "Texts-SeparatedByReadingLevel" / "Int-Txt" / "Int-Txt" / "Banks-INT.txt", ["another text."])
    with pytest.raises(DataValidationError, match="article 'Banks'") as err:
        load("OneStopEnglishCorpus", tmp_path, int_folder="nested")
    assert err.value.path.endswith("Int-Txt") and err.value.field == "article" and err.value.record == "Banks-int.txt"
    write(tmp_path / "Texts-SeparatedByReadingLevel" / "Int-Txt" / "Banks-INT.txt", ["Intermediate", "another."])
    with pytest.raises(DataValidationError, match="article 'Banks'"):  # the default reads the top-level folder
        load("OneStopEnglishCorpus", tmp_path)


def test_shakespeare_from_a_cocoxu_clone(tmp_path):
    """Xu et al.'s own release as cloned: data/align/plays/merged/<play>_{original,modern}.snt.aligned."""
    merged = tmp_path / "data" / "align" / "plays" / "merged"
    for play, n in (("hamlet", 4), ("lear", 3)):
        write(merged / f"{play}_original.snt.aligned", [f"thou {play} {i}" for i in range(n)])
        write(merged / f"{play}_modern.snt.aligned", [f"you {play} {i}" for i in range(n)])
    write(tmp_path / "data" / "align" / "plays" / "notmerged" / "ignored_original.snt.aligned", ["thou x"])
    bundle = load("parallel_shakespeare", tmp_path, distractors=False)
    assert bundle.info["parallel_items"] == 7 and bundle.info["plays"] == ["hamlet", "lear"]
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: " ".join(t.split()[1:]))
    only = load("parallel_shakespeare", tmp_path, distractors=False, plays="lear")
    assert only.info["parallel_items"] == 3
    with pytest.raises(DataValidationError, match="does not have"):
        load("parallel_shakespeare", tmp_path, plays="macbeth")
    (merged / "lear_modern.snt.aligned").unlink()
    with pytest.raises(DataValidationError, match="no modern counterpart"):
        load("parallel_shakespeare", tmp_path)


def test_shakespeare_default_is_every_play_of_merged_sorted(tmp_path):
    """STEB §C and the reference loader (@7e3c0424): every <play>_original.snt.aligned of merged/ in sorted order, lines
    stripped, [original, modern]; harsh19's split files are read only when asked for with option split."""
    merged = tmp_path / "data" / "align" / "plays" / "merged"
    plays = {"msnd": 2, "hamlet": 4, "lear": 3}
    for play, n in plays.items():
        write(merged / f"{play}_original.snt.aligned", [f" thou {play} {i} " for i in range(n)])
        write(merged / f"{play}_modern.snt.aligned", [f"you {play} {i}" for i in range(n)])
    write(tmp_path / "data" / "align" / "plays_list", ["msnd", "lear"])  # not what the reference reads
    write(tmp_path / "data" / "test.original.nltktok", [f"thou harsh {i}" for i in range(5)])
    write(tmp_path / "data" / "test.modern.nltktok", [f"you harsh {i}" for i in range(5)])
    bundle = load("parallel_shakespeare", tmp_path, distractors="no")
    assert bundle.info["parallel_items"] == 9 and bundle.info["plays"] == ["hamlet", "lear", "msnd"]
    assert bundle.info["line_pairs_per_play"] == {"hamlet": 4, "lear": 3, "msnd": 2}
    assert bundle.info["release"] == "cocoxu/Shakespeare clone"
    assert bundle.order_groups[0].anchors == ("thou hamlet 0", "you hamlet 0")
    assert bundle.order_groups[-1].alternatives == ("thou msnd 1", "you msnd 1")
    harsh = load("parallel_shakespeare", tmp_path, split="test")
    assert harsh.info["parallel_items"] == 5 and harsh.info["release"].startswith("harsh19 test split")


# ------------------------------------------------------------------ what steb data get fetches (issue 45)


def _synthstel(folder: Path) -> None:
    make_synthstel(folder, {FORMALITY: 4, SLANG: 4})
    write(folder / "README.md", ["---", "license: mit", "---"])


def _styleptb_clone(folder: Path) -> None:
    write(folder / "fulldata.h16", [x for i in range(6) for x in (f"TFU{i}", f"src TFU {i}", f"tgt TFU {i}")])


def _shakespeare_clone(folder: Path) -> None:
    merged = folder / "data" / "align" / "plays" / "merged"
    for play in ("hamlet", "lear"):
        write(merged / f"{play}_original.snt.aligned", [f"thou {play} {i}" for i in range(3)])
        write(merged / f"{play}_modern.snt.aligned", [f"you {play} {i}" for i in range(3)])
    write(folder / "data" / "align" / "plays" / "notmerged" / "ignored_original.snt.aligned", ["thou x"])
    write(folder / "README.md", ["# Shakespeare"])


def _asset_clone(folder: Path) -> None:
    for split in ("valid", "test"):
        write(folder / "dataset" / f"asset.{split}.orig", [f"complex {split}{i}" for i in range(3)])
        for k in range(10):
            write(folder / "dataset" / f"asset.{split}.simp.{k}", [f"simple{k} {split}{i}" for i in range(3)])
    write(folder / "human_ratings" / "ratings.csv", ["original,simplification"])


#: dataset -> (a fixture of its release as cloned or downloaded, written into ROOT/<source target>, load options)
DATA_GET_CASES = {
    "SynthSTEL_register": (_synthstel, {"register_features": "Formal / Informal"}),
    "SynthSTEL_feature": (_synthstel, {"register_features": "Formal / Informal"}),
    "StylePTB": (_styleptb_clone, {"min_pairs": 2}),
    "parallel_shakespeare": (_shakespeare_clone, {}),
    "OneStopEnglishCorpus": (lambda f: make_onestop(f, ["Amazon", "Banks"]), {}),
    "OneStopEnglishCorpus.v2": (lambda f: make_onestop(f, ["Amazon", "Banks"]), {}),
    "ASSET": (_asset_clone, {}),
    "corpus-of-diverse-styles": (_cds_hub_files, {}),
}


def test_every_git_and_hub_dataset_of_the_plugin_has_a_data_get_case():
    declared = {
        n
        for n, s in SPECS.items()
        if s.sources and all(src.kind in ("git", "hf") and src.files and not src.unpack for src in s.sources)
    }
    assert declared == set(DATA_GET_CASES)


@pytest.mark.parametrize("name", sorted(DATA_GET_CASES))
def test_loader_reads_only_what_data_get_fetches(tmp_path, name):
    """Issue 45: on the fixture as ``steb data get`` leaves it (files the sources do not declare removed), the loader
    loads, and opens and lists nothing its sources do not declare."""
    writer, options = DATA_GET_CASES[name]
    spec = SPECS[name]
    writer(tmp_path / (spec.sources[0].target or name))
    cut_to_declared(spec, tmp_path)
    reads = check_declared_reads(spec, tmp_path, options={"per_class": "all", "distractors": "no", **options})
    assert reads.opened, name
