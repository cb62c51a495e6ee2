"""A synthetic STEB: one generated dataset per row of STEB's Table 15, same task and same counts.

Load it as a local plugin (``steb run --plugin bench/full_steb/synthetic_steb.py --suite synthetic-steb``).
Nothing here is third-party text: every text is drawn from a vocabulary this file makes up (a few
dozen English function words written out below plus pronounceable nonsense words built from
syllables), with a seeded RNG. Each class/author/style gets its own tilt of the word distribution and
its own punctuation habits, so the tasks have something to find, but the point is *cost*: the
number of texts, their lengths and the shapes the runner has to handle are those of the real
benchmark.

Counts (``--dataset-option scale=S`` shrinks them, default 1.0):

- clustering / all-to-all pairs: ``classes`` labels, ``texts`` labelled texts in total (Table 15's
  per-class budget); the clustering and all-to-all rows of one corpus draw the same texts, as in STEB,
  so the cache encodes them once;
- predefined pairs: ``classes`` trials, two texts each, half of them same-author;
- order alignment: ``texts // 5`` STEL quadruples with a distractor (5 texts each);
- retrieval: ``classes`` authors, ``texts`` texts split between one query and one target collection
  per author;
- probing: ``texts`` texts with 46 numeric features (per-text relative frequencies of 40 function
  words, length, mean word length, comma / full stop / question mark rates, type-token ratio).

Texts are 20-300 words (log-uniform, median about 77 words); predefined-pair texts of the sentence /
paragraph style-change rows are 8-60 words, as those corpora are.

The file also registers ``random-projection-4096``: hashed bag of words (2^13 buckets, sklearn's
murmur ``HashingVectorizer``) times a fixed seeded Gaussian 8192 x 4096 matrix, L2-normalised, float32.
Deterministic and identified by :meth:`RandomProjectionEncoder.fingerprint`.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from steb_core import hookimpl
from steb_core._records import (
    DatasetBundle,
    FeatureText,
    LabelledText,
    OrderGroup,
    RetrievalSet,
    TextCollection,
    TextPair,
)
from steb_core._specs import DatasetSpec, EncoderSpec, LoadContext

SUITE = "synthetic-steb"

# (task, dataset, classes, per class, texts) -- STEB Table 15 (../shared/notes/steb-catalogue.md)
TABLE_15 = """
clustering|bible_versions|8|200|1600
clustering|blog_age|3|200|600
clustering|blog_gender|2|200|400
clustering|ceeces|6|200|1200
clustering|core|38|25|950
clustering|corpus-of-diverse-styles|11|200|2200
clustering|eWAVE|53|29|1537
clustering|endive|6|200|1200
clustering|enron_spam|2|200|400
clustering|fce_l1|15|25|375
clustering|gede_essay_detection|4|200|800
clustering|hate_speech|2|200|400
clustering|hate_speech_and_offensive_language|3|200|600
clustering|machine_text_detection_DetectRL_arxiv|5|200|1000
clustering|machine_text_detection_DetectRL_direct_prompt|5|200|1000
clustering|machine_text_detection_DetectRL_paraphrase_attacks|2|200|400
clustering|machine_text_detection_DetectRL_perturbation_attacks|2|200|400
clustering|machine_text_detection_DetectRL_prompt_attacks|2|200|400
clustering|machine_text_detection_DetectRL_writing_prompt|5|200|1000
clustering|machine_text_detection_DetectRL_xsum|5|200|1000
clustering|machine_text_detection_DetectRL_yelp_review|5|200|1000
clustering|machine_text_detection_M4_arxiv|6|200|1200
clustering|machine_text_detection_M4_peerread|6|200|1200
clustering|machine_text_detection_M4_reddit|6|200|1200
clustering|machine_text_detection_M4_wikihow|5|200|1000
clustering|machine_text_detection_M4_wikipedia|5|200|1000
clustering|machine_text_detection_MAGE_cmv|28|60|1680
clustering|machine_text_detection_MAGE_eli5|28|73|2044
clustering|machine_text_detection_MAGE_hswag|28|66|1848
clustering|machine_text_detection_MAGE_roct|28|76|2128
clustering|machine_text_detection_MAGE_sci_gen|28|36|1008
clustering|machine_text_detection_MAGE_squad|28|55|1540
clustering|machine_text_detection_MAGE_tldr|28|57|1596
clustering|machine_text_detection_MAGE_wp|28|70|1960
clustering|machine_text_detection_MAGE_xsum|28|86|2408
clustering|machine_text_detection_MAGE_yelp|28|42|1176
clustering|machine_text_detection_PAN24_news|14|200|2800
clustering|machine_text_detection_PAN25_26_essays|13|25|325
clustering|machine_text_detection_PAN25_26_fiction|12|25|300
clustering|machine_text_detection_PAN25_26_news|14|59|826
clustering|machine_text_detection_PAN25_collaborative|6|200|1200
clustering|masc_text_genre|19|150|2850
clustering|pastel_age|6|25|150
clustering|pastel_education|8|25|200
clustering|pastel_ethnic|9|25|225
clustering|pastel_gender|3|55|165
clustering|pastel_politics|3|200|600
clustering|pastel_tod|5|200|1000
clustering|sms_spam|2|200|400
clustering|stackexchange_politeness|3|200|600
clustering|telegram-spam-ham|2|200|400
clustering|wikipedia_politeness|3|200|600
clustering|x_genre|9|46|414
pair_all|bible_versions|8|200|1600
pair_all|blog_age|3|200|600
pair_all|blog_gender|2|200|400
pair_all|ceeces|6|200|1200
pair_all|core|38|25|950
pair_all|corpus-of-diverse-styles|11|200|2200
pair_all|eWAVE|53|29|1537
pair_all|endive|6|200|1200
pair_all|enron_spam|2|200|400
pair_all|fce_l1|15|25|375
pair_all|hate_speech|2|200|400
pair_all|hate_speech_and_offensive_language|3|200|600
pair_all|masc_text_genre|19|150|2850
pair_all|pastel_age|6|25|150
pair_all|pastel_education|8|25|200
pair_all|pastel_ethnic|9|25|225
pair_all|pastel_gender|3|55|165
pair_all|pastel_politics|3|200|600
pair_all|pastel_tod|5|200|1000
pair_all|sms_spam|2|200|400
pair_all|stackexchange_politeness|3|200|600
pair_all|telegram-spam-ham|2|200|400
pair_all|wikipedia_politeness|3|200|600
pair_all|x_genre|9|46|414
pair_predefined|enron_authorship_corpus|80|2|160
pair_predefined|pan13_authorship_verification_english_test|30|2|60
pair_predefined|pan14_authorship_verification_corpus1_english_essays_test|100|2|200
pair_predefined|pan14_authorship_verification_corpus1_english_novels_test|100|2|200
pair_predefined|pan14_authorship_verification_corpus2_english_essays_test|200|2|400
pair_predefined|pan14_authorship_verification_corpus2_english_novels_test|200|2|400
pair_predefined|pan15_authorship_verification_english_test|500|2|1000
pair_predefined|pan18_style_change|1492|2|2984
pair_predefined|pan20_authorship_verification_test|500|2|1000
pair_predefined|pan21_authorship_verification_test|500|2|1000
pair_predefined|pan22_style_change_advanced|9537|2|19074
pair_predefined|pan22_style_change_basic|2141|2|4282
pair_predefined|pan22_style_change_sentence|22105|2|44210
pair_predefined|pan23_style_change_easy|2826|2|5652
pair_predefined|pan23_style_change_hard|4112|2|8224
pair_predefined|pan23_style_change_medium|7013|2|14026
pair_predefined|pan24_style_change_easy|2471|2|4942
pair_predefined|pan24_style_change_hard|4131|2|8262
pair_predefined|pan24_style_change_medium|4592|2|9184
pair_predefined|pan25_style_change_easy|10247|2|20494
pair_predefined|pan25_style_change_hard|10648|2|21296
pair_predefined|pan25_style_change_medium|12759|2|25518
pair_predefined|pan26_style_change_easy|71108|2|142216
pair_predefined|pan26_style_change_hard|54141|2|108282
pair_predefined|pan26_style_change_medium|24406|2|48812
order_alignment|ASSET|1|400|400
order_alignment|OneStopEnglishCorpus|1|600|600
order_alignment|STEL_feature|3|200|600
order_alignment|STEL_register|2|392|784
order_alignment|StylePTB|14|50|700
order_alignment|SynthSTEL_feature|32|200|6400
order_alignment|SynthSTEL_register|8|200|1600
order_alignment|corpus-of-diverse-styles|11|400|4400
order_alignment|graded_formality|2|1000|2000
order_alignment|parallel_shakespeare|1|400|400
order_alignment|twitter_aave_sae|1|400|400
retrieval|amazon|500|195|97787
retrieval|fanfiction|500|86|43411
retrieval|pan18_cross_domain_authorship_attribution_english|50|5|259
retrieval|stackexchange_retrieval|500|125|62980
probing|probing_amazon|46|27584|27584
probing|probing_blog|46|39111|39111
probing|probing_reddit|46|16447|16447
probing|probing_stackexchange|46|9253|9253
"""

ROWS: list[tuple[str, str, int, int, int]] = [
    (t, d, int(c), int(p), int(n)) for t, d, c, p, n in (line.split("|") for line in TABLE_15.split() if line)
]

# Written for this file: common English function words (the function-words encoder sees them).
FUNCTION_WORDS = (
    "the of and to a in that is was he for it with as his on be at by i this had not are but from or have an "
    "they which one you were her all she there would their we him been has when who will more no if out so said "
    "what up its about into than them can only other new some could time these two may then do first any my now "
    "such like our over man me even most made after also did many before must through back years where much your "
    "way well down should because each just those people how too little state good very make world still own see "
    "men work long get here between both life being under never day same another know while last might us great "
    "old year off come since against go came right used take three"
).split()
SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]
PUNCT = (".", ",", "?", "!", ";")
N_CONTENT = 4000


def _vocabulary() -> tuple[np.ndarray, np.ndarray]:
    """Function words + N_CONTENT nonsense words, and a Zipf-like base distribution over them."""
    rng = np.random.default_rng(1234)
    words: list[str] = []
    seen = set(FUNCTION_WORDS)
    while len(words) < N_CONTENT:
        w = "".join(rng.choice(SYLLABLES, size=int(rng.integers(1, 4))))
        if w not in seen:
            seen.add(w)
            words.append(w)
    vocab = np.array(FUNCTION_WORDS + words, dtype=object)
    ranks = np.arange(1, len(vocab) + 1, dtype=np.float64)
    probs = 1.0 / ranks**1.05
    return vocab, probs / probs.sum()


_VOCAB: tuple[np.ndarray, np.ndarray] | None = None


def _vocab() -> tuple[np.ndarray, np.ndarray]:
    global _VOCAB
    if _VOCAB is None:
        _VOCAB = _vocabulary()
    return _VOCAB


def _seed(*parts: Any) -> int:
    return int.from_bytes(hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest(), "little")


class _Writer:
    """Generates texts in one 'style': a tilted word distribution and punctuation habits."""

    def __init__(self, corpus: str, style: str, seed: int) -> None:
        vocab, base = _vocab()
        rng = np.random.default_rng(_seed(corpus, style, seed, "style"))
        tilt = np.ones(len(vocab))
        tilt[rng.choice(len(vocab), size=60, replace=False)] = rng.uniform(2.0, 6.0, size=60)
        p = base * tilt
        self.p = p / p.sum()
        self.punct_p = rng.dirichlet(np.ones(len(PUNCT)) * 2.0)
        self.sentence_len = float(rng.uniform(8, 22))
        self.capitalise = bool(rng.random() < 0.8)

    def texts(
        self, rng: np.random.Generator, n: int, lo: int = 20, hi: int = 300
    ) -> tuple[list[str], list[np.ndarray]]:
        vocab, _ = _vocab()
        lengths = np.exp(rng.uniform(np.log(lo), np.log(hi), size=n)).astype(np.int64)
        idx = rng.choice(len(vocab), size=int(lengths.sum()), p=self.p)
        words = vocab[idx]
        # sentence ends: a punctuation mark after roughly every sentence_len words
        ends = rng.random(len(idx)) < 1.0 / self.sentence_len
        marks = rng.choice(len(PUNCT), size=int(ends.sum()), p=self.punct_p)
        words[ends] = words[ends] + np.array(PUNCT, dtype=object)[marks]
        out, parts = [], []
        start = 0
        for length in lengths.tolist():
            chunk = words[start : start + length]
            text = " ".join(chunk.tolist())
            if self.capitalise:
                text = text[0].upper() + text[1:]
            if not text.endswith(PUNCT):
                text += "."
            out.append(text)
            parts.append(idx[start : start + length])
            start += length
        return out, parts


def _scaled(value: int, scale: float, minimum: int) -> int:
    return max(minimum, int(round(value * scale)))


def _scale(ctx: LoadContext) -> float:
    return float(ctx.options.get("scale", 1.0))


def _labelled(corpus: str, classes: int, total: int, ctx: LoadContext) -> DatasetBundle:
    n = _scaled(total, _scale(ctx), 2 * classes)
    per = [n // classes + (1 if c < n % classes else 0) for c in range(classes)]
    records = []
    for c, k in enumerate(per):
        rng = np.random.default_rng(_seed(corpus, c, ctx.seed, "texts"))
        texts, _ = _Writer(corpus, f"class{c}", ctx.seed).texts(rng, k)
        records += [LabelledText(t, f"class{c}", id=f"{c}-{i}") for i, t in enumerate(texts)]
    return DatasetBundle(
        labelled_texts=records, info={"generator": "synthetic-steb", "classes": classes, "texts": len(records)}
    )


def _pairs(corpus: str, trials: int, ctx: LoadContext) -> DatasetBundle:
    n = _scaled(trials, _scale(ctx), 10)
    rng = np.random.default_rng(_seed(corpus, ctx.seed, "pairs"))
    lo, hi = (8, 60) if "style_change" in corpus else (20, 300)
    pairs = []
    for i in range(n):
        same = i % 2 == 0
        a = _Writer(corpus, f"author{i}", ctx.seed)
        b = a if same else _Writer(corpus, f"author{i}-other", ctx.seed)
        ta, _ = a.texts(rng, 1, lo, hi)
        tb, _ = b.texts(rng, 1, lo, hi)
        pairs.append(TextPair(ta[0], tb[0], same, id=f"trial-{i}"))
    return DatasetBundle(pairs=pairs, info={"generator": "synthetic-steb", "trials": n})


def _order(corpus: str, styles: int, total: int, ctx: LoadContext) -> DatasetBundle:
    n_groups = _scaled(total // 5, _scale(ctx), 4)
    rng = np.random.default_rng(_seed(corpus, ctx.seed, "order"))
    writers = [(_Writer(corpus, f"s{s}a", ctx.seed), _Writer(corpus, f"s{s}b", ctx.seed)) for s in range(styles)]
    other = _Writer(corpus, "distractor", ctx.seed)
    groups = []
    for i in range(n_groups):
        w1, w2 = writers[i % styles]
        (x1,), _ = w1.texts(rng, 1, 10, 60)
        (x2,), _ = w2.texts(rng, 1, 10, 60)
        (y1,), _ = w1.texts(rng, 1, 10, 60)
        (y2,), _ = w2.texts(rng, 1, 10, 60)
        (d,), _ = other.texts(rng, 1, 10, 60)
        if rng.random() < 0.5:
            alternatives, answer = (y1, y2), (0, 1)
        else:
            alternatives, answer = (y2, y1), (1, 0)
        groups.append(
            OrderGroup(
                anchors=(x1, x2),
                alternatives=alternatives,
                answer=answer,
                distractor=d,
                id=f"g{i}",
                style_type=f"style{i % styles}",
            )
        )
    return DatasetBundle(order_groups=groups, info={"generator": "synthetic-steb", "groups": n_groups})


def _retrieval(corpus: str, authors: int, total: int, ctx: LoadContext) -> DatasetBundle:
    n = _scaled(total, _scale(ctx), 2 * authors)
    per = [n // authors + (1 if a < n % authors else 0) for a in range(authors)]
    rng = np.random.default_rng(_seed(corpus, ctx.seed, "retrieval"))
    queries, targets = [], []
    for a, k in enumerate(per):
        texts, _ = _Writer(corpus, f"author{a}", ctx.seed).texts(rng, k)
        half = max(1, k // 2)
        queries.append(TextCollection(f"a{a}", texts[:half], id=f"q{a}"))
        targets.append(TextCollection(f"a{a}", texts[half:], id=f"t{a}"))
    return DatasetBundle(
        retrieval=RetrievalSet(queries, targets), info={"generator": "synthetic-steb", "authors": authors, "texts": n}
    )


PROBE_WORDS = 40


def _probing(corpus: str, total: int, ctx: LoadContext) -> DatasetBundle:
    n = _scaled(total, _scale(ctx), 50)
    rng = np.random.default_rng(_seed(corpus, ctx.seed, "probing"))
    vocab, _ = _vocab()
    records = []
    n_writers = 50
    per = [n // n_writers + (1 if w < n % n_writers else 0) for w in range(n_writers)]
    for w, k in enumerate(per):
        texts, parts = _Writer(corpus, f"writer{w}", ctx.seed).texts(rng, k, 10, 200)
        for i, (text, idx) in enumerate(zip(texts, parts)):
            length = len(idx)
            freq = np.bincount(idx[idx < PROBE_WORDS], minlength=PROBE_WORDS) / length
            feats = {f"freq_{vocab[j]}": float(freq[j]) for j in range(PROBE_WORDS)}
            words = text.split()
            feats.update(
                n_words=float(length),
                mean_word_length=float(np.mean([len(x) for x in words])),
                comma_rate=text.count(",") / length,
                stop_rate=text.count(".") / length,
                question_rate=text.count("?") / length,
                type_token_ratio=len(set(idx.tolist())) / length,
            )
            records.append(FeatureText(text, feats, id=f"w{w}-{i}"))
    return DatasetBundle(
        feature_texts=records, info={"generator": "synthetic-steb", "texts": n, "features": PROBE_WORDS + 6}
    )


def synthetic_datasets() -> list[DatasetSpec]:
    specs = []
    for task, corpus, classes, _per, texts in ROWS:
        name = f"syn-{task}-{corpus}"
        if task in ("clustering", "pair_all"):
            loader = lambda ctx, c=corpus, k=classes, n=texts: _labelled(c, k, n, ctx)  # noqa: E731
        elif task == "pair_predefined":
            loader = lambda ctx, c=corpus, k=classes: _pairs(c, k, ctx)  # noqa: E731
        elif task == "order_alignment":
            loader = lambda ctx, c=corpus, k=classes, n=texts: _order(c, k, n, ctx)  # noqa: E731
        elif task == "retrieval":
            loader = lambda ctx, c=corpus, k=classes, n=texts: _retrieval(c, k, n, ctx)  # noqa: E731
        else:
            loader = lambda ctx, c=corpus, n=texts: _probing(c, n, ctx)  # noqa: E731
        specs.append(
            DatasetSpec(
                name=name,
                description=f"synthetic stand-in for STEB {corpus} ({task}), generated, same counts",
                tasks=(task,),
                loader=loader,
                suites=(SUITE,),
                needs_data=False,
                size=f"{texts} texts",
                content_independence=task == "order_alignment",
                license="CC0-1.0",
                version="1",
            )
        )
    return specs


class RandomProjectionEncoder:
    """Hashed bag of words (2^13 buckets) projected by a fixed seeded Gaussian matrix to 4,096 dims."""

    name = "random-projection-4096"
    family = "baseline"

    def __init__(self, dim: int = 4096, buckets: int = 1 << 13, seed: int = 0) -> None:
        from sklearn.feature_extraction.text import HashingVectorizer

        self.dim, self.buckets, self.seed = int(dim), int(buckets), int(seed)
        self._hasher = HashingVectorizer(
            n_features=self.buckets,
            alternate_sign=False,
            norm="l2",
            lowercase=True,
            token_pattern=r"(?u)\b\w+\b|[^\w\s]",
            dtype=np.float32,
        )
        rng = np.random.default_rng(self.seed)
        self._projection = (rng.standard_normal((self.buckets, self.dim), dtype=np.float32) / np.sqrt(self.dim)).astype(
            np.float32
        )

    def fingerprint(self) -> str:
        return f"random-projection-v1:dim={self.dim}:buckets={self.buckets}:seed={self.seed}:murmur3-hashing-l2"

    def encode(self, texts: list[str]) -> np.ndarray:
        x = self._hasher.transform(texts)
        out = np.asarray(x @ self._projection, dtype=np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


@hookimpl
def register_datasets(register):
    for spec in synthetic_datasets():
        register(spec)


@hookimpl
def register_encoders(register):
    register(
        EncoderSpec(
            name="random-projection-4096",
            description="Hashed bag of words (2^13 buckets) x fixed seeded Gaussian projection to 4,096 dims "
            "(bench/full_steb)",
            factory=RandomProjectionEncoder,
            family="baseline",
        )
    )
