"""What ``steb data get`` would do for a selection: fetch jobs grouped by target folder, the licence gate,
and one dry-run row per dataset.

Several datasets often read one release (STEL_register and STEL_feature read ``STEL/``); a job is one
target folder under the data root with every source the selected datasets name for it, so a shared
release is fetched once. A job whose sources carry a licence needing agreement (``accept=True``) is
held back until ``--accept-licence`` names that licence, the dataset or target, or ``all``. With
``pinned_only`` a job holding a source its publisher does not pin (a URL or Drive file without a
published checksum, a hub source without a revision) is held back too (:attr:`Plan.unpinned`); each row
says who pins its sources (:attr:`PlanRow.pinned`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._sources import NOT_PINNED, PINNED_BY_FIRST_DOWNLOAD, PINNED_BY_PUBLISHER, DataSource
from .._specs import DatasetSpec
from .errors import FetchError

__all__ = ["Job", "PlanRow", "Plan", "make_plan", "MANIFEST", "PARTIAL", "target_of", "read_manifest", "present_folder"]

#: the manifest a finished target folder holds: source, resolved revision, file checksums
MANIFEST = ".steb-source.json"
#: staging area under the data root; a target appears in the root only when complete
PARTIAL = ".steb-partial"


def target_of(spec: DatasetSpec, source: DataSource) -> str:
    """The folder under the data root a source lands in (its ``target``, else the dataset's name)."""
    target = (source.target or spec.name).strip("/")
    parts = target.split("/")
    if not target or any(p in ("", ".", "..") for p in parts) or target.startswith(PARTIAL):
        raise FetchError(
            f"dataset '{spec.name}': source target {source.target!r} is not a folder name under the data root"
        )
    return target


@dataclass
class Job:
    """One target folder to fill: its sources (deduplicated) and the datasets that read it."""

    target: str
    sources: list[DataSource] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)

    @property
    def licences(self) -> list[str]:
        """The licences needing agreement among the sources (one name each)."""
        return list(dict.fromkeys(s.licence or "unnamed licence" for s in self.sources if s.accept))

    @property
    def unpinned(self) -> list[DataSource]:
        """The sources no publisher pins: fetched and recorded at first download, or fetched from a branch."""
        return [s for s in self.sources if s.pinned_by != PINNED_BY_PUBLISHER]

    @property
    def size_bytes(self) -> int | None:
        sizes = [s.size_bytes for s in self.sources]
        known = [v for v in sizes if v is not None]
        return sum(known) if sizes and len(known) == len(sizes) else None

    def accepted(self, accepted: Iterable[str]) -> bool:
        """Whether every licence needing agreement was accepted (by licence, dataset or target name, or ``all``)."""
        names = {a.strip().lower() for a in accepted}
        if "all" in names or not self.licences:
            return True
        if self.target.lower() in names or any(d.lower() in names for d in self.datasets):
            return True
        return all(lic.lower() in names for lic in self.licences)


@dataclass
class PlanRow:
    """A dry-run line for one dataset."""

    dataset: str
    category: str  # "automatic", "licence", "manual", "builtin"
    target: str
    kinds: str
    source: str
    size: str
    licence: str
    action: str
    instructions: str = ""
    pinned: str = ""  # who pins the fetched sources: "publisher", "first download", "not pinned" (joined with "; ")


