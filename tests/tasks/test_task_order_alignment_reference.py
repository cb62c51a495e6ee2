"""Order alignment as the STEB reference builds and scores it (construction ``steb-reference/v1``).

The reference (github.com/rrivera1849/STEB ``steb/tasks/order_alignment.py`` @8a036408, described in
``shared/notes/steb-reference-rules.md`` §4) is re-implemented here independently, from that description,
with scipy's ``linear_sum_assignment`` called directly on every instance: the task's vectorised decision
and its tie handling are checked against it, never against themselves.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from steb_core import DatasetBundle, DatasetSpec, OrderGroup, TaskContext, construction_task_defaults
from steb_core._parallel_corpora import ParallelItem, order_groups_from_parallel
from steb_core.tasks.order_alignment import compensated_dots, reference_credits, run_order_alignment


# --- the reference, written out from its description ------------------------------------------------------
def scipy_credit(src: np.ndarray, tgt: np.ndarray, offset: int = 0, product=lambda a, b: a @ b.T) -> float:
    """One instance: cost 1 - max(cos, 0) of unit rows, scipy's assignment, fraction of rows at row + offset."""
    if tgt.shape[0] < 2:
        return 0.0
    cost = 1.0 - np.maximum(product(src, tgt), 0.0)
    rows, cols = linear_sum_assignment(cost)
    return float(np.mean(cols[np.argsort(rows)] == np.arange(src.shape[0]) + offset))


def exact_cosines(src: np.ndarray, tgt: np.ndarray) -> np.ndarray:
    """``src @ tgt.T`` with every entry the correctly rounded dot product (exact rational sums)."""
    return np.array(
        [[float(sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(r, c))) for c in tgt] for r in src]
    )


def exact_unit(x: np.ndarray) -> np.ndarray:
    """Rows over their norm, the sum of squares correctly rounded (steb's ``products=exact``)."""
    norms = np.sqrt(np.array([float(sum(Fraction(float(v)) ** 2 for v in row)) for row in x]))
    return x / np.where(norms == 0, 1.0, norms)[:, None]


def reference_scores(vectors: list[np.ndarray], labels: list[str], exact: bool = True) -> dict[str, float]:
    """acc_mean and distractor_acc_mean as the reference computes them (pooled over labels); ``exact``: with
    correctly rounded cosines (steb's ``products=exact``) instead of the reference's BLAS products (steb's default
    emulates the reference machine's; checked against its kernel in ``test_reference_products.py``)."""
    emb = np.array(vectors, dtype=float)
    if exact:
        emb = np.stack([exact_unit(e) for e in emb])
    else:
        norms = np.linalg.norm(emb, axis=-1, keepdims=True)
        emb = emb / np.where(norms == 0, 1.0, norms)
    product = exact_cosines if exact else (lambda a, b: a @ b.T)
    by_label: dict[str, list[int]] = {}
    for i, lab in enumerate(labels):
        by_label.setdefault(lab, []).append(i)
    plain, last, first = [], [], []
    for idxs in by_label.values():
        for i, j in itertools.combinations(idxs, 2):
            ei, ej = emb[i], emb[j]
            plain.append(scipy_credit(ei, ej, product=product))
            tl = ej.copy()
            tl[-1] = ei[-1]
            last.append(scipy_credit(ei[:-1], tl, product=product))
            tf = ej.copy()
            tf[0] = ei[0]
            first.append(scipy_credit(ei[1:], tf, offset=1, product=product))
    return {"acc_mean": float(np.mean(plain)), "distractor_acc_mean": float(np.mean(last + first))}


# --- helpers --------------------------------------------------------------------------------------------------
def items_of(texts: list[tuple[str, ...]], labels: list[str]) -> list[ParallelItem]:
    return [ParallelItem(t, id=f"s{i}", style_type=lab) for i, (t, lab) in enumerate(zip(texts, labels))]


