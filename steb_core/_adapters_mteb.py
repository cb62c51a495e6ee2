"""MTEB model objects (``mteb.get_model(...)``) run unchanged: their ``encode`` takes a DataLoader of
``{"text": [...]}`` batches plus MTEB's task metadata, split, subset and prompt type.

steb presents every text as one MTEB "Clustering"-type task (a symmetric task: no query/passage
prompts), which is what style similarity is; a model that defines prompts per task type gets its
clustering prompt. The adapter keeps the model's own name (or, for a model MTEB knows no name of, the last component of
the path it was loaded from), its revision and fingerprinting evidence.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MtebModelAdapter"]


class MtebModelAdapter:
    """``encode(list[str])`` over an MTEB model object."""

    family = "mteb"

    def __init__(self, model: Any, *, batch_size: int = 32, task_type: str = "Clustering") -> None:
        self.model = model
        self.batch_size = batch_size
        self.task_type = task_type
        from ._naming import default_name

        meta = getattr(model, "mteb_model_meta", None)
        # MTEB names a model loaded from a folder "no_model_name/available": look through to the model's path
        self.name = default_name(model) or "mteb-model"
        revision = getattr(meta, "revision", None)
        self.revision = None if revision in (None, "no_revision_available") else revision
        inner = getattr(model, "model", None)  # MTEB's SentenceTransformer wrapper keeps the model here
        if inner is not None:
            self.tokenizer = getattr(inner, "tokenizer", None)

    def _metadata(self) -> Any:
        from mteb.abstasks.task_metadata import TaskMetadata

        return TaskMetadata.model_construct(
            name="STEB-style",
            type=self.task_type,
            category="t2t",
            modalities=["text"],
            eval_splits=["test"],
            eval_langs=["eng-Latn"],
            main_score="v_measure",
            prompt=None,
            description="steb style evaluation",
        )

    def encode(self, texts: list[str]) -> np.ndarray:
        from datasets import Dataset  # installed with mteb
        from torch.utils.data import DataLoader

        loader = DataLoader(Dataset.from_dict({"text": list(texts)}), batch_size=self.batch_size)
        out = self.model.encode(
            loader, task_metadata=self._metadata(), hf_split="test", hf_subset="default", prompt_type=None
        )
        if hasattr(out, "detach"):
            out = out.detach().cpu().numpy()
        return np.asarray(out, dtype=np.float32)

    def info(self) -> dict[str, Any]:
        return {"adapter": "mteb", "mteb_model": self.name, "revision": self.revision}
