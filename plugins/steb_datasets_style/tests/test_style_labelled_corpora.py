"""Every labelled-corpus loader on a tiny fixture in its official layout, plus one malformed fixture each."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from steb_core import CATEGORIES, DatasetNotFoundError, DataValidationError, LoadContext
from steb_core.testing import check_declared_reads, cut_to_declared
from steb_datasets_style.catalogue import all_specs, labelled_corpora

CORPORA = {c.name: c for c in labelled_corpora()}
SPECS = {s.name: s for s in all_specs()}


def w(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def jl(*objs) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def load(root: Path, name: str, **options):
    """Load every record the reader returns (``per_class=all``) unless asked: these tests check the readers; the
    reference's first-N rule (N from the smallest class, small classes dropped) is tested in
    test_style_class_budget.py."""
    options = {"per_class": "all", **options}
    return CORPORA[name].load(LoadContext(dataset=name, data_dir=root / name, seed=0, options=options))


# ---- fixture writers: (valid, malformed) per dataset; each returns nothing, writes under root ------------------
def core(d, bad):
    """The clone's gzipped splits; read train, dev, test in that order (the reference's), sub-register codes only."""
    body = "NA ne\td1\tA news report about the town.\nIN dt\td2\tFirst, open the lid.\nNA ne sr\td3\tA sports report.\n"
    w(d / "core" / "train.tsv.gz", gzip.compress(body.encode() + (b"OP rv\td4\tcaf\xe9\n" if bad else b"")))
    w(d / "core" / "dev.tsv.gz", gzip.compress(b"OTHER\td5\tNo label.\nIN NA ne\td6\tDev news.\nOP rv\td7\n"))


def x_genre(d, bad):
    rows = [
        {"text": "Buy now!", "labels": "Promotion", "language": "en"},
        {"text": "Kupi zdaj", "labels": "Promotion", "language": "sl"},
        {"text": "The minister said...", "labels": "News"},
    ]
    if bad:
        rows.append({"text": "no label here"})
    w(d / "x_genre" / "X-GENRE-train.jsonl", jl(*rows))
    w(d / "x_genre" / "README.md", "---\nconfigs:\n- config_name: train\n  data_files: X-GENRE-train.jsonl\n---\n")
    w(d / "x_genre" / ".cache" / "huggingface" / "download" / "X-GENRE-train.jsonl.metadata", "abc\n123\n")


def masc(d, bad):
    if bad:
        w(d / "masc_text_genre" / "data" / "README.txt", "no genre folders")
        return
    w(
        d / "masc_text_genre" / "data" / "written" / "blog" / "b1.txt",
        "First blog paragraph is here.\n\nSecond blog paragraph follows.\n\nok\n",
    )
    w(
        d / "masc_text_genre" / "data" / "spoken" / "telephone" / "t1.txt",
        "A: hello there how are you doing\nB: fine thanks and you my friend\n",
    )


def ceeces(d, bad):
    """Zenodo XML (assumed layout, see readers/ceeces.py): letters with a year, paragraphs in <p>, notes left out."""
    body = (
        '<corpus><letter id="L1" year="1685"><p>Dear Sir, I <note>ED: illegible</note>received yours.</p><p>Ever '
        "yours, J.</p>"
        '</letter><letter id="L2"><date when="1745-03-02"/><p><w>My</w> <w>lord</w><pc>,</pc><w>fine</w></p></letter>'
        '<letter id="L3" year="1640"><p>Too early a letter.</p></letter>'
        + ('<letter id="L4"><p>Undated.</p></letter>' if bad else "")
        + "</corpus>"
    )
    w(d / "ceeces" / "ceece_part1.xml", body)


def ceeces_cocoa(d, bad):
    text = (
        "<Q A 1685 SMITH>\n<A JOHN SMITH>\nDear Sir, I {ED:illegible} received yours.\n"
        "<Q B 1745 JONES>\nMy lord, the weather is fine.\n<Q C 1640 EARLY>\nToo early a letter.\n"
    )
    if bad:
        text += "<Q D NOYEAR>\nUndated letter.\n"
    w(d / "ceeces" / "smith.txt", text)


def bible_versions(d, bad):
    """keithecarlson/StyleTransferBibleData as cloned: Data/Bibles/<VERSION>/<Book>/<Book><chapter>.txt, '<n> <text>'
    lines."""
    base = d / "bible_versions" / "Data" / "Bibles"
    w(
        base / "KJV" / "Genesis" / "Genesis1.txt",
        "1 In the beginning God created the heaven. \n2 And the earth was without form. \n3 Let there be light. ",
    )
    w(
        base / "YLT" / "Genesis" / "Genesis1.txt",
        "1 In the beginning God made the sky. \n2 and the  EARTH was without form.\n3 \n",
    )
    w(
        base / "LEB" / "Genesis" / "Genesis1.txt",
        "1 At first &lt;God&gt; made it.\n[[2 The earth was empty.\n2 and void.\n",
    )
    if bad:
        w(base / "LEB" / "Genesis" / "Chapter2.txt", "1 A verse.\n")


def bible_scrollmapper(d, bad):
    """The current scrollmapper/bible_databases layout as cloned: formats/csv/<Version>.csv (Book,Chapter,Verse,Text),
    empty Text cells for verses a version lacks, other languages beside; ROOT/bible_databases/ is the clone."""
    csv_dir = d / "bible_databases" / "formats" / "csv"
    w(
        csv_dir / "KJV.csv",
        "Book,Chapter,Verse,Text\nGenesis,1,1,In the beginning God created the heaven.\n"
        "Genesis,1,2,And the earth was without form.\n"
        'Genesis,1,3,"And God said, Let there be light: and there was light."\n',
    )
    second = (
        "Book,Chapter,Verse,Text\nGenesis,1,1,In the beginning God made the sky. \nGenesis,1,2,and the  EARTH was "
        "without form.\n"
        "Genesis,1,3,\n"
    )
    if bad:
        second = "Book,Chapter,Verse\nGenesis,1,1\n"
    w(csv_dir / "YLT.csv", second)
    w(csv_dir / "GerSch.csv", "Book,Chapter,Verse,Text\nGenesis,1,1,Im Anfang schuf Gott die Himmel und die Erde.\n")
    w(d / "bible_databases" / "README.md", "# bible_databases\n")


FCE_XML = """<learner><head sortkey="X"><candidate><personnel><language>{lang}</language><age>21-25</age></personnel>
</candidate><text><answer1><question_number>1</question_number>
<coded_answer><p>Dear Sir, I <NS type="RV"><i>am agree</i><c>agree</c></NS> with you.</p>
<p>Second para<NS type="MP"><c>.</c></NS></p></coded_answer></answer1>
<answer2><coded_answer><p>My holiday was good.</p></coded_answer></answer2></text></head></learner>"""


def fce_l1(d, bad):
    w(d / "fce_l1" / "dataset" / "0100_2000_6" / "doc1.xml", FCE_XML.format(lang="Catalan"))
    w(d / "fce_l1" / "dataset" / "0100_2000_6" / "doc2.xml", FCE_XML.format(lang="" if bad else "Japanese"))


def _blog_hub(root, bad):
    """barilan/blog_authorship_corpus as a hub download: data files whose path names the split."""
    rows = [
        {
            "text": "teen post one",
            "date": "1,May,2004",
            "gender": "male",
            "age": 15,
            "horoscope": "Aries",
            "job": "Student",
        },
        {
            "text": "twenties post",
            "date": "2,May,2004",
            "gender": "female",
            "age": 25,
            "horoscope": "Leo",
            "job": "Arts",
        },
        {
            "text": "thirties post",
            "date": "3,May,2004",
            "gender": "female",
            "age": 40,
            "horoscope": "Leo",
            "job": "Law",
        },
        {"text": "   ", "date": "3,May,2004", "gender": "female", "age": 40, "horoscope": "Leo", "job": "Law"},
        {
            "text": "age twenty falls in a gap",
            "date": "4,May,2004",
            "gender": "male",
            "age": 20,
            "horoscope": "Leo",
            "job": "Law",
        },
    ]
    if bad:
        rows.append({"date": "", "gender": "male", "age": 15, "horoscope": "", "job": ""})  # no text
    w(root / "blog_authorship_corpus" / "validation" / "0000.jsonl", jl(*rows))
    w(root / "blog_authorship_corpus" / "train" / "0000.jsonl", jl({**rows[0], "text": "a train row"}))


def _blogs(root, bad):
    w(
        root / "blogs" / "1000.male.15.Student.Aries.xml",
        "<Blog>\n<date>1,May,2004</date>\n<post>\n  teen post one \n</post>\n<post>teen post two</post>\n</Blog>",
    )
    w(
        root / "blogs" / "2000.female.25.Arts.Leo.xml",
        "<Blog><post>caf\xe9 twenties post</post></Blog>".encode("cp1252"),
    )
    w(root / "blogs" / "3000.female.40.Law.Leo.xml", "<Blog><post>thirties & more</post><post>   </post></Blog>")
    w(root / "blogs" / "4000.male.20.Law.Leo.xml", "<Blog><post>age twenty falls in a gap</post></Blog>")
    if bad:
        w(root / "blogs" / "notes.xml", "<Blog><post>x</post></Blog>")


def blog_age(d, bad):
    _blog_hub(d / "blogs", bad)  # the shared family folder ROOT/blogs/


def blog_gender(d, bad):
    _blog_hub(d / "blog_gender", bad)


PERSONA = {
    "country": "U.S.A",
    "politics": "LeftWing",
    "tod": "Morning",
    "age": "25-34",
    "education": "Bachelor",
    "ethnic": "Caucasian",
    "gender": "Female",
}


def _pastel_obj(i, persona, out, level="sentences"):
    """One object per file as in data_v2.zip (keys with dots; a string at sentence level, lists for stories)."""
    many = level == "stories"
    return {
        "annotation_id": str(i),
        "per_annotation_id": str(i),
        "id": f"{i}_1" + ("" if many else "_2"),
        "persona": persona,
        "input.keywords": ["(a|b)"] * 5 if many else "(a|b)",
        "input.images": ["https://example.org/i.jpg"] * 5 if many else "https://example.org/i.jpg",
        "input.sentences": ["a reference sentence ."] * 5 if many else "a reference sentence .",
        "output.sentences": out,
    }


STORY = ["One.", "Two.", "Three.", "Four.", "Five."]


def _pastel_stories(d, bad):
    """data_v2.zip's story level: five annotated sentences per object; the sentence level beside it is not read."""
    v2 = d / "PASTEL" / "data" / "v2"
    w(v2 / "stories" / "train" / "200_1.json", json.dumps(_pastel_obj(200, PERSONA, STORY, "stories")))
    w(
        v2 / "stories" / "valid" / "201_1.json",
        json.dumps(
            _pastel_obj(
                201, {**PERSONA, "gender": "Male", "politics": "RightWing"}, ["A.", "B.", "C.", "D.", "E."], "stories"
            )
        ),
    )
    w(
        v2 / "stories" / "test" / "202_1.json",
        json.dumps(_pastel_obj(202, {**PERSONA, "gender": ""}, ["V.", "W.", "X.", "Y.", "Z."], "stories")),
    )
    w(
        v2 / "sentences" / "train" / "100_1_2.json",
        json.dumps(_pastel_obj(100, {**PERSONA, "gender": "Other"}, "A sentence.")),
    )
    if bad:
        w(v2 / "stories" / "test" / "203_1.json", json.dumps({"id": "203_1", "output.sentences": STORY}))


