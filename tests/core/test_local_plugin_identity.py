"""Issue 29, item 3: encoders of local plugins (``--plugin``) without ``fingerprint()``.

A local plugin has no distribution version, so its encoder used to be identified by name only
(editing its weights seed reused every result and vector), and the ``.py`` path form put a
per-process salted hash in the module name (no resume, a new cache folder per run). Now a local
plugin's source hash stands in for the version, its encoders are probed like objects, and ``.py``
plugins get stable module names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from steb_core import evaluate
from steb_core._plugins import import_local_module, reset_manager

LOCAL_ENCODER = """
import numpy as np
import pytest
from steb_core import hookimpl, EncoderSpec

SEED = {seed}

class SeededEncoder:
    name = "seeded-local"

    def encode(self, texts):
        rng = np.random.default_rng(SEED)
        table = rng.normal(size=(256, 8)).astype(np.float32)
        return np.stack([table[[ord(c) % 256 for c in t]].mean(axis=0) for t in texts])

@hookimpl
def register_encoders(register):
    register(EncoderSpec(name="seeded-local", description="random weights from SEED", factory=SeededEncoder))
"""


def _write_encoder(path: Path, seed: int) -> Path:
    path.write_text(LOCAL_ENCODER.format(seed=seed))
    return path


def _forget(module_name: str) -> None:
    """What a new process would see: no plugin manager, the module not imported yet."""
    reset_manager()
    sys.modules.pop(module_name, None)


def _run(tmp_path, plugins, output="out"):
    return evaluate(
        "seeded-local",
        suite="toy",
        plugins=plugins,
        output=tmp_path / output,
        cache_dir=tmp_path / "cache",
        progress=False,
    )


def test_module_form_plugin_with_new_weights_is_not_reused(toy_plugin, tmp_path, monkeypatch):
    pkg = tmp_path / "mods"
    pkg.mkdir()
    _write_encoder(pkg / "seeded_local_mod.py", seed=1)
    monkeypatch.syspath_prepend(str(pkg))
    plugins = ["seeded_local_mod", str(toy_plugin)]
    first = _run(tmp_path, plugins)
    assert len(first.results) == 6
    _forget("seeded_local_mod")
    assert len(_run(tmp_path, plugins).reused) == 6  # same file: resumed
    _write_encoder(pkg / "seeded_local_mod.py", seed=2)  # other weights
    _forget("seeded_local_mod")
    changed = _run(tmp_path, plugins)
    assert not changed.reused and len(changed.results) == 6 and changed.texts_encoded > 0
    before = {(r.dataset, r.task): r.main_score for r in first.results}
    assert any(before[(r.dataset, r.task)] != r.main_score for r in changed.results)
    assert first.results[0].encoder_fingerprint != changed.results[0].encoder_fingerprint
    assert len(list((tmp_path / "cache").iterdir())) == 2  # one cache folder per weights, not one shared


def test_py_path_plugin_with_new_weights_is_not_reused(toy_plugin, tmp_path):
    enc = _write_encoder(tmp_path / "seeded_local.py", seed=1)
    plugins = [str(enc), str(toy_plugin)]
    first = _run(tmp_path, plugins)
    name = import_local_module(str(enc)).__name__
    _write_encoder(enc, seed=2)
    _forget(name)
    changed = _run(tmp_path, plugins)
    assert not changed.reused and len(changed.results) == 6
    assert first.results[0].encoder_fingerprint != changed.results[0].encoder_fingerprint


SCRIPT = """
import json, sys
import numpy as np
import pytest

from steb_core import evaluate
from steb_core._plugins import import_local_module
enc, toy, out = sys.argv[1:4]
s = evaluate("seeded-local", suite="toy", plugins=[enc, toy], output=out + "/out", cache_dir=out + "/cache",
    progress=False)
