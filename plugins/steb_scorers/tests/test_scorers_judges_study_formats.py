"""A user's prompts file in the layout of the LLM-judge study's appendix: its field names, answer formats and scales.

The templates here are the tests' own short stand-ins (not the study's text); each parsed value and each
statistic is worked out by hand in the comments.
"""

from __future__ import annotations

import json
import re

import pytest

from steb_scorers.judges import PairwiseStyleJudge, StyleDetectionJudge, load_prompts
from steb_scorers.judges.prompts import ANSWER_TOKENS, PARSERS


class Scripted:
    def __init__(self, reply) -> None:
        self.reply, self.budgets, self.users = reply, [], []

    def complete(self, prompts, n, temperature, seed, max_tokens):
        self.budgets.append(max_tokens)
        self.users += [p.user for p in prompts]
        return [[self.reply(p.user, k) for k in range(n)] for p in prompts]

    def info(self):
        return {"backend": "scripted"}


@pytest.fixture
def study_file(tmp_path):
    prompts = {
        "det-3": {
            "version": "s1",
            "response": "likert3",
            "system": "You detect styles.",
            "template": "Style: {style_description}\nText: {response}\nReply 'Answer:' then your rating.",
        },
        "det-p": {
            "version": "s1",
            "response": "probability",
            "template": "{style_description} | {response} | Answer: probability",
        },
        "ab-email": {
            "version": "s1",
            "response": "ab",
            "fields": {"user_query_instruction": "Write an email."},
            "template": "{user_query_instruction}\n{user_query}\nStyle: {style_description}\n(a) {output_a}\n(b) "
            "{output_b}",
        },
        "rubric-add": {
            "version": "s1",
            "response": "rubric5",
            "template": "Task: {user_query}\nStyle: {style_description}\nResponse: {response}",
        },
    }
    path = tmp_path / "study.json"
    path.write_text(json.dumps(prompts), encoding="utf-8")
    return str(path)


def test_detection_answers_of_the_study():
    likert3, binary, prob, ten = PARSERS["likert3"], PARSERS["binary"], PARSERS["probability"], PARSERS["likert10"]
    assert [
        likert3(x)
        for x in (
            "Answer: Does not exhibit",
            "Answer: Somewhat exhibits",
            "Answer:  Clearly  exhibits",
            "Answer: maybe",
        )
    ] == [0, 1, 2, None]
    # the text after the last "Answer:" counts, not an echo of the options before it
    assert likert3("Options: Does not exhibit / Clearly exhibits.\nAnswer: Somewhat exhibits") == 1
    assert binary("Answer: No") == 0 and binary("I'd say yes.\nAnswer: No") == 0 and binary("Answer: Yes") == 1
    assert prob("Answer: 0.35") == pytest.approx(0.35) and prob("Answer: 1.5") is None
    assert ten("Answer: 10") == 10 and ten("Answer: 4") == 4


def test_pairwise_answers_output_a_b_and_tie():
    ab = PARSERS["ab"]
    assert [ab(x) for x in ("Output (a)", "Answer: Output (b)", "output(a)", "Tie", "Answer: tie")] == [
        "a",
        "b",
        "a",
        "tie",
        "tie",
    ]
    assert ab("Output (a) and Output (b) are both fine") is None and ab("neither") is None
    assert ab("A") == "a" and ab("Response B is better") == "b"  # steb's own format still parses


def test_additive_rubric_reads_the_number_after_score():
    rubric5 = PARSERS["rubric5"]
    justification = "The response meets 3 of the 5 criteria: it is 2 sentences long and uses 1 idiom. " * 5
    assert rubric5(justification + "\nScore: 4") == 4  # not the 3, 5, 2 or 1 of the text
    assert rubric5("Score: 2 ... on reflection, Score: 3") == 3  # the last "Score:"
    assert rubric5("Score: 6") is None and rubric5("4 points") is None and rubric5("Score: 2.5") is None
    assert rubric5("Score: 0") == 0
    assert PARSERS["rubric10"]("Justified in 5 words. Score: 8") == 8 and PARSERS["rubric10"]("7") == 7


