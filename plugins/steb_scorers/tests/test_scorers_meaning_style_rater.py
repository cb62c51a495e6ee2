"""Pauli et al.'s prompted LLM evaluator (llm-rater-content / llm-rater-style): their parse rule, the mean fill, the
prompt read from a clone, end to end on a tiny local model with hand-set weights. Expected values are worked out by
hand from the rule in their autorater's predict()."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from steb_scorers.judges.meaning_style import MeaningStyleRater, mean_fill, prompt_from_clone
from steb_scorers.judges.prompts import PARSERS, get_prompt
from steb_scorers.plugin import SCORERS

from .conftest import build_bigram_causal_lm

parse = PARSERS["meaning-style-json"]


class ScriptedBackend:
    """Answers each prompt with the reply of the first key found in its user turn; records the prompts."""

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies, self.prompts = replies, []

    def complete(self, prompts, n, temperature, seed, max_tokens):
        self.prompts.extend(prompts)
        return [[next(r for k, r in self.replies.items() if k in p.user)] * n for p in prompts]

    def info(self):
        return {"backend": "scripted"}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"meaning": 4, "style": 2}', (4.0, 2.0)),
        ('Sure! {"meaning": "5", "style": 3.5} Hope this helps', (5.0, 3.5)),  # quotes removed, text around ignored
        ('{"meaning":4,"style":"high"}', (4.0, None)),  # each key on its own
        ('{"meaning": 4, "style": 2', (4.0, 2.0)),  # cut off before "}": the value runs to the end
        ('{"meaning": 3', (3.0, None)),  # the 20-token budget ran out before "style"
        ('{"meaning" : 4, "style" : 2}', (None, None)),  # no '"key":' right after the key
        ("{'meaning': 4, 'style': 2}", (None, None)),  # single quotes: the key is not there in double quotes
        ('{"meaning": True, "style": 4/5}', (None, None)),  # a bool is no rating; an expression is not evaluated
        ("meaning: 4, style: 2", (None, None)),
        ('{"meaning": , "style": }', (None, None)),
    ],
)
def test_parse_rule_by_hand(reply, expected):
    assert parse(reply) == expected


def test_mean_fill_per_group_by_hand():
    values = np.array([4.0, np.nan, 2.0, np.nan, np.nan])
    filled, fills = mean_fill(values, ["a", "a", "a", "b", "b"])
    assert fills == {"a": 3.0, "b": None}
    np.testing.assert_array_equal(filled[:3], [4.0, 3.0, 2.0])
    assert np.isnan(filled[3:]).all()  # a group with nothing parsed stays NaN (pandas' mean of nothing)


def test_failed_parses_get_the_mean_of_the_call_or_of_the_style():
    replies = {
        "OUT1": '{"meaning": 5, "style": 1}',
        "OUT2": '{"meaning": 2, "style": 4}',
        "OUT3": "I cannot rate this.",
        "OUT4": '{"meaning": 1, "style": "n/a"}',
    }
    sources = ["s1", "s2", "s3", "s4"]
    outputs = ["OUT1", "OUT2", "OUT3", "OUT4"]
    styles = ["formal", "formal", "formal", "polite"]
    by_call = MeaningStyleRater(backend=ScriptedBackend(replies)).score(sources, outputs, target_style=styles)
    np.testing.assert_allclose(by_call.scores, [5, 2, 8 / 3, 1])
    np.testing.assert_allclose(by_call.components["style"], [1, 4, 2.5, 2.5])
    np.testing.assert_array_equal(by_call.components["style_parsed"], [1, 1, 0, 0])
    assert by_call.details["parse_failures"] == {"meaning": 1, "style": 2}
    by_style = MeaningStyleRater(dimension="style", fill_by="target_style", backend=ScriptedBackend(replies)).score(
        sources, outputs, target_style=styles
    )
    assert by_style.name == "llm-rater-style"
    np.testing.assert_allclose(by_style.scores[:3], [1, 4, 2.5])  # filled from the formal rows only
    assert np.isnan(by_style.scores[3])  # no polite row parsed a style rating
    np.testing.assert_allclose(by_style.components["meaning"], [5, 2, 3.5, 1])


def test_style_names_are_reworded_as_the_authors_did():
    backend = ScriptedBackend({"": '{"meaning": 3, "style": 3}'})
    MeaningStyleRater(backend=backend).score(["a", "b"], ["c", "d"], target_style=["layman", "simplified"])
    assert "more understandable for layman" in backend.prompts[0].user
    assert "more simple" in backend.prompts[1].user
    kept = ScriptedBackend({"": "{}"})
    MeaningStyleRater(backend=kept, style_names="as-given").score(["a"], ["c"], target_style="layman")
    assert "more layman" in kept.prompts[0].user


def test_packaged_prompt_is_steb_wording_with_the_three_fields():
    packaged = resources.files("steb_scorers.judges").joinpath("rater_prompts.json")
    prompt = get_prompt("rate-meaning-style", str(packaged))
    assert prompt.response == "meaning-style-json" and prompt.fields == {"style", "source", "output"}
    assert prompt.answer_tokens == 20
    assert prompt.template.rstrip().endswith("{output}")  # the sentences come last, as in the authors' prompt


CLONE_SCRIPT = """import torch
raise SystemExit("this file must be parsed, never run")

