"""STEB's own column membership (the paper's Table 13 rows and Table 4's AV note), as data.

Since issue 38 these rows are the ``table13`` weighting (steb 0.2's columns, opt-in); the default columns are the
authors' manual clusters (:mod:`.reference_clusters`), which take from here only where a steb-only variant of a STEB
dataset (``STEL_register_official``, ``STEL-or-Content_*``) belongs.

The definitional columns do not follow the ``categories`` tags of the dataset specs one to one: the
paper lists, per column, *rows* (a row may hold several datasets: Blog = age + gender, PASTEL = its
six, PAN by year collapsed across tasks and difficulty levels), and some tagged corpora are no column's
row (the spam and hate-speech corpora are tagged ``register`` for ``steb list`` filtering but are not
Register rows). A column is the mean over its rows of the mean within each row.

Datasets STEB's catalogue does not know (the demo suite, a community plugin) keep working: each forms a
row of its own in the columns its ``categories`` tags (and ``content_independence`` mark) name.

How the paper combines the columns (Tables 3 and 9, checked arithmetically on all 40 of its model rows):
**Object of Study** is the mean of six columns -- genre, register, time, demographics, dialect and
**idiolect** -- and the **definitional score** is the mean of three groups: Object of Study, linguistic
features and content independence (order-alignment *distractor* accuracy over Table 13's eleven rows).
The paper contradicts itself on idiolect: Table 13 lists its rows (Enron, PAN by year, PAN18 SC and
PAN18 cross-domain AA as two rows, Amazon, ...), but for every model its published Idiolect equals
(AV overall + AR) / 2, the two columns of the applications table (:data:`IDIOLECT_PARTS`), which leave
PAN18 style change out. Under ``table13`` steb follows those published numbers; the Table 13 rows below remain the
``three-groups`` reading's idiolect column (:mod:`.definitional`).
"""

from __future__ import annotations

__all__ = [
    "OBJECT_OF_STUDY_COLUMNS",
    "TABLE13_ROWS",
    "IDIOLECT_PARTS",
    "TABLE13_EXCLUDED",
    "known_to_table13",
    "AV_OVERALL_EXCLUDED",
]

#: Object-of-study columns: (column key = category tag, label).
OBJECT_OF_STUDY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("genre", "Genre"),
    ("register", "Register"),
    ("time", "Time"),
    ("demographics", "Demographics"),
    ("dialect", "Dialect"),
)

_PAN_AV = "pan{}_authorship_verification"

