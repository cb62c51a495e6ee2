"""Pinned public releases and BibTeX of the style plugin's datasets (issues 30 and 26).

Kept apart from the loaders so that the catalogue attaches them to its specs without reading code
that parses data. ``SOURCES`` says where each release comes from and where it lands under the data
root (the folder the dataset's reader looks in: its own name or a shared release folder); git
revisions are the commits whose files were checked against the readers. ``CITATIONS`` holds one
BibTeX entry per work (datasets from one paper share one entry; a dataset built from two works, e.g.
a corpus and the preprocessing that made the retrieval split, cites both).

Datasets whose releases are owned by catalogue.py (bible_versions, pastel_*, ceeces, blog_age,
blog_gender, gede_essay_detection) are not listed here.

A url or Drive file whose publisher states no size carries ``max_bytes``: steb's bound for it (issue 47), a
generous multiple of the release's size, so a body past it is refused and the download's default deadline is
scaled to it instead of four hours.
"""

from __future__ import annotations

from steb_core import SHARED_BIBTEX, DataSource

__all__ = [
    "SOURCES",
    "CITATIONS",
    "licence_of",
    "bibtex_entry",
    "HATE_FORUM_METADATA",
    "HATE_FORUM_SAMPLED",
    "HATE_FORUM_ALL",
]