def _pastel(d, bad):
    v2 = d / "PASTEL" / "data" / "v2"  # a clone of dykang/PASTEL with data/data_v2.zip unzipped under data/
    w(v2 / "sentences" / "train" / "100_1_2.json", json.dumps(_pastel_obj(100, PERSONA, "We went to the beach.")))
    w(
        v2 / "sentences" / "valid" / "101_1_2.json",
        json.dumps(_pastel_obj(101, {**PERSONA, "age": "55-74", "gender": "Male"}, "It rained.")),
    )
    w(
        v2 / "sentences" / "test" / "102_1_2.json",
        json.dumps(_pastel_obj(102, {**PERSONA, "gender": ""}, "No gender given.")),
    )
    w(
        v2 / "stories" / "train" / "200_1.json",
        json.dumps(
            _pastel_obj(200, {**PERSONA, "age": "18-24"}, ["One.", "Two.", "Three.", "Four.", "Five."], "stories")
        ),
    )
    if bad:
        w(v2 / "sentences" / "test" / "103_1_2.json", json.dumps({"id": "103_1_2", "output.sentences": "no persona"}))


POLITE_HEADER = (
    "Community,Id,Request,Score1,Score2,Score3,Score4,Score5,TurkId1,TurkId2,TurkId3,TurkId4,TurkId5,Normalized Score\n"
)


def _convokit(folder):
    """ConvoKit's corpus as downloaded: <folder>/utterances.jsonl (one utterance a line: id, text, meta.Binary)."""

    def write(d, bad):
        rows = [
            {
                "id": str(i),
                "speaker": "s",
                "text": f"Request number {i}, please?",
                "meta": {"Binary": b, "Normalized Score": 0.1},
            }
            for i, b in enumerate([1, 0, -1, 0, 1, 0])
        ]
        # a blank text and a missing annotation: skipped
        rows.insert(2, {"id": "x", "text": "  ", "meta": {"Binary": 1}})
        rows.insert(3, {"id": "y", "text": "No annotation.", "meta": {}})
        lines = [json.dumps(r) for r in rows]
        if bad:
            lines.insert(1, '{"id": "z", "text": "cut off')
        w(d / folder / "utterances.jsonl", "".join(line + "\n" for line in lines))

    return write