def test_answer_budget_fits_the_longest_format(study_file):
    # a 100-word justification is about 130-150 tokens; the budget leaves room for "Score: N"
    assert ANSWER_TOKENS["rubric5"] >= 200 and ANSWER_TOKENS["rubric5"] == max(ANSWER_TOKENS.values())
    backend = Scripted(lambda u, k: "Score: 3")
    judge = PairwiseStyleJudge(prompt="rubric-add", prompts_file=study_file, n_samples=1, backend=backend)
    assert judge.max_tokens == ANSWER_TOKENS["rubric5"] and judge.method == "rubric"
    judge.compare(["x"], ["y"], ["terse"], ["q"])
    assert backend.budgets == [ANSWER_TOKENS["rubric5"]]
    assert (
        PairwiseStyleJudge(prompt="rubric-add", prompts_file=study_file, max_tokens=40, backend=backend).max_tokens
        == 40
    )
    assert (
        StyleDetectionJudge(prompt="detect-binary", backend=backend).max_tokens == 16
    )  # steb's default wording, short answer


def test_study_likert3_detection_end_to_end(study_file):
    replies = ["Answer: Somewhat exhibits", "Answer: Does not exhibit", "Answer: Clearly exhibits", "no idea"]
    backend = Scripted(lambda u, k: replies[k])
    res = StyleDetectionJudge(prompt="det-3", prompts_file=study_file, n_samples=4, backend=backend).score(
        ["s"], ["Dear Sir"], target_style="formal"
    )
    assert backend.users == ["Style: formal\nText: Dear Sir\nReply 'Answer:' then your rating."]
    # parsed [1, 0, 2, fail] -> binarised [present, absent, present]: share 2/3, majority present, one parse failure
    assert (
        res.scores[0] == pytest.approx(2 / 3)
        and res.components["majority"][0] == 1.0
        and res.details["parse_failures"] == 1
    )
    assert res.details["prompt"]["system"] == "You detect styles." and res.details["prompt"]["version"] == "s1"


def test_study_ab_fields_orders_and_tie(study_file):
    def reply(user, k):
        first = re.search(r"\(a\) (\S+)", user).group(1)
        if first == "P":
            return ["Output (a)", "Tie"][k]  # P wins when shown first; a tie in sample 2
        return ["Output (b)", "Output (b)"][k]  # P shown second: the judge still picks P

    backend = Scripted(reply)
    judge = PairwiseStyleJudge(prompt="ab-email", prompts_file=study_file, n_samples=2, backend=backend)
    out = judge.compare(["P"], ["Q"], ["casual"], ["Invite Bob."])
    assert backend.users[0] == "Write an email.\nInvite Bob.\nStyle: casual\n(a) P\n(b) Q"
    # sample 1: a (first) and a (second order, b -> a) agree -> a; sample 2: tie vs a -> disagreement -> tie; vote a:1
    # tie:1 -> tie
    assert (
        out.samples == [["a", "tie"]]
        and out.labels == ["tie"]
        and out.order_disagreements == 1
        and out.parse_failures == 0
    )


def test_study_additive_rubric_means(study_file):
    scores = {"P": ["Blah 5 things. Score: 4", "Score: 3"], "Q": ["Score: 5", "Score: 2 and 9 more words"]}
    backend = Scripted(lambda u, k: scores[re.search(r"Response: (\S+)", u).group(1)][k])
    out = PairwiseStyleJudge(prompt="rubric-add", prompts_file=study_file, n_samples=2, backend=backend).compare(
        ["P"], ["Q"], ["casual"], ["q"]
    )
    # P (4 + 3) / 2 = 3.5, Q (5 + 2) / 2 = 3.5: equal means -> tie; per sample 4<5 -> b, 3>2 -> a
    assert out.labels == ["tie"] and out.mean_scores == [(3.5, 3.5)] and out.samples == [["b", "a"]]


def test_bad_study_file_entries_are_named(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps({"x": {"version": "1", "response": "rubric5", "template": "{response}", "max_tokens": 0}})
    )
    with pytest.raises(ValueError, match=r"bad\.json.*'x'.*max_tokens"):
        load_prompts(path)
    path.write_text(json.dumps({"x": {"version": "1", "response": "ab", "template": "{output_a}", "fields": {"k": 3}}}))
    with pytest.raises(ValueError, match=r"'x'.*'fields'"):
        load_prompts(path)
    path.write_text(
        json.dumps(
            {"x": {"version": "1", "response": "ab", "template": "{user_query_instruction} {output_a} {output_b}"}}
        )
    )
    with pytest.raises(ValueError, match="user_query_instruction.*fields"):
        PairwiseStyleJudge(prompt="x", prompts_file=str(path), n_samples=1, backend=Scripted(lambda u, k: "A")).compare(
            ["a"], ["b"], ["s"]
        )
