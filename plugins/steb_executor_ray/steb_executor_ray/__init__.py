"""steb-executor-ray: run steb on a Ray cluster without changing how results come out.

- :class:`RayExecutor` — ``steb run --executor ray [--address ADDR]`` or
  ``steb_core.evaluate(..., executor="ray", executor_options={...})``: the run's deduplicated
  missing texts are cut into batches and encoded on a pool of Ray actors (one model load per actor,
  one GPU per actor when the cluster has GPUs); every actor writes its batches as shards of steb's
  ordinary embedding cache, so task evaluation and resume are those of a local run.
- :func:`run_many` — many encoders x many datasets as independent, retried jobs
  (``steb run-many`` on the command line).
"""

from __future__ import annotations

from .executor import RayExecutor
from .many import EvaluationJob, JobOutcome, expand_jobs, run_many

__all__ = ["RayExecutor", "run_many", "expand_jobs", "EvaluationJob", "JobOutcome"]