def _politeness(file_name):
    def write(d, bad):
        rows = [
            f'Wikipedia,{i},"Request number {i}, please?",13,13,13,13,13,a,b,c,d,e,{s}\n'
            for i, s in enumerate([-1.5, -0.5, 0.0, 0.2, 0.4, 1.1, 1.6, 2.0])
        ]
        if bad:
            rows.insert(1, "Wikipedia,99,Bad score,1,1,1,1,1,a,b,c,d,e,high\n")
        w(d / "Stanford_politeness_corpus" / file_name, POLITE_HEADER + "".join(rows))

    return write


def ewave(d, bad):
    w(
        d / "eWAVE" / "cldf" / "languages.csv",
        "ID,Name,Glottocode\n1,Orkney and Shetland English,\n2,Singapore English,\n3,Welsh English,\n",
    )
    ex = (
        'ID,Language_ID,Primary_Text,Translated_Text\n1-1,1,"I am been there.",\n2-1,2,"Can or not?",\n'
        '3-1,3,"Only one.",\n'
        '2-2,2,"He so tall one.",\n1-2,1,"  We was there. ",\n'
    )
    if bad:
        ex += '9-1,9,"Unknown variety.",\n'
    w(d / "eWAVE" / "cldf" / "examples.csv", ex)


def endive(d, bad):
    body = (
        "id,task,SAE,AAVE,JamE\n1,boolq,Is he at home?,He home?,Him deh a yaad?\n"
        if not bad
        else "id,task,sentence\n1,boolq,Is he home?\n"
    )
    w(d / "endive" / "boolq.csv", body)


def enron_spam(d, bad):
    if bad:
        w(d / "enron_spam" / "enron1" / "other" / "1.txt", "Subject: x")
        return
    w(d / "enron_spam" / "enron1" / "ham" / "0001.1999-12-10.farmer.ham.txt", "Subject: meeting\nsee you at ten")
    w(
        d / "enron_spam" / "enron1" / "spam" / "0006.2003-12-18.GP.spam.txt",
        "Subject: cheap meds\nbuy n\xf6w".encode("latin-1"),
    )


def sms_spam(d, bad):
    w(
        d / "sms_spam" / "SMSSpamCollection",
        "ham\tOk lar... see you\nspam\tWINNER!! Claim your prize\n" + ("ham\n" if bad else ""),
    )


def telegram(d, bad):
    w(
        d / "telegram-spam-ham" / "dataset.csv",
        ("label,text\n" if bad else "text_type,text\n") + "ham,hello group\nspam,earn $$$ fast\n",
    )


def hate_speech(d, bad):
    """A clone: the metadata, all_files/ (every sentence) and sampled_test/ (the test sample the reference reads)."""
    root = d / "hate_speech"
    w(
        root / "annotations_metadata.csv",
        "file_id,user_id,subforum_id,num_contexts,label\n12834217_1,572066,1346,0,noHate\n12834217_2,572066,1346,0,hate\n"
        "12834217_3,572066,1346,0,idk/skip\n",
    )
    for i in (1, 2, 3):
        w(root / "all_files" / f"12834217_{i}.txt", f"sentence {i} of the forum")
    for i in (1, 2) + ((9,) if bad else ()):  # bad: a test file without a metadata row
        w(root / "sampled_test" / f"12834217_{i}.txt", f"sentence {i} of the forum\n")


def davidson(d, bad):
    head = ",count,hate_speech,offensive_language,neither,class,tweet\n" if not bad else ",count,tweet\n"
    body = (
        '0,3,0,0,3,2,"!!! RT @user: as a woman you shouldn\'t complain &amp; go"\n'
        '1,3,0,3,0,1,"offensive\ntweet on two lines"\n2,3,3,0,0,0,hateful tweet\n'
    )
    root = d / "hate_speech_and_offensive_language"  # a clone: the table is data/labeled_data.csv
    w(root / "data" / "labeled_data.csv", head + (body if not bad else "0,3,x\n"))
    w(root / "data" / "readme.md", "labeled_data.csv\n")
    w(root / "lexicons" / "refined_ngram_dict.csv", "ngram,prophate\nallah akbar,0.87\n")


def gede(d, bad):
    """The CSV database/export_to_csv.py writes into the clone (dataset/essays.csv)."""
    rows = (
        "id,question_id,answer,rewrite_of,dataset,contribution_level,text_author\n1,1,An essay by a "
        "student.,human,persuade,Human,human\n"
        "2,1,An essay by a "
        "model.,human,persuade,Task,gpt-4o-mini-2024-07-18\n3,1,,human,argument-annotated-essays,Human,human\n"
    )
    if bad:
        rows += "4,1,Orphan essay.,human,persuade,Task,\n"
    w(d / "gede_essay_detection" / "dataset" / "essays.csv", rows)


def gede_table(d, bad):
    w(
        d / "gede_essay_detection" / "gede.csv",
        "id,text,label\n1,An essay by a student.,human\n2,An essay by a model.,gpt-4\n"
        + ("3,Orphan essay.,\n" if bad else ""),
    )


DETECTRL_DATA = Path("DetectRL") / "Benchmark" / "Benchmark_Data"  # a clone of NLP2CT/DetectRL in ROOT/DetectRL/


def detectrl_multi(d, bad):
    # as released: human rows also carry llm_type (the model of the paired generation); keys text, label, data_type,
    # llm_type
    rows = [
        {"text": "human abstract", "label": "human", "data_type": "abstract", "llm_type": "ChatGPT"},
        {"text": "gpt abstract", "label": "llm", "data_type": "abstract", "llm_type": "ChatGPT"},
        {"text": "palm abstract", "label": "llm", "data_type": "prompt_SICO", "llm_type": "Google-PaLM"},
    ]
    if bad:
        rows.append({"text": "who wrote this", "label": "robot", "data_type": "abstract", "llm_type": "x"})
    w(d / DETECTRL_DATA / "Multi_Domain" / "multi_domains_arxiv_test.json", json.dumps(rows, indent=4))
    w(
        d / DETECTRL_DATA / "Multi_Domain" / "multi_domains_xsum_test.json",
        json.dumps([{"text": "other domain", "label": "human", "llm_type": "ChatGPT"}]),
    )
    w(
        d / "DetectRL" / "Benchmark" / "Tasks" / "Task1" / "multi_domains_arxiv_test.json",
        json.dumps([{"text": "copy", "label": "human", "llm_type": "x"}]),
    )


def detectrl_binary(d, bad):
    rows = [
        {"text": "human story", "label": "human", "data_type": "story", "llm_type": "Claude-instant"},
        {
            "text": "paraphrased story",
            "label": "llm",
            "data_type": "paraphrase_dipper_llm",
            "llm_type": "Claude-instant",
        },
    ]
    if bad:
        rows.append({"label": "llm"})
    w(d / DETECTRL_DATA / "Paraphrase_Attacks" / "paraphrase_attacks_llm_test.json", json.dumps(rows))
    w(
        d / DETECTRL_DATA / "Paraphrase_Attacks" / "paraphrase_dipper_llm_test.json",
        json.dumps([{"text": "sub-attack", "label": "llm", "llm_type": "x"}]),
    )


