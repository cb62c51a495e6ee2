"""Issue 47: every url or Drive file in steb's catalogue is bounded, so a server that never stops is stopped.

A pinned URL source that declared no size grew to the 64 GiB cap, and a one-byte-at-a-time server ran until the
4-hour default deadline. The catalogue now declares a size (``size_bytes``, where the publisher gives one) or
steb's bound (``max_bytes``) for each such source; the bound caps the body and scales the default deadline.
"""

from __future__ import annotations

import pytest

from steb_core._plugins import get_manager, reset_manager
from steb_core.obtain.http import MAX_DOWNLOAD_BYTES, DownloadPolicy, scaled_deadline
from steb_core.reference_tree.published import PUBLISHED_SOURCE

#: the default deadline ``steb data get`` gives one file (cli/data_get.py: four hours)
DEFAULT_DEADLINE = 4 * 3600.0


def _single_file_sources():
    reset_manager()
    found = [
        (spec.name, source)
        for spec in get_manager().datasets()
        for source in spec.sources
        if source.kind in ("url", "gdrive")
    ]
    reset_manager()
    return [*found, ("steb import --published", PUBLISHED_SOURCE)]


SOURCES = _single_file_sources()


def test_the_catalogue_has_url_and_drive_sources_to_check():
    # the style, parallel and PAN plugins and the published results hold url/Drive sources; an empty list would
    # make the test below pass without checking anything
    assert len(SOURCES) >= 20
    assert {source.kind for _, source in SOURCES} == {"url", "gdrive"}


@pytest.mark.parametrize(("owner", "source"), SOURCES, ids=[f"{o}:{s.url[-24:]}" for o, s in SOURCES])
def test_every_url_and_drive_source_declares_a_size_or_a_bound(owner, source):
    bound = source.size_bytes or source.max_bytes
    assert bound, f"{owner}: {source.describe()} declares neither size_bytes nor max_bytes"
    # a bound is a bound only when it is below the cap that applies without one
    assert bound < MAX_DOWNLOAD_BYTES, f"{owner}: {source.describe()} bound {bound} is not below the 64 GiB cap"


def test_a_small_release_gets_a_deadline_scaled_to_its_bound():
    # the SMS Spam Collection's zip is bounded at 16 MiB: at the slowest rate allowed (64 KiB/s) that is 256 s,
    # so its deadline is the 600 s floor, not four hours
    sms = next(s for owner, s in SOURCES if owner == "sms_spam")
    assert sms.max_bytes == 16 << 20
    policy = scaled_deadline(DownloadPolicy(deadline=DEFAULT_DEADLINE, scale_deadline=True), sms.max_bytes)
    assert policy.deadline == 600.0
