"""Versioned prompt templates for the LLM judges, and the parsers of their answers.

Prompts are data (``prompts.json`` beside this module, or a user JSON file with the same layout):
name -> {version, response kind, template with named fields}; keys starting with "_" are metadata
(the packaged file's ``_about`` says which study the protocol follows and that the wording is steb's). Results record name, version and the
template text. A parser returns the raw label or None; None is a parse failure, counted and
reported, never mapped to a label.
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable

__all__ = ["JudgePrompt", "PromptTemplate", "load_prompts", "prompts_about", "get_prompt", "PARSERS", "BINARISE", "CATEGORIES"]


@dataclass(frozen=True)
class JudgePrompt:
    """One rendered query: an optional system turn and the user turn."""

    system: str | None
    user: str


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: str
    response: str  # parser kind: binary, probability, likert3, likert10, ab, rubric10
    template: str
    system: str | None = None
    task: str | None = None  # detection, pairwise-ab, rubric
    target: str | None = None  # style or helpfulness (pairwise tasks)
    source: str | None = None  # where the wording comes from

    @property
    def fields(self) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(self.template) if f}

    def render(self, **values: str) -> str:
        missing = self.fields - set(values)
        if missing:
            raise ValueError(f"prompt '{self.name}' v{self.version} needs field(s) {sorted(missing)}")
        return self.template.format(**{k: v for k, v in values.items() if k in self.fields})

    def message(self, **values: str) -> JudgePrompt:
        """The rendered query with this template's system prompt (if any)."""
        return JudgePrompt(self.system, self.render(**values))

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "version": self.version, "response": self.response, "template": self.template}
        for key in ("system", "task", "target", "source"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        return out


def load_prompts(path: str | Path | None = None) -> dict[str, PromptTemplate]:
    """The packaged prompts, or those of a JSON file with the same layout."""
    text = Path(path).read_text(encoding="utf-8") if path else resources.files(__package__).joinpath("prompts.json").read_text(encoding="utf-8")
    where = str(path) if path else "the packaged prompts.json"
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: expected an object mapping prompt names to templates")
    out = {}
    for name, entry in raw.items():
        if name.startswith("_"):
            continue  # metadata (e.g. "_about": where the wording comes from), not a prompt
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: prompt '{name}' must be an object with version, response and template")
        if entry.get("response") not in PARSERS:
            raise ValueError(f"{where}: prompt '{name}', field 'response': {entry.get('response')!r} is not one of {sorted(PARSERS)}")
        for key in ("version", "template"):
            if key not in entry:
                raise ValueError(f"{where}: prompt '{name}' has no field '{key}'")
        if not isinstance(entry["template"], str):
            raise ValueError(f"{where}: prompt '{name}', field 'template' must be a string")
        out[name] = PromptTemplate(name, str(entry["version"]), entry["response"], entry["template"], entry.get("system"),
                                   entry.get("task"), entry.get("target"), entry.get("source"))
    return out


def prompts_about(path: str | Path | None = None) -> dict[str, Any]:
    """The ``_about`` metadata of the packaged prompts (or of a user file; empty when it has none)."""
    text = Path(path).read_text(encoding="utf-8") if path else resources.files(__package__).joinpath("prompts.json").read_text(encoding="utf-8")
    about = json.loads(text).get("_about", {})
    return dict(about) if isinstance(about, dict) else {}


def get_prompt(prompt: str | PromptTemplate, prompts_file: str | Path | None = None) -> PromptTemplate:
    if isinstance(prompt, PromptTemplate):
        return prompt
    prompts = load_prompts(prompts_file)
    if prompt not in prompts:
        raise ValueError(f"unknown prompt {prompt!r}; known: {sorted(prompts)}")
    return prompts[prompt]


_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?|\.\d+)(\s*%)?")


def _binary(text: str) -> int | None:
    m = re.search(r"\b(yes|no)\b", text, re.IGNORECASE)
    return None if m is None else int(m.group(1).lower() == "yes")


def _probability(text: str) -> float | None:
    m = _NUMBER.search(text)
    if m is None:
        return None
    value = float(m.group(1)) / (100.0 if m.group(2) else 1.0)
    return value if 0.0 <= value <= 1.0 else None


def _likert3(text: str) -> int | None:
    low = text.lower()
    for label, value in (("not present", 0), ("somewhat present", 1), ("very present", 2)):
        if label in low:
            return value
    m = re.fullmatch(r"\W*([123])\W*", text)
    return None if m is None else int(m.group(1)) - 1


def _likert10(text: str) -> int | None:
    m = re.search(r"(?<![\d.])(10|[1-9])(?![\d.])", text)
    return None if m is None else int(m.group(1))


def _ab(text: str) -> str | None:
    stripped = text.strip()
    if re.fullmatch(r"\W*[abAB]\W*", stripped):
        return re.sub(r"\W", "", stripped).lower()
    found = set(re.findall(r"\b([AB])\b", stripped))
    return found.pop().lower() if len(found) == 1 else None


PARSERS: dict[str, Callable[[str], Any]] = {"binary": _binary, "probability": _probability, "likert3": _likert3, "likert10": _likert10, "ab": _ab,
                                          "rubric10": _likert10}

#: raw label -> present (1) / absent (0), as in the protocol notes
BINARISE: dict[str, Callable[[Any], int]] = {
    "binary": lambda v: int(v),
    "probability": lambda v: int(v >= 0.5),
    "likert3": lambda v: int(v >= 1),
    "likert10": lambda v: int(v >= 5),
}

#: raw label -> category index, for self-consistency kappa over the prompt's own answer options
CATEGORIES: dict[str, tuple[int, Callable[[Any], int]]] = {
    "binary": (2, lambda v: int(v)),
    "probability": (11, lambda v: int(round(v * 10))),  # answers rounded to one decimal
    "likert3": (3, lambda v: int(v)),
    "likert10": (10, lambda v: int(v) - 1),
}