# ------------------------------------------------------------------------------------------------
# BibTeX, one entry per work
# ------------------------------------------------------------------------------------------------
_BIB = {
    "laippala2022core": """@article{laippala2022core,
  author = {Laippala, Veronika and R{\\"o}nnqvist, Samuel and Oinonen, Miika and Kyr{\\"o}l{\\"a}inen, Aki-Juhani and Salmela, Anna and Biber, Douglas and Egbert, Jesse and Pyysalo, Sampo},
  title = {Register identification from the unrestricted open Web using the Corpus of Online Registers of English},
  journal = {Language Resources and Evaluation},
  year = {2022},
  doi = {10.1007/s10579-022-09624-1},
}""",  # noqa: E501 - BibTeX, one field per line
    "kuzman2023xgenre": """@article{kuzman2023xgenre,
  author = {Kuzman, Taja and Mozeti{\\v{c}}, Igor and Ljube{\\v{s}}i{\\'c}, Nikola},
  title = {Automatic Genre Identification for Robust Enrichment of Massive Text Collections: Investigation of Classification Methods in the Era of Large Language Models},
  journal = {Machine Learning and Knowledge Extraction},
  volume = {5},
  number = {3},
  pages = {1149--1175},
  year = {2023},
  doi = {10.3390/make5030059},
}""",  # noqa: E501 - BibTeX, one field per line
    "ide2010masc": """@inproceedings{ide2010masc,
  author = {Ide, Nancy and Baker, Collin and Fellbaum, Christiane and Passonneau, Rebecca},
  title = {The Manually Annotated Sub-Corpus: A Community Resource for and by the People},
  booktitle = {Proceedings of the ACL 2010 Conference Short Papers},
  pages = {68--73},
  year = {2010},
  url = {https://aclanthology.org/P10-2013},
}""",
    "yannakoudakis2011fce": """@inproceedings{yannakoudakis2011fce,
  author = {Yannakoudakis, Helen and Briscoe, Ted and Medlock, Ben},
  title = {A New Dataset and Method for Automatically Grading {ESOL} Texts},
  booktitle = {Proceedings of the 49th Annual Meeting of the Association for Computational Linguistics: Human Language Technologies},
  pages = {180--189},
  year = {2011},
  url = {https://aclanthology.org/P11-1019},
}""",  # noqa: E501 - BibTeX, one field per line
    "danescu2013politeness": """@inproceedings{danescu2013politeness,
  author = {Danescu-Niculescu-Mizil, Cristian and Sudhof, Moritz and Jurafsky, Dan and Leskovec, Jure and Potts, Christopher},
  title = {A computational approach to politeness with application to social factors},
  booktitle = {Proceedings of the 51st Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)},
  pages = {250--259},
  year = {2013},
  url = {https://aclanthology.org/P13-1025},
}""",  # noqa: E501 - BibTeX, one field per line
    "kortmann2020ewave": """@misc{kortmann2020ewave,
  author = {Kortmann, Bernd and Lunkenheimer, Kerstin and Ehret, Katharina},
  title = {The Electronic World Atlas of Varieties of English},
  publisher = {Zenodo},
  year = {2020},
  doi = {10.5281/zenodo.3712132},
  url = {https://ewave-atlas.org},
}""",
    "gupta2025endive": """@inproceedings{gupta2025endive,
  author = {Gupta, Abhay and Cheung, Jacob and Meng, Philip and Sayyed, Shayan and Zhu, Kevin and Liao, Austen and O'Brien, Sean},
  title = {{EnDive}: A Cross-Dialect Benchmark for Fairness and Performance in Large Language Models},
  booktitle = {Findings of the Association for Computational Linguistics: EMNLP 2025},
  pages = {16830--16855},
  year = {2025},
  doi = {10.18653/v1/2025.findings-emnlp.913},
}""",  # noqa: E501 - BibTeX, one field per line
    "metsis2006spam": """@inproceedings{metsis2006spam,
  author = {Metsis, Vangelis and Androutsopoulos, Ion and Paliouras, Georgios},
  title = {Spam Filtering with Naive {Bayes} -- Which Naive {Bayes}?},
  booktitle = {Third Conference on Email and Anti-Spam (CEAS 2006)},
  year = {2006},
  url = {https://www2.aueb.gr/users/ion/data/enron-spam/},
}""",
    "almeida2011sms": """@inproceedings{almeida2011sms,
  author = {Almeida, Tiago A. and G{\\'o}mez Hidalgo, Jos{\\'e} Mar{\\'i}a and Yamakami, Akebo},
  title = {Contributions to the Study of {SMS} Spam Filtering: New Collection and Results},
  booktitle = {Proceedings of the 11th ACM Symposium on Document Engineering (DocEng '11)},
  pages = {259--262},
  year = {2011},
  doi = {10.1145/2034691.2034742},
}""",
    "telegramspamham": """@misc{telegramspamham,
  author = {{thehamkercat}},
  title = {telegram-spam-ham: Telegram group messages labelled spam or ham},
  howpublished = {Hugging Face dataset},
  year = {2023},
  url = {https://huggingface.co/datasets/thehamkercat/telegram-spam-ham},
}""",
    "degibert2018hate": """@inproceedings{degibert2018hate,
  author = {de Gibert, Ona and Perez, Naiara and Garc{\\'i}a-Pablos, Aitor and Cuadros, Montse},
  title = {Hate Speech Dataset from a White Supremacy Forum},
  booktitle = {Proceedings of the 2nd Workshop on Abusive Language Online (ALW2)},
  pages = {11--20},
  year = {2018},
  doi = {10.18653/v1/W18-5102},
}""",
    "davidson2017hate": """@inproceedings{davidson2017hate,
  author = {Davidson, Thomas and Warmsley, Dana and Macy, Michael and Weber, Ingmar},
  title = {Automated Hate Speech Detection and the Problem of Offensive Language},
  booktitle = {Proceedings of the International AAAI Conference on Web and Social Media (ICWSM)},
  volume = {11},
  year = {2017},
  doi = {10.1609/icwsm.v11i1.14955},
}""",
    "wu2024detectrl": """@inproceedings{wu2024detectrl,
  author = {Wu, Junchao and Zhan, Runzhe and Wong, Derek F. and Yang, Shu and Yang, Xinyi and Yuan, Yulin and Chao, Lidia S.},
  title = {{DetectRL}: Benchmarking {LLM}-Generated Text Detection in Real-World Scenarios},
  booktitle = {Advances in Neural Information Processing Systems 37 (NeurIPS 2024), Datasets and Benchmarks Track},
  year = {2024},
  url = {https://arxiv.org/abs/2410.23746},
}""",  # noqa: E501 - BibTeX, one field per line
    "wang2024m4": """@inproceedings{wang2024m4,
  author = {Wang, Yuxia and Mansurov, Jonibek and Ivanov, Petar and Su, Jinyan and Shelmanov, Artem and Tsvigun, Akim and Whitehouse, Chenxi and Mohammed Afzal, Osama and Mahmoud, Tarek and Sasaki, Toru and Arnold, Thomas and Aji, Alham Fikri and Habash, Nizar and Gurevych, Iryna and Nakov, Preslav},
  title = {{M4}: Multi-generator, Multi-domain, and Multi-lingual Black-Box Machine-Generated Text Detection},
  booktitle = {Proceedings of the 18th Conference of the European Chapter of the Association for Computational Linguistics (Volume 1: Long Papers)},
  pages = {1369--1407},
  year = {2024},
  url = {https://aclanthology.org/2024.eacl-long.83},
}""",  # noqa: E501 - BibTeX, one field per line
    "li2024mage": """@inproceedings{li2024mage,
  author = {Li, Yafu and Li, Qintong and Cui, Leyang and Bi, Wei and Wang, Zhilin and Wang, Longyue and Yang, Linyi and Shi, Shuming and Zhang, Yue},
  title = {{MAGE}: Machine-generated Text Detection in the Wild},
  booktitle = {Proceedings of the 62nd Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)},
  pages = {36--53},
  year = {2024},
  url = {https://aclanthology.org/2024.acl-long.3},
}""",  # noqa: E501 - BibTeX, one field per line
    "riverasoto2021learning": SHARED_BIBTEX["riverasoto2021learning"],
    "ni2019amazon": """@inproceedings{ni2019amazon,
  author = {Ni, Jianmo and Li, Jiacheng and McAuley, Julian},
  title = {Justifying Recommendations using Distantly-Labeled Reviews and Fine-Grained Aspects},
  booktitle = {Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)},
  pages = {188--197},
  year = {2019},
  url = {https://aclanthology.org/D19-1018},
}""",  # noqa: E501 - BibTeX, one field per line
    "kestemont2020overview": SHARED_BIBTEX["kestemont2020overview"],
    "andrews2019iur": """@inproceedings{andrews2019iur,
  author = {Andrews, Nicholas and Bishop, Marcus},
  title = {Learning Invariant Representations of Social Media Users},
  booktitle = {Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)},
  pages = {1684--1695},
  year = {2019},
  url = {https://aclanthology.org/D19-1178},
}""",  # noqa: E501 - BibTeX, one field per line
    "steb2026": SHARED_BIBTEX["steb2026"],
    "lee2023lftk": SHARED_BIBTEX["lee2023lftk"],
    "wegmann2022same": SHARED_BIBTEX["wegmann2022same"],
    "schler2006blogs": """@inproceedings{schler2006blogs,
  author = {Schler, Jonathan and Koppel, Moshe and Argamon, Shlomo and Pennebaker, James W.},
  title = {Effects of Age and Gender on Blogging},
  booktitle = {AAAI Spring Symposium: Computational Approaches to Analyzing Weblogs},
  pages = {199--205},
  year = {2006},
  url = {https://u.cs.biu.ac.il/~koppel/BlogCorpus.htm},
}""",
}


