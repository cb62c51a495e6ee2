"""The STEB leaderboard's results tree, both ways: steb results out as a submission, published results in.

The STEB authors' code writes ``results/<dataset>/<short_name>/<episode_size>_<n_per_class>/<task>/metrics.json``
(``steb/core.py`` of github.com/rrivera1849/STEB) and builds its public leaderboard from such trees (the canonical
baselines and ``submitted_results/``). :mod:`.names` holds the name tables (datasets, task folders, metric keys),
:mod:`.layout` the paths, :mod:`.export` writes a steb run as a tree (``steb export``), :mod:`.read` reads trees as
steb records (``steb import``, ``steb report --leaderboard``), :mod:`.submission` edits and checks a clone's
``SUBMISSIONS.yaml`` and ``models_all.txt`` (``steb submit``), :mod:`.published` fetches the authors' published
results (``steb import --published``), and :mod:`.task_export` says how a task type is written there (a
:class:`~steb_core.TaskSpec` field). Imported lazily but for the two light name modules a task spec holds
(:mod:`.names`, :mod:`.task_export`): ``import steb_core`` pays little.
"""

from __future__ import annotations

__all__: list[str] = []
