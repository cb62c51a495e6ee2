"""Corpus of Diverse Styles (Krishna et al., 2020, STRAP): one dataset, three STEB tasks.

STEB uses CDS for clustering and all-to-all pairs and for order alignment (each sentence with its
style-stripping STRAP paraphrase as one sequence, via the shared builder); Table 15 lists 11 x 200 and
11 x 400, the reference's construction takes the first N sequences per style (:func:`load_cds`).

Releases read (the first found wins):

1. the Hugging Face copy ``billray110/corpus-of-diverse-styles`` (one CSV, ``development.csv``, split
   ``train``; columns ``text``, ``label`` (the style) and ``paraphrase``), read offline through
   :func:`steb_core.load_hub_split` from a ``save_to_disk`` folder, the local hub cache, or the files
   downloaded into ``<data-dir>/corpus-of-diverse-styles/``;
2. the STRAP release folder (Google Drive ``cds``): ``{split}.txt``, ``{split}.label`` and the paraphrases
   decoded to text with STRAP's ``datasets/bpe2text.py`` as ``{split}.paraphrase.txt`` (line-aligned).
"""

from __future__ import annotations

from typing import Any

from steb_core import (
    AUTO_PER_CLASS,
    HUB_DATA_SUFFIXES,
    REFERENCE_N_KEY,
    DatasetBundle,
    DatasetNotFoundError,
    DataValidationError,
    LabelledText,
    LoadContext,
    ParallelItem,
    construction_task_defaults,
    find_hub_location,
    load_hub_split,
    order_groups_from_options,
    parse_budget,
    sample_classes,
    sampling_mode,
)

from .aligned import read_aligned

__all__ = ["HUB_ID", "OBTAIN", "LAYOUT", "load_cds", "CLUSTER_BUDGET", "ORDER_BUDGET"]

HUB_ID = "billray110/corpus-of-diverse-styles"
CLUSTER_BUDGET = 200  # STEB Table 15: clustering / all-to-all, 11 x 200
ORDER_BUDGET = 400  # STEB Table 15: order alignment, 11 x 400
COLUMNS = ("text", "label", "paraphrase")
OBTAIN = (
    f"the Hugging Face copy of CDS, hub id {HUB_ID} (`huggingface-cli download {HUB_ID} --repo-type dataset "
    "--local-dir "
    "DATA_DIR/corpus-of-diverse-styles`, or a datasets.save_to_disk folder, or the local hub cache); or the STRAP "
    "release "
    "(https://github.com/martiansideofthemoon/style-transfer-paraphrase, Google Drive folder 'cds') with the "
    "{split}.paraphrase_250_input0.bpe paraphrases decoded by its datasets/bpe2text.py to {split}.paraphrase.txt. The "
    "repository's data_samples/ hold 1,000 sentences per style without paraphrases and are not enough"
)
LAYOUT = (
    "<data-dir>/corpus-of-diverse-styles/ holding development.csv (columns text, label, paraphrase; or the hub's "
    "parquet "
    "files or a save_to_disk folder), or STRAP's {split}.txt + {split}.label + {split}.paraphrase.txt"
)


def _rows_from_hub(ctx: LoadContext) -> tuple[list[tuple[str, str, str, str]], dict[str, Any]] | None:
    """``(record, text, label, paraphrase)`` rows of the hub release, or None when no hub release is here."""
    location = find_hub_location(ctx.data_dir, HUB_ID)
    if location is None:
        return None
    hub_like = (
        any(p.suffix.lower() in HUB_DATA_SUFFIXES for p in location.rglob("*") if p.is_file())
        or (location / "state.json").is_file()
        or (location / "dataset_dict.json").is_file()
    )
    if not hub_like:
        return None
    # one sentence per row: a value spanning lines is a quote that swallowed the rows after it (issue 41)
    rows = load_hub_split(
        location, HUB_ID, split=str(ctx.options.get("split", "train")), dataset=ctx.dataset, line_breaks="none"
    )
    out = []
    for i, row in enumerate(rows, start=1):
        missing = [c for c in COLUMNS if c not in row]
        if missing:
            raise DataValidationError(
                f"has no column(s) {missing}; it has {sorted(row)}",
                path=location,
                record=f"row {i}",
                field=missing[0],
                expected=f"columns {list(COLUMNS)}",
            )
        for c in COLUMNS:
            if not isinstance(row[c], str) or not row[c].strip():
                raise DataValidationError(
                    "is empty or not text", path=location, record=f"row {i}", field=c, expected="a non-empty text"
                )
        out.append((f"row {i}", row["text"], row["label"].strip(), row["paraphrase"]))
    return out, {"release": f"hub {HUB_ID}", "location": str(location)}


