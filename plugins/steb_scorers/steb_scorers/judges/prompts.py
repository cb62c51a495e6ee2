"""Versioned prompt templates for the LLM judges, and the parsers of their answers.

Prompts are data (``prompts.json`` beside this module, or a user JSON file with the same layout):
name -> {version, response kind, template with named fields}; keys starting with "_" are metadata
(the packaged file's ``_about`` says which study the protocol follows and that the wording is steb's). Results record
name, version and the
template text. A parser returns the raw label or None; None is a parse failure, counted and
reported, never mapped to a label.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "JudgePrompt",
    "PromptTemplate",
    "load_prompts",
    "prompts_about",
    "get_prompt",
    "PARSERS",
    "BINARISE",
    "CATEGORIES",
    "ANSWER_TOKENS",
    "FIELD_NAMES",
]


@dataclass(frozen=True)
class JudgePrompt:
    """One rendered query: an optional system turn and the user turn."""

    system: str | None
    user: str


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: str
    response: str  # parser kind: binary, probability, likert3, likert10, ab, rubric10, rubric5, meaning-style-json
    template: str
    system: str | None = None
    task: str | None = None  # detection, pairwise-ab, rubric
    target: str | None = None  # style or helpfulness (pairwise tasks)
    source: str | None = None  # where the wording comes from
    max_tokens: int | None = None  # answer budget; None = ANSWER_TOKENS[response]
    constants: tuple[
        tuple[str, str], ...
    ] = ()  # fixed field values from the file ("fields"), e.g. a writing task's instruction

    @property
    def fields(self) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(self.template) if f}

    @property
    def answer_tokens(self) -> int:
        """The answer budget: the file's ``max_tokens``, else what this response format needs (see ANSWER_TOKENS)."""
        return self.max_tokens if self.max_tokens is not None else ANSWER_TOKENS[self.response]

    def render(self, **values: str) -> str:
        values = {**dict(self.constants), **values}
        missing = self.fields - set(values)
        if missing:
            raise ValueError(
                f"prompt '{self.name}' v{self.version} needs field(s) {sorted(missing)}; the judges fill "
                f'{sorted(FIELD_NAMES)}, others must be given under "fields" in the prompts file'
            )
        return self.template.format(**{k: v for k, v in values.items() if k in self.fields})

    def message(self, **values: str) -> JudgePrompt:
        """The rendered query with this template's system prompt (if any)."""
        return JudgePrompt(self.system, self.render(**values))

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "version": self.version,
            "response": self.response,
            "template": self.template,
        }
        for key in ("system", "task", "target", "source", "max_tokens"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.constants:
            out["fields"] = dict(self.constants)
        out["answer_tokens"] = self.answer_tokens
        return out


def load_prompts(path: str | Path | None = None) -> dict[str, PromptTemplate]:
    """The packaged prompts, or those of a JSON file with the same layout."""
    text = (
        Path(path).read_text(encoding="utf-8")
        if path
        else resources.files(__package__).joinpath("prompts.json").read_text(encoding="utf-8")
    )
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
            raise ValueError(
                f"{where}: prompt '{name}', field 'response': {entry.get('response')!r} is not one of {sorted(PARSERS)}"
            )
        for key in ("version", "template"):
            if key not in entry:
                raise ValueError(f"{where}: prompt '{name}' has no field '{key}'")
        if not isinstance(entry["template"], str):
            raise ValueError(f"{where}: prompt '{name}', field 'template' must be a string")
        budget = entry.get("max_tokens")
        if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 1):
            raise ValueError(f"{where}: prompt '{name}', field 'max_tokens' must be a positive integer, not {budget!r}")
        constants = entry.get("fields", {})
        if not isinstance(constants, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in constants.items()
        ):
            raise ValueError(f"{where}: prompt '{name}', field 'fields' must map field names to strings")
        out[name] = PromptTemplate(
            name,
            str(entry["version"]),
            entry["response"],
            entry["template"],
            entry.get("system"),
            entry.get("task"),
            entry.get("target"),
            entry.get("source"),
            budget,
            tuple(sorted(constants.items())),
        )
    return out


def prompts_about(path: str | Path | None = None) -> dict[str, Any]:
    """The ``_about`` metadata of the packaged prompts (or of a user file; empty when it has none)."""
    text = (
        Path(path).read_text(encoding="utf-8")
        if path
        else resources.files(__package__).joinpath("prompts.json").read_text(encoding="utf-8")
    )
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


_ANSWER = re.compile(r"\banswer\s*:", re.IGNORECASE)


def _answer_part(text: str) -> str:
    """The text after the last "Answer:" when the reply has one (the study's formats ask every answer to start with
    it)."""
    marks = list(_ANSWER.finditer(text))
    return text[marks[-1].end() :] if marks else text


def _binary(text: str) -> int | None:
    m = re.search(r"\b(yes|no)\b", _answer_part(text), re.IGNORECASE)
    return None if m is None else int(m.group(1).lower() == "yes")


def _probability(text: str) -> float | None:
    m = _NUMBER.search(_answer_part(text))
    if m is None:
        return None
    value = float(m.group(1)) / (100.0 if m.group(2) else 1.0)
    return value if 0.0 <= value <= 1.0 else None


