"""Default seed 42, ``sampling=random`` and ``draws=K`` (mean ± sd over K seeded draws) through steb.evaluate."""

from __future__ import annotations

import math

import numpy as np
import pytest

import steb_core
from steb_core import DatasetBundle, DatasetSpec, LabelledText, load_results, sample_classes, sampling_mode
from steb_core._draws import draw_seeds, draws_name


class Hashing:
    name = "hashing"

    def encode(self, texts):
        out = np.zeros((len(texts), 8), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.split():
                out[i, sum(map(ord, w)) % 8] += 1
        return out


def _spec(seen: list) -> DatasetSpec:
    words = ["alpha beta", "gamma delta", "beta beta", "delta alpha gamma", "x y", "y y z", "z x", "alpha z"]

    def load(ctx):
        seen.append((ctx.seed, dict(ctx.options)))
        records = [
            LabelledText(text=f"{words[(i * 7 + c) % 8]} {i}", label=f"c{c}") for i in range(60) for c in range(3)
        ]
        kept, info = sample_classes(
            records, lambda r: r.label, 25, sampling=sampling_mode(ctx.options), seed=ctx.seed, salt=ctx.dataset
        )
        return DatasetBundle(labelled_texts=kept, info=info)

    return DatasetSpec(name="drawn", description="d", tasks=("pair_all",), loader=load, needs_data=False)


def test_default_seed_is_the_references_42(tmp_path):
    seen: list = []
    summary = steb_core.evaluate(
        Hashing(), [_spec(seen)], output=tmp_path / "o", cache_dir=tmp_path / "c", progress=False
    )
    assert seen[0][0] == 42 and summary.results[0].seed == 42
    assert summary.results[0].dataset_info["sampling"] == "first"


def test_draws_report_mean_and_sd_and_keep_the_first_n_result(tmp_path):
    seen: list = []
    spec = _spec(seen)
    out = tmp_path / "o"
    first = steb_core.evaluate(Hashing(), [spec], output=out, cache_dir=tmp_path / "c", progress=False)
    drawn = steb_core.evaluate(Hashing(), [spec], output=out, cache_dir=tmp_path / "c", progress=False, draws=4, seed=7)
    seeds = draw_seeds(7, 4)
    assert len(set(seeds)) == 4 and seeds == draw_seeds(7, 4) and seeds != draw_seeds(8, 4)
    assert [s for s, o in seen[1:]] == seeds and all(o["sampling"] == "random" for _, o in seen[1:])
    rec = drawn.results[0]
    values = rec.metrics["draws"]["values"]["auroc"]
    assert len(values) == 4 and len(set(values)) > 1  # the draws differ
    assert rec.main_score == pytest.approx(np.mean(values), abs=1e-15)
    assert rec.metrics["draws"]["sd"]["auroc"] == pytest.approx(np.std(values, ddof=1), abs=1e-15)
    assert rec.encoder == draws_name("hashing", 4) == "hashing~random4"
    stored = {(r.encoder, r.task): r for r in load_results(out)}  # the draws themselves are not listed
    assert set(stored) == {("hashing", "pair_all"), ("hashing~random4", "pair_all")}
    assert stored[("hashing", "pair_all")].main_score == first.results[0].main_score  # first-N result untouched
    assert stored[("hashing", "pair_all")].run_key != rec.run_key
    again = steb_core.evaluate(Hashing(), [spec], output=out, cache_dir=tmp_path / "c", progress=False, draws=4, seed=7)
    assert again.results[0].main_score == rec.main_score and math.isfinite(rec.main_score)


def test_sampling_random_run_option_and_bad_draws(tmp_path):
    seen: list = []
    s = steb_core.evaluate(
        Hashing(), [_spec(seen)], output=tmp_path / "o", cache_dir=tmp_path / "c", progress=False, sampling="random"
    )
    assert seen[0][1]["sampling"] == "random" and s.results[0].dataset_info["sampling"] == "random"
    with pytest.raises(steb_core.StebError, match="draws"):
        steb_core.evaluate(Hashing(), [_spec(seen)], output=tmp_path / "o", progress=False, draws=1)
    with pytest.raises(steb_core.StebError, match="random"):
        steb_core.evaluate(Hashing(), [_spec(seen)], output=tmp_path / "o", progress=False, draws=3, sampling="first")


def test_report_shows_mean_plus_minus_sd(tmp_path):
    from steb_core.report.leaderboard import compute_leaderboards
    from steb_core.report.markdown import render_markdown

    out = tmp_path / "o"
    steb_core.evaluate(Hashing(), [_spec([])], output=out, cache_dir=tmp_path / "c", progress=False)
    drawn = steb_core.evaluate(Hashing(), [_spec([])], output=out, cache_dir=tmp_path / "c", progress=False, draws=3)
    rec = drawn.results[0]
    text = render_markdown(compute_leaderboards(list(load_results(out))))
    assert f"auroc {rec.main_score:.4f} ± {rec.metrics['draws']['sd']['auroc']:.4f}" in text
    assert "hashing~random3" in text


def test_a_huge_number_of_draws_is_refused_at_once_naming_yes_and_the_cost(tmp_path):
    # issue 47: --draws 1000000000 ran silently for ever (it did not even get past deriving the seeds)
    seen: list = []
    kw = {"output": tmp_path / "o", "cache_dir": tmp_path / "c", "progress": False}
    with pytest.raises(steb_core.StebError, match=r"--draws 101: .*take 101 times as long as one run; pass --yes"):
        steb_core.evaluate(Hashing(), [_spec(seen)], draws=101, **kw)
    with pytest.raises(steb_core.StebError, match="more than 10000 draws is refused"):
        steb_core.evaluate(Hashing(), [_spec(seen)], draws=1_000_000_000, confirm_draws=True, **kw)
    assert seen == []  # nothing ran


def test_the_time_k_draws_take_is_said_after_the_first(tmp_path):
    said: list[str] = []
    summary = steb_core.evaluate(
        Hashing(),
        [_spec([])],
        output=tmp_path / "o",
        cache_dir=tmp_path / "c",
        progress=False,
        draws=3,
        announce=said.append,
    )
    assert len(said) == 1 and said[0].startswith("draw 1 of 3 took ") and "the 3 draws will take about" in said[0]
    assert said[0] in summary.notes
