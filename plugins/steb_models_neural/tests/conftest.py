"""Tiny, randomly initialised models built offline for the neural plugin's tests.

Each fixture trains a small tokenizer with the ``tokenizers`` library on a few sentences, builds a
2-layer transformers model from a config and saves both into a temp folder, exactly the layout a
hub download has. Session scope: building them once keeps the suite fast.
"""

from __future__ import annotations

from pathlib import Path

import pytest

WORDS = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
    "upsilon phi chi psi omega the a of and to in is was it that style text author writes short long"
).split()
CORPUS = [" ".join(WORDS[i:] + WORDS[:i]) + " . ! ? ," for i in range(len(WORDS))]


def _wordpiece_tokenizer(model_max_length: int):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(CORPUS, trainers.WordPieceTrainer(vocab_size=200, special_tokens=specials))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=model_max_length,
    )


def _bytelevel_tokenizer(model_max_length: int, padding_side: str = "right"):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(CORPUS, trainer)
    # GPT-2 style: no pad token (the encoder must cope), eos doubles as bos
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|endoftext|>",
        bos_token="<|endoftext|>",
        unk_token="<|endoftext|>",
        model_max_length=model_max_length,
        padding_side=padding_side,
    )


def tiny_bert_model(seed: int, tokenizer):
    """A 2-layer random BERT for ``tokenizer`` (the same config for every seed: only the weights differ)."""
    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id,
    )
    return BertModel(config).eval()


def _save(folder: Path, tokenizer, model) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


@pytest.fixture(autouse=True)
def _own_file_hash_memo(tmp_path_factory, monkeypatch):
    """Fingerprints memoise file hashes next to the steb cache: keep the tests' memo out of the user's."""
    monkeypatch.setenv("STEB_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "steb-cache" / "embeddings"))


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    tokenizer = _wordpiece_tokenizer(64)
    return _save(tmp_path_factory.mktemp("tiny-bert"), tokenizer, tiny_bert_model(0, tokenizer))


@pytest.fixture(scope="session")
def tiny_roberta(tmp_path_factory) -> Path:
    import torch
    from transformers import RobertaConfig, RobertaModel

    torch.manual_seed(1)
    tokenizer = _wordpiece_tokenizer(64)
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=66,
        pad_token_id=tokenizer.pad_token_id,
    )
    return _save(tmp_path_factory.mktemp("tiny-roberta"), tokenizer, RobertaModel(config).eval())


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory) -> Path:
    import torch
    from transformers import GPT2Config, GPT2Model

    torch.manual_seed(2)
    tokenizer = _bytelevel_tokenizer(64)
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_embd=32,
        n_layer=2,
        n_head=2,
        n_positions=64,
        bos_token_id=tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return _save(tmp_path_factory.mktemp("tiny-gpt2"), tokenizer, GPT2Model(config).eval())


@pytest.fixture(scope="session", autouse=True)
def _hf_modules_in_temp(tmp_path_factory):
    """transformers copies a folder's own modelling code into its modules cache (~/.cache/huggingface/modules):
    keep that inside the session's temp dir."""
    try:
        import transformers.dynamic_module_utils as dynamic
    except ImportError:  # the tests that need transformers skip themselves
        yield
        return
    patch = pytest.MonkeyPatch()
    patch.setattr(dynamic, "HF_MODULES_CACHE", str(tmp_path_factory.getbasetemp() / "hf-modules"))
    yield
    patch.undo()


# A stand-in for LUAR's modelling code: (episodes, texts, tokens) -> (episodes, dim). Per text a mask-weighted mean of
# token + position embeddings through a tanh layer; over the episode's texts a softmax-weighted sum (not a mean).
_MODEL_CODE = """
import torch
from transformers import PretrainedConfig, PreTrainedModel


class TinyEpisodeConfig(PretrainedConfig):
    model_type = "LUAR"

    def __init__(self, vocab_size=200, hidden=16, positions=64, **kwargs):
        self.vocab_size, self.hidden, self.positions = vocab_size, hidden, positions
        super().__init__(**kwargs)


class TinyEpisodeModel(PreTrainedModel):
    config_class = TinyEpisodeConfig

    def __init__(self, config):
        super().__init__(config)
        self.tokens = torch.nn.Embedding(config.vocab_size, config.hidden)
        self.positions = torch.nn.Embedding(config.positions, config.hidden)
        self.layer = torch.nn.Linear(config.hidden, config.hidden)
        self.score = torch.nn.Linear(config.hidden, 1)
        self.post_init()

    def _init_weights(self, module):
        pass

    def forward(self, input_ids, attention_mask):
        places = torch.arange(input_ids.shape[-1], device=input_ids.device)
        states = torch.tanh(self.layer(self.tokens(input_ids) + self.positions(places)))
        mask = attention_mask.unsqueeze(-1).float()
        texts = (states * mask).sum(2) / mask.sum(2).clamp(min=1e-9)
        weights = torch.softmax(self.score(texts), dim=1)
        return (weights * texts).sum(1)
"""


@pytest.fixture(scope="session")
def tiny_luar(tmp_path_factory):
    """A tiny random LUAR-like episode model (its code beside it), laid out like the hub's LUAR:
    config.json with auto_map and model_type LUAR, its code, weights."""
    import json

    import torch
    from safetensors.torch import save_file
    from transformers import AutoConfig, AutoModel

    folder = tmp_path_factory.mktemp("tiny-luar")
    tokenizer = _wordpiece_tokenizer(64)
    tokenizer.save_pretrained(folder)
    (folder / "modeling_tiny_episode.py").write_text(_MODEL_CODE)
    config = {
        "model_type": "LUAR",
        "architectures": ["TinyEpisodeModel"],
        "auto_map": {
            "AutoConfig": "modeling_tiny_episode.TinyEpisodeConfig",
            "AutoModel": "modeling_tiny_episode.TinyEpisodeModel",
        },
        "vocab_size": len(tokenizer),
        "hidden": 16,
        "positions": 64,
    }
    (folder / "config.json").write_text(json.dumps(config))
    torch.manual_seed(5)
    model = AutoModel.from_config(AutoConfig.from_pretrained(folder, trust_remote_code=True), trust_remote_code=True)
    for parameter in model.parameters():
        torch.nn.init.normal_(parameter, std=0.5)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(folder / "model.safetensors"))
    return folder


@pytest.fixture(scope="session")
def tiny_kit():
    """The builders above, for tests that make their own tiny models (test modules cannot import conftest)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        wordpiece=_wordpiece_tokenizer, bytelevel=_bytelevel_tokenizer, save=_save, bert=tiny_bert_model, corpus=CORPUS
    )
