"""``steb models get``: fetch the weights of a named configuration (or any hub model) into the Hugging Face cache.

A download happens only here and under ``steb run --download`` (which calls :func:`ensure_weights`):
everything else in steb stays offline. The weights land in the ordinary Hugging Face cache
(``HF_HUB_CACHE`` / ``HF_HOME``), at the catalogue's pinned revision when it has one, so the encoders
find them exactly as they find weights a user fetched with ``hf download``. ``HF_ENDPOINT`` picks a
mirror (the tests point it at a local server).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from .._errors import StebError
from .._plugins import StebPlugins
from . import common

__all__ = ["models_app", "WeightsTarget", "weights_target", "ensure_weights"]

models_app = typer.Typer(
    help="Fetch model weights into the Hugging Face cache (the only place steb downloads models).", no_args_is_help=True
)
common.app.add_typer(models_app, name="models")


@dataclass(frozen=True)
class WeightsTarget:
    """What to fetch for one encoder name: the hub repository and revision ("" = main), and who asked."""

    name: str  # the encoder name or hub id the user gave
    repo_id: str
    revision: str
    pinned: bool  # the revision comes from the catalogue (or --revision), not the hub's main


def _is_path(text: str) -> bool:
    return text.startswith((".", "/", "~")) or "\\" in text or Path(text).expanduser().exists()


def weights_target(
    manager: StebPlugins,
    name: str,
    options: Mapping[str, Any] | None = None,
    revision: str | None = None,
    *,
    strict: bool = True,
) -> WeightsTarget | None:
    """The weights encoder ``name`` (with its ``-O`` options) reads from the hub, or None when it reads none.

    A registered configuration gives its ``hub_id`` and pinned ``revision``; ``model=HUB_ID`` (a generic
    family) and ``revision=R`` options override them; an unregistered name that looks like a hub id is
    that id. ``strict``: an unknown name that is neither is an error with "did you mean" (else None).
    """
    from .._weights import HUB_REPO_ID

    options = dict(options or {})
    wanted_rev = revision if revision is not None else options.get("revision")
    registry = manager.encoders()
    spec = registry.get(name) if (name in registry or name in registry.conflicts) else None
    model = options.get("model")
    if isinstance(model, str) and model:
        if _is_path(model) or not HUB_REPO_ID.match(model):
            return None  # a local folder: nothing to fetch
        return WeightsTarget(name, model, str(wanted_rev or ""), bool(wanted_rev))
    if spec is not None:
        if not spec.hub_id:
            if strict:
                why = spec.availability().why or "it reads no weights from the Hugging Face hub"
                raise StebError(f"encoder '{name}' has no hub weights to fetch ({why})")
            return None
        rev = str(wanted_rev or spec.revision or "")
        return WeightsTarget(name, spec.hub_id, rev, bool(rev))
    if "/" in name and HUB_REPO_ID.match(name) and not _is_path(name):
        return WeightsTarget(name, name, str(wanted_rev or ""), bool(wanted_rev))
    if strict:
        from .._choices import check_values

        check_values(
            "encoder",
            [name],
            [n for n in registry.names() if registry.get(n).hub_id],
            hint="encoders with hub weights: `steb list encoders`; or give a hub id OWNER/NAME",
        )
    return None


def ensure_weights(target: WeightsTarget, *, force: bool = False, progress: bool = True) -> tuple[str, bool]:
    """Fetch ``target`` unless its weights are already in the cache; (commit, downloaded?)."""
    from .._weights import cached_weights, download_weights

    here = None if force else cached_weights(target.repo_id, target.revision)
    if here is not None:
        return here.name, False
    fetched = download_weights(target.repo_id, target.revision, progress=progress)
    if cached_weights(target.repo_id, fetched.commit) is None:
        raise StebError(
            f"the download of '{target.repo_id}' finished but {fetched.path} holds no config and weight files "
            f"(is it a model repository?)"
        )
    return fetched.commit, True


@models_app.command("get")
def models_get(
    names: list[str] = typer.Argument(..., help="Encoder names (see `steb list encoders`) or hub ids OWNER/NAME."),
    revision: str | None = typer.Option(
        None, "--revision", "-r", help="Branch, tag or commit (default: the catalogue's pinned revision, else main)."
    ),
    force: bool = typer.Option(False, "--force", help="Download again even when the weights are in the cache."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show download progress bars."),
    plugin: list[str] | None = common.PluginOpt,
) -> None:
    """Download the weights of NAMES into the Hugging Face cache (HF_HUB_CACHE / HF_HOME; HF_ENDPOINT picks a mirror).

    A named configuration is fetched at its pinned revision; one without a pin at the hub's main, and
    the commit it resolved to is printed (results record it too). Nothing else in steb downloads.
    """
    from .._weights import hub_cache_dir

    if not progress:
        common.quiet_third_party_progress()
    manager = common.manager(plugin)
    targets = [weights_target(manager, name, revision=revision) for name in dict.fromkeys(names)]
    for target in targets:
        assert target is not None  # strict lookups raise instead
        commit, downloaded = ensure_weights(target, force=force, progress=progress)
        what = f"{target.name} ({target.repo_id})" if target.name != target.repo_id else target.repo_id
        if not downloaded:
            common.console.print(f"{what}: already in the cache at commit {commit}", highlight=False)
            continue
        pin = (
            f"pinned revision {target.revision}"
            if target.pinned
            else f"no pinned revision: the hub's main resolved to commit {commit} (pass --revision {commit} to fetch "
            "the same again)"
        )
        common.console.print(f"{what}: fetched commit {commit} into {hub_cache_dir()} ({pin})", highlight=False)
