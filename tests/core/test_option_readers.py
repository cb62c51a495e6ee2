"""Issue 48 item 5: one reading of a loader option's value, on the context, for every dataset plugin.

The parallel plugin's ``option_flag`` took ``keep_unchanged=maybe`` as true and its ``option_list`` any iterable;
the style plugin's ``release_option`` lower-cased before comparing, and each plugin carried its own copy. The
readers on :class:`steb_core.LoadContext` call the rules of :mod:`steb_core._option_values`.
"""

from __future__ import annotations

import pytest

from steb_core import DataValidationError, LoadContext
from steb_core._option_values import as_choice, as_flag, as_integer, as_names
from steb_core.run.option_use import OptionReads


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (False, False),
        (1, True),
        (0, False),
        ("yes", True),
        (" On ", True),
        ("FALSE", False),
        ("0", False),
    ],
)
def test_a_flag_reads_its_spellings(value, expected):
    assert as_flag("keep", value) is expected


@pytest.mark.parametrize("value", ["maybe", "", 2, -1, 0.5, ["true"]])
def test_a_flag_refuses_what_is_not_one_naming_the_option(value):
    with pytest.raises(DataValidationError, match=r"option keep=.*expected a flag"):
        as_flag("keep", value)


def test_a_choice_is_case_insensitive_and_returned_as_spelled_in_the_choices():
    assert as_choice("release", "CSV", ("convokit", "csv")) == "csv"
    assert as_choice("release", " ConvoKit ", ("convokit", "csv")) == "convokit"
    with pytest.raises(DataValidationError, match=r"expected convokit or csv"):
        as_choice("release", "xml", ("convokit", "csv"))
    with pytest.raises(DataValidationError):
        as_choice("release", 3, ("convokit", "csv"))


def test_names_from_a_comma_string_or_a_list_of_strings():
    assert as_names("domains", "fr, em,,") == ("fr", "em")
    assert as_names("domains", ["fr", " em "]) == ("fr", "em")
    with pytest.raises(DataValidationError, match="comma-separated"):
        as_names("domains", [1, 2])
    with pytest.raises(DataValidationError):
        as_names("domains", {"fr": 1})


def test_a_whole_number_with_its_minimum():
    assert as_integer("first_year", "1680") == 1680
    assert as_integer("first_year", 7, minimum=1) == 7
    assert as_integer("first_year", "-3") == -3
    for bad in ("7.5", "²", "١٢", True, 7.0, "seven"):
        with pytest.raises(DataValidationError, match="whole number"):
            as_integer("first_year", bad)
    with pytest.raises(DataValidationError, match="at least 1"):
        as_integer("texts", 0, minimum=1)


def test_the_context_reads_defaults_records_each_read_and_names_the_dataset():
    options = OptionReads({"keep_unchanged": "no", "release": "Table", "domains": "fr", "texts": "12"})
    ctx = LoadContext("gyafc", None, options=options)
    assert ctx.flag("keep_unchanged", True) is False
    assert ctx.choice("release", ("repository", "table")) == "table"
    assert ctx.choice("split", ("test", "train")) == "test"  # absent: the first choice
    assert ctx.choice("split", ("test", "train"), default="train") == "train"
    assert ctx.names("domains", ("em",)) == ("fr",)
    assert ctx.names("absent", ("em",)) == ("em",)
    assert ctx.integer("texts", 0, minimum=1) == 12
    assert ctx.integer("absent", 5) == 5
    # every name asked for is recorded, so the run knows which options this loader reads
    assert options.asked >= {"keep_unchanged", "release", "split", "domains", "absent", "texts"}
    with pytest.raises(DataValidationError, match=r"dataset 'gyafc': option keep_unchanged='maybe'"):
        LoadContext("gyafc", None, options={"keep_unchanged": "maybe"}).flag("keep_unchanged", False)


def test_a_plugin_loader_refuses_an_unreadable_flag_instead_of_taking_it_as_true(tmp_path):
    # the parallel plugin's line-pair rule (Shakespeare, AAVE) read keep_unchanged=maybe as true before
    from steb_datasets_parallel import line_pairs

    rows = [(1, "Thou art.", "Thou art."), (2, "Wherefore?", "Why?")]
    kept, _ = line_pairs._kept_pairs(LoadContext("shakespeare", tmp_path, options={"keep_unchanged": "no"}), rows)
    assert [i for i, _, _ in kept] == [2]
    with pytest.raises(DataValidationError, match="keep_unchanged"):
        line_pairs._kept_pairs(LoadContext("shakespeare", tmp_path, options={"keep_unchanged": "maybe"}), rows)