def m4(d, bad):
    root = d / "M4" / "data"  # a clone of mbzuai-nlp/M4: data/<domain>_<model>.jsonl
    row = {"prompt": "Write an abstract", "source": "arxiv", "source_ID": "1"}
    w(
        root / "arxiv_chatGPT.jsonl",
        jl({**row, "human_text": "human abstract one", "machine_text": "chatgpt abstract", "model": "gpt-3.5-turbo"}),
    )
    w(
        root / "arxiv_cohere.jsonl",
        jl(
            {**row, "human_text": "human abstract one", "machine_text": "cohere abstract"},
            {**row, "human_text": "human abstract three", "machine_text": "cohere abstract"},
        ),
    )
    w(root / "arxiv_bloomz.jsonl", jl({"id": 1, "text": "bloomz abstract", "label": 1}))  # BloomZ: another schema
    w(root / "reddit_chatGPT.jsonl", jl({"human_text": "other domain", "machine_text": "other"}))
    w(d / "M4" / "README.md", "# M4\n")
    if bad:
        w(root / "arxiv_dolly.jsonl", '{"human_text": "h", "machine_text": \n')


def mage(d, bad):
    rows = [
        "text,label,src\n",
        '"A human view on cmv.",1,cmv_human\n',
        '"gpt text",0,cmv_machine_continuation_gpt-3.5-trubo\n',
        '"gpt topical",0,cmv_machine_topical_gpt-3.5-trubo\n',
        '"opt text",0,cmv_machine_specified_opt_1.3b\n',
        '"science",1,sci_gen_human\n',
    ]
    if bad:
        rows.append('"broken",0,cmv_robot\n')
    w(d / "MAGE" / "test.csv", "".join(rows))


