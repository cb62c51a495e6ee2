"""Issue 26, the researcher's path: models never overwrite each other, nothing fails silently, output
fit to read and to pipe, heat-map colours relative to chance.

The README's Python example is run literally (its model path and DataFrame supplied) with two models
into one folder; the CLI is run as a subprocess with stdout piped, as a log file would see it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import steb
from steb_core._choices import language_codes
from steb_core._naming import claim_name, default_name, short_name

ROOT = Path(__file__).resolve().parents[2]
STEB = Path(sys.executable).with_name("steb")
ROWS = [
    (f"{w} text {i} {'!!' if r == 'chat' else '.'}", r)
    for i, (w, r) in enumerate([("hello", "chat"), ("dear sir", "letter"), ("lol", "chat"), ("regards", "letter")] * 6)
]


class Unnamed:
    """An encoder object nothing names: no name, no model card, no path."""

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale

    def encode(self, texts):
        return np.array(
            [[len(t) * self.scale, t.count("!") + 1.0, t.count(".") + 0.5] for t in texts], dtype=np.float32
        )


class Named(Unnamed):
    name = "shared-name"


def _spec(**kw):
    return steb.dataset_from([{"t": t, "l": r} for t, r in ROWS], shape="labelled_texts", text="t", label="l", **kw)


def _kw(tmp_path):
    return dict(datasets=[_spec(name="mem")], output=tmp_path / "out", cache_dir=tmp_path / "cache", progress=False)


# -- names and folders -------------------------------------------------------------------------------


def test_short_name_keeps_hub_ids_and_cuts_paths(tmp_path):
    assert short_name("sentence-transformers/all-MiniLM-L6-v2") == "sentence-transformers/all-MiniLM-L6-v2"
    assert short_name("/data/models/my-model/") == "my-model"
    assert short_name("./my-model") == "my-model"
    snapshot = "/home/u/.cache/huggingface/hub/models--AnnaWegmann--Style-Embedding/snapshots/abc123"
    assert short_name(snapshot) == "AnnaWegmann/Style-Embedding"
    (tmp_path / "local").mkdir()
    assert short_name(str(tmp_path / "local")) == "local"


def test_an_object_nothing_names_is_named_by_class_and_identity_not_class_alone(tmp_path):
    assert default_name(Unnamed()) is None
    summary = steb.evaluate(Unnamed(), **_kw(tmp_path))
    assert re.fullmatch(r"Unnamed-[0-9a-f]{8}", summary.encoder)
    assert any("name=" in n for n in summary.notes)
    other = steb.evaluate(Unnamed(scale=2.0), **_kw(tmp_path))
    assert other.encoder != summary.encoder  # another identity, another name: nothing replaced


def test_same_name_two_identities_get_distinct_stable_folders_and_the_report_shows_both(tmp_path):
    first = steb.evaluate(Named(), **_kw(tmp_path))
    second = steb.evaluate(type("Named2", (Named,), {})(scale=3.0), **_kw(tmp_path))
    assert first.encoder == "shared-name"
    assert second.encoder == f"shared-name@{second.results[0].encoder_fingerprint[:10]}"
    assert any("neither replaces the other" in n for n in second.notes)
    # each finds its own folder again (resume), whichever order they run in
    assert steb.evaluate(Named(), **_kw(tmp_path)).reused and not steb.evaluate(Named(), **_kw(tmp_path)).results
    again = steb.evaluate(type("Named2", (Named,), {})(scale=3.0), **_kw(tmp_path))
    assert again.encoder == second.encoder and again.reused and not again.results
    stored = {r.encoder: r.main_score for r in steb.load_results(tmp_path / "out")}
    assert set(stored) == {"shared-name", second.encoder}
    from steb_core.report.leaderboard import compute_leaderboards, load_merged

    boards = compute_leaderboards(load_merged(tmp_path / "out"))
    assert set(boards[0].encoders) == {"shared-name", second.encoder}


def test_claim_name_shares_a_folder_only_with_the_same_identity(tmp_path):
    assert claim_name(tmp_path, "m", "a" * 32) == "m"  # free
    record = tmp_path / "m" / "ds" / "task.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"encoder_fingerprint": "a" * 32}))
    assert claim_name(tmp_path, "m", "a" * 32) == "m"
    assert claim_name(tmp_path, "m", "b" * 32) == "m@bbbbbbbbbb"
    assert claim_name(tmp_path, "m", "unidentified-123") == "m@unidentified"


def test_name_argument_sets_the_name_and_an_empty_one_is_refused(tmp_path):
    assert steb.evaluate(Unnamed(), name="my-model", **_kw(tmp_path)).encoder == "my-model"
    with pytest.raises(steb.StebError, match="name= is empty"):
        steb.evaluate(Unnamed(), name=" ", **_kw(tmp_path))


def test_in_memory_datasets_without_a_name_are_named_by_content(tmp_path):
    a, b = (
        _spec(),
        steb.dataset_from([{"t": t + " x", "l": r} for t, r in ROWS], shape="labelled_texts", text="t", label="l"),
    )
    assert a.name != b.name and a.name == _spec().name and a.name.startswith("in_memory-")
    summary = steb.evaluate(Named(), datasets=[a, b], output=tmp_path / "o", cache_dir=tmp_path / "c", progress=False)
    assert {r.dataset for r in summary.results} == {a.name, b.name}
    assert {r.dataset for r in steb.load_results(tmp_path / "o")} == {a.name, b.name}


def test_two_different_datasets_with_one_name_in_one_run_are_refused(tmp_path):
    other = steb.dataset_from(
        [{"t": t + " y", "l": r} for t, r in ROWS], shape="labelled_texts", text="t", label="l", name="mem"
    )
    with pytest.raises(steb.StebError, match="two different datasets are named 'mem'"):
        steb.evaluate(Named(), datasets=[_spec(name="mem"), other], output=tmp_path / "o", progress=False)


@pytest.fixture(scope="module")
def tiny_st_folder(tmp_path_factory) -> Path:
    """A randomly initialised sentence-transformers model saved to a folder named ``tiny-style-model``."""
    transformers = pytest.importorskip("transformers")
    st = pytest.importorskip("sentence_transformers")
    import torch

    root = tmp_path_factory.mktemp("st")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"abcdefghijklmnopqrstuvwxyz!.,'?"]
    (root / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(root / "vocab.txt"), do_lower_case=True)
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(root / "hf")
    tokenizer.save_pretrained(root / "hf")
    try:
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.models import Pooling, Transformer
    word = Transformer(str(root / "hf"), max_seq_length=64)
    model = st.SentenceTransformer(modules=[word, Pooling(word.get_word_embedding_dimension(), "mean")], device="cpu")
    model.save(str(root / "tiny-style-model"))
    return root / "tiny-style-model"


def test_sentence_transformer_and_mteb_model_from_a_folder_are_named_by_the_folder(tiny_st_folder):
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(tiny_st_folder), device="cpu")
    assert default_name(model) == "tiny-style-model"
    mteb = pytest.importorskip("mteb")
    wrapped = mteb.models.SentenceTransformerEncoderWrapper(model)
    assert wrapped.mteb_model_meta.name == "no_model_name/available"  # what MTEB calls it
    from steb_core._adapters import adapt_encoder

    assert adapt_encoder(wrapped).name == "tiny-style-model"


def test_readme_python_example_run_literally_keeps_both_models(tiny_st_folder, tmp_path, monkeypatch):
    """The README's block, with its placeholders (model path, ``df``) supplied: two models, one folder."""
    pd = pytest.importorskip("pandas")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(
        b
        for b in re.findall(r"```python\n(.*?)```", text, flags=re.S)
        if "SentenceTransformer" in b and "load_results" in b
    )
    assert block.count("steb-results/demo") >= 3 and "truncate_dim" in block
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STEB_CACHE_DIR", str(tmp_path / "cache"))
    code = block.replace("path/to/model", str(tiny_st_folder)).replace('suite="demo"', 'datasets=["demo_registers"]')
    df = pd.DataFrame([{"sentence": t, "register": r} for t, r in ROWS])
    namespace: dict = {"df": df}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - the README's own code
    encoders = {r.encoder for r in namespace["results"]}
    assert encoders == {"tiny-style-model", "model-32d"}
    by_model = {e: sorted(r.task for r in namespace["results"] if r.encoder == e) for e in encoders}
    assert by_model["tiny-style-model"] == by_model["model-32d"] == ["clustering", "pair_all"]


