"""The human-judgement loader on the real release and on malformed fixtures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from steb_core import DataValidationError
from steb_scorers.metaeval.human import load_human_judgements


def _line(
    survey="1",
    src="u r ready",
    out="You are ready.",
    ref="You are ready.",
    ratings=("80", "70", "90", "60", "50", "100"),
):
    return "\t".join([survey, src, out, ref, *ratings])


def _write(folder: Path, system: str, lines: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{system}.human.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _fixture(folder: Path) -> Path:
    # two surveys, 2 lines per direction; two systems
    srcs = ["a b", "c d", "E F.", "G H."]
    for system, shift in (("SYS", 0), ("REF", 10)):
        lines = [
            _line(str(1 + i % 2), s, f"{s} {system}", "ref", tuple(str(10 * i + shift + k) for k in range(6)))
            for i, s in enumerate(srcs)
        ]
        _write(folder, system, lines)
    return folder


def test_fixture_layout_directions_and_averages(tmp_path):
    data = load_human_judgements(_fixture(tmp_path / "h"))
    assert data.systems == ["REF", "SYS"] and len(data) == 8
    sys_rows = data.system == "SYS"
    assert list(data.direction[sys_rows]) == ["informal-to-formal"] * 2 + ["formal-to-informal"] * 2
    assert data.target_styles[:2] == ["formal", "formal"]
    # content-1 is field 5, content-2 field 8: for SYS line 2 (i=1): 10+0=10 and 10+3=13
    assert data.raw("content")[sys_rows][1] == pytest.approx((10 + 13) / 2)
    assert data.raw("fluency")[sys_rows][1] == pytest.approx((12 + 15) / 2)


def test_zscores_are_per_survey_and_annotator(tmp_path):
    data = load_human_judgements(_fixture(tmp_path / "h"))
    z = data.zscores("style")
    for s in (1, 2):
        rows = data.survey == s
        r = data.ratings["style"][rows]
        zz = ((r - r.mean(0)) / r.std(0)).mean(1)
        np.testing.assert_allclose(z[rows], zz)


@pytest.mark.parametrize(
    "bad_line, field, record",
    [
        (_line(ratings=("80", "70", "oops", "60", "50", "100")), "fluency-1", "line 2"),
        (_line(ratings=("80", "70", "90", "160", "50", "100")), "content-2", "line 2"),
        (_line(survey="x"), "survey", "line 2"),
        (_line(out=""), "output", "line 2"),
    ],
)
def test_malformed_field_names_file_line_and_field(tmp_path, bad_line, field, record):
    path = _write(tmp_path, "BAD", [_line(), bad_line])
    with pytest.raises(DataValidationError) as err:
        load_human_judgements(tmp_path)
    assert err.value.path == str(path) and err.value.field == field and err.value.record == record
    assert str(path) in str(err.value) and field in str(err.value)


def test_wrong_field_count_and_odd_line_count(tmp_path):
    path = _write(tmp_path / "a", "BAD", [_line(), _line() + "\textra"])
    with pytest.raises(DataValidationError, match="record line 2.*11 tab-separated fields"):
        load_human_judgements(path.parent)
    path = _write(tmp_path / "b", "ODD", [_line()] * 3)
    with pytest.raises(DataValidationError, match="3 lines") as err:
        load_human_judgements(path.parent)
    assert err.value.path == str(path)


def test_systems_must_rate_the_same_sources(tmp_path):
    _write(tmp_path, "A", [_line(), _line()])
    path = _write(tmp_path, "B", [_line(), _line(src="something else")])
    with pytest.raises(DataValidationError) as err:
        load_human_judgements(tmp_path)
    assert err.value.path == str(path) and err.value.field == "source" and err.value.record == "line 2"


@pytest.mark.realdata
def test_real_release(human_data_dir):
    data = load_human_judgements(human_data_dir)
    assert sorted(data.systems) == ["BART", "HIGH", "IBT", "LUO", "NIU", "RAO", "REF", "YI", "ZHOU"]
    assert len(data) == 9 * 80
    assert sorted(set(data.survey.tolist())) == [1, 2, 4, 5]
    ref = data.system == "REF"
    assert (data.direction[ref] == "informal-to-formal").sum() == 40
    assert [o for o, r in zip(np.asarray(data.outputs)[ref], np.asarray(data.references)[ref])] == list(
        np.asarray(data.references)[ref]
    )
    for aspect in ("content", "style", "fluency"):
        r = data.ratings[aspect]
        assert r.shape == (720, 2) and r.min() >= 0 and r.max() <= 100
        z = data.zscores(aspect)
        assert abs(z.mean()) < 1e-9  # each annotator's z-scores have mean 0 over the items they rated
