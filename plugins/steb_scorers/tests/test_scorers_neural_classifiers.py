"""BERTScore and the fine-tuned transformers style classifier with tiny random BERT models."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


def _manual_bertscore(folder, cand: str, ref: str, layer: int) -> tuple[float, float, float]:
    """Greedy cosine matching of layer-``layer`` token vectors.

    As in the BERTScore reference implementation (idf off), [CLS]/[SEP] get weight 0 in the averages
    but stay available as match targets.
    """
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()

    def vecs(text):
        enc = tok(text, return_tensors="pt")
        with torch.no_grad():
            h = model(**enc, output_hidden_states=True).hidden_states[layer][0]
        return h / h.norm(dim=-1, keepdim=True)

    c, r = vecs(cand), vecs(ref)
    sim = c @ r.T
    p = sim.max(dim=1).values[1:-1].mean().item()  # average over real candidate tokens only
    rr = sim.max(dim=0).values[1:-1].mean().item()
    return p, rr, 2 * p * rr / (p + rr)


def test_bertscore_matches_manual_greedy_matching(tiny_bert):
    pytest.importorskip("bert_score")
    from steb_scorers.bertscore import BertScoreScorer

    scorer = BertScoreScorer(model=str(tiny_bert), num_layers=2, batch_size=2)
    assert scorer.details["rescaled"] is False  # no baseline for a local random model
    cands, refs = (
        ["you are ready .", "the cat sat on the mat", "hello"],
        ["it all depends when you are ready .", "a dog sat", "hello there"],
    )
    res = scorer.score(["x"] * 3, cands, references=refs)
    for i, (c, r) in enumerate(zip(cands, refs)):
        p, rr, f = _manual_bertscore(tiny_bert, c, r, 2)
        assert res.components["P"][i] == pytest.approx(p, abs=1e-4)
        assert res.components["R"][i] == pytest.approx(rr, abs=1e-4)
        assert res.scores[i] == pytest.approx(f, abs=1e-4)


def test_bertscore_rescaling_with_a_baseline_file(tiny_bert, tmp_path):
    pytest.importorskip("bert_score")
    from steb_scorers.bertscore import BertScoreScorer

    # bert-score's baseline file: header then one row per layer "layer,P,R,F"
    baseline = tmp_path / "baseline.tsv"
    baseline.write_text("LAYER,P,R,F\n0,0.5,0.5,0.5\n1,0.5,0.5,0.5\n2,0.5,0.5,0.5\n", encoding="utf-8")
    plain = BertScoreScorer(model=str(tiny_bert), num_layers=2).score(
        ["x"], ["you are ready"], references=["you are ready ."]
    )
    scaled = BertScoreScorer(model=str(tiny_bert), num_layers=2, baseline_path=str(baseline)).score(
        ["x"], ["you are ready"], references=["you are ready ."]
    )
    assert scaled.details["rescaled"] is True
    assert scaled.scores[0] == pytest.approx((plain.scores[0] - 0.5) / 0.5, abs=1e-4)


def test_transformers_style_classifier_probability_of_target(tiny_bert_classifier):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from steb_scorers.style import TransformersStyleClassifier

    clf = TransformersStyleClassifier(model=str(tiny_bert_classifier), batch_size=2)
    assert clf.classes == ["informal", "formal"]
    outputs = ["you are ready .", "u r ready", "hello there"]
    res = clf.score(["s"] * 3, outputs, target_style=["formal", "informal", "Formal"])
    tok = AutoTokenizer.from_pretrained(tiny_bert_classifier)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_bert_classifier).eval()
    for i, (text, col) in enumerate(zip(outputs, (1, 0, 1))):
        with torch.no_grad():
            p = torch.softmax(model(**tok(text, return_tensors="pt")).logits[0], -1)[col].item()
        assert res.scores[i] == pytest.approx(p, abs=1e-5)
    assert np.all((res.scores > 0) & (res.scores < 1))
