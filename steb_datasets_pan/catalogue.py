"""Every PAN dataset STEB uses, as :class:`DatasetSpec` data (names, budgets and sizes from the STEB catalogue).

Specs are built by a few small builders (one per release format) so a dataset is one line of data;
loaders are ``functools.partial`` objects over module-level functions, which keeps specs picklable
for executors that ship work to other processes. English datasets of the STEB paper are in the
``steb`` suite; the non-English PAN13–15 AV and PAN18 AA datasets feed the separate multilingual
score and sit in ``steb-multilingual``; everything is also in ``pan``. The (dataset, task) pairs of the
``steb`` suite are exactly the catalogue's rows (PAN24 news feeds all-to-all pairs only outside it, via
``suite_tasks``), and ``expected`` repeats the catalogue's classes / per class / texts for ``steb data check``.
Every loader also finds its release under PAN's official folder name beside ``<data-dir>/<dataset name>``
(``pan26-style-change-smoketest/``, ``pan23-multi-author-analysis-dataset1/`` ...) or in a pan-code clone.
Sources (the Zenodo record, Mendeley page or commit each release comes from) and BibTeX live in
``releases.py``; the Enron corpus is read from Halvani's Mendeley release (``enron.py``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from steb_core import DatasetSpec

from .attribution import AttributionSource, load_attribution
from .av_folders import AVFolderSource, load_av_folders
from .av_jsonl import AVJsonlSource, load_av_jsonl
from .enron import EnronSource, load_enron
from .generative import GenerativeSource, load_generative
from .releases import ENRON_BIBTEX, bibtex_for, sources_for
from .style_change import StyleChangeSource, load_style_change

__all__ = ["pan_datasets"]

DATA_PAGE = "https://pan.webis.de/data.html"
MAIN_SUITES = ("steb", "pan")
MULTI_SUITES = ("steb-multilingual", "pan")
LICENSE = "research use, as stated on the PAN/Zenodo record (some PAN corpora are released on request)"

#: Edition -> BibTeX of its overview paper (see releases.py; one key per work).
_CITE = {year: bibtex_for(year) for year in (2013, 2014, 2015, 2018, 2020, 2021, 2022, 2023, 2024, 2025, 2026)}
_CITE_GEN = {2024: bibtex_for("gen2024"), 2025: bibtex_for(2025)}
_STEB_CITE = "Rivera Soto, R., Wegmann, A. & Aggazzotti, C. STEB: Style Text Embedding Benchmark."


def _page(year: int, task: str) -> str:
    return f"https://pan.webis.de/clef{year % 100}/pan{year % 100}-web/{task}.html"


def _lang_name(code: str) -> str:
    return {
        "en": "English",
        "nl": "Dutch",
        "el": "Greek",
        "es": "Spanish",
        "fr": "French",
        "it": "Italian",
        "pl": "Polish",
    }[code]


def _where(release: str) -> str:
    """How the obtain text names a release's source: the Zenodo record (and whether access must be requested) or the
    page."""
    src = sources_for(release)[0]
    files = ", ".join(src.files)
    if src.kind == "zenodo":
        return f"Zenodo record {src.url} ({files}; `steb data get` fetches it into <data-root>/{src.target}/)"
    if src.kind == "manual":
        return f"{src.url} ({files}; access on request: {src.instructions})"
    return src.describe()


# --- style change -------------------------------------------------------------------------------------

_SC_TASK_PAGE = {
    2018: "style-change-detection",
    2022: "style-change-detection",
    2023: "writing-style-analysis",
    2024: "writing-style-analysis",
    2025: "writing-style-analysis",
    2026: "writing-style-analysis",
}
_SC_LEVEL_TEXT = {
    "basic": "two authors, exactly one change between paragraphs",
    "advanced": "up to five authors, changes between paragraphs",
    "sentence": "changes between consecutive sentences",
    "easy": "paragraphs of a document cover varied topics, so topic hints at author changes",
    "medium": "little topical variety; style must be used",
    "hard": "all paragraphs on the same topic",
}
#: STEB catalogue: number of predefined pairs per style-change dataset.
_SC_PAIRS = {
    (2018, ""): 1492,
    (2022, "advanced"): 9537,
    (2022, "basic"): 2141,
    (2022, "sentence"): 22105,
    (2023, "easy"): 2826,
    (2023, "hard"): 4112,
    (2023, "medium"): 7013,
    (2024, "easy"): 2471,
    (2024, "hard"): 4131,
    (2024, "medium"): 4592,
    (2025, "easy"): 10247,
    (2025, "hard"): 10648,
    (2025, "medium"): 12759,
    (2026, "easy"): 71108,
    (2026, "hard"): 54141,
    (2026, "medium"): 24406,
}


def _style_change(year: int, level: str = "") -> DatasetSpec:
    source = StyleChangeSource(year, level)
    name = f"pan{year % 100}_style_change" + (f"_{level}" if level else "")
    yy = year % 100
    if year == 2018:
        archive = "the PAN18 style change detection corpus (pan18-style-change-detection-*-dataset)"
        what = (
            "PAN18 style change detection: StackExchange documents, each labelled with whether it contains a style "
            "change (and where). One trial per document, as the STEB reference cuts it: the text before the first "
            "change vs the segment after it (different authors), or the two halves split at the whitespace "
            "nearest the midpoint (same author)."
        )
    else:
        archive = (
            f"the PAN{yy} {'style change detection' if year == 2022 else 'multi-author writing style analysis'} "
            f"release (pan{yy}-...zip)"
        )
        what = (
            f"PAN{yy} style change detection, {level} ({_SC_LEVEL_TEXT[level]}): consecutive {source.unit_name}s of a "
            "document "
            f"form a pair, same-author when `changes` is 0."
        )
        if source.edition.downsample:
            what += (
                " Every different-author pair is kept and same-author pairs at one global rate (all changes / "
                "all same pairs), drawn with random.Random(42) across the documents, as the STEB reference does."
            )
    pairs = _SC_PAIRS[(year, level)]
    apps = ("AV", f"AV-{level}") if year >= 2023 else ("AV",)
    obtain = (
        f"{archive} from {_where(f'pan{yy}-sc')} (task page {_page(year, _SC_TASK_PAGE[year])}; index: {DATA_PAGE}); "
        f"unzip into <data-dir> as <data-dir>/{name}/ or under its official folder name (pan{yy}-...; a pan-code "
        "clone's "
        f"clef{yy}/multi-author-analysis works too), keeping the level/split folders (default split: test, else "
        "validation, "
        f"else train; option split=...)"
    )
    return DatasetSpec(
        name=name,
        description=what,
        tasks=("pair_predefined",),
        loader=partial(load_style_change, source=source, obtain=obtain),
        languages=("en",),
        categories=("idiolect",),
        applications=apps,
        suites=MAIN_SUITES,
        citation=_CITE[year],
        license=LICENSE,
        obtain=obtain + ". Layout: " + source.layout(),
        homepage=_page(year, _SC_TASK_PAGE[year]),
        sources=sources_for(f"pan{yy}-sc"),
        size=f"{pairs:,} pairs ({2 * pairs:,} texts) in STEB"
        + (" after down-sampling" if source.edition.downsample else ""),
        expected={"pair_predefined": {"classes": pairs, "per_class": 2, "texts": 2 * pairs}},
        extra={"pan_edition": year, "level": level or None, "unit": source.unit_name},
    )


# --- folder-per-problem authorship verification --------------------------------------------------------


def _av_folders(
    year: int, lang: str, prefixes: tuple[str, ...], label: str, archive: str, trials: int | None, corpus: str = ""
) -> DatasetSpec:
    name = f"pan{year % 100}_authorship_verification_{corpus + '_' if corpus else ''}{label}_test"
    source = AVFolderSource(
        prefixes,
        f"PAN{year % 100} authorship verification ({label.replace('_', ' ')}{', ' + corpus if corpus else ''})",
        edition=f"pan{year % 100}",
        corpus=corpus,
        known="all" if year == 2013 else "first",
    )
    page = _page(year, "author-identification")
    obtain = (
        f"the test corpus {archive} from {_where(f'pan{year % 100}-av')} (task page {page}; index: {DATA_PAGE}); "
        "unzip into <data-dir> "
        f"as <data-dir>/{name}/ or under the archive's own folder name (pan{year % 100}-...-verification-...; "
        f"problems {'/'.join(prefixes)}*)"
    )
    english = lang == "en"
    size = (
        f"{trials:,} trials ({2 * trials:,} texts) in STEB"
        if trials
        else "all test problems of the language/genre (one trial each)"
    )
    return DatasetSpec(
        name=name,
        description=(
            f"PAN{year % 100} authorship verification, {_lang_name(lang)} "
            f"{label.split('_')[-1] if '_' in label else ''} test problems"
            f"{' (' + corpus + ')' if corpus else ''}: "
            + (
                "the known texts of a problem joined with a blank line"
                if year == 2013
                else "a problem's first known text (known01.txt)"
            )
            + " vs the unknown text, same-author per truth.txt (the STEB reference's loader)."
        ).replace("  ", " "),
        tasks=("pair_predefined",),
        loader=partial(load_av_folders, source=source, obtain=obtain),
        languages=(lang,),
        categories=("idiolect",),
        applications=("AV",) if english else ("multilingual",),
        suites=MAIN_SUITES if english else MULTI_SUITES,
        citation=_CITE[year],
        license=LICENSE,
        obtain=obtain + ". Layout: " + source.layout(),
        homepage=page,
        size=size,
        sources=sources_for(f"pan{year % 100}-av"),
        expected={"pair_predefined": {"classes": trials, "per_class": 2, "texts": 2 * trials}} if trials else {},
        extra={"pan_edition": year, "problem_prefixes": prefixes},
    )


def _enron() -> DatasetSpec:
    source = EnronSource()
    obtain = (
        "the Enron Authorship Verification Corpus (O. Halvani, Fraunhofer SIT, 2017; 80 cases of 4 known + 1 unknown "
        "text of "
        f"aggregated e-mails) from Mendeley Data: {sources_for('enron')[0].instructions}. The folder may also stay in "
        "the data root "
        "as 'Enron (80 authors)'. PAN-style case folders (known01.txt/unknown.txt) are read with --dataset-option "
        "layout=pan"
    )
    return DatasetSpec(
        name="enron_authorship_corpus",
        description=(
            "Enron e-mail authorship verification (Halvani's Mendeley release): 80 cases, the 4 known texts joined "
            "with a blank "
            "line vs the unknown text, same-author per truth.txt."
        ),
        tasks=("pair_predefined",),
        loader=partial(load_enron, source=source, obtain=obtain),
        languages=("en",),
        categories=("idiolect",),
        applications=("AV",),
        suites=MAIN_SUITES,
        citation=ENRON_BIBTEX,
        license=sources_for("enron")[0].licence,
        obtain=obtain + ". Layout: " + source.layout(),
        homepage="https://data.mendeley.com/datasets/n77w7mygwg/1",
        sources=sources_for("enron"),
        size="80 trials (160 texts)",
        extra={"cases": 80, "release": "Mendeley Data n77w7mygwg v1"},
        expected={"pair_predefined": {"classes": 80, "per_class": 2, "texts": 160}},
    )


# --- PAN20/21 jsonl verification -----------------------------------------------------------------------


def _av_jsonl(year: int) -> DatasetSpec:
    source = AVJsonlSource(
        f"PAN{year % 100} cross-domain authorship verification (fanfiction), test set", edition=f"pan{year % 100}"
    )
    page = _page(year, "author-identification")
    obtain = (
        f"the PAN{year % 100} authorship verification test set (pan{year % 100}-authorship-verification-test.jsonl + "
        f"...-test-truth.jsonl) from {_where(f'pan{year % 100}-av')} (task page {page}; index: {DATA_PAGE}); put both "
        "files in <data-dir>"
    )
    return DatasetSpec(
        name=f"pan{year % 100}_authorship_verification_test",
        description=(
            f"PAN{year % 100} cross-domain authorship verification on fanfiction (pairs of texts from different "
            "fandoms): "
            "every pair of the folder's data file, in file order, as the STEB reference reads it (it expects "
            "a folder already subsampled to STEB's 250 same / 250 different pairs; option "
            "pairs_per_class=250 draws a seeded balanced sample from a full release)."
        ),
        tasks=("pair_predefined",),
        loader=partial(load_av_jsonl, source=source, obtain=obtain),
        languages=("en",),
        categories=("idiolect",),
        applications=("AV",),
        suites=MAIN_SUITES,
        citation=_CITE[year],
        license=LICENSE,
        obtain=obtain + ". Layout: " + source.layout(),
        homepage=page,
        sources=sources_for(f"pan{year % 100}-av"),
        size="500 pairs in STEB (250 same / 250 different; 1,000 texts): every pair of the folder given",
        extra={"pan_edition": year, "pairs_per_class": 250},
        expected={"pair_predefined": {"classes": 500, "per_class": 2, "texts": 1000}},
    )


# --- PAN18 cross-domain attribution --------------------------------------------------------------------

_AA_LANGS = {
    "en": ("english", "en"),
    "fr": ("french", "fr"),
    "it": ("italian", "it"),
    "pl": ("polish", "pl"),
    "es": ("spanish", "sp"),
}


def _attribution(lang: str) -> DatasetSpec:
    label, pan_code = _AA_LANGS[lang]
    source = AttributionSource(pan_code)
    page = _page(2018, "author-identification")
    obtain = (
        "the PAN18 cross-domain authorship attribution test corpus "
        "(pan18-cross-domain-authorship-attribution-test-dataset2-*) from "
        f"{_where('pan18-aa')} (task page {page}; index: {DATA_PAGE}); unzip into <data-dir> (problems with language "
        f"'{pan_code}' are used)"
    )
    english = lang == "en"
    return DatasetSpec(
        name=f"pan18_cross_domain_authorship_attribution_{label}",
        description=(
            f"PAN18 cross-domain authorship attribution (fanfiction), {_lang_name(lang)}: each candidate author's "
            "known texts form a "
            "retrieval target (concatenated into one document, STEB §C.9), each unknown text a query; problems pooled, "
            "open-set <UNK> texts left out."
        ),
        tasks=("retrieval",),
        loader=partial(load_attribution, source=source, obtain=obtain),
        languages=(lang,),
        categories=("idiolect",),
        applications=("AR",) if english else ("multilingual",),
        suites=MAIN_SUITES if english else MULTI_SUITES,
        citation=_CITE[2018],
        license=LICENSE,
        obtain=obtain + ". Layout: " + source.layout(),
        homepage=page,
        sources=sources_for("pan18-aa"),
        size="50 authors, 259 texts in STEB" if english else "all test problems of the language",
        expected={"retrieval": {"classes": 50, "per_class": 5, "texts": 259}} if english else {},
        extra={"pan_edition": 2018, "pan_language_code": pan_code},
    )


# --- AI-text detection ---------------------------------------------------------------------------------


def _generative(
    name: str,
    source: GenerativeSource,
    year: int,
    description: str,
    obtain: str,
    size: str,
    release: str,
    suites: tuple[str, ...] = MAIN_SUITES,
    applications: tuple[str, ...] = ("ATD",),
    tasks: tuple[str, ...] = ("clustering",),
    suite_tasks: dict[str, Any] | None = None,
    expected: dict[str, Any] | None = None,
    citation: str = "",
) -> DatasetSpec:
    page = _page(year, "generated-content-analysis")
    obtain = obtain.format(page=page, data=DATA_PAGE, where=_where(release))
    return DatasetSpec(
        name=name,
        description=description,
        tasks=tasks,
        loader=partial(load_generative, source=source, obtain=obtain),
        languages=("en",),
        categories=("ai-detection",),
        applications=applications,
        suites=suites,
        citation=citation or _CITE_GEN[min(year, 2025)],
        license=sources_for(release)[0].licence,
        obtain=obtain + ". Layout: " + source.layout(),
        homepage=page,
        size=size,
        sources=sources_for(release),
        suite_tasks=suite_tasks or {},
        expected=expected or {},
        extra={"per_class": source.per_class, "genre": source.genre, "labelling": source.labelling},
    )


_PAN25_OBTAIN = (
    "the PAN25 Voight-Kampff generative AI detection task-1 release (train.jsonl/val.jsonl with id, text, model, "
    "label, genre; "
    "PAN26 reuses it) from {where} (task page {page}; index: {data}); put the jsonl files in <data-dir> (val.jsonl is "
    "preferred; option texts_file)"
)
_PAN25_CLASSES = {"essays": (13, 25), "fiction": (12, 25), "news": (14, 59)}


def _pan25_26(genre: str) -> DatasetSpec:
    classes, per_class = _PAN25_CLASSES[genre]
    return _generative(
        f"machine_text_detection_PAN25_26_{genre}",
        GenerativeSource(
            "PAN25/26 generative AI detection, task 1",
            genre=genre,
            labelling="model",
            per_class=per_class,
            edition="pan25",
        ),
        2025,
        f"PAN25/26 Voight-Kampff AI detection, {genre}: texts clustered by source (human or each generating LLM; "
        f"{classes} classes), "
        f"at most {per_class} texts per class (seeded).",
        _PAN25_OBTAIN,
        f"{classes} classes x <={per_class} texts ({classes * per_class:,} texts) in STEB",
        "pan25-gen-task1",
        expected={"clustering": {"classes": classes, "per_class": per_class, "texts": classes * per_class}},
    )


def _ai_detection() -> list[DatasetSpec]:
    specs = [
        _generative(
            "machine_text_detection_PAN24_news",
            GenerativeSource(
                "PAN24 generative authorship verification (news)", labelling="model", per_class=200, edition="pan24"
            ),
            2024,
            "PAN24 Voight-Kampff generative authorship, news articles: human articles and 13 LLMs' rewrites clustered "
            "by source "
            "(14 classes), at most 200 texts per class (seeded).",
            "the PAN24 generative authorship news data (pan24-generative-authorship-news: human.jsonl + "
            "machines/<model>.jsonl) "
            "from {where} (task page {page}; index: {data}); unzip into <data-dir>",
            "14 classes x <=200 texts (2,800 texts) in STEB",
            "pan24-gen",
            tasks=("clustering", "pair_all"),  # issue 6: PAN24 also feeds all-to-all pairs, outside the steb suite
            suite_tasks={"steb": ("clustering",)},  # issue 15: the STEB catalogue has PAN24 news as clustering only
            expected={"clustering": {"classes": 14, "per_class": 200, "texts": 2800}},
        ),
        *(_pan25_26(g) for g in ("essays", "fiction", "news")),
        _generative(
            "machine_text_detection_PAN25_collaborative",
            GenerativeSource(
                "PAN25 human-AI collaborative text classification, task 2",
                labelling="category",
                per_class=200,
                edition="pan25",
            ),
            2025,
            "PAN25 task 2, human-AI collaboration: texts clustered by the six collaboration categories (fully human, "
            "human-written "
            "machine-polished, machine-written machine-humanized, human-initiated machine-continued, deeply mixed, "
            "machine-written "
            "human-edited), at most 200 per class (seeded).",
            "the PAN25 task-2 release (train.jsonl/dev.jsonl with text, label/label_text, model) from {where} (task "
            "page {page}; "
            "index: {data}); put the jsonl files in <data-dir> (option texts_file to choose)",
            "6 classes x <=200 texts (1,200 texts) in STEB",
            "pan25-gen-task2",
            expected={"clustering": {"classes": 6, "per_class": 200, "texts": 1200}},
        ),
        _generative(
            "pan26_generative_ai_detection_smoketest",
            GenerativeSource(
                "PAN26 generative AI detection smoke test", labelling="binary", per_class=None, edition="pan26"
            ),
            2026,
            "The PAN26 organisers' smoke-test sample (34 texts, human vs machine): a tiny check that the AI-detection "
            "path runs; "
            "not part of the STEB scores.",
            "pan26-generative-ai-detection-smoke-test (dataset.jsonl + test-truth.jsonl) from "
            "github.com/pan-webis-de/pan-code "
            "(clef26/generative-authorship-verification/); keep that folder under <data-dir> with its own name, or "
            "the pan-code "
            "clone itself as <data-dir>/pan-code",
            "34 texts, 2 classes",
            "pan26-gen-smoketest",
            suites=("pan-smoke",),
            applications=(),
            citation=bibtex_for("pan-code"),
        ),
    ]
    return specs


def pan_datasets() -> list[DatasetSpec]:
    """All PAN dataset specs (building them reads no data)."""
    specs: list[DatasetSpec] = [_style_change(2018)]
    specs += [_style_change(2022, lvl) for lvl in ("basic", "advanced", "sentence")]
    specs += [_style_change(y, lvl) for y in (2023, 2024, 2025, 2026) for lvl in ("easy", "medium", "hard")]
    pan13 = (
        "(pan13-authorship-verification-test-corpus2-2013-05-29, inside "
        "pan13-authorship-verification-test-and-training.zip)"
    )
    specs += [
        _av_folders(2013, "en", ("EN",), "english", pan13, 30),
        _av_folders(2013, "el", ("GR",), "greek", pan13, None),
        _av_folders(2013, "es", ("SP",), "spanish", pan13, None),
    ]
    pan14_trials = {
        ("corpus1", "english_essays"): 100,
        ("corpus1", "english_novels"): 100,
        ("corpus2", "english_essays"): 200,
        ("corpus2", "english_novels"): 200,
    }
    pan14_sets = [
        ("en", ("EE",), "english_essays"),
        ("en", ("EN",), "english_novels"),
        ("nl", ("DE",), "dutch_essays"),
        ("nl", ("DR",), "dutch_reviews"),
        ("el", ("GR",), "greek_articles"),
        ("es", ("SP",), "spanish_articles"),
    ]
    for corpus in ("corpus1", "corpus2"):
        for lang, prefixes, label in pan14_sets:
            specs.append(
                _av_folders(
                    2014,
                    lang,
                    prefixes,
                    label,
                    f"(pan14-author-verification-test-{corpus}-*)",
                    pan14_trials.get((corpus, label)),
                    corpus=corpus,
                )
            )
    pan15 = "(pan15-authorship-verification-test-dataset2-*)"
    specs += [
        _av_folders(2015, "en", ("EN",), "english", pan15, 500),
        _av_folders(2015, "nl", ("DU",), "dutch", pan15, None),
        _av_folders(2015, "el", ("GR",), "greek", pan15, None),
        _av_folders(2015, "es", ("SP",), "spanish", pan15, None),
    ]
    specs += [_av_jsonl(2020), _av_jsonl(2021), _enron()]
    specs += [_attribution(lang) for lang in _AA_LANGS]
    specs += _ai_detection()
    return specs
