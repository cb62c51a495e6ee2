"""Generate the API reference (``docs/api.md``) from the docstrings of steb's public API.

``python -m steb_core._apidoc > docs/api.md``; a test compares the committed file with a fresh run, so
the reference never drifts from the code.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._specs import BenchmarkSpec

__all__ = ["render", "SECTIONS", "CONSTANTS", "TESTING_NAMES"]


def _public_groups() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The groups of ``steb_core.__all__`` as its source writes them: a ``# Title`` comment line, then its names.

    Read from the source, not kept here a second time, so a name added to ``__all__`` is documented in its group.
    """
    source = Path(__file__).with_name("__init__.py").read_text(encoding="utf-8")
    start = source.index("\n__all__ = [\n") + len("\n__all__ = [\n")
    groups: list[tuple[str, list[str]]] = []
    for line in source[start : source.index("\n]\n", start)].splitlines():
        text = line.strip()
        if text.startswith("#"):
            groups.append((text.lstrip("#").strip(), []))
        elif text:
            if not groups:
                raise ValueError(f"steb_core.__all__: {text} comes before the first '# Title' comment")
            groups[-1][1].append(str(ast.literal_eval(text.rstrip(","))))
    return tuple((title, tuple(names)) for title, names in groups)


#: (section title, names in ``steb``) in reading order: the groups of ``steb_core.__all__``, in its order
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = _public_groups()


def _doc(obj: Any) -> str:
    return inspect.cleandoc(obj.__doc__ or "").strip() or "(no docstring)"


def _signature(name: str, obj: Any) -> str:
    try:
        return f"{name}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return name


#: what each public constant is (a constant has no docstring of its own; its value is shown below this)
CONSTANTS = {
    "REPLACED_BYTES_INFO": "The key of a dataset's info (and of each record's `dataset_info`) counting the bytes "
    "that were not valid UTF-8 and were read as U+FFFD (`decode_replacing`); the run's notes say it too.",
    "STEB_PROTOCOL_VERSION": "The STEB protocol version this code implements; recorded in every result (an older "
    "version's results are recomputed, with a note).",
    "STEB_PAPER_BIBTEX": "BibTeX of the STEB paper, the one entry `steb cite` and every plugin citing it print.",
    "SHARED_BIBTEX": "Key -> BibTeX entry of works several distributions cite (read-only): refer to them, do not "
    "copy them.",
    "SOURCE_KINDS": "The kinds of `DataSource` `steb data get` fetches (or, for `manual`, explains).",
    "TASK_TYPES": "The built-in task type names (plugins may register more).",
    "COLUMN_KINDS": "The kinds of aggregate column a task's results feed; `TaskSpec.column_metrics` names the "
    "metric each reads.",
    "CATEGORIES": "Definitional-score categories a dataset may carry (STEB's columns).",
    "APPLICATIONS": "Application tags used by the per-application aggregators.",
    "AUTO_PER_CLASS": "The per-class count `auto`: the reference's N from the class sizes (`reference_per_class`).",
    "REFERENCE_N_KEY": "The `bundle.info` key holding the N per class a loader took (the reference's "
    "`n_episodes_per_class`, its results folder `1_<N>`; read by `steb export`); "
    "`sample_classes` sets it.",
    "HUB_DATA_SUFFIXES": "Data file suffix -> the `datasets` builder that reads it, for hub releases.",
    "STEB_BENCHMARK": "STEB as one object (`BenchmarkSpec`): its 96 English datasets, 121 (dataset, task) pairs, the "
    "authors' clusters and the paper's citation; `--suite steb` runs it, the reference tree and the STEB clusters "
    "read it, and a plugin holding STEB datasets reads their membership from it.",
    "STEB_MULTILINGUAL_BENCHMARK": "STEB's 17 non-English PAN sets as one `BenchmarkSpec` (`--suite "
    "steb-multilingual`).",
}


def _value(obj: Any) -> str:
    """A constant shown by value (its type's docstring would say nothing about it), long ones summarised."""
    if isinstance(obj, BenchmarkSpec):  # its name and size, not its repr of every pair
        return f"{type(obj).__name__}(name={obj.name!r}, version={obj.version!r}, {len(obj.pairs)} pairs)"
    if isinstance(obj, Mapping):
        keys = ", ".join(map(str, list(obj)[:6]))
        return f"a dict of {len(obj)} entries ({keys}{', ...' if len(obj) > 6 else ''})"
    if isinstance(obj, str) and ("\n" in obj or len(obj) > 100):
        return f"a text of {len(obj.splitlines())} lines, starting {obj.strip().splitlines()[0][:80]!r}"
    text = repr(sorted(obj) if isinstance(obj, (set, frozenset)) else obj)
    return text if len(text) <= 200 else text[:197] + "..."


def _entry(name: str, obj: Any) -> list[str]:
    lines = [f"### `{name}`", ""]
    if not (callable(obj) or inspect.isclass(obj) or inspect.ismodule(obj)):
        return [*lines, "```", f"{name} = {_value(obj)}", "```", "", CONSTANTS.get(name, "(undocumented)"), ""]
    if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
        fields = ", ".join(f.name for f in dataclasses.fields(obj))
        lines += ["```", f"{name}({fields})", "```", ""]
    elif callable(obj) and not inspect.isclass(obj):
        lines += ["```", _signature(name, obj), "```", ""]
    lines += [_doc(obj), ""]
    if inspect.isclass(obj) and not issubclass(obj, BaseException):
        for attr, member in sorted(vars(obj).items()):
            if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                continue
            target = member.fget if isinstance(member, property) else member
            first = _doc(target).splitlines()[0]
            lines.append(f"- `{_signature(attr, target) if inspect.isfunction(member) else attr}`: {first}")
        lines.append("")
    return lines


def render() -> str:
    import steb

    note = "Generated by `python -m steb_core._apidoc` from the docstrings; do not edit by hand."
    out = ["# steb API reference", "", note, ""]
    for title, names in SECTIONS:
        out += [f"## {title}", ""]
        for name in names:
            out += _entry(name, getattr(steb, name))
    from . import (
        _contract as contract,  # steb_core.testing's checks (read here without importing pytest, which testing needs)
    )

    out += [f"## {TESTING_TITLE}", "", TESTING_NOTE, ""]
    for name in TESTING_NAMES:
        out += _entry(name, getattr(contract, name))
    return "\n".join(out).rstrip() + "\n"


#: the plugin author's contract checks, documented after the public API (they are imported from ``steb_core.testing``)
TESTING_TITLE = "Contract checks for a plugin's tests (`steb_core.testing`)"
TESTING_NOTE = (
    "`from steb_core.testing import check_dataset_spec, check_declared_reads, check_encoder, check_task_spec`: the "
    "rules every steb component keeps, run on yours in your own tests (scikit-learn's `check_estimator`). Each raises "
    "`AssertionError` naming the component and the rule. The `steb_isolated` fixture comes from the same module."
)
TESTING_NAMES = ("check_dataset_spec", "check_declared_reads", "cut_to_declared", "check_encoder", "check_task_spec")


if __name__ == "__main__":
    sys.stdout.write(render())