def _rows_from_strap(ctx: LoadContext) -> tuple[list[tuple[str, str, str, str]], dict[str, Any]]:
    root = ctx.require_dir(OBTAIN, LAYOUT)
    split = str(ctx.options.get("split", "test"))
    files = {
        role: root / f"{split}.{ext}"
        for role, ext in (("text", "txt"), ("label", "label"), ("paraphrase", "paraphrase.txt"))
    }
    absent = [str(p) for p in files.values() if not p.is_file()]
    if absent:
        raise DatasetNotFoundError(
            f"dataset '{ctx.dataset}': no hub release and no STRAP files ({', '.join(absent)}). "
            f"Obtain it: {OBTAIN}. Expected layout: {LAYOUT}"
        )
    rows = read_aligned(files)
    return [
        (f"{split} line {i}", r["text"], r["label"].strip(), r["paraphrase"]) for i, r in enumerate(rows, start=1)
    ], {"release": "STRAP folder", "split": split, "location": str(root)}


def load_cds(ctx: LoadContext) -> DatasetBundle:
    """Labelled texts (clustering, all-to-all) and order groups (order alignment) from one read of the release, as
    the STEB reference builds them (``steb/steb_datasets/corpus-of-diverse-styles/loader.py`` @2b98f55
    ``corpus_of_diverse_styles_record_handler``; config: hub ``billray110/corpus-of-diverse-styles``, split train):
    one sequence per row, [text, paraphrase], label = the style, rows in release order. Clustering and all-to-all
    see the first text of each of the first N sequences per style, order alignment every pair of the same N
    sequences (N = max(25, min(smallest style, 200)); :func:`steb_core.sample_classes`).

    Options: ``per_class`` (``auto``, ``all`` or an int; both tasks), ``order_per_class`` (order alignment only),
    ``sampling``, ``construction`` (``steb-all-pairs/v1`` with Table 15's 400 pairings per style) and
    ``distractors``. Where steb is stricter than the reference: a row without a paraphrase is an error (the
    reference would make a one-text sequence of it; the release has none)."""
    found = _rows_from_hub(ctx) or _rows_from_strap(ctx)
    rows, info = found
    texts = [LabelledText(text, label, id=record) for record, text, label, _ in rows]
    per_class = parse_budget(ctx.options, AUTO_PER_CLASS)
    labelled, sampled = sample_classes(
        texts, lambda t: t.label, per_class, sampling=sampling_mode(ctx.options), seed=ctx.seed, salt=ctx.dataset
    )
    items = [
        ParallelItem((text, para), id=record, style_type=label, source=info["location"])
        for record, text, label, para in rows
    ]
    order_options = dict(ctx.options)
    if "order_per_class" in order_options:
        order_options["per_class"] = order_options["order_per_class"]
    groups, built = order_groups_from_options(
        items, order_options, seed=ctx.seed, salt=ctx.dataset, legacy_budget=ORDER_BUDGET
    )
    styles = sorted({label for _, _, label, _ in rows})
    # one N per task: clustering and all-to-all take the labelled sample's, order alignment its own (order_per_class)
    per_task = {
        task: n
        for task, n in (
            ("clustering", sampled.get(REFERENCE_N_KEY)),
            ("pair_all", sampled.get(REFERENCE_N_KEY)),
            ("order_alignment", built.get(REFERENCE_N_KEY)),
        )
        if n is not None
    }
    return DatasetBundle(
        labelled_texts=labelled,
        order_groups=groups,
        info={
            **info,
            **built,
            "styles": styles,
            "rows": len(rows),
            "labelled_sampling": sampled,
            "axis": ["text", "paraphrase"],
            REFERENCE_N_KEY: per_task,
        },
        task_defaults=construction_task_defaults(built["construction"]),  # the rule of the groups built
    )
