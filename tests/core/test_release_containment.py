"""The containment check of one release file (``steb_core._containment.release_file``) without resolving every path.

A file reached from its release folder through no symbolic link resolves inside it, so ``release_file`` decides
that by asking about the names below the release only, and leaves anything with a link on the way to
:func:`steb_core.check_inside` (two ``os.path.realpath``). These tests hold the short way to the full check's
decisions: the same files refused with the same error, the same followed, on a release full of links.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import steb_core._containment as containment
from steb_core import DataValidationError, read_bytes
from steb_core._containment import release_file, release_scope

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symbolic links as POSIX makes them")


def _write(path: Path, text: str = "text") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _release(tmp_path: Path) -> Path:
    """``tmp_path/data/rel``: plain files and folders, and every kind of link, inside and out."""
    rel = tmp_path / "data" / "rel"
    outside = tmp_path / "outside"
    _write(rel / "a" / "b" / "plain.txt")
    _write(rel / "kept" / "k.txt")
    _write(outside / "secret.txt", "secret")
    _write(outside / "sub" / "s.txt", "secret")
    (outside / "back").symlink_to(rel / "kept")  # leaves the release and comes back into it
    (rel / "a" / "file_in").symlink_to(rel / "kept" / "k.txt")
    (rel / "a" / "file_in_relative").symlink_to(Path("..") / "kept" / "k.txt")
    (rel / "a" / "file_out").symlink_to(outside / "secret.txt")
    (rel / "a" / "dir_in").symlink_to(rel / "kept")
    (rel / "a" / "dir_out").symlink_to(outside / "sub")
    (rel / "a" / "out_and_back").symlink_to(outside / "back")
    (rel / "a" / "dangling_in").symlink_to(rel / "missing.txt")
    (rel / "a" / "dangling_out").symlink_to(outside / "missing.txt")
    (rel / "a" / "loop").symlink_to(rel / "a" / "loop")
    (rel / "a" / "b" / "up").symlink_to(Path(".."))  # a folder link to its parent: stays inside
    return rel


def _paths(rel: Path) -> list[Path]:
    """Every name under the release, links not followed, and a missing child of each."""
    found = [rel]
    for folder, dirs, files in os.walk(rel):
        found += [Path(folder, name) for name in sorted(dirs + files)]
    found += [p / "missing.txt" for p in list(found)]
    found += [rel / "a" / "dir_in" / "k.txt", rel / "a" / "dir_out" / "s.txt", rel / "a" / "out_and_back" / "k.txt"]
    found += [rel / "a" / "b" / "up" / "dir_out" / "s.txt", rel / "a" / "b" / "up" / "b" / "plain.txt"]
    return found


def _decision(path: Path) -> str:
    try:
        release_file(path, record="r", field="f")
    except DataValidationError as exc:
        return f"refused: {exc} | {exc.path} | {exc.record} | {exc.field} | {exc.expected}"
    return "followed"


def test_release_file_decides_as_the_full_check_for_every_kind_of_link(tmp_path, monkeypatch):
    rel = _release(tmp_path)
    paths = _paths(rel)
    with release_scope(tmp_path / "data"):
        short = [_decision(p) for p in paths]
        monkeypatch.setattr(containment, "_no_link_below", lambda release, full: False)  # every file fully resolved
        full = [_decision(p) for p in paths]
    assert short == full
    refused = {p.relative_to(rel).as_posix() for p, d in zip(paths, short) if d.startswith("refused")}
    assert {"a/file_out", "a/dir_out/s.txt", "a/dangling_out", "a/b/up/dir_out/s.txt"} <= refused
    assert not refused & {"a/b/plain.txt", "a/file_in", "a/file_in_relative", "a/dir_in/k.txt", "a/out_and_back/k.txt"}


def test_a_file_reached_through_no_link_is_not_resolved(tmp_path, monkeypatch):
    rel = _release(tmp_path)
    asked = []

    def full_check(target, root, **kwargs):
        asked.append(Path(target).relative_to(rel).as_posix())
        return check_inside(target, root, **kwargs)

    check_inside = containment.check_inside
    monkeypatch.setattr(containment, "check_inside", full_check)
    with release_scope(tmp_path / "data"):
        assert read_bytes(rel / "a" / "b" / "plain.txt") == b"text"
        assert read_bytes(rel / "a" / "file_in") == b"text"
        assert read_bytes(rel / "a" / "out_and_back" / "k.txt") == b"text"
        with pytest.raises(DataValidationError, match="outside the release folder"):
            read_bytes(rel / "a" / "dir_out" / "s.txt")
    assert asked == ["a/file_in", "a/out_and_back/k.txt", "a/dir_out/s.txt"]


def test_a_link_out_of_the_release_is_refused_naming_the_link_and_where_it_leads(tmp_path):
    rel = _release(tmp_path)
    link = rel / "a" / "dir_out" / "s.txt"
    with release_scope(tmp_path / "data"), pytest.raises(DataValidationError) as err:
        read_bytes(link)
    leads = tmp_path / "outside" / "sub" / "s.txt"
    assert str(err.value) == (
        f"file {link}: {link} is a symbolic link (or inside one) leading to {leads}, outside the release folder {rel} "
        "(expected files inside the release folder (links that stay inside it are followed))"
    )
    assert "secret" not in str(err.value)


def test_a_release_folder_that_is_itself_a_link_is_where_it_leads(tmp_path):
    """The user's arrangement of the data root: ``data/rel -> /mnt/big/rel`` is fine, inside it as before."""
    elsewhere = tmp_path / "big" / "rel"
    _write(elsewhere / "x" / "plain.txt", "mine")
    _write(tmp_path / "big" / "beside.txt", "not the release")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "rel").symlink_to(elsewhere)
    (elsewhere / "x" / "up").symlink_to(tmp_path / "big" / "beside.txt")
    with release_scope(tmp_path / "data"):
        assert read_bytes(tmp_path / "data" / "rel" / "x" / "plain.txt") == b"mine"
        with pytest.raises(DataValidationError, match="outside the release folder"):
            read_bytes(tmp_path / "data" / "rel" / "x" / "up")


def test_a_dotdot_after_a_link_is_judged_where_the_system_opens_it(tmp_path):
    """``rel/a/dir_out/../secret.txt`` reads names as ``outside/secret.txt`` (the ``..`` follows the link first),
    though it lexically reads ``rel/a/secret.txt``; it is refused, as a plain ``..`` that leaves the root."""
    rel = _release(tmp_path)
    with release_scope(tmp_path / "data"):
        assert (rel / "a" / "dir_out" / ".." / "secret.txt").read_text(encoding="utf-8") == "secret"  # the premise
        with pytest.raises(DataValidationError, match="outside the release folder"):
            release_file(str(rel / "a" / "dir_out" / ".." / "secret.txt"))
        with pytest.raises(DataValidationError, match="outside the release folder"):
            read_bytes(str(rel / ".." / ".." / "outside" / "secret.txt"))
        # a ".." that stays inside, and one after a link that stays inside, are followed
        assert read_bytes(str(rel / "a" / "b" / ".." / "b" / "plain.txt")) == b"text"
        assert read_bytes(str(rel / "a" / "dir_in" / ".." / "kept" / "k.txt")) == b"text"