def context(
    groups: list[OrderGroup], info: dict, table: dict[str, np.ndarray], options: dict | None = None
) -> TaskContext:
    """A context whose bundle declares the rule of the groups' construction (as the dataset plugins' loaders do)."""
    spec = DatasetSpec(name="t", description="t", tasks=("order_alignment",), loader=lambda ctx: None, needs_data=False)
    declared = construction_task_defaults(info["construction"]) if "construction" in info else {}
    bundle = DatasetBundle(order_groups=groups, info=info, task_defaults=declared)

    def embed(texts):
        return np.stack([table[t] for t in texts]).astype(np.float32)

    return TaskContext(dataset=spec, bundle=bundle, data=groups, options=dict(options or {}), embed_fn=embed)


# --- construction -----------------------------------------------------------------------------------------
def test_pairs_are_itertools_combinations_with_earlier_item_as_anchor_and_three_groups_each():
    texts = [(f"a{i}", f"b{i}", f"c{i}") for i in range(4)]
    groups, info = order_groups_from_parallel(items_of(texts, ["x"] * 4), seed=0, salt="d", per_class=None)
    assert info["construction"] == "steb-reference/v1" and "order_alignment_scoring" not in info  # issue 48
    assert construction_task_defaults(info["construction"]) == {"order_alignment": {"scoring": "steb-reference"}}
    assert len(groups) == 3 * 6
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    for n, (i, j) in enumerate(pairs):
        plain, last, first = groups[3 * n : 3 * n + 3]
        assert plain.anchors == texts[i] and plain.alternatives == texts[j] and plain.answer == (0, 1, 2)
        assert plain.distractor is None
        # "last": i without its last text; j's texts with its last replaced by i's last
        assert last.anchors == texts[i][:2]
        assert last.candidates() == (texts[j][0], texts[j][1], texts[i][2])
        assert last.candidate_answer() == (0, 1)
        # "first": i without its first text; j's texts with its first replaced by i's first; expected columns 1, 2
        assert first.anchors == texts[i][1:]
        assert first.candidates() == (texts[i][0], texts[j][1], texts[j][2])
        assert first.candidate_answer() == (1, 2)


def test_first_n_sequences_per_class_in_loader_order_and_small_classes_dropped():
    # class "big" has 30 items, "mid" 26, "tiny" 3: N = max(25, min(3, 200)) = 25; tiny dropped
    labels = ["big"] * 30 + ["mid"] * 26 + ["tiny"] * 3
    order = list(range(59))
    order = order[30:33] + order[:30] + order[33:]  # mid's first three items come first
    texts = [(f"p{i}", f"q{i}") for i in range(59)]
    items = [items_of(texts, labels)[i] for i in order]
    groups, info = order_groups_from_parallel(items, seed=0, salt="d")
    assert info["per_class"] == 25 and info["dropped_classes"] == {"tiny": 3}
    assert info["class_order"] == ["mid", "big"]
    plain = [g for g in groups if g.distractor is None]
    assert len(plain) == 2 * 25 * 24 // 2
    mid_anchors = [g.anchors[0] for g in plain if g.style_type == "mid"]
    kept_mid = [it.texts[0] for it in items if it.style_type == "mid"][:25]
    assert sorted(set(mid_anchors), key=kept_mid.index) == kept_mid[:24]  # every kept item but the last anchors
    assert [g.style_type for g in plain][:1] == ["mid"]


def test_random_sampling_draws_other_sequences_but_the_same_class_rule():
    labels = ["a"] * 40 + ["b"] * 30
    texts = [(f"p{i}", f"q{i}") for i in range(70)]
    first, _ = order_groups_from_parallel(items_of(texts, labels), seed=0, salt="d")
    drawn, info = order_groups_from_parallel(items_of(texts, labels), seed=0, salt="d", sampling="random")
    assert info["sampling"] == "random" and info["per_class"] == 30
    assert len(first) == len(drawn) and first != drawn


# --- scoring: the decision equals scipy's, ties included ----------------------------------------------------------
def _scipy_batch(sims: np.ndarray, expected: np.ndarray) -> np.ndarray:
    out = []
    for s, e in zip(sims, expected):
        rows, cols = linear_sum_assignment(1.0 - np.maximum(s, 0.0))
        out.append(np.mean(cols[np.argsort(rows)] == e))
    return np.asarray(out)


