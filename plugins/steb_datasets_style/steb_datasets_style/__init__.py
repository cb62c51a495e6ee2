"""steb-datasets-style: STEB's labelled style corpora, authorship retrieval and probing datasets.

Every dataset reads a local copy of the corpus's official release (nothing is downloaded); each
spec's ``obtain`` says what to download and which files and fields the loader expects.
"""

from .catalogue import all_specs

__all__ = ["all_specs"]
