"""Strings of page 10, Transformer-XL (pages/10_Transformer_XL.py, ui/transformer_xl.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "nav.10": ("Transformer-XL", "Transformer-XL"),
    "nav.10.blurb": (
        "Beyond a fixed context: segment-level recurrence with a memory, and relative positional "
        "attention, in a model trained here.",
        "超越固定长度的上下文：带记忆的片段级循环与相对位置注意力，模型在本机训练。",
    ),
    "txl.intro": (
        "Transformer-XL (Dai et al. 2019) reads text in segments of L tokens; each also attends to a memory: "
        "the cached states of the M tokens before it. Positions are relative.",
        "Transformer-XL（Dai 等，2019）按每段 L 个词元读取文本；每一段还关注记忆，即它之前 M 个词元缓存的状态。"
        "位置是相对的。",
    ),
    "txl.train_hint": (
        "Train it: python -m models.train --preset xl-lm",
        "请先训练：python -m models.train --preset xl-lm",
    ),
    "txl.text": ("Passage", "段落"),
    "txl.text_help": (
        "Any English text; it is read as lowercase words and punctuation, after <s>.",
        "任意英文文本；按小写单词和标点读取，前面加 <s>。",
    ),
    "txl.url.text": ("passage", "段落"),
    "txl.url.text_cut": ("its first 10,000 characters", "其前 10,000 个字符"),
    "txl.seg": ("Segment L", "片段 L"),
    "txl.seg_help": (
        "Segment length: the tokens read together (the queries). xl-lm was trained with L = 32.",
        "片段长度：一起读入的词元（即查询）。xl-lm 训练时 L = 32。",
    ),
    "txl.mem": ("Memory M", "记忆 M"),
    "txl.mem_help": (
        "Memory length: cached states of the tokens before the segment, no gradient through them. "
        "0 = no memory: every segment is read alone, like a vanilla Transformer on fixed segments. "
        "xl-lm was trained with M = 32.",
        "记忆长度：本段之前词元的缓存状态，梯度不经过它们。0 = 没有记忆：每一段单独读取，"
        "就像固定分段的普通 Transformer。xl-lm 训练时 M = 32。",
    ),
    "txl.options": ("Options", "选项"),
    "txl.model": ("Model", "模型"),
    "txl.model_help": (
        "The shipped xl-lm, or a Transformer-XL trained in the Training studio (your runs and the class's).",
        "随附的 xl-lm，或在训练工作室中训练的 Transformer-XL（你的训练和全班共享的训练）。",
    ),
    "txl.example": ("Pick an example", "选择示例"),
    "txl.example_placeholder": ("Example passages …", "示例段落 …"),
    "txl.dropped": (
        "The passage is long: only its first {n} tokens are read ({dropped} more were cut).",
        "段落太长：只读取前 {n} 个词元（另有 {dropped} 个被截掉）。",
    ),
    "txl.unknown": (
        "{n} words are not in the model's vocabulary: it reads them as <unk>.",
        "有 {n} 个词不在模型的词表中：模型把它们读作 <unk>。",
    ),
    "txl.segment": ("Segment", "片段"),
    "txl.reading": ("Reading …", "正在读取 …"),
    "txl.memory": ("memory ({n})", "记忆（{n}）"),
    "txl.current": ("segment ({n})", "当前片段（{n}）"),
    "txl.fig.attention": ("Segment {s}/{n} · {head}", "第 {s}/{n} 段 · {head}"),
    "txl.x_key": ("key: memory, then the segment", "键：先是记忆，然后是片段"),
    "txl.y_query": ("query: segment token", "查询：片段中的词元"),
    "txl.strip": (
        "Segment {s} of {n}: the memory (cached states of the {m} tokens before it) then its {l} tokens. "
        "Grey cells: the look-ahead mask.",
        "第 {s} 段，共 {n} 段：先是记忆（之前 {m} 个词元缓存的状态），然后是本段的 {l} 个词元。灰色格子：前瞻掩码。",
    ),
    "txl.tab.dependency": ("Dependency (Fig. 2)", "依赖关系（图 2）"),
    "txl.tab.terms": ("Relative attention: 4 terms", "相对注意力：四项"),
    "txl.tab.eval": ("Does memory help?", "记忆有用吗？"),
    "txl.tab.generate": ("Generation with memory", "带记忆的生成"),
    "txl.dep.token": ("Token (position)", "词元（位置）"),
    "txl.dep.layers": ("Layers", "层数"),
    "txl.dep.layers_help": (
        "The model has {n}; more layers show how the reach grows.",
        "模型有 {n} 层；更多层可以看出影响范围如何增长。",
    ),
    "txl.dep.vanilla": ("Vanilla: fixed segments of {L}, no memory", "普通模型：固定 {L} 个词元的片段，无记忆"),
    "txl.dep.xl": ("Transformer-XL: segments of {L}, memory {M}", "Transformer-XL：片段 {L}，记忆 {M}"),
    "txl.dep.caption": (
        "Computed from the attention masks, layer by layer: “{token}” can be influenced by {v} input "
        "tokens in the vanilla model and by {x} with memory (back to position {first}). With memory "
        "the reach grows by about M per layer: O(N × M) instead of L.",
        "逐层由注意力掩码计算得出：在普通模型中“{token}”只能受 {v} 个输入词元影响，有记忆时可受 {x} 个影响"
        "（最远到位置 {first}）。有记忆时每多一层影响范围约增加 M：O(N × M) 而不是 L。",
    ),
    "txl.terms.pick_head": (
        "Pick one head (not the average) to split its score into the four terms.",
        "请选择一个头（而不是平均）来把它的分数拆成四项。",
    ),
    "txl.terms.query": ("Query: token in the segment", "查询：片段中的词元"),
    "txl.terms.a": ("(a) content–content", "(a) 内容–内容"),
    "txl.terms.b": ("(b) content–position", "(b) 内容–位置"),
    "txl.terms.c": ("(c) global content bias u", "(c) 全局内容偏置 u"),
    "txl.terms.d": ("(d) global position bias v", "(d) 全局位置偏置 v"),
    "txl.terms.sum": ("(a)+(b)+(c)+(d)", "(a)+(b)+(c)+(d)"),
    "txl.terms.model": ("the model's score", "模型使用的分数"),
    "txl.terms.title": (
        "Segment {s}: score of “{token}” over its keys, {head} (each term ÷ √d_k)",
        "第 {s} 段：“{token}”对各个键的分数，{head}（每项都除以 √d_k）",
    ),
    "txl.terms.check": (
        "Check: max |(a)+(b)+(c)+(d) − the model's score| = {diff:.1e}. The terms are recomputed with "
        "explicit R_(i−j); the model computed its score with the relative shift.",
        "校验：max |(a)+(b)+(c)+(d) − 模型的分数| = {diff:.1e}。这四项用显式的 R_(i−j) 重新计算；"
        "模型自己用相对移位计算分数。",
    ),
    "txl.terms.r_title": ("R_(i−j), one row per key", "R_(i−j)，每个键一行"),
    "txl.shift.before": ("before: column c ↔ distance K − 1 − c", "移位前：第 c 列 ↔ 距离 K − 1 − c"),
    "txl.shift.after": ("after: [i, j] ↔ i − j (grey: masked)", "移位后：[i, j] ↔ i − j（灰色：被掩码）"),
    "txl.shift.explain": (
        "**The relative shift.** Terms (b) and (d) need R_(i−j) for every query i and key j. Instead of building an "
        "L × K × d tensor, the model multiplies each query by the K sinusoids R_(K−1), …, R_0 once (below, left: "
        "column c stands for distance K − 1 − c in every row; M = 3, L = 4). Padding one zero column in front and "
        "reading the numbers back row by row moves row i left by L − 1 − i, so that cell [i, j] holds distance i − j "
        "(below, right). The cells it fills with wrong distances are exactly the future ones, which the mask removes.",
        "**相对移位。** (b) 和 (d) 两项需要每个查询 i 与每个键 j 的 R_(i−j)。模型不构造 L × K × d 的张量，"
        "而是把每个查询与 K 个正弦编码 R_(K−1), …, R_0 各乘一次（下方左图：每一行中第 c 列对应距离 K − 1 − c；"
        "M = 3，L = 4）。在前面补一列零，再按行重新读取这些数，第 i 行就向左移动 L − 1 − i 格，"
        "于是格子 [i, j] 正好是距离 i − j（下方右图）。被填入错误距离的格子恰好都是未来位置，会被掩码去掉。",
    ),
    "txl.eval.none": (
        "This checkpoint has no recorded evaluation with memory.",
        "这个检查点没有记录带记忆的评估结果。",
    ),
    "txl.eval.title": (
        "Held-out perplexity against the longest context a query sees",
        "留出集困惑度与查询最多能看到的上下文长度",
    ),
    "txl.eval.x": (
        "longest context a query sees (tokens): L + M for Transformer-XL, C for the vanilla LM",
        "查询最多能看到的上下文（词元）：Transformer-XL 为 L + M，普通语言模型为 C",
    ),
    "txl.eval.y": ("perplexity", "困惑度"),
    "txl.eval.xl": ("Transformer-XL, segments of {L}, memory M", "Transformer-XL，片段长 {L}，记忆 M"),
    "txl.eval.vanilla": ("vanilla decoder-only LM ({name}), windows of C", "普通仅解码器语言模型（{name}），窗口长 C"),
    "txl.eval.vs_vanilla": (
        "The vanilla decoder-only LM ({name}), trained on the same text with the same vocabulary and "
        "read in non-overlapping windows of C = {C} tokens, scores {vanilla} on the same chapters; "
        "Transformer-XL with memory reaches {with_mem} while a query sees at most {context} tokens. "
        "Lower is better. Our XL saw {xl_epochs} epochs of the training "
        "text and the vanilla LM {vanilla_epochs}, so compare the curves' shapes as well as their "
        "heights.",
        "普通仅解码器语言模型（{name}）用相同文本和相同词表训练，以不重叠的 C = {C} 个词元窗口读取，"
        "在同样的章节上困惑度为 {vanilla}；带记忆的 Transformer-XL 在查询最多看到 {context} 个词元时为 "
        "{with_mem}。越低越好。我们的 XL 训练时看过 {xl_epochs} 轮训练文本，"
        "普通语言模型看过 {vanilla_epochs} 轮，因此既要比较曲线的高低，也要比较它们的形状。",
    ),
    "txl.eval.no_vanilla": (
        "No vanilla LM comparison recorded yet: python -m models.evaluate --write",
        "尚未记录与普通语言模型的比较：python -m models.evaluate --write",
    ),
    "txl.eval.caption": (
        "Measured on the held-out chapters ({tokens} tokens) when the model was trained "
        "({steps} steps, {seconds} s): with segments of {L} tokens, memory {M} gives perplexity "
        "{with_mem}, no memory {without} — {gain:.0%} lower.",
        "在训练模型时（{steps} 步，{seconds} 秒）于留出章节（{tokens} 个词元）上测得：片段长 {L} 个词元时，"
        "记忆 {M} 的困惑度为 {with_mem}，无记忆为 {without}，降低了 {gain:.0%}。",
    ),
    "txl.eval.bench": (
        "The figures above: python -m models.evaluate --write. Generation speed with cached memory "
        "against recomputing the context: python -m bench.transformer_xl",
        "以上数字：python -m models.evaluate --write。带缓存记忆的生成速度与重新计算整个上下文的比较："
        "python -m bench.transformer_xl",
    ),
    "txl.speed.run": ("Measure generation speed now", "现在测量生成速度"),
    "txl.speed.help": (
        "About 3–10 s on this server: {context} tokens of context, each new token with the cached "
        "memory against re-running the model on the whole context.",
        "在本服务器上约需 3–10 秒：上下文 {context} 个词元，每个新词元使用缓存的记忆，"
        "对比每次都在整个上下文上重新运行模型。",
    ),
    "txl.speed.running": ("Measuring …", "正在测量 …"),
    "txl.speed.result": (
        "Measured just now on this server, {context} tokens of context, mean of {n} tokens: "
        "**{cached:.1f} ms** per token with cached memory, **{recomputed:.1f} ms** recomputing the "
        "context: **{ratio:.1f}× faster** (the paper: 1,800× at 3,800 tokens on its far larger "
        "model).",
        "刚刚在本服务器上测得（上下文 {context} 个词元，{n} 个词元的平均）：使用缓存记忆每个词元 "
        "**{cached:.1f} 毫秒**，重新计算上下文 **{recomputed:.1f} 毫秒**：**快 {ratio:.1f} 倍**"
        "（论文：在大得多的模型上、3,800 个词元时快 1,800 倍）。",
    ),
    "txl.gen.prompt": ("Prompt", "提示词"),
    "txl.gen.temperature": ("Temperature T", "温度 T"),
    "txl.gen.top_k_help": (
        "Sample only among the k most probable tokens (0 = no limit, 1 = greedy).",
        "只在概率最大的 k 个词元中采样（0 = 不限，1 = 贪心）。",
    ),
    "txl.gen.step": ("Generation step", "生成步"),
    "txl.gen.caption": (
        "Step {step} of {n}: the new token (outlined) came from a memory of {memory} cached states (at most {M}).",
        "第 {step} 步，共 {n} 步：新词元（带框）来自 {memory} 个缓存状态组成的记忆（最多 {M} 个）。",
    ),
    "txl.gen.growth": ("Memory length", "记忆长度"),
    "txl.gen.x": ("step", "步"),
    "txl.gen.y": ("memory", "记忆"),
    "txl.gen.row": ("Attention that produced “{token}”, {head}", "产生“{token}”的注意力，{head}"),
    "txl.gen.candidates": ("The model's top candidates: {tops}", "模型概率最高的候选：{tops}"),
    # models.inference.transformer_xl's InputError ``key``s (the English is the exception's own text)
    "txl.err.word": ("Type at least {n} word.", "请至少输入 {n} 个词。"),
    "txl.err.words": ("Type at least {n} words.", "请至少输入 {n} 个词。"),
    "txl.err.seg": ("The segment length must be between 1 and {max}.", "片段长度必须在 1 到 {max} 之间。"),
    "txl.err.mem": ("The memory length must be between 0 and {max}.", "记忆长度必须在 0 到 {max} 之间。"),
    "txl.err.head": ("No head {head} in layer {layer}.", "第 {layer} 层没有头 {head}。"),
    "txl.err.query": ("No token {query} in segment {segment}.", "第 {segment} 段没有第 {query} 个词元。"),
    "txl.err.token": ("No token {token} among {n}.", "{n} 个词元中没有第 {token} 个。"),
    "txl.err.top_k": ("top-k must be between 1 and {max}.", "top-k 必须在 1 到 {max} 之间。"),
}

SAME = frozenset({"nav.10", "txl.terms.sum"})
