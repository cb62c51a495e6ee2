"""Every parallel-corpus loader on a tiny fixture in its release layout, plus one malformed fixture each."""

from __future__ import annotations

from pathlib import Path

import pytest

from steb_core import DataValidationError, DatasetNotFoundError, LoadContext, new_manager
from steb_datasets_parallel import gyafc_transfer_set
from steb_datasets_parallel.plugin import parallel_specs

SPECS = {s.name: s for s in parallel_specs()}


def load(name: str, root: Path, seed: int = 0, **options):
    return SPECS[name].loader(LoadContext(name, root, seed=seed, options=options))


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
    assert len(groups) == 16  # 2 domains x 2 directions x 4 lines
    assert {g.style_type for g in groups} == {"Entertainment_Music", "Family_Relationships"}
    assert_aligned(groups, _style, lambda t: (t.split()[1], t.split()[3]))
    assert bundle.info["split"] == "test" and bundle.info["ref"] == 0 and bundle.info["distractors"] is True
    train = load("GYAFC", tmp_path, split="train", distractors="false")
    assert len(train.order_groups) == 8 and all(len(g.anchors) == 2 and g.distractor is None for g in train.order_groups)
    assert all(_style(g.anchors[0]) == "informal" and _style(g.anchors[1]) == "formal" for g in train.order_groups)


def test_gyafc_transfer_set(tmp_path):
    make_gyafc(tmp_path, n=3)
    sources, references = gyafc_transfer_set(tmp_path, "Family_Relationships")
    assert sources == [f"inf Family_Relationships test src{i}" for i in range(3)]
    assert references[2] == tuple(f"FOR Family_Relationships test src2 r{k}" for k in range(4))
    back = gyafc_transfer_set(tmp_path / "GYAFC_Corpus", "Family_Relationships", direction="formal_to_informal", split="tune")
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

def make_synthstel(root: Path, features: dict[str, int], bad_row: int | None = None) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = {"positive": [], "negative": [], "feature": [], "feature_clean": []}
    for feature, n in features.items():
        for i in range(n):
            rows["positive"].append(f"WITH {feature} {i}")
            rows["negative"].append(f"without {feature} {i}")
            rows["feature"].append(f"Uses {feature}")
            rows["feature_clean"].append(feature)
    if bad_row is not None:
        rows["negative"][bad_row] = ""
    (root / "data").mkdir(parents=True, exist_ok=True)
    half = len(rows["positive"]) // 2
    pq.write_table(pa.table({k: v[:half] for k, v in rows.items()}), root / "data" / "train-00000-of-00001.parquet")
    pq.write_table(pa.table({k: v[half:] for k, v in rows.items()}), root / "data" / "test-00000-of-00001.parquet")
    return root


def test_synthstel_register_feature_split(tmp_path):
    make_synthstel(tmp_path, {"formal": 4, "polite": 4, "contractions": 4, "emojis": 4})
    reg = load("SynthSTEL_register", tmp_path)
    feat = load("SynthSTEL_feature", tmp_path)
    assert {g.style_type for g in reg.order_groups} == {"formal", "polite"}
    assert {g.style_type for g in feat.order_groups} == {"contractions", "emojis"}
    assert reg.info["register_features"] == ["formal", "polite"]
    style = lambda t: t.split()[0]  # noqa: E731
    content = lambda t: tuple(t.split()[1:])  # noqa: E731
    assert_aligned(reg.order_groups + feat.order_groups, style, content)
    chosen = load("SynthSTEL_register", tmp_path, register_features="emojis")
    assert {g.style_type for g in chosen.order_groups} == {"emojis"}


def test_synthstel_empty_text(tmp_path):
    make_synthstel(tmp_path, {"formal": 4}, bad_row=1)
    with pytest.raises(DataValidationError) as err:
        load("SynthSTEL_register", tmp_path)
    assert err.value.path.endswith("train-00000-of-00001.parquet") and err.value.record == "row 2" and err.value.field == "negative"


# ------------------------------------------------------------------ StylePTB

def make_styleptb(root: Path) -> Path:
    for code in ("TFU", "ATP", "NAR"):
        write(root / code / "test.tsv", [f"src {code} {i} 's\ttgt {code} {i} 's" for i in range(5)])
    return root


def test_styleptb_kept_transfers_and_tokens_as_released(tmp_path):
    bundle = load("StylePTB", make_styleptb(tmp_path))
    assert {g.style_type for g in bundle.order_groups} == {"TFU", "ATP"}  # NAR (antonyms) is not kept
    assert all(t.endswith(" 's") for g in bundle.order_groups for t in g.alternatives)
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[2])
    assert "NAR" not in bundle.info["transfers"] and len(bundle.info["missing_transfers"]) == 13


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
    assert len(bundle.order_groups) == 6
    assert all(g.anchors[0].startswith("thou") for g in bundle.order_groups)
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[1])


def test_shakespeare_empty_line(tmp_path):
    write(tmp_path / "test.original.nltktok", ["thou 0", "", "thou 2"])
    write(tmp_path / "test.modern.nltktok", ["you 0", "you 1", "you 2"])
    with pytest.raises(DataValidationError) as err:
        load("parallel_shakespeare", tmp_path)
    assert err.value.path.endswith("test.original.nltktok") and err.value.record == "line 2" and err.value.field == "original"


def test_twitter_aae(tmp_path):
    write(tmp_path / "aave_samples.txt", [f"aae {i}" for i in range(5)])
    write(tmp_path / "sae_samples.txt", [f"sae {i}" for i in range(5)])
    bundle = load("twitter_aave_sae", tmp_path)
    assert len(bundle.order_groups) == 5 and all(g.distractor is not None for g in bundle.order_groups)
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[1])
    write(tmp_path / "sae_samples.txt", [f"sae {i}" for i in range(4)])
    with pytest.raises(DataValidationError) as err:
        load("twitter_aave_sae", tmp_path)
    assert err.value.path.endswith("sae_samples.txt") and err.value.record == "line 5" and err.value.field == "sae"


