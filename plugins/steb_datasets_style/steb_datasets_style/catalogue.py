"""The catalogue: STEB's labelled corpora as data (names, budgets, categories from the STEB paper).

Each entry names the official release, the files and fields its reader expects, and the per-class
sampling budget of STEB (a seeded cap, recorded in ``bundle.info``). Retrieval and probing datasets
live in :mod:`.retrieval` and :mod:`.probing`.
"""

from __future__ import annotations

from steb_core import DatasetSpec

from . import readers as R
from .common import Corpus

ATD = ("ATD",)
ATD_ADV = ("ATD-adversarial",)
CLUSTER_ONLY = ("clustering",)


#: PASTEL's own paper (xSLUE, Kang and Hovy 2021, is another work that reuses it)
PASTEL_CITATION = """@inproceedings{kang2019pastel,
  author = {Kang, Dongyeop and Gangal, Varun and Hovy, Eduard},
  title = {(Male, Bachelor) and (Female, {Ph.D}) have different connotations: Parallelly Annotated Stylistic Language Dataset with Multiple Personas},
  booktitle = {Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)},
  year = {2019},
}"""


def _cite(key: str, text: str) -> str:
    return f"@misc{{{key}, note={{{text}}}}}"


def labelled_corpora() -> list[Corpus]:
    """Every labelled STEB dataset this distribution provides (clustering and all-to-all pairs)."""
    out = [
        Corpus(
            "core", "CORE, Corpus of Online Registers of English: web documents by register; sub-register labels, "
            "a multi-label document appears under each of its labels.",
            R.table("*.tsv.gz", format="tsv", header=False, columns={"label": 0, "id": 1, "text": 2}, multi_label=" ",
                    label_map=R.lowercase_sub_labels, layout="train.tsv.gz, dev.tsv.gz, test.tsv.gz"),
            25, ("genre",), classes=38,
            obtain="git clone github.com/TurkuNLP/CORE-corpus into ROOT/core/ (train.tsv.gz, dev.tsv.gz, test.tsv.gz): headerless "
                   "TSV: labels (space separated, upper-case main "
                   "registers, lower-case sub-registers), document id, text",
            citation=_cite("egbert2015core", "Egbert, Biber, Davies (2015) Developing a bottom-up, user-based method of web register classification; Laippala et al. (2022) CORE"),
            license="CC BY 4.0", homepage="https://github.com/TurkuNLP/CORE-corpus",
        ),
        Corpus(
            "x_genre", "X-GENRE: English texts labelled with 9 genres (Kuzman et al. 2023).",
            R.x_genre, 46, ("genre",), classes=9,
            obtain=f"Hugging Face hub {R.XGENRE_HUB_ID} (also CLARIN.SI; github.com/TajaKuzman/Genre-Datasets-Comparison holds "
                   f"code only): `huggingface-cli download {R.XGENRE_HUB_ID} --repo-type dataset --local-dir ROOT/x_genre` "
                   "(X-GENRE-{train,dev,test}.jsonl with text, labels, dataset, language; Slovenian rows dropped), or the local hub cache",
            citation=_cite("kuzman2023xgenre", "Kuzman, Mozetic, Ljubesic (2023) Automatic genre identification for robust enrichment of massive text collections"),
            license="CC BY-SA 4.0", homepage="https://github.com/TajaKuzman/Genre-Datasets-Comparison",
        ),
        Corpus(
            "masc_text_genre", "MASC 3.0.0 written and spoken genres; documents split into paragraphs, label = genre.",
            R.masc, 150, ("genre",), classes=19,
            obtain="MASC 3.0.0 from anc.org/data/masc: unpack so that data/written/<genre>/*.txt and data/spoken/<genre>/*.txt exist",
            citation=_cite("ide2010masc", "Ide et al. (2010) MASC: the Manually Annotated Sub-Corpus of American English"),
            license="open (ANC)", homepage="https://anc.org/data/masc/",
        ),
        Corpus(
            "ceeces", "Corpus of Early English Correspondence (extension, 1680-1799): letters by six 20-year periods.",
            R.ceeces, 200, ("time",), classes=6,
            obtain="CEEC extension plain-text release (CoRD / Oxford Text Archive, licensed): .txt files with one COCOA "
                   "<Q ...> header per letter carrying the letter's year",
            citation=_cite("nevalainen2006ceec", "Nevalainen, Raumolin-Brunberg et al., Corpus of Early English Correspondence Extension"),
            license="academic licence (user-supplied)", homepage="https://varieng.helsinki.fi/CoRD/corpora/CEEC/",
        ),
        Corpus(
            "bible_versions", "Parallel English Bible versions: label = version; verses identical across versions dropped.",
            R.bible_versions, 200, ("time",), classes=8,
            obtain="git clone github.com/scrollmapper/bible_databases into ROOT/bible_versions/ (or ROOT/bible_databases/): "
                   "formats/csv/<Version>.csv with columns Book,Chapter,Verse,Text (current layout) or csv/t_<abbr>.csv with "
                   "id,b,c,v,t (releases before 2024); versions KJV, ASV, BBE, Darby, Douay-Rheims (DRC), Webster, WEB, YLT "
                   "(--dataset-option versions=A,B,... or all)",
            size_note="the current release has 7 of the 8 versions (no WEB); the older csv/ layout has 7 (no Douay-Rheims)",
            citation=_cite("carlson2018bible", "Carlson, Riddell, Rockmore (2018) Evaluating prose style transfer with the Bible"),
            license="public domain versions", homepage="https://github.com/scrollmapper/bible_databases",
        ),
        Corpus(
            "fce_l1", "FCE learner essays (Cambridge First Certificate): label = the candidate's first language.",
            R.fce, 25, ("demographics",), classes=15,
            obtain="FCE dataset release (ilexir.co.uk/datasets): fce-released-dataset/dataset/<batch>/*.xml with "
                   "head/candidate/personnel/language and answerN/coded_answer/p (NS error markup; <i> kept, <c> dropped)",
            citation=_cite("yannakoudakis2011fce", "Yannakoudakis, Briscoe, Medlock (2011) A new dataset and method for automatically grading ESOL texts"),
            license="non-commercial research", homepage="https://ilexir.co.uk/datasets/index.html",
        ),
        Corpus(
            "blog_age", "Blog Authorship Corpus posts by the blogger's age band (13-17, 23-27, 33-48).",
            R.blog("age", 200), 200, ("demographics",), classes=3,
            obtain="Blog Authorship Corpus (Schler et al. 2006): unpack blogs.zip to blogs/<id>.<gender>.<age>.<industry>.<sign>.xml "
                   "(folder ROOT/blog_age/ or shared ROOT/blogs/)",
            citation=_cite("schler2006blogs", "Schler, Koppel, Argamon, Pennebaker (2006) Effects of age and gender on blogging"),
            license="non-commercial research", homepage="https://u.cs.biu.ac.il/~koppel/BlogCorpus.htm",
        ),
        Corpus(
            "blog_gender", "Blog Authorship Corpus posts by the blogger's gender.",
            R.blog("gender", 200), 200, ("demographics",), classes=2,
            obtain="Blog Authorship Corpus: blogs/<id>.<gender>.<age>.<industry>.<sign>.xml (ROOT/blog_gender/ or shared ROOT/blogs/)",
            citation=_cite("schler2006blogs", "Schler, Koppel, Argamon, Pennebaker (2006) Effects of age and gender on blogging"),
            license="non-commercial research", homepage="https://u.cs.biu.ac.il/~koppel/BlogCorpus.htm",
        ),
    ]
    pastel_budget = {"age": (25, 6), "education": (25, 8), "ethnic": (25, 9), "gender": (55, 3), "politics": (200, 3), "tod": (200, 5)}
    for attr, (budget, classes) in pastel_budget.items():
        out.append(Corpus(
            f"pastel_{attr}", f"PASTEL sentences by the writer's persona attribute '{attr}'.",
            R.pastel(attr), budget, ("demographics",), classes=classes,
            obtain="git clone github.com/dykang/PASTEL into ROOT/PASTEL/ (shared by the 6 attributes) or ROOT/<dataset>/ and "
                   "unzip data/data_v2.zip there (data/v2/sentences/{train,valid,test}/*.json: one object per file with persona "
                   "{age, education, ethnic, gender, politics, tod, country} and output.sentences); stories/ is not read",
            citation=PASTEL_CITATION,
            license="see release", homepage="https://github.com/dykang/PASTEL",
        ))
    for name, file_name in (("wikipedia_politeness", "wikipedia.annotated.csv"), ("stackexchange_politeness", "stack-exchange.annotated.csv")):
        out.append(Corpus(
            name, f"Stanford Politeness Corpus ({file_name.split('.')[0]}): requests as polite / neutral / impolite (score quartiles).",
            R.politeness(file_name), 200, ("register",), classes=3,
            obtain=f"Stanford Politeness Corpus zip from cs.cornell.edu/~cristian/Politeness.html (the ConvoKit corpus format is "
                   f"not read): unpack so that {file_name} (columns Community, Id, Request, Score1..5, TurkId1..5, Normalized Score) "
                   "is in ROOT/<dataset>/ or the shared ROOT/Stanford_politeness_corpus/",
            citation=_cite("danescu2013politeness", "Danescu-Niculescu-Mizil et al. (2013) A computational approach to politeness"),
            license="CC BY 4.0", homepage="https://www.cs.cornell.edu/~cristian/Politeness.html",
        ))
    out += [
        Corpus(
            "eWAVE", "eWAVE example sentences by variety of English (CLDF release).",
            R.ewave, 29, ("dialect",), classes=53,
            obtain="git clone github.com/cldf-datasets/ewave into ROOT/eWAVE/: cldf/examples.csv (ID, Language_ID, Primary_Text) "
                   "and cldf/languages.csv (ID, Name)",
            citation=_cite("kortmann2020ewave", "Kortmann, Lunkenheimer, Ehret (2020) The Electronic World Atlas of Varieties of English"),
            license="CC BY 4.0", homepage="https://ewave-atlas.org",
        ),
        Corpus(
            "endive", "EnDive: the same texts in Standard American English and five dialects; label = dialect.",
            R.endive, 200, ("dialect",), classes=6,
            obtain="EnDive (github.com/endiveee/EnDive-Code holds code only; the data is published on the Hugging Face hub by user "
                   "abhaygupta1266 as per-dialect, per-task datasets whose layout steb has not verified): bring tables "
                   "(*.csv|jsonl|parquet) with one text column per dialect: SAE, AAVE, ChcE, CollSgE, IndE, JamE "
                   "(rename with --dataset-option dialects=A,B,...)",
            citation=_cite("endive2025", "EnDive: a cross-dialect benchmark for fairness and performance in large language models (2025)"),
            license="see release",
        ),
        Corpus(
            "enron_spam", "Enron-Spam e-mails: ham vs spam.",
            R.enron_spam, 200, ("register",), classes=2,
            obtain="Enron-Spam pre-processed (aueb.gr/users/ion/data/enron-spam): enron1..enron6/{ham,spam}/*.txt",
            citation=_cite("metsis2006spam", "Metsis, Androutsopoulos, Paliouras (2006) Spam filtering with naive Bayes - which naive Bayes?"),
            license="research", homepage="https://www2.aueb.gr/users/ion/data/enron-spam/",
        ),
        Corpus(
            "sms_spam", "SMS Spam Collection: ham vs spam.",
            R.table("SMSSpamCollection", format="tsv", header=False, columns={"label": 0, "text": 1}, layout="SMSSpamCollection"),
            200, ("register",), classes=2,
            obtain="UCI SMS Spam Collection: file SMSSpamCollection, headerless TSV: label (ham|spam), text",
            citation=_cite("almeida2011sms", "Almeida, Gomez Hidalgo, Yamakami (2011) Contributions to the study of SMS spam filtering"),
            license="CC BY 4.0", homepage="https://archive.ics.uci.edu/dataset/228/sms+spam+collection",
        ),
        Corpus(
            "telegram-spam-ham", "Telegram group messages: ham vs spam.",
            R.table("*.csv", columns={"label": "text_type", "text": "text"}, layout="dataset.csv with columns text_type, text"),
            200, ("register",), classes=2,
            obtain="Kaggle 'Telegram Spam or Ham' dataset: one CSV with columns text_type (ham|spam), text",
            license="see release",
        ),
        Corpus(
            "hate_speech", "White-supremacist forum sentences: hate vs no hate (de Gibert et al. 2018).",
            R.hate_speech_forum, 200, ("register",), classes=2,
            obtain="git clone github.com/Vicomtech/hate-speech-dataset into ROOT/hate_speech/: annotations_metadata.csv (file_id, "
                   "user_id, subforum_id, num_contexts, label) and all_files/<file_id>.txt",
            citation=_cite("degibert2018hate", "de Gibert, Perez, Garcia-Pablos, Cuadros (2018) Hate speech dataset from a white supremacy forum"),
            license="CC BY-SA 3.0", homepage="https://github.com/Vicomtech/hate-speech-dataset",
        ),
        Corpus(
            "hate_speech_and_offensive_language", "Tweets: hate speech / offensive language / neither (Davidson et al. 2017).",
            R.table(("data/labeled_data.csv", "labeled_data.csv"), columns={"label": "class", "text": "tweet"},
                    label_map={"0": "hate_speech", "1": "offensive_language", "2": "neither"}, layout="data/labeled_data.csv"),
            200, ("register",), classes=3,
            obtain="git clone github.com/t-davidson/hate-speech-and-offensive-language into ROOT/hate_speech_and_offensive_language/: "
                   "data/labeled_data.csv (or the file alone in the folder) with columns (index), count, hate_speech, "
                   "offensive_language, neither, class (0 hate, 1 offensive, 2 neither), tweet",
            citation=_cite("davidson2017hate", "Davidson, Warmsley, Macy, Weber (2017) Automated hate speech detection and the problem of offensive language"),
            license="MIT", homepage="https://github.com/t-davidson/hate-speech-and-offensive-language",
        ),
        Corpus(
            "gede_essay_detection", "GEDE essays: human-written vs generated by several models; label = source.",
            R.table("*.csv", columns={"text": "text", "label": "label"}, layout="*.csv with columns text, label"),
            200, ("ai-detection",), tasks=CLUSTER_ONLY, applications=ATD, classes=4,
            obtain="GEDE essay-detection release (no public repository known to steb; bring your copy): CSV file(s) in "
                   "ROOT/gede_essay_detection/ with columns text, label (human or the generating model); another file name: "
                   "--dataset-option path=NAME",
            license="see release",
        ),
    ]
    detectrl_cite = _cite("wu2024detectrl", "Wu et al. (2024) DetectRL: benchmarking LLM-generated text detection in real-world scenarios")
    for setting, binary in (("arxiv", False), ("direct_prompt", False), ("writing_prompt", False), ("xsum", False), ("yelp_review", False),
                            ("paraphrase_attacks", True), ("perturbation_attacks", True), ("prompt_attacks", True)):
        out.append(Corpus(
            f"machine_text_detection_DetectRL_{setting}",
            f"DetectRL {setting.replace('_', ' ')}: " + ("human vs LLM text under attack." if binary else "human text vs each LLM's."),
            R.detectrl(setting, binary), 200, ("ai-detection",), tasks=CLUSTER_ONLY, applications=ATD_ADV if binary else ATD,
            classes=2 if binary else 5,
            obtain=f"git clone github.com/NLP2CT/DetectRL into ROOT/DetectRL/ (shared by the 8 settings) or ROOT/<dataset>/: "
                   f"Benchmark/Benchmark_Data/{'/'.join(R.DETECTRL_FILES[setting])}_test.json, a JSON list of objects with text, "
                   f"label 'human'|'llm', llm_type (--dataset-option split=train|all adds the train file)",
            citation=detectrl_cite, license="see release", homepage="https://github.com/NLP2CT/DetectRL",
        ))
    for domain, classes in (("arxiv", 6), ("peerread", 6), ("reddit", 6), ("wikihow", 5), ("wikipedia", 5)):
        out.append(Corpus(
            f"machine_text_detection_M4_{domain}", f"M4 {domain}: human text vs each generator's (BloomZ excluded).",
            R.m4(domain), 200, ("ai-detection",), tasks=CLUSTER_ONLY, applications=ATD, classes=classes,
            obtain=f"git clone github.com/mbzuai-nlp/M4 into ROOT/M4/ (shared by the 5 domains) or ROOT/<dataset>/: "
                   f"data/{domain}_<model>.jsonl (human_text, machine_text; BloomZ files skipped)",
            citation=_cite("wang2024m4", "Wang et al. (2024) M4: multi-generator, multi-domain, and multi-lingual black-box machine-generated text detection"),
            license="see release", homepage="https://github.com/mbzuai-nlp/M4",
        ))
    mage_budget = {"cmv": 60, "eli5": 73, "hswag": 66, "roct": 76, "sci_gen": 36, "squad": 55, "tldr": 57, "wp": 70, "xsum": 86, "yelp": 42}
    for domain, budget in mage_budget.items():
        out.append(Corpus(
            f"machine_text_detection_MAGE_{domain}", f"MAGE {domain}: human text vs 27 generators (prompt methods collapsed).",
            R.table("test.csv", columns={"text": "text", "label": "src"}, label_map=R.mage_generator(domain), family="MAGE",
                    layout="test.csv with columns text, label, src", hub_id="yaful/MAGE"),
            budget, ("ai-detection",), tasks=CLUSTER_ONLY, applications=ATD, classes=28,
            obtain="MAGE, Hugging Face hub yaful/MAGE (github.com/yafuly/MAGE holds code only): `huggingface-cli download "
                   "yaful/MAGE test.csv --repo-type dataset --local-dir ROOT/MAGE` (shared by the 10 domains; or ROOT/<dataset>/, "
                   "or the local hub cache): test.csv with columns text, label, src "
                   "(src = <domain>_human or <domain>_machine_<method>_<generator>)",
            citation=_cite("li2024mage", "Li et al. (2024) MAGE: machine-generated text detection in the wild"),
            license="Apache-2.0", homepage="https://github.com/yafuly/MAGE",
        ))
    return out


def all_specs() -> list[DatasetSpec]:
    """Every dataset spec of this distribution (built without reading any data)."""
    from .probing import probing_specs
    from .retrieval import retrieval_specs

    return [c.spec() for c in labelled_corpora()] + retrieval_specs() + probing_specs()
