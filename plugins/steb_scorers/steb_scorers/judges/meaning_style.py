"""Pauli et al.'s prompted LLM evaluator: one query per output, a JSON answer with meaning and style on 1-5.

What their autorater (``run_LLM_autorater_smallsize_on_data.py``, class ``Prompt8B``, commit 1ec3ad9 of
github.com/AmaliePauli/style_transfer_evaluation) does, and steb with it:

- one chat query per output: a system turn and a user turn naming the target style, the source and the output,
  asking for two 1-5 ratings (meaning preserved, style changed; 5 best) as JSON with the keys ``meaning`` and
  ``style``; greedy decoding, at most 20 new tokens (steb: ``temperature=0``, ``n_samples=1``, the prompt's budget);
- some target-style names are reworded before they enter the prompt (``layman``, ``expert``, ``simplicity`` /
  ``simplified``: :data:`PAULI_STYLE_NAMES`; ``style_names='as-given'`` turns this off);
- each key is parsed on its own by their string rule (``prompts._json_key_value``); a reply whose key does not parse
  gets the **mean of the parsed values of that key** over the rows they scored together, i.e. one data set file
  (``fill_by='call'``: the rows of one ``score`` call; ``'target_style'``: the rows of the same target style).

steb ships its own wording of the prompt (``rate-meaning-style`` in ``rater_prompts.json``); ``pauli_clone=PATH``
reads the authors' text from a clone of their repository (the Python source is parsed, never run), ``prompts_file=``
takes any template with the fields ``{style}``, ``{source}``, ``{output}``. Deviations: with ``n_samples > 1`` an item's
value is the mean of its parsed samples (they sample once); their ``eval`` of the value is a number-literal parse here.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..result import ScoreResult, check_aligned, per_item_styles
from .judges import _Judge
from .prompts import PARSERS, PromptTemplate

__all__ = ["MeaningStyleRater", "PAULI_STYLE_NAMES", "PAULI_SCRIPT", "prompt_from_clone", "mean_fill"]

#: target-style names their ``predict`` rewords before formatting the prompt
PAULI_STYLE_NAMES = {
    "layman": "understandable for layman",
    "expert": "addressed to an expert",
    "simplicity": "simple",
    "simplified": "simple",
}
#: the autorater script inside a clone of their repository
PAULI_SCRIPT = "run_LLM_autorater_smallsize_on_data.py"
RESPONSE = "meaning-style-json"
#: the packaged prompt of this scorer (its own file: the judges' prompts.json follows another study)
PROMPTS_FILE = "rater_prompts.json"
DIMENSIONS = ("meaning", "style")
FILL_BY = ("call", "target_style")


def prompt_from_clone(clone: str | Path) -> PromptTemplate:
    """The authors' prompt and system turn, read from ``PAULI_SCRIPT`` in a clone (``ast``; nothing is executed).

    The user template is the string assigned to ``prompt`` in ``predict``; its three ``{}`` are, in their ``format``
    call's order, the target style, the source and the output. The system turn is the ``content`` of the dict literal
    whose ``role`` is ``"system"`` in the same function (the last such dict: the earlier one is commented out there).
    """
    path = Path(clone) / PAULI_SCRIPT
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found (pauli_clone must be a clone of Pauli et al.'s repository)")
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise ValueError(f"{path}: not Python source ({exc.msg}, line {exc.lineno})") from None
    predict = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "predict"), None)
    if predict is None:
        raise ValueError(f"{path}: no function 'predict' (expected the autorater class's predict method)")
    template = system = None
    for node in ast.walk(predict):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "prompt" for t in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            template = node.value.value
        if isinstance(node, ast.Dict):
            pairs = {
                k.value: v.value
                for k, v in zip(node.keys, node.values)
                if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)
            }
            content = pairs.get("content")
            if pairs.get("role") == "system" and isinstance(content, str):
                system = content
    named = _named_fields(template) if template is not None else None
    if named is None:
        raise ValueError(
            f"{path}: predict() has no string 'prompt = \"...\"' with three {{}} fields (style, source, output)"
        )
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return PromptTemplate(
        name="pauli2025-autorater",
        version=f"clone sha256:{digest}",
        response=RESPONSE,
        template=named,
        system=system,
        task="rating",
        source=f"Pauli et al.'s text, read from {path}",
    )


def _named_fields(template: str) -> str | None:
    """Their ``str.format`` template with its three automatic fields named style, source, output (literal braces kept
    escaped), or None when it does not have exactly three automatic fields."""
    import string

    names = iter(("style", "source", "output"))
    out, fields = [], 0
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return None
    for literal, field, spec, conversion in parts:
        out.append(literal.replace("{", "{{").replace("}", "}}"))
        if field is None:
            continue
        if field != "" or spec or conversion or fields == 3:
            return None
        out.append("{" + next(names) + "}")
        fields += 1
    return "".join(out) if fields == 3 else None


def mean_fill(values: np.ndarray, groups: Sequence[Any]) -> tuple[np.ndarray, dict[str, float | None]]:
    """NaN entries replaced by the mean of the non-NaN entries of their group (NaN where a group parsed nothing)."""
    out = values.astype(np.float64).copy()
    fills: dict[str, float | None] = {}
    keys = np.asarray([str(g) for g in groups], dtype=object)
    for key in dict.fromkeys(keys.tolist()):
        mask = keys == key
        parsed = out[mask & ~np.isnan(out)]
        fill = float(parsed.mean()) if parsed.size else None
        fills[key] = fill
        out[mask & np.isnan(out)] = np.nan if fill is None else fill
    return out, fills


class MeaningStyleRater(_Judge):
    """``scores``: the ``dimension`` rating (meaning or style, 1-5, failed parses mean-filled); both in components.

    Components: ``meaning`` and ``style`` (filled), ``meaning_parsed`` / ``style_parsed`` (1 where the reply parsed).
    Details: prompt, sampling, the parse failures per key and the fill values.
    """

    def __init__(
        self,
        dimension: str = "meaning",
        prompt: str | PromptTemplate = "rate-meaning-style",
        pauli_clone: str | None = None,
        style_names: str = "pauli",
        fill_by: str = "call",
        backend: Any = None,
        url: str | None = None,
        model: Any = None,
        n_samples: int = 1,
        temperature: float = 0.0,
        seed: int = 0,
        max_tokens: int | None = None,
        prompts_file: str | None = None,
        backend_options: dict[str, Any] | None = None,
        cache: str | None = None,
    ) -> None:
        if dimension not in DIMENSIONS:
            raise ValueError(f"dimension must be one of {DIMENSIONS}, not {dimension!r}")
        if fill_by not in FILL_BY:
            raise ValueError(f"fill_by must be one of {FILL_BY}, not {fill_by!r}")
        if style_names not in ("pauli", "as-given"):
            raise ValueError(f"style_names must be 'pauli' or 'as-given', not {style_names!r}")
        if pauli_clone is not None:
            prompt = prompt_from_clone(pauli_clone)
        if prompts_file is None:
            prompts_file = str(resources.files(__package__).joinpath(PROMPTS_FILE))
        super().__init__(
            prompt, backend, url, model, n_samples, temperature, seed, max_tokens, prompts_file, backend_options, cache
        )
        if self.prompt.response != RESPONSE:
            raise ValueError(f"prompt '{self.prompt.name}' answers '{self.prompt.response}', not '{RESPONSE}'")
        self.dimension, self.style_names, self.fill_by = dimension, style_names, fill_by
        self.name = f"llm-rater-{'content' if dimension == 'meaning' else 'style'}"

    def _style_name(self, style: str) -> str:
        return PAULI_STYLE_NAMES.get(style, style) if self.style_names == "pauli" else style

    def rate(self, sources: Sequence[str], outputs: Sequence[str], styles: Sequence[str]) -> dict[str, Any]:
        """Query, parse and mean-fill: ``{"meaning", "style"}`` arrays (filled) with parse masks and details."""
        parse = PARSERS[RESPONSE]
        answers = self.backend.complete(
            [
                self.prompt.message(style=self._style_name(st), source=s, output=o)
                for s, o, st in zip(sources, outputs, styles)
            ],
            self.n_samples,
            self.temperature,
            self.seed,
            self.max_tokens,
        )
        parsed = [[parse(a) for a in row] for row in answers]
        groups = ["all"] * len(outputs) if self.fill_by == "call" else list(styles)
        got: dict[str, Any] = {"answers": answers, "parse_failures": {}, "fill_values": {}}
        for k, key in enumerate(DIMENSIONS):
            per_item = [[p[k] for p in row if p[k] is not None] for row in parsed]
            raw = np.array([np.mean(v) if v else np.nan for v in per_item], dtype=np.float64)
            filled, fills = mean_fill(raw, groups)
            got[key], got[f"{key}_parsed"] = filled, (~np.isnan(raw)).astype(np.float64)
            got["parse_failures"][key] = sum(p[k] is None for row in parsed for p in row)
            got["fill_values"][key] = fills
        return got

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Any = None,
        target_style: str | Sequence[str] | None = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs)
        styles = per_item_styles(self.name, target_style, len(outputs))
        got = self.rate(sources, outputs, styles)
        values = got[self.dimension]
        return ScoreResult(
            self.name,
            values,
            corpus=float(np.nanmean(values)) if np.isfinite(values).any() else None,
            components={key: got[key] for key in ("meaning", "style", "meaning_parsed", "style_parsed")},
            details={
                **self._sampling(),
                "dimension": self.dimension,
                "n_queries": len(outputs) * self.n_samples,
                "parse_failures": got["parse_failures"],
                "fill_by": self.fill_by,
                "fill_values": got["fill_values"],
                "style_names": self.style_names,
                "rule": "Pauli et al.'s autorater: a key's value is the text after '\"key\":' up to '}' and the first "
                "comma (quotes removed), a number literal; an item whose key does not parse gets the mean of the "
                "parsed values of its fill group",
            },
        )