def test_asset_draws_one_simplification_per_source(tmp_path):
    write(tmp_path / "dataset" / "asset.test.orig", [f"complex {i}" for i in range(8)])
    for k in range(10):
        write(tmp_path / "dataset" / f"asset.test.simp.{k}", [f"simple{k} {i}" for i in range(8)])
    a = load("ASSET", tmp_path, seed=3)
    b = load("ASSET", tmp_path, seed=3)
    assert a.order_groups == b.order_groups
    drawn = {g.id.split("|")[0].rsplit(":", 1)[1] for g in a.order_groups}
    assert len(drawn) > 1  # not always the same reference file
    assert sum(a.info["times_each_simplification_file_drawn"]) == 8
    assert_aligned(a.order_groups, lambda t: t.split()[0][:6], lambda t: t.split()[1])
    seeds = {tuple(g.id for g in load("ASSET", tmp_path, seed=s).order_groups) for s in range(4)}
    assert len(seeds) > 1


def test_asset_misaligned_simplification(tmp_path):
    write(tmp_path / "asset.test.orig", ["a", "b", "c"])
    write(tmp_path / "asset.test.simp.0", ["a0", "b0", "c0"])
    write(tmp_path / "asset.test.simp.1", ["a1", "b1"])
    with pytest.raises(DataValidationError) as err:
        load("ASSET", tmp_path)
    assert err.value.field == "asset.test.simp.1" and err.value.record == "line 3"


# ------------------------------------------------------------------ OneStopEnglish

def make_onestop(root: Path, titles: list[str]) -> Path:
    base = root / "Texts-SeparatedByReadingLevel"
    for suffix, folder, name in (("ele", "Ele-Txt", "Elementary"), ("int", "Int-Txt", "Intermediate"), ("adv", "Adv-Txt", "Advanced")):
        for t in titles:
            write(base / folder / f"{t}-{suffix}.txt", [name, f"{suffix} text of {t}.", "Second paragraph."])
    return root


def test_onestop_three_levels(tmp_path):
    make_onestop(tmp_path, ["Amazon", "Banks", "Cats", "Dogs"])
    (tmp_path / "Texts-SeparatedByReadingLevel" / "Adv-Txt" / "Dogs-adv.txt").unlink()
    bundle = load("OneStopEnglishCorpus", tmp_path, distractors="no")
    assert len(bundle.order_groups) == 3 and bundle.info["articles_missing_a_level"] == ["Dogs"]
    for g in bundle.order_groups:
        assert [a.split()[0] for a in g.anchors] == ["ele", "int", "adv"]  # the level header line is dropped
        assert g.anchors[0].endswith("Second paragraph.")
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[3])
    with_d = load("OneStopEnglishCorpus", tmp_path)
    assert all(len(g.anchors) == 2 and len(g.alternatives) == 3 and g.distractor for g in with_d.order_groups)


def test_onestop_empty_article(tmp_path):
    make_onestop(tmp_path, ["Amazon", "Banks"])
    bad = write(tmp_path / "Texts-SeparatedByReadingLevel" / "Int-Txt" / "Banks-int.txt", ["Intermediate", "  "])
    with pytest.raises(DataValidationError) as err:
        load("OneStopEnglishCorpus", tmp_path)
    assert err.value.path == str(bad) and err.value.record == "Banks-int" and err.value.field == "text"


# ------------------------------------------------------------------ graded formality, CDS

def test_graded_formality_five_levels(tmp_path):
    header = "id\tclass\t" + "\t".join(f"level_{i}" for i in range(1, 6))
    rows = [f"g{i}\t{'news' if i % 2 else 'chat'}\t" + "\t".join(f"L{lvl} c{i}" for lvl in range(1, 6)) for i in range(8)]
    write(tmp_path / "graded_formality.tsv", [header, *rows])
    bundle = load("graded_formality", tmp_path, distractors=False)
    assert len(bundle.order_groups) == 8 and {g.style_type for g in bundle.order_groups} == {"news", "chat"}
    assert all(len(g.anchors) == 5 for g in bundle.order_groups)
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: t.split()[1])
    rows[3] = "g3\tnews\tL1 c3\tL2 c3\t\tL4 c3\tL5 c3"
    write(tmp_path / "graded_formality.tsv", [header, *rows])
    with pytest.raises(DataValidationError) as err:
        load("graded_formality", tmp_path)
    assert err.value.field == "level_3" and err.value.record == "row 4 (id g3)"


def test_cds_styles_and_misaligned_labels(tmp_path):
    styles = ["bible", "lyrics", "shakespeare"]
    lines = [(s, i) for s in styles for i in range(3)]
    write(tmp_path / "test.txt", [f"styled {s} {i}" for s, i in lines])
    write(tmp_path / "test.label", [s for s, _ in lines])
    write(tmp_path / "test.paraphrase.txt", [f"plain {s} {i}" for s, i in lines])
    bundle = load("corpus-of-diverse-styles_parallel", tmp_path)
    assert {g.style_type for g in bundle.order_groups} == set(styles) and len(bundle.order_groups) == 9
    assert_aligned(bundle.order_groups, lambda t: t.split()[0], lambda t: (t.split()[1], t.split()[2]))
    write(tmp_path / "test.label", [s for s, _ in lines][:-1])
    with pytest.raises(DataValidationError) as err:
        load("corpus-of-diverse-styles_parallel", tmp_path)
    assert err.value.field == "label" and err.value.record == "line 9"


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