#: column key -> ((row label, registered dataset names of that row), ...). Several spellings of one
#: corpus (``ceeces``/``ceces``, ``fce_l1``/``fce_11``) name the same row; a row's datasets are
#: whichever of its names are in scope.
TABLE13_ROWS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "genre": (
        ("CORE", ("core",)),
        ("X-GENRE", ("x_genre",)),
        ("MASC", ("masc_text_genre",)),
        ("Corpus of Diverse Styles", ("corpus-of-diverse-styles",)),
    ),
    "register": (
        ("STEL register", ("STEL_register", "STEL_register_official")),
        ("SynthSTEL register", ("SynthSTEL_register",)),
        ("Graded formality", ("graded_formality",)),
        ("OneStopEnglish", ("OneStopEnglishCorpus", "OneStopEnglish")),
        ("ASSET", ("ASSET",)),
        ("Wikipedia politeness", ("wikipedia_politeness",)),
        ("StackExchange politeness", ("stackexchange_politeness",)),
    ),
    "time": (
        ("Bible versions", ("bible_versions",)),
        ("CEECES", ("ceeces", "ceces")),
        ("Parallel Shakespeare", ("parallel_shakespeare",)),
    ),
    "demographics": (
        ("Blog", ("blog_age", "blog_gender")),
        ("FCE L1", ("fce_l1", "fce_11")),
        (
            "PASTEL",
            ("pastel_age", "pastel_education", "pastel_ethnic", "pastel_gender", "pastel_politics", "pastel_tod"),
        ),
    ),
    "dialect": (
        ("EnDive", ("endive",)),
        ("Twitter AAE/SAE", ("twitter_aave_sae",)),
        ("eWAVE", ("eWAVE",)),
    ),
    "idiolect": (
        ("Enron", ("enron_authorship_corpus",)),
        ("PAN13", (_PAN_AV.format(13) + "_english_test",)),
        (
            "PAN14",
            tuple(
                f"pan14_authorship_verification_corpus{c}_english_{g}_test"
                for c in (1, 2)
                for g in ("essays", "novels")
            ),
        ),
        ("PAN15", (_PAN_AV.format(15) + "_english_test",)),
        ("PAN18 SC", ("pan18_style_change",)),
        ("PAN18 cross-domain AA", ("pan18_cross_domain_authorship_attribution_english",)),
        ("PAN20", ("pan20_authorship_verification_test",)),
        ("PAN21", ("pan21_authorship_verification_test",)),
        ("PAN22", ("pan22_style_change_basic", "pan22_style_change_advanced", "pan22_style_change_sentence")),
        *(
            (f"PAN{year}", tuple(f"pan{year}_style_change_{level}" for level in ("easy", "medium", "hard")))
            for year in (23, 24, 25, 26)
        ),
        ("Amazon", ("amazon",)),
        ("Fanfiction", ("fanfiction",)),
        ("StackExchange", ("stackexchange_retrieval",)),
    ),
    "linguistic-feature": (
        ("STEL feature", ("STEL_feature", "STEL_feature_official")),
        ("SynthSTEL feature", ("SynthSTEL_feature",)),
        ("StylePTB", ("StylePTB",)),
        ("Probing Amazon", ("probing_amazon",)),
        ("Probing Blog", ("probing_blog",)),
        ("Probing Reddit", ("probing_reddit",)),
        ("Probing StackExchange", ("probing_stackexchange",)),
    ),
    # distractor accuracy only: STEB's STEL_* construction has distractors; STEL-or-Content_* (the
    # 'stel' suite) is STEL's own distractor variant. STEL_*_official (original quadruples) has none.
    "content-independence": (
        ("Corpus of Diverse Styles", ("corpus-of-diverse-styles",)),
        ("STEL register", ("STEL_register", "STEL-or-Content_register")),
        ("SynthSTEL register", ("SynthSTEL_register",)),
        ("Graded formality", ("graded_formality",)),
        ("OneStopEnglish", ("OneStopEnglishCorpus", "OneStopEnglish")),
        ("ASSET", ("ASSET",)),
        ("Parallel Shakespeare", ("parallel_shakespeare",)),
        ("Twitter AAE/SAE", ("twitter_aave_sae",)),
        ("STEL feature", ("STEL_feature", "STEL-or-Content_feature")),
        ("SynthSTEL feature", ("SynthSTEL_feature",)),
        ("StylePTB", ("StylePTB",)),
    ),
}

#: Table 9's Idiolect column: the mean of these application columns, (application tag, label) each, built
#: exactly as the applications table builds them (AV overall = PAN13-15, PAN20-21, Enron, PAN22-26 style
#: change; AR = PAN18 cross-domain AA English, Amazon, fanfiction, StackExchange).
IDIOLECT_PARTS: tuple[tuple[str, str], ...] = (("AV", "AV overall"), ("AR", "AR"))

#: STEB catalogue datasets that are no definitional column's row although their tags would suggest one
#: (spam and hate-speech corpora are tagged ``register``; PAN's non-English sets feed only multilingual).
TABLE13_EXCLUDED: frozenset[str] = frozenset(
    {
        "enron_spam",
        "sms_spam",
        "telegram-spam-ham",
        "hate_speech",
        "hate_speech_and_offensive_language",
    }
)

_KNOWN = frozenset(name for rows in TABLE13_ROWS.values() for _, names in rows for name in names) | TABLE13_EXCLUDED


def known_to_table13(dataset: str) -> bool:
    """Whether STEB's Table 13 decides this dataset's columns (else its spec's tags do)."""
    return dataset in _KNOWN


#: Table 4: "AV overall" is PAN13-15, PAN20-21, Enron and PAN22-26 style change -- not PAN18 style change,
#: although that dataset is tagged ``AV`` (it is an authorship row of the definitional score).
AV_OVERALL_EXCLUDED: frozenset[str] = frozenset({"pan18_style_change"})
