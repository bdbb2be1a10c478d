"""Strings of page 2, Seq2seq attention (pages/2_Seq2seq_attention.py, ui/seq2seq.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "seq2seq.intro": (
        "A decoder writes the translation one word at a time; with attention, each step looks back at every "
        "word of the source sentence.",
        "解码器每次写出译文的一个词；有了注意力，每一步都会回看源句中的每一个词。",
    ),
    "seq2seq.no_model": (
        "No seq2seq checkpoints found in checkpoints/. Train one: `python -m models.train --preset s2s-bahdanau`.",
        "checkpoints/ 中没有找到序列到序列检查点。请先训练一个：`python -m models.train --preset s2s-bahdanau`。",
    ),
    "seq2seq.mode.soft": ("As trained", "按训练方式"),
    "seq2seq.mode.hard": ("Hard (decoding-time)", "硬注意力（解码时）"),
    "seq2seq.url.text": ("text", "文本"),
    "seq2seq.url.text_cut": ("its first 10,000 characters", "其前 10,000 个字符"),
    "seq2seq.url.model": ("model", "模型"),
    "seq2seq.url.compare": ("comparison model", "对比模型"),
    "seq2seq.url.no_compare": ("no comparison", "不对比"),
    "seq2seq.url.beam": ("beam width", "束宽"),
    "seq2seq.url.mode": ("attention mode", "注意力模式"),
    "seq2seq.url.alpha": ("length penalty", "长度惩罚"),
    "seq2seq.sentence": ("English sentence", "英语句子"),
    "seq2seq.sentence.zh": ("Chinese sentence", "中文句子"),
    "seq2seq.model": ("Model", "模型"),
    "seq2seq.options": ("Options", "选项"),
    "seq2seq.example": ("Pick an example", "选择示例"),
    "seq2seq.example_placeholder": ("Examples from the corpus grammar …", "来自语料文法的示例 …"),
    "seq2seq.example_placeholder_real": ("Test sentences, never trained on …", "测试集句子（从未用于训练）…"),
    "seq2seq.compare": ("Compare side by side with", "并排对比"),
    "seq2seq.nothing": ("— nothing —", "— 无 —"),
    "seq2seq.beam": ("Beam width", "束宽"),
    "seq2seq.beam_help": ("1 = greedy decoding", "1 = 贪心解码"),
    "seq2seq.mode": ("Attention", "注意力"),
    "seq2seq.mode_help": (
        "As trained: global, local-m or local-p, as the model was trained. Hard: one-hot at the argmax "
        "weight, a decoding-time variant of the Luong models, not trained as such.",
        "按训练方式：全局、local-m 或 local-p，与模型训练时一致。硬注意力：在权重最大处取 one-hot，"
        "是 Luong 模型在解码时的变体，并未按此方式训练。",
    ),
    "seq2seq.mode_luong_only": (
        "{mode} is offered for the Luong models; {model} decodes with soft attention.",
        "{mode}只适用于 Luong 模型；{model} 使用软注意力解码。",
    ),
    "seq2seq.translation_by": ("Translation by {model}", "{model} 的译文"),
    "seq2seq.no_attention_cmp": (
        "No attention: the encoder's final state is the decoder's only view of the source.",
        "无注意力：编码器的最终状态是解码器看到源句的唯一途径。",
    ),
    "seq2seq.step": ("Step {step} of {n}: the tokens emitted so far", "第 {step} 步，共 {n} 步：到目前为止输出的词元"),
    "seq2seq.fig.alpha": ("α at step {step}", "第 {step} 步的 α"),
    "seq2seq.fig.topk": ("Top-{k} next tokens at step {step}", "第 {step} 步概率最高的 {k} 个下一个词元"),
    "seq2seq.no_attention": (
        "This model has no attention: each step sees the source only through the encoder's final "
        "state, so there is nothing to show per source word. Switch to Bahdanau or Luong.",
        "这个模型没有注意力：每一步只能通过编码器的最终状态看到源句，因此没有针对每个源词可显示的内容。"
        "请切换到 Bahdanau 或 Luong。",
    ),
    "seq2seq.fig.heatmap": ("Attention α over the English words", "英语词上的注意力 α"),
    "seq2seq.fig.heatmap.zh": ("Attention α over the Chinese words", "中文词上的注意力 α"),
    "seq2seq.axis.source_zh": ("source (Chinese)", "源句（中文）"),
    "seq2seq.axis.target_en": ("target step (English)", "目标步（英语）"),
    "seq2seq.no_gold": (
        "Real sentence pairs come without a gold word alignment, so this model's attention is not scored "
        "against one (no AER); read the heatmap as the model's own view.",
        "真实句对没有标准词对齐，因此不对这个模型的注意力计算 AER（对齐错误率）；热力图只是模型自己的看法。",
    ),
    "seq2seq.gold": (
        "Red squares: the corpus's gold word alignment for this sentence.",
        "红色方框：语料中这句话的标准词对齐。",
    ),
    "seq2seq.export.title": ("Seq2seq attention: {model}", "序列到序列注意力：{model}"),
    "seq2seq.export.attention": ("Attention", "注意力"),
    "seq2seq.export.step": ("Step {step} attention", "第 {step} 步注意力"),
    "seq2seq.export.topk": ("Step {step} top-k", "第 {step} 步 top-k"),
    "seq2seq.beam_header": ("Beam search", "束搜索"),
    "seq2seq.fig.beam": ("Beam of width {width}: candidates up to step {step}", "束宽 {width}：截至第 {step} 步的候选"),
    "seq2seq.src": ("The English tokens as the model reads them", "模型读到的英语词元"),
    "seq2seq.src.zh": (
        "The Chinese words as the model reads them (cut by forward maximum matching against its vocabulary)",
        "模型读到的中文词（按其词表用正向最大匹配切分）",
    ),
    "seq2seq.src_unknown": (
        " — {n} not in its vocabulary (⚠), read as <unk>",
        " — 其中 {n} 个不在词表中（⚠），读作 <unk>",
    ),
    "seq2seq.hypotheses": (
        "**Every hypothesis the beam finished**, best first (score = Σ log p / ((5 + |y|) / 6)^α, α = {alpha:g}):",
        "**束搜索完成的每个假设**，最好的在前（分数 = Σ log p / ((5 + |y|) / 6)^α，α = {alpha:g}）：",
    ),
    "seq2seq.unfinished": ("   (not finished: length limit)", "   （未完成：达到长度上限）"),
    # ui/seq2seq.py
    "seq2seq.bleu.header": ("Quality against sentence length", "质量随句长的变化"),
    "seq2seq.bleu.col.model": ("model", "模型"),
    "seq2seq.bleu.col.bleu": ("test BLEU", "测试集 BLEU"),
    "seq2seq.bleu.col.aer": ("AER", "AER（对齐错误率）"),
    "seq2seq.bleu.col.exact": ("exact match", "完全匹配"),
    "seq2seq.bleu.col.seconds": ("training (s)", "训练时间（秒）"),
    "seq2seq.bleu.none": (
        "No evaluation shipped yet: run `python -m models.evaluate --write`.",
        "还没有随附评估结果：运行 `python -m models.evaluate --write`。",
    ),
    "seq2seq.bleu.fig": (
        "Test BLEU by source length (as in Bahdanau et al. 2014, Fig. 2)",
        "按源句长度分组的测试集 BLEU（同 Bahdanau et al. 2014 图 2）",
    ),
    "seq2seq.bleu.caption": (
        "Test split of the embedded corpus: word combinations never seen in training. Measured by `{command}`.",
        "内置语料的测试集：训练中从未见过的词组合。由 `{command}` 测得。",
    ),
    "seq2seq.real.header": ("Real sentence pairs: test BLEU and chrF", "真实句对：测试集 BLEU 与 chrF"),
    "seq2seq.real.title": ("{data} — {n} test sentences never trained on", "{data} — {n} 个从未用于训练的测试句子"),
    "seq2seq.real.col.chrf": ("test chrF", "测试集 chrF"),
    "seq2seq.real.col.corpus_bleu": ("BLEU, corpus's own segmentation", "BLEU（语料自带分词）"),
    "seq2seq.real.page_caption": (
        "Test BLEU and chrF as this page computes them: each test sentence typed as text and read "
        "through this page's own input pipeline (Chinese re-segmented against the model's "
        "vocabulary, unknown words split into characters). The last column feeds the corpus's own "
        "segmentation instead, which scores higher.",
        "测试集 BLEU 与 chrF 按本页的算法计算：把每个测试句子当作输入文本，经本页自己的输入流程读入"
        "（中文按模型词表重新分词，未知词拆成单字）。最后一列改用语料自带的分词，得分更高。",
    ),
    "seq2seq.real.copy": ("copy baseline (output = the source words)", "复制基线（输出 = 源语言词）"),
    "seq2seq.real.caption": (
        "BLEU (sacreBLEU, on the tokens) and chrF (character 1–6-grams, β = 2; Popović 2015) on each "
        "corpus's fixed test split. The copy baseline shows what overlap alone scores. Measured by "
        "`{command}`.",
        "在每个语料固定的测试集上计算 BLEU（sacreBLEU，基于词元）和 chrF（字符 1–6 元组，β = 2；"
        "Popović 2015）。复制基线表示仅凭重合能得多少分。由 `{command}` 测得。",
    ),
    "seq2seq.explain.header": ("How attention works here", "这里的注意力如何工作"),
    "seq2seq.explain.intro": (
        "The encoder turns the source words into states $h_1 … h_n$. At each target step $t$ the "
        "decoder scores every source state, turns the scores into weights that sum to 1, and mixes "
        "the states into a context vector:",
        "编码器把源词变成状态 $h_1 … h_n$。在每个目标步 $t$，解码器给每个源状态打分，把分数变成和为 1 "
        "的权重，再把这些状态混合成上下文向量：",
    ),
    "seq2seq.explain.bahdanau": (
        "**Bahdanau (additive)** scores first, then takes the RNN step. The score uses the "
        "*previous* decoder state $s_{t-1}$, and the context is an input of the GRU:",
        "**Bahdanau（加性）** 先打分，再走一步 RNN。分数使用*上一个*解码器状态 $s_{t-1}$，上下文向量作为 GRU 的输入：",
    ),
    "seq2seq.explain.luong": (
        "**Luong** takes the RNN step first, then scores with the *current* state $s_t$ (dot, general "
        "or concat); context and state make the attentional state $\\tilde h_t$ that predicts the "
        "word and is fed to the next step:",
        "**Luong** 先走一步 RNN，再用*当前*状态 $s_t$ 打分（dot、general 或 concat）；上下文向量与状态"
        "组成注意力状态 $\\tilde h_t$，用它预测词，并输入到下一步：",
    ),
    "seq2seq.explain.none_hard": (
        "**No attention**: the whole sentence must squeeze through one fixed vector, the encoder's "
        "final state. Long sentences suffer — see the chart above. **Hard** attention uses the "
        "single most attended state, $c_t = h_{\\arg\\max_i \\alpha_{t,i}}$; here it is a "
        "decoding-time variant of a trained model (Xu et al. 2015 train it with REINFORCE).",
        "**无注意力**：整个句子必须挤过一个固定向量，即编码器的最终状态。长句因此受损 — 见上图。"
        "**硬注意力**只用最受关注的那个状态 $c_t = h_{\\arg\\max_i \\alpha_{t,i}}$；这里它是已训练"
        "模型在解码时的变体（Xu et al. 2015 用 REINFORCE 训练它）。",
    ),
    "seq2seq.explain.local": (
        "**Local attention** (Luong et al. 2015, §3.2) looks at a window $[p_t - D, p_t + D]$ only. "
        "**Local-m** assumes monotonic alignment, $p_t = t$, and takes the softmax inside the window. "
        "**Local-p** predicts $p_t$ from the state and favours words near it with a Gaussian "
        "($\\sigma = D/2$), so its weights sum to at most 1. Both are trained as such here, with "
        "$D = 3$ (the paper uses $D = 10$ for sentences of up to 50 words; ours have 3–32).",
        "**局部注意力**（Luong et al. 2015，§3.2）只看窗口 $[p_t - D, p_t + D]$。**Local-m** 假设单调"
        "对齐 $p_t = t$，在窗口内取 softmax。**Local-p** 从状态预测 $p_t$，并用高斯（$\\sigma = D/2$）"
        "偏向它附近的词，因此权重之和至多为 1。这里两者都按此方式训练，$D = 3$（论文对最长 50 词的句子"
        "用 $D = 10$；我们的句子有 3–32 个词）。",
    ),
    "seq2seq.explain.differ": (
        "**How our models differ from the papers.** GRUs instead of Luong's stacked LSTMs on a "
        "reversed source; a bidirectional encoder for both families; $s_0 = \\tanh(W "
        "[\\overrightarrow{h}_n; \\overleftarrow{h}_1])$ from both directions where Bahdanau uses "
        "$\\tanh(W_s \\overleftarrow{h}_1)$; Bahdanau's output layer is $\\tanh(W[s_t; c_t; "
        "y_{t-1}])$ where the paper uses a maxout layer. Beam search ranks finished translations by "
        "$\\sum \\log p \\,/\\, ((5 + |y|)/6)^\\alpha$ (Wu et al. 2016), the same rule as on the "
        "Transformer page.",
        "**我们的模型与论文的区别。** 用 GRU 代替 Luong 在反转源句上堆叠的 LSTM；两类模型都用双向编码器；"
        "$s_0 = \\tanh(W [\\overrightarrow{h}_n; \\overleftarrow{h}_1])$ 取自两个方向，而 Bahdanau 用 "
        "$\\tanh(W_s \\overleftarrow{h}_1)$；Bahdanau 的输出层是 $\\tanh(W[s_t; c_t; y_{t-1}])$，"
        "而论文用 maxout 层。束搜索按 $\\sum \\log p \\,/\\, ((5 + |y|)/6)^\\alpha$（Wu et al. 2016）"
        "为已完成的译文排序，与 Transformer 页相同。",
    ),
    "seq2seq.local_m": (
        "Diamonds: p_t = t, the centre of local-m's window [p_t − {w}, p_t + {w}]; outside it the weights "
        "are exactly 0.",
        "菱形：p_t = t，即 local-m 窗口 [p_t − {w}, p_t + {w}] 的中心；窗口外权重恰为 0。",
    ),
    "seq2seq.local_p": (
        "Diamonds: the position p_t that local-p predicted at each step; it attends within [p_t − {w}, "
        "p_t + {w}], weighted by a Gaussian around p_t.",
        "菱形：local-p 在每一步预测的位置 p_t；它在 [p_t − {w}, p_t + {w}] 内分配注意力，并按以 p_t 为中心的高斯加权。",
    ),
    # Teacher forcing and exposure bias (ui.seq2seq.exposure_view)
    "seq2seq.exp.header": ("Teacher forcing and exposure bias", "教师强制与暴露偏差"),
    "seq2seq.exp.intro": (
        "In training with teacher forcing, the decoder reads the **gold** previous word at every "
        "step; at test time it reads **its own** previous output. A model that only ever saw gold "
        "prefixes has never practised recovering from its own mistakes (exposure bias). Below, one "
        "test sentence is decoded both ways by the same model, greedily: the left panel's row t is "
        "the word chosen after the gold words y₁…y_(t−1), the right panel's after the model's own "
        "words. Two small Bahdanau RNNs trained on the same 20,000 grammar pairs differ only in the "
        "teacher-forcing ratio: 1.0 (always gold) and 0.5 (at half the steps, the model's own "
        "previous word — scheduled sampling).",
        "用教师强制训练时，解码器在每一步读入**正确的**上一个词；测试时它读入的是**自己的**上一个输出。"
        "一个只见过正确前缀的模型从未练习过从自己的错误中恢复（暴露偏差）。下面用同一个模型以贪心方式"
        "把一个测试句子解码两次：左图第 t 行是在正确词 y₁…y_(t−1) 之后选出的词，右图是在模型自己的词之后"
        "选出的词。两个小型 Bahdanau RNN 在同样的 20,000 个语法句对上训练，只有教师强制比例不同：1.0"
        "（总是正确词）和 0.5（一半的步骤用模型自己的上一个词，即计划采样）。",
    ),
    "seq2seq.exp.none": (
        "The teacher-forcing pair is not shipped. Train it: `python -m models.train --preset "
        "s2s-forcing-1.0` and `--preset s2s-forcing-0.5`.",
        "没有随附教师强制对比模型。训练它们：`python -m models.train --preset s2s-forcing-1.0` 和 "
        "`--preset s2s-forcing-0.5`。",
    ),
    "seq2seq.exp.col.ratio": ("teacher forcing", "教师强制比例"),
    "seq2seq.exp.col.forced": ("word accuracy from gold prefixes", "正确前缀下的词准确率"),
    "seq2seq.exp.col.left": ("share leaving the gold prefix", "偏离正确前缀的比例"),
    "seq2seq.exp.col.step": ("mean step where they part", "平均分歧步"),
    "seq2seq.exp.table_caption": (
        "On the {n} test sentences of the grammar corpus (greedy decoding), from `python -m models.evaluate --write`.",
        "在语法语料的 {n} 个测试句子上（贪心解码），来自 `python -m models.evaluate --write`。",
    ),
    "seq2seq.exp.model": ("Model", "模型"),
    "seq2seq.exp.sentence": ("Test sentence (index)", "测试句子（序号）"),
    "seq2seq.exp.source": ("**Source:** {src}  \n**Reference:** {gold}", "**源句：** {src}  \n**参考译文：** {gold}"),
    "seq2seq.exp.same": (
        "The free run never leaves the gold prefix on this sentence: both decodings are the same.",
        "在这个句子上，自由解码从未偏离正确前缀：两种解码相同。",
    ),
    "seq2seq.exp.parted": (
        "They part at step {step}: the reference has “{gold}”, the free run chose “{own}”; from "
        "there on it reads its own words.",
        "它们在第 {step} 步分歧：参考译文是“{gold}”，自由解码选了“{own}”；此后它读入的是自己的词。",
    ),
    "seq2seq.exp.col.t": ("step", "步"),
    "seq2seq.exp.parted_at": ("step where the runs part", "两次解码分歧的步"),
    "seq2seq.exp.col.gold": ("reference word", "参考词"),
    "seq2seq.exp.col.forced_word": ("chosen after the gold prefix", "正确前缀后选出的词"),
    "seq2seq.exp.col.free_word": ("chosen after its own prefix", "自己的前缀后选出的词"),
    "seq2seq.exp.forced": ("gold prefix (teacher forcing)", "正确前缀（教师强制）"),
    "seq2seq.exp.free": ("own prefix (free running)", "自己的前缀（自由解码）"),
    "seq2seq.exp.fig": (
        "Attention at each step: gold prefix beside own prefix",
        "每一步的注意力：正确前缀与自己的前缀并排",
    ),
    "seq2seq.exp.fig.parted": ("they part", "分歧"),
    "ckpt.label.s2s-forcing-1.0": ("Bahdanau, teacher forcing 1.0 (small)", "Bahdanau，教师强制 1.0（小型）"),
    "ckpt.label.s2s-forcing-0.5": ("Bahdanau, teacher forcing 0.5 (small)", "Bahdanau，教师强制 0.5（小型）"),
    "ckpt.label.s2s-uniform": ("Uniform attention, frozen (small)", "均匀注意力，冻结（小型）"),
}

SAME: frozenset[str] = frozenset()
