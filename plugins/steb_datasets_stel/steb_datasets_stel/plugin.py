"""Hook implementations of steb-datasets-stel: STEL in the STEB construction, STEL's official instances,
STEL-or-Content.

Two ways to use the same release (issue 15), kept as separate dataset names so a result always says which:

- ``STEL_register`` / ``STEL_feature`` (suite ``steb``): the **STEB construction**. STEL's instances are
  taken apart into their sentence pairs (one content in both styles: (A1, A2) and (S1, S2)) as the STEB
  reference reads them (:func:`steb_datasets_stel.stel.stel_reference_items`: [more-style, less-style] by
  the instance ID, repeated pairs dropped) and fed to the shared builder
  :func:`steb_core.order_groups_from_options` like every other parallel corpus (by default the
  reference's construction: the first N = 100 pairs per characteristic, 196 per dimension on the public
  release, every pair of them; ``construction=steb-all-pairs/v1`` for steb's earlier one with Table 15's
  pairing budgets, 392 per dimension and 200 per characteristic); the task reports accuracy and distractor
  accuracy (content independence).
- ``STEL_register_official`` / ``STEL_feature_official`` (suite ``stel``): STEL's **official quadruples**,
  in official order with their IDs, to reproduce the STEL paper. Option ``variant``: ``quadruple``
  (default), ``triple``, ``triple-distractor``; see :mod:`steb_datasets_stel.stel`.
- ``STEL-or-Content_register`` / ``STEL-or-Content_feature`` (suite ``stel``): Wegmann et al. (2022) on
  the same instances. Not part of the ``steb`` suite (STEB's catalogue does not list them).

Options: ``per_class`` (``auto``, an int or ``all``; defaults: the reference's ``auto`` for the STEB
construction, every instance for the official ones), ``construction``, ``sampling`` and ``distractors``
(STEB construction), ``style_types`` (official feature datasets: comma list of STEL ``style type``
values, or ``all`` for every characteristic found; default contraction, nbr_substitution, emotives).

What the public release can give (stated in the listing): the public repository holds 100-instance
*samples* of the formality and simplicity dimensions (about 196 sentence pairs each, not STEB's 392)
and 100 / 100 / 200 instances of contraction / number substitution / emotives (about 100, 100 and 200
sentence pairs, not 200 each). The full dimension files need GYAFC permission (from the STEL authors).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from steb_core import (
    SHARED_BIBTEX,
    DatasetBundle,
    DatasetNotFoundError,
    DatasetSpec,
    DataSource,
    DataValidationError,
    LoadContext,
    construction_task_defaults,
    hookimpl,
    order_groups_from_options,
    parse_budget,
    sample_per_class,
)

from .stel import (
    REFERENCE_GROUPS,
    STEL_FEATURE_DEFAULT_TYPES,
    STEL_REGISTER_TYPES,
    VARIANTS,
    StelInstance,
    load_stel_instances,
    stel_groups,
    stel_reference_items,
)

STEL_CITATION = SHARED_BIBTEX["wegmann2021does"]
#: STEL-or-Content is built on STEL: both works are cited, each once (``steb cite`` keys entries by work)
OC_CITATION = SHARED_BIBTEX["wegmann2022same"] + "\n" + STEL_CITATION
OBTAIN = (
    "git clone https://github.com/nlpsoc/STEL and use its Data/STEL folder (MIT licence). The public repo holds "
    "100-instance samples of the formal/simple dimensions; the full dimension file "
    "(_quad_stel-dimensions_formal-815_complex-815.tsv) needs GYAFC permission and is available from the STEL authors"
)
LAYOUT = (
    "<data-dir>/STEL/ (or stel/, or <data-dir>/<dataset name>/) holding the clone "
    "(Data/STEL/dimensions/quad_stel-dimension_"
    "{formal,simple}-*.tsv and Data/STEL/characteristics/quad_questions_*.tsv), or --data-dir pointing straight at "
    "any folder "
    "that holds these .tsv files (flat or in dimensions/ and characteristics/)"
)
#: The public release, pinned: the commit /work/shared/data/README.md's STEL sample comes from; the clone lands in
#: ``<data-dir>/STEL`` (shared by all six datasets), where the loader finds Data/STEL/**/quad*.tsv.
STEL_COMMIT = "e52f0521df53bd57c9ecafda16e7f2d6966a9993"
STEL_FILES = (
    "Data/STEL/dimensions/quad_stel-dimension_formal-100_sample.tsv",
    "Data/STEL/dimensions/quad_stel-dimension_simple-100_sample.tsv",
    "Data/STEL/characteristics/quad_questions_char_contraction.tsv",
    "Data/STEL/characteristics/quad_questions_char_substitution.tsv",
    "Data/STEL/characteristics/quad_questions_char_emotives.tsv",
    "Data/STEL/characteristics/quad_questions_em-subj-pronoun_100.tsv",
    "LICENSE",
)
STEL_GIT = DataSource(
    kind="git",
    url="https://github.com/nlpsoc/STEL",
    revision=STEL_COMMIT,
    files=STEL_FILES,
    target="STEL",
    licence="MIT",
)
#: The full formality/simplicity dimension file is not public (its formal side derives from GYAFC). Optional: without it
#: the register datasets draw their 392 pairings per dimension from the public 100-instance samples (~196 sentence
#: pairs each) instead of the paper's 815 instances per dimension.
STEL_FULL_DIMENSIONS = DataSource(
    kind="manual",
    url="https://github.com/nlpsoc/STEL",
    target="STEL",
    accept=True,
    licence="GYAFC terms (research only, on request; Yahoo! Answers L6)",
    instructions=(
        "optional, for the paper's full population (815 instances per dimension instead of the public "
        "100-instance samples): obtain GYAFC access first (e-mail gyafc.dataset@gmail.com, see "
        "https://github.com/raosudha89/GYAFC-corpus), then ask the STEL authors (Anna Wegmann, a.m.wegmann@uu.nl, per "
        "the "
        "STEL paper) for _quad_stel-dimensions_formal-815_complex-815.tsv and save it as "
        "<data-dir>/STEL/Data/STEL/dimensions/_quad_stel-dimensions_formal-815_complex-815.tsv; the public samples "
        "beside "
        "it are then read once (their IDs repeat inside the full file)."
    ),
)
REGISTER_BUDGET = 392
FEATURE_BUDGET = 200


def _style_types(kind: str, options: Mapping[str, Any]) -> tuple[str, ...] | None:
    """Which STEL ``style type`` values a dataset reads; None means every characteristic (not dimension)."""
    if kind == "register":
        return STEL_REGISTER_TYPES
    value = options.get("style_types")
    if value is None:
        return STEL_FEATURE_DEFAULT_TYPES
    if isinstance(value, str):
        if value.strip().lower() == "all":
            return None
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return tuple(value)


def stel_root(ctx: LoadContext) -> Path:
    """The STEL release folder: ``ROOT/<dataset>``, ``ROOT/STEL`` (any case), or ``ROOT`` itself when ``--data-dir``
    points straight at a folder of STEL TSVs (issue 16: ``ctx.data_dir`` is then ``ROOT/<dataset>``, absent)."""
    data_dir = ctx.data_dir
    if data_dir is not None and not data_dir.is_dir() and data_dir.parent.is_dir():
        root = data_dir.parent
        shallow = [
            root / sub
            for sub in ("", "dimensions", "characteristics", "Data/STEL/dimensions", "Data/STEL/characteristics")
        ]
        if not any(p.is_dir() and p.name.lower() == "stel" for p in root.iterdir()) and any(
            f.name.lstrip("_").startswith("quad") for d in shallow if d.is_dir() for f in d.glob("*.tsv")
        ):
            return root
    return ctx.release_dir("STEL", OBTAIN, LAYOUT)


def _instances(ctx: LoadContext, kind: str) -> tuple[list[StelInstance], dict[str, Any]]:
    root = stel_root(ctx)
    types = _style_types(kind, ctx.options)
    instances, info = load_stel_instances(root, types)
    if types is None:  # "all": every characteristic, never the register dimensions
        instances = [i for i in instances if i.style_type not in STEL_REGISTER_TYPES]
    if not instances:
        raise DatasetNotFoundError(
            f"dataset '{ctx.dataset}': no STEL instances with style type "
            f"{', '.join(types or ['<any characteristic>'])} "
            f"under {root}. Obtain them: {OBTAIN}. Expected layout: {LAYOUT}"
        )
    found = sorted({i.style_type for i in instances})
    info.update({"root": str(root), "style_types": found, "missing_style_types": sorted(set(types or ()) - set(found))})
    return instances, info


def make_stel_loader(kind: str, variant: str | None) -> Callable[[LoadContext], DatasetBundle]:
    """A loader of STEL's official instances for ``kind`` (register/feature); ``variant`` None lets the user pick."""

    def load(ctx: LoadContext) -> DatasetBundle:
        chosen = variant or str(ctx.options.get("variant", "quadruple"))
        if chosen not in VARIANTS:
            raise ValueError(
                f"dataset '{ctx.dataset}': unknown variant {chosen!r}; choose one of {', '.join(VARIANTS)}"
            )
        instances, info = _instances(ctx, kind)
        budget = parse_budget(ctx.options, None)
        if isinstance(budget, str):  # 'auto': the reference's rule is for parallel corpora, not STEL
            raise DataValidationError(
                f"option per_class={budget!r}", field="per_class", expected="a positive integer or 'all'"
            )
        kept = sample_per_class(
            instances, key=lambda inst: inst.style_type, per_class=budget, seed=ctx.seed, salt=ctx.dataset
        )
        groups = stel_groups(kept, chosen)
        info.update(
            {
                "stel_construction": "STEL official instances",
                "variant": chosen,
                "per_class": budget,
                "seed": ctx.seed,
                "instances_per_style_type": {t: sum(1 for i in kept if i.style_type == t) for t in info["style_types"]},
                "instances_with_votes": sum(1 for i in kept if i.votes is not None),
            }
        )
        return DatasetBundle(order_groups=groups, info=info)

    return load


