"""Where each PAN release comes from and which paper describes it, as data: ``sources=`` and ``citation=``.

One BibTeX entry per work: datasets described by the same overview paper share its key (the five
PAN18 attribution languages and PAN18 style change all cite Kestemont et al. 2018). Working-notes
papers of CLEF are cited with their CEUR-WS volume; the 2025 editions cite the PAN 2025 lab overview
(LNCS, with its DOI), and PAN26, whose overview is not out, cites its task page.

Sources follow the STEB authors' download script (the Zenodo record and archive each dataset is
read from) and pan.webis.de: ``zenodo`` where the record can be fetched, ``manual`` where Zenodo
grants access only on request (the record page says "Restricted", or the task page asks to request
access). Each PAN release lands in one shared folder under the data root named like the official
archive (``pan15-authorship-verification`` ...), which the loaders find beside the dataset folders;
``unpack`` lists the archives in the order they are unpacked, nested archives after the one that
holds them. The one ``url`` source (Mendeley's Enron archive) states no size: ``max_bytes`` is steb's bound for it
(issue 47), a generous multiple of the archive's size, past which the body is refused.
"""

from __future__ import annotations

from steb_core import SHARED_BIBTEX, DataSource

__all__ = ["BIBTEX", "ENRON_BIBTEX", "SOURCES", "PAN_LICENCE", "bibtex_for", "sources_for"]

#: PAN data comes with research-use terms on its Zenodo records; steb asks the user to accept them.
PAN_LICENCE = "PAN research-use terms (as stated on the Zenodo record; copyrighted texts, research purposes only)"

_CEUR = "CEUR Workshop Proceedings"


def _working_notes(key: str, author: str, title: str, year: int, clef: str, volume: int, url: str) -> str:
    return (
        f"@inproceedings{{{key},\n  author = {{{author}}},\n  title = {{{{{title}}}}},\n  booktitle = {{{clef}}},\n"
        f"  series = {{{_CEUR}}},\n  volume = {{{volume}}},\n  publisher = {{CEUR-WS.org}},\n  year = {{{year}}},\n  "
        f"url = {{{url}}},\n}}"
    )


