"""Strings of page 4, Transformer translation (pages/4_Transformer_translation.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "transformer.intro": (
        "Self-attention in the encoder, masked self-attention and cross-attention in the decoder: every layer, "
        "every head.",
        "编码器中的自注意力，解码器中带掩码的自注意力和交叉注意力：每一层、每一个头。",
    ),
    "transformer.no_model": (
        "No Transformer checkpoints found in checkpoints/. Train one: `python -m models.train --preset tf-en-fr`.",
        "checkpoints/ 中没有找到 Transformer 检查点。请先训练一个：`python -m models.train --preset tf-en-fr`。",
    ),
    "transformer.url.model": ("model", "模型"),
    "transformer.url.text": ("text", "文本"),
    "transformer.url.text_cut": ("its first 10,000 characters", "其前 10,000 个字符"),
    "transformer.url.beam": ("beam width", "束宽"),
    "transformer.url.alpha": ("length penalty", "长度惩罚"),
    "transformer.model": ("Model", "模型"),
    "transformer.sentence": ("English sentence", "英语句子"),
    "transformer.sentence.zh": ("Chinese sentence", "中文句子"),
    "transformer.digits": ("Digits 0–9, separated by spaces", "数字 0–9，用空格分隔"),
    "transformer.options": ("Options", "选项"),
    "transformer.example": ("Pick an example", "选择示例"),
    "transformer.example_placeholder": ("Examples from the corpus grammar …", "来自语料文法的示例 …"),
    "transformer.example_placeholder_real": ("Test sentences, never trained on …", "测试集句子（从未用于训练）…"),
    "transformer.scores.line": (
        "**Test scores of {model}:** BLEU {bleu}, chrF {chrf} on {n_test} sentences never trained on ({test}).",
        "**{model} 的测试分数：** 在 {n_test} 个从未用于训练的句子上（{test}）BLEU {bleu}，chrF {chrf}。",
    ),
    "transformer.scores.page": (
        "These are this page's own figures: each test sentence typed as text and read as this page "
        "reads it (Chinese re-segmented against the model's vocabulary, unknown words split into "
        "characters). Fed the corpus's own segmentation, it scores BLEU {bleu}, chrF {chrf}.",
        "以上是本页自己的分数：把每个测试句子当作输入文本，按本页的方式读入（中文按模型词表重新分词，"
        "未知词拆成单字）。若改用语料自带的分词，得分为 BLEU {bleu}，chrF {chrf}。",
    ),
    "transformer.scores.grammar_line": (
        "Beside it, the grammar Transformer ({model}): BLEU {bleu}, chrF {chrf} on {n_test} test "
        "sentences of its own small made-up grammar — an easier task than real sentences.",
        "作为对照，文法 Transformer（{model}）：在其自带小型人造文法的 {n_test} 个测试句子上 BLEU {bleu}，"
        "chrF {chrf} — 比真实句子容易得多。",
    ),
    "transformer.scores.none": (
        "No test scores for this model: `python -m models.evaluate --write` scores the shipped ones.",
        "此模型没有测试分数：`python -m models.evaluate --write` 只为随附的模型打分。",
    ),
    "transformer.scores.expander": (
        "Test scores of every translation model (BLEU, chrF)",
        "所有翻译模型的测试分数（BLEU、chrF）",
    ),
    "transformer.scores.col.test": ("test set", "测试集"),
    "transformer.scores.col.n": ("sentences", "句子数"),
    "transformer.scores.grammar": ("the embedded grammar, test split", "内置文法的测试集"),
    "transformer.scores.test_set": ("{data}, test split", "{data}，测试集"),
    "transformer.beam": ("Beam width (1 = greedy)", "束宽（1 = 贪心）"),
    "transformer.url.compare": ("comparison model", "对比模型"),
    "transformer.url.no_compare": ("no comparison", "不对比"),
    "transformer.compare": ("Side by side with an RNN (seq2seq) model", "与一个 RNN（序列到序列）模型并排对比"),
    "transformer.nothing": ("— nothing —", "— 无 —"),
    "transformer.empty": ("(empty)", "（空）"),
    "transformer.output_of": ("Output of {model}", "{model} 的输出"),
    "transformer.no_tokens": ("The model produced no tokens.", "模型没有输出任何词元。"),
    "transformer.url.kind": ("attention", "注意力"),
    "transformer.kind": ("Attention", "注意力"),
    "transformer.fig.grid": ("All layers × heads — click one to enlarge", "所有层 × 头 — 点击一个可放大"),
    "transformer.grid_caption": (
        "Each thumbnail is one head (rows: queries, columns: keys), white = 0, dark blue = 1. The image "
        "is rendered on the server: no weights are sent as JSON.",
        "每个缩略图是一个头（行：查询，列：键），白 = 0，深蓝 = 1。图像在服务器上渲染：不会把权重以 JSON 发送。",
    ),
    "transformer.fig.head": ("{what}: {head}", "{what}：{head}"),
    "transformer.x.source": ("key: source token", "键：源词元"),
    "transformer.x.decoder": ("key: decoder input", "键：解码器输入"),
    "transformer.y.source": ("query: source token", "查询：源词元"),
    "transformer.y.decoder": ("query: decoder step", "查询：解码器的步"),
    "transformer.lookahead": (
        "Grey cells: the look-ahead mask (−∞ before the softmax, weight exactly 0).",
        "灰色格子：前瞻掩码（softmax 之前为 −∞，权重恰为 0）。",
    ),
    "transformer.step": (
        "**Step {step} of {n}** — the decoder reads the tokens up to “{token}” and emits:",
        "**第 {step} 步，共 {n} 步** — 解码器读入直到“{token}”的词元，并输出：",
    ),
    "transformer.fig.cross": ("Cross-attention at step {step}, {head}", "第 {step} 步的交叉注意力，{head}"),
    "transformer.fig.topk": ("Top-{k} next tokens at step {step}", "第 {step} 步概率最高的 {k} 个下一个词元"),
    "transformer.export.title": ("Transformer translation: {model}", "Transformer 翻译：{model}"),
    "transformer.export.head": ("{what}, {head}", "{what}，{head}"),
    "transformer.export.cross": ("Step {step} cross-attention", "第 {step} 步交叉注意力"),
    "transformer.export.topk": ("Step {step} top-k", "第 {step} 步 top-k"),
    "transformer.beam_header": ("Beam search", "束搜索"),
    "transformer.fig.beam": (
        "Beam of width {width}: hypotheses kept up to step {step}",
        "束宽 {width}：截至第 {step} 步保留的假设",
    ),
    "transformer.beam_caption": (
        "Finished outputs are ranked by Σ log p / ((5 + |y|) / 6)^α with α = {alpha:g} (Wu et al. "
        "2016) — the same rule as the seq2seq page.",
        "已完成的输出按 Σ log p / ((5 + |y|) / 6)^α 排序，α = {alpha:g}（Wu et al. 2016）— 与序列到序列页相同的规则。",
    ),
    "transformer.src": ("The tokens as the encoder reads them", "编码器读到的词元"),
    "transformer.src_unknown": (
        " — {n} not in its vocabulary (⚠), read as <unk>",
        " — 其中 {n} 个不在词表中（⚠），读作 <unk>",
    ),
    # ui/transformer.py
    "transformer.cmp.header": (
        "RNN attention against Transformer cross-attention",
        "RNN 注意力与 Transformer 交叉注意力的对比",
    ),
    "transformer.cmp.caption": (
        "Same sentence. Left: the seq2seq model's single attention α per step. Right: the Transformer's "
        "cross-attention, {head} (change it above). Rows: output steps.",
        "同一个句子。左：序列到序列模型每一步唯一的注意力 α。右：Transformer 的交叉注意力，{head}"
        "（可在上方更改）。行：输出步。",
    ),
    "transformer.cmp.none": (
        "No attention: the encoder's final state is the decoder's only view of the source.",
        "无注意力：编码器的最终状态是解码器看到源句的唯一途径。",
    ),
    "transformer.cmp.rnn": ("RNN attention α", "RNN 注意力 α"),
    "transformer.cmp.tf": ("Transformer cross-attention", "Transformer 交叉注意力"),
    "transformer.masks.header": ("The masks", "掩码"),
    "transformer.masks.explain": (
        "Sentences are batched: shorter ones are padded with `<pad>`, which no query may attend to "
        "(**padding mask**). The decoder must not see the future (**look-ahead mask**). A mask *adds* "
        "0 where attending is allowed and −∞ where it is not, before the softmax.",
        "句子成批处理：较短的句子用 `<pad>` 填充，任何查询都不能关注它（**填充掩码**）。解码器不能看到"
        "未来（**前瞻掩码**）。掩码在 softmax 之前*加上*一个值：允许关注处加 0，不允许处加 −∞。",
    ),
    "transformer.masks.pad": ("Padding mask: {n} pad tokens added", "填充掩码：加了 {n} 个填充词元"),
    "transformer.masks.key": ("key", "键"),
    "transformer.masks.query": ("query", "查询"),
    "transformer.masks.causal": ("Look-ahead mask of the decoder", "解码器的前瞻掩码"),
    "transformer.explain.header": ("How the Transformer attends", "Transformer 如何分配注意力"),
    "transformer.explain.multihead": (
        "Every attention sub-layer computes, for each head *i*, "
        "$\\mathrm{head}_i = \\mathrm{softmax}\\big(Q W_i^Q (K W_i^K)^\\top / \\sqrt{d_k} + M\\big)"
        "\\, V W_i^V$ and concatenates the heads: $\\mathrm{MultiHead}(Q,K,V) = [\\mathrm{head}_1; "
        "…; \\mathrm{head}_h]\\, W^O$.",
        "每个注意力子层对每个头 *i* 计算 "
        "$\\mathrm{head}_i = \\mathrm{softmax}\\big(Q W_i^Q (K W_i^K)^\\top / \\sqrt{d_k} + M\\big)"
        "\\, V W_i^V$，再把各头拼接起来：$\\mathrm{MultiHead}(Q,K,V) = [\\mathrm{head}_1; …; "
        "\\mathrm{head}_h]\\, W^O$。",
    ),
    "transformer.explain.kinds": (
        "- **Encoder self-attention**: every source token attends to every source token; the *padding "
        "mask* blocks the `<pad>` positions a batch adds.\n"
        "- **Decoder self-attention**: each target position attends to itself and earlier positions "
        "only; the *look-ahead mask* puts −∞ above the diagonal, so the softmax gives the future "
        "exactly 0.\n"
        "- **Cross-attention**: queries come from the decoder, keys and values from the encoder's "
        "output — the Transformer's counterpart of the RNN attention α of the seq2seq page, once per "
        "layer and head.",
        "- **编码器自注意力**：每个源词元关注每个源词元；*填充掩码*遮住批处理时加入的 `<pad>` 位置。\n"
        "- **解码器自注意力**：每个目标位置只关注它自己和更早的位置；*前瞻掩码*在对角线以上放 −∞，"
        "所以 softmax 给未来的权重恰为 0。\n"
        "- **交叉注意力**：查询来自解码器，键和值来自编码器的输出 — 这是 Transformer 中与序列到序列页"
        "的 RNN 注意力 α 相对应的部分，每层每个头各一个。",
    ),
    # Label smoothing ε = 0 against ε = 0.1 (ui.transformer.label_smoothing_view)
    # Teacher forcing and exposure bias (ui.transformer.exposure_view)
    "transformer.exp.header": ("Teacher forcing and exposure bias", "教师强制与暴露偏差"),
    "transformer.exp.intro": (
        "The Transformer is trained with teacher forcing at every position at once: the masked decoder reads "
        "the **gold** words y₁…y_(t−1) and learns to predict y_t, all t in one pass. At test time it reads "
        "**its own** previous outputs, one step after another, and has never practised recovering from its "
        "own mistakes (exposure bias). Below, one test sentence of this model's corpus is decoded both ways "
        "by this model, greedily: the left panel's row t is the word chosen after the gold words, the right "
        "panel's after the model's own words.",
        "Transformer 用教师强制训练，而且所有位置同时进行：带掩码的解码器读入**正确**的词 y₁…y_(t−1)，学习"
        "预测 y_t，所有 t 一次算完。测试时它一步接一步地读入**自己**之前的输出，从来没有练习过从自己的错误"
        "中恢复（暴露偏差）。下面用这个模型对它所属语料的一个测试句子贪心解码两次：左图第 t 行是读入正确词"
        "之后选的词，右图第 t 行是读入模型自己的词之后选的词。",
    ),
    "transformer.exp.finding": (
        "Looking for a test sentence where the two decodings part …",
        "正在寻找两种解码出现分歧的测试句子……",
    ),
    "transformer.exp.sentence_help": (
        "One of the {n} test sentences, never trained on. It starts at {first}: the first of the first 60 "
        "where the decoding from the model's own prefix leaves the gold one (0 if none does).",
        "{n} 个测试句子之一，从未用于训练。初始为 {first}：前 60 句中第一个从模型自己的前缀解码时偏离正确前缀"
        "的句子（若没有则为 0）。",
    ),
    "transformer.exp.caption": (
        "Attention: the last decoder layer's cross-attention, the mean over its heads. Both decodings are this "
        "model's greedy choices; the words are the model's own tokens (a word outside its vocabulary is <unk>).",
        "注意力：最后一个解码器层的交叉注意力，各头取平均。两种解码都是这个模型的贪心选择；词是模型自己的词元"
        "（词表之外的词为 <unk>）。",
    ),
    "transformer.ls.header": ("Label smoothing: ε = 0 against ε = 0.1", "标签平滑：ε = 0 与 ε = 0.1 对比"),
    "transformer.ls.intro": (
        "The Transformer trains against a target that puts 1 − ε on the reference word and spreads ε "
        "over the rest of the vocabulary (§5.4): it “hurts perplexity, as the model learns to be more "
        "unsure, but improves accuracy and BLEU”. Two pairs of Transformers, each pair trained with ε = 0 "
        "and ε = 0.1 and all else equal: two small ones on the same 20,000 grammar pairs, and the HSK "
        "Transformer beside its twin on the same HSK sentences. Calibration: when the model gives its top "
        "word probability p, is that word right about p of the time? The expected calibration error (ECE) "
        "is the average gap, over 10 bins of confidence, weighted by how many predictions fall in each.",
        "Transformer 训练时的目标在参考词上放 1 − ε，把 ε 分摊到词表的其余部分（§5.4）：它“损害困惑度，"
        "因为模型学会更不确定，但提高准确率和 BLEU”。两对 Transformer，每对分别用 ε = 0 和 ε = 0.1 训练，"
        "其他一切相同：两个小模型在同样的 20,000 个语法句对上训练；HSK Transformer 与它的对照模型在同样的 "
        "HSK 句子上训练。置信度标定：当模型给出最高词概率 p 时，这个词大约有 p 的时候是对的吗？期望标定"
        "误差（ECE）是 10 个置信度区间上的平均差距，按落入每个区间的预测数加权。",
    ),
    "transformer.ls.none": (
        "The label-smoothing pair is not shipped. Train it: `python -m models.train --preset tf-en-fr-ls0` "
        "and `--preset tf-en-fr-ls10`, then `python -m models.evaluate --write`.",
        "没有随附标签平滑对比模型。训练它们：`python -m models.train --preset tf-en-fr-ls0` 和 "
        "`--preset tf-en-fr-ls10`，然后运行 `python -m models.evaluate --write`。",
    ),
    "transformer.ls.col.model": ("model", "模型"),
    "transformer.ls.col.test": ("test set", "测试集"),
    "transformer.ls.test.grammar": ("grammar, English→French", "语法语料，英→法"),
    "transformer.ls.test.hsk": ("HSK, 中文→English", "HSK，中文→英语"),
    "transformer.ls.col.bleu": ("BLEU", "BLEU"),
    "transformer.ls.col.ppl": ("perplexity", "困惑度"),
    "transformer.ls.col.acc": ("accuracy", "准确率"),
    "transformer.ls.col.conf": ("confidence", "置信度"),
    "transformer.ls.col.ece": ("ECE", "ECE"),
    "transformer.ls.fig": ("Reliability: {test}", "可靠性图：{test}"),
    "transformer.ls.fig.x": ("confidence (top word probability)", "置信度（最高词概率）"),
    "transformer.ls.fig.y": ("accuracy", "准确率"),
    "transformer.ls.fig.ideal": ("perfectly calibrated", "完全标定"),
    "transformer.ls.caption": (
        "Teacher-forced next-word predictions on each pair's test split (every reference word and the end "
        "token); points are the 10 bins, larger where more predictions fall. Perplexity is that of the "
        "reference words; BLEU is greedy decoding; accuracy and confidence are the mean over next-word predictions. "
        "From `python -m models.evaluate --write`.",
        "每对模型各自测试集上教师强制的下一个词预测（每个参考词和结束词元）；点是 10 个区间，落入的预测越多"
        "点越大。困惑度是参考词的困惑度；BLEU 来自贪心解码；准确率和置信度是所有下一个词预测的平均值。来自 "
        "`python -m models.evaluate --write`。",
    ),
    "transformer.ls.verdict.lower": (
        "**{test}** ({n} words): label smoothing lowered the ECE from {a:.4f} (ε = 0) to {b:.4f} (ε = 0.1). "
        "Mean confidence against accuracy: {c0:.3f} / {acc0:.3f} without it, {c1:.3f} / {acc1:.3f} with it.",
        "**{test}**（{n} 个词）：标签平滑把 ECE 从 {a:.4f}（ε = 0）降到 {b:.4f}（ε = 0.1）。平均置信度对"
        "准确率：没有它 {c0:.3f} / {acc0:.3f}，有它 {c1:.3f} / {acc1:.3f}。",
    ),
    "transformer.ls.verdict.under": (
        "**{test}** ({n} words): label smoothing did **not** lower the ECE: {a:.4f} (ε = 0) against {b:.4f} "
        "(ε = 0.1). The ε = 0 model is already under-confident — its mean confidence {c0:.3f} is below its "
        "accuracy {acc0:.3f}, and its points lie above the diagonal — and label smoothing, which trains "
        "towards 1 − ε on the right word, lowers the confidence further ({c1:.3f} against an accuracy of "
        "{acc1:.3f}). Label smoothing corrects over-confidence; this model does not have it.",
        "**{test}**（{n} 个词）：标签平滑**没有**降低 ECE：{a:.4f}（ε = 0）对 {b:.4f}（ε = 0.1）。ε = 0 "
        "的模型本来就信心不足——平均置信度 {c0:.3f} 低于准确率 {acc0:.3f}，它的点位于对角线之上——而标签"
        "平滑在正确词上以 1 − ε 为目标训练，使置信度进一步降低（{c1:.3f}，准确率 {acc1:.3f}）。标签平滑"
        "纠正的是过度自信，而这个模型并没有。",
    ),
    "transformer.ls.verdict.higher": (
        "**{test}** ({n} words): label smoothing did **not** lower the ECE: {a:.4f} (ε = 0) against {b:.4f} "
        "(ε = 0.1). Mean confidence against accuracy: {c0:.3f} / {acc0:.3f} without it, {c1:.3f} / "
        "{acc1:.3f} with it.",
        "**{test}**（{n} 个词）：标签平滑**没有**降低 ECE：{a:.4f}（ε = 0）对 {b:.4f}（ε = 0.1）。平均"
        "置信度对准确率：没有它 {c0:.3f} / {acc0:.3f}，有它 {c1:.3f} / {acc1:.3f}。",
    ),
    "ckpt.label.tf-hsk-ls0": (
        "Transformer · HSK 中文→English, ε = 0",
        "Transformer · HSK 中文→英语，ε = 0",
    ),
    "ckpt.label.tf-en-fr-ls0": (
        "Transformer · en→fr, label smoothing ε = 0.0 (small)",
        "Transformer · 英→法，标签平滑 ε = 0.0（小型）",
    ),
    "ckpt.label.tf-en-fr-ls10": (
        "Transformer · en→fr, label smoothing ε = 0.1 (small)",
        "Transformer · 英→法，标签平滑 ε = 0.1（小型）",
    ),
    "ckpt.label.tf-reverse-post-ln": (
        "Transformer · reverse, post-LN, no warm-up (6 + 6 blocks)",
        "Transformer · 倒序，后置层归一化，无预热（6 + 6 块）",
    ),
    "ckpt.label.tf-reverse-post-ln-warmup": (
        "Transformer · reverse, post-LN, warm-up (6 + 6 blocks)",
        "Transformer · 倒序，后置层归一化，有预热（6 + 6 块）",
    ),
    "ckpt.label.tf-reverse-pre-ln": (
        "Transformer · reverse, pre-LN, no warm-up (6 + 6 blocks)",
        "Transformer · 倒序，前置层归一化，无预热（6 + 6 块）",
    ),
}

SAME: frozenset[str] = frozenset()
