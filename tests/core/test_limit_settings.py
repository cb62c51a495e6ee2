"""Issue 47: every size and count cap set through the environment is parsed by one function, and a value
that is not one of the accepted forms is refused naming the variable and those forms (``inf`` and ``1e400``
raised a bare OverflowError, ``²`` passed ``str.isdigit`` and failed in ``int()``, a lone ``B`` was silently
the default)."""

from __future__ import annotations

import pytest

from steb_core import DataValidationError
from steb_core._decompress import decompression_limit
from steb_core.obtain.http import download_limit
from steb_core.obtain.unpack import member_limit

SIZES = [("STEB_MAX_DECOMPRESSED_BYTES", decompression_limit), ("STEB_MAX_DOWNLOAD_BYTES", download_limit)]


@pytest.mark.parametrize(("name", "limit"), SIZES)
@pytest.mark.parametrize("value", ["inf", "1e400", "nan", "B", "-1G", "0", "1e3", "²", "lots", "4 G B"])
def test_a_size_setting_that_is_no_size_is_refused_naming_the_variable_and_the_forms(monkeypatch, name, limit, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(DataValidationError, match=rf"\${name} is {value!r}.*expected a positive size in bytes"):
        limit()


@pytest.mark.parametrize(("name", "limit"), SIZES)
@pytest.mark.parametrize(
    ("value", "expected"), [("500000", 500000), ("64M", 64 << 20), ("1.5G", 3 << 29), ("4GiB", 4 << 30), ("2kb", 2048)]
)
def test_the_accepted_size_forms(monkeypatch, name, limit, value, expected):
    monkeypatch.setenv(name, value)
    assert limit() == expected


@pytest.mark.parametrize("value", ["²", "1.5", "1e6", "-3", "0", "inf", "50K"])
def test_a_member_count_that_is_no_whole_number_is_refused_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("STEB_MAX_ARCHIVE_MEMBERS", value)
    with pytest.raises(DataValidationError, match=rf"\$STEB_MAX_ARCHIVE_MEMBERS is {value!r}.*whole number"):
        member_limit()


def test_the_member_count_and_its_default(monkeypatch):
    monkeypatch.setenv("STEB_MAX_ARCHIVE_MEMBERS", " 500000 ")
    assert member_limit() == 500000
    monkeypatch.delenv("STEB_MAX_ARCHIVE_MEMBERS")
    assert member_limit() == 200_000
