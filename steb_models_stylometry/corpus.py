"""Reference text this package can produce by itself: generated texts and Python's own documentation.

Why: the default TF-IDF vocabulary and the stylometric reference statistics must be fitted on text
that (a) needs no download and (b) is not third-party text pasted into the repository. Two sources:

- :func:`generated_texts`: a seeded template generator over a small hand-written lexicon, in several
  registers (formal, casual with contractions, shouting, chatty with emoji, terse). Also the bench's
  workload (10,000 texts of 50-300 words).
- :func:`python_docstrings`: docstrings of a fixed list of standard-library modules (the interpreter
  that runs the fit provides them; they are read at fit time, never stored as text).
"""

from __future__ import annotations

import importlib
import inspect
import random
from collections.abc import Iterator

__all__ = ["generated_texts", "python_docstrings", "reference_corpus"]

_NOUNS = (
    "house dog cat river mountain city teacher student problem question answer idea book letter road "
    "garden window market doctor friend family morning evening winter summer computer phone message "
    "meeting report company government story picture song village child company decision plan result"
).split()
_VERBS = (
    "see find make take give tell ask need want like know think leave call bring write read build "
    "open close start finish help change follow keep explain remember"
).split()
_PAST = (
    "saw found made took gave told asked needed wanted liked knew thought left called brought wrote "
    "read built opened closed started finished helped changed followed kept explained remembered"
).split()
_ADJS = "small large old new quiet loud bright dark important simple strange careful happy tired early late".split()
_ADVS = "quickly slowly carefully really honestly usually certainly finally suddenly nearly".split()
_DETS = ("the", "a", "this", "that", "my", "our", "every", "some", "their")
_SUBJ = ("I", "you", "we", "they", "she", "he", "the committee", "my brother", "our neighbour", "everyone")
_EMOJI = ("😀", "🙂", "👍", "🔥", "😂", "❤️", "🤔")
_CONTRACTIONS = (
    ("did not", "didn't"),
    ("I have", "I've"),
    ("we have", "we've"),
    ("they have", "they've"),
    ("I would", "I'd"),
    ("we will", "we'll"),
    ("they will", "they'll"),
    ("you will", "you'll"),
)
_CONNECT = ("however", "therefore", "moreover", "in addition", "as well as this", "instead of that", "of course")


def _np(rng: random.Random) -> str:
    words = [rng.choice(_DETS)]
    if rng.random() < 0.5:
        words.append(rng.choice(_ADJS))
    words.append(rng.choice(_NOUNS))
    if rng.random() < 0.2:
        words += [rng.choice(("of", "in", "near", "with", "under")), rng.choice(_DETS), rng.choice(_NOUNS)]
    return " ".join(words)


def _clause(rng: random.Random) -> str:
    subj = rng.choice(_SUBJ)
    roll = rng.random()
    if roll < 0.35:
        verb = rng.choice(_PAST)
    elif roll < 0.6:
        verb = f"{rng.choice(('will', 'would', 'could', 'should', 'might', 'must'))} {rng.choice(_VERBS)}"
    elif roll < 0.8:
        verb = f"{rng.choice(('has', 'had', 'have'))} {rng.choice(_PAST)}"
    else:
        verb = (
            f"was {rng.choice(_PAST)} by {_np(rng)}"
            if subj not in ("I", "you", "we", "they")
            else f"did not {rng.choice(_VERBS)}"
        )
    text = f"{subj} {verb} {_np(rng)}"
    if rng.random() < 0.3:
        text += f" {rng.choice(_ADVS)}"
    if rng.random() < 0.25:
        text += f" {rng.choice(('because', 'although', 'when', 'if', 'while', 'so that'))} {_clause(rng)}"
    return text


def _sentence(rng: random.Random, register: str) -> str:
    s = _clause(rng)
    if rng.random() < 0.2:
        s = f"{rng.choice(_CONNECT)}, {s}"
    if register == "casual":
        for full, short in _CONTRACTIONS:
            if full in s and rng.random() < 0.7:
                s = s.replace(full, short, 1)
        s = s[0].lower() + s[1:]
        end = rng.choice(("", "!", "...", "?", " lol", "."))
        if rng.random() < 0.3:
            end += " " + rng.choice(_EMOJI)
        return s + end
    if register == "shouting":
        return s.upper() + rng.choice(("!!!", "!", "?!"))
    if register == "terse":
        return " ".join(s.split()[: rng.randint(3, 6)]) + "."
    return s[0].upper() + s[1:] + rng.choice((".", ".", ".", ";", "?"))


def generated_texts(n: int, seed: int = 0, min_words: int = 50, max_words: int = 300) -> list[str]:
    """``n`` texts of ``min_words``..``max_words`` words, register drawn per text, fully determined by ``seed``."""
    rng = random.Random(seed)
    registers = ("formal", "formal", "casual", "casual", "shouting", "terse")
    out = []
    for _ in range(n):
        register = rng.choice(registers)
        target = rng.randint(min_words, max_words)
        sentences: list[str] = []
        count = 0
        while count < target:
            s = _sentence(rng, register)
            sentences.append(s)
            count += len(s.split())
        words = " ".join(sentences).split()[:target]
        out.append(" ".join(words))
    return out


#: standard-library modules whose docstrings make up the prose part of the reference corpus
DOC_MODULES = (
    "abc argparse asyncio base64 bisect calendar collections concurrent.futures contextlib copy csv "
    "dataclasses datetime decimal difflib email enum fractions functools getpass gettext glob gzip hashlib "
    "heapq hmac html http.client imaplib inspect io ipaddress itertools json locale logging mailbox math "
    "mimetypes multiprocessing netrc numbers operator optparse os pathlib pickle pprint queue random re "
    "sched secrets selectors shelve shlex shutil signal smtplib socket sqlite3 ssl statistics string "
    "subprocess tarfile tempfile textwrap threading timeit tokenize traceback turtle typing unittest "
    "urllib.parse urllib.request uuid warnings weakref zipfile zlib"
).split()


def python_docstrings(min_words: int = 12) -> Iterator[str]:
    """Paragraphs of prose from standard-library docstrings (modules, their public classes and functions)."""
    seen: set[str] = set()
    for name in DOC_MODULES:
        try:
            module = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module missing from this interpreter is simply skipped
            continue
        objects = [module] + [getattr(module, a) for a in sorted(dir(module)) if not a.startswith("_")]
        for obj in objects:
            try:
                doc = (
                    inspect.getdoc(obj) if (obj is module or inspect.isclass(obj) or inspect.isfunction(obj)) else None
                )
            except Exception:  # noqa: BLE001 - getdoc of third-party objects: skip what fails
                doc = None
            if not doc:
                continue
            for para in doc.split("\n\n"):
                text = " ".join(para.split())
                if len(text.split()) >= min_words and text not in seen and not text.startswith((">>>", "...")):
                    seen.add(text)
                    yield text


def reference_corpus(n_generated: int = 2000, seed: int = 1234) -> list[str]:
    """The default fitting corpus: generated texts (seed 1234, not the bench's seed) + stdlib docstrings."""
    return generated_texts(n_generated, seed=seed) + list(python_docstrings())