print(json.dumps([import_local_module(enc).__name__, len(s.reused), len(s.results)]))
"""


def test_py_path_plugin_resumes_in_a_new_process(toy_plugin, tmp_path):
    enc = _write_encoder(tmp_path / "seeded_local.py", seed=1)
    outs = []
    for hash_seed in ("1", "2"):  # str hashes are salted per process; the module name must not be
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT, str(enc), str(toy_plugin), str(tmp_path)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        outs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    (name1, reused1, new1), (name2, reused2, new2) = outs
    assert name1 == name2
    assert (reused1, new1) == (0, 6) and (reused2, new2) == (6, 0)
    assert len(list((tmp_path / "cache").iterdir())) == 1


# ---- issue 41, item 3: a local encoder that brings its own (constant) fingerprint() ----------------------------
WORD_COUNTER = """
from pathlib import Path
import numpy as np
import pytest
from steb_core import hookimpl, EncoderSpec

WORDS = Path(__file__).with_name("words.txt")

class WordCounter:
    name = "word-counter"

    def fingerprint(self):  # CONTRIBUTING's worked example 2: a constant the author must remember to change
        return "word-counter-v1"

    def encode(self, texts):
        words = WORDS.read_text().split()
        rows = [[t.lower().split().count(w) {op} 1.0 for w in words] for t in texts]
        return np.asarray(rows, dtype=np.float32)

@hookimpl
def register_encoders(register):
    register(EncoderSpec(name="word-counter", description="counts of the words in words.txt", factory=WordCounter))
"""


def _word_counter_run(tmp_path, plugin, toy_plugin):
    return evaluate(
        "word-counter",
        suite="toy",
        plugins=[str(plugin), str(toy_plugin)],
        output=tmp_path / "out",
        cache_dir=tmp_path / "cache",
        progress=False,
    )


def test_local_encoder_with_own_fingerprint_notices_edited_code_and_word_file(toy_plugin, tmp_path):
    plugin = tmp_path / "word_counter.py"
    plugin.write_text(WORD_COUNTER.format(op="+"))
    (tmp_path / "words.txt").write_text("the text number\n")
    first = _word_counter_run(tmp_path, plugin, toy_plugin)
    assert len(first.results) == 6
    name = import_local_module(str(plugin)).__name__
    _forget(name)
    assert len(_word_counter_run(tmp_path, plugin, toy_plugin).reused) == 6  # nothing changed: resumed

    (tmp_path / "words.txt").write_text("the text number it you\n")  # the file it reads: other vectors
    _forget(name)
    edited_words = _word_counter_run(tmp_path, plugin, toy_plugin)
    assert not edited_words.reused and len(edited_words.results) == 6
    assert edited_words.results[0].encoder_fingerprint != first.results[0].encoder_fingerprint

    plugin.write_text(WORD_COUNTER.format(op="*"))  # its encode(): what it computes
    _forget(name)
    edited_code = _word_counter_run(tmp_path, plugin, toy_plugin)
    assert not edited_code.reused and len(edited_code.results) == 6
    fingerprints = {r.encoder_fingerprint for r in (first.results[0], edited_words.results[0], edited_code.results[0])}
    assert len(fingerprints) == 3
    evidence = edited_code.results[0].encoder_identity
    assert evidence["fingerprint"] == "word-counter-v1" and evidence["probe_hash"]
    assert evidence["provider_version"].startswith("src-")


# ---- issue 41, item 4: objects whose outputs are small in magnitude --------------------------------------------
class TinyProjector:
    """Random projection of character counts, scaled down: every output is below 1e-4."""

    def __init__(self, seed: int, scale: float = 1e-6) -> None:
        self.name = "tiny"
        self.seed, self.scale = seed, scale

    def encode(self, texts):
        table = np.random.default_rng(self.seed).normal(size=(128, 4))
        counts = np.zeros((len(texts), 128))
        for i, text in enumerate(texts):
            for ch in text:
                counts[i, ord(ch) % 128] += 1
        return (counts @ table * self.scale).astype(np.float32)


def test_small_outputs_of_another_behaviour_are_another_identity(toy_plugin, tmp_path):
    from steb_core._encoders import identify

    ids = {identify(TinyProjector(seed)).fingerprint for seed in (1, 2)}
    assert len(ids) == 2  # rounding to 4 decimals made both all zeros
    assert identify(TinyProjector(1, 1e-6)).fingerprint != identify(TinyProjector(1, 1e-9)).fingerprint  # scale alone
    assert identify(TinyProjector(1)).fingerprint == identify(TinyProjector(1)).fingerprint
    kwargs = dict(
        suite="toy", plugins=[str(toy_plugin)], output=tmp_path / "out", cache_dir=tmp_path / "cache", progress=False
    )
    first = evaluate(TinyProjector(1), **kwargs)
    second = evaluate(TinyProjector(2), **kwargs)
    assert len(first.results) == 6 and not second.reused and len(second.results) == 6
    assert second.encoder != first.encoder  # its own folder (tiny@<identity>), the first model's results kept


def test_probe_quantisation_is_exact_and_relative_to_each_vector():
    """Hand-computed: 0.75 = 0.75 * 2**0 -> exponent 0, mantissa 0.75 * 2**12 = 3072; the same vector times 2**-20
    has exponent -20 and the same mantissas (power-of-two scaling is exact, so no CPU can round it otherwise)."""
    from steb_core._encoders import PROBE_BITS, quantise_probe

    assert PROBE_BITS == 12
    exponents, mantissas = quantise_probe(np.array([[0.75, -0.25, 0.0], [0.0, 0.0, 0.0], [3e-7, -1e-7, 1e-12]]))
    assert exponents.tolist() == [0, 0, -21]
    assert mantissas.tolist() == [[3072, -1024, 0], [0, 0, 0], [2577, -859, 0]]  # 3e-7 * 2**33 = 2576.98...
    small_e, small_m = quantise_probe(np.array([[0.75, -0.25, 0.0]]) * 2.0**-20)
    assert small_e.tolist() == [-20] and small_m.tolist() == [[3072, -1024, 0]]
    # C or Fortran order, a strided view of a wider array: the same integers (no reduction whose order matters)
    base = np.random.default_rng(0).normal(size=(8, 16)) * 1e-5
    expected = quantise_probe(np.ascontiguousarray(base))
    for variant in (np.asfortranarray(base), np.hstack([base, base * 3])[:, :16]):
        got = quantise_probe(variant)
        assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])


# ---- issue 47: a side file the encoder reads, edited where the probe texts do not look --------------------------
TABLE_ENCODER = """
import json
from pathlib import Path