def make_steb_loader(kind: str) -> Callable[[LoadContext], DatasetBundle]:
    """A loader of the STEB construction for ``kind``: STEL's sentence pairs as the STEB reference reads them
    (:func:`steb_datasets_stel.stel.stel_reference_items`) through the shared builder
    (:func:`steb_core.order_groups_from_options`: by default the reference's first N pairs per style type,
    N = max(25, min(smallest, 200)) -- 100 per characteristic, 196 per dimension on the public release -- every
    pair of them, plain + two distractor groups each)."""

    def load(ctx: LoadContext) -> DatasetBundle:
        root = stel_root(ctx)
        items, info = stel_reference_items(root, kind)
        if not items:
            raise DatasetNotFoundError(
                f"dataset '{ctx.dataset}': no STEL sentence pairs of "
                f"{sorted(REFERENCE_GROUPS[kind])} under {root}. Obtain them: {OBTAIN}. "
                f"Expected layout: {LAYOUT}"
            )
        budget = REGISTER_BUDGET if kind == "register" else FEATURE_BUDGET
        groups, built = order_groups_from_options(
            items, ctx.options, seed=ctx.seed, salt=ctx.dataset, legacy_budget=budget
        )
        if not groups:
            raise DatasetNotFoundError(
                f"dataset '{ctx.dataset}': every style type under {root} has fewer sentence "
                f"pairs than N ({built.get('per_class')}) or fewer than 2; pass "
                "--dataset-option per_class=all or a number"
            )
        # the text is recorded in every result's dataset_info: it keeps the module's old name (issue 40)
        info.update(
            {
                "root": str(root),
                "stel_construction": "STEB: STEL sentence pairs as the STEB reference reads them (steb/loaders/"
                "stel.py @4defec1c), through steb_core.parallel.order_groups_from_options",
                **built,
            }
        )
        return DatasetBundle(
            order_groups=groups, info=info, task_defaults=construction_task_defaults(built["construction"])
        )

    return load


