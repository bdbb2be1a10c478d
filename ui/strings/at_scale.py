"""Strings of the Attention-at-scale page (pages/15_Attention_at_scale.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "nav.15": ("Attention at scale", "大规模注意力"),
    "nav.15.blurb": (
        "FlashAttention's tiles on a real head, the KV cache and shared heads, windows and sinks, "
        "linear attention, and cost against length, measured.",
        "在真实的头上逐块运行 FlashAttention，KV 缓存与共享的头，滑动窗口与汇聚词元，线性注意力，以及实测的长度代价。",
    ),
    "scale.intro": (
        "FlashAttention (Dao et al. 2022) computes exact attention one **tile** at a time: it never holds "
        "the n × n matrix, only a running row maximum m and row sum ℓ (the online softmax).",
        "FlashAttention（Dao 等，2022）一次计算一个**块**，得到精确的注意力：它从不保存 n × n 矩阵，"
        "只保存每行的运行最大值 m 和运行和 ℓ（在线 softmax）。",
    ),
    "scale.text": ("Input", "输入"),
    "scale.text_help": (
        "The text the head reads (cut to the model's first {max} tokens).",
        "头读取的文本（截取模型的前 {max} 个词元）。",
    ),
    "scale.url.text": ("input", "输入"),
    "scale.url.text_cut": ("its first 2,000 characters", "其前 2,000 个字符"),
    "scale.model": ("Model", "模型"),
    "scale.model_help": (
        "tf-lm: the lab's small decoder LM (shipped). SmolLM2-135M: a real LLM (after python -m models.prepare_llm).",
        "tf-lm：本实验室的小型解码器语言模型（随附）。SmolLM2-135M：真实的大语言模型"
        "（先运行 python -m models.prepare_llm）。",
    ),
    "scale.options": ("Model, layer and head", "模型、层和头"),
    "scale.block": ("Tile size", "块大小"),
    "scale.block_help": ("B: each tile holds B queries × B keys.", "B：每个块包含 B 个查询 × B 个键。"),
    "scale.qblock": ("Query block", "查询块"),
    "scale.qblock_help": (
        "Which block of queries to follow through the key blocks.",
        "选择一个查询块，看它依次经过各个键块。",
    ),
    "scale.qblock_label": ("queries {start}–{stop}", "查询 {start}–{stop}"),
    "scale.step": ("Key block", "键块"),
    "scale.empty": ("Type at least 2 tokens.", "请至少输入 2 个词元。"),
    "scale.cut": ("The input was cut to its first {n} tokens.", "输入已截取为前 {n} 个词元。"),
    "scale.fig.title": (
        "{model}, layer {layer}, head {head}: key block {j} of {nj} for queries {q0}–{q1}",
        "{model}，第 {layer} 层，第 {head} 个头：查询 {q0}–{q1} 的第 {j} 个键块，共 {nj} 个",
    ),
    "scale.fig.matrix": ("What standard attention holds: P (n × n)", "标准注意力保存的：P（n × n）"),
    "scale.fig.tile": ("This tile: exp(S − m_new)", "本块：exp(S − m_new)"),
    "scale.fig.x": ("key", "键"),
    "scale.fig.y": ("query", "查询"),
    "scale.fig.hover": ("query %{y}, key %{x}: %{z:.3f}", "查询 %{y}，键 %{x}：%{z:.3f}"),
    "scale.caption": (
        "Rows of this block whose maximum grew here: {grew} of {rows}; their partial output was "
        "rescaled by exp(m_old − m_new), smallest factor {smallest:.3g}.",
        "本块中最大值在此增大的行：{grew} / {rows}；这些行的部分输出乘以 exp(m_old − m_new) 重新缩放，"
        "最小因子为 {smallest:.3g}。",
    ),
    "scale.done": (
        "All key blocks folded in: max |O_tiled − softmax(QKᵀ/√d)V| = {diff:.2e} over every row "
        "(float32; the model's own output differs from it by {model:.2e}).",
        "所有键块都已合并：所有行上 max |O_tiled − softmax(QKᵀ/√d)V| = {diff:.2e}"
        "（float32；模型自身的输出与之相差 {model:.2e}）。",
    ),
    "scale.kept": ("Kept by the tiled pass", "分块计算保存的"),
    "scale.kept_value": ("{numbers:,} numbers (m, ℓ)", "{numbers:,} 个数（m，ℓ）"),
    "scale.held": ("Held by standard attention", "标准注意力保存的"),
    "scale.held_value": ("{numbers:,} numbers (P)", "{numbers:,} 个数（P）"),
    "scale.rows.table": ("The block's rows after this tile", "本块之后各行的状态"),
    "scale.col.token": ("query", "查询"),
    "scale.col.m_old": ("m before", "之前的 m"),
    "scale.col.m_new": ("m after", "之后的 m"),
    "scale.col.factor": ("exp(m_old − m_new)", "exp(m_old − m_new)"),
    "scale.col.l": ("ℓ after", "之后的 ℓ"),
    "scale.tab.rows": ("m and ℓ, row by row", "逐行的 m 和 ℓ"),
    "scale.tab.rebuild": ("Rebuild a row", "重建一行"),
    "scale.tab.cache": ("KV cache and shared heads", "KV 缓存与共享的头"),
    "scale.tab.window": ("Windows and sinks", "窗口与汇聚词元"),
    "scale.tab.linear": ("Linear attention", "线性注意力"),
    "scale.tab.cost": ("Cost against length", "长度与代价"),
    "scale.rebuild.explain": (
        "The tiled pass saves one number per row, the log-sum-exp L_i = m_i + log ℓ_i. From "
        "q_i, K and L_i alone, row i of the attention matrix comes back: "
        "P_i = exp(q_i Kᵀ/√d − L_i) (FlashAttention's backward pass, §3.1).",
        "分块计算每行只保存一个数：log-sum-exp L_i = m_i + log ℓ_i。仅凭 q_i、K 和 L_i 就能"
        "重建注意力矩阵的第 i 行：P_i = exp(q_i Kᵀ/√d − L_i)（FlashAttention 的反向传播，§3.1）。",
    ),
    "scale.rebuild.row": ("Row (query)", "行（查询）"),
    "scale.rebuild.fig": (
        "Row {row} “{token}”: stored P against rebuilt exp(q Kᵀ/√d − L), max difference {diff:.1e}",
        "第 {row} 行“{token}”：保存的 P 与重建的 exp(q Kᵀ/√d − L)，最大差 {diff:.1e}",
    ),
    "scale.rebuild.stored": ("stored P_i", "保存的 P_i"),
    "scale.rebuild.rebuilt": ("rebuilt from L_i", "由 L_i 重建"),
    "scale.cache.explain": (
        "Each generated token reads the keys and values of every earlier token. The KV cache "
        "keeps them: 2 × layers × K/V heads × head dim numbers per token. Sharing K/V heads "
        "between query heads (GQA, MQA) divides it.",
        "每个生成的词元都要读取之前所有词元的键和值。KV 缓存保存它们：每个词元 2 × 层数 × K/V 头数 × "
        "头维度 个数。让多个查询头共享 K/V 头（GQA、MQA）可以成倍减小它。",
    ),
    "scale.cache.context": ("Context length", "上下文长度"),
    "scale.cache.bytes": ("Bytes per value", "每个值的字节数"),
    "scale.cache.fig": ("KV cache against context length", "KV 缓存与上下文长度"),
    "scale.cache.x": ("context length (tokens)", "上下文长度（词元）"),
    "scale.cache.y": ("KV cache (MiB)", "KV 缓存（MiB）"),
    "scale.cache.chosen": ("chosen length", "所选长度"),
    "scale.cache.col.layout": ("model", "模型"),
    "scale.cache.col.kind": ("sharing", "共享方式"),
    "scale.cache.col.heads": ("query : K/V heads", "查询头 : K/V 头"),
    "scale.cache.col.per_token": ("per token (KiB)", "每个词元（KiB）"),
    "scale.cache.col.total": ("at the chosen length (MiB)", "在所选长度（MiB）"),
    "scale.cache.measure": ("Measure generation time", "测量生成时间"),
    "scale.cache.measure_help": (
        "Generate {new} tokens after a {prompt}-token prompt with and without the cache, here and now (a few seconds).",
        "在 {prompt} 个词元的提示之后，分别使用和不使用缓存生成 {new} 个词元，现场测量（几秒钟）。",
    ),
    "scale.cache.measured": (
        "{model}: {with_cache:.1f} ms per token with the KV cache, {without:.1f} ms without "
        "(recomputing every earlier token at each step), {new} tokens after a {prompt}-token "
        "prompt, on this machine's CPU.",
        "{model}：使用 KV 缓存时每个词元 {with_cache:.1f} ms，不使用时 {without:.1f} ms"
        "（每一步都重新计算之前的所有词元），提示 {prompt} 个词元后生成 {new} 个，在本机 CPU 上。",
    ),
    "scale.window.explain": (
        "Sliding-window attention lets each query see only its last w keys, so the cache holds "
        "w tokens. StreamingLLM (Xiao et al. 2023) also keeps the first few tokens, the "
        "attention sinks that many heads put their spare weight on.",
        "滑动窗口注意力让每个查询只看最近的 w 个键，因此缓存只保存 w 个词元。StreamingLLM（Xiao 等，"
        "2023）还保留最前面的几个词元：许多头把多余的注意力权重放在这些汇聚词元上。",
    ),
    "scale.window.w": ("Window w", "窗口 w"),
    "scale.window.sinks": ("Sink tokens", "汇聚词元数"),
    "scale.window.fig": (
        "Masks over {n} tokens: what each query may attend to",
        "{n} 个词元上的掩码：每个查询可以关注哪些词元",
    ),
    "scale.window.full": ("full: cache {n}", "完整：缓存 {n}"),
    "scale.window.window": ("window {w}: cache {c}", "窗口 {w}：缓存 {c}"),
    "scale.window.sink": ("window {w} + {s} sinks: cache {c}", "窗口 {w} + {s} 个汇聚：缓存 {c}"),
    "scale.window.missing": (
        "No measured perplexities yet: run python -m bench.window_sinks --save (needs SmolLM2).",
        "还没有测量的困惑度：请运行 python -m bench.window_sinks --save（需要 SmolLM2）。",
    ),
    "scale.window.ppl_fig": (
        "{model}: perplexity of {n} tokens of the Bible, queries {start}+ (measured)",
        "{model}：圣经 {n} 个词元的困惑度，第 {start} 个查询起（实测）",
    ),
    "scale.window.alone": ("window alone", "仅窗口"),
    "scale.window.with_sinks": ("window + {k} sinks", "窗口 + {k} 个汇聚词元"),
    "scale.window.full_line": ("full attention", "完整注意力"),
    "scale.window.x": ("window w (keys)", "窗口 w（键）"),
    "scale.window.y": ("perplexity", "困惑度"),
    "scale.window.col.setting": ("attention", "注意力"),
    "scale.window.col.cache": ("KV cache after the text", "读完文本后的 KV 缓存"),
    "scale.window.col.ppl": ("perplexity (queries ≥ largest w)", "困惑度（查询 ≥ 最大 w）"),
    "scale.window.col.ratio": ("÷ full", "÷ 完整"),
    "scale.window.col.all": ("perplexity (whole text)", "困惑度（全文）"),
    "scale.window.full_row": ("full causal", "完整因果"),
    "scale.window.window_row": ("window {w}", "窗口 {w}"),
    "scale.window.sink_row": ("window {w} + {s} sinks", "窗口 {w} + {s} 个汇聚词元"),
    "scale.window.cache_value": ("{c:,} tokens, {mib:.1f} MiB", "{c:,} 个词元，{mib:.1f} MiB"),
    "scale.window.source": (
        "Measured by python -m bench.window_sinks: SmolLM2-135M reads the first {n} tokens of the "
        "World English Bible once per setting, with a mask added to the scores of every head of "
        "every layer (0 where allowed, the most negative float elsewhere); perplexity over the "
        "queries from position {start} on, where every window has dropped keys. The mask "
        "computes what a rolling cache would; one difference from StreamingLLM: the sinks keep "
        "their place in the text instead of being renumbered next to the window. Cache in "
        "float32: 2 × 30 layers × 3 K/V heads × 64 × 4 bytes per token.",
        "由 python -m bench.window_sinks 测量：SmolLM2-135M 对每种设置读一遍世界英文圣经的前 {n} "
        "个词元，在每一层每个头的分数上加一个掩码（允许处为 0，其余为最小的浮点数）；困惑度从第 "
        "{start} 个查询算起，此时每个窗口都已丢弃了一些键。掩码算出的正是滚动缓存的结果；与 "
        "StreamingLLM 的一个区别：汇聚词元保留它们在文本中的位置，而不是重新编号到窗口旁边。"
        "缓存按 float32 计：每个词元 2 × 30 层 × 3 个 K/V 头 × 64 × 4 字节。",
    ),
    "scale.linear.explain": (
        "Linear attention (Katharopoulos et al. 2020) replaces exp(q·k) by φ(q)·φ(k) with "
        "φ(x) = elu(x) + 1. The same layer then runs in parallel, with the n × n matrix "
        "φ(Q)φ(K)ᵀ, or as a recurrence with a d × d state: S_t = S_{t−1} + φ(k_t)v_tᵀ.",
        "线性注意力（Katharopoulos 等，2020）把 exp(q·k) 换成 φ(q)·φ(k)，其中 φ(x) = elu(x) + 1。"
        "同一层既可以用 n × n 矩阵 φ(Q)φ(K)ᵀ 并行计算，也可以用 d × d 的状态递推："
        "S_t = S_{t−1} + φ(k_t)v_tᵀ。",
    ),
    "scale.linear.result": (
        "On this head's Q, K, V ({n} tokens): max |parallel − recurrent| = {diff:.1e}; the "
        "recurrent state holds {state:,} numbers whatever the length, the parallel form "
        "{matrix:,}.",
        "在这个头的 Q、K、V 上（{n} 个词元）：max |并行 − 递推| = {diff:.1e}；递推状态无论长度都只有 "
        "{state:,} 个数，并行形式有 {matrix:,} 个。",
    ),
    "scale.linear.trained": (
        "Trained here: two small decoder LMs, identical but for their attention (softmax, or "
        "linear with φ = elu + 1), on the same batches of the Bible for the same steps. Small "
        "models trained in minutes of CPU: a comparison of these two, not of the methods at scale.",
        "在本实验室训练：两个小型解码器语言模型，除注意力外完全相同（softmax，或 φ = elu + 1 的线性"
        "注意力），在相同的圣经批次上训练相同的步数。这是在 CPU 上几分钟训练出的小模型："
        "比较的是这两个模型，而不是大规模下的两种方法。",
    ),
    "scale.linear.missing": (
        "No trained comparison yet: run python -m bench.linear_attention --save.",
        "还没有训练比较的结果：请运行 python -m bench.linear_attention --save。",
    ),
    "scale.linear.softmax": ("softmax", "softmax"),
    "scale.linear.linear": ("linear (elu + 1)", "线性（elu + 1）"),
    "scale.linear.col.kind": ("attention", "注意力"),
    "scale.linear.col.ppl": ("held-out perplexity", "留出集困惑度"),
    "scale.linear.col.loss": ("final training loss", "最终训练损失"),
    "scale.linear.col.seconds": ("training seconds", "训练秒数"),
    "scale.linear.setup": (
        "{params:,} parameters each: {layers} layers, d = {d}, {heads} heads; {steps} steps of "
        "{batch} × {context} words ({vocab:,}-word vocabulary), held-out chapters of the World "
        "English Bible. The trained linear model's recurrent form (one token at a time, a d × d "
        "state per head) gives its parallel form's logits within {diff:.1e}.",
        "每个 {params:,} 个参数：{layers} 层，d = {d}，{heads} 个头；{steps} 步，每步 {batch} × "
        "{context} 个词（词表 {vocab:,} 个词），在世界英文圣经的留出章节上评估。训练好的线性模型的"
        "递推形式（逐个词元，每个头一个 d × d 状态）与其并行形式的 logits 相差在 {diff:.1e} 以内。",
    ),
    "scale.linear.fig": ("The two trained models against length (log–log)", "两个训练好的模型与长度（双对数）"),
    "scale.linear.fwd": ("one pass over n tokens", "处理 n 个词元的一次前向"),
    "scale.linear.step": ("one new token after n", "n 个词元后生成一个词元"),
    "scale.linear.state": ("state held after n", "n 个词元后保存的状态"),
    "scale.linear.kib": ("KiB", "KiB"),
    "scale.linear.cost_source": (
        "Measured by python -m bench.linear_attention on this machine's CPU ({threads} "
        "thread(s), the fastest of {repeats}): softmax reads n tokens with the n × n matrix "
        "and generates against its KV cache; linear reads them in its recurrent form, 64 "
        "at a time, and generates against S and z.",
        "由 python -m bench.linear_attention 在本机 CPU 上测量（{threads} 个线程，取 {repeats} "
        "次中最快的）：softmax 用 n × n 矩阵读取 n 个词元，并用 KV 缓存生成；线性注意力以递推"
        "形式每次读取 64 个，并用 S 和 z 生成。",
    ),
    "scale.cost.explain": (
        "Time and peak memory of one causal head (d = 64, float32) from 128 to 8,192 tokens, "
        "measured by python -m bench.attention_cost on the lab's CPU; the legend gives each "
        "method's fitted exponent over 1k–8k tokens.",
        "一个因果头（d = 64，float32）在 128 到 8,192 个词元上的时间和峰值内存，由 "
        "python -m bench.attention_cost 在本实验室的 CPU 上测量；图例给出每种方法在 1k–8k "
        "词元上拟合的指数。",
    ),
    "scale.cost.fig": ("Cost against length (log–log)", "长度与代价（双对数）"),
    "scale.cost.time": ("time", "时间"),
    "scale.cost.memory": ("peak memory", "峰值内存"),
    "scale.cost.x": ("tokens n", "词元数 n"),
    "scale.cost.time_y": ("ms", "ms"),
    "scale.cost.memory_y": ("MiB", "MiB"),
    "scale.cost.matrix": ("n × n float32 matrix", "n × n float32 矩阵"),
    "scale.cost.method": ("{method}: time ∝ n^{b:.2f}", "{method}：时间 ∝ n^{b:.2f}"),
    "scale.cost.exact": ("exact", "精确"),
    "scale.cost.tiled": ("tiled", "分块"),
    "scale.cost.window": ("window 256", "窗口 256"),
    "scale.cost.linear": ("linear", "线性"),
    "scale.cost.missing": (
        "No measured table yet: run python -m bench.attention_cost --save.",
        "还没有测量结果：请运行 python -m bench.attention_cost --save。",
    ),
    "scale.cost.source": (
        "Measured on {device}: each time is the fastest of {repeats} repeated runs.",
        "在 {device} 上测量：每个时间取 {repeats} 次重复运行中最快的一次。",
    ),
    "scale.export": ("Attention at scale", "大规模注意力"),
    "scale.url.block": ("tile size", "块大小"),
    "scale.url.model": ("model", "模型"),
    "scale.url.qblock": ("query block", "查询块"),
    "slide.scale.line": (
        "Queries {q0}–{q1}, key block {j} of {nj}: m and ℓ updated, O rescaled where m grew",
        "查询 {q0}–{q1}，第 {j} 个键块，共 {nj} 个：更新 m 和 ℓ，在 m 增大的行重新缩放 O",
    ),
}
SAME = frozenset(
    {"scale.cost.time_y", "scale.cost.memory_y", "scale.col.factor", "scale.linear.softmax", "scale.linear.kib"}
)
