"""``steb list``: registered components, one line each; dataset filters refuse unknown values."""

from __future__ import annotations

import sys

import typer
from rich.table import Table

from .._choices import check_values, language_codes
from .._errors import StebError
from .._plugins import StebPlugins
from . import common


@common.app.command("list")
def list_components(
    kind: str = typer.Argument(..., help=f"What to list: {', '.join(common.LIST_KINDS)}."),
    category: str | None = typer.Option(
        None, "--category", "-c", help="Datasets only: keep those with this category (e.g. register, idiolect)."
    ),
    task: str | None = typer.Option(
        None, "--task", "-t", help="Datasets only: keep those feeding this task type (e.g. order_alignment)."
    ),
    language: str | None = typer.Option(
        None, "--language", "-l", help="Datasets only: keep those in this language code (e.g. en, nl)."
    ),
    suite: str | None = typer.Option(
        None,
        "--suite",
        "-s",
        help="Datasets only: members of this suite, with the suite's tasks (e.g. demo, steb, stel).",
    ),
    fmt: str = common.FormatOpt,
    plugin: list[str] | None = common.PluginOpt,
) -> None:
    """List registered components, one line each (datasets: tasks, languages, categories, size, citation, how to
    obtain)."""
    from .._catalogue import component_rows, dataset_rows
    from ..run.selection import suite_selection

    if kind not in common.LIST_KINDS:
        import difflib

        close = difflib.get_close_matches(kind, list(common.LIST_KINDS), n=1)
        raise StebError(
            f"cannot list '{kind}'{f' (did you mean {close[0]!r}?)' if close else ''}; choose one of: "
            f"{', '.join(common.LIST_KINDS)}"
        )
    manager = common.manager(plugin)
    if kind == "datasets":
        selected = suite_selection(manager, suite) if suite else [(s, s.tasks) for s in manager.datasets()]
        in_suite = {spec.name: tasks for spec, tasks in selected}
        wanted_languages = _check_dataset_filters(manager, category, task, language)
        specs = [
            s
            for s, _ in selected
            if (category is None or category in s.categories)
            and (task is None or task in in_suite[s.name])
            and (language is None or any(language_codes(code) & wanted_languages for code in s.languages))
        ]
        rows = dataset_rows(manager, specs, suite)
        if common.emit(rows, fmt, "datasets"):
            return
        # one block per dataset: a table squeezes seven columns unreadably on an 80-column terminal
        for r in rows:
            facts = " | ".join(
                x
                for x in (", ".join(r["tasks"]), ", ".join(r["languages"]), ", ".join(r["categories"]), r["size"])
                if x
            )
            common.console.print(f"[bold]{r['name']}[/]  [cyan]{facts}[/]  [dim]({r['provider']})[/]", highlight=False)
            common.console.print(f"    {r['description']}", highlight=False)
            if r["citation"]:
                common.console.print(f"    [dim]cite: {' '.join(r['citation'].split())}[/]", highlight=False)
            if r["source"]:
                common.console.print(f"    source: {r['source']}", style="dim", highlight=False, markup=False)
            if r["obtain"]:
                common.console.print(f"    [dim]obtain: {r['obtain']}[/]", highlight=False)
        common.console.print(f"{len(rows)} datasets" + (f" in suite '{suite}'" if suite else ""))
        return
    rows = component_rows(manager, common.LIST_KINDS[kind])
    if common.emit(rows, fmt, kind):
        return
    if not common.console.is_terminal:  # piped: one line per component, tab-separated, nothing wrapped
        for r in rows:
            sys.stdout.write("\t".join(" ".join(str(v).split()) for v in r.values()) + "\n")
        sys.stdout.write(f"{len(rows)} {kind}\n")
        return
    # a terminal: one line per component too; names whole, long columns cut with an ellipsis (whole in -f csv/json)
    if kind == "encoders":  # why it cannot run here matters more than the description; one flexible column for both
        rows = [
            {
                "name": r["name"],
                "family": r["family"],
                "here": r["here"],
                "why not / description": r["why_not"] or r["description"],
            }
            for r in rows
        ]
    columns = [c for c in (rows[0] if rows else {"name": ""}) if c != "options"]
    flexible = {"description", "why not / description"}
    widths = {
        c: max([len(c)] + [len(" ".join(str(r.get(c, "")).split())) for r in rows])
        for c in columns
        if c not in flexible
    }
    room = max(12, common.console.width - sum(widths.values()) - 2 * len(columns))  # what is left for the free text
    table = Table(title=f"steb {kind}", show_lines=False, expand=False, box=None, pad_edge=False)
    for column in columns:
        table.add_column(column.replace("_", " "), no_wrap=True, overflow="ellipsis", width=widths.get(column, room))
    for r in rows:
        table.add_row(*(" ".join(str(r.get(c, "")).split()) for c in columns))
    common.console.print(table)
    common.console.print(
        f"{len(rows)} {kind}" + ("; options of each: `steb list encoders -f json`" if kind == "encoders" else ""),
        highlight=False,
    )


def _check_dataset_filters(
    manager: StebPlugins, category: str | None, task: str | None, language: str | None
) -> set[str]:
    """Refuse a filter value no dataset has ("did you mean"); the spellings of ``language`` (ISO 639-1 and -3)."""
    everything = list(manager.datasets())
    check_values(
        "category",
        [category] if category else None,
        {c for s in everything for c in s.categories},
        hint="the categories of `steb list datasets`",
    )
    check_values(
        "task type",
        [task] if task else None,
        {t.name for t in manager.tasks()} | {t for s in everything for t in s.tasks},
        hint="see `steb list tasks`",
    )
    if not language:
        return set()
    wanted = language_codes(language)
    known = {code for s in everything for code in s.languages}
    if not any(language_codes(code) & wanted for code in known):
        check_values("language", [language], known, hint="ISO 639-1 or 639-3 codes, e.g. en or eng")
    return wanted
