"""STEL / STEL-or-Content loaders: the real release samples, malformed fixtures, sampling, registration."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from steb_core import DatasetNotFoundError, DataValidationError, LoadContext, new_manager
from steb_datasets_stel.plugin import stel_specs
from steb_datasets_stel.stel import stel_reference_items

SPECS = {s.name: s for s in stel_specs()}
HEADER = [
    "",
    "Anchor 1",
    "Anchor 2",
    "Alternative 1.1",
    "Alternative 1.2",
    "Correct Alternative",
    "ID",
    "# Votes out of 5 for Correct Alternative",
    "style type",
]


def _shared_stel() -> Path:
    """``../shared/data/stel`` beside the repository root (the folder holding ``steb_core``)."""
    for parent in Path(__file__).resolve().parents:
        if (parent / "steb_core").is_dir():
            candidate = parent.parent / "shared" / "data" / "stel"
            if candidate.is_dir():
                return candidate
            break
    pytest.skip("../shared/data/stel is absent")


def _load(name: str, root: Path, seed: int = 0, **options):
    return SPECS[name].loader(LoadContext(name, root, seed=seed, options=options))


def _csv_rows(path: Path) -> list[dict[str, str]]:
    """Independent reader (stdlib csv on the raw file) used as the reference."""
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


# ---------------------------------------------------------------- real data


@pytest.mark.realdata
def test_register_quadruples_follow_official_order_ids_and_answers():
    root = _shared_stel()
    bundle = _load("STEL_register_official", root)
    expected = _csv_rows(root / "quad_stel-dimension_formal-100_sample.tsv") + _csv_rows(
        root / "quad_stel-dimension_simple-100_sample.tsv"
    )
    groups = bundle.order_groups
    assert [g.id for g in groups] == [r["ID"] for r in expected]
    for g, r in zip(groups, expected):
        assert g.anchors == (r["Anchor 1"], r["Anchor 2"])
        assert g.alternatives == (r["Alternative 1.1"], r["Alternative 1.2"])
        assert g.answer == ((0, 1) if r["Correct Alternative"] == "1" else (1, 0))
        assert g.style_type == r["style type"] and g.distractor is None
    assert bundle.info["instances_per_style_type"] == {"formality": 100, "simplicity": 100}
    assert bundle.info["per_class"] is None  # the official datasets keep every instance


@pytest.mark.realdata
def test_feature_default_types_and_all():
    root = _shared_stel()
    bundle = _load("STEL_feature_official", root)
    assert bundle.info["instances_per_style_type"] == {"contraction": 100, "emotives": 200, "nbr_substitution": 100}
    everything = _load("STEL_feature_official", root, style_types="all")
    assert set(everything.info["style_types"]) == {"contraction", "emotives", "nbr_substitution", "em-subj-pronoun"}
    assert not {"formality", "simplicity"} & set(everything.info["style_types"])


@pytest.mark.realdata
def test_em_subj_pronoun_quoted_newlines():
    """The file has 500 physical data lines but 100 instances: every text ends in a quoted newline."""
    root = _shared_stel()
    path = root / "quad_questions_em-subj-pronoun_100.tsv"
    physical = path.read_text(encoding="utf-8").count("\n") - 1  # minus the header line
    assert physical == 500
    bundle = _load("STEL_feature_official", root, style_types="em-subj-pronoun")
    groups = bundle.order_groups
    assert len(groups) == 100 == len(_csv_rows(path))
    assert all(t.endswith("\n") for g in groups for t in (*g.anchors, *g.alternatives))
    assert groups[1].anchors[0].startswith("Em reduced to 125 papers")
    assert bundle.info["instances_with_votes"] == 0  # the release writes '-'


@pytest.mark.realdata
def test_stel_or_content_is_the_official_construction():
    root = _shared_stel()
    bundle = _load("STEL-or-Content_register", root)
    expected = _csv_rows(root / "quad_stel-dimension_formal-100_sample.tsv") + _csv_rows(
        root / "quad_stel-dimension_simple-100_sample.tsv"
    )
    for g, r in zip(bundle.order_groups, expected, strict=True):
        match = r["Alternative 1.1"] if r["Correct Alternative"] == "1" else r["Alternative 1.2"]
        assert g.anchors == (r["Anchor 1"],)
        assert g.alternatives == (match,) and g.answer == (0,)
        assert g.distractor == r["Anchor 2"] and g.id == r["ID"]
    assert SPECS["STEL-or-Content_register"].content_independence
    feat = _load("STEL-or-Content_feature", root)
    assert len(feat.order_groups) == 400


@pytest.mark.realdata
def test_triple_distractor_variant():
    root = _shared_stel()
    bundle = _load("STEL_register_official", root, variant="triple-distractor")
    r = _csv_rows(root / "quad_stel-dimension_formal-100_sample.tsv")[0]
    g = bundle.order_groups[0]
    assert g.anchors == (r["Anchor 1"],) and g.distractor == r["Anchor 2"]
    assert g.answer == ((0,) if r["Correct Alternative"] == "1" else (1,))


# ---------------------------------------------------------------- fixtures


def _write(path: Path, rows: list[list[str]], header: list[str] = HEADER) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _row(i: int, style: str, correct: str = "1") -> list[str]:
    return [str(i), f"a1 {i}", f"A2 {i}", f"s1 {i}", f"S2 {i}", correct, f"QQ_{style}-{i}", "", style]


def test_release_layout_and_budget_sampling(tmp_path):
    _write(
        tmp_path / "dimensions" / "quad_stel-dimension_formal-100_sample.tsv",
        [_row(i, "formality", "12"[i % 2]) for i in range(10)],
    )
    _write(
        tmp_path / "dimensions" / "quad_stel-dimension_simple-100_sample.tsv", [_row(i, "simplicity") for i in range(3)]
    )
    _write(
        tmp_path / "characteristics" / "quad_questions_char_contraction.tsv", [_row(i, "contraction") for i in range(4)]
    )
    a = _load("STEL_register_official", tmp_path, seed=1, per_class=4)
    b = _load("STEL_register_official", tmp_path, seed=1, per_class=4)
    ids = [g.id for g in a.order_groups]
    assert ids == [g.id for g in b.order_groups]
    assert a.info["instances_per_style_type"] == {"formality": 4, "simplicity": 3}
    formal = [int(i.split("-")[-1]) for i in ids if "formality" in i]
    assert formal == sorted(formal)  # official order kept after sampling
    other_seeds = {
        tuple(g.id for g in _load("STEL_register_official", tmp_path, seed=s, per_class=4).order_groups)
        for s in range(2, 8)
    }
    assert len(other_seeds | {tuple(ids)}) > 1  # the draw depends on the seed
    assert a.info["per_class"] == 4 and a.info["seed"] == 1
    assert len(_load("STEL_register_official", tmp_path, per_class="all").order_groups) == 13
    feat = _load("STEL_feature_official", tmp_path)
    assert feat.info["missing_style_types"] == ["emotives", "nbr_substitution"]


def test_duplicate_ids_from_sample_and_full_file_kept_once(tmp_path):
    _write(
        tmp_path / "dimensions" / "_quad_stel-dimensions_formal-815_complex-815.tsv",
        [_row(i, "formality") for i in range(5)],
    )
    _write(
        tmp_path / "dimensions" / "quad_stel-dimension_formal-100_sample.tsv", [_row(i, "formality") for i in range(2)]
    )
    bundle = _load("STEL_register_official", tmp_path)
    assert len(bundle.order_groups) == 5 and bundle.info["duplicate_ids_skipped"] == 2


def test_duplicate_id_with_other_content_is_refused(tmp_path):
    """Issue 20: an ID repeated with a flipped answer must not be dropped silently (the first would win)."""
    _write(
        tmp_path / "dimensions" / "_quad_stel-dimensions_formal-815_complex-815.tsv",
        [_row(i, "formality") for i in range(5)],
    )
    flipped = _row(1, "formality", correct="2")
    path = _write(
        tmp_path / "dimensions" / "quad_stel-dimension_formal-100_sample.tsv", [_row(0, "formality"), flipped]
    )
    with pytest.raises(DataValidationError, match="conflicting ID 'QQ_formality-1'") as err:
        _load("STEL_register_official", tmp_path)
    assert err.value.path == str(path) and err.value.record == "row 2" and err.value.field == "ID"


def test_bad_correct_alternative_names_file_record_field(tmp_path):
    path = _write(
        tmp_path / "quad_questions_char_contraction.tsv", [_row(0, "contraction"), _row(1, "contraction", "3")]
    )
    with pytest.raises(DataValidationError) as err:
        _load("STEL_feature_official", tmp_path)
    e = err.value
    assert (
        e.path == str(path)
        and e.field == "Correct Alternative"
        and "row 2" in str(e.record)
        and "QQ_contraction-1" in str(e.record)
    )


def test_empty_text_and_missing_column(tmp_path):
    row = _row(0, "formality")
    row[3] = "  "
    _write(tmp_path / "quad_a.tsv", [row])
    with pytest.raises(DataValidationError) as err:
        _load("STEL_register", tmp_path)
    assert err.value.field == "Alternative 1.1" and err.value.record.startswith("row 1")
    header = [h for h in HEADER if h != "ID"]
    _write(
        tmp_path / "quad_a.tsv", [[c for j, c in enumerate(_row(0, "formality")) if HEADER[j] != "ID"]], header=header
    )
    with pytest.raises(DataValidationError, match="missing column"):
        _load("STEL_register", tmp_path)


def test_quote_swallowing_two_rows_is_refused(tmp_path):
    """Issue 41, item 6: a quote opened in row 5's Anchor 1 and closed in row 7's turned 30 instances into 28,
    silently (row 5 took row 7's ID). STEL has one instance per line; a sentence may only end with a newline
    (em-subj-pronoun)."""
    lines = ["\t".join(HEADER)] + ["\t".join(_row(i, "formality")) for i in range(30)]
    lines[5] = lines[5].replace("a1 4", '"a1 4 opens')
    lines[7] = lines[7].replace("a1 6", 'a1 6 closes"')
    path = tmp_path / "quad_stel-dimension_formal-100_sample.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataValidationError) as err:
        _load("STEL_register_official", tmp_path)
    assert (err.value.path, err.value.record, err.value.field) == (str(path), "row 5 (line 6)", "Anchor 1")
    assert "line 8" in str(err.value)


def test_missing_data_dir_says_what_to_download(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="nlpsoc/STEL"):
        _load("STEL_register", tmp_path / "absent")
    with pytest.raises(DatasetNotFoundError, match="no STEL sentence pairs"):
        _load("STEL_register", tmp_path)
    with pytest.raises(ValueError, match="unknown variant"):
        _load("STEL_register_official", tmp_path, variant="pentuple")


def test_registered_through_entry_point():
    manager = new_manager(env=False)
    names = set(manager.datasets().names())
    assert {
        "STEL_register",
        "STEL_feature",
        "STEL_register_official",
        "STEL_feature_official",
        "STEL-or-Content_register",
        "STEL-or-Content_feature",
    } <= names
    spec = manager.datasets().get("STEL_register")
    assert spec.tasks == ("order_alignment",) and spec.suites == ("steb",) and spec.categories == ("register",)
    assert spec.expected == {"order_alignment": {"classes": 2, "per_class": 392, "texts": 784}}
    assert manager.datasets().get("STEL_feature").expected == {
        "order_alignment": {"classes": 3, "per_class": 200, "texts": 600}
    }
    for name in (
        "STEL_register_official",
        "STEL_feature_official",
        "STEL-or-Content_register",
        "STEL-or-Content_feature",
    ):
        assert manager.datasets().get(name).suites == ("stel",), name  # issue 15: not in the steb suite
    assert "public" in spec.size and "196" in spec.size  # what the public release can give is stated


# ---------------------------------------------------------------- STEB construction


def _real_row(i: int, style: str, tokens: tuple[str, str], a1_marked: bool, s1_marked: bool) -> list[str]:
    """A row in the release's exact form: ID ``QQ_<tokA1>-<n>-<tokA2>-<n>_<tokS1>-<m>-<tokS2>-<m>--<0|1>``."""
    plain, marked = tokens
    a = (marked, plain) if a1_marked else (plain, marked)
    s = (marked, plain) if s1_marked else (plain, marked)
    m = i + 50
    texts = {t: f"{'MARKED' if t == marked else 'plain'} text {n}" for t, n in ((plain, i), (marked, i))}
    alt = {t: f"{'MARKED' if t == marked else 'plain'} other {m}" for t in (plain, marked)}
    correct = "1" if a1_marked == s1_marked else "2"
    qid = f"QQ_{a[0]}-{i}-{a[1]}-{i}_{s[0]}-{m}-{s[1]}-{m}--{int(correct == '2')}"
    return [str(i), texts[a[0]], texts[a[1]], alt[s[0]], alt[s[1]], correct, qid, "-", style]


def test_steb_construction_orients_pairs_by_id_and_uses_the_shared_builder(tmp_path):
    rows = [_real_row(i, "formality", ("i", "f"), a1_marked=i % 2 == 0, s1_marked=i % 3 == 0) for i in range(6)]
    _write(tmp_path / "dimensions" / "quad_stel-dimension_formal-100_sample.tsv", rows)
    simple = [_real_row(i, "simplicity", ("c", "s-t2"), a1_marked=i % 2 == 1, s1_marked=True) for i in range(4)]
    _write(tmp_path / "dimensions" / "quad_stel-dimension_simple-100_sample.tsv", simple)
    bundle = _load("STEL_register", tmp_path, per_class="all")
    assert bundle.info["stel_construction"].startswith("STEB") and bundle.info["construction"] == "steb-reference/v1"
    assert bundle.info["sentence_pairs"] == 20
    groups = bundle.order_groups
    assert {g.style_type for g in groups} == {"formality", "simplicity"}
    for g in groups:  # sequences [more-style, less-style]: the plain group's anchors are (MARKED, plain)
        if g.distractor is None:
            assert [a.split()[0] for a in g.anchors] == ["MARKED", "plain"] and g.answer == (0, 1)
        for anchor, pos in zip(g.anchors, g.answer):
            assert anchor.split()[0] == g.alternatives[pos].split()[0]
        if g.distractor is not None:  # same content as the anchor, the other style
            assert (
                g.distractor.split()[0] != g.anchors[0].split()[0]
                and g.distractor.split()[-1] == g.anchors[0].split()[-1]
            )
    assert len(groups) == 3 * (12 * 11 // 2 + 8 * 7 // 2)  # every pair of a style type, plain + two distractor groups


def test_each_dataset_declares_the_rule_its_groups_are_scored_by(tmp_path):
    """Issue 48: the STEB-construction datasets declare the reference's rule as a task default, STEL's own instances
    STEL's; a load of steb's earlier construction names STEL's on its bundle (as ``info`` did before)."""
    reference, stel = {"order_alignment": {"scoring": "steb-reference"}}, {"order_alignment": {"scoring": "stel"}}
    for name, spec in SPECS.items():
        assert spec.task_defaults == (reference if name in ("STEL_register", "STEL_feature") else stel), name
    rows = [_real_row(i, "formality", ("i", "f"), a1_marked=i % 2 == 0, s1_marked=i % 3 == 0) for i in range(6)]
    _write(tmp_path / "dimensions" / "quad_stel-dimension_formal-100_sample.tsv", rows)
    bundle = _load("STEL_register", tmp_path, per_class="all")
    assert bundle.task_defaults == reference and "order_alignment_scoring" not in bundle.info
    earlier = _load("STEL_register", tmp_path, per_class="all", construction="steb-all-pairs/v1")
    assert earlier.task_defaults == stel and earlier.info["construction"] == "steb-all-pairs/v1"
    official = _load("STEL_register_official", tmp_path)
    assert official.task_defaults == {} and "order_alignment_scoring" not in official.info  # the spec's: STEL's


def test_steb_construction_reads_pairs_as_the_reference(tmp_path):
    """Issue 37 (steb/loaders/stel.py @4defec1c): sequences [more-style, less-style] from the ID, anchor pair then
    alternative pair, a pair seen before for its style type dropped, files in sorted name order, other types skipped."""
    _write(
        tmp_path / "characteristics" / "quad_questions_char_substitution.tsv",
        [
            [
                "0",
                "plain 1",
                "L33T 1",
                "L33T 2",
                "plain 2",
                "2",
                "QQ_norm-1-leet-1_leet-2-norm-2--1",
                "-",
                "nbr_substitution",
            ],
            [
                "1",
                "L33T 2",
                "plain 2",
                "plain 3",
                "L33T 3",
                "2",
                "QQ_leet-2-norm-2_norm-3-leet-3--0",
                "-",
                "nbr_substitution",
            ],
        ],
    )
    _write(
        tmp_path / "characteristics" / "quad_questions_char_emotives.tsv",
        [
            [
                "0",
                "smile :)",
                "smile \U0001f600",
                "wink ;)",
                "wink \U0001f609",
                "1",
                "QQ_emote12emoji12_emote7emoji7--0",
                "-",
                "emotives",
            ],
            [
                "1",
                "x",
                "y",
                "z",
                "w",
                "1",
                "QQ_sae-1-em-subj-pronoun-1_sae-2-em-subj-pronoun-2--0",
                "-",
                "em-subj-pronoun",
            ],
        ],
    )
    _write(
        tmp_path / "characteristics" / "quad_questions_char_contraction.tsv",
        [
            [
                "0",
                "it is",
                "it's",
                "we'd",
                "we would",
                "2",
                "QQ_wiki-4-contraction-4_contraction-9-wiki-9--1",
                "-",
                "contraction",
            ]
        ],
    )
    items, info = stel_reference_items(tmp_path, "feature")
    assert [(i.style_type, i.texts) for i in items] == [
        ("contraction", ("it's", "it is")),
        ("contraction", ("we'd", "we would")),
        ("emotives", ("smile :)", "smile \U0001f600")),
        ("emotives", ("wink ;)", "wink \U0001f609")),
        ("nbr_substitution", ("L33T 1", "plain 1")),
        ("nbr_substitution", ("L33T 2", "plain 2")),
        ("nbr_substitution", ("L33T 3", "plain 3")),
    ]
    assert info["sentence_pairs_repeated"] == 1  # (L33T 2, plain 2) again in row 1
    bundle = _load("STEL_feature", tmp_path, per_class=2)  # the first 2 pairs of each style type, every pair of them
    assert [(g.style_type, g.anchors, g.alternatives) for g in bundle.order_groups if g.distractor is None] == [
        ("contraction", ("it's", "it is"), ("we'd", "we would")),
        ("emotives", ("smile :)", "smile \U0001f600"), ("wink ;)", "wink \U0001f609")),
        ("nbr_substitution", ("L33T 1", "plain 1"), ("L33T 2", "plain 2")),
    ]


@pytest.mark.realdata
def test_steb_construction_on_the_real_release():
    root = _shared_stel()
    bundle = _load("STEL_register", root)
    counts = {}
    for g in bundle.order_groups:
        counts[g.style_type] = counts.get(g.style_type, 0) + 1
    assert counts == {"formality": 3 * 196 * 195 // 2, "simplicity": 3 * 196 * 195 // 2}  # N = min(196, 197)
    assert bundle.info["sentence_pairs"] == 393  # what the 100-instance public samples hold (196 + 197 sentence pairs)
    feat = _load("STEL_feature", root)
    assert {g.style_type for g in feat.order_groups} == {"contraction", "nbr_substitution", "emotives"}
    assert feat.info["class_counts_available"] == {"contraction": 101, "emotives": 200, "nbr_substitution": 100}


def test_id_half_without_both_sides_is_refused(tmp_path):
    row = _real_row(0, "formality", ("i", "f"), a1_marked=True, s1_marked=True)
    row[6] = "QQ_x-0-f-0_f-50-i-50--0"  # the anchor half names no informal sentence
    path = _write(
        tmp_path / "quad_stel-dimension_formal-100_sample.tsv",
        [_real_row(1, "formality", ("i", "f"), True, False), row],
    )
    with pytest.raises(DataValidationError, match="does not name one more-formality") as err:
        _load("STEL_register", tmp_path)
    assert err.value.path == str(path) and err.value.field == "ID" and err.value.record.startswith("row 2")


def test_data_dir_pointing_straight_at_the_tsv_folder(tmp_path):
    """Issue 16: `--data-dir` at the folder of TSVs (ROOT/STEL_register does not exist) works."""
    _write(
        tmp_path / "quad_questions_char_contraction.tsv",
        [_real_row(i, "contraction", ("wiki", "ction"), i % 2 == 0, i % 3 == 0) for i in range(4)],
    )
    name = "STEL_feature"
    ctx = LoadContext(name, LoadContext.resolve_data_dir(name, tmp_path), options={"per_class": "all"})
    bundle = SPECS[name].loader(ctx)
    assert {g.style_type for g in bundle.order_groups} == {"contraction"}


def test_clone_layout_as_stel_folder(tmp_path):
    """`git clone https://github.com/nlpsoc/STEL` kept as ROOT/STEL: Data/STEL/{dimensions,characteristics}/."""
    clone = tmp_path / "STEL"
    _write(
        clone / "Data" / "STEL" / "characteristics" / "quad_questions_char_substitution.tsv",
        [_real_row(i, "nbr_substitution", ("norm", "leet"), i % 2 == 0, True) for i in range(3)],
    )
    (clone / "Data" / "Experiment-Results" / "models").mkdir(parents=True)
    (clone / "Data" / "Experiment-Results" / "models" / "STEL_single-preds_all-models.tsv").write_text(
        "ID\tx\n", encoding="utf-8"
    )
    name = "STEL_feature_official"
    bundle = SPECS[name].loader(LoadContext(name, LoadContext.resolve_data_dir(name, tmp_path)))
    assert len(bundle.order_groups) == 3


# ---------------------------------------------------------------- what steb data get fetches (issue 45)

#: the datasets whose only source is the git release with its declared files (the register datasets also read the
#: full files a manual source stands for, in the same folder)
DECLARED = sorted(
    n for n, s in SPECS.items() if all(src.kind in ("git", "hf") and src.files and not src.unpack for src in s.sources)
)
STEL_FILES = {
    "dimensions/quad_stel-dimension_formal-100_sample.tsv": ("formality", ("i", "f")),
    "dimensions/quad_stel-dimension_simple-100_sample.tsv": ("simplicity", ("c", "s-t2")),
    "characteristics/quad_questions_char_contraction.tsv": ("contraction", ("wiki", "ction")),
    "characteristics/quad_questions_char_substitution.tsv": ("nbr_substitution", ("norm", "leet")),
    "characteristics/quad_questions_char_emotives.tsv": ("emotives", ("emoji", "emote")),
    "characteristics/quad_questions_em-subj-pronoun_100.tsv": ("em_subj_pronoun", ("p", "np")),
}


def test_the_declared_datasets_are_the_feature_ones():
    assert DECLARED == ["STEL-or-Content_feature", "STEL_feature", "STEL_feature_official"]


@pytest.mark.parametrize("name", DECLARED)
def test_loader_reads_only_what_data_get_fetches(tmp_path, name):
    """A clone kept as ROOT/STEL, cut to what ``steb data get`` fetches (its experiment results removed): the loader
    loads, and opens and lists nothing the source does not declare."""
    from steb_core.testing import check_declared_reads, cut_to_declared

    clone = tmp_path / "STEL"
    for rel, (style, tokens) in STEL_FILES.items():
        rows = [_real_row(i, style, tokens, i % 2 == 0, i % 3 == 0) for i in range(4)]
        _write(clone / "Data" / "STEL" / rel, rows)
    _write(clone / "Data" / "Experiment-Results" / "models" / "STEL_single-preds_all-models.tsv", [["1"]], ["ID"])
    (clone / "LICENSE").write_text("licence\n", encoding="utf-8")
    assert cut_to_declared(SPECS[name], tmp_path) == [
        "STEL/Data/Experiment-Results/models/STEL_single-preds_all-models.tsv"
    ]
    assert not (clone / "Data" / "Experiment-Results").exists()
    reads = check_declared_reads(SPECS[name], tmp_path, options={"per_class": "all"})
    assert any(r.endswith("_char_contraction.tsv") for r in reads.opened), reads.opened
