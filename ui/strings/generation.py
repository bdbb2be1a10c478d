"""Strings of page 6, Generation (pages/6_Generation.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "generation.intro": (
        "A decoder-only Transformer (trained on the World English Bible) writes one token at a time, "
        "attending only to the past.",
        "一个仅解码器的 Transformer（在 World English Bible 上训练）每次写出一个词元，只关注已经写出的部分。",
    ),
    "generation.no_model": (
        "No language model found in checkpoints/. Train it: `python -m models.train --preset tf-lm`.",
        "checkpoints/ 中没有找到语言模型。请先训练：`python -m models.train --preset tf-lm`。",
    ),
    "generation.no_limit": ("no limit", "不限"),
    "generation.url.prompt": ("prompt", "提示词"),
    "generation.url.prompt_cut": ("its first 10,000 characters", "其前 10,000 个字符"),
    "generation.url.model": ("model", "模型"),
    "generation.url.temperature": ("temperature", "温度"),
    "generation.url.max_new": ("number of new tokens", "新词元数"),
    "generation.url.seed": ("random seed", "随机种子"),
    "generation.prompt": ("Prompt", "提示词"),
    "generation.prompt_help": ("Empty: the model starts a new verse.", "留空：模型从新的一节经文开始。"),
    "generation.model": ("Model", "模型"),
    "generation.sampling": ("Sampling", "采样"),
    "generation.example": ("Pick an example", "选择示例"),
    "generation.example_placeholder": ("Example prompts …", "示例提示 …"),
    "generation.temperature": ("Temperature T", "温度 T"),
    "generation.temperature_help": (
        "Logits are divided by T before the softmax. T → 0: always the most probable token.",
        "在 softmax 之前把 logits 除以 T。T → 0：总是取概率最大的词元。",
    ),
    "generation.top_k_help": (
        "Sample only among the k most probable tokens (1 = greedy).",
        "只在概率最大的 k 个词元中采样（1 = 贪心）。",
    ),
    "generation.max_new": ("New tokens", "新词元数"),
    "generation.seed": ("Random seed", "随机种子"),
    "generation.cut": (
        "The prompt is longer than the model's context of {max_len} tokens: its first {dropped} tokens were cut off.",
        "提示词超过了模型 {max_len} 个词元的上下文长度：前 {dropped} 个词元被截掉了。",
    ),
    "generation.unknown": (
        "{n} words of the prompt are not in the model's vocabulary (⚠ below): it reads them as <unk>.",
        "提示词中有 {n} 个词不在模型的词表中（下方标 ⚠）：模型把它们读作 <unk>。",
    ),
    "generation.empty": ("(empty)", "（空）"),
    "generation.generated": ("Generated text", "生成的文本"),
    "generation.nothing": ("Nothing was generated.", "没有生成任何内容。"),
    "generation.step_label": ("Generation step", "生成步"),
    "generation.step_caption": (
        "Step {step} of {n}: reading {seen} tokens, the model samples the outlined one",
        "第 {step} 步，共 {n} 步：读入 {seen} 个词元，模型采样出带框的那个",
    ),
    "generation.fig.dist": ("Next-token distribution at step {step}", "第 {step} 步的下一个词元分布"),
    "generation.chosen": (
        "Chosen: “{token}” with probability {prob:.1%} under the sampled distribution.",
        "选中：“{token}”，在采样分布下的概率为 {prob:.1%}。",
    ),
    "generation.fig.row": ("What “{token}” attends to, {head}", "“{token}”关注什么，{head}"),
    "generation.fig.grid": ("Causal attention, every layer × head", "因果注意力，每一层 × 每个头"),
    "generation.grid_caption": (
        "Click a thumbnail to enlarge it. Everything above the diagonal is 0: the look-ahead mask.",
        "点击缩略图可放大。对角线以上全为 0：这是前瞻掩码（look-ahead mask）。",
    ),
    "generation.fig.matrix": ("Causal self-attention, {head}", "因果自注意力，{head}"),
    "generation.x_key": ("key: earlier token", "键：较早的词元"),
    "generation.y_query": ("query: position", "查询：位置"),
    "generation.export.title": ("Generation: {model}", "文本生成：{model}"),
    "generation.export.dist": ("Step {step} next token", "第 {step} 步下一个词元"),
    "generation.export.bars": ("Step {step} attention", "第 {step} 步注意力"),
    "generation.prompt_read": (
        "The prompt as the model reads it (<s> starts a verse)",
        "模型读到的提示词（<s> 表示一节经文的开头）",
    ),
    "generation.prompt_unknown": (
        " — {n} words not in its vocabulary (⚠), read as <unk>",
        " — 其中 {n} 个词不在词表中（⚠），读作 <unk>",
    ),
    "generation.trained": (
        "Trained in {seconds} s; held-out perplexity {ppl} — a small model: expect Bible-flavoured phrases, not sense.",
        "训练用时 {seconds} 秒；留出集困惑度 {ppl}。这是个小模型：会写出带圣经味道的短语，但未必通顺有意义。",
    ),
    "generation.sampling_header": ("Sampling", "采样"),
    "generation.sampling_explain": (
        "Grey bars: the model's own probabilities $\\mathrm{softmax}(z)$. Blue bars: the distribution the token "
        "is drawn from after dividing the logits by the temperature $T$ and keeping the $k$ most probable tokens. "
        "Low $T$ sharpens it (T → 0 is greedy), high $T$ flattens it. The same seed gives the same text.",
        "灰色条：模型自身的概率 $\\mathrm{softmax}(z)$。蓝色条：把 logits 除以温度 $T$ 并只保留概率最大的 $k$ 个"
        "词元之后，实际用来抽取词元的分布。$T$ 低则分布更尖锐（T → 0 即贪心），$T$ 高则更平坦。相同的随机种子得到相同的文本。",
    ),
}

SAME: frozenset[str] = frozenset()
