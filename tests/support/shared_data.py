"""Fixtures for the real sample data kept beside this checkout (``../shared``), for every test folder.

A pytest plugin of this repository (loaded by the root ``conftest.py``), not of the installed core: the data
and the catalogue note exist only beside the project's own checkout, so plugin authors elsewhere have no use
for them (issue 40 moved them out of ``steb_core.testing``).

``steb_shared_data`` finds ``../shared/data`` or skips the test; ``steb_catalogue`` reads the STEB catalogue
note beside it (``../shared/notes/steb-catalogue.md``) into ``{(task type, dataset): (classes, per class,
texts)}``, so every plugin's suite test parses it one way.
"""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["CATALOGUE_TASKS", "find_shared_data", "read_steb_catalogue", "steb_catalogue", "steb_shared_data"]


def find_shared_data(start: Path, relative: str = "shared/data") -> Path | None:
    """The first ``<ancestor>/shared/data`` above ``start`` (a checkout with ``shared/`` beside it), or None."""
    for parent in Path(start).resolve().parents:
        candidate = parent / relative
        if candidate.is_dir():
            return candidate
    return None


@pytest.fixture
def steb_shared_data(request: pytest.FixtureRequest) -> Path:
    """Real sample data in ``../shared/data`` beside the checkout; the test is skipped when it is absent."""
    found = find_shared_data(Path(str(request.path)))
    if found is None:
        pytest.skip("real sample data (../shared/data beside the checkout) is not available")
    return found


#: The catalogue's task headings and steb's task type names.
CATALOGUE_TASKS = {
    "Clustering": "clustering",
    "All-to-All Pair Classification": "pair_all",
    "Pre-Defined Pair Classification": "pair_predefined",
    "Order Alignment": "order_alignment",
    "Retrieval": "retrieval",
    "Probing": "probing",
}


def read_steb_catalogue(path: Path) -> dict[tuple[str, str], tuple[int, int, int]]:
    """``{(task type, dataset): (classes, per class, texts)}`` from the table rows of the STEB catalogue note."""
    rows: dict[tuple[str, str], tuple[int, int, int]] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0] in CATALOGUE_TASKS:
            classes, per_class, texts = (int(c.replace(",", "")) for c in cells[2:5])
            rows[(CATALOGUE_TASKS[cells[0]], cells[1])] = (classes, per_class, texts)
    return rows


@pytest.fixture
def steb_catalogue(steb_shared_data: Path) -> dict[tuple[str, str], tuple[int, int, int]]:
    """The STEB catalogue rows (see :func:`read_steb_catalogue`); skipped when the note is absent."""
    path = steb_shared_data.parent / "notes" / "steb-catalogue.md"
    if not path.is_file():
        pytest.skip("../shared/notes/steb-catalogue.md is absent")
    return read_steb_catalogue(path)