def _cite(*keys: str) -> str:
    return "\n".join(_BIB[k] for k in keys)


def bibtex_entry(key: str) -> str:
    """The plugin's one BibTeX entry for the work ``key`` (catalogue entries citing a work share it)."""
    return _BIB[key]


_DETECTRL = (
    "arxiv",
    "direct_prompt",
    "paraphrase_attacks",
    "perturbation_attacks",
    "prompt_attacks",
    "writing_prompt",
    "xsum",
    "yelp_review",
)
_M4 = ("arxiv", "peerread", "reddit", "wikihow", "wikipedia")
_MAGE = ("cmv", "eli5", "hswag", "roct", "sci_gen", "squad", "tldr", "wp", "xsum", "yelp")

#: dataset name -> BibTeX of the work(s) that made it
CITATIONS: dict[str, str] = {
    "core": _cite("laippala2022core"),
    "x_genre": _cite("kuzman2023xgenre"),
    "masc_text_genre": _cite("ide2010masc"),
    "fce_l1": _cite("yannakoudakis2011fce"),
    "wikipedia_politeness": _cite("danescu2013politeness"),
    "stackexchange_politeness": _cite("danescu2013politeness"),
    "eWAVE": _cite("kortmann2020ewave"),
    "endive": _cite("gupta2025endive"),
    "enron_spam": _cite("metsis2006spam"),
    "sms_spam": _cite("almeida2011sms"),
    "telegram-spam-ham": _cite("telegramspamham"),
    "hate_speech": _cite("degibert2018hate"),
    "hate_speech_and_offensive_language": _cite("davidson2017hate"),
    **{f"machine_text_detection_DetectRL_{s}": _cite("wu2024detectrl") for s in _DETECTRL},
    **{f"machine_text_detection_M4_{d}": _cite("wang2024m4") for d in _M4},
    **{f"machine_text_detection_MAGE_{d}": _cite("li2024mage") for d in _MAGE},
    "amazon": _cite("ni2019amazon", "riverasoto2021learning"),
    "fanfiction": _cite("kestemont2020overview", "riverasoto2021learning"),
    "reddit": _cite("andrews2019iur", "riverasoto2021learning"),
    "stackexchange_retrieval": _cite("steb2026"),
    "probing_amazon": _cite("ni2019amazon", "lee2023lftk"),
    "probing_blog": _cite("schler2006blogs", "lee2023lftk"),
    "probing_reddit": _cite("wegmann2022same", "lee2023lftk"),
    "probing_stackexchange": _cite("steb2026", "lee2023lftk"),
}

