"""Hook implementations of steb-datasets-stel: STEL_register, STEL_feature and their STEL-or-Content forms.

Loader options (``LoadContext.options``):

- ``variant``: ``quadruple`` (default for STEL_*), ``triple``, ``triple-distractor`` or ``or-content``
  (fixed for STEL-or-Content_*); see :mod:`steb_datasets_stel.stel`.
- ``per_class``: instances kept per style type (seeded; ``all`` for no cap). Defaults are STEB's
  budgets: 392 per dimension for register, 200 per characteristic for features.
- ``style_types`` (feature datasets): comma-separated STEL ``style type`` values, or ``all`` for every
  characteristic found (e.g. adds ``em-subj-pronoun``); default contraction, nbr_substitution, emotives.

Why STEL_register/STEL_feature default to the quadruple *without* a distractor: a quadruple's anchors
already are the two styles of their content, so no text of that content in an unrelated style exists to
add to set B (adding A2 would let anchor A2 match itself). The content-independence measurement on the
same instances is the STEL-or-Content_* datasets (one anchor, distractor A2), which carry
``content_independence=True``; ``variant=triple-distractor`` gives both numbers from one dataset.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from steb_core import DatasetBundle, DatasetNotFoundError, DatasetSpec, LoadContext, hookimpl, sample_per_class

from steb_core.parallel import parse_budget
from .stel import STEL_FEATURE_DEFAULT_TYPES, STEL_REGISTER_TYPES, VARIANTS, load_stel_instances, stel_groups

STEL_CITATION = (
    "Anna Wegmann and Dong Nguyen. 2021. Does It Capture STEL? A Modular, Similarity-based Linguistic Style "
    "Evaluation Framework. In Proceedings of EMNLP 2021, pages 7109-7130."
)
OC_CITATION = (
    "Anna Wegmann, Marijn Schraagen and Dong Nguyen. 2022. Same Author or Just Same Topic? Towards "
    "Content-Independent Style Representations. In Proceedings of RepL4NLP 2022, pages 249-268. "
    "(STEL-or-Content.) " + STEL_CITATION
)
OBTAIN = (
    "git clone https://github.com/nlpsoc/STEL and use its Data/STEL folder (MIT licence). The public repo holds "
    "100-instance samples of the formal/simple dimensions; the full dimension file "
    "(_quad_stel-dimensions_formal-815_complex-815.tsv) needs GYAFC permission and is available from the STEL authors"
)
LAYOUT = (
    "<data-dir>/STEL/ (or <data-dir>/<dataset name>/) holding the release's dimensions/quad_stel-dimension_{formal,simple}-*.tsv and "
    "characteristics/quad_questions_*.tsv (a flat folder of these .tsv files works too)"
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


def make_stel_loader(kind: str, variant: str | None) -> Callable[[LoadContext], DatasetBundle]:
    """A loader for STEL ``kind`` (register/feature); ``variant`` None lets the user pick via options."""

    def load(ctx: LoadContext) -> DatasetBundle:
        chosen = variant or str(ctx.options.get("variant", "quadruple"))
        if chosen not in VARIANTS:
            raise ValueError(f"dataset '{ctx.dataset}': unknown variant {chosen!r}; choose one of {', '.join(VARIANTS)}")
        root = ctx.release_dir("STEL", OBTAIN, LAYOUT)
        types = _style_types(kind, ctx.options)
        instances, info = load_stel_instances(root, types)
        if types is None:  # "all": every characteristic, never the register dimensions
            instances = [i for i in instances if i.style_type not in STEL_REGISTER_TYPES]
        if not instances:
            raise DatasetNotFoundError(
                f"dataset '{ctx.dataset}': no STEL instances with style type {', '.join(types or ['<any characteristic>'])} "
                f"under {root}. Obtain them: {OBTAIN}. Expected layout: {LAYOUT}"
            )
        budget = parse_budget(ctx.options, REGISTER_BUDGET if kind == "register" else FEATURE_BUDGET)
        kept = sample_per_class(instances, key=lambda inst: inst.style_type, per_class=budget, seed=ctx.seed, salt=ctx.dataset)
        groups = stel_groups(kept, chosen)
        found = sorted({i.style_type for i in instances})
        info.update(
            {
                "variant": chosen,
                "per_class": budget,
                "seed": ctx.seed,
                "style_types": found,
                "missing_style_types": sorted(set(types or ()) - set(found)),
                "instances_per_style_type": {t: sum(1 for i in kept if i.style_type == t) for t in found},
                "instances_with_votes": sum(1 for i in kept if i.votes is not None),
            }
        )
        return DatasetBundle(order_groups=groups, info=info)

    return load


def _spec(name: str, kind: str, variant: str | None, description: str, content_independence: bool) -> DatasetSpec:
    register = kind == "register"
    return DatasetSpec(
        name=name,
        description=description,
        tasks=("order_alignment",),
        loader=make_stel_loader(kind, variant),
        languages=("en",),
        categories=("register",) if register else ("linguistic-feature",),
        content_independence=content_independence,
        suites=("steb", "stel"),
        citation=OC_CITATION if name.startswith("STEL-or-Content") else STEL_CITATION,
        license="MIT (STEL release); the formality dimension derives from GYAFC (Yahoo L6 licence)",
        obtain=OBTAIN,
        homepage="https://github.com/nlpsoc/STEL",
        size=(f"{REGISTER_BUDGET} instances per dimension (formality, simplicity)" if register
              else f"{FEATURE_BUDGET} instances per characteristic ({', '.join(STEL_FEATURE_DEFAULT_TYPES)})"),
        extra={"layout": LAYOUT, "options": {"variant": VARIANTS, "per_class": "int or 'all'",
                                             **({} if register else {"style_types": "comma list or 'all'"})}},
    )


def stel_specs() -> list[DatasetSpec]:
    return [
        _spec("STEL_register", "register", None,
              "STEL formal/informal and simple/complex quadruples (official order and IDs): align A1-A2 with S1/S2. "
              "Option variant=triple|triple-distractor|or-content.", False),
        _spec("STEL_feature", "feature", None,
              "STEL characteristic quadruples (contraction, number substitution, emotives; option style_types adds "
              "em-subj-pronoun etc.), official order and IDs.", False),
        _spec("STEL-or-Content_register", "register", "or-content",
              "STEL-or-Content on the formality/simplicity instances: anchor A1 must be closer to the same-style "
              "other-content alternative than to A2 (same content, other style). Read distractor_accuracy.", True),
        _spec("STEL-or-Content_feature", "feature", "or-content",
              "STEL-or-Content on the characteristic instances (contraction, number substitution, emotives). "
              "Read distractor_accuracy.", True),
    ]


@hookimpl
def register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    for spec in stel_specs():
        register(spec)