import numpy as np
import pytest
from steb_core import hookimpl, EncoderSpec

class TableEncoder:
    name = "table-local"

    def __init__(self):
        self.table = json.loads((Path(__file__).parent / "{weights}").read_text())

    def encode(self, texts):
        out = np.zeros((len(texts), 2), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i] += self.table.get(w, [0.0, 0.0])
        return out + 1.0

@hookimpl
def register_encoders(register):
    register(EncoderSpec(name="table-local", description="word vectors from a side file", factory=TableEncoder))
"""


@pytest.mark.parametrize("when", ["built", "imported"])
def test_a_side_file_edit_the_probe_cannot_see_is_another_model(toy_plugin, tmp_path, when):
    from steb_core._encoders import PROBE_TEXTS

    assert not any("number" in t.lower().split() for t in PROBE_TEXTS)  # the edit below is invisible to the probe
    source = TABLE_ENCODER.format(weights="weights.json")
    if when == "imported":  # read at import time, not by the factory
        reading = 'json.loads((Path(__file__).parent / "weights.json").read_text())'
        source = source.replace(reading, "TABLE").replace(
            "class TableEncoder:", f"TABLE = {reading}\n\n\nclass TableEncoder:"
        )
    plugin = tmp_path / "table_local.py"
    plugin.write_text(source)
    weights = tmp_path / "weights.json"
    weights.write_text(json.dumps({"text": [1.0, 0.0], "number": [0.0, 1.0]}))

    def run():
        return evaluate(
            "table-local",
            suite="toy",
            plugins=[str(plugin), str(toy_plugin)],
            output=tmp_path / "out",
            cache_dir=tmp_path / "cache",
            progress=False,
        )

    first = run()
    assert len(first.results) == 6
    name = import_local_module(str(plugin)).__name__
    _forget(name)
    assert len(run().reused) == 6  # nothing changed: resumed
    weights.write_text(json.dumps({"text": [1.0, 0.0], "number": [0.0, 5.0]}))  # only "number" moves
    _forget(name)
    edited = run()
    assert not edited.reused and len(edited.results) == 6 and edited.texts_encoded > 0
    assert edited.results[0].encoder_fingerprint != first.results[0].encoder_fingerprint