# ------------------------------------------------------------------------------------------------
# pinned releases
# ------------------------------------------------------------------------------------------------
#: the STEB authors' redistributions on Google Drive: file ids and file names from their download_datasets.sh
#: (github.com/rrivera1849/STEB, search index file 61933151782, the version that lists the probing files; the
#: retrieval ids are the same in its version @43f8a8d6). No checksum is published, so steb pins each at its first
#: download (trust on first use) and checks the recorded sha256 from then on.
_STEB_DRIVE = {
    "amazon": ("1HFWoFk3V7vqM_DbZzd8ixecdbjHp29c4", "amazon_retrieval.tar.gz"),
    "fanfiction": ("1imzUA2kg4782WnYWxlKICyk1MmPCCtsV", "fanfiction_retrieval.tar.gz"),
    "stackexchange_retrieval": ("1PVu0BI6rvo9MndcIdHOhRdqm4nfaqgSG", "stackexchange_retrieval.tar.gz"),
    "probing_amazon": ("1zIRqhSMEdQZ4EZq3-jCLpccuTvXsmCyx", "amazon.jsonl"),
    "probing_blog": ("1JU9F5SbPV8PaefcBwpy7wUCWrzNXsydO", "blog.jsonl"),
    "probing_reddit": ("1pU-Yo--OMtgG8qafk-7DBd_4WhYH_urc", "reddit.jsonl"),
    "probing_stackexchange": ("1Ke_Re3kwfOmr2ljApcS8GP2CdsiNPHz7", "stackexchange.jsonl"),
}
_PROBING_LICENCES = {
    "probing_amazon": "Amazon Review Data (2018): research use",
    "probing_blog": "Blog Authorship Corpus: non-commercial research only",
    "probing_reddit": "Reddit comments: research use",
    "probing_stackexchange": "Stack Exchange content: CC BY-SA 4.0",
}


def _steb_drive(name: str, licence: str) -> DataSource:
    """The STEB authors' Google Drive copy, fetched with the Drive protocol gdown speaks: a retrieval archive is
    unpacked into ROOT/<dataset>/ (as their script unpacks it into its own folder); a probing file lands in the
    shared ROOT/probing/ folder."""
    file_id, file_name = _STEB_DRIVE[name]
    archive = file_name.endswith(".tar.gz")
    return DataSource(
        kind="gdrive",
        url=file_id,
        files=(file_name,),
        target=name if archive else "probing",
        max_bytes=8 << 30 if archive else 4 << 30,
        licence=licence,
        accept=True,
        unpack=(file_name,) if archive else (),
    )


#: the four probing files share ROOT/probing/, so every probing dataset names all four (one folder, fetched once)
_PROBING = tuple(_steb_drive(n, lic) for n, lic in _PROBING_LICENCES.items())


