"""The Hugging Face adapter on a tiny randomly initialised BertForMaskedLM built here (no download),
its one-line errors for folders that are not models, and the installed MiniLM-L6."""

import json
import os

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from models.inference.hf_adapter import ModelDirError, check_model_dir, default_model_path, load_hf_model, run_hf  # noqa: E402

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "##s", "a", ".", ","]


def make_tiny_bert(folder):
    """Save a 2-layer BertForMaskedLM (hidden 32, random weights) and a WordPiece tokenizer into ``folder``."""
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    tokenizer = BertTokenizerFast(vocab={t: i for i, t in enumerate(vocab)}, do_lower_case=True)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertForMaskedLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return make_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def test_tiny_masked_lm_through_the_adapter(tiny_dir):
    m = load_hf_model(tiny_dir)
    assert m.has_mlm_head and (m.n_layers, m.n_heads, m.hidden) == (2, 4, 32)
    assert "2 layers × 4 heads" in m.summary
    tr = run_hf(m, "The cat sat on the mat.", "The dogs ran.")
    n = len(tr.tokens)
    assert tr.tokens[0] == "[CLS]" and tr.tokens.count("[SEP]") == 2 and "##s" in tr.tokens
    assert tr.attention.shape == (2, 4, n, n) and tr.attention.dtype == np.float32
    np.testing.assert_allclose(tr.attention.sum(-1), 1.0, atol=1e-5)
    assert tr.segment_ids.tolist().count(1) == len(["the", "dog", "##s", "ran", ".", "[SEP]"])
    assert tr.top_ids.shape == (n, 5) and len(tr.top_tokens[0]) == 5
    assert tr.truncated == 0 and tr.special[0] and tr.special[-1]


def test_truncation_and_empty_text(tiny_dir):
    m = load_hf_model(tiny_dir)
    tr = run_hf(m, "the cat " * 100, max_tokens=512)
    assert tr.attention.shape[-1] == 64, "capped at the model's max_position_embeddings"
    assert tr.truncated == tr.n_tokens_in - 64 > 0
    tr = run_hf(m, "🙂 <script>alert(1)</script> 红色", max_tokens=16)
    assert "[UNK]" in tr.tokens
    with pytest.raises(ValueError, match="nothing"):
        run_hf(m, "   ")


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p / "missing", "does not exist"),
        (lambda p: (p / "file.txt").write_text("x") and p / "file.txt", "is a file"),
        (lambda p: p, "no config.json"),
        (lambda p: (p / "config.json").write_text("{not json") and p, "not valid JSON"),
        (lambda p: (p / "config.json").write_text(json.dumps({"family": "bert"})) and p, "no model_type"),
        (lambda p: (p / "config.json").write_text(json.dumps({"model_type": "bert"})) and p, "no weights"),
    ],
)
def test_folders_that_are_not_models(tmp_path, make, message):
    path = make(tmp_path)
    with pytest.raises(ModelDirError, match=message):
        check_model_dir(path)
    with pytest.raises(ModelDirError, match=message):
        load_hf_model(path)


def test_empty_path_and_corrupt_weights(tiny_dir, tmp_path):
    with pytest.raises(ModelDirError, match="no directory"):
        load_hf_model("   ")
    broken = tmp_path / "broken"
    broken.mkdir()
    for f in tiny_dir.iterdir():
        (broken / f.name).write_bytes(f.read_bytes())
    (broken / "model.safetensors").write_bytes(b"garbage")
    with pytest.raises(ModelDirError) as err:
        load_hf_model(broken)
    assert "\n" not in str(err.value)


def test_default_is_installed_minilm():
    path = default_model_path()
    assert (path / "config.json").exists() and check_model_dir(path) == path.resolve()
    m = load_hf_model()
    assert (m.n_layers, m.n_heads, m.hidden) == (6, 12, 384) and not m.has_mlm_head
    tr = run_hf(m, "The animal didn't cross the street because it was too tired.")
    assert tr.attention.shape[:2] == (6, 12) and tr.top_ids is None
