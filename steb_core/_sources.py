"""Where a dataset's release comes from, as data: what ``steb data get`` fetches and ``steb list datasets`` shows.

A :class:`DataSource` pins one public release (a git commit, a Hugging Face dataset revision, a Zenodo
record, a URL or Google Drive file with its sha256) and says where under the data root it lands, so that
the dataset's loader finds it exactly as a user who downloaded it by hand would. A release that cannot be
fetched automatically (registration, an access request) is a ``manual`` source whose ``instructions`` say
what to do. A dataset may list several sources (e.g. two Zenodo records that together make one corpus);
all of them are fetched into the same target folder.

A URL or Drive file whose publisher states no checksum is still fetched (issue 39), pinned by steb's
first download instead: its sha256 is recorded in the folder's manifest then, printed, and every later
``steb data check`` / ``steb data get --verify`` compares the files with it (trust on first use);
:attr:`DataSource.pinned_by` says which kind of pin a source has, and ``--pinned-only`` skips the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["DataSource", "SOURCE_KINDS", "PINNED_BY_PUBLISHER", "PINNED_BY_FIRST_DOWNLOAD", "NOT_PINNED"]

#: git: ``url`` is the repository (https://github.com/OWNER/NAME), ``revision`` a full commit sha; ``files``
#:   are the paths the loader reads (fnmatch patterns or folders): only those are fetched.
#: hf: ``url`` is the hub dataset id (OWNER/NAME), ``revision`` a commit sha; ``files`` are allow-patterns.
#: zenodo: ``url`` is the record id (e.g. "6411789"); the record's own checksums verify each file.
#: url: ``url`` is a direct download; ``sha256`` maps its file name to the digest (when the publisher gives one).
#: gdrive: ``url`` is a Google Drive file id (or its drive.google.com URL); ``files`` names the file saved.
#: manual: nothing is fetched; ``instructions`` say what the user must do and ``url`` where.
SOURCE_KINDS = ("git", "hf", "zenodo", "url", "gdrive", "manual")
#: the content is fixed by the source itself: a commit, a hub revision, the record's or the spec's checksum
PINNED_BY_PUBLISHER = "publisher"
#: no published checksum: the sha256 of steb's first download is recorded and checked from then on
PINNED_BY_FIRST_DOWNLOAD = "first download"
#: a hub source without a revision: fetches the default branch, the manifest records the commit
NOT_PINNED = "not pinned"


@dataclass(frozen=True)
class DataSource:
    """One pinned release of a dataset (issue 30): kind, location, revision, files, checksums, licence.

    ``target`` is the folder under the data root the files land in: the dataset's own name when
    empty, or a shared release folder several datasets read (e.g. ``STEL``, ``PASTEL``, ``blogs``;
    see :meth:`steb_core.LoadContext.release_dir`). ``subdir`` places the fetched files one level
    further down when the loader expects the release inside a named folder. ``unpack`` names fetched
    archives to unpack in place (safely: no member outside the target, no links out, a size cap);
    ``strip`` names the one folder an archive unpacks into (``MASC-3.0.0``) whose contents are moved up,
    so the loader finds them directly in the target. ``accept`` marks a licence that needs the user's agreement
    (``--accept-licence NAME``) before
    anything is downloaded.
    """

    kind: str
    url: str
    revision: str = ""
    files: tuple[str, ...] = ()
    sha256: Mapping[str, str] = field(default_factory=dict)
    target: str = ""
    subdir: str = ""
    unpack: tuple[str, ...] = ()
    strip: str = ""
    licence: str = ""
    accept: bool = False
    instructions: str = ""
    size_bytes: int | None = None
    #: the most bytes the file may have, from steb's catalogue, for a url or Drive file whose publisher states no
    #: size (``size_bytes`` is the exact size when one is published): the body is refused past it, and the default
    #: deadline of its download is scaled to it (:func:`steb_core.obtain.http.scaled_deadline`) instead of 4 hours
    max_bytes: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in SOURCE_KINDS:
            raise ValueError(f"data source '{self.url}': unknown kind '{self.kind}'; known: {', '.join(SOURCE_KINDS)}")
        if not self.url:
            raise ValueError(f"a '{self.kind}' data source needs a url (repository, hub id, record id, URL or page)")
        for attr in ("files", "unpack"):
            value = getattr(self, attr)
            object.__setattr__(self, attr, (value,) if isinstance(value, str) else tuple(value))
        object.__setattr__(self, "sha256", dict(self.sha256))
        if self.strip and (self.strip.strip("/") in ("", ".", "..") or "/" in self.strip.strip("/")):
            raise ValueError(
                f"data source {self.url}: strip must name one folder (e.g. 'MASC-3.0.0'), got {self.strip!r}"
            )
        if self.kind == "git" and self.revision and len(self.revision) != 40:
            raise ValueError(f"git source {self.url}: revision must be a full 40-hex commit, got '{self.revision}'")
        if self.kind in ("url", "gdrive") and len(self.files) > 1:
            raise ValueError(
                f"{self.kind} source {self.url}: one file per source (files= names it), got {list(self.files)}"
            )
        if self.kind == "gdrive" and not self.files:
            raise ValueError(f"gdrive source {self.url}: files= must name the file saved (Drive ids carry no name)")
        if self.kind == "gdrive" and not all(c.isalnum() or c in "-_" for c in self.url):
            raise ValueError(f"gdrive source {self.url!r}: url must be the Drive file id (the part after /file/d/)")
        for attr in ("size_bytes", "max_bytes"):
            value = getattr(self, attr)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
                raise ValueError(f"data source {self.url}: {attr} must be a positive number of bytes, got {value!r}")
        if self.kind == "manual" and not self.instructions:
            raise ValueError(f"manual source {self.url}: instructions must say what the user has to do")

    @property
    def pinned_by(self) -> str:
        """Who fixes the content: :data:`PINNED_BY_PUBLISHER`, :data:`PINNED_BY_FIRST_DOWNLOAD` (a URL or Drive
        file without a published sha256) or :data:`NOT_PINNED` (a hub source without a revision); "" for manual."""
        if self.kind == "manual":
            return ""
        if self.kind in ("url", "gdrive"):
            return PINNED_BY_PUBLISHER if self.sha256 else PINNED_BY_FIRST_DOWNLOAD
        if self.kind == "hf" and not self.revision:
            return NOT_PINNED
        return PINNED_BY_PUBLISHER

    def describe(self) -> str:
        """One line for listings: kind, where, pinned revision."""
        where = {
            "git": self.url,
            "hf": f"hf:{self.url}",
            "zenodo": f"zenodo:{self.url}",
            "url": self.url,
            "gdrive": f"gdrive:{self.url}",
            "manual": f"manual ({self.url})",
        }[self.kind]
        return f"{where}@{self.revision[:12]}" if self.revision else where