class Prompt8B:
    def predict(self, df, column_i="input", column_o="output"):
        prompt="Make it {} please. From: {} To: {} (answer {{json}})"
        df["message"] = df["prompt"].apply(lambda x: [{"role": "system", "content": "Be brief."},
                                                      {"role": "user", "content": x}])
        return df
"""


def test_prompt_read_from_a_clone_without_running_it(tmp_path):
    (tmp_path / "run_LLM_autorater_smallsize_on_data.py").write_text(CLONE_SCRIPT, encoding="utf-8")
    prompt = prompt_from_clone(tmp_path)
    assert prompt.system == "Be brief."
    assert prompt.render(style="polite", source="hi", output="hello") == (
        "Make it {} please. From: {} To: {} (answer {{json}})".format("polite", "hi", "hello")
    )
    assert prompt.version.startswith("clone sha256:")
    backend = ScriptedBackend({"polite": '{"meaning": 4, "style": 5}'})
    result = MeaningStyleRater(pauli_clone=str(tmp_path), backend=backend).score(["hi"], ["x"], target_style="polite")
    assert result.scores.tolist() == [4.0] and backend.prompts[0].system == "Be brief."
    assert result.details["prompt"]["name"] == "pauli2025-autorater"
    (tmp_path / "run_LLM_autorater_smallsize_on_data.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no function 'predict'"):
        prompt_from_clone(tmp_path)
    with pytest.raises(FileNotFoundError, match="clone of Pauli"):
        prompt_from_clone(tmp_path / "missing")


def test_end_to_end_on_a_tiny_local_model(tmp_path):
    pytest.importorskip("transformers")
    answers = {
        "ready": '{"meaning": 4, "style": 2}',
        "mat": '{"meaning": 2, "style": 5}',
        "cat": '{"meaning": 5, "style": "very"}',
        "dog": "hello",
    }
    model = build_bigram_causal_lm(tmp_path / "lm", answers)
    rater = MeaningStyleRater(model=str(model), backend_options={"batch_size": 2})
    outputs = ["you are ready", "the cat sat on the mat", "it is a dog", "the dog ran to the cat"]
    got = rater.score(["u r ready"] * 4, outputs, target_style="formal")
    # meaning: 4, 2, failed, 5 -> the failed one gets (4 + 2 + 5) / 3; style: 2, 5, failed, failed -> 3.5
    np.testing.assert_allclose(got.scores, [4, 2, 11 / 3, 5])
    np.testing.assert_allclose(got.components["style"], [2, 5, 3.5, 3.5])
    assert got.details["parse_failures"] == {"meaning": 1, "style": 2}
    assert got.details["temperature"] == 0.0 and got.details["max_tokens"] == 20 and got.details["n_samples"] == 1
    style = MeaningStyleRater(dimension="style", model=str(model))
    style = style.score(["u r ready"] * 4, outputs, target_style="formal")
    np.testing.assert_allclose(style.scores, got.components["style"])


def test_registered_for_both_aspects():
    specs = {s.name: s for s in SCORERS}
    assert specs["llm-rater-content"].aspect == "content" and specs["llm-rater-style"].aspect == "style"
    with pytest.raises(ValueError, match="dimension"):
        MeaningStyleRater(dimension="fluency", backend=ScriptedBackend({}))
