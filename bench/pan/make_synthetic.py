"""Write synthetic PAN corpora of PAN26 scale in the official layouts, for the load benchmark.

- style change: ``<out>/pan26_style_change_easy/easy/test/problem-N.txt`` (one sentence per line) and
  ``truth-problem-N.json``; default 6,000 documents x 50 sentences = 300,000 sentences (texts).
- AI detection: ``<out>/machine_text_detection_PAN25_26_essays/val.jsonl`` with ``id``, ``text``,
  ``model``, ``label``, ``genre`` inline; default 300,000 texts over 3 genres x 13 sources.

Texts are random word sequences (no real data); the generator is seeded so runs are comparable.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which but have an they "
    "you were her she there been one all we their has would when if so no will more about what up out who into"
).split()
MODELS = ["human"] + [f"llm-{i:02d}" for i in range(12)]
GENRES = ["essays", "fiction", "news"]


def sentence(rng: random.Random, n_words: int) -> str:
    words = rng.choices(WORDS, k=n_words)
    return " ".join(words).capitalize() + "."


def write_style_change(out: Path, documents: int, sentences: int, seed: int = 0) -> Path:
    rng = random.Random(seed)
    folder = out / "pan26_style_change_easy" / "easy" / "test"
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(1, documents + 1):
        lines = [sentence(rng, rng.randint(8, 30)) for _ in range(sentences)]
        changes = [1 if rng.random() < 0.08 else 0 for _ in range(sentences - 1)]
        (folder / f"problem-{n}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (folder / f"truth-problem-{n}.json").write_text(
            json.dumps({"authors": 1 + sum(changes), "changes": changes}), encoding="utf-8"
        )
    return folder


def write_generative(out: Path, texts: int, seed: int = 0) -> Path:
    rng = random.Random(seed)
    folder = out / "machine_text_detection_PAN25_26_essays"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "val.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(texts):
            model = rng.choice(MODELS)
            text = " ".join(sentence(rng, rng.randint(8, 20)) for _ in range(rng.randint(3, 8)))
            row = {
                "id": f"doc-{i:07d}",
                "text": text,
                "model": model,
                "label": int(model != "human"),
                "genre": rng.choice(GENRES),
            }
            handle.write(json.dumps(row) + "\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--documents", type=int, default=6000)
    ap.add_argument("--sentences", type=int, default=50)
    ap.add_argument("--texts", type=int, default=300_000)
    args = ap.parse_args()
    write_style_change(args.out, args.documents, args.sentences)
    write_generative(args.out, args.texts)


if __name__ == "__main__":
    main()