#: Edition (year, or a name for the non-annual works) -> BibTeX. One key per work.
BIBTEX: dict[str | int, str] = {
    2013: _working_notes(
        "juola2013overview",
        "Juola, Patrick and Stamatatos, Efstathios",
        "Overview of the Author Identification Task at PAN 2013",
        2013,
        "Working Notes for CLEF 2013 Conference",
        1179,
        "https://ceur-ws.org/Vol-1179/",
    ),
    2014: _working_notes(
        "stamatatos2014overview",
        "Stamatatos, Efstathios and Daelemans, Walter and Verhoeven, Ben and Potthast, Martin and Stein, Benno and "
        "Juola, Patrick "
        "and Sanchez-Perez, Miguel A. and Barr{\\'o}n-Cede{\\~n}o, Alberto",
        "Overview of the Author Identification Task at PAN 2014",
        2014,
        "Working Notes for CLEF 2014 Conference",
        1180,
        "https://ceur-ws.org/Vol-1180/CLEF2014wn-Pan-StamatosEt2014.pdf",
    ),
    2015: _working_notes(
        "stamatatos2015overview",
        "Stamatatos, Efstathios and Daelemans, Walter and Verhoeven, Ben and Juola, Patrick and "
        "L{\\'o}pez-L{\\'o}pez, Aurelio "
        "and Potthast, Martin and Stein, Benno",
        "Overview of the Author Identification Task at PAN 2015",
        2015,
        "CLEF 2015 Evaluation Labs and Workshop -- Working Notes Papers",
        1391,
        "https://ceur-ws.org/Vol-1391/inv-pap3-CR.pdf",
    ),
    2018: _working_notes(
        "kestemont2018overview",
        "Kestemont, Mike and Tschuggnall, Michael and Stamatatos, Efstathios and Daelemans, Walter "
        'and Specht, G{\\"u}nther and Stein, Benno and Potthast, Martin',
        "Overview of the Author Identification Task at PAN-2018: Cross-domain Authorship Attribution "
        "and Style Change Detection",
        2018,
        "Working Notes Papers of the CLEF 2018 Evaluation Labs",
        2125,
        "https://ceur-ws.org/Vol-2125/",
    ),
    2020: SHARED_BIBTEX["kestemont2020overview"],  # also cited by the style plugin (fanfiction): one text, in the core
    2021: _working_notes(
        "kestemont2021overview",
        "Kestemont, Mike and Manjavacas, Enrique and Markov, Ilia and Bevendorff, Janek and Wiegmann, Matti "
        "and Stamatatos, Efstathios and Stein, Benno and Potthast, Martin",
        "Overview of the Cross-Domain Authorship Verification Task at PAN 2021",
        2021,
        "Working Notes of CLEF 2021 -- Conference and Labs of the Evaluation Forum",
        2936,
        "https://ceur-ws.org/Vol-2936/paper-147.pdf",
    ),
    2022: _working_notes(
        "zangerle2022overview",
        "Zangerle, Eva and Mayerl, Maximilian and Potthast, Martin and Stein, Benno",
        "Overview of the Style Change Detection Task at PAN 2022",
        2022,
        "Working Notes of CLEF 2022 -- Conference and Labs of the Evaluation Forum",
        3180,
        "https://ceur-ws.org/Vol-3180/",
    ),
    2023: _working_notes(
        "zangerle2023overview",
        "Zangerle, Eva and Mayerl, Maximilian and Potthast, Martin and Stein, Benno",
        "Overview of the Multi-Author Writing Style Analysis Task at PAN 2023",
        2023,
        "Working Notes of CLEF 2023 -- Conference and Labs of the Evaluation Forum",
        3497,
        "https://ceur-ws.org/Vol-3497/",
    ),
    2024: _working_notes(
        "zangerle2024overview",
        "Zangerle, Eva and Mayerl, Maximilian and Potthast, Martin and Stein, Benno",
        "Overview of the Multi-Author Writing Style Analysis Task at PAN 2024",
        2024,
        "Working Notes of CLEF 2024 -- Conference and Labs of the Evaluation Forum",
        3740,
        "https://ceur-ws.org/Vol-3740/",
    ),
    "gen2024": _working_notes(
        "bevendorff2024overview",
        'Bevendorff, Janek and Wiegmann, Matti and Karlgren, Jussi and D{\\"u}rlich, Luise and Gogoulou, Evangelia '
        "and Talman, Aarne and Stamatatos, Efstathios and Potthast, Martin and Stein, Benno",
        "Overview of the ``Voight-Kampff'' Generative AI Authorship Verification Task at PAN and ELOQUENT 2024",
        2024,
        "Working Notes of CLEF 2024 -- Conference and Labs of the Evaluation Forum",
        3740,
        "https://ceur-ws.org/Vol-3740/",
    ),
    # the PAN 2025 lab overview covers both 2025 tasks steb uses (generative AI detection, multi-author analysis)
    2025: (
        "@inproceedings{bevendorff2025overview,\n"
        '  author = {Bevendorff, Janek and Dementieva, Daryna and Fr{\\"o}be, Maik and Gipp, Bela '
        "and Greiner-Petter, Andr{\\'e} and Karlgren, Jussi and Mayerl, Maximilian and others},\n"
        "  title = {{Overview of PAN 2025: Voight-Kampff Generative AI Detection, Multilingual Text Detoxification, "
        "Multi-author Writing Style Analysis, and Generative Plagiarism Detection}},\n"
        "  booktitle = {Experimental IR Meets Multilinguality, Multimodality, and Interaction (CLEF 2025)},\n"
        "  series = {Lecture Notes in Computer Science},\n  publisher = {Springer Nature Switzerland},\n"
        "  pages = {388--411},\n"
        "  year = {2025},\n  doi = {10.1007/978-3-032-04354-2_21},\n}"
    ),
    2026: (
        "@misc{pan2026multiauthor,\n  author = {{PAN at CLEF 2026}},\n"
        "  title = {{Multi-Author Writing Style Analysis 2026}},\n"
        "  howpublished = {PAN shared task at CLEF 2026, task page},\n  year = {2026},\n"
        "  url = {https://pan.webis.de/clef26/pan26-web/writing-style-analysis.html},\n}"
    ),
    "pan-code": (
        "@misc{pan2026code,\n  author = {{PAN Shared Task Series}},\n"
        "  title = {{pan-code: PAN shared task code and smoke-test data}},\n"
        "  howpublished = {GitHub repository, commit db0391d3e3ecf5850589999f0d1e8a813df2a787},\n  year = {2026},\n"
        "  url = {https://github.com/pan-webis-de/pan-code},\n}"
    ),
}

