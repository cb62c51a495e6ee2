"""The catalogue: STEB's labelled corpora as data (names, budgets, categories from the STEB paper).

Each entry names the official release, the files and fields its reader expects, and STEB Table 15's
per-class budget (for listings; a run takes the STEB reference's first N texts per class in the reader's
order, N = max(25, min(smallest class, 200)), classes under N dropped: :func:`.common.labelled_bundle`). The
datasets of issue 25 §2 (Bible versions, PASTEL, CEECE, blogs, GEDE) carry their pinned sources and
BibTeX here; every other entry takes them from :mod:`.releases`. Retrieval and probing datasets live
in :mod:`.retrieval` and :mod:`.probing`.
"""

from __future__ import annotations

from steb_core import DatasetSpec, DataSource

from . import readers as R
from . import releases
from .common import Corpus

ATD = ("ATD",)
ATD_ADV = ("ATD-adversarial",)
CLUSTER_ONLY = ("clustering",)


#: PASTEL's own paper (xSLUE, Kang and Hovy 2021, is another work that reuses it)
PASTEL_CITATION = """@inproceedings{kang2019pastel,
  author = {Kang, Dongyeop and Gangal, Varun and Hovy, Eduard},
  title = {(Male, Bachelor) and (Female, {Ph.D}) have different connotations: Parallelly Annotated Stylistic Language Dataset with Multiple Personas},
  booktitle = {Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)},
  pages = {1696--1706},
  year = {2019},
  doi = {10.18653/v1/D19-1179},
  url = {https://aclanthology.org/D19-1179},
}"""  # noqa: E501 - BibTeX, one field per line


CARLSON_CITATION = """@article{carlson2018bible,
  author = {Carlson, Keith and Riddell, Allen and Rockmore, Daniel},
  title = {Evaluating prose style transfer with the {Bible}},
  journal = {Royal Society Open Science},
  volume = {5},
  number = {10},
  pages = {171920},
  year = {2018},
  doi = {10.1098/rsos.171920},
}"""

CEECE_CITATION = """@misc{ceece2022zenodo,
  author = {{CEEC Project Team}},
  title = {Corpus of Early English Correspondence Extension ({CEECE}), parts 1 and 2},
  howpublished = {Zenodo},
  year = {2022},
  doi = {10.5281/zenodo.6411789},
  url = {https://zenodo.org/records/6411789},
  note = {Part 2: doi 10.5281/zenodo.5887101},
}"""

BLOG_CITATION = releases.bibtex_entry("schler2006blogs")  # one entry for every dataset of the Blog Authorship Corpus

GEDE_CITATION = """@misc{gehring2025gede,
  author = {Gehring, Lukas and Paa{\\ss}en, Benjamin},
  title = {Assessing {LLM} Text Detection in Educational Contexts: Does Human Contribution Affect Detection?},
  year = {2025},
  url = {https://github.com/lukasgehring/Assessing-LLM-Text-Detection-in-Educational-Contexts},
}"""

