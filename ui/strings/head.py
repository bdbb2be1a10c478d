"""Strings of page 5, Inside one head (pages/5_Inside_one_head.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "head.intro": (
        "One head, one query, every number: q·kᵢ → ÷√d_k → + mask → softmax → weights × values.",
        "一个头、一个查询、每一个数：q·kᵢ → ÷√d_k → + 掩码 → softmax → 权重 × 值。",
    ),
    "head.no_model": (
        "No Transformer checkpoints found in checkpoints/. Train one: `python -m models.train --preset tf-en-fr`.",
        "checkpoints/ 中没有找到 Transformer 检查点。请先训练一个：`python -m models.train --preset tf-en-fr`。",
    ),
    "head.url.model": ("model", "模型"),
    "head.model": ("Model", "模型"),
    "head.url.text": ("text", "文本"),
    "head.url.text_cut": ("its first 10,000 characters", "其前 10,000 个字符"),
    "head.input": ("Input", "输入"),
    "head.input_lm": ("Text for the language model", "给语言模型的文本"),
    "head.url.scale": ("√d_k switch", "√d_k 开关"),
    "head.scale": ("÷ √d_k", "÷ √d_k"),  # the formula's own sign: a word label did not fit its column in 中文
    "head.scale_help": (
        "On: the scores q·k are divided by √d_k. Switch it off to see what the softmax does with raw dot "
        "products: the scores are √d_k times larger, and the softmax saturates towards one key.",
        "打开：分数 q·k 除以 √d_k。关掉它，看看 softmax 对原始点积会怎样：分数大了 √d_k 倍，softmax 趋于饱和，"
        "几乎全部权重落在一个键上。",
    ),
    "head.lm_kind": (
        "A decoder-only model has one attention per layer: causal (masked) self-attention.",
        "仅解码器模型每层只有一种注意力：因果（带掩码的）自注意力。",
    ),
    "head.url.kind": ("attention", "注意力"),
    "head.kind": ("Attention", "注意力"),
    "head.url.query": ("query token", "查询词元"),
    "head.url.query_first": ("the first token", "第一个词元"),
    "head.query": ("Query token", "查询词元"),
    "head.cut": (
        "The input is longer than this model reads: {n} tokens were cut off.",
        "输入超过了该模型能读入的长度：有 {n} 个词元被截掉了。",
    ),
    "head.fig.chain": ("Query “{token}”, layer {layer}, head {head}", "查询“{token}”，第 {layer} 层，头 {head}"),
    "head.export.title": ("Inside one head: {model}", "单个头的内部：{model}"),
    "head.export.chain": ("The chain", "计算链"),
    "head.largest": ("Largest weight", "最大权重"),
    "head.entropy": ("Entropy (bits)", "熵（比特）"),
    "head.entropy_help": (
        "0 bits: all weight on one key; log₂(number of keys): spread evenly.",
        "0 比特：全部权重在一个键上；log₂(键的个数)：均匀分布。",
    ),
    "head.other_without": (
        "Without ÷√d_k the largest weight would be {largest:.3f} (entropy {entropy:.2f} bits).",
        "不除以 √d_k 时，最大权重将是 {largest:.3f}（熵 {entropy:.2f} 比特）。",
    ),
    "head.other_with": (
        "With ÷√d_k the largest weight would be {largest:.3f} (entropy {entropy:.2f} bits).",
        "除以 √d_k 时，最大权重将是 {largest:.3f}（熵 {entropy:.2f} 比特）。",
    ),
    "head.check": (
        "Check: these weights equal the model's own to within {diff:.1e}.",
        "校验：这些权重与模型自身算出的权重相差不超过 {diff:.1e}。",
    ),
    "head.chain_header": ("The chain, as numbers", "计算链的数值"),
    "head.dk": (
        "This head has d_k = {d_k} dimensions, so √d_k = {scale:.3f}. M adds 0 where the query may attend and −∞ "
        "where a mask forbids it.",
        "这个头的 d_k = {d_k} 维，所以 √d_k = {scale:.3f}。在查询可以关注的位置 M 加 0，在掩码禁止的位置加 −∞。",
    ),
    "head.causal": ("causal self-attention", "因果自注意力"),
    "head.queries": ("Queries ({attention}); the chosen one is outlined", "查询（{attention}）；选中的那个带框"),
    "head.keys": ("Keys and values: the encoder's output for the source tokens", "键和值：编码器对源词元的输出"),
    "head.decoder_inputs": (
        "The decoder's inputs come from a greedy translation of the input: the start token, then the output so far.",
        "解码器的输入来自对输入的贪心翻译：先是起始词元，然后是到目前为止的输出。",
    ),
    "head.vectors_header": ("Query, keys and the output", "查询、键与输出"),
    "head.fig.vectors": ("q and every kᵢ of this head (red > 0, blue < 0)", "这个头的 q 和每个 kᵢ（红 > 0，蓝 < 0）"),
    "head.fig.output": ("This head's output Σ αᵢ vᵢ", "这个头的输出 Σ αᵢ vᵢ"),
    "head.concat": (
        "The h head outputs are concatenated and multiplied by W^O to give the sub-layer's output.",
        "h 个头的输出拼接起来再乘以 W^O，得到该子层的输出。",
    ),
    "head.why_scale": (
        "**Why divide by √d_k?** If the entries of q and k have variance 1, q·k has variance d_k: "
        "with d_k = 32 the scores spread about 5.7 times wider, and the softmax pushes nearly all weight "
        "onto the largest one — its gradient then almost vanishes (Vaswani et al. 2017, §3.2.1).",
        "**为什么要除以 √d_k？** 如果 q 和 k 的分量方差为 1，q·k 的方差就是 d_k：d_k = 32 时分数的分布"
        "约宽 5.7 倍，softmax 几乎把全部权重推到最大的那个上，其梯度随之几乎消失（Vaswani et al. 2017，§3.2.1）。",
    ),
}

SAME: frozenset[str] = frozenset()
