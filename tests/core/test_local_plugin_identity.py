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

from steb_core import evaluate
from steb_core.plugins import import_local_module, reset_manager

LOCAL_ENCODER = '''
import numpy as np
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
'''


def _write_encoder(path: Path, seed: int) -> Path:
    path.write_text(LOCAL_ENCODER.format(seed=seed))
    return path


def _forget(module_name: str) -> None:
    """What a new process would see: no plugin manager, the module not imported yet."""
    reset_manager()
    sys.modules.pop(module_name, None)


def _run(tmp_path, plugins, output="out"):
    return evaluate("seeded-local", suite="toy", plugins=plugins, output=tmp_path / output, cache_dir=tmp_path / "cache", progress=False)


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
from steb_core import evaluate
from steb_core.plugins import import_local_module
enc, toy, out = sys.argv[1:4]
s = evaluate("seeded-local", suite="toy", plugins=[enc, toy], output=out + "/out", cache_dir=out + "/cache", progress=False)
print(json.dumps([import_local_module(enc).__name__, len(s.reused), len(s.results)]))
"""


def test_py_path_plugin_resumes_in_a_new_process(toy_plugin, tmp_path):
    enc = _write_encoder(tmp_path / "seeded_local.py", seed=1)
    outs = []
    for hash_seed in ("1", "2"):  # str hashes are salted per process; the module name must not be
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(enc), str(toy_plugin), str(tmp_path)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        outs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    (name1, reused1, new1), (name2, reused2, new2) = outs
    assert name1 == name2
    assert (reused1, new1) == (0, 6) and (reused2, new2) == (6, 0)
    assert len(list((tmp_path / "cache").iterdir())) == 1
