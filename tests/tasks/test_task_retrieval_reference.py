"""Retrieval by the STEB reference's rule: a collection is its texts joined by a space, embedded once.

Reference (github.com/rrivera1849/STEB ``steb/tasks/retrieval.py`` @39e4722e, ``steb/metrics.py`` @4b43dda3
``calculate_retrieval_metrics``; notes §8), written out here with scikit-learn's ``pairwise_distances`` and
``np.argsort`` called directly.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import pairwise_distances

from steb_core import RetrievalSet, TextCollection
from steb_core.tasks.retrieval import SPEC


class WordCounts:
    """Counts of a few words: a joined text's vector is not the mean of its texts' vectors."""

    WORDS = ("the", "a", "i", "you", "of", "and", "to", "is")

    def __init__(self):
        self.calls: list[list[str]] = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        out = np.zeros((len(texts), len(self.WORDS)), dtype=np.float32)
        for r, t in enumerate(texts):
            tokens = t.split()
            for c, w in enumerate(self.WORDS):
                out[r, c] = tokens.count(w) / max(1, len(tokens))
        return out


def _collections(seed: int, authors: int = 30):
    rng = np.random.default_rng(seed)
    words = list(WordCounts.WORDS) + ["cat", "dog", "ran", "sat"]

    def text(a):
        bias = rng.random(len(words)) + (np.arange(len(words)) == a % len(words)) * 2
        n = int(rng.integers(3, 12))
        return " ".join(rng.choice(words, size=n, p=bias / bias.sum()))

    queries = tuple(
        TextCollection(author=f"a{a}", texts_=tuple(text(a) for _ in range(int(rng.integers(1, 5)))))
        for a in range(authors)
    )
    targets = tuple(
        TextCollection(author=f"a{a}", texts_=tuple(text(a) for _ in range(int(rng.integers(1, 5)))))
        for a in range(authors + 5)
    )  # five targets by authors without a query: the reference drops them
    return RetrievalSet(queries=queries, targets=targets)


def reference_metrics(data: RetrievalSet, embed, tie_rule: str = "argsort") -> dict[str, float]:
    """The reference's code written out; ``tie_rule="expected"``: its distances computed exactly (fractions,
    then the float32 nearest) and each true target's rank averaged over the orders of the targets tied
    with it (fractions), as steb's default takes them."""
    q = embed([" ".join(c.texts_) for c in data.queries])
    t = embed([" ".join(c.texts_) for c in data.targets])
    qa, ta = np.array([c.author for c in data.queries]), np.array([c.author for c in data.targets])
    common = np.intersect1d(qa, ta)
    q, qa = q[np.isin(qa, common)], qa[np.isin(qa, common)]
    t, ta = t[np.isin(ta, common)], ta[np.isin(ta, common)]

    def unit(x):
        norms = np.linalg.norm(x, axis=-1, keepdims=True)
        return x / np.where(norms == 0, 1.0, norms)

    mrr, hits = [], {k: [] for k in (1, 8, 16)}
    if tie_rule == "expected":
        dist = exact_float32_distances(unit(q), unit(t))
        for i in range(len(qa)):
            positions = [
                range(int(np.sum(dist[i] < dist[i, j])) + 1, int(np.sum(dist[i] <= dist[i, j])) + 1)
                for j in np.flatnonzero(ta == qa[i])
            ]  # each true target sits at any of its tie group's positions with equal chance
            mrr.append(
                float(sum(Fraction(1, len(ps)) * sum(Fraction(1, p) for p in ps) for ps in positions) / len(positions))
            )
            for k in hits:
                hits[k].append(
                    float(sum(Fraction(sum(p <= k for p in ps), len(ps)) for ps in positions) / len(positions))
                )
        return {"mrr": float(np.mean(mrr)), **{f"recall_at_{k}": float(np.mean(v)) for k, v in hits.items()}}
    dist = pairwise_distances(unit(q), unit(t), metric="cosine", n_jobs=-1)
    for i in range(len(qa)):
        ranks = np.where(qa[i] == ta[np.argsort(dist[i])])[0] + 1
        mrr.append(np.mean(1.0 / ranks))
        for k in hits:
            hits[k].append(np.count_nonzero(ranks <= k) / ranks.size)
    return {"mrr": float(np.mean(mrr)), **{f"recall_at_{k}": float(np.mean(v)) for k, v in hits.items()}}


