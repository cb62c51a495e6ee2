"""Every labelled-corpus loader on a tiny fixture in its official layout, plus one malformed fixture each."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from steb_core import CATEGORIES, DataValidationError, DatasetNotFoundError, LoadContext
from steb_datasets_style.catalogue import labelled_corpora

CORPORA = {c.name: c for c in labelled_corpora()}


def w(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def jl(*objs) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def load(root: Path, name: str, **options):
    return CORPORA[name].load(LoadContext(dataset=name, data_dir=root / name, seed=0, options=options))


# ---- fixture writers: (valid, malformed) per dataset; each returns nothing, writes under root ------------------
def core(d, bad):
    body = "NA ne\td1\tA news report about the town.\nIN dtp\td2\tFirst, open the lid.\nNA ne sr\td3\tA sports report.\n"
    if bad:
        body += "OP rv\td4\n"
    w(d / "core" / "train.tsv.gz", gzip.compress(body.encode()))


def x_genre(d, bad):
    rows = [{"text": "Buy now!", "labels": "Promotion", "language": "en"}, {"text": "Kupi zdaj", "labels": "Promotion", "language": "sl"},
            {"text": "The minister said...", "labels": "News"}]
    if bad:
        rows.append({"text": "no label here"})
    w(d / "x_genre" / "X-GENRE-train.jsonl", jl(*rows))


def masc(d, bad):
    if bad:
        w(d / "masc_text_genre" / "data" / "README.txt", "no genre folders")
        return
    w(d / "masc_text_genre" / "data" / "written" / "blog" / "b1.txt", "First blog paragraph is here.\n\nSecond blog paragraph follows.\n\nok\n")
    w(d / "masc_text_genre" / "data" / "spoken" / "telephone" / "t1.txt", "A: hello there how are you doing\nB: fine thanks and you my friend\n")


def ceeces(d, bad):
    text = ("<Q A 1685 SMITH>\n<A JOHN SMITH>\nDear Sir, I {ED:illegible} received yours.\n"
            "<Q B 1745 JONES>\nMy lord, the weather is fine.\n<Q C 1640 EARLY>\nToo early a letter.\n")
    if bad:
        text += "<Q D NOYEAR>\nUndated letter.\n"
    w(d / "ceeces" / "smith.txt", text)


def bible_versions(d, bad):
    w(d / "bible_versions" / "t_kjv.csv", "id,b,c,v,t\n1001001,1,1,1,In the beginning God created the heaven.\n1001002,1,1,2,And the earth was without form.\n")
    second = "id,b,c,v,t\n1001001,1,1,1,In the beginning God made the sky.\n1001002,1,1,2,and the  EARTH was without form.\n"
    if bad:
        second = "id,b,c,v\n1001001,1,1,1\n"
    w(d / "bible_versions" / "t_ylt.csv", second)


FCE_XML = """<learner><head sortkey="X"><candidate><personnel><language>{lang}</language><age>21-25</age></personnel></candidate>
<text><answer1><question_number>1</question_number><coded_answer><p>Dear Sir, I <NS type="RV"><i>am agree</i><c>agree</c></NS> with you.</p>
<p>Second para<NS type="MP"><c>.</c></NS></p></coded_answer></answer1>
<answer2><coded_answer><p>My holiday was good.</p></coded_answer></answer2></text></head></learner>"""


def fce_l1(d, bad):
    w(d / "fce_l1" / "dataset" / "0100_2000_6" / "doc1.xml", FCE_XML.format(lang="Catalan"))
    w(d / "fce_l1" / "dataset" / "0100_2000_6" / "doc2.xml", FCE_XML.format(lang="" if bad else "Japanese"))


def _blogs(root, bad):
    w(root / "blogs" / "1000.male.15.Student.Aries.xml", "<Blog>\n<date>1,May,2004</date>\n<post>\n  teen post one \n</post>\n<post>teen post two</post>\n</Blog>")
    w(root / "blogs" / "2000.female.25.Arts.Leo.xml", "<Blog><post>caf\xe9 twenties post</post></Blog>".encode("cp1252"))
    w(root / "blogs" / "3000.female.40.Law.Leo.xml", "<Blog><post>thirties & more</post><post>   </post></Blog>")
    w(root / "blogs" / "4000.male.20.Law.Leo.xml", "<Blog><post>age twenty falls in a gap</post></Blog>")
    if bad:
        w(root / "blogs" / "notes.xml", "<Blog><post>x</post></Blog>")


def blog_age(d, bad):
    _blogs(d / "blogs", bad)  # the shared family folder ROOT/blogs/blogs/


def blog_gender(d, bad):
    _blogs(d / "blog_gender", bad)


def _pastel(d, bad):
    root = d / "PASTEL" / "data" / "sentences" / "train"
    persona = {"age": "25-34", "education": "Bachelor", "gender": "Female", "ethnic": "Caucasian", "politics": "LeftWing", "tod": "Morning"}
    w(root / "1.json", json.dumps({"persona": persona, "sentence": "We went to the beach."}))
    w(root / "2.json", json.dumps({"persona": {**persona, "age": "55-74", "gender": "Male"}, "sentences": ["It rained.", "We left."]}))
    if bad:
        w(root / "3.json", json.dumps({"sentence": "no persona"}))


POLITE_HEADER = "Community,Id,Request,Score1,Score2,Score3,Score4,Score5,TurkId1,TurkId2,TurkId3,TurkId4,TurkId5,Normalized Score\n"


def _politeness(file_name):
    def write(d, bad):
        rows = [f"Wikipedia,{i},\"Request number {i}, please?\",13,13,13,13,13,a,b,c,d,e,{s}\n" for i, s in enumerate([-1.5, -0.5, 0.0, 0.2, 0.4, 1.1, 1.6, 2.0])]
        if bad:
            rows.insert(1, "Wikipedia,99,Bad score,1,1,1,1,1,a,b,c,d,e,high\n")
        w(d / "Stanford_politeness_corpus" / file_name, POLITE_HEADER + "".join(rows))
    return write


def ewave(d, bad):
    w(d / "eWAVE" / "cldf" / "languages.csv", "ID,Name,Glottocode\n1,Orkney and Shetland English,\n2,Singapore English,\n")
    ex = 'ID,Language_ID,Primary_Text,Translated_Text\n1-1,1,"I am been there.",\n2-1,2,"Can or not?",\n2-2,2,"He so tall one.",\n'
    if bad:
        ex += "9-1,9,\"Unknown variety.\",\n"
    w(d / "eWAVE" / "cldf" / "examples.csv", ex)


def endive(d, bad):
    body = "id,task,SAE,AAVE,JamE\n1,boolq,Is he at home?,He home?,Him deh a yaad?\n" if not bad else "id,task,sentence\n1,boolq,Is he home?\n"
    w(d / "endive" / "boolq.csv", body)


def enron_spam(d, bad):
    if bad:
        w(d / "enron_spam" / "enron1" / "other" / "1.txt", "Subject: x")
        return
    w(d / "enron_spam" / "enron1" / "ham" / "0001.1999-12-10.farmer.ham.txt", "Subject: meeting\nsee you at ten")
    w(d / "enron_spam" / "enron1" / "spam" / "0006.2003-12-18.GP.spam.txt", "Subject: cheap meds\nbuy n\xf6w".encode("latin-1"))


def sms_spam(d, bad):
    w(d / "sms_spam" / "SMSSpamCollection", "ham\tOk lar... see you\nspam\tWINNER!! Claim your prize\n" + ("ham\n" if bad else ""))


def telegram(d, bad):
    w(d / "telegram-spam-ham" / "dataset.csv", ("label,text\n" if bad else "text_type,text\n") + "ham,hello group\nspam,earn $$$ fast\n")


def hate_speech(d, bad):
    root = d / "hate_speech"
    w(root / "annotations_metadata.csv", "file_id,user_id,subforum_id,num_contexts,label\n12834217_1,572066,1346,0,noHate\n12834217_2,572066,1346,0,hate\n"
      "12834217_3,572066,1346,0,idk/skip\n" + ("12834217_9,1,1,0,hate\n" if bad else ""))
    for i in (1, 2, 3):
        w(root / "all_files" / f"12834217_{i}.txt", f"sentence {i} of the forum")


def davidson(d, bad):
    head = ",count,hate_speech,offensive_language,neither,class,tweet\n" if not bad else ",count,tweet\n"
    body = "0,3,0,0,3,2,\"!!! RT @user: as a woman you shouldn't complain\"\n1,3,0,3,0,1,\"offensive tweet\"\n2,3,3,0,0,0,hateful tweet\n"
    w(d / "hate_speech_and_offensive_language" / "labeled_data.csv", head + (body if not bad else "0,3,x\n"))


def gede(d, bad):
    w(d / "gede_essay_detection" / "gede.csv", "id,text,label\n1,An essay by a student.,human\n2,An essay by a model.,gpt-4\n" + ("3,Orphan essay.,\n" if bad else ""))


def detectrl_multi(d, bad):
    rows = [{"text": "human abstract", "label": "human", "llm_type": "human", "data_type": "arxiv"},
            {"text": "gpt abstract", "label": "llm", "llm_type": "GPT-3.5"}, {"text": "palm abstract", "label": "llm", "llm_type": "PaLM-2"}]
    if bad:
        rows.append({"text": "who wrote this", "label": "robot", "llm_type": "x"})
    w(d / "machine_text_detection_DetectRL_arxiv" / "arxiv_test.json", json.dumps(rows))


def detectrl_binary(d, bad):
    rows = [{"text": "human story", "label": "human"}, {"text": "paraphrased story", "label": "llm", "llm_type": "Claude"}]
    if bad:
        rows.append({"label": "llm"})
    w(d / "machine_text_detection_DetectRL_paraphrase_attacks" / "paraphrase.json", json.dumps(rows))


def m4(d, bad):
    root = d / "M4"
    w(root / "arxiv_chatGPT.jsonl", jl({"human_text": "human abstract one", "machine_text": "chatgpt abstract", "model": "chatGPT"}))
    w(root / "arxiv_cohere.jsonl", jl({"human_text": "human abstract one", "machine_text": "cohere abstract"}))
    w(root / "arxiv_bloomz.jsonl", jl({"human_text": "human abstract two", "machine_text": "bloomz abstract"}))
    w(root / "reddit_chatGPT.jsonl", jl({"human_text": "other domain", "machine_text": "other"}))
    if bad:
        w(root / "arxiv_dolly.jsonl", jl({"human_text": "h"}))


def mage(d, bad):
    rows = ['text,label,src\n', '"A human view on cmv.",1,cmv_human\n', '"gpt text",0,cmv_machine_continuation_gpt-3.5-trubo\n',
            '"gpt topical",0,cmv_machine_topical_gpt-3.5-trubo\n', '"opt text",0,cmv_machine_specified_opt_1.3b\n',
            '"science",1,sci_gen_human\n']
    if bad:
        rows.append('"broken",0,cmv_robot\n')
    w(d / "MAGE" / "test.csv", "".join(rows))


# name -> (writer, expected labels, extra check, malformed needles)
CASES = {
    "core": (core, {"ne", "dtp", "sr"}, lambda b: Counter(r.id for r in b.labelled_texts)["d3"] == 2, ["train.tsv.gz", "row 4", "'2'"]),
    "x_genre": (x_genre, {"Promotion", "News"}, lambda b: len(b.labelled_texts) == 2, ["X-GENRE-train.jsonl", "line 4", "'labels'"]),
    "masc_text_genre": (masc, {"blog", "telephone"}, lambda b: len(b.labelled_texts) == 4, ["masc_text_genre", "no file matches"]),
    "ceeces": (ceeces, {"1680-1699", "1740-1759"}, lambda b: "ED:" not in b.labelled_texts[0].text and "JOHN" not in b.labelled_texts[0].text,
               ["smith.txt", "letter 4", "<Q> header"]),
    "bible_versions": (bible_versions, {"KJV", "YLT"}, lambda b: len(b.labelled_texts) == 2, ["t_ylt.csv", "row 1", "'t'"]),
    "fce_l1": (fce_l1, {"Catalan", "Japanese"},
               lambda b: b.labelled_texts[0].text == "Dear Sir, I am agree with you.\nSecond para" and len(b.labelled_texts) == 4,
               ["doc2.xml", "candidate/personnel/language"]),
    "blog_age": (blog_age, {"13-17", "23-27", "33-48"}, lambda b: any("café" in r.text for r in b.labelled_texts) and len(b.labelled_texts) == 4,
                 ["notes.xml", "file name"]),
    "blog_gender": (blog_gender, {"male", "female"}, lambda b: len(b.labelled_texts) == 5, ["notes.xml", "file name"]),
    "pastel_age": (_pastel, {"25-34", "55-74"}, lambda b: "It rained. We left." in {r.text for r in b.labelled_texts}, ["3.json", "'persona'"]),
    "pastel_gender": (_pastel, {"Female", "Male"}, lambda b: True, ["3.json", "'persona'"]),
    "pastel_tod": (_pastel, {"Morning"}, lambda b: True, ["3.json", "'persona'"]),
    "wikipedia_politeness": (_politeness("wikipedia.annotated.csv"), {"polite", "neutral", "impolite"},
                             lambda b: Counter(r.label for r in b.labelled_texts) == {"impolite": 2, "neutral": 4, "polite": 2},
                             ["wikipedia.annotated.csv", "row 2", "'Normalized Score'"]),
    "stackexchange_politeness": (_politeness("stack-exchange.annotated.csv"), {"polite", "neutral", "impolite"}, lambda b: True,
                                 ["stack-exchange.annotated.csv", "row 2", "'Normalized Score'"]),
    "eWAVE": (ewave, {"Orkney and Shetland English", "Singapore English"}, lambda b: len(b.labelled_texts) == 3,
              ["examples.csv", "row 4", "'Language_ID'"]),
    "endive": (endive, {"SAE", "AAVE", "JamE"}, lambda b: len(b.labelled_texts) == 3, ["boolq.csv", "row 1", "SAE/AAVE"]),
    "enron_spam": (enron_spam, {"ham", "spam"}, lambda b: any("nöw" in r.text for r in b.labelled_texts), ["enron_spam", "ham/ or spam/"]),
    "sms_spam": (sms_spam, {"ham", "spam"}, lambda b: len(b.labelled_texts) == 2, ["SMSSpamCollection", "row 3", "'1'"]),
    "telegram-spam-ham": (telegram, {"ham", "spam"}, lambda b: True, ["dataset.csv", "row 1", "'text_type'"]),
    "hate_speech": (hate_speech, {"hate", "noHate"}, lambda b: b.info["dropped_label"] == 1,
                    ["annotations_metadata.csv", "row 4", "'file_id'"]),
    "hate_speech_and_offensive_language": (davidson, {"hate_speech", "offensive_language", "neither"}, lambda b: True,
                                           ["labeled_data.csv", "row 1", "'class'"]),
    "gede_essay_detection": (gede, {"human", "gpt-4"}, lambda b: True, ["gede.csv", "row 3", "label"]),
    "machine_text_detection_DetectRL_arxiv": (detectrl_multi, {"human", "GPT-3.5", "PaLM-2"}, lambda b: True,
                                              ["arxiv_test.json", "item 3", "'label'", "robot"]),
    "machine_text_detection_DetectRL_paraphrase_attacks": (detectrl_binary, {"human", "llm"}, lambda b: True,
                                                           ["paraphrase.json", "item 2", "'text'"]),
    "machine_text_detection_M4_arxiv": (m4, {"human", "chatGPT", "cohere"},
                                        lambda b: Counter(r.label for r in b.labelled_texts)["human"] == 1 and "bloomz abstract" not in {r.text for r in b.labelled_texts},
                                        ["arxiv_dolly.jsonl", "line 1", "'machine_text'"]),
    "machine_text_detection_MAGE_cmv": (mage, {"human", "gpt-3.5-trubo", "opt_1.3b"},
                                        lambda b: Counter(r.label for r in b.labelled_texts)["gpt-3.5-trubo"] == 2, ["test.csv", "row 6", "'src'", "cmv_robot"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_loader_reads_official_layout(tmp_path, name):
    writer, labels, check, _ = CASES[name]
    writer(tmp_path, False)
    bundle = load(tmp_path, name)
    assert {r.label for r in bundle.labelled_texts} == labels
    assert check(bundle), [(r.label, r.text) for r in bundle.labelled_texts]
    assert bundle.info["per_class"] == CORPORA[name].per_class and bundle.info["seed"] == 0
    assert bundle.info["class_counts"] == dict(sorted(Counter(r.label for r in bundle.labelled_texts).items()))


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_release_is_located(tmp_path, name):
    writer, _, _, needles = CASES[name]
    writer(tmp_path, True)
    with pytest.raises(DataValidationError) as err:
        load(tmp_path, name)
    for needle in needles:
        assert needle in str(err.value), (needle, str(err.value))


def test_budget_is_seeded_cap_recorded_in_info(tmp_path):
    w(tmp_path / "sms_spam" / "SMSSpamCollection", "".join(f"ham\tmessage number {i}\n" for i in range(250)) + "spam\tWIN\nspam\tFREE\n")
    a, b, c = (load(tmp_path, "sms_spam"), load(tmp_path, "sms_spam"), CORPORA["sms_spam"].load(LoadContext("sms_spam", tmp_path / "sms_spam", seed=7)))
    assert a.info["class_counts"] == {"ham": 200, "spam": 2} and a.info["class_counts_available"] == {"ham": 250, "spam": 2}
    assert [r.text for r in a.labelled_texts] == [r.text for r in b.labelled_texts]
    assert {r.text for r in a.labelled_texts} != {r.text for r in c.labelled_texts}
    assert len(load(tmp_path, "sms_spam", per_class=10).labelled_texts) == 12


def test_missing_release_says_what_to_obtain(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="SMSSpamCollection"):
        load(tmp_path, "sms_spam")


def test_catalogue_metadata_matches_steb():
    assert {"core": 25, "masc_text_genre": 150, "eWAVE": 29, "pastel_gender": 55, "machine_text_detection_MAGE_xsum": 86,
            "fce_l1": 25, "x_genre": 46, "bible_versions": 200}.items() <= {n: c.per_class for n, c in CORPORA.items()}.items()
    for c in CORPORA.values():
        spec = c.spec()
        assert set(spec.categories) <= set(CATEGORIES) and spec.obtain and spec.languages == ("en",)
        if c.name.startswith("machine_text_detection") or c.name.startswith("gede"):
            assert spec.tasks == ("clustering",) and spec.categories == ("ai-detection",)
            assert spec.applications == (("ATD-adversarial",) if "attacks" in c.name else ("ATD",))
        else:
            assert spec.tasks == ("clustering", "pair_all")
    by_cat = Counter(cat for c in CORPORA.values() for cat in c.categories)
    assert by_cat["genre"] == 3 and by_cat["time"] == 2 and by_cat["dialect"] == 2
    assert len([n for n in CORPORA if "MAGE" in n]) == 10 and len([n for n in CORPORA if "DetectRL" in n]) == 8