#: STEL's own instances are scored by STEL's rule (the STEB-construction ones by their construction's)
STEL_TASK_DEFAULTS = {"order_alignment": {"scoring": "stel"}}
#: the options of the STEB-construction datasets (:func:`steb_core.order_groups_from_options`)
STEB_OPTIONS = {
    "per_class": "auto, int or 'all' (sentence pairs per style type)",
    "construction": "steb-reference/v1 or steb-all-pairs/v1",
    "sampling": "first or random",
    "distractors": "true/false",
}
#: STEB catalogue (Table 15) rows of the STEB-construction datasets.
EXPECTED = {
    "register": {"order_alignment": {"classes": 2, "per_class": REGISTER_BUDGET, "texts": 2 * REGISTER_BUDGET}},
    "feature": {"order_alignment": {"classes": 3, "per_class": FEATURE_BUDGET, "texts": 3 * FEATURE_BUDGET}},
}
#: What the public release can give, stated in the listing (issue 16).
PUBLIC_SIZE = {
    "register": (
        "the public repository holds 100-instance samples per dimension, 196 (formality) and 197 "
        "(simplicity) distinct sentence pairs (the paper's full 815-instance dimension files need GYAFC "
        "permission)"
    ),
    "feature": (
        "the public files hold 100 (contraction), 100 (nbr_substitution) and 200 (emotives) instances -- "
        "101/100/200 distinct sentence pairs, not 200 instances per characteristic"
    ),
}