_CORE = DataSource(
    kind="git",
    url="https://github.com/TurkuNLP/CORE-corpus",
    revision="b57dbdb5ebee4b2688fa94889a2cbdb341d86ee7",
    files=("train.tsv.gz", "dev.tsv.gz", "test.tsv.gz", "LICENSE.txt"),
    target="core",
    licence="CC BY-SA 4.0 (annotations)",
)
_EWAVE = DataSource(
    kind="git",
    url="https://github.com/cldf-datasets/ewave",
    revision="02a93c25920696e2ce3ca7d8fc2ce44baf5a43ed",
    files=("cldf/examples.csv", "cldf/languages.csv", "LICENSE"),
    target="eWAVE",
    licence="CC BY 3.0",
)
#: hate_speech's layout, one home for its source below and its reader (``readers/register.py``, issue 45): the
#: metadata table; ``sampled_test/`` (478 files at the pinned commit), what the reader reads by default, as the
#: reference does; ``all_files/``, read with ``--dataset-option release=all_files``
HATE_FORUM_METADATA = "annotations_metadata.csv"
HATE_FORUM_SAMPLED = "sampled_test"
HATE_FORUM_ALL = "all_files"
_HATE_FORUM = DataSource(
    kind="git",
    url="https://github.com/Vicomtech/hate-speech-dataset",
    revision="b802137e8314c38a8d4faa965f9908d6c8e7a84d",
    files=(HATE_FORUM_METADATA, f"{HATE_FORUM_SAMPLED}/*", f"{HATE_FORUM_ALL}/*", "LICENSE"),
    target="hate_speech",
    licence="CC BY-SA 3.0 ES",
)
_DAVIDSON = DataSource(
    kind="git",
    url="https://github.com/t-davidson/hate-speech-and-offensive-language",
    revision="cb50f7e9eb855a99abc51423bf40df0e26d6fe30",
    files=("data/labeled_data.csv", "LICENSE"),
    target="hate_speech_and_offensive_language",
    licence="MIT",
)
#: the test file of each of the eight settings STEB reads (the files readers.detection.DETECTRL_FILES names, with the
#: reader's default split=test; tests/test_style_releases.py checks that the two agree): the repository's training
#: files (several GB) are not fetched
_DETECTRL_TEST_FILES = (
    "Multi_Domain/multi_domains_arxiv",
    "Multi_Domain/multi_domains_writing_prompt",
    "Multi_Domain/multi_domains_xsum",
    "Multi_Domain/multi_domains_yelp_review",
    "Direct_Prompt/direct_prompt",
    "Paraphrase_Attacks/paraphrase_attacks_llm",
    "Perturbation_Attacks/perturbation_attacks_llm",
    "Prompt_Attacks/prompt_attacks_llm",
)
_DETECTRL_SRC = DataSource(
    kind="git",
    url="https://github.com/NLP2CT/DetectRL",
    revision="3472f0ae3cc81133c821e901f6d5c8f79c60dd23",
    files=tuple(f"Benchmark/Benchmark_Data/{f}_test.json" for f in _DETECTRL_TEST_FILES),
    target="DetectRL",
    licence="no licence file in the repository (research benchmark)",
)
#: the model files of the five English domains STEB reads, as listed at the pinned commit (the reader drops the bloomz
#: files, so they are not fetched; nor are the other languages')
_M4_FILES = (
    "arxiv_chatGPT",
    "arxiv_cohere",
    "arxiv_davinci",
    "arxiv_dolly",
    "arxiv_flant5",
    "peerread_chatgpt",
    "peerread_cohere",
    "peerread_davinci",
    "peerread_dolly",
    "peerread_llama",
    "reddit_chatGPT",
    "reddit_cohere",
    "reddit_davinci",
    "reddit_dolly",
    "reddit_flant5",
    "wikihow_chatGPT",
    "wikihow_cohere",
    "wikihow_davinci",
    "wikihow_dolly2",
    "wikipedia_chatgpt",
    "wikipedia_cohere",
    "wikipedia_davinci",
    "wikipedia_dolly",
)
_M4_SRC = DataSource(
    kind="git",
    url="https://github.com/mbzuai-nlp/M4",
    revision="628bf0fcb2e8c6b7ffa71fd1af6be413aced8f7d",
    files=tuple(f"data/{name}.jsonl" for name in _M4_FILES),
    target="M4",
    licence="no licence file in the repository (research benchmark)",
)
#: a main-branch commit of May 2024; the CSVs date from June 2023 and later commits change README.md only
_MAGE_SRC = DataSource(
    kind="hf",
    url="yaful/MAGE",
    revision="d4a30975fbf64710d6e312fe22c84dfb4046d63b",
    files=("test.csv",),
    target="MAGE",
    licence="Apache-2.0",
)
_XGENRE = DataSource(
    kind="hf",
    url="TajaKuzman/X-GENRE-text-genre-dataset",
    revision="7db58de7f4d4f4f4d11a21bfedfe30c78863f373",
    files=("X-GENRE-*.jsonl", "README.md"),
    target="x_genre",
    licence="CC BY-SA 4.0",
)
#: MASC 3.0.0, the archive the STEB authors' script fetches (www.anc.org/MASC/download/MASC-3.0.0.zip); it unpacks
#: into MASC-3.0.0/, whose contents are moved up so that ROOT/masc_text_genre/data/{written,spoken}/ exist
_MASC = DataSource(
    kind="url",
    url="https://www.anc.org/MASC/download/MASC-3.0.0.zip",
    target="masc_text_genre",
    unpack=("MASC-3.0.0.zip",),
    strip="MASC-3.0.0",
    max_bytes=2 << 30,
    licence="open (ANC; see the release)",
)
#: the FCE release (Yannakoudakis et al. 2011) as the STEB authors' script downloads it; non-commercial research licence
_FCE = DataSource(
    kind="url",
    url="https://s3-eu-west-1.amazonaws.com/ilexir-website-media/fce-released-dataset.zip",
    target="fce_l1",
    unpack=("fce-released-dataset.zip",),
    max_bytes=256 << 20,
    licence="non-commercial research only",
    accept=True,
)
#: the legacy Stanford Politeness Corpus zip linked from the paper's page
#: (www.cs.cornell.edu/~cristian/Politeness.html);
#: it unpacks into Stanford_politeness_corpus/, moved up into the shared folder of the same name
_POLITENESS = DataSource(
    kind="url",
    url="https://www.cs.cornell.edu/~cristian/Politeness_files/Stanford_politeness_corpus.zip",
    target="Stanford_politeness_corpus",
    unpack=("Stanford_politeness_corpus.zip",),
    strip="Stanford_politeness_corpus",
    max_bytes=64 << 20,
    licence="CC BY 4.0",
)
#: the six pre-processed Enron-Spam archives (Metsis et al. 2006), each unpacking to enronN/{ham,spam}/
_ENRON_SPAM = tuple(
    DataSource(
        kind="url",
        url=f"https://www2.aueb.gr/users/ion/data/enron-spam/preprocessed/enron{i}.tar.gz",
        target="enron_spam",
        unpack=(f"enron{i}.tar.gz",),
        max_bytes=64 << 20,
        licence="research use (see the page)",
    )
    for i in range(1, 7)
)
#: the UCI archive of the SMS Spam Collection (dataset 228): SMSSpamCollection and a readme
_SMS = DataSource(
    kind="url",
    url="https://archive.ics.uci.edu/static/public/228/sms+spam+collection.zip",
    target="sms_spam",
    files=("sms+spam+collection.zip",),
    unpack=("sms+spam+collection.zip",),
    max_bytes=16 << 20,
    licence="CC BY 4.0",
)


