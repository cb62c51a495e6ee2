"""``steb submit``: add a submission's two declarations to a STEB clone and check it as the leaderboard does.

The work is :mod:`steb_core.reference_tree.submission`; ``steb export`` prints the command line of this command
for the results tree it wrote.
"""

from __future__ import annotations

from pathlib import Path

import typer

from .._errors import StebError
from . import common


@common.app.command("submit")
def submit(
    clone: Path = typer.Argument(
        ..., help="Your clone of github.com/rrivera1849/STEB (holding SUBMISSIONS.yaml and submitted_results/)."
    ),
    short_name: str | None = typer.Option(
        None, "--short-name", help="The model folder name under submitted_results/<dataset>/ (omit to only check)."
    ),
    hf_id: str | None = typer.Option(None, "--hf-id", help="HuggingFace id (or a stable URL) of the model."),
    run_command: str | None = typer.Option(None, "--run-command", help="The command that produced the results."),
    contributor: str | None = typer.Option(None, "--contributor", help="Your GitHub handle."),
) -> None:
    """Add your entry to SUBMISSIONS.yaml (the whole list rewritten, valid YAML) and your model to
    scripts/models_all.txt, then check the clone with the leaderboard's rules; without --short-name, only check."""
    from ..reference_tree.export import models_line
    from ..reference_tree.submission import SubmissionEntry, add_submission, check_clone

    con = common.console
    if short_name is None:
        problems = check_clone(clone)
    else:
        missing = [
            o for o, v in (("--hf-id", hf_id), ("--run-command", run_command), ("--contributor", contributor)) if not v
        ]
        if missing:
            raise StebError(f"steb submit --short-name {short_name}: also give {', '.join(missing)}")
        entry = SubmissionEntry(short_name, hf_id or "", run_command or "", contributor or "")
        if entry.contributor.startswith("<"):
            raise StebError(f"--contributor {entry.contributor!r}: give your GitHub handle")
        problems = add_submission(clone, entry, models_line(short_name, entry.hf_id))
        con.print(f"added '{short_name}' to {clone}/SUBMISSIONS.yaml and scripts/models_all.txt", highlight=False)
    if problems:
        for problem in problems:
            con.print(f"  {problem}", highlight=False, markup=False)
        raise StebError(f"{len(problems)} problem(s) in the submission in {clone} (listed above)")
    con.print(f"{clone}: the submission passes the leaderboard's checks", highlight=False)
