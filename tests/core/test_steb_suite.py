"""`--suite steb` is STEB: 96 English datasets with exactly the catalogue's tasks; `steb-multilingual` the 17.

The expected counts are STEB's (catalogue note / Table 15): clustering 53, all-to-all 24, predefined 25
(the paper's total says 26; its table lists 25), order alignment 11, retrieval 4, probing 4.
"""

from __future__ import annotations

from collections import Counter

from steb import get_datasets


def test_steb_suite_has_the_catalogue_counts_per_task_type():
    specs = get_datasets(suite="steb")
    assert len(specs) == 96
    per_task = Counter(task for spec in specs for task in spec.tasks_for_suite("steb"))
    assert per_task == {
        "clustering": 53,
        "pair_all": 24,
        "pair_predefined": 25,
        "order_alignment": 11,
        "retrieval": 4,
        "probing": 4,
    }
    assert all(spec.languages == ("en",) for spec in specs)
    names = {spec.name for spec in specs}
    assert not names & {"GYAFC", "reddit", "STEL-or-Content_register", "STEL-or-Content_feature"}  # extras stay outside
    assert {"corpus-of-diverse-styles"} <= names
    cds = next(s for s in specs if s.name == "corpus-of-diverse-styles")
    assert set(cds.tasks_for_suite("steb")) == {"clustering", "pair_all", "order_alignment"}
    assert all(spec.expected for spec in specs)  # every member states what the catalogue promises


def test_multilingual_suite_is_the_17_non_english_pan_sets():
    specs = get_datasets(suite="steb-multilingual")
    assert len(specs) == 17
    per_task = Counter(task for spec in specs for task in spec.tasks_for_suite("steb-multilingual"))
    assert per_task == {"pair_predefined": 13, "retrieval": 4}
    assert all("en" not in spec.languages for spec in specs)
