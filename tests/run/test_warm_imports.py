"""The tasks' heavy imports are made ahead, in a thread, from the first dataset with work (``TaskSpec.warm_imports``).

Why it matters: scikit-learn takes 1.4 s to import here; a run that scores clustering waited on it mid-run. A
re-run that reuses every result still imports nothing (``test_runner.py``'s no-op re-run test).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from steb_core.run.warm import WarmImports

PLUGIN = """
from steb_core import DatasetBundle, DatasetSpec, LabelledText, TaskSpec, hookimpl

def run_count(ctx):
    return {"n": float(len(ctx.data))}

@hookimpl
def register_tasks(register):
    register(TaskSpec(name="count", description="counts", shape="labelled_texts", main_metric="n", run=run_count,
                      warm_imports=("mailbox", "no_such_module_for_steb")))

@hookimpl
def register_datasets(register):
    records = [LabelledText("a b", "x"), LabelledText("c", "y")]
    register(DatasetSpec(name="tiny", description="tiny", tasks=("count",), needs_data=False,
                         loader=lambda ctx: DatasetBundle(labelled_texts=records)))
"""


def test_warm_imports_imports_each_module_and_ignores_a_missing_one() -> None:
    code = (
        "import sys\nfrom steb_core.run.warm import WarmImports\nassert 'mailbox' not in sys.modules\n"
        "w = WarmImports(['mailbox', 'no_such_module_for_steb', 'mailbox'])\nw.join()\n"
        "assert 'mailbox' in sys.modules and not w.thread.is_alive()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    WarmImports(()).join()  # nothing to import: no thread, join returns at once
    assert WarmImports(()).thread is None


def test_a_run_imports_what_its_task_specs_declare(tmp_path: Path) -> None:
    (tmp_path / "warm_plugin.py").write_text(PLUGIN)
    code = (
        "import sys, steb\n"
        f"s = steb.evaluate('function-words', ['tiny'], plugins=[r'{tmp_path / 'warm_plugin.py'}'], "
        f"output=r'{tmp_path / 'out'}', cache_dir=r'{tmp_path / 'cache'}', progress=False)\n"
        "assert len(s.results) == 1 and not s.failures, s\n"
        "print('mailbox' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
