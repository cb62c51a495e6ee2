"""The likelihood metric and perplexity against manual forward passes of a tiny random GPT-2."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from steb_scorers.likelihood import (  # noqa: E402
    INSTRUCTIONS,
    PAULI_CONFIGS,
    PAULI_LLAMA3_TEMPLATE,
    PAULI_SYSTEM_PROMPT,
    LikelihoodScorer,
    PerplexityScorer,
)
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


def authors_c_and_s(
    folder, prompts: dict, output: str, end_token: str, add_special: bool = False
) -> tuple[float, float]:
    """C and S as the authors' ``LogProp.calculate_delta`` computes them
    (AmaliePauli/style_transfer_evaluation@1ec3ad9):
    ids = prompt + tokenize(output + end token); probabilities softmax(logits[start:-1]) at ids[start+1:], start =
    len(prompt)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    probs = {}
    for kind, text in prompts.items():
        # the code tokenises its prompt string with tokenize() (special tokens in the string, none added)
        inst_ids = tok(text)["input_ids"] if add_special else tok.convert_tokens_to_ids(tok.tokenize(text))
        output_ids = tok.convert_tokens_to_ids(tok.tokenize(output + end_token))
        input_ids = torch.tensor([inst_ids + output_ids])
        start = len(inst_ids)
        with torch.no_grad():
            logits = model(input_ids=input_ids).logits
        p = torch.softmax(logits[0][start:-1], dim=-1).gather(-1, input_ids[0][start + 1 :].unsqueeze(-1)).squeeze(-1)
        probs[kind] = np.array(p.tolist())
    first, second, third = (
        probs["paraphrase"],
        probs["style"],
        probs["repeat"],
    )  # the code's order: 1 paraphrase, 2 style, 3 repeat
    s = np.mean(second - np.maximum(first, third))
    c = np.mean(np.log(np.maximum(np.maximum(first, second), third)))
    return float(c), float(s)


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
    """Defaults (the authors' system prompt, end token and scored window) against the authors' computation, plain
    prompt format."""
    scorer = LikelihoodScorer(model=tiny_lm, batch_size=4)
    assert scorer.prompt_format == "plain" and scorer.system_prompt == PAULI_SYSTEM_PROMPT and scorer.window == "pauli"
    res = scorer.score(SOURCES, OUTPUTS, target_style=["formal", "informal", "formal"])
    for i, (src, out) in enumerate(zip(SOURCES, OUTPUTS)):
        style = "formal" if i != 1 else "informal"
        prompts = {
            k: PAULI_SYSTEM_PROMPT + "\n\n" + INSTRUCTIONS[k].format(style=style, source=src) + "\n"
            for k in INSTRUCTIONS
        }
        c, s = authors_c_and_s(tiny_lm, prompts, out, "<eos>", add_special=True)
        assert res.components["C"][i] == pytest.approx(c, abs=1e-5)
        assert res.components["S"][i] == pytest.approx(s, abs=1e-6)
    np.testing.assert_array_equal(res.scores, res.components["C"])
    assert (
        res.details["window"] == "pauli" and res.details["end_token"] == "<eos>" and "1ec3ad9" in res.details["source"]
    )
    style_res = LikelihoodScorer(model=tiny_lm, component="style").score(SOURCES, OUTPUTS, target_style="formal")
    np.testing.assert_array_equal(style_res.scores, style_res.components["S"])


def test_output_window_scores_exactly_the_output_tokens(tiny_lm):
    """window='output', no system prompt: every output token, no end token; C and S from one manual pass per
    instruction."""
    res = LikelihoodScorer(model=tiny_lm, window="output", system_prompt=None).score(
        SOURCES, OUTPUTS, target_style="formal"
    )
    for i, (src, out) in enumerate(zip(SOURCES, OUTPUTS)):
        p = {
            k: np.exp(manual_logprobs(tiny_lm, INSTRUCTIONS[k].format(style="formal", source=src) + "\n", out, True)[0])
            for k in INSTRUCTIONS
        }
        assert len(p["style"]) == len(out.split())
        assert res.components["C"][i] == pytest.approx(np.mean(np.log(np.maximum.reduce(list(p.values())))), abs=1e-5)
        assert res.components["S"][i] == pytest.approx(
            np.mean(p["style"] - np.maximum(p["paraphrase"], p["repeat"])), abs=1e-6
        )
    assert res.details["system_prompt"] is None and res.details["end_token"] is None


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
    assert scorer.prompt_format == "chat"
    res = scorer.score(SOURCES[:2], OUTPUTS[:2], target_style="formal")
    for i in range(2):
        # the chat template of conftest, written out by hand: every turn "<bos> role : content <eos> "
        prompts = {
            k: f"<bos> system : {system} <eos> <bos> user : {text.format(style='formal', source=SOURCES[i])} <eos> "
            "<bos> assistant : "
            for k, text in INSTRUCTIONS.items()
        }
        c, s = authors_c_and_s(tiny_chat_lm, prompts, OUTPUTS[i], "<eos>")
        assert res.components["C"][i] == pytest.approx(c, abs=1e-5)
        assert res.components["S"][i] == pytest.approx(s, abs=1e-6)
    assert res.details["system_prompt"] == system
    # the default system prompt is the authors'
    default = LikelihoodScorer(model=tiny_chat_lm)
    assert default.prompt_text("Repeat the following sentence: hi").startswith(
        f"<bos> system : {PAULI_SYSTEM_PROMPT} <eos> <bos> user : Repeat"
    )