#: three-point answers: steb's wording and the study's ("Does not exhibit" / "Somewhat exhibits" / "Clearly exhibits");
#: the negative phrases are looked for first, since "does not exhibit" contains "exhibit"
_LIKERT3 = (
    ("not present", 0),
    ("does not exhibit", 0),
    ("somewhat present", 1),
    ("somewhat exhibits", 1),
    ("very present", 2),
    ("clearly exhibits", 2),
)


def _likert3(text: str) -> int | None:
    part = _answer_part(text)
    low = " ".join(part.lower().split())
    for label, value in _LIKERT3:
        if label in low:
            return value
    m = re.fullmatch(r"\W*([123])\W*", part)
    return None if m is None else int(m.group(1)) - 1


def _likert10(text: str) -> int | None:
    m = re.search(r"(?<![\d.])(10|[1-9])(?![\d.])", _answer_part(text))
    return None if m is None else int(m.group(1))


def _ab(text: str) -> str | None:
    """ "a", "b" or "tie": a lone letter, "Output (a)" / "Output (b)" (the study's format), one standalone capital
    A or B, or the word "tie" with no output named; anything else (both named, none) is a parse failure."""
    stripped = _answer_part(text).strip()
    if re.fullmatch(r"\W*[abAB]\W*", stripped):
        return re.sub(r"\W", "", stripped).lower()
    outputs = {m.lower() for m in re.findall(r"\boutput\s*\(\s*([ab])\s*\)", stripped, re.IGNORECASE)}
    if outputs:
        return outputs.pop() if len(outputs) == 1 else None
    found = set(re.findall(r"\b([AB])\b", stripped))
    if found:
        return found.pop().lower() if len(found) == 1 else None
    return "tie" if re.search(r"\btie\b", stripped, re.IGNORECASE) else None


_SCORE = re.compile(r"\bscore\s*:\s*\**\s*(\d+(?:\.\d+)?)", re.IGNORECASE)


def _after_score(text: str) -> str | None:
    """The number after the last "Score:", or None when the reply has no "Score:"."""
    marks = list(_SCORE.finditer(text))
    return marks[-1].group(1) if marks else None


def _rubric10(text: str) -> int | None:
    """1-10: the number after "Score:" when there is one, else the first number 1-10 (steb's format answers with it
    alone)."""
    given = _after_score(text)
    if given is None:
        return _likert10(text)
    return int(given) if given.isdigit() and 1 <= int(given) <= 10 else None


def _rubric5(text: str) -> int | None:
    """The additive rubric (0-5 points, a justification, then "Score: N"): N only, never a number of the
    justification."""
    given = _after_score(text)
    return int(given) if given is not None and given.isdigit() and 0 <= int(given) <= 5 else None


def _json_key_value(text: str, key: str) -> float | None:
    """Pauli et al.'s rule for one key of the JSON answer (their autorater's ``predict``), on the raw reply text.

    The reply counts only if it holds the key in double quotes; the value is the text after ``"key":`` up to the next
    ``}``, double quotes removed, up to the first comma. Their code then keeps it if Python's ``eval`` accepts it; steb
    evaluates nothing (no code from data): the value must be a number literal (``ast.literal_eval``; a bool is not a
    number). A reply with the quoted key but no ``"key":`` right after it is a failure here (their split would raise).
    """
    import ast

    if f'"{key}"' not in text:
        return None
    parts = text.split(f'"{key}":')
    if len(parts) < 2:
        return None
    value = parts[1].split("}")[0].replace('"', "").split(",")[0].strip()
    try:
        number = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return None
    return float(number)


def _meaning_style_json(text: str) -> tuple[float | None, float | None]:
    """(meaning, style) from a JSON answer on 1-5 scales; each None where its key does not parse (see
    :func:`_json_key_value`). Values are not clipped to 1-5 (the authors' code keeps what the model says)."""
    return _json_key_value(text, "meaning"), _json_key_value(text, "style")


PARSERS: dict[str, Callable[[str], Any]] = {
    "binary": _binary,
    "probability": _probability,
    "likert3": _likert3,
    "likert10": _likert10,
    "ab": _ab,
    "rubric10": _rubric10,
    "rubric5": _rubric5,
    "meaning-style-json": _meaning_style_json,
}

#: default answer budget (tokens) per format: the short formats with room for an "Answer:" prefix; the additive
#: rubric's justification of up to 100 words (about 130-150 tokens of English) plus "Score: N", with margin
ANSWER_TOKENS: dict[str, int] = {
    "binary": 16,
    "probability": 16,
    "likert3": 16,
    "likert10": 16,
    "ab": 16,
    "rubric10": 16,
    "rubric5": 256,
    "meaning-style-json": 20,  # Pauli et al.'s autorater generates at most 20 new tokens
}

#: the field names the judges fill: steb's own and the study's names for the same values
FIELD_NAMES = frozenset(
    {
        "style",
        "text",
        "task",
        "a",
        "b",
        "response",
        "style_description",
        "user_query",
        "output_a",
        "output_b",
        "source",
        "output",
    }
)

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
