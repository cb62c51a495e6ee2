"""steb-datasets-pan: PAN shared-task datasets for steb, read from the official release files.

Formats: folder-per-problem AV (PAN13/14/15, Enron), jsonl AV (PAN20/21), style change (PAN18,
PAN22–26), cross-domain attribution (PAN18) and AI-text detection (PAN24–26). Each format has one
parser module; :mod:`steb_datasets_pan.catalogue` turns them into the registered dataset specs.
"""

from .catalogue import pan_datasets

__all__ = ["pan_datasets"]