def test_selected_instructions_change_c_and_s(tiny_lm):
    full = LikelihoodScorer(model=tiny_lm, window="output", system_prompt=None).score(
        SOURCES, OUTPUTS, target_style="formal"
    )
    two = LikelihoodScorer(model=tiny_lm, use=("style", "repeat"), window="output", system_prompt=None).score(
        SOURCES, OUTPUTS, target_style="formal"
    )
    for i, (src, out) in enumerate(zip(SOURCES, OUTPUTS)):
        lp = {
            k: manual_logprobs(tiny_lm, INSTRUCTIONS[k].format(style="formal", source=src) + "\n", out, True)[0]
            for k in ("style", "repeat")
        }
        assert two.components["C"][i] == pytest.approx(np.mean(np.maximum(lp["style"], lp["repeat"])), abs=1e-5)
        assert two.components["S"][i] == pytest.approx(np.mean(np.exp(lp["style"]) - np.exp(lp["repeat"])), abs=1e-6)
    # A max over more instructions is never smaller, up to float32 rounding: the two scorers put other
    # instructions in one batch, and torch's avx2/avx512 kernels round the same token's log-probability a few
    # float32 ulps apart in differently composed batches (1.2e-7 at -4.08 seen; issue 50). 16 ulps of the
    # value's magnitude is the margin, as the 1e-5 above is for one text against the batched scorer.
    margin = 16 * np.finfo(np.float32).eps * np.maximum(np.abs(two.components["C"]), 1.0)
    assert (full.components["C"] >= two.components["C"] - margin).all()
    assert set(two.details["instructions"]) == {"style", "repeat"}
    with pytest.raises(ValueError, match="use="):
        LikelihoodScorer(model=tiny_lm, use=("style", "translate"))


def test_paper_configurations_name_the_models_and_fail_offline(tmp_path, monkeypatch):
    from steb_scorers.checkpoints import ModelNotFoundError

    assert PAULI_CONFIGS["pauli-llama-3.2-3b"]["model"] == "meta-llama/Llama-3.2-3B-Instruct"
    assert PAULI_CONFIGS["pauli-llama-3.1-8b"]["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert all(c["prompt_format"] == "pauli-llama3" and c["dtype"] == "bfloat16" for c in PAULI_CONFIGS.values())
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(ModelNotFoundError, match="steb models get meta-llama/Llama-3.2-3B-Instruct"):
        LikelihoodScorer(config="pauli-llama-3.2-3b")
    with pytest.raises(ValueError, match="unknown likelihood configuration"):
        LikelihoodScorer(config="gpt-5")


# -- the authors' prompt string on a tiny model with Llama 3's special tokens ---------------------------------

#: the authors' strings, copied here from AmaliePauli/style_transfer_evaluation@1ec3ad9 LogProp.py (not from the module
#: under test)
AUTHORS_SYSTEM = (
    "You can repeat sentences, paraphrase sentences or rewrite sentences to change the style or certain attribute of "
    "the text "
    "while preserving non-related content and context. Your answers contain just the rewrite."
)
AUTHORS_TEMPLATE = (
    "<|begin_of_text|><|start_header_id|>system<|end_header_id|>{}<|eot_id|><|start_header_id|>user<|end_header_id|>{}<|eot_id|>"
    "<|start_header_id|>assistant<|end_header_id|>"
)
AUTHORS_INSTRUCTIONS = {
    "paraphrase": "Paraphrase the following sentence: {}",
    "style": "Rewrite the following sentence to be {}: {}",
    "repeat": "Repeat the following sentence: {}",
}
LLAMA3_SPECIALS = ["<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]


@pytest.fixture(scope="module")
def tiny_llama3_lm(tmp_path_factory):
    """A tiny random GPT-2 whose word-level tokenizer knows Llama 3's header and end-of-turn tokens."""
    import re

    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    texts = [
        AUTHORS_SYSTEM,
        *AUTHORS_INSTRUCTIONS.values(),
        *SOURCES,
        *OUTPUTS,
        "system user assistant formal understandable for layman simplified",
    ]
    words = sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t)} - {"{", "}"})
    vocab = {w: i for i, w in enumerate(["<pad>", "<unk>", *LLAMA3_SPECIALS, *words])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    tok.add_special_tokens(LLAMA3_SPECIALS)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        unk_token="<unk>",
        bos_token="<|begin_of_text|>",
        eos_token="<|eot_id|>",
    )
    torch.manual_seed(1)
    config = GPT2Config(
        vocab_size=len(vocab),
        n_positions=256,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=vocab["<|begin_of_text|>"],
        eos_token_id=vocab["<|eot_id|>"],
        pad_token_id=vocab["<pad>"],
    )
    folder = tmp_path_factory.mktemp("tiny_llama3_lm")
    GPT2LMHeadModel(config).eval().save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def test_packaged_defaults_are_the_authors_strings():
    assert PAULI_SYSTEM_PROMPT == AUTHORS_SYSTEM
    assert PAULI_SYSTEM_PROMPT.startswith("You can repeat sentences, paraphrase sentences or rewrite sentences")
    assert PAULI_LLAMA3_TEMPLATE.format(system="S", instruction="I") == AUTHORS_TEMPLATE.format("S", "I")
    assert INSTRUCTIONS["style"].format(style="polite", source="x") == AUTHORS_INSTRUCTIONS["style"].format(
        "polite", "x"
    )
    for k in ("paraphrase", "repeat"):
        assert INSTRUCTIONS[k].format(source="x") == AUTHORS_INSTRUCTIONS[k].format("x")


