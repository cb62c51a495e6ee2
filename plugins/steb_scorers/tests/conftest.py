"""Fixtures for the scorers' tests: tiny randomly initialised models built offline in a temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest

WORDS = (
    "the a cat dog sat ran on mat is are you u r it all depends when ready rewrite following sentence to be "
    "formal informal paraphrase repeat : . , ? ! hello there how do yes no A B text style which of two texts "
    "better matches requested writing answer with one letter or does show word not present somewhat very"
).split()
CHAT_TEMPLATE = (
    "{% for m in messages %}<bos> {{ m['role'] }} : {{ m['content'] }} <eos> "
    "{% endfor %}{% if add_generation_prompt %}<bos> assistant : {% endif %}"
)


def _word_tokenizer(specials: list[str]):
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {tok: i for i, tok in enumerate(specials + WORDS)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>" if "<unk>" in vocab else "[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    return tok, vocab


def build_tiny_causal_lm(folder: Path, chat_template: str | None = None) -> Path:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tok, vocab = _word_tokenizer(["<pad>", "<unk>", "<bos>", "<eos>"])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>", bos_token="<bos>", eos_token="<eos>"
    )
    if chat_template:
        fast.chat_template = chat_template
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(vocab),
        n_positions=256,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=vocab["<bos>"],
        eos_token_id=vocab["<eos>"],
        pad_token_id=vocab["<pad>"],
    )
    model = GPT2LMHeadModel(config).eval()
    model.save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def build_bigram_causal_lm(folder: Path, answers: dict[str, str], extra_tokens: tuple[str, ...] = ()) -> Path:
    """A tiny GPT-2 whose greedy next token depends only on the current one: after the word ``w`` it writes
    ``answers[w]`` (one vocabulary entry, e.g. a whole JSON reply), after anything else the end of text.

    Its weights are set by hand, not trained: the blocks' output projections and the position embeddings are zero (each
    block passes the residual stream on unchanged), the token embeddings are one-hot, and the untied output layer
    maps each one-hot to the chosen next token. A local model folder that decides its replies from the prompt's last
    word, so the judges' code path (tokenizer, generate, decode) runs end to end with known answers.
    """
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    specials = ["<pad>", "<unk>", "<bos>", "<eos>"]
    replies = sorted(set(answers.values()))
    vocab = {tok: i for i, tok in enumerate(dict.fromkeys(specials + list(WORDS) + list(extra_tokens) + replies))}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>", bos_token="<bos>", eos_token="<eos>"
    )
    size, width = len(vocab), 4 * len(vocab)
    config = GPT2Config(
        vocab_size=size,
        n_positions=512,
        n_embd=width,
        n_layer=1,
        n_head=1,
        tie_word_embeddings=False,
        bos_token_id=vocab["<bos>"],
        eos_token_id=vocab["<eos>"],
        pad_token_id=vocab["<pad>"],
    )
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config).eval()
    with torch.no_grad():
        for block in model.transformer.h:
            for proj in (block.attn.c_proj, block.mlp.c_proj):
                proj.weight.zero_()
                proj.bias.zero_()
        model.transformer.wpe.weight.zero_()
        model.transformer.wte.weight.zero_()
        model.transformer.wte.weight[:, :size] = torch.eye(size)
        head = torch.zeros(size, width)
        for word, i in vocab.items():
            head[vocab[answers[word]] if word in answers else vocab["<eos>"], i] = 10.0
        model.lm_head.weight.copy_(head)
    model.save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def build_tiny_bert(folder: Path, classifier: bool = False, regression: bool = False) -> Path:
    import torch
    from tokenizers import processors
    from transformers import BertConfig, BertForSequenceClassification, BertModel, PreTrainedTokenizerFast

    tok, vocab = _word_tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="[PAD]",
        unk_token="[UNK]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=128,
    )
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        pad_token_id=vocab["[PAD]"],
    )
    if regression:
        config.num_labels = 1
        config.problem_type = "regression"
        model = BertForSequenceClassification(config)
    elif classifier:
        config.num_labels = 2
        config.id2label = {0: "informal", 1: "formal"}
        config.label2id = {"informal": 0, "formal": 1}
        model = BertForSequenceClassification(config)
    else:
        model = BertModel(config)
    model.eval().save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_lm(tmp_path_factory) -> Path:
    pytest.importorskip("transformers")
    return build_tiny_causal_lm(tmp_path_factory.mktemp("tiny_lm"))


@pytest.fixture(scope="session")
def tiny_chat_lm(tmp_path_factory) -> Path:
    pytest.importorskip("transformers")
    return build_tiny_causal_lm(tmp_path_factory.mktemp("tiny_chat_lm"), CHAT_TEMPLATE)


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    pytest.importorskip("transformers")
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


@pytest.fixture(scope="session")
def tiny_bert_classifier(tmp_path_factory) -> Path:
    pytest.importorskip("transformers")
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert_cls"), classifier=True)


@pytest.fixture(scope="session")
def tiny_bert_regressor(tmp_path_factory) -> Path:
    """A BERT with a one-output regression head: BLEURT's architecture (and a regression style metric's)."""
    pytest.importorskip("transformers")
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert_reg"), regression=True)


def shared_data() -> Path | None:
    """../shared/data beside the repository root, or None."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / ".git").exists() or (parent / "pyproject.toml").exists() and (parent / "steb_core").is_dir():
            candidate = parent.parent / "shared" / "data"
            return candidate if candidate.is_dir() else None
    return None


@pytest.fixture
def human_data_dir() -> Path:
    """The real formality human-judgement release, or skip."""
    data = shared_data()
    folder = data / "formality_human_judgements" if data else None
    if folder is None or not folder.is_dir():
        pytest.skip("../shared/data/formality_human_judgements is absent")
    return folder


@pytest.fixture
def scorers_app():
    """A Typer root with the scorers' commands (``steb meta-eval``...) registered, as the steb CLI does."""
    import typer

    from steb_scorers.plugin import register_commands

    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """steb (test root)."""

    register_commands(app)
    return app