ENRON_BIBTEX = (
    "@misc{halvani2017enron,\n  author = {Halvani, Oren},\n  title = {{Enron Authorship Verification Corpus}},\n"
    "  howpublished = {Mendeley Data, version 1},\n  publisher = {Mendeley Data},\n  year = {2017},\n"
    "  doi = {10.17632/n77w7mygwg.1},\n  url = {https://data.mendeley.com/datasets/n77w7mygwg/1},\n}"
)


def bibtex_for(edition: str | int) -> str:
    """The BibTeX of an edition's overview (2013 ... 2026, ``gen2024``, ``pan-code``)."""
    return BIBTEX[edition]


# --- sources ---------------------------------------------------------------------------------------------


def _zenodo_page(record: str) -> str:
    return f"https://zenodo.org/records/{record}"


def _zenodo(record: str, target: str, files: tuple[str, ...], unpack: tuple[str, ...] = ()) -> DataSource:
    """A fetchable Zenodo record; the instructions say what to do if Zenodo answers that access must be requested."""
    return DataSource(
        kind="zenodo",
        url=record,
        files=files,
        target=target,
        unpack=unpack or files,
        licence=PAN_LICENCE,
        accept=True,
        instructions=(
            f"if Zenodo refuses the download, request access on {_zenodo_page(record)}, download {', '.join(files)} "
            f"and unzip {' then '.join(unpack or files)} inside <data-root>/{target}/"
        ),
    )


def _restricted(
    record: str, target: str, files: tuple[str, ...], unpack: tuple[str, ...], extra: str = ""
) -> DataSource:
    """A Zenodo record PAN releases on request only: nothing can be fetched before access is granted."""
    return DataSource(
        kind="manual",
        url=_zenodo_page(record),
        files=files,
        target=target,
        unpack=unpack,
        licence=PAN_LICENCE,
        accept=True,
        instructions=(
            f"open {_zenodo_page(record)}, click 'Request access' (PAN grants it for research use{extra}), then "
            "download "
            f"{', '.join(files)} and unzip {' then '.join(unpack)} inside <data-root>/{target}/"
        ),
    )


_PAN14_INNER = (
    "pan14-authorship-verification-test-corpus1-2014-04-22.zip",
    "pan14-authorship-verification-test-corpus2-2014-04-22.zip",
)

