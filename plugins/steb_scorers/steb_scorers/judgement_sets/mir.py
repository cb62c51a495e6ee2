"""Loader for Mir et al. (2019)'s human evaluations (github.com/passeul/style-transfer-model-evaluation).

The release, as cloned:
- ``data/sentiment.test.0`` and ``sentiment.test.1``: the 122 negative and 122 positive Yelp test sources, one per
  line (the authors' ``load_test_set`` concatenates them in that order: 244 sources);
- ``transfer_model_outputs/MODEL/PARAM_VALUE/sentiment.test.{0,1}.tsf``: each system's outputs, line-aligned with
  the sources (12 systems: ARAE lambda 1/5/10, CAAE rho 0.01/0.1/0.5/1/5, DAR gamma 0.1/1/15/500);
- ``evaluations/human/{content_preservation,style_transfer_intensity}/MODEL_PARAM_VALUE.npy``: one float64 array of
  244 mean ratings per system (1-5, the mean of three Mechanical Turk workers: the values are multiples of 1/3). Only
  the means are released, so each row has one rating slot (``mean``) and no inter-annotator agreement can be
  computed (alpha is reported as missing). The naturalness ratings (``.npz`` of Python objects) are not read: they
  would need unpickling.

Rows built here (the authors' filtered version used by Pauli et al., "Mir84", is not public): one per (system,
source) pair with both ratings: 12 x 244 = 2928 rows; system = ``MODEL_PARAM_VALUE``; subset = the transfer
direction (negative-to-positive for ``test.0``, positive-to-negative for ``test.1``); aspects content
(content_preservation) and style (style_transfer_intensity); no references. Arrays are read with
``allow_pickle=False`` and a size cap.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from steb_core import (
    AspectRatings,
    DataValidationError,
    JudgementTable,
    RatingScale,
    RowOrigin,
    judgement_table,
    read_lines,
    release_file,
)

__all__ = ["load_mir", "SYSTEMS", "DIRECTIONS", "ASPECT_FOLDERS"]

SCALE = RatingScale(1, 5, "ordinal")
#: model -> (parameter name, values as the file names write them)
SYSTEMS = {
    "ARAE": ("lambda", ("1", "5", "10")),
    "CAAE": ("rho", ("0_01", "0_1", "0_5", "1", "5")),
    "DAR": ("gamma", ("0_1", "1", "15", "500")),
}
DIRECTIONS = {"0": "negative-to-positive", "1": "positive-to-negative"}
ASPECT_FOLDERS = {"content": "content_preservation", "style": "style_transfer_intensity"}
MAX_NPY_BYTES = 16 * 2**20


def _root(path: Path) -> Path:
    path = Path(path)
    return path.parent if path.name == "evaluations" else path


def _ratings(file: Path, expected: int) -> np.ndarray:
    file = release_file(file)
    if not file.is_file():
        raise DataValidationError("file does not exist", path=file, expected="the release's human evaluation .npy")
    if file.stat().st_size > MAX_NPY_BYTES:
        raise DataValidationError(f"is {file.stat().st_size} bytes", path=file, expected=f"at most {MAX_NPY_BYTES}")
    try:
        values = np.load(file, allow_pickle=False)
    except ValueError as exc:
        raise DataValidationError(f"cannot be read without unpickling ({exc})", path=file) from None
    if values.ndim != 1 or values.shape[0] != expected or values.dtype.kind != "f":
        raise DataValidationError(
            f"holds {values.dtype} of shape {values.shape}", path=file, expected=f"{expected} float ratings"
        )
    return np.asarray(values, dtype=np.float64)


def load_mir(path: Path) -> JudgementTable:
    """Read the clone (its root, or its ``evaluations`` folder) into a judgement table (module docstring)."""
    root = _root(path)
    sources: list[str] = []
    counts = {}
    for d in DIRECTIONS:
        lines = read_lines(root / "data" / f"sentiment.test.{d}", keep_empty=True)
        counts[d] = len(lines)
        sources.extend(lines)
    n = len(sources)
    rows: dict[str, list] = {k: [] for k in ("id", "src", "out", "sub", "sys", "origin", "target")}
    ratings: dict[str, list[np.ndarray]] = {a: [] for a in ASPECT_FOLDERS}
    files: list[str] = []
    for model, (param, values) in SYSTEMS.items():
        for value in values:
            system = f"{model}_{param}_{value}"
            offset = 0
            for d, direction in DIRECTIONS.items():
                file = root / "transfer_model_outputs" / model / f"{param}_{value}" / f"sentiment.test.{d}.tsf"
                outputs = read_lines(file, keep_empty=True)
                if len(outputs) != counts[d]:
                    raise DataValidationError(
                        f"has {len(outputs)} lines for {counts[d]} sources", path=file, expected="one output per source"
                    )
                files.append(str(file))
                for i, out in enumerate(outputs):
                    rows["id"].append(f"{direction}/{i}")
                    rows["src"].append(sources[offset + i])
                    rows["out"].append(out)
                    rows["sub"].append(direction)
                    rows["sys"].append(system)
                    rows["origin"].append(RowOrigin(str(file), i + 1))
                    rows["target"].append(direction.rsplit("-", 1)[1])
                offset += counts[d]
            for aspect, folder in ASPECT_FOLDERS.items():
                file = root / "evaluations" / "human" / folder / f"{system}.npy"
                ratings[aspect].append(_ratings(file, n))
                files.append(str(file))
    blocks = {
        aspect: AspectRatings(
            aspect, SCALE, ("mean",), np.concatenate(parts)[:, None], fields=(f"{ASPECT_FOLDERS[aspect]}/SYSTEM.npy",)
        )
        for aspect, parts in ratings.items()
    }
    return judgement_table(
        name="mir2019-yelp",
        item_id=rows["id"],
        source=rows["src"],
        output=rows["out"],
        subset=rows["sub"],
        system=rows["sys"],
        ratings=blocks,
        target_style=rows["target"],
        origins=rows["origin"],
        files=files,
    )