@dataclass
class Plan:
    """Jobs to fetch (licence accepted), jobs held back for a licence, and a row per dataset."""

    jobs: list[Job]
    blocked: list[Job]
    rows: list[PlanRow]
    specs: list[DatasetSpec]
    unpinned: list[Job] = field(default_factory=list)

    def figures(self) -> dict[str, int]:
        """How many datasets are obtainable automatically / after a licence acceptance / by hand only / built in."""
        out = {"automatic": 0, "licence": 0, "manual": 0, "builtin": 0}
        for row in self.rows:
            out[row.category] += 1
        return out

    def pins(self) -> dict[str, int]:
        """How many distinct fetchable sources are pinned by their publisher, by steb's first download, or not at
        all."""
        seen: dict[tuple[str, str], str] = {}
        for job in [*self.jobs, *self.blocked, *self.unpinned]:
            for source in job.sources:
                seen[(job.target, source.describe())] = source.pinned_by
        return {
            k: sum(1 for v in seen.values() if v == k)
            for k in (PINNED_BY_PUBLISHER, PINNED_BY_FIRST_DOWNLOAD, NOT_PINNED)
        }


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest of a target folder steb filled, or None."""
    path = folder / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return manifest if isinstance(manifest, dict) else None  # a manifest that is not an object cannot be read


def present_folder(root: Path | None, target: str) -> Path | None:
    """``ROOT/target`` when it exists, also spelled with other letter case (releases unpack as STEL/ or stel/)."""
    if root is None:
        return None
    exact = root / target
    if exact.is_dir():
        return exact
    parent = exact.parent
    if parent.is_dir():
        for sibling in parent.iterdir():
            if sibling.is_dir() and sibling.name.lower() == exact.name.lower():
                return sibling
    return None


def _size_text(n: int | None) -> str:
    if n is None:
        return "?"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return "?"


def make_plan(
    specs: Sequence[DatasetSpec], accepted: Iterable[str] = (), root: Path | None = None, *, pinned_only: bool = False
) -> Plan:
    """Group the specs' sources into jobs, apply the licence gate (and with ``pinned_only`` hold back jobs
    with a source no publisher pins), and describe each dataset."""
    accepted = list(accepted)
    jobs: dict[str, Job] = {}
    for spec in specs:
        for source in spec.sources:
            if source.kind == "manual":
                continue
            job = jobs.setdefault(target_of(spec, source), Job(target_of(spec, source)))
            if source not in job.sources:
                job.sources.append(source)
            if spec.name not in job.datasets:
                job.datasets.append(spec.name)
    unpinned = [j for j in jobs.values() if pinned_only and j.unpinned]
    ready = [j for j in jobs.values() if j.accepted(accepted) and j not in unpinned]
    blocked = [j for j in jobs.values() if not j.accepted(accepted) and j not in unpinned]
    rows = [_row(spec, jobs, blocked, unpinned, root) for spec in specs]
    return Plan(ready, blocked, rows, list(specs), unpinned)


def _row(
    spec: DatasetSpec, jobs: dict[str, Job], blocked: list[Job], unpinned: list[Job], root: Path | None
) -> PlanRow:
    if not spec.needs_data:
        return PlanRow(spec.name, "builtin", "", "", "", "", spec.license, "nothing to fetch (data ships with steb)")
    manual = [s for s in spec.sources if s.kind == "manual"]
    auto = [s for s in spec.sources if s.kind != "manual"]
    targets = list(dict.fromkeys(target_of(spec, s) for s in auto))
    kinds = ",".join(dict.fromkeys(s.kind for s in spec.sources)) or "none"
    source = "; ".join(s.describe() for s in spec.sources)
    sizes = [s.size_bytes for s in auto]
    size = _size_text(sum(sizes)) if sizes and all(v is not None for v in sizes) else ("?" if auto else "")  # type: ignore[arg-type]
    licence = "; ".join(dict.fromkeys(s.licence for s in spec.sources if s.licence)) or spec.license
    needs = list(dict.fromkeys(s.licence or "unnamed licence" for s in auto if s.accept))
    instructions = " ".join(" ".join(s.instructions.split()) for s in manual)
    if not spec.sources:
        return PlanRow(
            spec.name,
            "manual",
            "",
            "none",
            "no source recorded",
            "",
            spec.license,
            "by hand",
            " ".join(spec.obtain.split()) or "no source recorded and no instructions",
        )
    # "by hand only" when nothing can be fetched; a manual source beside fetched ones is an extra (often optional) step
    category = ("licence" if needs else "automatic") if auto else "manual"
    actions = []
    for target in targets:
        here = present_folder(root, target)
        if here is not None:
            actions.append(
                f"{target}/ present (skipped; --force fetches again)"
                if read_manifest(here) is not None
                else f"{target}/ present, not fetched by steb (skipped; --force replaces it)"
            )
        elif any(j.target == target for j in unpinned):
            actions.append(f"not fetched with --pinned-only: {target}/ has a source without a published checksum")
        elif any(j.target == target for j in blocked):
            job = next(j for j in blocked if j.target == target)
            actions.append(
                f"fetch {target}/ after --accept-licence "
                f"{' --accept-licence '.join(_quote(lic) for lic in job.licences)}"
            )
        else:
            actions.append(f"fetch into {target}/")
    if any(s.kind == "hf" and not s.revision for s in auto):  # reproducible only when pinned: say so
        actions.append("hub revision not pinned: fetches main, the manifest records its commit")
    if any(s.pinned_by == PINNED_BY_FIRST_DOWNLOAD for s in auto):
        actions.append(
            "no published checksum: pinned by steb's first download (sha256 recorded, checked by steb data check)"
        )
    if manual:
        actions.append("also by hand (see instructions)" if auto else "by hand (see instructions)")
    pinned = "; ".join(dict.fromkeys(s.pinned_by for s in auto))
    return PlanRow(
        spec.name, category, ", ".join(targets), kinds, source, size, licence, "; ".join(actions), instructions, pinned
    )


def _quote(name: str) -> str:
    return f"'{name}'" if any(c.isspace() for c in name) else name