@pytest.mark.parametrize("m,c", [(2, 2), (1, 2), (3, 3), (2, 3), (4, 4)])
def test_credit_equals_linear_sum_assignment_on_random_inputs(m, c):
    rng = np.random.default_rng(m * 10 + c)
    sims = rng.uniform(-0.5, 1.0, size=(3000, m, c))
    expected = np.tile(np.arange(m), (3000, 1)) + (c - m) * (np.arange(3000) % 2)[:, None]  # both offsets
    got, _ = reference_credits(sims, expected)
    np.testing.assert_array_equal(got, _scipy_batch(sims, expected))


@pytest.mark.parametrize("m,c", [(2, 2), (1, 2), (3, 3), (2, 3)])
def test_credit_equals_linear_sum_assignment_on_tied_inputs(m, c):
    # similarities from a tiny grid with many negatives (clamped to 0): exact ties everywhere
    rng = np.random.default_rng(7 + m + c)
    sims = rng.choice([-0.3, 0.0, 0.25, 0.5, 0.75], size=(4000, m, c))
    sims[:500] = 0.5  # constant matrices: the solver returns the identity
    expected = np.tile(np.arange(m), (4000, 1)) + (c - m) * (np.arange(4000) % 2)[:, None]
    got, tied = reference_credits(sims, expected)
    np.testing.assert_array_equal(got, _scipy_batch(sims, expected))
    assert (tied > 1).sum() > 500


def test_k2_exact_tie_solver_vs_split():
    sims = np.array([[[0.5, 0.5], [0.5, 0.5]], [[0.0, 0.0], [0.2, 0.2]]])  # both assignments cost the same
    expected = np.array([[0, 1], [0, 1]])
    solver, tied = reference_credits(sims, expected)
    split, _ = reference_credits(sims, expected, ties="split")
    assert solver.tolist() == [1.0, 1.0]  # scipy returns the identity, which is the expected answer
    assert split.tolist() == [0.5, 0.5]  # (1 + 0) / 2
    assert tied.tolist() == [2, 2]
    # the "first" distractor with k = 2: one anchor, tied columns 0 (the distractor) and 1 (expected)
    s1 = np.array([[[0.4, 0.4]]])
    assert reference_credits(s1, np.array([[1]]))[0].tolist() == [0.0]  # solver takes column 0
    assert reference_credits(s1, np.array([[1]]), ties="split")[0].tolist() == [0.5]


def test_per_position_credit_k3_and_distractor_with_two_anchors():
    # k = 3 plain: anchor 0 right, anchors 1 and 2 swapped -> 1/3
    sims = np.array([[[0.9, 0.0, 0.0], [0.0, 0.1, 0.8], [0.0, 0.8, 0.1]]])
    assert reference_credits(sims, np.array([[0, 1, 2]]))[0].tolist() == [pytest.approx(1 / 3)]
    # distractor, two anchors, three candidates (expected 0, 1): anchor 0 -> 0 right, anchor 1 -> the distractor (2)
    sims = np.array([[[0.9, 0.1, 0.0], [0.0, 0.3, 0.7]]])
    assert reference_credits(sims, np.array([[0, 1]]))[0].tolist() == [0.5]
    # "first" layout: distractor in column 0, expected (1, 2); anchor 0 -> distractor, anchor 1 -> 2 right
    sims = np.array([[[0.9, 0.2, 0.0], [0.0, 0.1, 0.8]]])
    assert reference_credits(sims, np.array([[1, 2]]))[0].tolist() == [0.5]


def test_cost_clamps_negative_similarities():
    # without the clamp, -0.9 vs -0.1 would decide; with it both cost 1 and the positive entries decide
    sims = np.array([[[-0.9, 0.3], [0.2, -0.1]]])
    expected = np.array([[0, 1]])
    # clamped: identity costs 1 + 1 = 2, swap costs 0.7 + 0.8 = 1.5 -> swap -> 0
    assert reference_credits(sims, expected)[0].tolist() == [0.0]