#: pinned releases (commits from the public mirrors checked against the readers, 2026-11-24)
CARLSON_COMMIT = "1c6c8eec242d496c40531d740cd0d57f5f195d05"
PASTEL_COMMIT = "7cb0b951fa9b50a8e6368135817f2f4736df03b1"
GEDE_COMMIT = "fc84dfe33619eefbc3a6014c191ad9a43f8543cc"
#: only the eight version folders the reader reads (Data/Bibles/<VERSION>/), not the repository's samples and code
BIBLE_SOURCES = (
    DataSource(
        "git",
        "https://github.com/keithecarlson/StyleTransferBibleData",
        revision=CARLSON_COMMIT,
        files=tuple(f"Data/Bibles/{v}" for v in R.CARLSON_VERSIONS),
        target="bible_versions",
        licence="public-domain and free Bible versions (see repository)",
    ),
)
#: only data/data_v2.zip, which the reader reads unpacked (the older data/data.zip is not fetched)
PASTEL_SOURCES = (
    DataSource(
        "git",
        "https://github.com/dykang/PASTEL",
        revision=PASTEL_COMMIT,
        target="PASTEL",
        files=("data/data_v2.zip",),
        unpack=("data/data_v2.zip",),
        licence="see repository",
    ),
)
CEECES_SOURCES = (
    DataSource("zenodo", "6411789", target="ceeces", licence="see Zenodo record"),
    DataSource("zenodo", "5887101", target="ceeces", licence="see Zenodo record"),
)
BLOG_SOURCES = (
    DataSource(
        "hf",
        R.BLOG_HUB_ID,
        revision=R.BLOG_HUB_REVISION,
        files=("data/blogs.zip",),
        target="blogs",
        unpack=("data/blogs.zip",),
        licence="non-commercial research use",
    ),
)
GEDE_SOURCES = (
    DataSource(
        "git",
        "https://github.com/lukasgehring/Assessing-LLM-Text-Detection-in-Educational-Contexts",
        revision=GEDE_COMMIT,
        target="gede_essay_detection",
        unpack=("database/database.db.zip",),
        licence="CC BY-NC-SA 4.0",
    ),
)