def _convokit(corpus: str) -> DataSource:
    """ConvoKit's politeness corpus, the release the STEB reference reads (utterances.jsonl with meta.Binary), from
    the URL the STEB authors' download_datasets.sh fetches; the zip unpacks into ``<corpus>/``, moved up so that
    ROOT/<corpus>/utterances.jsonl exists. No checksum is published: pinned by steb's first download."""
    return DataSource(
        kind="url",
        url=f"https://zissou.infosci.cornell.edu/convokit/datasets/{corpus}/{corpus}.zip",
        target=corpus,
        unpack=(f"{corpus}.zip",),
        strip=corpus,
        max_bytes=512 << 20,
        licence="CC BY 4.0",
    )


_TELEGRAM = DataSource(
    kind="hf",
    url="thehamkercat/telegram-spam-ham",
    revision="dbf0a97b4b8cb0a8223378c85b6fc7e4526d43fb",
    files=("dataset.csv",),
    target="telegram-spam-ham",
    licence="WTFPL",
)
_ENDIVE = DataSource(
    kind="manual",
    url="https://huggingface.co/abhaygupta1266",
    target="endive",
    licence="see the dataset cards",
    instructions="EnDive's data is published on the Hugging Face hub by user abhaygupta1266 as 14 per-task datasets "
    "(e.g. abhaygupta1266/boolq, /copa, /sst-2, /multirc, /gsm8k, /folio, /svamp, /logic_bench_yn); "
    "steb has not verified their columns. Download them and put the tables in ROOT/endive/ as "
    "*.csv|jsonl|parquet with one text column per dialect: SAE, AAVE, ChcE, CollSgE, IndE, JamE.",
)
_AMAZON_LUAR = DataSource(
    kind="manual",
    url="https://nijianmo.github.io/amazon/index.html",
    target="raw_amazon",
    licence="Amazon Review Data (2018): research use, on request",
    accept=True,
    instructions="Alternative to the STEB copy (not the paper's subsample): request the Amazon review data, run "
    "github.com/LLNL/LUAR scripts/preprocess_amazon_data.sh and copy data/raw_amazon/ to ROOT/raw_amazon/.",
)
_FANFIC_LUAR = DataSource(
    kind="manual",
    url="https://zenodo.org/record/3724096",
    target="pan_paragraph",
    licence="PAN 2020 data: research use, on request",
    accept=True,
    instructions="Alternative to the STEB copy (not the paper's subsample): request the PAN 2020 'large' authorship "
    "verification data on Zenodo, run github.com/LLNL/LUAR scripts/preprocess_fanfiction_data.sh and copy "
    "data/pan_paragraph/ to ROOT/pan_paragraph/.",
)
_REDDIT = DataSource(
    kind="manual",
    url="https://github.com/LLNL/LUAR",
    target="reddit",
    licence="Reddit content: research use",
    accept=True,
    instructions="LUAR publishes only the comment ids of its Reddit (IUR) split; re-collect the texts (e.g. from a "
    "Pushshift "
    "dump) into test_queries.jsonl / test_targets.jsonl (author_id, syms) in ROOT/reddit/.",
)
_STYLE_EMBEDDING = DataSource(
    kind="hf",
    url="AnnaWegmann/StyleEmbeddingData",
    revision="",
    files=("test-45000__subreddits-100-2018_tasks-300000__topic-variable-conversation.tsv",),
    target="StyleEmbeddingData",
    licence="Reddit comments, no licence stated: research use",
    accept=True,
)
_BLOG_KAGGLE = DataSource(
    kind="manual",
    url="https://www.kaggle.com/datasets/rtatman/blog-authorship-corpus",
    target="blogs",
    licence="non-commercial research only",
    accept=True,
    instructions="Sign in to Kaggle, `kaggle datasets download -d rtatman/blog-authorship-corpus` and unzip it into "
    "ROOT/blogs/ so that ROOT/blogs/blogtext.csv exists (shared with blog_age and blog_gender's folder).",
)

