"""PAN18 cross-domain authorship attribution as retrieval: official layout fixtures and bad fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steb_core import DataValidationError, LoadContext
from steb_datasets_pan.catalogue import pan_datasets

SPECS = {s.name: s for s in pan_datasets()}


def load(name: str, data_dir: Path):
    return SPECS[name].loader(LoadContext(name, data_dir))


def _problem(root: Path, name: str, candidates: dict[str, int], truth: dict[str, str], write, **enc) -> None:
    p = root / name
    write(
        p / "problem-info.json",
        json.dumps({"unknown-folder": "unknown", "candidate-authors": [{"author-name": c} for c in candidates]}),
        **enc,
    )
    for cand, n in candidates.items():
        for k in range(1, n + 1):
            write(p / cand / f"known{k:05d}.txt", f"{name} {cand} known {k}\n", **enc)
    for text in truth:
        write(p / "unknown" / text, f"{name} unknown {text}\n", **enc)
    write(
        p / "ground-truth.json",
        json.dumps({"ground_truth": [{"unknown-text": t, "true-author": a} for t, a in truth.items()]}, indent=4),
        **enc,
    )


@pytest.fixture
def pan18(tmp_path: Path, write) -> Path:
    root = tmp_path / "pan18-cross-domain-authorship-attribution-test-dataset2-2018-04-20"
    write(
        root / "collection-info.json",
        json.dumps(
            [
                {"problem-name": "problem00001", "language": "en", "encoding": "UTF-8"},
                {"problem-name": "problem00002", "language": "en", "encoding": "UTF-8"},
                {"problem-name": "problem00003", "language": "fr", "encoding": "UTF-8"},
            ]
        ),
        bom=True,
    )
    _problem(
        root,
        "problem00001",
        {"candidate00001": 2, "candidate00002": 3},
        {"unknown00001.txt": "candidate00002", "unknown00002.txt": "<UNK>", "unknown00003.txt": "candidate00001"},
        write,
        crlf=True,
    )
    _problem(
        root, "problem00002", {"candidate00001": 1, "candidate00002": 1}, {"unknown00001.txt": "candidate00001"}, write
    )
    _problem(root, "problem00003", {"candidate00001": 1}, {"unknown00001.txt": "candidate00001"}, write)
    return tmp_path


def test_candidates_are_targets_and_unknowns_queries(pan18: Path) -> None:
    bundle = load("pan18_cross_domain_authorship_attribution_english", pan18)
    r = bundle.retrieval
    # STEB §C.9: each candidate's known texts are concatenated into one document
    assert [(t.author, len(t.texts_)) for t in r.targets] == [
        ("problem00001/candidate00001", 1),
        ("problem00001/candidate00002", 1),
        ("problem00002/candidate00001", 1),
        ("problem00002/candidate00002", 1),
    ]
    assert r.targets[1].texts_[0] == "\n\n".join(f"problem00001 candidate00002 known {k}" for k in (1, 2, 3))
    assert [(q.id, q.author, q.texts_) for q in r.queries] == [
        ("problem00001/unknown00001.txt", "problem00001/candidate00002", ("problem00001 unknown unknown00001.txt",)),
        ("problem00001/unknown00003.txt", "problem00001/candidate00001", ("problem00001 unknown unknown00003.txt",)),
        ("problem00002/unknown00001.txt", "problem00002/candidate00001", ("problem00002 unknown unknown00001.txt",)),
    ]
    assert "\r" not in r.targets[1].texts_[0]  # CRLF and trailing newlines gone
    assert bundle.info["unknown_texts_without_candidate"] == 1 and bundle.info["problems"] == [
        "problem00001",
        "problem00002",
    ]
    french = load("pan18_cross_domain_authorship_attribution_french", pan18).retrieval
    assert [q.author for q in french.queries] == ["problem00003/candidate00001"]


def test_unknown_author_id(pan18: Path, write) -> None:
    gt = next(pan18.rglob("problem00002/ground-truth.json"))
    write(gt, json.dumps({"ground_truth": [{"unknown-text": "unknown00001.txt", "true-author": "candidate00077"}]}))
    with pytest.raises(DataValidationError, match="candidate00077") as err:
        load("pan18_cross_domain_authorship_attribution_english", pan18)
    assert err.value.path == str(gt) and err.value.record == "unknown00001.txt" and err.value.field == "true-author"


def test_unknown_text_without_truth(pan18: Path, write) -> None:
    extra = next(pan18.rglob("problem00002/unknown")) / "unknown00009.txt"
    write(extra, "stray text")
    with pytest.raises(DataValidationError, match="unknown00009.txt") as err:
        load("pan18_cross_domain_authorship_attribution_english", pan18)
    assert err.value.path.endswith("problem00002/ground-truth.json")


def test_empty_known_text(pan18: Path, write) -> None:
    known = next(pan18.rglob("problem00001/candidate00001/known00002.txt"))
    write(known, "\r\n")
    with pytest.raises(DataValidationError, match="is empty") as err:
        load("pan18_cross_domain_authorship_attribution_english", pan18)
    assert err.value.path == str(known) and err.value.record == "problem00001/candidate00001"


def test_language_absent(pan18: Path) -> None:
    with pytest.raises(DataValidationError, match="'pl'"):
        load("pan18_cross_domain_authorship_attribution_polish", pan18)


def test_duplicate_ground_truth_entry_with_flipped_author_is_refused(pan18: Path, write) -> None:
    """Issue 20 (1): a repeated `unknown-text` used to be read twice; now it is an error naming both records."""
    gt = next(pan18.rglob("problem00001/ground-truth.json"))
    write(
        gt,
        json.dumps(
            {
                "ground_truth": [
                    {"unknown-text": "unknown00001.txt", "true-author": "candidate00002"},
                    {"unknown-text": "unknown00002.txt", "true-author": "<UNK>"},
                    {"unknown-text": "unknown00003.txt", "true-author": "candidate00001"},
                    {"unknown-text": "unknown00001.txt", "true-author": "candidate00001"},
                ]
            }
        ),
    )
    with pytest.raises(DataValidationError, match="conflicting unknown-text 'unknown00001.txt'") as err:
        load("pan18_cross_domain_authorship_attribution_english", pan18)
    assert err.value.path == str(gt) and err.value.record == "ground_truth[3]" and err.value.field == "unknown-text"


def test_duplicate_candidate_is_refused(pan18: Path, write) -> None:
    info = next(pan18.rglob("problem00002/problem-info.json"))
    write(
        info,
        json.dumps(
            {
                "unknown-folder": "unknown",
                "candidate-authors": [
                    {"author-name": "candidate00001"},
                    {"author-name": "candidate00002"},
                    {"author-name": "candidate00001"},
                ],
            }
        ),
    )
    with pytest.raises(DataValidationError, match="duplicate author-name 'candidate00001'") as err:
        load("pan18_cross_domain_authorship_attribution_english", pan18)
    assert err.value.path == str(info) and err.value.field == "author-name"


@pytest.mark.parametrize("where", ["unknown-text", "candidate-authors", "unknown-folder"])
def test_file_names_outside_the_release_are_refused(pan18: Path, tmp_path: Path, write, where: str) -> None:
    """Issue 20 (8): '../' names in ground-truth.json / problem-info.json must not read outside the data folder."""
    secret = write(tmp_path / "outside" / "secret.txt", "a secret that is not part of the release")
    problem = next(pan18.rglob("problem00002"))
    escape = "../../../outside/secret.txt"
    assert (problem / "unknown" / escape).resolve() == secret.resolve()  # the name really reaches the secret
    if where == "unknown-text":
        write(
            problem / "ground-truth.json",
            json.dumps({"ground_truth": [{"unknown-text": escape, "true-author": "candidate00001"}]}),
        )
        (problem / "unknown" / "unknown00001.txt").unlink()
        path, field = problem / "ground-truth.json", "unknown-text"
    elif where == "candidate-authors":
        write(
            problem / "problem-info.json",
            json.dumps(
                {
                    "unknown-folder": "unknown",
                    "candidate-authors": [{"author-name": "candidate00001"}, {"author-name": "../../outside"}],
                }
            ),
        )
        write(
            problem / "ground-truth.json",
            json.dumps({"ground_truth": [{"unknown-text": "unknown00001.txt", "true-author": "candidate00001"}]}),
        )
        path, field = problem / "problem-info.json", "candidate-authors"
    else:
        write(tmp_path / "outside" / "unknown00001.txt", "outside text")
        write(
            problem / "problem-info.json",
            json.dumps(
                {
                    "unknown-folder": "../../outside",
                    "candidate-authors": [{"author-name": "candidate00001"}, {"author-name": "candidate00002"}],
                }
            ),
        )
        path, field = problem / "problem-info.json", "unknown-folder"
    with pytest.raises(DataValidationError, match="outside the release folder") as err:
        load("pan18_cross_domain_authorship_attribution_english", pan18)
    assert err.value.path == str(path) and err.value.field == field


def test_symlink_inside_the_release_is_followed(pan18: Path, tmp_path: Path, write) -> None:
    """A link the user made inside the release folder is fine (only '..'/absolute names are refused)."""
    problem = next(pan18.rglob("problem00002"))
    real = write(tmp_path / "elsewhere" / "k.txt", "known text kept elsewhere")
    (problem / "candidate00002" / "known00001.txt").unlink()
    (problem / "candidate00002" / "known00001.txt").symlink_to(real)
    bundle = load("pan18_cross_domain_authorship_attribution_english", pan18)
    assert "known text kept elsewhere" in [t.texts_[0] for t in bundle.retrieval.targets]