# name -> (writer, expected labels, extra check, malformed needles)
CASES = {
    "core": (
        core,
        {"ne", "dt", "sr"},
        lambda b: [r.id for r in b.labelled_texts] == ["d1", "d3", "d6", "d2", "d3"],
        ["train.tsv.gz", "line 4", "not UTF-8"],
    ),
    "x_genre": (
        x_genre,
        {"Promotion", "News"},
        lambda b: len(b.labelled_texts) == 2,
        ["X-GENRE-train.jsonl", "line 4", "'labels'"],
    ),
    "masc_text_genre": (
        masc,
        {"blog", "telephone"},
        lambda b: len(b.labelled_texts) == 4,
        ["masc_text_genre", "no file matches"],
    ),
    "ceeces": (
        ceeces,
        {"1680-1699", "1740-1759"},
        lambda b: (
            sorted(r.text for r in b.labelled_texts)
            == ["Dear Sir, I received yours.", "Ever yours, J.", "My lord , fine"]
            and b.info["outside_periods"] == 1
            and b.info["letters"] == 2
        ),
        ["ceece_part1.xml", "letter 4 (L4)", "year"],
    ),
    # the reference's parse: no HTML decoding, "[[2" and "3 " skipped
    "bible_versions": (
        bible_versions,
        {"KJV", "YLT", "LEB"},
        lambda b: (
            [r.text for r in b.labelled_texts]
            == [
                "In the beginning God created the heaven.",
                "And the earth was without form.",
                "At first &lt;God&gt; made it.",
                "and void.",
                "In the beginning God made the sky.",
                "and the  EARTH was without form.",
            ]
            and b.info["lines_not_a_verse"] == 2
            and b.info["references"] == 2
            and "WEB" in b.info["versions_missing"]
        ),
        ["Chapter2.txt", "file name", "Genesis<chapter>.txt"],
    ),
    "fce_l1": (
        fce_l1,
        {"Catalan", "Japanese"},
        lambda b: (
            b.labelled_texts[0].text == "Dear Sir, I am agree with you.\n\nSecond para" and len(b.labelled_texts) == 4
        ),
        ["doc2.xml", "candidate/personnel/language"],
    ),
    # the reference reads every split, train first (issue 37)
    "blog_age": (
        blog_age,
        {"10s", "20s", "30s"},
        lambda b: (
            [r.text for r in b.labelled_texts] == ["a train row", "teen post one", "twenties post", "thirties post"]
            and b.info["dropped_label"] == 1
            and b.info["skipped_empty"] == 1
            and b.info["split"] == "train,validation"
        ),
        ["barilan/blog_authorship_corpus validation row 6", "'text'"],
    ),
    "blog_gender": (
        blog_gender,
        {"male", "female"},
        lambda b: len(b.labelled_texts) == 5 and b.labelled_texts[0].text == "a train row",
        ["barilan/blog_authorship_corpus validation row 6", "'text'"],
    ),
    "pastel_age": (
        _pastel_stories,
        {"25-34"},
        lambda b: "One. Two. Three. Four. Five." in {r.text for r in b.labelled_texts} and b.info["unit"] == "story",
        ["203_1.json", "'persona'"],
    ),
    "pastel_gender": (
        _pastel_stories,
        {"Female", "Male"},
        lambda b: len(b.labelled_texts) == 2 and b.info["no_attribute"] == 1,
        ["203_1.json", "'persona'"],
    ),
    "pastel_politics": (
        _pastel_stories,
        {"LeftWing", "RightWing"},
        lambda b: len(b.labelled_texts) == 3,
        ["203_1.json", "'persona'"],
    ),
    # ConvoKit's utterances.jsonl (the reference's release): meta.Binary 1 / 0 / -1, blank or unannotated skipped
    "wikipedia_politeness": (
        _convokit("wikipedia-politeness-corpus"),
        {"polite", "neutral", "impolite"},
        lambda b: (
            [r.label for r in b.labelled_texts] == ["polite", "polite", "neutral", "neutral", "neutral", "impolite"]
            and b.info["skipped_empty"] == 1
            and b.info["skipped_no_binary"] == 1
        ),
        ["utterances.jsonl", "line 2"],
    ),
    "stackexchange_politeness": (
        _convokit("stack-exchange-politeness-corpus"),
        {"polite", "neutral", "impolite"},
        lambda b: b.info["release"] == "convokit",
        ["utterances.jsonl", "line 2"],
    ),
    "eWAVE": (
        ewave,
        {"Orkney and Shetland English", "Singapore English"},  # Welsh: one example, dropped by the reader
        lambda b: (
            [r.text for r in b.labelled_texts]
            == ["I am been there.", "We was there.", "Can or not?", "He so tall one."]
            and b.info["dropped_varieties_under_2_examples"] == 1
        ),
        ["examples.csv", "row 6", "'Language_ID'"],
    ),
    "endive": (
        endive,
        {"SAE", "AAVE", "JamE"},
        lambda b: len(b.labelled_texts) == 3,
        ["boolq.csv", "row 1", "SAE/AAVE"],
    ),
    "enron_spam": (
        enron_spam,
        {"ham", "spam"},
        lambda b: any("nöw" in r.text for r in b.labelled_texts),
        ["enron_spam", "ham/ or spam/"],
    ),
    "sms_spam": (
        sms_spam,
        {"ham", "spam"},
        lambda b: len(b.labelled_texts) == 2,
        ["SMSSpamCollection", "row 3", "'1'"],
    ),
    "telegram-spam-ham": (telegram, {"ham", "spam"}, lambda b: True, ["dataset.csv", "row 1", "'text_type'"]),
    "hate_speech": (
        hate_speech,
        {"hate", "noHate"},
        lambda b: b.info["release"] == "sampled_test" and b.info["files"] == 2,
        ["12834217_9.txt", "'file_id'", "has no row in annotations_metadata.csv"],
    ),
    "hate_speech_and_offensive_language": (
        davidson,
        {"hate_speech", "offensive_language", "neither"},
        lambda b: (
            "offensive\ntweet on two lines" in {r.text for r in b.labelled_texts}
            # rows 2, 1, 0
            and b.info["class_order"] == ["neither", "offensive_language", "hate_speech"]
        ),
        ["labeled_data.csv", "row 1", "'class'"],
    ),
    "gede_essay_detection": (
        gede,
        {"human", "gpt-4o-mini-2024-07-18"},
        lambda b: len(b.labelled_texts) == 2 and b.info["skipped_empty"] == 1,
        ["essays.csv", "row 4", "'text_author'"],
    ),
    "machine_text_detection_DetectRL_arxiv": (
        detectrl_multi,
        {"human", "ChatGPT", "Google-PaLM"},
        lambda b: len(b.labelled_texts) == 3,
        ["multi_domains_arxiv_test.json", "item 3", "'label'", "robot"],
    ),
    "machine_text_detection_DetectRL_paraphrase_attacks": (
        detectrl_binary,
        {"human", "llm"},
        lambda b: len(b.labelled_texts) == 2,
        ["paraphrase_attacks_llm_test.json", "item 2", "'text'"],
    ),
    # labels: the file's model field, else its name; repeated texts once per side; BloomZ's schema skipped
    "machine_text_detection_M4_arxiv": (
        m4,
        {"human", "gpt-3.5-turbo", "arxiv_cohere.jsonl"},
        lambda b: (
            [r.text for r in b.labelled_texts]
            == ["human abstract one", "human abstract three", "chatgpt abstract", "cohere abstract"]
            and b.info["files"] == ["arxiv_chatGPT.jsonl", "arxiv_cohere.jsonl"]
        ),
        ["arxiv_dolly.jsonl", "line 1"],
    ),
    "machine_text_detection_MAGE_cmv": (
        mage,
        {"human", "gpt-3.5-trubo", "opt_1.3b"},
        lambda b: Counter(r.label for r in b.labelled_texts)["gpt-3.5-trubo"] == 2,
        ["test.csv", "row 6", "'src'", "cmv_robot"],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_loader_reads_official_layout(tmp_path, name):
    writer, labels, check, _ = CASES[name]
    writer(tmp_path, False)
    bundle = load(tmp_path, name)
    assert {r.label for r in bundle.labelled_texts} == labels
    assert check(bundle), [(r.label, r.text) for r in bundle.labelled_texts]
    assert bundle.info["per_class"] is None and bundle.info["sampling"] == "first"
    assert bundle.info["class_counts"] == dict(Counter(r.label for r in bundle.labelled_texts))


#: the cases whose sources all declare their files (git or hub, nothing unpacked): `steb data get` fetches only those
DECLARED = sorted(
    n
    for n in CASES
    if SPECS[n].sources and all(s.kind in ("git", "hf") and s.files and not s.unpack for s in SPECS[n].sources)
)


def test_the_declared_cases_are_the_git_and_hub_ones():
    assert {"core", "hate_speech", "machine_text_detection_M4_arxiv", "x_genre"} <= set(DECLARED)
    assert "enron_spam" not in DECLARED and len(DECLARED) >= 10


@pytest.mark.parametrize("name", DECLARED)
def test_loader_reads_only_what_data_get_fetches(tmp_path, name):
    """Issue 45: on the fixture as ``steb data get`` leaves it (a clone's undeclared files removed: M4's BloomZ
    files, a README), the loader loads the same records and opens nothing its source does not declare."""
    writer, labels, check, _ = CASES[name]
    writer(tmp_path, False)
    cut_to_declared(SPECS[name], tmp_path)
    reads = check_declared_reads(SPECS[name], tmp_path, options={"per_class": "all"})
    assert reads.opened, name
    bundle = load(tmp_path, name)
    assert {r.label for r in bundle.labelled_texts} == labels
    assert check(bundle), [(r.label, r.text) for r in bundle.labelled_texts]


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_release_is_located(tmp_path, name):
    writer, _, _, needles = CASES[name]
    writer(tmp_path, True)
    with pytest.raises(DataValidationError) as err:
        load(tmp_path, name)
    for needle in needles:
        assert needle in str(err.value), (needle, str(err.value))


def test_reference_first_n_by_default_seeded_draw_as_option(tmp_path):
    """Issue 37: N = max(25, min(smallest class, 200)), the first N of each class in file order; sampling=random
    draws them."""
    w(
        tmp_path / "sms_spam" / "SMSSpamCollection",
        "".join(f"ham\tmessage number {i}\n" for i in range(250)) + "".join(f"spam\tWIN {i}\n" for i in range(30)),
    )
    a = CORPORA["sms_spam"].load(LoadContext("sms_spam", tmp_path / "sms_spam", seed=0))
    assert a.info["class_counts"] == {"ham": 30, "spam": 30}
    assert a.info["class_counts_available"] == {"ham": 250, "spam": 30}
    assert [r.text for r in a.labelled_texts[:30]] == [f"message number {i}" for i in range(30)]
    assert a.info["sampling"] == "first"
    r0, r7 = (
        CORPORA["sms_spam"].load(LoadContext("sms_spam", tmp_path / "sms_spam", seed=s, options={"sampling": "random"}))
        for s in (0, 7)
    )
    assert r0.info["class_counts"] == {"ham": 30, "spam": 30}
    assert {r.text for r in r0.labelled_texts} != {r.text for r in r7.labelled_texts}
    assert len(load(tmp_path, "sms_spam", per_class=10).labelled_texts) == 20
    with pytest.raises(DataValidationError, match="per_class"):
        load(tmp_path, "sms_spam", per_class="many")


def test_missing_release_says_what_to_obtain(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="SMSSpamCollection"):
        load(tmp_path, "sms_spam")


def test_catalogue_metadata_matches_steb():
    assert {
        "core": 25,
        "masc_text_genre": 150,
        "eWAVE": 29,
        "pastel_gender": 55,
        "machine_text_detection_MAGE_xsum": 86,
        "fce_l1": 25,
        "x_genre": 46,
        "bible_versions": 200,
    }.items() <= {n: c.per_class for n, c in CORPORA.items()}.items()
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


# ---- releases as cloned: alternative layouts, options -------------------------------------------------------
def test_bible_older_layout_and_version_choice(tmp_path):
    old = tmp_path / "bible_versions" / "csv"  # bible_databases before 2024: csv/t_<abbr>.csv with id,b,c,v,t
    w(old / "t_kjv.csv", "id,b,c,v,t\n1001001,1,1,1,In the beginning God created the heaven and the earth.\n")
    w(old / "t_dby.csv", "id,b,c,v,t\n1001001,1,1,1,In the beginning God created the heavens and the earth.\n")
    w(old / "t_web.csv", "id,b,c,v,t\n1001001,1,1,1,In the beginning God created the heavens and the earth!\n")
    w(old / "key_english.csv", "b,n,t,g\n1,Genesis,OT,1\n")
    b = load(tmp_path, "bible_versions", release="scrollmapper")
    assert b.info["versions"] == ["Darby", "KJV", "WEB"] and "Douay-Rheims" in b.info["versions_missing"]
    assert {r.label for r in b.labelled_texts} == {"KJV", "Darby", "WEB"}
    picked = load(tmp_path, "bible_versions", release="scrollmapper", versions="KJV,WEB")
    assert {r.label for r in picked.labelled_texts} == {"KJV", "WEB"}


def test_bible_duplicate_verse_with_other_text_is_refused(tmp_path):
    csv_dir = tmp_path / "bible_versions" / "formats" / "csv"
    w(
        csv_dir / "KJV.csv",
        "Book,Chapter,Verse,Text\nGenesis,1,1,In the beginning.\nGenesis,1,1,A second text for the same verse.\n",
    )
    with pytest.raises(DataValidationError) as err:
        load(tmp_path, "bible_versions", release="scrollmapper")
    assert all(n in str(err.value) for n in ("KJV.csv", "row 2", "conflicting", "verse")), str(err.value)


def test_pastel_reads_v2_only_when_both_releases_are_unzipped(tmp_path):
    _pastel(tmp_path, False)
    v1 = tmp_path / "PASTEL" / "data" / "sentences" / "train"  # data.zip (v1) beside data_v2.zip
    w(v1 / "100_1_2.json", json.dumps(_pastel_obj(100, PERSONA, "We went to the beach.")))
    w(v1 / "900_1_2.json", json.dumps(_pastel_obj(900, {**PERSONA, "age": "35-44"}, "A noisy v1 sentence.")))
    b = load(tmp_path, "pastel_age", unit="sentence")
    assert {r.label for r in b.labelled_texts} == {"25-34", "55-74"} and Path(b.info["root"]).parts[-2:] == (
        "v2",
        "sentences",
    )


def test_pastel_duplicate_id_with_flipped_label_is_refused(tmp_path):
    _pastel(tmp_path, False)
    copy = tmp_path / "PASTEL" / "data" / "v2" / "sentences" / "test" / "copy.json"
    w(copy, json.dumps(_pastel_obj(100, PERSONA, "We went to the beach.")))  # an exact copy is counted and skipped
    b = load(tmp_path, "pastel_age", unit="sentence")
    assert b.info["duplicate_id"] == 1 and len(b.labelled_texts) == 3
    w(copy, json.dumps(_pastel_obj(100, {**PERSONA, "age": "75<"}, "We went to the beach.")))
    with pytest.raises(DataValidationError) as err:
        load(tmp_path, "pastel_age", unit="sentence")
    assert all(n in str(err.value) for n in ("copy.json", "'100_1_2'", "'id'", "conflicting", "'75<'")), str(err.value)


def test_pastel_stories_as_the_reference_reads_them(tmp_path):
    """Issue 37: story files sorted by full path (test/, train/, valid/; names as strings), the stripped sentences
    joined by a space, the release's "Empty" value skipped, an exact copy kept twice; first N per class in that
    order."""
    v2 = tmp_path / "PASTEL" / "data" / "v2" / "stories"
    for split, n, age in (
        ("valid", 1, "18-24"),
        ("train", 10, "18-24"),
        ("train", 9, "25-34"),
        ("test", 30, "18-24"),
        ("test", 4, "Empty"),
        ("train", 2, "25-34"),
    ):
        story = _pastel_obj(n, {**PERSONA, "age": age}, [f" S{n}a. ", "", f"S{n}b.\n"], "stories")
        w(v2 / split / f"{n}_1.json", json.dumps(story))
    copy = _pastel_obj(2, {**PERSONA, "age": "25-34"}, [" S2a. ", "", "S2b.\n"], "stories")
    w(v2 / "valid" / "copy.json", json.dumps(copy))
    b = load(tmp_path, "pastel_age")
    assert [r.text for r in b.labelled_texts] == [
        "S30a. S30b.",
        "S10a. S10b.",
        "S1a. S1b.",
        "S2a. S2b.",
        "S9a. S9b.",
        "S2a. S2b.",
    ]
    assert b.info["no_attribute"] == 1 and b.info["duplicate_id"] == 1 and b.info["class_order"] == ["18-24", "25-34"]


@pytest.mark.parametrize(
    "name,file_name",
    [("wikipedia_politeness", "wikipedia.annotated.csv"), ("stackexchange_politeness", "stack-exchange.annotated.csv")],
)
def test_politeness_csv_release_stays_an_option(tmp_path, name, file_name):
    """The Stanford CSV (quartiles of Normalized Score), steb's reading before issue 37: --dataset-option
    release=csv."""
    _politeness(file_name)(tmp_path, False)
    with pytest.raises(DatasetNotFoundError, match="release=csv"):  # only the CSV there: the error says how to read it
        load(tmp_path / "Stanford_politeness_corpus", name)
    b = load(tmp_path, name, release="csv")
    assert Counter(r.label for r in b.labelled_texts) == {"impolite": 2, "neutral": 4, "polite": 2}
    _politeness(file_name)(tmp_path, True)
    with pytest.raises(DataValidationError) as err:
        load(tmp_path, name, release="csv")
    assert all(n in str(err.value) for n in (file_name, "row 2", "'Normalized Score'")), str(err.value)


def test_hate_speech_duplicate_file_id_with_flipped_label_is_refused(tmp_path):
    hate_speech(tmp_path, False)
    meta = tmp_path / "hate_speech" / "annotations_metadata.csv"
    meta.write_text(meta.read_text(encoding="utf-8") + "12834217_1,572066,1346,0,hate\n", encoding="utf-8")
    with pytest.raises(DataValidationError) as err:
        load(tmp_path, "hate_speech")
    assert all(
        n in str(err.value) for n in ("annotations_metadata.csv", "row 4", "'file_id'", "conflicting", "12834217_1")
    ), str(err.value)


def test_hate_speech_file_id_outside_the_release_is_refused(tmp_path):
    hate_speech(tmp_path, False)
    w(tmp_path / "secret.txt", "not part of the release")
    meta = tmp_path / "hate_speech" / "annotations_metadata.csv"
    meta.write_text(meta.read_text(encoding="utf-8") + "../../secret,1,1,0,hate\n", encoding="utf-8")
    with pytest.raises(DataValidationError) as err:
        load(tmp_path, "hate_speech", release="all_files")
    assert all(n in str(err.value) for n in ("annotations_metadata.csv", "row 4", "outside the release")), str(
        err.value
    )


def test_hate_speech_reads_sampled_test_sorted_whole_files(tmp_path):
    """Issue 37: the reference reads sampled_test/ (not all_files/), one record per file, the whole content unstripped
    (CRLF read as text mode reads it), files in sorted name order (steb's portable stand-in for os.listdir)."""
    root = tmp_path / "hate_speech"
    names = ["30000000_1", "12834217_10", "12834217_2", "20000000_3"]
    labels = {"30000000_1": "hate", "12834217_10": "noHate", "12834217_2": "hate", "20000000_3": "noHate"}
    w(
        root / "annotations_metadata.csv",
        "file_id,user_id,subforum_id,num_contexts,label\n"
        + "".join(f"{n},1,1,0,{labels[n]}\n" for n in names)
        + "99999999_1,1,1,0,relation\n",
    )
    for n in names:  # written in a scrambled order
        (root / "sampled_test").mkdir(parents=True, exist_ok=True)
        (root / "sampled_test" / f"{n}.txt").write_bytes(f"  text of {n}\r\nsecond line \n".encode())
        w(root / "all_files" / f"{n}.txt", f"text of {n}")
    w(root / "all_files" / "99999999_1.txt", "only in all_files")
    b = load(tmp_path, "hate_speech")
    # names sorted as strings ("_10" before "_2"); class by class in order of first appearance
    assert [r.id for r in b.labelled_texts] == ["12834217_10", "20000000_3", "12834217_2", "30000000_1"]
    assert b.labelled_texts[0].text == "  text of 12834217_10\nsecond line \n"
    assert b.info["class_order"] == ["noHate", "hate"]
    old = load(tmp_path, "hate_speech", release="all_files")  # the earlier reading stays selectable
    assert old.info["release"] == "all_files" and old.info["dropped_label"] == 1


def test_ewave_duplicate_language_id_is_refused(tmp_path):
    ewave(tmp_path, False)
    w(
        tmp_path / "eWAVE" / "cldf" / "languages.csv",
        "ID,Name,Glottocode\n1,Orkney and Shetland English,\n2,Singapore English,\n1,Welsh English,\n",
    )
    with pytest.raises(DataValidationError) as err:
        load(tmp_path, "eWAVE")
    assert all(n in str(err.value) for n in ("languages.csv", "row 3", "'ID'", "conflicting")), str(err.value)


def test_m4_files_at_the_folder_top_and_peerread_lists(tmp_path):
    """Issue 37 (steb/loaders/m4.py @567400cd): a record needs both texts (a human-only file gives nothing); peerread's
    list-valued fields are flattened."""
    root = tmp_path / "machine_text_detection_M4_wikihow"  # files copied without the data/ folder
    w(
        root / "wikihow_davinci.jsonl",
        jl({"human_text": "how to cook rice", "machine_text": "step one, rinse", "model": "davinci"}),
    )
    w(root / "wikihow_human.jsonl", jl({"human_text": "how to tie a knot"}))
    b = load(tmp_path, "machine_text_detection_M4_wikihow")
    assert Counter(r.label for r in b.labelled_texts) == {"human": 1, "davinci": 1}
    peer = tmp_path / "machine_text_detection_M4_peerread"
    w(
        peer / "peerread_llama.jsonl",
        jl({"human_text": ["review one", "review two"], "machine_text": ["llama review"], "model": "llama"}),
    )
    p = load(tmp_path, "machine_text_detection_M4_peerread")
    assert [(r.label, r.text) for r in p.labelled_texts] == [
        ("human", "review one"),
        ("human", "review two"),
        ("llama", "llama review"),
    ]


def test_detectrl_train_split_must_exist_when_asked(tmp_path):
    detectrl_multi(tmp_path, False)
    with pytest.raises(DataValidationError, match="multi_domains_arxiv_train.json"):
        load(tmp_path, "machine_text_detection_DetectRL_arxiv", split="all")


def test_x_genre_from_the_local_hub_cache(tmp_path, monkeypatch):
    snap = tmp_path / "hub" / "datasets--TajaKuzman--X-GENRE-text-genre-dataset" / "snapshots" / "7db58de"
    w(
        snap / "X-GENRE-test.jsonl",
        jl(
            {"text": "Click here to buy.", "labels": "Promotion", "dataset": "FTD", "language": "English"},
            {"text": "Kliknite tukaj.", "labels": "Promotion", "dataset": "GINCO", "language": "Slovenian"},
        ),
    )
    w(snap.parent.parent / "refs" / "main", "7db58de")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    b = load(tmp_path / "elsewhere", "x_genre")
    assert [(r.label, r.text) for r in b.labelled_texts] == [("Promotion", "Click here to buy.")]


# ---- suite membership: exactly the catalogue's rows ---------------------------------------------------------
#: The STEB catalogue's rows (Table 15) for this distribution's datasets, written out independently of the code:
#: (dataset, task, classes, per class, texts). "fce_11"/"ceces" in one table of the catalogue are fce_l1/ceeces.
CATALOGUE = """
bible_versions 8 200 1600 C A | blog_age 3 200 600 C A | blog_gender 2 200 400 C A | ceeces 6 200 1200 C A
core 38 25 950 C A
eWAVE 53 29 1537 C A | endive 6 200 1200 C A | enron_spam 2 200 400 C A | fce_l1 15 25 375 C A
gede_essay_detection 4 200 800 C
hate_speech 2 200 400 C A | hate_speech_and_offensive_language 3 200 600 C A | masc_text_genre 19 150 2850 C A
machine_text_detection_DetectRL_arxiv 5 200 1000 C | machine_text_detection_DetectRL_direct_prompt 5 200 1000 C
machine_text_detection_DetectRL_paraphrase_attacks 2 200 400 C
machine_text_detection_DetectRL_perturbation_attacks 2 200 400 C
machine_text_detection_DetectRL_prompt_attacks 2 200 400 C | machine_text_detection_DetectRL_writing_prompt 5 200 1000 C
machine_text_detection_DetectRL_xsum 5 200 1000 C | machine_text_detection_DetectRL_yelp_review 5 200 1000 C
machine_text_detection_M4_arxiv 6 200 1200 C | machine_text_detection_M4_peerread 6 200 1200 C
machine_text_detection_M4_reddit 6 200 1200 C
machine_text_detection_M4_wikihow 5 200 1000 C | machine_text_detection_M4_wikipedia 5 200 1000 C
machine_text_detection_MAGE_cmv 28 60 1680 C | machine_text_detection_MAGE_eli5 28 73 2044 C
machine_text_detection_MAGE_hswag 28 66 1848 C
machine_text_detection_MAGE_roct 28 76 2128 C | machine_text_detection_MAGE_sci_gen 28 36 1008 C
machine_text_detection_MAGE_squad 28 55 1540 C
machine_text_detection_MAGE_tldr 28 57 1596 C | machine_text_detection_MAGE_wp 28 70 1960 C
machine_text_detection_MAGE_xsum 28 86 2408 C
machine_text_detection_MAGE_yelp 28 42 1176 C | pastel_age 6 25 150 C A | pastel_education 8 25 200 C A
pastel_ethnic 9 25 225 C A
pastel_gender 3 55 165 C A | pastel_politics 3 200 600 C A | pastel_tod 5 200 1000 C A | sms_spam 2 200 400 C A
stackexchange_politeness 3 200 600 C A | telegram-spam-ham 2 200 400 C A | wikipedia_politeness 3 200 600 C A
x_genre 9 46 414 C A
amazon 500 195 97787 R | fanfiction 500 86 43411 R | stackexchange_retrieval 500 125 62980 R
probing_amazon 46 27584 27584 P | probing_blog 46 39111 39111 P | probing_reddit 46 16447 16447 P
probing_stackexchange 46 9253 9253 P
"""


def catalogue_rows() -> dict[tuple[str, str], dict[str, int]]:
    tasks = {"C": "clustering", "A": "pair_all", "R": "retrieval", "P": "probing"}
    out = {}
    for item in CATALOGUE.replace("\n", " | ").split("|"):
        if item.strip():
            name, c, p, t, *kinds = item.split()
            for k in kinds:
                out[(name, tasks[k])] = {"classes": int(c), "per_class": int(p), "texts": int(t)}
    return out


def test_suite_steb_is_exactly_the_catalogue():
    from steb_datasets_style.catalogue import all_specs

    rows = catalogue_rows()
    assert len(rows) == 77  # 47 clustering + 23 all-to-all + 3 retrieval + 4 probing of this distribution
    specs = all_specs()
    in_suite = {
        (s.name, t): dict(s.expected[t]) for s in specs if "steb" in s.suites for t in s.tasks_for_suite("steb")
    }
    assert in_suite == rows
    assert {s.name for s in specs if "steb" not in s.suites} == {"reddit"}
    for s in specs:  # budgets sampled by the loaders are the catalogue's "per class" column
        if "steb" in s.suites and s.extra.get("per_class") is not None:
            assert {s.expected[t]["per_class"] for t in s.tasks_for_suite("steb")} == {s.extra["per_class"]}, s.name
            assert {s.expected[t]["classes"] for t in s.tasks_for_suite("steb")} == {s.extra["classes"]}, s.name


def test_mage_from_the_local_hub_cache(tmp_path, monkeypatch):
    snap = tmp_path / "hub" / "datasets--yaful--MAGE" / "snapshots" / "342663f"
    w(
        snap / "test.csv",
        '\ufefftext,label,src\n"A human view.",1,cmv_human\n"Model text.",0,cmv_machine_continuation_flan_t5_large\n'
        '"Other domain.",1,eli5_human\n',
    )
    w(snap.parent.parent / "refs" / "main", "342663f")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    b = load(tmp_path / "nothing-here", "machine_text_detection_MAGE_cmv")
    assert Counter(r.label for r in b.labelled_texts) == {"human": 1, "flan_t5_large": 1}


def test_x_genre_github_clone_holds_no_data(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    clone = tmp_path / "x_genre"  # github.com/TajaKuzman/Genre-Datasets-Comparison: notebooks and result sheets only
    w(clone / "README.md", "# Genre-Datasets-Comparison\n")
    w(
        clone / "Creation-of-classifiers-and-cross-prediction" / "data-sheets-with-all-info" / "predictions.csv",
        'id,text,pred\n1,"x",News\n',
    )
    with pytest.raises(DatasetNotFoundError, match="X-GENRE-text-genre-dataset"):
        load(tmp_path, "x_genre")


#: the data/ file names of github.com/mbzuai-nlp/M4 as cloned (names only; contents here are synthetic)
M4_FILES = (
    "arabic_chatGPT arxiv_bloomz arxiv_chatGPT arxiv_cohere arxiv_davinci arxiv_dolly arxiv_flant5 "
    "bulgarian_true_and_fake_news_chatGPT bulgarian_true_and_fake_news_davinci germanwikipedia_chatgpt "
    "id-newspaper_chatGPT "
    "peerread_bloomz peerread_chatgpt peerread_cohere peerread_davinci peerread_dolly peerread_llama qazh_chatgpt "
    "qazh_davinci "
    "reddit_bloomz reddit_chatGPT reddit_cohere reddit_davinci reddit_dolly reddit_flant5 russian_chatGPT "
    "russian_davinci "
    "urdu_chatGPT wikihow_bloomz wikihow_chatGPT wikihow_cohere wikihow_davinci wikihow_dolly2 wikipedia_bloomz "
    "wikipedia_chatgpt wikipedia_cohere wikipedia_davinci wikipedia_dolly"
).split()


@pytest.mark.parametrize(
    "domain, classes", [("arxiv", 6), ("peerread", 6), ("reddit", 6), ("wikihow", 5), ("wikipedia", 5)]
)
def test_m4_clone_gives_the_catalogue_class_count(tmp_path, domain, classes):
    for stem in M4_FILES:
        row = (
            {"id": 1, "text": f"text of {stem}", "label": 1}
            if "bloomz" in stem
            # BloomZ: another schema
            else {
                "human_text": f"human text of {stem}",
                "machine_text": f"machine text of {stem}",
                "model": stem.split("_")[-1],
            }
        )
        w(tmp_path / "M4" / "data" / f"{stem}.jsonl", jl(row))
    name = f"machine_text_detection_M4_{domain}"
    b = load(tmp_path, name)
    assert len({r.label for r in b.labelled_texts}) == classes == CORPORA[name].classes
    assert not any("bloomz" in r.label or "wikipedia" in r.text and domain != "wikipedia" for r in b.labelled_texts)


#: the English-version file names of formats/csv/ in the current github.com/scrollmapper/bible_databases (names only)
BIBLE_CURRENT_ENGLISH = (
    "ACV AKJV ASV BBE BSB CPDV DRC Darby Geneva1599 JPS Jubilee2000 KJV KJVA KJVPCE LEB LITV MKJV "
    "NHEB OEB RLT RNKJV RWebster Rotherham Tyndale UKJV Webster Wycliffe YLT".split()
)


def test_bible_current_release_holds_seven_of_the_eight_versions(tmp_path):
    csv_dir = tmp_path / "bible_databases" / "formats" / "csv"
    for stem in BIBLE_CURRENT_ENGLISH:
        w(
            csv_dir / f"{stem}.csv",
            f"Book,Chapter,Verse,Text\nGenesis,1,1,In the beginning ({stem}).\nRevelation,22,21,\n",
        )
    b = load(tmp_path, "bible_versions", release="scrollmapper")
    assert b.info["versions"] == sorted(["ASV", "BBE", "Darby", "Douay-Rheims", "KJV", "Webster", "YLT"])
    assert b.info["versions_missing"] == ["WEB"]
    assert b.info["class_counts"] == {v: 1 for v in b.info["versions"]} and b.info["skipped_missing_verse"] == 7
