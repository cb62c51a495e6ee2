"""Surface features that need no NLP pipeline: used by the demo's probing dataset and as a fallback."""

from __future__ import annotations

import re
import unicodedata

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)


class SurfaceFeatures:
    """Per-text counts: words, characters, punctuation marks, uppercase letters, digits, mean word length."""

    name = "surface"
    feature_names = ["n_words", "n_chars", "n_punct", "n_upper", "n_digits", "mean_word_length"]

    def extract(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(self.feature_names)), dtype=np.float64)
        for i, text in enumerate(texts):
            words = _WORD.findall(text)
            out[i, 0] = len(words)
            out[i, 1] = len(text)
            out[i, 2] = sum(1 for ch in text if unicodedata.category(ch).startswith("P"))
            out[i, 3] = sum(1 for ch in text if ch.isupper())
            out[i, 4] = sum(1 for ch in text if ch.isdigit())
            out[i, 5] = (sum(len(w) for w in words) / len(words)) if words else 0.0
        return out