def test_pauli_configuration_sends_the_system_prompt_and_reproduces_the_authors_code(tiny_llama3_lm):
    """config=pauli-llama-3.2-3b on a tiny stand-in model: the authors' prompt string, system turn included, and
    their C and S."""
    scorer = LikelihoodScorer(config="pauli-llama-3.2-3b", model=tiny_llama3_lm, dtype="float32", batch_size=2)
    assert (
        scorer.prompt_format == "pauli-llama3"
        and scorer.system_prompt == AUTHORS_SYSTEM
        and scorer.end_token == "<|eot_id|>"
    )
    instruction = AUTHORS_INSTRUCTIONS["repeat"].format("hello there")
    assert scorer.prompt_text(instruction) == AUTHORS_TEMPLATE.format(AUTHORS_SYSTEM, instruction)
    tok = scorer.lm.tokenizer
    ids = scorer.prompt_ids(instruction)
    system_ids = tok.convert_tokens_to_ids(tok.tokenize(AUTHORS_SYSTEM))
    assert ids[:4] == tok.convert_tokens_to_ids(
        ["<|begin_of_text|>", "<|start_header_id|>", "system", "<|end_header_id|>"]
    )
    assert (
        ids[4 : 4 + len(system_ids)] == system_ids and tok.unk_token_id not in system_ids
    )  # the system prompt is sent, word for word
    assert ids.count(tok.convert_tokens_to_ids("<|begin_of_text|>")) == 1  # no second BOS added
    res = scorer.score(SOURCES, OUTPUTS, target_style=["formal", "formal", "layman"])
    for i, (src, out) in enumerate(zip(SOURCES, OUTPUTS)):
        style = "understandable for layman" if i == 2 else "formal"  # the authors' script rewrites 'layman'
        prompts = {
            k: AUTHORS_TEMPLATE.format(
                AUTHORS_SYSTEM, AUTHORS_INSTRUCTIONS[k].format(*((style, src) if k == "style" else (src,)))
            )
            for k in AUTHORS_INSTRUCTIONS
        }
        c, s = authors_c_and_s(tiny_llama3_lm, prompts, out, "<|eot_id|>")
        assert res.components["C"][i] == pytest.approx(c, abs=1e-5)
        assert res.components["S"][i] == pytest.approx(s, abs=1e-6)
    assert (
        res.details["prompt_format"] == "pauli-llama3"
        and res.details["system_prompt"] == AUTHORS_SYSTEM
        and res.details["config"] == "pauli-llama-3.2-3b"
    )
    # switching the system prompt off changes the prompt (and the scores)
    bare = LikelihoodScorer(config="pauli-llama-3.2-3b", model=tiny_llama3_lm, dtype="float32", system_prompt=None)
    assert bare.prompt_text(instruction) == (
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>"
        + instruction
        + "<|eot_id|><|start_header_id|>assistant<|end_header_id|>"
    )
    with_system = scorer.score(SOURCES, OUTPUTS, target_style="formal").components["C"]
    assert not np.allclose(bare.score(SOURCES, OUTPUTS, target_style="formal").components["C"], with_system)


def test_pauli_prompt_format_needs_llama3_tokens(tiny_lm):
    with pytest.raises(ValueError, match="Llama 3 tokenizer"):
        LikelihoodScorer(model=tiny_lm, prompt_format="pauli-llama3")
    with pytest.raises(ValueError, match="window"):
        LikelihoodScorer(model=tiny_lm, window="all")
    with pytest.raises(ValueError, match="no chat template"):
        LikelihoodScorer(model=tiny_lm, prompt_format="chat")