def nearest_float32(value: Fraction) -> np.float32:
    """The float32 nearest to an exact value, ties to even (candidates compared as fractions)."""
    guess = np.float32(float(value))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - value), int(np.float32(c).view(np.uint32)) & 1))


def exact_float32_distances(q: np.ndarray, t: np.ndarray) -> np.ndarray:
    """scikit-learn's float32 ``1 - S`` with each dot product S of its unit rows exact, rounded once to float32."""
    from sklearn.preprocessing import normalize

    qn, tn = normalize(q.astype(np.float32)), normalize(t.astype(np.float32))
    out = np.empty((len(qn), len(tn)), dtype=np.float32)
    for i, a in enumerate(qn):
        for j, b in enumerate(tn):
            s = nearest_float32(sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(a, b)), Fraction(0)))
            out[i, j] = np.clip(np.float32(1) - s, 0, 2)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reference_rule_joins_each_collection_and_ranks_by_argsort(make_ctx, seed):
    data = _collections(seed)
    enc = WordCounts()
    got = SPEC.run(make_ctx("retrieval", data, embed=enc))
    want = reference_metrics(data, WordCounts(), tie_rule="expected")
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    # products=blas is the reference's own calls on this CPU: equal to the code written out above
    literal = SPEC.run(make_ctx("retrieval", data, embed=WordCounts(), options={"retrieval.products": "blas"}))
    for key, value in reference_metrics(data, WordCounts()).items():
        assert literal[key] == pytest.approx(value, abs=1e-12), key
    assert got["rule"] == "reference" and got["n_queries_scored"] == 30 and got["n_targets_scored"] == 30
    # one text per collection was embedded: the joined texts
    embedded = [t for call in enc.calls for t in call]
    assert " ".join(data.queries[0].texts_) in embedded
    # the mean of the texts' vectors (steb's earlier rule) gives another figure on these data
    counted = SPEC.run(make_ctx("retrieval", data, embed=WordCounts(), options={"retrieval.rule": "counted"}))
    assert counted["mrr"] != pytest.approx(got["mrr"], abs=1e-9)


def test_unknown_rule_is_an_error(make_ctx):
    from steb_core import DataValidationError

    with pytest.raises(DataValidationError, match="retrieval.rule"):
        SPEC.run(make_ctx("retrieval", _collections(0, 5), embed=WordCounts(), options={"retrieval.rule": "fast"}))


def test_the_runner_encodes_the_joined_collections(tmp_path):
    # the joined texts are not texts of the records: the task declares them (TaskSpec.extra_texts) so the
    # runner encodes them with the rest; without that the task could not look their vectors up
    import steb_core

    class Enc:
        name = "wordcounts"

        def encode(self, texts):
            return WordCounts()(list(texts))

    data = _collections(4, authors=12)
    rows = [
        {"author": c.author, "text": list(c.texts_), "split": side}
        for side, cols in (("query", data.queries), ("target", data.targets))
        for c in cols
    ]
    spec = steb_core.dataset_from(rows, shape="retrieval", name="joined", author="author", text="text", split="split")
    got = steb_core.evaluate(
        Enc(), [spec], output=tmp_path / "o", cache_dir=tmp_path / "c", progress=False, errors="raise"
    )
    want = reference_metrics(data, WordCounts(), tie_rule="expected")
    assert got.results[0].metrics["mrr"] == pytest.approx(want["mrr"], abs=1e-12)
    counted = steb_core.evaluate(
        Enc(),
        [spec],
        output=tmp_path / "p",
        cache_dir=tmp_path / "c",
        progress=False,
        errors="raise",
        task_options={"retrieval.rule": "counted"},
    )
    assert counted.results[0].metrics["rule"] == "counted"
