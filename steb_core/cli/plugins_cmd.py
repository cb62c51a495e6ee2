"""``steb plugins``: which plugins loaded, from where, what each registered, which failed."""

from __future__ import annotations

from rich.table import Table

from .._plugins import KINDS, get_manager
from . import common


@common.app.command("plugins")
def plugins_cmd(plugin: list[str] | None = common.PluginOpt) -> None:
    """Show which plugins were loaded, from where, what each registered, and which failed (with the error)."""
    manager = get_manager(plugin or ())
    counts: dict[str, dict[str, int]] = {}
    for kind in KINDS:
        registry = manager.registry(kind)
        for name in registry.names():
            counts.setdefault(registry.provider(name), {}).setdefault(kind, 0)
            counts[registry.provider(name)][kind] += 1
    table = Table(title="steb plugins")
    for col in ("plugin", "source", "version", "location", "registers"):
        table.add_column(col, overflow="fold")
    for info in manager.loaded:
        regs = ", ".join(f"{n} {k}{'s' if n != 1 else ''}" for k, n in counts.get(info.name, {}).items()) or "-"
        table.add_row(info.name, info.source, info.version or "", info.location, regs)
    common.console.print(table)
    if manager.failures:
        failed = Table(title="failed plugins", style="red")
        for col in ("plugin", "source", "error"):
            failed.add_column(col, overflow="fold")
        for f in manager.failures:
            failed.add_row(f.name, f.source, f.error)
        common.console.print(failed)
    else:
        common.console.print("no plugin failed to load")
    if manager.disabled:
        common.console.print(
            f"switched off: {', '.join(sorted(manager.disabled))} (-p no:NAME or $STEB_DISABLE_PLUGINS)",
            highlight=False,
        )