# -- failures are not silent ---------------------------------------------------------------------------


def _bad_spec():
    return steb.dataset_from([{"t": t, "l": r} for t, r in ROWS], shape="labelled_texts", text="sentence", label="l")


def test_a_wrong_column_warns_by_default_with_the_message(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = steb.evaluate(Named(), datasets=[_bad_spec()], output=tmp_path / "o", progress=False)
    assert summary.failures and not summary.results
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert any("'sentence'" in m and "is missing" in m for m in messages)


def test_errors_raise_raises_after_the_run_and_collect_stays_quiet(tmp_path):
    good = _spec(name="good")
    with pytest.raises(steb.RunFailed) as info:
        steb.evaluate(Named(), datasets=[_bad_spec(), good], output=tmp_path / "o", progress=False, errors="raise")
    assert "'sentence'" in str(info.value) and info.value.summary.results  # the good dataset still ran
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summary = steb.evaluate(
            Named(), datasets=[_bad_spec()], output=tmp_path / "o", progress=False, errors="collect"
        )
    assert len(summary.failures) == 1
    with pytest.raises(steb.StebError, match="errors='loud'"):
        steb.evaluate(Named(), datasets=[good], output=tmp_path / "o", progress=False, errors="loud")


def test_unknown_task_and_filters_are_errors_with_did_you_mean(tmp_path):
    with pytest.raises(steb.StebError, match="did you mean 'clustering'"):
        steb.evaluate(Named(), datasets=[_spec()], tasks=["clusterin"], output=tmp_path / "o", progress=False)
    with pytest.raises(steb.StebError, match="did you mean 'order_alignment'"):
        steb.get_datasets(task="order-alignment")
    with pytest.raises(steb.StebError, match="did you mean 'register'"):
        steb.get_datasets(category="registers")
    assert {s.name for s in steb.get_datasets(language="eng")} == {s.name for s in steb.get_datasets(language="en")}
    assert steb.get_datasets(language="nld")
    with pytest.raises(steb.StebError, match="unknown language 'xx'"):
        steb.get_datasets(language="xx")
    assert language_codes("eng") == {"eng", "en"} and language_codes("nl") == {"nl", "nld"}


# -- the command line, piped ---------------------------------------------------------------------------


def _steb(*args, **kw):
    return subprocess.run([str(STEB), *args], capture_output=True, text=True, **kw)


def test_cli_filter_typos_are_errors(tmp_path):
    for args, hint in (
        (["list", "datasets", "--task", "order-alignment"], "order_alignment"),
        (["list", "datasets", "--category", "registers"], "register"),
        (
            ["run", "-e", "function-words", "--suite", "demo", "--task", "clusterin", "-o", str(tmp_path / "o")],
            "clustering",
        ),
    ):
        proc = _steb(*args)
        assert proc.returncode == 2 and f"did you mean '{hint}'" in proc.stderr, proc.stderr
    eng = _steb("list", "datasets", "--language", "eng", "--format", "json")
    en = _steb("list", "datasets", "--language", "en", "--format", "json")
    assert eng.returncode == 0 and json.loads(eng.stdout) == json.loads(en.stdout) != []


def test_cli_runs_every_encoder_given_prints_progress_lines_and_report_checks_encoders(tmp_path):
    out = tmp_path / "res"
    proc = _steb(
        "run",
        "-e",
        "function-words",
        "-e",
        "stel-uppercase",
        "-d",
        "demo_registers",
        "-d",
        "demo_formality",
        "-o",
        str(out),
        "--cache-dir",
        str(tmp_path / "c"),
    )
    assert proc.returncode == 0, proc.stderr
    assert {r.encoder for r in steb.load_results(out)} == {"function-words", "stel-uppercase"}
    progress = [ln for ln in proc.stdout.splitlines() if re.match(r"\[\d+/\d+\] ", ln)]
    # one line per (dataset, task) per encoder as each finishes (stel-uppercase is similarity-only: no clustering)
    assert len(progress) == len(list(steb.load_results(out))) == 3 + 2
    assert any("demo_registers / clustering" in ln for ln in progress)
    report = _steb("report", str(out), "--encoder", "FUNCTION-WORDS", "--no-html")
    assert report.returncode == 2 and "did you mean 'function-words'" in report.stderr
    written = _steb("report", str(out), "-o", str(tmp_path / "rep"), "--no-html")
    assert written.returncode == 0 and (tmp_path / "rep" / "report.md").is_file()


def test_piped_data_check_is_one_short_line_per_dataset_with_obtain_commands_whole_below():
    proc = _steb("data", "check")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    n = len(steb.get_datasets())
    header, rows = lines[0], lines[1 : 1 + n]
    assert header.startswith("dataset\tstatus")
    assert header.split("\t") == ["dataset", "status", "release", "classes", "texts", "note"]
    assert len(rows) == n and all(len(r.split("\t")) == 6 and len(r) < 120 for r in rows)
    by_name = {r.split("\t")[0]: r.split("\t") for r in rows}
    assert by_name["bible_versions"][1:5] == ["missing", "-", "-/8", "-/1600"]  # Table 15: 8 versions x 200
    notes = [ln for ln in lines[n + 1 :] if re.match(r"\[\d+\] ", ln)]
    assert notes and any("git clone https://github.com/nlpsoc/STEL" in ln for ln in notes)  # whole, on one line
    assert "1 classes" not in _steb("data", "check", "--suite", "demo", "--format", "json").stdout
    assert any(
        "steb data get --dataset bible_versions" in ln for ln in notes
    )  # a public release: the command that fetches it


def test_data_check_names_the_release_read_and_counts_against_the_catalogue(tmp_path):
    """On the real PAN26 smoke-test sample (../shared/data): the release the loader read, classes and texts."""
    sample = Path(__file__).resolve().parents[3] / "shared" / "data" / "pan" / "pan26-generative-ai-detection-smoketest"
    if not sample.is_dir():
        pytest.skip("../shared/data/pan not available")
    shutil.copytree(sample, tmp_path / "pan26_generative_ai_detection_smoketest")
    proc = _steb(
        "data",
        "check",
        "-d",
        "pan26_generative_ai_detection_smoketest",
        "-d",
        "demo_probing",
        "--data-dir",
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    rows = {ln.split("\t")[0]: ln.split("\t") for ln in proc.stdout.splitlines()[1:3]}
    assert rows["pan26_generative_ai_detection_smoketest"][1:5] == [
        "ok",
        "PAN26 generative AI detection smoke test",
        "2/-",
        "34/-",
    ]
    assert rows["demo_probing"][1] == "builtin"


def test_release_read_from_bundle_info():
    from steb_core._catalogue import release_read

    assert release_read({"release": "carlson", "root": "/d/bible_versions"}) == "carlson"
    assert release_read({"source": "PAN 2018"}) == "PAN 2018"
    assert release_read({"root": "/data/StyleTransferBibleData"}) == "StyleTransferBibleData"
    assert release_read({"per_class": 3}) == ""


def test_piped_encoder_list_is_one_line_per_encoder_saying_whether_it_runs_here():
    proc = _steb("list", "encoders")
    lines = proc.stdout.strip().splitlines()
    n = int(lines[-1].split()[0])
    rows = [ln.split("\t") for ln in lines[:-1]]
    assert len(rows) == n
    here = {r[0]: (r[2], r[3]) for r in rows}
    assert here["function-words"] == ("yes", "")
    assert all(v[0] in ("yes", "no", "needs model=") for v in here.values())
    assert all(v[1] for v in here.values() if v[0] == "no")  # every "no" says why


# -- report ---------------------------------------------------------------------------------------------


def test_heatmap_colour_is_relative_to_chance():
    from steb_core.report.plots import above_chance

    assert above_chance(0.5, 0.5) == 0 == above_chance(0.0, 0.0)  # chance AUROC is as dark as V-measure 0
    assert above_chance(0.75, 0.5) == pytest.approx(50.0)
    assert above_chance(0.4, 0.5) == 0 and above_chance(1.0, 0.25) == 100


def test_markdown_points_at_missing_inputs_only_when_the_section_exists(tmp_path):
    from steb_core.report.leaderboard import compute_leaderboards, load_merged
    from steb_core.report.markdown import missing_rows, render_markdown

    steb.evaluate(Named(), datasets=[_spec(name="mem")], output=tmp_path / "o", progress=False)
    boards = compute_leaderboards(load_merged(tmp_path / "o"))
    text = render_markdown(boards)
    assert ("*Missing inputs*" in text) == ("## Missing inputs" in text) == any(missing_rows(b) for b in boards)


# -- citations -------------------------------------------------------------------------------------------


def test_free_text_references_become_bibtex_with_fields_and_one_key_per_work():
    from steb_core._catalogue import bibtex, parse_citation

    acl = (
        "Sudha Rao and Joel Tetreault. 2018. Dear Sir or Madam, May I Introduce the GYAFC Dataset. In Proceedings "
        "of NAACL-HLT 2018."
    )
    assert parse_citation(acl) == {
        "author": "Sudha Rao and Joel Tetreault",
        "title": "Dear Sir or Madam, May I Introduce the GYAFC Dataset",
        "year": "2018",
        "venue": "In Proceedings of NAACL-HLT 2018"[3:],
    }
    pan = (
        "Zangerle, E., Mayerl, M., Potthast, M. & Stein, B. (2022). Overview of the Style Change Detection Task at "
        "PAN 2022. CLEF 2022 Working Notes, CEUR-WS."
    )
    entry = bibtex("pan22_style_change_basic", pan)
    assert entry.startswith("@inproceedings{zangerle2022overview,")
    assert (
        "author = {Zangerle, E. and Mayerl, M. and Potthast, M. and Stein, B.}" in entry
        and "booktitle = {CLEF 2022" in entry
    )
    assert bibtex("pan22_style_change_easy", pan) == entry  # datasets of one paper: one key
    # what cannot be split reliably stays a note rather than becoming wrong fields
    assert bibtex("x", "Egbert, Biber (2015) A; Laippala et al. (2022) B").startswith("@misc{x,")


def test_cite_prints_each_work_once(tmp_path):
    from steb_core._plugins import get_manager
    from steb_core._results import ResultRecord

    registry = get_manager().datasets()
    for name in ("STEL_register", "STEL_feature", "STEL-or-Content_register"):
        if name not in registry:
            pytest.skip("the STEL dataset plugin is not installed")
        ResultRecord(
            encoder="e",
            dataset=name,
            task="order_alignment",
            main_metric="accuracy",
            main_score=0.5,
            metrics={"accuracy": 0.5},
            dataset_meta={"citation": registry.get(name).citation},
        ).write(tmp_path)
    out = _steb("cite", str(tmp_path)).stdout
    assert out.count("@inproceedings{wegmann2021does,") == 1 and out.count("@inproceedings{wegmann2022same,") == 1
