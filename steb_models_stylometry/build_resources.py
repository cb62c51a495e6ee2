"""Rebuild the files shipped in ``resources/``: the TF-IDF vectorisers and the stylometric statistics.

Run ``python -m steb_models_stylometry.build_resources`` after changing the reference corpus, the
feature definitions or the spaCy pipeline. Both are fitted on :func:`corpus.reference_corpus` (seeded
generated texts + Python standard-library docstrings), so no third-party text enters the repository.
"""

from __future__ import annotations

from .base import RESOURCES
from .corpus import reference_corpus
from .stylometric import build_reference
from .tfidf import BLOCKS, SHIPPED_VECTORISERS, fit_vectoriser

CORPUS_DESCRIPTION = (
    "steb-models-stylometry reference corpus: 2,000 generated texts (corpus.generated_texts, seed 1234) "
    "+ paragraphs of Python standard-library docstrings (corpus.python_docstrings)"
)


def main() -> None:
    texts = reference_corpus()
    # one vectoriser per settings profile: resources/tfidf-default (steb) and resources/tfidf-steb01 (steb-0.1)
    for settings, folder in SHIPPED_VECTORISERS.items():
        fit_vectoriser(texts, list(BLOCKS), settings=settings, corpus=CORPUS_DESCRIPTION).save(folder)
    build_reference(texts, RESOURCES / "stylometric_reference.json", corpus=CORPUS_DESCRIPTION)
    folders = ", ".join(str(f) for f in SHIPPED_VECTORISERS.values())
    print(f"wrote {folders} and {RESOURCES / 'stylometric_reference.json'} from {len(texts)} texts")


if __name__ == "__main__":
    main()