# --- cross-check: the reference's own instances through the task ------------------------------------------
@pytest.mark.parametrize("k,dim,quantised", [(2, 6, False), (3, 5, False), (2, 4, True), (3, 3, True)])
def test_task_on_reference_instances_equals_scipy_reference(k, dim, quantised):
    rng = np.random.default_rng(k * 100 + dim)
    labels = ["x"] * 9 + ["y"] * 12 + ["z"] * 7
    vectors = rng.normal(size=(len(labels), k, dim))
    if quantised:  # small integer vectors, many zeros: identical and orthogonal vectors, exact ties
        vectors = rng.integers(-1, 2, size=(len(labels), k, dim)).astype(float)
        vectors[3, 1] = vectors[3, 0]  # one item's two positions identical (ASSET has such items)
    table = {f"t{i}.{p}": vectors[i, p].astype(np.float32) for i in range(len(labels)) for p in range(k)}
    texts = [tuple(f"t{i}.{p}" for p in range(k)) for i in range(len(labels))]
    groups, info = order_groups_from_parallel(items_of(texts, labels), seed=0, salt="d", per_class=None)
    metrics = run_order_alignment(context(groups, info, table, {"order_alignment.products": "exact"}))
    want = reference_scores([vectors[i].astype(np.float32) for i in range(len(labels))], labels)
    assert metrics["accuracy"] == pytest.approx(want["acc_mean"], abs=1e-12)
    assert metrics["distractor_accuracy"] == pytest.approx(want["distractor_acc_mean"], abs=1e-12)
    assert metrics["scoring"] == "steb-reference" and metrics["ties"] == "solver"
    if quantised:
        assert metrics["n_tied"] + metrics["n_distractor_tied"] > 0
        split = run_order_alignment(
            context(groups, info, table, {"order_alignment.ties": "split", "order_alignment.products": "exact"})
        )
        assert split["ties"] == "split"


def test_scoring_option_overrides_the_bundle():
    texts = [(f"a{i}", f"b{i}") for i in range(3)]
    table = {t: np.eye(4, dtype=np.float32)[n % 4] for n, t in enumerate(x for pair in texts for x in pair)}
    groups, info = order_groups_from_parallel(items_of(texts, ["x"] * 3), seed=0, salt="d", per_class=None)
    assert run_order_alignment(context(groups, info, table, {"order_alignment.scoring": "stel"}))["scoring"] == "stel"
    assert run_order_alignment(context(groups, {}, table))["scoring"] == "stel"  # groups without a declared rule


def test_compensated_dots_are_the_correctly_rounded_dot_products():
    # products=exact: the same digits on every CPU; checked against exact rational arithmetic
    rng = np.random.default_rng(11)
    a = rng.normal(size=(300, 37)) * np.exp(rng.normal(size=(300, 37)))
    b = rng.normal(size=(300, 37))
    a[:50] = (rng.integers(0, 4, size=(50, 37)) / 7.0).astype(np.float32)  # function-word-like: rational, ties
    b[:50] = (rng.integers(0, 4, size=(50, 37)) / 9.0).astype(np.float32)
    got = compensated_dots(a, b)
    want = [float(sum(Fraction(float(x)) * Fraction(float(y)) for x, y in zip(r, c))) for r, c in zip(a, b)]
    assert got.tolist() == want
    naive = [float(np.float64(0.0) + sum(x * y for x, y in zip(r, c))) for r, c in zip(a, b)]
    assert naive != want  # a plain float sum differs in the last bits, so the check above can fail


def test_blas_products_option_is_the_references_own_computation():
    rng = np.random.default_rng(5)
    labels = ["x"] * 10
    vectors = rng.integers(-1, 2, size=(10, 2, 5)).astype(float)
    table = {f"t{i}.{p}": vectors[i, p].astype(np.float32) for i in range(10) for p in range(2)}
    texts = [tuple(f"t{i}.{p}" for p in range(2)) for i in range(10)]
    groups, info = order_groups_from_parallel(items_of(texts, labels), seed=0, salt="d", per_class=None)
    got = run_order_alignment(context(groups, info, table, {"order_alignment.products": "blas"}))
    want = reference_scores([vectors[i].astype(np.float32) for i in range(10)], labels, exact=False)
    assert got["accuracy"] == pytest.approx(want["acc_mean"], abs=1e-12) and got["products"] == "blas"
