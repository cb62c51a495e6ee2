"""The registered PAN catalogue: names from the STEB paper, metadata the listings and aggregators need."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from steb_core import APPLICATIONS, CATEGORIES, TASK_TYPES, DatasetNotFoundError, LoadContext, new_manager

#: The PAN/Enron datasets of the STEB catalogue (steb-catalogue.md), English, main score.
STEB_NAMES = {
    "enron_authorship_corpus",
    "pan13_authorship_verification_english_test",
    "pan14_authorship_verification_corpus1_english_essays_test",
    "pan14_authorship_verification_corpus1_english_novels_test",
    "pan14_authorship_verification_corpus2_english_essays_test",
    "pan14_authorship_verification_corpus2_english_novels_test",
    "pan15_authorship_verification_english_test",
    "pan18_style_change",
    "pan20_authorship_verification_test",
    "pan21_authorship_verification_test",
    "pan22_style_change_advanced",
    "pan22_style_change_basic",
    "pan22_style_change_sentence",
    *(f"pan{y}_style_change_{lvl}" for y in (23, 24, 25, 26) for lvl in ("easy", "medium", "hard")),
    "pan18_cross_domain_authorship_attribution_english",
    "machine_text_detection_PAN24_news",
    "machine_text_detection_PAN25_26_essays",
    "machine_text_detection_PAN25_26_fiction",
    "machine_text_detection_PAN25_26_news",
    "machine_text_detection_PAN25_collaborative",
}


@pytest.fixture(scope="module")
def pan_specs():
    manager = new_manager(env=False)
    registry = manager.datasets()
    return {s.name: s for s in registry if registry.provider(s.name) == "pan"}


def test_plugin_registers_every_steb_pan_dataset(pan_specs) -> None:
    assert STEB_NAMES <= set(pan_specs)
    assert {n for n, s in pan_specs.items() if "steb" in s.suites} == STEB_NAMES


def test_metadata_is_complete_and_valid(pan_specs) -> None:
    for spec in pan_specs.values():
        assert spec.languages and spec.size and spec.citation and spec.description, spec.name
        assert "Layout:" in spec.obtain and "<data-dir>" in spec.obtain, spec.name
        assert set(spec.tasks) <= set(TASK_TYPES) and set(spec.categories) <= set(CATEGORIES), spec.name
        assert set(spec.applications) <= set(APPLICATIONS), spec.name
        pickle.dumps(spec.loader)  # executors may ship loaders to other processes


def test_applications_and_categories(pan_specs) -> None:
    assert pan_specs["pan25_style_change_hard"].applications == ("AV", "AV-hard")
    assert pan_specs["pan22_style_change_basic"].applications == ("AV",)
    assert pan_specs["pan18_cross_domain_authorship_attribution_english"].applications == ("AR",)
    assert pan_specs["pan18_cross_domain_authorship_attribution_polish"].applications == ("multilingual",)
    assert pan_specs["pan15_authorship_verification_dutch_test"].languages == ("nl",)
    for name, spec in pan_specs.items():
        expected = "ai-detection" if name.startswith("machine_text") or "generative" in name else "idiolect"
        assert spec.categories == (expected,), name
        if "multilingual" in spec.applications:
            assert spec.languages != ("en",) and "steb-multilingual" in spec.suites


def test_every_loader_names_its_archive_when_data_is_missing(pan_specs, tmp_path: Path) -> None:
    for name, spec in pan_specs.items():
        with pytest.raises(DatasetNotFoundError) as err:
            spec.loader(LoadContext(name, tmp_path / name))
        assert name in str(err.value) and "Expected layout" in str(err.value)