#: dataset name -> its pinned release(s)
SOURCES: dict[str, tuple[DataSource, ...]] = {
    "core": (_CORE,),
    "x_genre": (_XGENRE,),
    "masc_text_genre": (_MASC,),
    "fce_l1": (_FCE,),
    "wikipedia_politeness": (_convokit("wikipedia-politeness-corpus"), _POLITENESS),
    "stackexchange_politeness": (_convokit("stack-exchange-politeness-corpus"), _POLITENESS),
    "eWAVE": (_EWAVE,),
    "endive": (_ENDIVE,),
    "enron_spam": _ENRON_SPAM,
    "sms_spam": (_SMS,),
    "telegram-spam-ham": (_TELEGRAM,),
    "hate_speech": (_HATE_FORUM,),
    "hate_speech_and_offensive_language": (_DAVIDSON,),
    **{f"machine_text_detection_DetectRL_{s}": (_DETECTRL_SRC,) for s in _DETECTRL},
    **{f"machine_text_detection_M4_{d}": (_M4_SRC,) for d in _M4},
    **{f"machine_text_detection_MAGE_{d}": (_MAGE_SRC,) for d in _MAGE},
    "amazon": (_steb_drive("amazon", "Amazon Review Data (2018): research use"), _AMAZON_LUAR),
    "fanfiction": (_steb_drive("fanfiction", "fanfiction.net texts via PAN 2020: research use"), _FANFIC_LUAR),
    "stackexchange_retrieval": (_steb_drive("stackexchange_retrieval", "Stack Exchange content: CC BY-SA 4.0"),),
    "reddit": (_REDDIT,),
    "probing_amazon": (*_PROBING, _AMAZON_LUAR),
    "probing_blog": (*_PROBING, _BLOG_KAGGLE),
    "probing_reddit": (_STYLE_EMBEDDING, *_PROBING),
    "probing_stackexchange": _PROBING,
}


def licence_of(sources: tuple[DataSource, ...]) -> str:
    """The first stated licence of a dataset's sources, for listings (``see release`` when none is stated)."""
    return next((s.licence for s in sources if s.licence), "see release")