#: Release name -> its source(s). Several datasets share one release (all PAN15 languages, PAN23 levels ...).
SOURCES: dict[str, tuple[DataSource, ...]] = {
    "pan13-av": (
        _zenodo(
            "3715999",
            "pan13-authorship-verification",
            ("pan13-authorship-verification-test-and-training.zip",),
            (
                "pan13-authorship-verification-test-and-training.zip",
                "pan13-authorship-verification-test-corpus2-2013-05-29.zip",
            ),
        ),
    ),
    # the two corpus zips each hold one zip per language/genre; those are unpacked too (names start with the corpus
    # zip's stem)
    "pan14-av": (
        _zenodo(
            "3716033",
            "pan14-authorship-verification",
            ("pan14-authorship-verification-test-and-training.zip",),
            ("pan14-authorship-verification-test-and-training.zip", *_PAN14_INNER, "pan14-*-test-corpus[12]-*.zip"),
        ),
    ),
    "pan15-av": (
        _restricted(
            "3737563",
            "pan15-authorship-verification",
            ("pan15-authorship-verification-test-and-training.zip",),
            (
                "pan15-authorship-verification-test-and-training.zip",
                "pan15-authorship-verification-test-dataset2-2015-04-19.zip",
                "pan15-authorship-verification-test-dataset2-2015-04-19/*.zip",
            ),
        ),
    ),
    # one record holds both test sets; STEB reads 250 same- and 250 different-author pairs of each
    "pan20-av": (
        _restricted(
            "5106099",
            "pan20-authorship-verification-test",
            ("pan20-authorship-verification-test.zip",),
            ("pan20-authorship-verification-test.zip",),
        ),
    ),
    "pan21-av": (
        _restricted(
            "5106099",
            "pan21-authorship-verification-test",
            ("pan21-authorship-verification-test.zip",),
            ("pan21-authorship-verification-test.zip",),
        ),
    ),
    "pan18-aa": (
        _zenodo(
            "3737849",
            "pan18-cross-domain-authorship-attribution",
            ("pan18-cross-domain-authorship-attribution-dataset.zip",),
            (
                "pan18-cross-domain-authorship-attribution-dataset.zip",
                "pan18-cross-domain-authorship-attribution-test-dataset2-2018-04-20.zip",
            ),
        ),
    ),
    # STEB reads the validation set of the PAN18 style change release
    "pan18-sc": (
        _zenodo(
            "3746040",
            "pan18-style-change-detection",
            ("pan18-style-change-detection-validation-dataset-2018-01-31.zip",),
        ),
    ),
    "pan22-sc": (_zenodo("6334245", "pan22-style-change-detection", ("pan22.zip",)),),
    "pan23-sc": (_zenodo("7729178", "pan23-multi-author-analysis", ("pan23-multi-author-analysis.zip",)),),
    "pan24-sc": (_zenodo("10677876", "pan24-multi-author-analysis", ("pan24-multi-author-analysis.zip",)),),
    "pan25-sc": (_zenodo("14891299", "pan25-multi-author-analysis", ("pan25-multi-author-analysis.zip",)),),
    "pan26-sc": (_zenodo("19068843", "pan26-multi-author-analysis", ("mawsa26-pan-zenodo.zip",)),),
    "pan24-gen": (_zenodo("10718757", "pan24-generative-authorship-news", ("pan24-generative-authorship-news.zip",)),),
    "pan25-gen-task1": (
        _restricted(
            "14962653",
            "pan25-generative-ai-detection-task1",
            ("pan25-generative-ai-detection-task1-train.zip",),
            ("pan25-generative-ai-detection-task1-train.zip",),
            extra="; register on TIRA first with the same e-mail address",
        ),
    ),
    # task 2 lands in the dataset's own folder: the task-1 folder (same edition) must never be taken for it
    "pan25-gen-task2": (
        _restricted(
            "14966981",
            "machine_text_detection_PAN25_collaborative",
            ("pan25-generative-ai-detection-task2-train.zip",),
            ("pan25-generative-ai-detection-task2-train.zip",),
            extra="; register on TIRA first with the same e-mail address",
        ),
    ),
    "pan26-gen-smoketest": (
        DataSource(
            kind="git",
            url="https://github.com/pan-webis-de/pan-code",
            revision="db0391d3e3ecf5850589999f0d1e8a813df2a787",
            files=("clef26/generative-authorship-verification/pan26-generative-ai-detection-smoke-test/*",),
            target="pan-code",
            licence="MIT (pan-code repository)",
        ),
    ),
    # Mendeley Data serves the dataset's archive publicly (no sign-in) from the cache URL the STEB authors' download
    # script fetches with curl (github.com/rrivera1849/STEB @43f8a8d6); no checksum is published, so steb pins it at its
    # first download. The outer zip holds Enron-Authorship-Verification-Corpus.zip, which holds 'Enron (80 authors)/'.
    "enron": (
        DataSource(
            kind="url",
            url="https://prod-dcd-datasets-cache-zipfiles.s3.eu-west-1.amazonaws.com/n77w7mygwg-1.zip",
            target="enron_authorship_corpus",
            files=("n77w7mygwg-1.zip",),
            unpack=("n77w7mygwg-1.zip", "Enron-Authorship-Verification-Corpus.zip"),
            max_bytes=256 << 20,
            licence="as stated on the Mendeley Data page (derived from the public Enron e-mail corpus)",
            accept=True,
            instructions=(
                "open https://data.mendeley.com/datasets/n77w7mygwg/1 ('Enron Authorship Verification Corpus', "
                "Halvani 2017, "
                "version 1) and click 'Download All' (n77w7mygwg-1.zip; the page's archive is served as "
                "https://prod-dcd-datasets-cache-zipfiles.s3.eu-west-1.amazonaws.com/n77w7mygwg-1.zip), unzip it, "
                "unzip the "
                "Enron-Authorship-Verification-Corpus.zip it holds, and put the folder 'Enron (80 authors)' (80 case "
                "folders, "
                "one per author) into <data-root>/enron_authorship_corpus/ (or rename the folder itself to "
                "<data-root>/enron_authorship_corpus/)"
            ),
        ),
    ),
}


def sources_for(release: str) -> tuple[DataSource, ...]:
    """The pinned source(s) of one release (see :data:`SOURCES`)."""
    return SOURCES[release]