def _spec(
    name: str,
    kind: str,
    description: str,
    *,
    loader: Callable[[LoadContext], DatasetBundle],
    suites: tuple[str, ...],
    content_independence: bool,
    size: str,
    expected: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    task_defaults: dict[str, dict[str, Any]] | None = None,
) -> DatasetSpec:
    register = kind == "register"
    return DatasetSpec(
        name=name,
        description=description,
        tasks=("order_alignment",),
        loader=loader,
        languages=("en",),
        categories=("register",) if register else ("linguistic-feature",),
        content_independence=content_independence,
        suites=suites,
        citation=OC_CITATION if name.startswith("STEL-or-Content") else STEL_CITATION,
        license="MIT (STEL release); the formality dimension derives from GYAFC (Yahoo L6 licence)",
        obtain=OBTAIN,
        homepage="https://github.com/nlpsoc/STEL",
        size=size,
        expected=expected or {},
        sources=(STEL_GIT, STEL_FULL_DIMENSIONS) if register else (STEL_GIT,),
        task_defaults=STEL_TASK_DEFAULTS if task_defaults is None else task_defaults,
        extra={
            "layout": LAYOUT,
            "options": {
                "per_class": "int or 'all'",
                **(options or {}),
                **({} if register or "construction" in (options or {}) else {"style_types": "comma list or 'all'"}),
            },
        },
    )


def stel_specs() -> list[DatasetSpec]:
    feature_types = ", ".join(STEL_FEATURE_DEFAULT_TYPES)
    return [
        _spec(
            "STEL_register",
            "register",
            "STEL formality and simplicity in the STEB construction: STEL's sentence pairs (one content, both styles) "
            "grouped by the shared order-alignment builder, with a same-content distractor.",
            loader=make_steb_loader("register"),
            suites=("steb",),
            content_independence=True,
            size=f"STEB reference: the first N sentence pairs per dimension (N = 196 on the public release), every "
            f"pair of them; Table 15: 2 dimensions x {REGISTER_BUDGET}; {PUBLIC_SIZE['register']}",
            expected=EXPECTED["register"],
            options=STEB_OPTIONS,
            task_defaults=construction_task_defaults(),
        ),
        _spec(
            "STEL_feature",
            "feature",
            f"STEL characteristics ({feature_types}) in the STEB construction: sentence pairs through the shared "
            "builder.",
            loader=make_steb_loader("feature"),
            suites=("steb",),
            content_independence=True,
            size=f"STEB reference: the first N sentence pairs per characteristic (N = 100 on the public release), "
            f"every pair of them; Table 15: 3 characteristics x {FEATURE_BUDGET}; {PUBLIC_SIZE['feature']}",
            expected=EXPECTED["feature"],
            options=STEB_OPTIONS,
            task_defaults=construction_task_defaults(),
        ),
        _spec(
            "STEL_register_official",
            "register",
            "STEL's official formal/informal and simple/complex quadruples (official order and IDs), to reproduce the "
            "STEL "
            "paper. Option variant=triple|triple-distractor.",
            loader=make_stel_loader("register", None),
            suites=("stel",),
            content_independence=False,
            size="every instance found (public repository: 100-instance samples of formality and simplicity)",
            options={"variant": VARIANTS},
        ),
        _spec(
            "STEL_feature_official",
            "feature",
            f"STEL's official characteristic quadruples ({feature_types}; option style_types adds em-subj-pronoun "
            "etc.), "
            "official order and IDs.",
            loader=make_stel_loader("feature", None),
            suites=("stel",),
            content_independence=False,
            size="every instance found (public files: 100 contraction, 100 nbr_substitution, 200 emotives)",
            options={"variant": VARIANTS},
        ),
        _spec(
            "STEL-or-Content_register",
            "register",
            "STEL-or-Content on the formality/simplicity instances: anchor A1 must be closer to the same-style "
            "other-content alternative than to A2 (same content, other style). Read distractor_accuracy.",
            loader=make_stel_loader("register", "or-content"),
            suites=("stel",),
            content_independence=True,
            size="every instance found (public repository: 100-instance samples of formality and simplicity)",
        ),
        _spec(
            "STEL-or-Content_feature",
            "feature",
            f"STEL-or-Content on the characteristic instances ({feature_types}). Read distractor_accuracy.",
            loader=make_stel_loader("feature", "or-content"),
            suites=("stel",),
            content_independence=True,
            size="every instance found (public files: 100 contraction, 100 nbr_substitution, 200 emotives)",
        ),
    ]


@hookimpl
def register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    for spec in stel_specs():
        register(spec)
