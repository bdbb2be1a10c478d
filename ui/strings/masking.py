"""Strings of page 7, BERT masking (pages/7_BERT_masking.py, ui/bert.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "masking.intro": (
        "BERT (Devlin et al. 2019) learns by filling in blanks, reading the sentence in both directions.",
        "BERT（Devlin et al. 2019）通过填空来学习，双向阅读整个句子。",
    ),
    "masking.url.a": ("sentence A", "句子 A"),
    "masking.url.b": ("sentence B", "句子 B"),
    "masking.url.cut": ("its first 10,000 characters", "其前 10,000 个字符"),
    "masking.a": ("Sentence A", "句子 A"),
    "masking.b": ("Sentence B (optional: leave empty for one segment)", "句子 B（可选：留空则只有一个片段）"),
    "masking.masking": ("Masking", "掩码"),
    "masking.example": (
        "Pick an example (held-out chapters, never seen in training)",
        "选择示例（留出的章节，训练中从未见过）",
    ),
    "masking.example_zh": (
        "Pick an example (written for this page, never training text)",
        "选择示例（为本页编写，从未用于训练）",
    ),
    "masking.example_placeholder": ("Examples …", "示例 …"),
    "masking.rule": ("Masking rule", "掩码规则"),
    "masking.seed": ("Seed", "随机种子"),
    "masking.resample": ("Resample", "重新采样"),
    "masking.resample_help": ("Draw again with the next seed", "用下一个随机种子重新抽取"),
    "masking.draw": ("Random 15% draw", "随机抽取 15%"),
    "masking.draw_help": (
        "Off: only the pieces you click are masked. A [MASK] typed in the text (in capitals) also "
        "turns the draw off: the model predicts there, as `python -m models.fill_mask` does.",
        "关闭：只有你点击的子词会被掩码。在文本中输入 [MASK]（大写）也会关闭随机抽取："
        "模型在那里预测，与 `python -m models.fill_mask` 相同。",
    ),
    "masking.empty": (
        "Sentence A is empty: type a sentence (and optionally a second one) to see how BERT reads it.",
        "句子 A 为空：请输入一个句子（也可以再输入第二个），看看 BERT 如何读它。",
    ),
    "masking.none_chosen": (
        "No piece was chosen in this draw (this happens with probability 0.85^{n} = {p:.1%}). "
        "Resample, or click a piece above to mask it.",
        "这次抽取没有选中任何子词（发生概率为 0.85^{n} = {p:.1%}）。请重新采样，或点击上方的子词来掩码它。",
    ),
    "masking.predicted": (
        "The model reads the corrupted input and predicts a distribution over all {vocab:,} pieces at each "
        "chosen position — **{hits} of {rows}** right at top-1. Green bar: the original piece. It must "
        "predict it even where it was *kept* or replaced by a *random* piece.",
        "模型读入被破坏的输入，在每个被选中的位置上预测全部 {vocab:,} 个子词的分布 — top-1 正确 "
        "**{hits} / {rows}**。绿色条：原来的子词。即使该位置被*保留*或被替换为*随机*子词，模型也必须预测出原子词。",
    ),
    "masking.typed": (
        "Sentence A has {n} [MASK] typed in it, so nothing is drawn at random: at each typed [MASK] the model "
        "predicts a distribution over all {vocab:,} pieces — the numbers `python -m models.fill_mask` gives for "
        "sentence A with this model. A typed [MASK] hides no original piece, so no bar is green.",
        "句子中输入了 {n} 个 [MASK]，所以不再随机抽取：模型在每个输入的 [MASK] 处预测全部 {vocab:,} 个子词的分布 — "
        "与用这个模型对句子 A 运行 `python -m models.fill_mask` 得到的数字相同。输入的 [MASK] 背后没有原来的子词，"
        "所以没有绿色条。",
    ),
    "masking.typed.pair": (
        "The text has {n} [MASK] typed in it, so nothing is drawn at random: at each typed [MASK] the model "
        "predicts a distribution over all {vocab:,} pieces, reading sentence B too. "
        "`python -m models.fill_mask` reads one sentence: empty sentence B to see its numbers here. "
        "A typed [MASK] hides no original piece, so no bar is green.",
        "文本中输入了 {n} 个 [MASK]，所以不再随机抽取：模型在每个输入的 [MASK] 处预测全部 {vocab:,} 个子词的分布，"
        "同时也读入句子 B。`python -m models.fill_mask` 只读一个句子：清空句子 B，即可在这里看到它的数字。"
        "输入的 [MASK] 背后没有原来的子词，所以没有绿色条。",
    ),
    "masking.first16": (
        "The first 16 of {rows} chosen positions are drawn; the table has them all.",
        "图中只画出 {rows} 个被选位置中的前 16 个；表格中有全部。",
    ),
    "masking.pills": ("Pieces to mask (they always become [MASK])", "要掩码的子词（它们总是变成 [MASK]）"),
    "masking.url.clicked": ("pieces to mask", "要掩码的子词"),
    "masking.url.none_clicked": ("no clicked piece", "没有点击的子词"),
    "masking.table": ("Every chosen position as a table", "以表格列出每个被选位置"),
    "masking.export.title": ("BERT masking", "BERT 掩码"),
    "masking.export.predictions": ("Predictions", "预测"),
    "masking.about": ("About this model", "关于这个模型"),
    "masking.mask.header": (
        "Masking: 15% chosen, then 80% [MASK], 10% random, 10% kept",
        "掩码：选中 15%，其中 80% 变 [MASK]、10% 随机替换、10% 保留",
    ),
    "masking.fig.stats": (
        "10,000 draws on this input ({n:,} eligible pieces)",
        "在此输入上抽取 10,000 次（{n:,} 个可选子词）",
    ),
    "masking.pieces.header": ("WordPiece pieces, segments and positions", "WordPiece 子词、片段与位置"),
    "masking.pieces.table": (
        "The same as a table (piece, id, segment, position)",
        "同样内容的表格（子词、id、片段、位置）",
    ),
    "masking.url.piece": ("piece", "子词"),
    "masking.url.piece1": ("piece 1", "子词 1"),
    "masking.piece": ("Piece to decompose", "要分解的子词"),
    "masking.fig.embedding": (
        "Piece {pos}: token + segment + position = sum, over {d} dimensions",
        "子词 {pos}：词元 + 片段 + 位置 = 和，共 {d} 维",
    ),
    "masking.att.header": (
        "Attention to and from [MASK], [CLS] and [SEP], every layer and head",
        "进出 [MASK]、[CLS] 和 [SEP] 的注意力，每一层、每一个头",
    ),
    "masking.url.token": ("token", "词元"),
    "masking.token": ("Token", "词元"),
    "masking.fig.from": (
        "From {token} at {pos}: where it looks (each row sums to 1)",
        "从位置 {pos} 的 {token} 出发：它看向哪里（每行之和为 1）",
    ),
    "masking.fig.to": (
        "To {token} at {pos}: how much each piece gives it",
        "到位置 {pos} 的 {token}：每个子词给它多少注意力",
    ),
    "masking.fig.share": ("Share of all attention landing on each kind of token", "落在各类词元上的注意力占比"),
    "masking.grid": ("Every head's full attention matrix (layers × heads)", "每个头的完整注意力矩阵（层 × 头）"),
    "masking.grid_caption": (
        "Each thumbnail: rows are queries, columns keys, in token order; the one 0–1 scale (weight 1 = darkest).",
        "每个缩略图：行是查询，列是键，按词元顺序排列；统一的 0–1 色标（权重 1 = 最深）。",
    ),
    "masking.nsp.header": ("Next-sentence prediction", "下一句预测"),
    "masking.nsp.yours": ("Your pair: P(B follows A)", "你的句对：P(B 紧接 A)"),
    "masking.nsp.type_b": (
        "Type a sentence B above to score your own pair.",
        "在上方输入句子 B，即可为你自己的句对打分。",
    ),
    "masking.nsp.draw": ("Draw other pairs", "抽取其他句对"),
    "masking.ft.header": ("Output heads on the pre-trained encoder", "预训练编码器上的输出头"),
    "masking.ft.intro": (
        "BERT fine-tunes by adding one output layer and training **all** parameters end to end on "
        "labelled examples (§4). The heads below are different: each is one linear layer trained on "
        "the *frozen* encoder's features, the feature-based approach of §5.3. Shown on this model "
        "and on your input above; full fine-tuning is compared with them further down.",
        "BERT 的微调是加一个输出层，再在带标签的样本上端到端地训练**全部**参数（§4）。下面的输出头不同："
        "每个都是在*冻结*编码器的特征上训练的一个线性层，即 §5.3 的基于特征的方法。这里用这个模型和你在上方的"
        "输入来展示；完整微调与它们的比较在下方。",
    ),
    "masking.ft.class": ("Sentence classification ([CLS])", "句子分类（[CLS]）"),
    "masking.ft.tag": ("Token tagging (every piece)", "词元标注（每个子词）"),
    "masking.ft.span": ("Answer span (start/end)", "答案区间（起点/终点）"),
    "masking.fig.class": ("Your input: P(class) from [CLS]", "你的输入：由 [CLS] 得到的 P(类别)"),
    "masking.fig.tag": ("Your input: P({tag}) per piece", "你的输入：每个子词的 P({tag})"),
    # the small BERT's fine-tuning labels (config.json class_labels, tag_labels: ui.bert.head_label)
    "masking.label.old": ("Old Testament", "旧约"),
    "masking.label.new": ("New Testament", "新约"),
    "masking.label.lower": ("lower-case", "小写"),
    "masking.label.capitalised": ("Capitalised", "首字母大写"),
    "masking.label.class_n": ("class {n}", "类别 {n}"),
    "masking.label.tag_n": ("tag {n}", "标签 {n}"),
    "masking.fig.span": (
        "Start and end scores per piece; shaded: the highest-scoring span",
        "每个子词的起点和终点分数；阴影：得分最高的区间",
    ),
    "masking.span": ("Highest-scoring span: pieces {i}–{j}.", "得分最高的区间：子词 {i}–{j}。"),
    # Fine-tuning every parameter (§4) beside the frozen-feature head (§5.3): ui.bert.finetuned_view
    "masking.ftx.header": (
        "Fine-tuning every parameter (§4) against a frozen-feature head (§5.3)",
        "微调全部参数（§4）与冻结特征上的输出头（§5.3）对比",
    ),
    "masking.ftx.intro": (
        "Each model below starts from a pre-trained encoder: this page's bert-small, or the installed "
        "MiniLM-L6. **All parameters** (embeddings, every "
        "attention and feed-forward layer, the pooler, a fresh output layer) were trained on the task "
        "with AdamW; beside it, the **same output layer trained alone on the frozen encoder**, on the "
        "same training split for the same number of steps. Both are scored on the same held-out test "
        "split.",
        "下面每个模型都从一个预训练编码器出发：本页的 bert-small，或已安装的 MiniLM-L6。**全部参数**（嵌入、每个注意力层和前馈层、池化层、一个新的"
        "输出层）都用 AdamW 在任务上训练；旁边是**只在冻结编码器上训练的同一个输出层**，训练集相同，步数相同。"
        "两者都在同一个留出的测试集上评分。",
    ),
    "masking.ftx.none": (
        "No fine-tuned BERT is shipped. Train one: `python -m models.train --preset bert-small-nli` "
        "(also `bert-small-cls`, `bert-small-qa`).",
        "没有随附微调过的 BERT。训练一个：`python -m models.train --preset bert-small-nli`"
        "（还有 `bert-small-cls`、`bert-small-qa`）。",
    ),
    "masking.ftx.data": (
        "The data is synthetic: sentences of the lab's English grammar (the one behind the en→fr "
        "corpus), edited in their structure so that every label is true by construction. NLI: an "
        "adjective or a prepositional phrase dropped, or a subject replaced by its pronoun → "
        "entailment; a colour changed or the clause negated → contradiction (one scene per sentence); "
        "the subject replaced or an adjective added → neutral. Questions ask what a subject does to "
        "what, or who does it; the answer is a span of the context. Figures recorded at training; "
        "`python -m models.evaluate` recomputes them.",
        "数据是合成的：实验室英语语法（英→法语料背后的那一个）生成的句子，在结构上加以修改，使每个标签按构造"
        "必然为真。NLI：删去一个形容词或介词短语，或把主语换成它的代词 → 蕴含；改变一个颜色或否定该从句 → "
        "矛盾（每个句子描述一个场景）；换掉主语或加一个形容词 → 中立。问题问某个主语对什么做了某事，或谁做了"
        "某事；答案是上下文中的一个区间。数字在训练时记录；`python -m models.evaluate` 会重新计算。",
    ),
    "masking.ftx.minilm": (
        "MiniLM-L6 rows: the installed MiniLM-L6 (all of its 22.7 M parameters) fine-tuned the same way, on "
        "the same splits, beside its own frozen-feature head. Its fine-tuned weights (about 90 MB) are not "
        "shipped: these are the test figures recorded by `python -m models.train --preset minilm-nli` (and "
        "`minilm-cls`, `minilm-qa`) in checkpoints/seq2seq_evaluation.json.",
        "MiniLM-L6 行：已安装的 MiniLM-L6（全部 2270 万个参数）用同样的方法、在同样的数据划分上微调，旁边是它自己"
        "的冻结特征输出头。微调后的权重（约 90 MB）没有随附：这里是 `python -m models.train --preset minilm-nli`"
        "（还有 `minilm-cls`、`minilm-qa`）记录在 checkpoints/seq2seq_evaluation.json 中的测试数字。",
    ),
    "masking.ftx.col.model": ("Model", "模型"),
    "masking.ftx.model.small": ("bert-small", "bert-small"),
    "masking.ftx.model.minilm": ("MiniLM-L6", "MiniLM-L6"),
    "masking.ftx.col.task": ("Task", "任务"),
    "masking.ftx.col.metric": ("Test figure", "测试指标"),
    "masking.ftx.col.all": ("All parameters (§4)", "全部参数（§4）"),
    "masking.ftx.col.frozen": ("Frozen, head only (§5.3)", "冻结，只训练输出头（§5.3）"),
    "masking.ftx.col.n": ("Test items", "测试样本数"),
    "masking.ftx.col.steps": ("Steps", "步数"),
    "masking.ftx.short.nli": ("Sentence pair (NLI)", "句对（NLI）"),
    "masking.ftx.short.cls": ("One sentence", "单句"),
    "masking.ftx.short.qa": ("Answer span (QA)", "答案区间（QA）"),
    "masking.ftx.task.nli": (
        "Sentence pair: entailment / contradiction / neutral ([CLS])",
        "句对：蕴含 / 矛盾 / 中立（[CLS]）",
    ),
    "masking.ftx.task.cls": (
        "One sentence: is its subject a person, an animal or a thing? ([CLS])",
        "单句：主语是人、动物还是物体？（[CLS]）",
    ),
    "masking.ftx.task.qa": (
        "Answer span: start and end over the context's pieces",
        "答案区间：在上下文的子词上预测起点和终点",
    ),
    "masking.ftx.metric.nli": ("accuracy", "准确率"),
    "masking.ftx.metric.cls": ("accuracy", "准确率"),
    "masking.ftx.metric.qa": ("exact match", "完全匹配"),
    "masking.ftx.pick": ("Task", "任务"),
    "masking.ftx.no_weights": (
        "The test items and their attention need this model's weights, which are not on this machine: "
        "`{command}` trains them (a few minutes on a CPU). The figure above was recorded when it was trained.",
        "测试样本及其注意力需要这个模型的权重，而本机上没有：`{command}` 会训练它们（在 CPU 上几分钟）。"
        "上图是训练时记录的。",
    ),
    "masking.ftx.layer": ("layer", "层"),
    "masking.ftx.head": ("head", "头"),
    "masking.ftx.distance": ("mean ½Σ|a′ − a| per query", "每个查询的平均 ½Σ|a′ − a|"),
    "masking.ftx.fig.change": (
        "How fine-tuning changed the attention ({n} test inputs)",
        "微调如何改变了注意力（{n} 个测试输入）",
    ),
    "masking.ftx.change_caption": (
        "Each cell: for one layer × head, the total-variation distance between the "
        "fine-tuned and the pre-trained model's attention rows on the same inputs, averaged "
        "over queries and inputs (0: unchanged, 1: attends to entirely different tokens).",
        "每个格子：对某一层 × 头，微调后与预训练模型在相同输入上的注意力行之间的总变差距离，"
        "对查询和输入取平均（0：不变，1：关注完全不同的词元）。",
    ),
    "masking.ftx.example": ("Test item (the first {n} of the test split)", "测试样本（测试集的前 {n} 个）"),
    "masking.ftx.show.nli": (
        "**Premise:** {p}  \n**Hypothesis:** {h}  \n**True label:** {gold}",
        "**前提：** {p}  \n**假设：** {h}  \n**真实标签：** {gold}",
    ),
    "masking.ftx.show.cls": ("**Sentence:** {s}  \n**True label:** {gold}", "**句子：** {s}  \n**真实标签：** {gold}"),
    "masking.ftx.show.qa": (
        "**Question:** {q}  \n**Context:** {c}  \n**True answer:** {gold}",
        "**问题：** {q}  \n**上下文：** {c}  \n**真实答案：** {gold}",
    ),
    "masking.ftx.label.nli.0": ("entailment", "蕴含"),
    "masking.ftx.label.nli.1": ("contradiction", "矛盾"),
    "masking.ftx.label.nli.2": ("neutral", "中立"),
    "masking.ftx.label.cls.0": ("a person", "人"),
    "masking.ftx.label.cls.1": ("an animal", "动物"),
    "masking.ftx.label.cls.2": ("a thing", "物体"),
    "masking.ftx.before": ("pre-trained ({model})", "预训练（{model}）"),
    "masking.ftx.after": ("fine-tuned", "微调后"),
    "masking.ftx.fig.change_short": ("Attention change per layer × head", "每层每个头的注意力变化"),
    "masking.ftx.fig.pair_short": (
        "Layer {layer}, head {head}: before and after",
        "第 {layer} 层第 {head} 个头：微调前后",
    ),
    "masking.ftx.fig.pair": (
        "Layer {layer}, head {head} on this input: mean change {d:.3f}",
        "第 {layer} 层第 {head} 个头在此输入上：平均变化 {d:.3f}",
    ),
    "masking.tab.predictions": ("Predictions", "预测"),
    "masking.tab.masking": ("Masking", "掩码"),
    "masking.tab.pieces": ("Pieces and embeddings", "子词与嵌入"),
    "masking.tab.attention": ("Attention", "注意力"),
    "masking.tab.nsp": ("Next sentence", "下一句"),
    "masking.tab.finetune": ("Fine-tuning", "微调"),
    "masking.rule.reference": (
        "max(1, round(0.15·n)) per sequence, as BERT's released code",
        "每个序列 max(1, round(0.15·n)) 个，与 BERT 发布的代码相同",
    ),
    "masking.rule.independent": ("each token independently with p = 0.15", "每个词元独立地以 p = 0.15 选中"),
    "masking.train_hint": (
        ". Train it: `python -m models.train --preset bert-small`.",
        "。请先训练：`python -m models.train --preset bert-small`。",
    ),
    "masking.loading_real": (
        "Loading the model … (one model loads at a time on this server)",
        "正在加载模型 …（本服务器一次只加载一个模型）",
    ),
    "masking.legend.mask": ("chosen → [MASK] (80%)", "选中 → [MASK]（80%）"),
    "masking.legend.random": ("chosen → random token (10%)", "选中 → 随机词元（10%）"),
    "masking.legend.kept": ("chosen → kept as is (10%)", "选中 → 保持不变（10%）"),
    "masking.legend.not": ("not chosen (85%)", "未选中（85%）"),
    "masking.legend.special": ("[CLS] [SEP]: never chosen", "[CLS] [SEP]：从不选中"),
    "masking.summary.model": (
        "**Model:** {label} — WordPiece vocabulary of {vocab:,} pieces, at most {max_len} pieces per input.",
        "**模型：** {label} — WordPiece 词表共 {vocab:,} 个子词，每个输入最多 {max_len} 个子词。",
    ),
    "masking.summary.held": (
        "**On held-out chapters:** the original piece is the top prediction at **{top1:.1%}** of the "
        "chosen positions and among the top 5 at **{top5:.1%}**; next sentence right on **{nsp:.1%}** "
        "of pairs (chance 50%). Masking: {rule}, as measured when it was trained.",
        "**在留出的章节上：** 在 **{top1:.1%}** 的被选位置上原子词是概率最高的预测，在 **{top5:.1%}** "
        "的位置上位于前 5；下一句预测在 **{nsp:.1%}** 的句对上正确（随机猜为 50%）。掩码规则：{rule}，"
        "即训练时测量所用的规则。",
    ),
    "masking.summary.trained": (
        "Pre-trained for {seconds} s ({steps} steps) by `{command}`.",
        "由 `{command}` 预训练 {seconds} 秒（{steps} 步）。",
    ),
    "masking.summary.differs": (
        "How ours differs from BERT: segments A and B are single sentences of at most {max_len} "
        "pieces in all, where BERT packs spans of several sentences into 512 pieces; {layers} layers "
        "of width {d} instead of 12 × 768; trained without dropout on one Bible translation for "
        "minutes, not on books and Wikipedia for days.",
        "我们的模型与 BERT 的区别：片段 A 和 B 各是一个句子，合计最多 {max_len} 个子词，而 BERT 把若干"
        "句子组成的文本段打包成 512 个子词；{layers} 层、宽度 {d}，而不是 12 × 768；不用 dropout，"
        "在一个圣经译本上训练几分钟，而不是在图书和维基百科上训练几天。",
    ),
    "masking.url.seed": ("seed", "随机种子"),
    "masking.url.draw": ("random-draw switch", "随机抽取开关"),
    "masking.url.rule": ("masking rule", "掩码规则"),
    "masking.cut": (
        "The input is longer than the {max_len} pieces this model reads: {dropped} pieces were cut, longest "
        "segment first (as BERT truncates pairs).",
        "输入超过了该模型能读入的 {max_len} 个子词：截掉了 {dropped} 个子词，先截最长的片段（与 BERT 截断句对的方式相同）。",
    ),
    "masking.unk": (
        "{n} piece(s) are [UNK]: characters the WordPiece vocabulary never saw (emoji, Chinese, most symbols). "
        "The model reads them all as the same unknown piece.",
        "有 {n} 个子词是 [UNK]：WordPiece 词表从未见过的字符（表情符号、中文、大多数符号）。模型把它们都读作同一个未知子词。",
    ),
    "masking.explain.pieces": (
        "The text is lower-cased and split into words, then each word into the longest pieces of the "
        "vocabulary; a piece that continues a word starts with **##**. `[CLS]` opens the input, "
        "`[SEP]` closes each segment. Under each piece: its **position** and its **segment** (A or B).",
        "文本先转成小写并切分成词，再把每个词切成词表中最长的子词；接续一个词的子词以 **##** 开头。"
        "`[CLS]` 放在输入开头，`[SEP]` 结束每个片段。每个子词下方是它的**位置**和**片段**（A 或 B）。",
    ),
    "masking.explain.embedding": (
        "**The input embedding** of each piece is the sum of three learned vectors — its token, "
        "its segment and its position — followed by LayerNorm:",
        "每个子词的**输入嵌入**是三个可学习向量之和 — 词元、片段和位置向量 — 再经过 LayerNorm：",
    ),
    "masking.embedding_check": (
        "Largest difference between the drawn sum and the model's own sum over all pieces: {err:.1e} "
        "(blue negative, red positive).",
        "图中的和与模型自身算出的和在所有子词上的最大差值：{err:.1e}（蓝为负，红为正）。",
    ),
    "masking.explain.reference": (
        "Each sequence of n pieces gets exactly max(1, round(0.15·n)) **chosen** pieces, drawn "
        "among all but `[CLS]`/`[SEP]` — as BERT's released code does; a random replacement comes "
        "from the whole vocabulary.",
        "每个含 n 个子词的序列恰好有 max(1, round(0.15·n)) 个**被选中**的子词，从除 `[CLS]`/`[SEP]` "
        "以外的子词中抽取 — 与 BERT 发布的代码相同；随机替换词取自整个词表。",
    ),
    "masking.explain.independent": (
        "Each piece except `[CLS]`/`[SEP]` is **chosen** independently with probability 15%, "
        "so a short sequence may get no prediction at all; a random replacement is never a "
        "special piece.",
        "除 `[CLS]`/`[SEP]` 外，每个子词独立地以 15% 的概率**被选中**，所以短序列可能一个预测都没有；"
        "随机替换词从不是特殊子词。",
    ),
    "masking.explain.masking": (
        "{chosen} A chosen piece becomes `[MASK]` (80%), a random piece (10%) or stays as it is "
        "(10%) — so the model cannot rely on seeing `[MASK]`, and must keep a good representation "
        "of every piece. It is asked for the original piece at every chosen position.",
        "{chosen}被选中的子词变成 `[MASK]`（80%）、随机子词（10%）或保持不变（10%）— 因此模型不能依赖"
        "看到 `[MASK]`，必须为每个子词都保持良好的表示。在每个被选中的位置上，模型都要预测原来的子词。",
    ),
    "masking.draw_summary": (
        "**This draw (seed {seed}):** {chosen} of {eligible} eligible pieces chosen — {mask} → [MASK], "
        "{random} → random, {kept} kept{clicked}.",
        "**本次抽取（随机种子 {seed}）：** {eligible} 个可选子词中选中 {chosen} 个 — {mask} 个 → [MASK]，"
        "{random} 个 → 随机，{kept} 个保留{clicked}。",
    ),
    "masking.draw_clicked": (" ({n} clicked)", "（{n} 个为点击选中）"),
    "masking.stats.reference": (
        "the same count every draw: round(0.15·n) of this input's pieces",
        "每次抽取数量相同：该输入子词数的 round(0.15·n)",
    ),
    "masking.stats.independent": ("target 15%, standard error {se:.2%}", "目标 15%，标准误 {se:.2%}"),
    "masking.stats.caption": (
        "After 10,000 draws: chosen {chosen:.2%} ({target}); of the chosen, [MASK] {mask:.2%}, random "
        "{random:.2%}, kept {kept:.2%} (targets 80/10/10).",
        "抽取 10,000 次之后：选中 {chosen:.2%}（{target}）；在被选中的子词中，[MASK] {mask:.2%}，"
        "随机 {random:.2%}，保留 {kept:.2%}（目标 80/10/10）。",
    ),
    "masking.explain.special": (
        "Rows of each heatmap are layer·head; a white line separates layers. Clark et al. (2019) "
        "found that many heads of the full-size BERT park their attention on [SEP] and on "
        "punctuation when they have nothing better to do.",
        "每张热图的行是“层·头”；白线分隔各层。Clark et al.（2019）发现，完整规模的 BERT 中很多头在"
        "无事可做时把注意力停放在 [SEP] 和标点上。",
    ),
    "masking.explain.nsp": (
        "From the `[CLS]` vector the model predicts whether B is the sentence that really followed A "
        "(**IsNext**, half of the training pairs) or a random sentence from another chapter "
        "(**NotNext**):",
        "模型根据 `[CLS]` 向量预测 B 是真正紧跟在 A 后面的句子（**IsNext**，占训练句对的一半），"
        "还是来自另一章的随机句子（**NotNext**）：",
    ),
    "masking.nsp.none": ("No held-out pairs available: {error}", "没有可用的留出句对：{error}"),
    "masking.fig.nsp": (
        "Held-out pairs: green = B really follows A, red = B is random",
        "留出句对：绿 = B 确实紧跟 A，红 = B 是随机句子",
    ),
    "masking.nsp.right": (
        "{correct} of {n} right here; on all held-out pairs {acc:.1%} (chance 50%).",
        "这里答对 {correct} / {n}；在全部留出句对上为 {acc:.1%}（随机猜为 50%）。",
    ),
    "masking.ft.span_untrained": (
        "This head is **not trained** (random initial weights): on SQuAD the question is segment "
        "A, the passage segment B, and S and E are learned from answer spans. The scores below "
        "show the computation, not an answer.",
        "这个输出头**没有训练**（随机初始权重）：在 SQuAD 上，问题是片段 A，段落是片段 B，S 和 E 从"
        "答案区间中学得。下面的分数展示的是计算过程，而不是答案。",
    ),
    "masking.ft.untrained": (
        "This head is **not trained** (random initial weights): its output means nothing yet.",
        "这个输出头**没有训练**（随机初始权重）：它的输出目前没有意义。",
    ),
    "masking.ft.classifier": (
        "Trained: {task} — on held-out sentences it finds the right testament for {bal:.1%} of each "
        "class on average (balanced accuracy; chance 50%; plain accuracy {acc:.1%}).",
        "已训练：{task} — 在留出的句子上，平均每类有 {bal:.1%} 判对所属的约书（平衡准确率；随机猜为 50%；"
        "普通准确率 {acc:.1%}）。",
    ),
    "masking.ft.tagger": (
        "Trained: {task} — on held-out pieces it finds {recall:.0%} of the Capitalised ones and is right "
        "{precision:.0%} of the times it says so (F1 {f1:.2f}; accuracy {acc:.1%} against {base:.1%} for "
        "always answering “lower-case”). The model reads lower-cased text, so it must recognise names "
        "from the pieces and their context.",
        "已训练：{task} — 在留出的子词上，它找出了 {recall:.0%} 的首字母大写子词，判为大写时有 {precision:.0%} "
        "是对的（F1 {f1:.2f}；准确率 {acc:.1%}，而总答“小写”为 {base:.1%}）。模型读的是小写文本，"
        "所以必须从子词及其上下文中认出名字。",
    ),
    "masking.explain.loss": (
        "**Pre-training loss** (§3.1): at the chosen positions M, cross-entropy against the original "
        "pieces, plus the next-sentence cross-entropy:",
        "**预训练损失**（§3.1）：在被选位置 M 上对原子词的交叉熵，加上下一句预测的交叉熵：",
    ),
    # the masked LM in use (minilm-mlm by default, bert-small selectable)
    "masking.model": ("Masked language model", "掩码语言模型"),
    "masking.url.model": ("model", "模型"),
    "masking.model_help": (
        "minilm-mlm: the real pretrained MiniLM-L6 encoder with a masked-LM head trained here; "
        "bert-small: a small BERT trained here from scratch on the Bible.",
        "minilm-mlm：真实的预训练 MiniLM-L6 编码器，加上在这里训练的掩码语言模型头；"
        "bert-small：在这里用圣经从零训练的小型 BERT。",
    ),
    "masking.summary.base": (
        "**How it was made:** {how}. Made here in {seconds} s in all ({steps} training steps) by `{command}`. On "
        "100 held-out everyday sentences with one [MASK] each, the hidden word is its top prediction "
        "for **{top1:.0%}** and among its top 5 for **{top5:.0%}**. Its next-sentence and "
        "fine-tuning heads were not trained: the page scores no sentence pairs with it and shows "
        "the fine-tuning heads greyed out as untrained.",
        "**制作方式：** {how}。由 `{command}` 在这里制作，共 {seconds} 秒（训练 {steps} 步）。在 100 个留出的"
        "日常句子上（每句一个 [MASK]），被遮住的词在 **{top1:.0%}** 的句子中是概率最高的预测，"
        "在 **{top5:.0%}** 的句子中位于前 5。它的下一句预测头和微调头没有训练：本页不用它给句对打分，"
        "并把微调头以灰色标为未训练。",
    ),
    "masking.nsp.untrained": (
        "{model}'s next-sentence head was not trained (only its masked-LM head was), so this page "
        "shows no P(IsNext) for it. Choose bert-small under Masking → Masked language model to see "
        "next-sentence prediction.",
        "{model} 的下一句预测头没有训练（只训练了掩码语言模型头），所以本页不为它显示 P(IsNext)。"
        "在“掩码”→“掩码语言模型”中选择 bert-small，即可查看下一句预测。",
    ),
}

SAME: frozenset[str] = frozenset({"masking.ftx.model.small", "masking.ftx.model.minilm"})