def labelled_corpora() -> list[Corpus]:
    """Every labelled STEB dataset this distribution provides (clustering and all-to-all pairs)."""
    out = [
        Corpus(
            "core",
            "CORE, Corpus of Online Registers of English: web documents by register; sub-register labels, "
            "a multi-label document appears under each of its labels.",
            R.core,
            25,
            ("genre",),
            classes=38,
            obtain="git clone github.com/TurkuNLP/CORE-corpus into ROOT/core/ (train.tsv.gz, dev.tsv.gz, test.tsv.gz, "
            "or "
            "them unzipped): headerless TSV: labels (space separated main registers and sub-register codes), "
            "document id, text",
            license="CC BY 4.0",
            homepage="https://github.com/TurkuNLP/CORE-corpus",
        ),
        Corpus(
            "x_genre",
            "X-GENRE: English texts labelled with 9 genres (Kuzman et al. 2023).",
            R.x_genre,
            46,
            ("genre",),
            classes=9,
            obtain=f"Hugging Face hub {R.XGENRE_HUB_ID} (also CLARIN.SI; "
            "github.com/TajaKuzman/Genre-Datasets-Comparison holds "
            f"code only): `huggingface-cli download {R.XGENRE_HUB_ID} --repo-type dataset --local-dir ROOT/x_genre` "
            "(X-GENRE-{train,dev,test}.jsonl with text, labels, dataset, language; Slovenian rows dropped), or the "
            "local hub cache",
            license="CC BY-SA 4.0",
            homepage="https://github.com/TajaKuzman/Genre-Datasets-Comparison",
        ),
        Corpus(
            "masc_text_genre",
            "MASC 3.0.0 written and spoken genres; documents split into paragraphs, label = genre.",
            R.masc,
            150,
            ("genre",),
            classes=19,
            obtain="MASC 3.0.0 from anc.org/data/masc: unpack so that data/written/<genre>/*.txt and "
            "data/spoken/<genre>/*.txt exist",
            license="open (ANC)",
            homepage="https://anc.org/data/masc/",
        ),
        Corpus(
            "ceeces",
            "Corpus of Early English Correspondence Extension (1680-1800): paragraphs of letters by six 20-year "
            "periods.",
            R.ceeces,
            200,
            ("time",),
            classes=6,
            obtain="CEECE parts 1 and 2, Zenodo records 6411789 and 5887101 (XML): download both records' files into "
            "ROOT/ceeces/ "
            "(letters with their year, paragraphs in <p>; see the reader's stated assumption); the licensed plain-text "
            "release with COCOA <Q ...> headers: --dataset-option release=cocoa",
            citation=CEECE_CITATION,
            sources=CEECES_SOURCES,
            license="see the Zenodo records",
            homepage="https://varieng.helsinki.fi/CoRD/corpora/CEEC/",
        ),
        Corpus(
            "bible_versions",
            "Parallel English Bible versions (Carlson et al. 2018): label = version; verses identical across versions "
            "dropped.",
            R.bible_versions,
            200,
            ("time",),
            classes=8,
            obtain="git clone github.com/keithecarlson/StyleTransferBibleData into ROOT/bible_versions/ (or "
            "ROOT/StyleTransferBibleData/): "
            "Data/Bibles/<VERSION>/<Book>/<Book><chapter>.txt, one verse a line '<verse number> <text>', versions "
            "ASV, BBE, "
            "DARBY, DRA, KJV, LEB, WEB, YLT (--dataset-option versions=A,B,... or all); a text another version of the "
            "verse "
            "shares (ignoring whitespace and case) is dropped, only verses all versions share: --dataset-option "
            "identical=all. "
            "The scrollmapper/bible_databases CSVs "
            "(Webster and DRC in place of LEB and DRA): --dataset-option release=scrollmapper",
            citation=CARLSON_CITATION,
            sources=BIBLE_SOURCES,
            license="public domain / free versions",
            homepage="https://github.com/keithecarlson/StyleTransferBibleData",
        ),
        Corpus(
            "fce_l1",
            "FCE learner essays (Cambridge First Certificate): label = the candidate's first language.",
            R.fce,
            25,
            ("demographics",),
            classes=15,
            obtain="FCE dataset release (ilexir.co.uk/datasets): fce-released-dataset/dataset/<batch>/*.xml with "
            "head/candidate/personnel/language and answerN/coded_answer/p (NS error markup; <i> kept, <c> dropped)",
            license="non-commercial research",
            homepage="https://ilexir.co.uk/datasets/index.html",
        ),
        Corpus(
            "blog_age",
            "Blog Authorship Corpus posts by the blogger's age band (10s: 13-17, 20s: 23-27, 30s: 33-47).",
            R.blog("age", 200),
            200,
            ("demographics",),
            classes=3,
            obtain="Hugging Face hub barilan/blog_authorship_corpus, its train and validation splits (as the STEB "
            "reference reads it; --dataset-option split=validation for one): `huggingface-cli download "
            "barilan/blog_authorship_corpus --repo-type dataset --local-dir ROOT/blogs` and unzip data/blogs.zip there "
            "(shared with blog_gender; steb applies the hub script's split rule, every 20th blog file, one row per "
            "text "
            "line), or the hub's parquet conversion (refs/convert/parquet: "
            "blog_authorship_corpus/<split>/*.parquet), "
            "a save_to_disk folder, or the local hub cache. All posts of the XML files "
            "(blogs/<id>.<gender>.<age>.<industry>.<sign>.xml, Schler et al.): --dataset-option release=schler",
            citation=BLOG_CITATION,
            sources=BLOG_SOURCES,
            license="non-commercial research",
            homepage="https://huggingface.co/datasets/barilan/blog_authorship_corpus",
        ),
        Corpus(
            "blog_gender",
            "Blog Authorship Corpus posts by the blogger's gender.",
            R.blog("gender", 200),
            200,
            ("demographics",),
            classes=2,
            obtain="Hugging Face hub barilan/blog_authorship_corpus, train then validation (ROOT/blogs/ shared with "
            "blog_age, "
            "ROOT/blog_gender/, or the local hub cache); the Schler et al. XML files: --dataset-option release=schler",
            citation=BLOG_CITATION,
            sources=BLOG_SOURCES,
            license="non-commercial research",
            homepage="https://huggingface.co/datasets/barilan/blog_authorship_corpus",
        ),
    ]
    pastel_budget = {
        "age": (25, 6),
        "education": (25, 8),
        "ethnic": (25, 9),
        "gender": (55, 3),
        "politics": (200, 3),
        "tod": (200, 5),
    }
    for attr, (budget, classes) in pastel_budget.items():
        out.append(
            Corpus(
                f"pastel_{attr}",
                f"PASTEL five-sentence stories by the writer's persona attribute '{attr}'.",
                R.pastel(attr),
                budget,
                ("demographics",),
                classes=classes,
                obtain="git clone github.com/dykang/PASTEL into ROOT/PASTEL/ (shared by the 6 attributes) or "
                "ROOT/<dataset>/ and "
                "unzip data/data_v2.zip in data/ (data/v2/stories/{train,valid,test}/*.json: one object per file with "
                "persona "
                "{age, education, ethnic, gender, politics, tod, country} and output.sentences, the story's five "
                "sentences); "
                "the sentence level: --dataset-option unit=sentence",
                citation=PASTEL_CITATION,
                sources=PASTEL_SOURCES,
                license="see release",
                homepage="https://github.com/dykang/PASTEL",
            )
        )
    politeness = (
        ("wikipedia_politeness", "wikipedia.annotated.csv", "wikipedia-politeness-corpus"),
        ("stackexchange_politeness", "stack-exchange.annotated.csv", "stack-exchange-politeness-corpus"),
    )
    for name, file_name, convokit in politeness:
        out.append(
            Corpus(
                name,
                f"Stanford Politeness Corpus ({file_name.split('.')[0]}): requests as polite / neutral / impolite.",
                R.politeness(file_name, convokit),
                200,
                ("register",),
                classes=3,
                obtain=f"the ConvoKit corpus {convokit} (as the STEB reference reads it: "
                f"`convokit.download('{convokit}')`, or the zip from zissou.infosci.cornell.edu/convokit/datasets/"
                f"{convokit}/), unpacked so that utterances.jsonl (text, meta.Binary 1/0/-1) is in ROOT/<dataset>/ "
                f"or ROOT/{convokit}/; the Stanford Politeness Corpus CSV "
                f"(cs.cornell.edu/~cristian/Politeness.html, {file_name}: quartiles of Normalized Score) with "
                "--dataset-option release=csv, in ROOT/<dataset>/ or ROOT/Stanford_politeness_corpus/",
                license="CC BY 4.0",
                homepage="https://www.cs.cornell.edu/~cristian/Politeness.html",
            )
        )
    out += [
        Corpus(
            "eWAVE",
            "eWAVE example sentences by variety of English (CLDF release).",
            R.ewave,
            29,
            ("dialect",),
            classes=53,
            obtain="git clone github.com/cldf-datasets/ewave into ROOT/eWAVE/: cldf/examples.csv (ID, Language_ID, "
            "Primary_Text) "
            "and cldf/languages.csv (ID, Name)",
            license="CC BY 4.0",
            homepage="https://ewave-atlas.org",
        ),
        Corpus(
            "endive",
            "EnDive: the same texts in Standard American English and five dialects; label = dialect.",
            R.endive,
            200,
            ("dialect",),
            classes=6,
            obtain="EnDive (github.com/endiveee/EnDive-Code holds code only; the data is published on the Hugging "
            "Face hub by user "
            "abhaygupta1266 as per-dialect, per-task datasets whose layout steb has not verified): bring tables "
            "(*.csv|jsonl|parquet) with one text column per dialect: SAE, AAVE, ChcE, CollSgE, IndE, JamE "
            "(rename with --dataset-option dialects=A,B,...)",
            license="see release",
        ),
        Corpus(
            "enron_spam",
            "Enron-Spam e-mails: ham vs spam.",
            R.enron_spam,
            200,
            ("register",),
            classes=2,
            obtain="Enron-Spam pre-processed (aueb.gr/users/ion/data/enron-spam): enron1..enron6/{ham,spam}/*.txt",
            license="research",
            homepage="https://www2.aueb.gr/users/ion/data/enron-spam/",
        ),
        Corpus(
            "sms_spam",
            "SMS Spam Collection: ham vs spam.",
            R.table(
                "SMSSpamCollection",
                format="tsv",
                header=False,
                columns={"label": 0, "text": 1},
                layout="SMSSpamCollection",
            ),
            200,
            ("register",),
            classes=2,
            obtain="UCI SMS Spam Collection: file SMSSpamCollection, headerless TSV: label (ham|spam), text",
            license="CC BY 4.0",
            homepage="https://archive.ics.uci.edu/dataset/228/sms+spam+collection",
        ),
        Corpus(
            "telegram-spam-ham",
            "Telegram group messages: ham vs spam.",
            R.table(
                "*.csv",
                columns={"label": "text_type", "text": "text"},
                layout="dataset.csv with columns text_type, text",
            ),
            200,
            ("register",),
            classes=2,
            obtain="Kaggle 'Telegram Spam or Ham' dataset: one CSV with columns text_type (ham|spam), text",
            license="see release",
        ),
        Corpus(
            "hate_speech",
            "White-supremacist forum sentences: hate vs no hate (de Gibert et al. 2018).",
            R.hate_speech_forum,
            200,
            ("register",),
            classes=2,
            obtain="git clone github.com/Vicomtech/hate-speech-dataset into ROOT/hate_speech/: "
            f"{releases.HATE_FORUM_METADATA} (file_id, user_id, subforum_id, num_contexts, label), "
            f"{releases.HATE_FORUM_SAMPLED}/<file_id>.txt (read by default) and "
            f"{releases.HATE_FORUM_ALL}/<file_id>.txt (release={releases.HATE_FORUM_ALL})",
            license="CC BY-SA 3.0",
            homepage="https://github.com/Vicomtech/hate-speech-dataset",
        ),
        Corpus(
            "hate_speech_and_offensive_language",
            "Tweets: hate speech / offensive language / neither (Davidson et al. 2017).",
            R.table(
                ("data/labeled_data.csv", "labeled_data.csv"),
                columns={"label": "class", "text": "tweet"},
                label_map={"0": "hate_speech", "1": "offensive_language", "2": "neither"},
                layout="data/labeled_data.csv",
            ),
            200,
            ("register",),
            classes=3,
            obtain="git clone github.com/t-davidson/hate-speech-and-offensive-language into "
            "ROOT/hate_speech_and_offensive_language/: "
            "data/labeled_data.csv (or the file alone in the folder) with columns (index), count, hate_speech, "
            "offensive_language, neither, class (0 hate, 1 offensive, 2 neither), tweet",
            license="MIT",
            homepage="https://github.com/t-davidson/hate-speech-and-offensive-language",
        ),
        Corpus(
            "gede_essay_detection",
            "GEDE essays (Gehring and Paassen 2025): label = the text's author, human or one of three "
            "generators (Llama-3.3-70B-Instruct, GPT-4o-mini, the DIPPER paraphraser).",
            R.gede,
            200,
            ("ai-detection",),
            tasks=CLUSTER_ONLY,
            applications=ATD,
            classes=4,
            obtain="git clone github.com/lukasgehring/Assessing-LLM-Text-Detection-in-Educational-Contexts into "
            "ROOT/gede_essay_detection/ and unzip database/database.db.zip in database/ (SQLite: answers, jobs); run "
            "database/add_aae_to_database.py to restore the AAE human essays (else they are blank and skipped), or "
            "read "
            "dataset/essays.csv written by database/export_to_csv.py. --dataset-option label=contribution_level for "
            "the "
            "8 levels; a plain text,label table: --dataset-option release=table",
            citation=GEDE_CITATION,
            sources=GEDE_SOURCES,
            license="CC BY-NC-SA 4.0",
            homepage="https://github.com/lukasgehring/Assessing-LLM-Text-Detection-in-Educational-Contexts",
        ),
    ]
    for setting, binary in (
        ("arxiv", False),
        ("direct_prompt", False),
        ("writing_prompt", False),
        ("xsum", False),
        ("yelp_review", False),
        ("paraphrase_attacks", True),
        ("perturbation_attacks", True),
        ("prompt_attacks", True),
    ):
        out.append(
            Corpus(
                f"machine_text_detection_DetectRL_{setting}",
                f"DetectRL {setting.replace('_', ' ')}: "
                + ("human vs LLM text under attack." if binary else "human text vs each LLM's."),
                R.detectrl(setting, binary),
                200,
                ("ai-detection",),
                tasks=CLUSTER_ONLY,
                applications=ATD_ADV if binary else ATD,
                classes=2 if binary else 5,
                obtain="git clone github.com/NLP2CT/DetectRL into ROOT/DetectRL/ (shared by the 8 settings) or "
                "ROOT/<dataset>/: "
                f"Benchmark/Benchmark_Data/{'/'.join(R.DETECTRL_FILES[setting])}_test.json, a JSON list of objects "
                "with text, "
                f"label 'human'|'llm', llm_type (--dataset-option split=train|all adds the train file)",
                license="see release",
                homepage="https://github.com/NLP2CT/DetectRL",
            )
        )
    for domain, classes in (("arxiv", 6), ("peerread", 6), ("reddit", 6), ("wikihow", 5), ("wikipedia", 5)):
        out.append(
            Corpus(
                f"machine_text_detection_M4_{domain}",
                f"M4 {domain}: human text vs each generator's (BloomZ excluded).",
                R.m4(domain),
                200,
                ("ai-detection",),
                tasks=CLUSTER_ONLY,
                applications=ATD,
                classes=classes,
                obtain="git clone github.com/mbzuai-nlp/M4 into ROOT/M4/ (shared by the 5 domains) or "
                "ROOT/<dataset>/: "
                f"data/{domain}_<model>.jsonl (human_text, machine_text; BloomZ files skipped)",
                license="see release",
                homepage="https://github.com/mbzuai-nlp/M4",
            )
        )
    mage_budget = {
        "cmv": 60,
        "eli5": 73,
        "hswag": 66,
        "roct": 76,
        "sci_gen": 36,
        "squad": 55,
        "tldr": 57,
        "wp": 70,
        "xsum": 86,
        "yelp": 42,
    }
    for domain, budget in mage_budget.items():
        out.append(
            Corpus(
                f"machine_text_detection_MAGE_{domain}",
                f"MAGE {domain}: human text vs 27 generators (prompt methods collapsed).",
                R.table(
                    "test.csv",
                    columns={"text": "text", "label": "src"},
                    label_map=R.mage_generator(domain),
                    family="MAGE",
                    layout="test.csv with columns text, label, src",
                    hub_id="yaful/MAGE",
                ),
                budget,
                ("ai-detection",),
                tasks=CLUSTER_ONLY,
                applications=ATD,
                classes=28,
                obtain="MAGE, Hugging Face hub yaful/MAGE (github.com/yafuly/MAGE holds code only): `huggingface-cli "
                "download "
                "yaful/MAGE test.csv --repo-type dataset --local-dir ROOT/MAGE` (shared by the 10 domains; or "
                "ROOT/<dataset>/, "
                "or the local hub cache): test.csv with columns text, label, src "
                "(src = <domain>_human or <domain>_machine_<method>_<generator>)",
                license="Apache-2.0",
                homepage="https://github.com/yafuly/MAGE",
            )
        )
    return out


def all_specs() -> list[DatasetSpec]:
    """Every dataset spec of this distribution (built without reading any data)."""
    from .probing import probing_specs
    from .retrieval import retrieval_specs

    return [c.spec() for c in labelled_corpora()] + retrieval_specs() + probing_specs()
