"""The likelihood metric and perplexity against manual forward passes of a tiny random GPT-2."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from steb_scorers.likelihood import INSTRUCTIONS, LikelihoodScorer, PerplexityScorer  # noqa: E402
from steb_scorers.lm import load_causal_lm  # noqa: E402

SOURCES = ["u r ready", "it all depends when you are ready .", "hello there"]
OUTPUTS = ["you are ready .", "it depends", "how do you do ?"]


def manual_logprobs(folder, prompt_text: str, output: str, add_special: bool):
    """One unpadded forward pass over prompt+output; log-probs of the output's tokens only."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    p = tok(prompt_text, add_special_tokens=add_special)["input_ids"]
    o = tok(output, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logits = model(torch.tensor([p + o])).logits[0]
    lp = torch.log_softmax(logits, -1)
    return np.array([lp[len(p) - 1 + k, o[k]].item() for k in range(len(o))]), o


def test_scored_tokens_are_the_output_tokens_and_match_a_manual_pass(tiny_lm):
    lm = load_causal_lm(tiny_lm, batch_size=2)  # batches of 2 force padding between different lengths
    assert not lm.use_chat_template
    instructions = [INSTRUCTIONS["style"].format(style="formal", source=s) for s in SOURCES]
    scored = lm.score_continuations(instructions, OUTPUTS)
    for instr, out, got in zip(instructions, OUTPUTS, scored):
        expected, out_ids = manual_logprobs(tiny_lm, instr + "\n", out, add_special=True)
        assert got.target_ids == out_ids  # exactly the output's tokens: no instruction/source token scored
        assert len(got.logprobs) == len(out.split())  # word-level tokenizer: one token per word
        np.testing.assert_allclose(got.logprobs, expected, atol=1e-5)


def test_chat_template_is_used_and_only_the_answer_is_scored(tiny_chat_lm):
    lm = load_causal_lm(tiny_chat_lm)
    assert lm.use_chat_template
    prompt = lm.format_prompt("Repeat the following sentence: hello there")
    assert prompt.startswith("<bos> user : Repeat") and prompt.endswith("assistant : ")
    (got,) = lm.score_continuations(["Repeat the following sentence: hello there"], ["hello there"])
    expected, out_ids = manual_logprobs(tiny_chat_lm, prompt, "hello there", add_special=False)
    assert got.target_ids == out_ids and len(out_ids) == 2
    np.testing.assert_allclose(got.logprobs, expected, atol=1e-5)


def test_content_and_style_follow_the_definitions(tiny_lm):
    scorer = LikelihoodScorer(model=tiny_lm, batch_size=4)
    res = scorer.score(SOURCES, OUTPUTS, target_style=["formal", "informal", "formal"])
    for i, (src, out) in enumerate(zip(SOURCES, OUTPUTS)):
        style = "formal" if i != 1 else "informal"
        lps = {k: manual_logprobs(tiny_lm, INSTRUCTIONS[k].format(style=style, source=src) + "\n", out, True)[0] for k in INSTRUCTIONS}
        p = {k: np.exp(v) for k, v in lps.items()}
        c = np.mean(np.log(np.maximum.reduce([p["style"], p["paraphrase"], p["repeat"]])))
        s = np.mean(p["style"] - np.maximum(p["paraphrase"], p["repeat"]))
        assert res.components["C"][i] == pytest.approx(c, abs=1e-5)
        assert res.components["S"][i] == pytest.approx(s, abs=1e-6)
    np.testing.assert_array_equal(res.scores, res.components["C"])
    style_res = LikelihoodScorer(model=tiny_lm, component="style").score(SOURCES, OUTPUTS, target_style="formal")
    np.testing.assert_array_equal(style_res.scores, style_res.components["S"])


def test_empty_output_is_undefined_not_zero(tiny_lm):
    res = LikelihoodScorer(model=tiny_lm).score(["hello"], [""], target_style="formal")
    assert np.isnan(res.scores[0])


def test_perplexity_matches_manual(tiny_lm):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    res = PerplexityScorer(model=tiny_lm, batch_size=2).score(SOURCES, OUTPUTS)
    tok = AutoTokenizer.from_pretrained(tiny_lm)
    model = AutoModelForCausalLM.from_pretrained(tiny_lm).eval()
    total, count = 0.0, 0
    for i, out in enumerate(OUTPUTS):
        ids = [tok.bos_token_id] + tok(out, add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            loss = model(torch.tensor([ids]), labels=torch.tensor([ids])).loss.item()  # mean NLL of tokens after BOS
        assert res.scores[i] == pytest.approx(np.exp(loss), rel=1e-4)
        total += loss * (len(ids) - 1)
        count += len(ids) - 1
    assert res.corpus == pytest.approx(np.exp(total / count), rel=1e-4)
    assert res.higher_is_better is False


def test_missing_model_is_a_clear_error():
    with pytest.raises(ValueError, match="model=PATH"):
        LikelihoodScorer()


def test_system_prompt_and_chat_template_hand_computed_c_and_s(tiny_chat_lm):
    """C and S by hand from one unpadded forward pass per instruction, with the system turn in the chat template."""
    system = "You are a careful writer ."
    scorer = LikelihoodScorer(model=tiny_chat_lm, system_prompt=system, batch_size=3)
    res = scorer.score(SOURCES[:2], OUTPUTS[:2], target_style="formal")
    for i in range(2):
        p = {}
        for k, text in INSTRUCTIONS.items():
            user = text.format(style="formal", source=SOURCES[i])
            # the chat template of conftest, written out by hand: every turn "<bos> role : content <eos> "
            prompt = f"<bos> system : {system} <eos> <bos> user : {user} <eos> <bos> assistant : "
            p[k] = np.exp(manual_logprobs(tiny_chat_lm, prompt, OUTPUTS[i], add_special=False)[0])
        c = np.mean(np.log(np.maximum(np.maximum(p["style"], p["paraphrase"]), p["repeat"])))
        s = np.mean(p["style"] - np.maximum(p["paraphrase"], p["repeat"]))
        assert res.components["C"][i] == pytest.approx(c, abs=1e-5)
        assert res.components["S"][i] == pytest.approx(s, abs=1e-6)
    assert res.details["system_prompt"] == system


def test_selected_instructions_change_c_and_s(tiny_lm):
    full = LikelihoodScorer(model=tiny_lm).score(SOURCES, OUTPUTS, target_style="formal")
    two = LikelihoodScorer(model=tiny_lm, use=("style", "repeat")).score(SOURCES, OUTPUTS, target_style="formal")
    for i, (src, out) in enumerate(zip(SOURCES, OUTPUTS)):
        lp = {k: manual_logprobs(tiny_lm, INSTRUCTIONS[k].format(style="formal", source=src) + "\n", out, True)[0] for k in ("style", "repeat")}
        assert two.components["C"][i] == pytest.approx(np.mean(np.maximum(lp["style"], lp["repeat"])), abs=1e-5)
        assert two.components["S"][i] == pytest.approx(np.mean(np.exp(lp["style"]) - np.exp(lp["repeat"])), abs=1e-6)
    assert (full.components["C"] >= two.components["C"] - 1e-9).all()  # a max over more instructions is never smaller
    assert set(two.details["instructions"]) == {"style", "repeat"}
    with pytest.raises(ValueError, match="use="):
        LikelihoodScorer(model=tiny_lm, use=("style", "translate"))


def test_paper_configurations_name_the_models_and_fail_offline(tmp_path, monkeypatch):
    from steb_scorers.checkpoints import ModelNotFoundError
    from steb_scorers.likelihood import PAULI_CONFIGS

    assert PAULI_CONFIGS["pauli-llama-3.2-3b"]["model"] == "meta-llama/Llama-3.2-3B-Instruct"
    assert PAULI_CONFIGS["pauli-llama-3.1-8b"]["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(ModelNotFoundError, match="huggingface-cli download meta-llama/Llama-3.2-3B-Instruct"):
        LikelihoodScorer(config="pauli-llama-3.2-3b")
    with pytest.raises(ValueError, match="unknown likelihood configuration"):
        LikelihoodScorer(config="gpt-5")
