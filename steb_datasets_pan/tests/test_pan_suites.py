"""Issue 15: the PAN (dataset, task) pairs of suite ``steb`` are exactly the STEB catalogue's rows; the
multilingual suite holds the 17 non-English PAN datasets; ``expected`` repeats the catalogue's numbers."""

from __future__ import annotations

import pytest

from steb_datasets_pan.catalogue import pan_datasets

SPECS = {s.name: s for s in pan_datasets()}

#: STEB catalogue rows (task, dataset) -> (classes, per class, texts) for the PAN / Enron datasets.
CATALOGUE = {
    ("pair_predefined", "enron_authorship_corpus"): (80, 2, 160),
    ("pair_predefined", "pan13_authorship_verification_english_test"): (30, 2, 60),
    ("pair_predefined", "pan14_authorship_verification_corpus1_english_essays_test"): (100, 2, 200),
    ("pair_predefined", "pan14_authorship_verification_corpus1_english_novels_test"): (100, 2, 200),
    ("pair_predefined", "pan14_authorship_verification_corpus2_english_essays_test"): (200, 2, 400),
    ("pair_predefined", "pan14_authorship_verification_corpus2_english_novels_test"): (200, 2, 400),
    ("pair_predefined", "pan15_authorship_verification_english_test"): (500, 2, 1000),
    ("pair_predefined", "pan18_style_change"): (1492, 2, 2984),
    ("pair_predefined", "pan20_authorship_verification_test"): (500, 2, 1000),
    ("pair_predefined", "pan21_authorship_verification_test"): (500, 2, 1000),
    ("pair_predefined", "pan22_style_change_advanced"): (9537, 2, 19074),
    ("pair_predefined", "pan22_style_change_basic"): (2141, 2, 4282),
    ("pair_predefined", "pan22_style_change_sentence"): (22105, 2, 44210),
    ("pair_predefined", "pan23_style_change_easy"): (2826, 2, 5652),
    ("pair_predefined", "pan23_style_change_hard"): (4112, 2, 8224),
    ("pair_predefined", "pan23_style_change_medium"): (7013, 2, 14026),
    ("pair_predefined", "pan24_style_change_easy"): (2471, 2, 4942),
    ("pair_predefined", "pan24_style_change_hard"): (4131, 2, 8262),
    ("pair_predefined", "pan24_style_change_medium"): (4592, 2, 9184),
    ("pair_predefined", "pan25_style_change_easy"): (10247, 2, 20494),
    ("pair_predefined", "pan25_style_change_hard"): (10648, 2, 21296),
    ("pair_predefined", "pan25_style_change_medium"): (12759, 2, 25518),
    ("pair_predefined", "pan26_style_change_easy"): (71108, 2, 142216),
    ("pair_predefined", "pan26_style_change_hard"): (54141, 2, 108282),
    ("pair_predefined", "pan26_style_change_medium"): (24406, 2, 48812),
    ("clustering", "machine_text_detection_PAN24_news"): (14, 200, 2800),
    ("clustering", "machine_text_detection_PAN25_26_essays"): (13, 25, 325),
    ("clustering", "machine_text_detection_PAN25_26_fiction"): (12, 25, 300),
    ("clustering", "machine_text_detection_PAN25_26_news"): (14, 59, 826),
    ("clustering", "machine_text_detection_PAN25_collaborative"): (6, 200, 1200),
    ("retrieval", "pan18_cross_domain_authorship_attribution_english"): (50, 5, 259),
}

MULTILINGUAL = {
    *(f"pan13_authorship_verification_{lang}_test" for lang in ("greek", "spanish")),
    *(
        f"pan14_authorship_verification_{c}_{s}_test"
        for c in ("corpus1", "corpus2")
        for s in ("dutch_essays", "dutch_reviews", "greek_articles", "spanish_articles")
    ),
    *(f"pan15_authorship_verification_{lang}_test" for lang in ("dutch", "greek", "spanish")),
    *(f"pan18_cross_domain_authorship_attribution_{lang}" for lang in ("french", "italian", "polish", "spanish")),
}


def steb_pairs(specs) -> set[tuple[str, str]]:
    return {(task, s.name) for s in specs if "steb" in s.suites for task in s.tasks_for_suite("steb")}


def test_steb_suite_pairs_are_the_catalogue_rows() -> None:
    assert steb_pairs(SPECS.values()) == set(CATALOGUE)
    # PAN24 news also feeds all-to-all pairs, but only outside the steb suite (catalogue: clustering only)
    pan24 = SPECS["machine_text_detection_PAN24_news"]
    assert pan24.tasks == ("clustering", "pair_all") and pan24.tasks_for_suite("steb") == ("clustering",)
    assert pan24.tasks_for_suite("pan") == ("clustering", "pair_all")


def test_expected_numbers_are_the_catalogue_numbers() -> None:
    for (task, name), (classes, per_class, texts) in CATALOGUE.items():
        assert dict(SPECS[name].expected[task]) == {"classes": classes, "per_class": per_class, "texts": texts}, name


def test_multilingual_suite_has_the_17() -> None:
    multi = {s.name for s in SPECS.values() if "steb-multilingual" in s.suites}
    assert len(MULTILINGUAL) == 17 and multi == MULTILINGUAL
    assert not multi & {n for _, n in CATALOGUE}
    assert all(SPECS[n].languages != ("en",) and "steb" not in SPECS[n].suites for n in multi)


@pytest.mark.realdata
def test_literal_rows_match_the_shared_catalogue(steb_catalogue) -> None:
    """Guard against a typo here: the literal rows above are the PAN rows of ../shared/notes/steb-catalogue.md."""
    rows = {key: value for key, value in steb_catalogue.items() if key[1] in SPECS}
    assert rows == CATALOGUE
