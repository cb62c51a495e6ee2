"""ROUGE as Lai et al. (2022) computed it (`rouge1|rouge2|rougeL:variant=lai2022`): the pltrdy `rouge` package 0.3.2
on nltk tokens, checked against the package called as the authors' eval_content.py calls it and against values worked
out by hand from 0.3.2's rules (distinct words; sentences split at "."; union LCS; F with beta = P / R)."""

from __future__ import annotations

import sys

import pytest

from steb_scorers import lexical
from steb_scorers.lexical import LAI2022_ROUGE_VERSION, RougeScorer, nltk_tokenize
from steb_scorers.plugin import SCORERS

PAIRS = [
    ("it all depends on when ur ready.", "It all depends on when you are ready."),
    ("the cat the dog", "the cat sat"),
    ("Hey, what's up?? i dunno lol", "Hello, how are you? I do not know."),
    ("a b. c d", "a c"),
]


def _spec(name):
    return next(s for s in SCORERS if s.name == name)


def test_lai2022_rouge_equals_the_authors_package_call():
    rouge = pytest.importorskip("rouge")
    from importlib.metadata import version

    if version("rouge") != LAI2022_ROUGE_VERSION:
        pytest.skip(f"pltrdy rouge {version('rouge')} installed, the variant needs {LAI2022_ROUGE_VERSION}")
    authors = rouge.Rouge()
    sources, outputs = [p[0] for p in PAIRS], [p[1] for p in PAIRS]
    for measure, key in (("rouge1", "rouge-1"), ("rouge2", "rouge-2"), ("rougeL", "rouge-l")):
        got = _spec(measure).factory(against="source", variant="lai2022").score(sources, outputs)
        assert got.name == measure and got.details["variant"] == "lai2022"
        for i, (src, out) in enumerate(PAIRS):
            # eval_content.py: rouge.get_scores(' '.join(out_tokens), ' '.join(src_tokens), avg=True)[key]['f']
            want = authors.get_scores(" ".join(nltk_tokenize(out)), " ".join(nltk_tokenize(src)), avg=True)[key]["f"]
            assert got.scores[i] == pytest.approx(want, abs=1e-12)


def test_lai2022_rouge_l_by_hand():
    pytest.importorskip("rouge")
    scorer = RougeScorer("rougeL", against="source", variant="lai2022")
    got = scorer.score(["the cat sat", "a c"], ["the cat the dog", "a b. c d"]).scores
    # 1) distinct words: output {the, cat, dog} (n = 3), source {the, cat, sat} (m = 3); LCS "the cat" (2):
    #    R = P = 2/3, F = 2/3. (rouge-score counts tokens: P = 2/4, F = 4/7.)
    assert got[0] == pytest.approx(2 / 3, abs=1e-9)
    # 2) the output is two sentences "a b" and "c d" (split at "."; the period token goes), the source one, "a c":
    #    union LCS {a} | {c} = 2 words, m = 2, n = 4: R = 1, P = 1/2, beta = P / R = 1/2,
    #    F = (1 + beta^2) R P / (R + beta^2 P) = 0.625 / 1.125 = 5/9 (rouge 1.0.x's F1 would be 2/3)
    assert got[1] == pytest.approx(5 / 9, abs=1e-9)
    default = RougeScorer("rougeL", against="source").score(["the cat sat"], ["the cat the dog"]).scores
    assert default[0] == pytest.approx(4 / 7)  # rouge-score stays the default


def test_lai2022_rouge_refuses_another_package_version(monkeypatch):
    pytest.importorskip("rouge")
    monkeypatch.setattr(lexical, "_pltrdy_rouge_version", lambda: "1.0.1")
    with pytest.raises(RuntimeError, match=r"version 0\.3\.2.*1\.0\.1 is installed"):
        RougeScorer("rougeL", against="source", variant="lai2022").score(["a b"], ["a b"])
    monkeypatch.setitem(sys.modules, "rouge", None)  # not installed
    with pytest.raises(RuntimeError, match=r"pip install rouge==0\.3\.2"):
        RougeScorer("rougeL", against="source", variant="lai2022").score(["a b"], ["a b"])
    with pytest.raises(ValueError, match="ROUGE variant must be one of"):
        RougeScorer("rougeL", variant="lai2021")
    with pytest.raises(ValueError, match="ROUGE measure must be one of"):
        RougeScorer("rougeW")
