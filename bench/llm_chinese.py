"""How the real LLMs read and answer Chinese: the figures behind the Real LLM page's notice that SmolLM2
does not read Chinese.

`python -m bench.llm_chinese [--model smollm2 gemma3] [--new 16]` reads 10 everyday Chinese prompts with
each converted model and prints, per model,
- tokens per Chinese character, and how many tokens are only a byte fragment of a character
  (:func:`models.inference.llm.chinese_reading`);
- its greedy continuation (chat mode, ``--new`` tokens) of each prompt, sorted as: repeats the
  prompt (the continuation starts with the prompt's first three characters), answers in English
  (no Chinese character in it), or other.
Measured here (2 cores): SmolLM2 2.00 tokens per Chinese character, 89% of them byte fragments; it repeats
the prompt 6, answers in English 2, other 2 of 10. Gemma 3: 0.58 tokens per character, no fragments.
"""

from __future__ import annotations

import argparse

from models.device import configure_threads
from models.inference.llm import CJK, LLMError, chinese_reading, encode_prompt, generate_text, is_converted, load_llm

PROMPTS = (
    "我想喝一杯咖啡。",
    "北京是中国的首都。",
    "今天天气很好，我们去公园吧。",
    "请把这句话翻译成英文：我喜欢学习中文。",
    "我的妹妹明天去北京。",
    "你叫什么名字？",
    "火车站在哪里？",
    "我不喜欢吃米饭。",
    "他每天早上六点起床。",
    "这本书很有意思。",
)


def answer_kind(prompt: str, answer: str) -> str:
    """ "repeats" (the answer starts with the prompt's first three characters), "english" (no Chinese
    character in it) or "other"."""
    text = answer.strip()
    if text.startswith(prompt[:3]):
        return "repeats"
    return "other" if CJK.search(text) else "english"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", nargs="+", default=["smollm2", "gemma3"])
    parser.add_argument("--new", type=int, default=16)
    args = parser.parse_args(argv)
    configure_threads()
    for name in args.model:
        if not is_converted(model=name):
            print(f"{name}: not converted (python -m models.prepare_llm --model {name}); skipped")
            continue
        try:
            llm = load_llm(model=name)
        except LLMError as exc:
            print(f"{name}: {exc}")
            continue
        chars = pieces = fragments = 0
        kinds = {"repeats": 0, "english": 0, "other": 0}
        for prompt in PROMPTS:
            c, p, f = chinese_reading(llm.token_text(encode_prompt(llm, prompt, chat=False)))
            chars, pieces, fragments = chars + c, pieces + p, fragments + f
            trace = generate_text(llm, prompt, chat=True, max_new=args.new, temperature=0.0)
            answer = llm.tokenizer.decode(trace.generated_ids)
            answer_type = answer_kind(prompt, answer)
            kinds[answer_type] += 1
            print(f"  {name:8} {answer_type:8} {prompt} → {answer.strip()[:40]!r}")
        print(
            f"{name}: {pieces / chars:.2f} tokens per Chinese character ({chars} characters, {pieces} pieces, "
            f"{fragments / max(1, pieces):.0%} byte fragments); answers: repeats {kinds['repeats']}, "
            f"English {kinds['english']}, other {kinds['other']} of {len(PROMPTS)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
