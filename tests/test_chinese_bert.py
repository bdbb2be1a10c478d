"""A masked LM that reads Chinese (issue 29): the held-out everyday Chinese sentences and their substring
check, the reply parser of Gemma 3's everyday Chinese, the training documents, and a Chinese BERT trained
by the bert-zh preset (a few steps here) through fill-mask, the everyday evaluation and the BERT page."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from corpora import bert_data, llm_text
from corpora.mlm_eval_zh import SENTENCES, is_held_out, masked_items
from models.training.llm_sentences import keep_new, sentences_of_zh
from tests.conftest import APPTEST_TIMEOUT, ROOT

REPLY = """1. 我每天早上七点起床。
2、我喜欢喝牛奶！他很高兴。
3. I like tea.
4. 早饭
- 以下是十个句子。
5. 妈妈做的早饭非常好吃，我每天都吃得很饱，然后高高兴兴地去学校上课学习。

希望这篇文章对你有帮助。"""


@pytest.fixture(scope="module")
def bert_zh(tmp_path_factory) -> Path:
    """The bert-zh preset, 20 steps: a Chinese BERT checkpoint with its character vocabulary."""
    from models.training.presets import PRESETS
    from models.training.run import run_preset

    folder, _, _ = run_preset(PRESETS["bert-zh"], out=tmp_path_factory.mktemp("ck") / "bert-zh", steps=20)
    return folder


def test_the_held_out_set_hides_one_character_of_each_of_100_sentences() -> None:
    items = masked_items()
    assert len(items) == 100 == len(set(SENTENCES))
    assert ("北京是中国的[MASK]都。", "首") in items
    assert all(sentence.count("[MASK]") == 1 and len(answer) == 1 for sentence, answer in items)


def test_held_out_compares_substrings_both_ways_without_punctuation() -> None:
    assert is_held_out("你知道吗？北京是中国的首都！")  # holds a held-out sentence
    assert is_held_out("北京 是 中国 的 首都")  # the same, segmented
    assert is_held_out("中国的首都")  # part of one
    assert not is_held_out("上海是中国最大的城市。")
    assert not is_held_out("")


def test_the_chinese_reply_parser_keeps_plain_chinese_sentences_up_to_the_first_blank_line() -> None:
    assert list(sentences_of_zh(REPLY)) == ["我每天早上七点起床。", "我喜欢喝牛奶！", "他很高兴。"]


def test_keep_new_drops_duplicates_and_sentences_that_hold_a_held_out_one() -> None:
    seen: set[str] = set()
    kept = keep_new(["我喜欢喝茶。", "我喜欢喝茶。", "其实北京是中国的首都。", "他很高兴。"], seen, is_held_out)
    assert kept == ["我喜欢喝茶。", "他很高兴。"]


def test_the_training_documents_never_hold_a_held_out_sentence(tmp_path, monkeypatch) -> None:
    written = tmp_path / "zh.txt.gz"
    with gzip.open(written, "wt", encoding="utf-8") as f:
        f.write("\n".join(["我们去海边游泳。", "大家都说北京是中国的首都。", "今天很热。", "我想吃冰淇淋。"]) + "\n")
    monkeypatch.setattr(llm_text, "SENTENCES_FILE_ZH", written)
    docs = bert_data.chinese_documents()
    sentences = [s for d in docs for s in d.sentences]
    assert "今天很热。" in sentences and "大家都说北京是中国的首都。" not in sentences
    assert "我们去海边游泳。" not in sentences  # a held-out sentence itself
    assert not any(is_held_out(s) for s in sentences)  # HSK's own "一个星期有七天" and the like are dropped too
    assert all(2 <= len(d.sentences) <= 10 for d in docs)


def test_a_chinese_bert_reads_characters_and_writes_them_without_spaces(bert_zh: Path) -> None:
    from models.checkpoints import load_bert
    from models.inference.bert import fill_mask

    loaded = load_bert(bert_zh)
    assert loaded.training["lang"] == "zh" and loaded.config.norm_first
    tok = loaded.tokenizer
    assert [tok.id_to_token(i) for i in tok.pieces("北京是中国的首都")[0]] == list("北京是中国的首都")
    assert tok.decode(tok.pieces("北京是中国的首都")[0]) == "北京是中国的首都"
    trace = fill_mask(loaded, "北京是中国的[MASK]都", top_k=5)
    assert trace.filled.startswith("北京是中国的") and trace.filled.endswith("都") and " " not in trace.filled
    english = load_bert("bert-small").tokenizer
    assert english.decode(english.pieces("the man went to the store")[0]) == "the man went to the store"


def test_the_everyday_evaluation_of_a_chinese_bert_uses_the_chinese_set(bert_zh: Path) -> None:
    from models.checkpoints import load_bert
    from models.training.mlm_head import evaluate_everyday

    result = evaluate_everyday(load_bert(bert_zh), examples=1)
    assert result["lang"] == "zh" and result["sentences"] == 100 and "mlm_eval_zh" in result["set"]
    assert result["examples"][0]["sentence"] == "北京是中国的[MASK]都。"
    assert result["answers_one_piece"] >= 90  # nearly every hidden character is a piece of its vocabulary


@pytest.mark.slow
def test_the_bert_page_reads_chinese_when_a_chinese_model_is_chosen(bert_zh: Path, tmp_path, monkeypatch) -> None:
    """The page lists the Chinese BERT beside bert-small; choosing it turns the text into its Chinese first
    input, which the page runs (its predictions table at the typed [MASK]); back to bert-small, English again."""
    from streamlit.testing.v1 import AppTest

    from models import checkpoints

    for name, folder in (("bert-small", checkpoints.CHECKPOINT_DIR / "bert-small"), ("bert-zh", bert_zh)):
        os.symlink(folder, tmp_path / name)
    monkeypatch.setattr(checkpoints, "CHECKPOINT_DIR", tmp_path)
    at = AppTest.from_file(str(ROOT / "pages" / "7_BERT_masking.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert at.text_input(key="bert_a").value == "The man went to the store."
    at.selectbox(key="bert_model").set_value("bert-zh").run()
    assert not at.exception
    assert at.text_input(key="bert_a").value == "北京是中国的[MASK]都。"
    assert at.text_input(key="bert_b").value == "我们明天坐火车去北京。"
    chips = " ".join(str(element.proto) for element in at.get("html"))
    assert "北" in chips and "[MASK]" in chips  # the page's own pieces of the Chinese text, one character each
    assert at.selectbox(key="bert_example").label == "Pick an example (written for this page, never training text)"
    at.selectbox(key="bert_model").set_value("bert-small").run()
    assert at.text_input(key="bert_a").value == "The man went to the store."


def test_a_base_model_is_asked_by_the_plain_prompt_and_seeded() -> None:
    """Gemma 3 270M has no chat template: write_batch gives it the start of a list to continue (a tiny Llama
    without one here), one reply per topic, the same replies from the same seed."""
    from models.training.llm_sentences import PROMPT_ZH, write_batch
    from tests.test_explanations import _tiny_llm

    llm = _tiny_llm()
    assert not llm.tokenizer.chat_template
    first = write_batch(llm, ["早饭", "午饭"], seed=3, max_new_tokens=6, prompt=PROMPT_ZH, repetition_penalty=1.2)
    again = write_batch(llm, ["早饭", "午饭"], seed=3, max_new_tokens=6, prompt=PROMPT_ZH, repetition_penalty=1.2)
    assert len(first) == 2 and first == again and all(reply.strip() for reply in first)
