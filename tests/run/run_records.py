"""Runs whose result records must not change when the run engine is restructured (issue 40), and their
normalised form; ``python tests/run/run_records.py`` writes them to ``run_records.json`` beside it.

Why a committed file of records, not two runs side by side: the code before the change (the fork point,
``d2dbfa4``) is not importable beside this one in one process, and a test that checks out and installs
an old commit depends on git history that a shallow clone or an sdist lacks. So the records were written
once by the fork point's code (``git archive d2dbfa4`` unpacked in a temporary folder, this script run
with ``PYTHONPATH`` set to it) and the test compares today's run with them. A change that is meant to
change records regenerates the file with the same command, and the diff shows what changed.

What is compared: every field of every record but the timings, the write time, the content hash (which
covers them) and the library versions (the machine's), and the run summaries' counters, results, reused
results, skips, failures and notes. Floats to a relative 1e-6: a CPU whose BLAS rounds the last bits
otherwise (and a solver iterating on them) gives the same verdict, while a real change (another sample,
order or batch) moves a score by far more. Three fields of the synthetic run depend on where the
checkout is and on the bytes of ``bench/full_steb/synthetic_steb.py`` (a local plugin is named by its
path and versioned by a hash of its source, and the run key hashes that version): placeholders stand for
them, so a checkout elsewhere or a reformatted bench file does not fail the test. The demo run keeps its
run keys, which installed distributions' versions fix.

One kind of figure depends on the OpenBLAS kernel numpy runs, by more than last bits (issue 50): steb's
own probe (float32 L-BFGS iterates round otherwise, and a few test predictions move: demo_probing 0.4620
on Haswell, 0.4648 on SkylakeX and Sandybridge). The retrieval reference rule moved too (mean rank 224.770 /
224.778 / 224.780, and with numpy's sorting network) until issue 46 made its distances exact and its ties
expected (``steb_core/tasks/_retrieval_ranks.py``): its records are now one set of values on every CPU.
``run_records_kernels.json`` holds the probe's fields per kernel, as
measured under ``OPENBLAS_CORETYPE``, and :func:`expected_for` applies the running kernel's; ``make test-cpus``
runs this test under Haswell and Sandybridge, and an AVX-512 machine runs the committed SkylakeX values.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SYNTHETIC = ROOT / "bench" / "full_steb" / "synthetic_steb.py"
EXPECTED = Path(__file__).with_name("run_records.json")
#: per OpenBLAS kernel, the fields whose values that kernel's rounding moves (the file's ``_why`` says which and why)
KERNEL_VALUES = Path(__file__).with_name("run_records_kernels.json")
#: record fields that differ between two runs of the same code, or between machines
VOLATILE = ("timings", "created", "content_hash", "versions")
#: what stands for the synthetic plugin's path (a local plugin's name), its source hash and the run keys made with it
LOCAL_PLUGIN = "<path of bench/full_steb/synthetic_steb.py>"
LOCAL_SOURCE = "<source hash of bench/full_steb/synthetic_steb.py>"


def synthetic_selection() -> list[str]:
    """Two synthetic datasets per task type (bench/full_steb), as the plugin registers them."""
    sys.path.insert(0, str(SYNTHETIC.parent))
    try:
        import synthetic_steb
    finally:
        sys.path.remove(str(SYNTHETIC.parent))
    by_task: dict[str, list[str]] = {}
    for spec in synthetic_steb.synthetic_datasets():
        by_task.setdefault(spec.tasks[0], []).append(spec.name)
    return [name for names in by_task.values() for name in names[:2]]


def demo_run(root: Path, **options: Any) -> Any:
    """The demo suite with function words under ``root`` (one thread, no prefetch); ``options`` go to evaluate."""
    from steb_core import evaluate  # the code under test, imported when run

    return evaluate(
        "function-words",
        suite="demo",
        output=root / "out",
        cache_dir=root / "cache",
        progress=False,
        threads=1,
        prefetch=0,
        errors="raise",
        **options,
    )


def _synthetic(root: Path) -> Any:
    from steb_core import evaluate

    return evaluate(
        "function-words",
        synthetic_selection(),
        plugins=(str(SYNTHETIC),),
        output=root / "out",
        cache_dir=root / "cache",
        dataset_options={"scale": 0.0005},
        progress=False,
        threads=1,
        max_memory="64K",
        prefetch=2,
        prefetch_mode="process",
        errors="raise",
    )


#: name -> a run in a fresh folder; each is run twice (the second run reuses every result)
SCENARIOS: dict[str, Callable[[Path], Any]] = {"demo": demo_run, "synthetic": _synthetic}


def _scrub(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace(root, "<tmp>")
    if isinstance(value, dict):
        return {k: _scrub(v, root) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, root) for v in value]
    return value


def _record(data: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k not in VOLATILE}
    if out.get("dataset_provider") == str(SYNTHETIC):  # a local plugin: named by its path, versioned by its source
        out.update(dataset_provider=LOCAL_PLUGIN, dataset_provider_version=LOCAL_SOURCE, run_key=LOCAL_SOURCE)
    return out


def openblas_kernel() -> str:
    """The OpenBLAS kernel numpy runs in this process (threadpoolctl's ``architecture``), or ''."""
    from threadpoolctl import threadpool_info

    return next((i.get("architecture") or "" for i in threadpool_info() if i.get("internal_api") == "openblas"), "")


def _overlay(base: Any, changes: Any, where: str = "") -> Any:
    """``base`` with the leaves of ``changes`` put in; a field ``base`` lacks is a stale entry, refused."""
    if not isinstance(base, dict) or not isinstance(changes, dict):
        return changes
    stale = sorted(set(changes) - set(base))
    if stale:
        raise KeyError(f"{KERNEL_VALUES.name}: {where or '/'} has no field {stale[0]!r} in {EXPECTED.name}")
    return {k: _overlay(base[k], changes[k], f"{where}/{k}") if k in changes else base[k] for k in base}


def expected_for(scenario: str, kernel: str | None = None) -> dict[str, Any]:
    """``scenario``'s expected records and summaries on ``kernel`` (default: this process's OpenBLAS kernel).

    The committed values, with the fields :data:`KERNEL_VALUES` lists for that kernel replaced; a kernel not
    listed there gets the committed values (SkylakeX's).
    """
    base = json.loads(EXPECTED.read_text())[scenario]
    by_kernel = json.loads(KERNEL_VALUES.read_text())
    kernel = openblas_kernel() if kernel is None else kernel
    changes = {k.lower(): v for k, v in by_kernel.items() if not k.startswith("_")}.get(kernel.lower(), {})
    return _overlay(base, changes.get(scenario, {})) if changes else base


def observe(name: str, root: Path) -> dict[str, Any]:
    """Scenario ``name`` run twice under ``root``: its records (by path under the output folder) and summaries."""
    summaries = [SCENARIOS[name](root) for _ in range(2)]
    records = {}
    for path in sorted((root / "out").rglob("*.json")):
        # records only, as load_results reads them: not temp files, not the per-instance files of .instances/
        if not any(part.startswith(".") for part in path.relative_to(root / "out").parts):
            records[str(path.relative_to(root / "out"))] = _record(json.loads(path.read_text()))
    views = [
        {
            "results": [[r.dataset, r.task] for r in s.results],
            "reused": [[r.dataset, r.task] for r in s.reused],
            "skipped": [list(x) for x in s.skipped],
            "failures": [[f.dataset, f.task, f.error] for f in s.failures],
            "missing": [[m.dataset, m.tasks] for m in s.missing],
            "notes": list(s.notes),
            "encoder": s.encoder,
            "counts": [s.texts_total, s.texts_unique, s.texts_encoded, s.cache_hits],
        }
        for s in summaries
    ]
    return _scrub({"records": records, "summaries": views}, str(root))


def differences(expected: Any, got: Any, where: str = "") -> list[str]:
    """Where ``got`` differs from ``expected``: exact, except floats (relative 1e-6, absolute 1e-9)."""
    if isinstance(expected, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return [] if math.isclose(expected, got, rel_tol=1e-6, abs_tol=1e-9) else [f"{where}: {expected!r} != {got!r}"]
    if isinstance(expected, dict) and isinstance(got, dict):
        if sorted(expected) != sorted(got):
            return [f"{where}: keys {sorted(set(expected) ^ set(got))} only on one side"]
        return [d for k in expected for d in differences(expected[k], got[k], f"{where}/{k}")]
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        pairs = enumerate(zip(expected, got, strict=True))
        return [d for i, (a, b) in pairs for d in differences(a, b, f"{where}[{i}]")]
    return [] if expected == got and type(expected) is type(got) else [f"{where}: {expected!r} != {got!r}"]


def main() -> None:
    import tempfile

    import steb_core

    print(f"writing {EXPECTED} with the steb_core at {Path(steb_core.__file__).parent}")
    out = {}
    for name in SCENARIOS:
        with tempfile.TemporaryDirectory() as tmp:
            out[name] = observe(name, Path(tmp))
    EXPECTED.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
