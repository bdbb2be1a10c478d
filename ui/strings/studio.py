"""Strings of the Training studio (pages/11_Training_studio.py, ui/studio.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "nav.11": ("Training studio", "训练工作室"),
    "nav.11.blurb": (
        "Train a small model from the browser and watch its attention emerge, step by step.",
        "在浏览器中训练一个小模型，逐步观看注意力如何形成。",
    ),
    "studio.intro": (
        "Press **Train** and watch a small model learn: an RNN or Transformer encoder–decoder learns to "
        "align (the loss falls, the validation BLEU rises, the probe's attention map turns into an "
        "alignment), a decoder-only LM, BERT, Transformer-XL or XLNet learns to predict words, and a "
        "pre-trained BERT fine-tuned on a task learns to classify or to find an answer (its test accuracy "
        "beside the frozen-feature head's). Training runs in the background: you may leave the page and come back.",
        "按下 **训练**，观看一个小模型学习：RNN 或 Transformer 编码器–解码器学习对齐（损失下降，验证 BLEU "
        "上升，探针句子的注意力权重图逐渐变成对齐），仅解码器语言模型、BERT、Transformer-XL 或 XLNet "
        "学习预测词，在任务上微调的预训练 BERT 学习分类或找出答案（它的测试准确率与冻结特征输出头的并列）。"
        "训练在后台运行：你可以离开本页面再回来。",
    ),
    "studio.family": ("Model", "模型"),
    "studio.family.rnn": ("RNN encoder–decoder", "RNN 编码器–解码器"),
    "studio.family.transformer": ("Transformer encoder–decoder", "Transformer 编码器–解码器"),
    "studio.layers": ("Layers", "层数"),
    "studio.layers_help": (
        "Attention layers (an encoder–decoder: that many in the encoder and in the decoder each); the RNN has one.",
        "注意力层数（编码器–解码器：编码器和解码器各有这么多层）；RNN 只有一层。",
    ),
    "studio.heads": ("Heads", "头数"),
    "studio.heads_help": (
        "Attention heads per layer; they must divide the hidden size.",
        "每层的注意力头数；必须能整除隐藏层大小。",
    ),
    "studio.smoothing": ("Label smoothing (Transformer)", "标签平滑（Transformer）"),
    "studio.smoothing_help": (
        "ε: the target distribution gives ε of its mass to the other words (Szegedy et al. 2016).",
        "ε：目标分布把 ε 的概率质量分给其他词（Szegedy 等，2016）。",
    ),
    "studio.probe_placeholder": ("empty: the first validation sentence", "留空：第一个验证句子"),
    "studio.fig.cross": (
        "The probe's cross-attention at step {step}, {head}",
        "第 {step} 步探针句子的交叉注意力，{head}",
    ),
    "studio.preset.transformer": ("Quick · Transformer (2 layers × 4 heads)", "快速 · Transformer（2 层 × 4 头）"),
    "studio.preset.tiny-transformer": ("Tiny · Transformer (demo)", "极小 · Transformer（演示）"),
    # settings
    "studio.settings": ("Settings", "设置"),
    "studio.preset": ("Preset", "预设"),
    "studio.preset_help": (
        "Settings that train in about a minute on one laptop CPU core; every field below can still be changed.",
        "在一个笔记本 CPU 核心上约一分钟即可训练完的设置；下面每一项仍可修改。",
    ),
    "studio.preset.bahdanau": ("Quick · Bahdanau (additive)", "快速 · Bahdanau（加性）"),
    "studio.preset.luong": ("Quick · Luong general", "快速 · Luong general"),
    "studio.preset.none": ("Quick · no attention", "快速 · 无注意力"),
    "studio.preset.tiny": ("Tiny · a few seconds (demo)", "极小 · 几秒钟（演示）"),
    "studio.data": ("Data", "数据"),
    "studio.data.grammar": ("English→French grammar (with gold alignments)", "英语→法语语法生成语料（带标准对齐）"),
    "studio.data.bible": (
        "Bible verses: World English Bible → Louis Segond",
        "圣经经文：World English Bible → Louis Segond",
    ),
    "studio.data.hsk": ("HSK sentences: Chinese → English (CC-BY-SA-4.0)", "HSK 例句：汉语 → 英语（CC-BY-SA-4.0）"),
    "studio.data.upload": ("Your file (Tatoeba format)", "你的文件（Tatoeba 格式）"),
    "studio.upload": (
        "Sentence pairs: source<TAB>target[<TAB>attribution], UTF-8 (LM, BERT: plain text)",
        "句对：源句<TAB>目标句[<TAB>出处]，UTF-8 编码（语言模型、BERT：纯文本）",
    ),
    "studio.attention": ("Attention (RNN)", "注意力（RNN）"),
    "studio.attention_help": (
        "Bahdanau scores s_{t−1} against each h_i with a small network; Luong scores s_t "
        "(dot, general or concat); none passes only the encoder's last state.",
        "Bahdanau 用一个小网络比较 s_{t−1} 与每个 h_i；Luong 用 s_t 打分（dot、general 或 concat）；"
        "无注意力时只传递编码器的最后状态。",
    ),
    "studio.attn.none": ("No attention", "无注意力"),
    "studio.attn.bahdanau": ("Bahdanau (additive)", "Bahdanau（加性）"),
    "studio.attn.luong-dot": ("Luong dot", "Luong dot"),
    "studio.attn.luong-general": ("Luong general", "Luong general"),
    "studio.attn.luong-concat": ("Luong concat", "Luong concat"),
    "studio.bidirectional": ("Bidirectional encoder (RNN)", "双向编码器（RNN）"),
    "studio.bidirectional_help": ("Each h_i reads the sentence from both ends.", "每个 h_i 从两端读取句子。"),
    "studio.hidden": ("Hidden size", "隐藏层大小"),
    "studio.hidden_help": (
        "The RNN's embedding, GRU and attention size, or the Transformer's d_model: bigger learns "
        "more, but each step is slower.",
        "RNN 的词嵌入、GRU 和注意力大小，或 Transformer 的 d_model：越大学得越多，但每步越慢。",
    ),
    "studio.dropout": ("Dropout", "丢弃率（dropout）"),
    "studio.dropout_help": (
        "Share of activations zeroed in training, against overfitting.",
        "训练时被置零的激活比例，用于防止过拟合。",
    ),
    "studio.teacher": ("Teacher forcing (RNN)", "教师强制（RNN）"),
    "studio.teacher_help": (
        "Probability that the decoder reads the gold previous word rather than its own guess.",
        "解码器读取标准前一个词（而不是自己的猜测）的概率。",
    ),
    "studio.batch": ("Batch size", "批大小"),
    "studio.batch_help": ("Sentence pairs per step.", "每步的句对数。"),
    "studio.lr": ("Learning rate", "学习率"),
    "studio.lr_help": (
        "Peak step size of Adam (warm-up over the first 10% of the steps, then linear decay).",
        "Adam 的峰值步长（前 10% 的步数预热，然后线性衰减）。",
    ),
    "studio.steps": ("Steps", "步数"),
    "studio.steps_help": (
        "Optimizer steps; the run is defined by them, not by time.",
        "优化器步数；一次训练由步数而不是时间决定。",
    ),
    "studio.n_train": ("Training pairs", "训练句对数"),
    "studio.n_train_help": ("How many sentence pairs the model learns from.", "模型学习所用的句对数量。"),
    "studio.probe": ("Probe sentence", "探针句子"),
    "studio.probe_help": (
        "Decoded at every snapshot, so that you can watch its attention form. Chinese: put a space between words.",
        "每个快照都会解码它，让你观看它的注意力如何形成。中文：词与词之间请加空格。",
    ),
    "studio.name": ("Name of the run", "训练名称"),
    "studio.train": ("Train", "训练"),
    "studio.stop": ("Stop", "停止"),
    "studio.stop_help": (
        "Stops between two steps and saves the model as it is; **Resume** goes on from there.",
        "在两步之间停止并按当前状态保存模型；**恢复训练** 可从那里继续。",
    ),
    # messages
    "studio.no_file": ("Choose a file of sentence pairs first.", "请先选择一个句对文件。"),
    "studio.bad_file": ("This file cannot be used: {error}", "无法使用此文件：{error}"),
    "studio.bad_rows": ("{n} line(s) of the file were left out:", "文件中有 {n} 行被跳过："),
    "studio.cannot_start": ("The run could not start: {error}", "训练无法开始：{error}"),
    "studio.waiting": (
        "Waiting: {n} training(s) ahead of yours on this server.",
        "等待中：本服务器上还有 {n} 个训练排在你前面。",
    ),
    "studio.waiting_next": (
        "Waiting: yours is next, once the current training on this server ends.",
        "等待中：本服务器当前的训练结束后就轮到你。",
    ),
    "studio.progress": (
        "Step {step} of {steps} · about {eta:.0f} s left",
        "第 {step} / {steps} 步 · 约剩 {eta:.0f} 秒",
    ),
    "studio.starting": ("Preparing the data …", "正在准备数据……"),
    "studio.preparing_head": (
        "First the frozen-feature head (§5.3), for comparison: step {step} of {steps}",
        "先训练冻结特征的输出头（§5.3）作对照：第 {step} / {steps} 步",
    ),
    "studio.stats": (
        "loss {loss:.3f} · {tps:,.0f} target tokens/s · {device} · {data}",
        "损失 {loss:.3f} · 每秒 {tps:,.0f} 个目标词元 · {device} · {data}",
    ),
    "studio.finished": (
        "Finished: {steps} steps in {seconds:.0f} s; saved as “{name}”.",
        "完成：{seconds:.0f} 秒内训练了 {steps} 步；已保存为“{name}”。",
    ),
    "studio.stopped": (
        "Stopped at step {steps}; the model as it was is saved as “{name}”.",
        "在第 {steps} 步停止；当时的模型已保存为“{name}”。",
    ),
    "studio.failed": ("The run failed: {error}", "训练失败：{error}"),
    "studio.nothing": (
        "No run yet: open **Settings**, choose a preset and press **Train**.",
        "还没有训练：打开 **设置**，选择一个预设并按 **训练**。",
    ),
    "studio.no_attention": (
        "This model has no attention: the decoder sees only the encoder's last state.",
        "此模型没有注意力：解码器只看到编码器的最后状态。",
    ),
    # figures
    "studio.fig.curves": ("Training loss and validation BLEU", "训练损失与验证 BLEU"),
    "studio.fig.attention": ("The probe's attention α at step {step}", "第 {step} 步探针句子的注意力 α"),
    "studio.fig.aer": ("Alignment error rate of the snapshots (lower is better)", "各快照的对齐错误率（越低越好）"),
    "studio.axis.step": ("training step", "训练步"),
    "studio.axis.loss": ("loss", "损失"),
    "studio.axis.bleu": ("validation BLEU", "验证 BLEU"),
    "studio.axis.aer": ("AER", "AER"),
    "studio.axis.source": ("source", "源句"),
    "studio.axis.output": ("output step", "输出步"),
    "studio.snapshot": ("Snapshot", "快照"),
    "studio.snapshot_caption": (
        "Step {step}: validation BLEU {bleu:.1f}{aer}.",
        "第 {step} 步：验证 BLEU {bleu:.1f}{aer}。",
    ),
    "studio.aer_part": (", AER {aer:.3f}", "，AER {aer:.3f}"),
    # saved runs
    "studio.runs": ("Your runs ({n})", "你的训练（{n}）"),
    "studio.runs_where": (
        "Saved under {folder} (set ATTENTION_LAB_RUNS to change). Each run appears in the model "
        "picker of the Seq2seq attention page as “Your run: …”.",
        "保存在 {folder}（可用 ATTENTION_LAB_RUNS 更改）。每个训练都会以“你的训练：…”出现在"
        "“Seq2seq 注意力”页面的模型选择中。",
    ),
    "studio.run_row": ("{status} · BLEU {bleu} · {data}", "{status} · BLEU {bleu} · {data}"),
    "studio.show": ("Show", "显示"),
    "studio.rename": ("New name", "新名称"),
    "studio.rename_button": ("Rename", "重命名"),
    "studio.download": ("Download zip", "下载 zip"),
    "studio.delete": ("Delete", "删除"),
    "studio.import": ("Upload a run's zip", "上传训练的 zip"),
    "studio.import_button": ("Add this run", "添加此训练"),
    "studio.run_error": ("That did not work: {error}", "操作失败：{error}"),
    "studio.status.finished": ("finished", "已完成"),
    "studio.status.stopped": ("stopped", "已停止"),
    "studio.status.failed": ("failed", "失败"),
    "studio.status.running": ("training", "训练中"),
    "studio.status.waiting": ("waiting", "等待中"),
    "studio.your_run": ("Your run: {name}", "你的训练：{name}"),
    # messages of an uploaded file (corpora.user_tsv.MESSAGES: the same ids and English)
    "tsv.too_big": (
        "{name}: {mb:.1f} MB is over the limit of {limit:.0f} MB",
        "{name}：{mb:.1f} MB，超过了 {limit:.0f} MB 的上限",
    ),
    "tsv.empty": ("{name}: empty, no sentence pairs found", "{name}：文件为空，没有找到句对"),
    "tsv.binary": (
        "{name}: line {line}: binary data (NUL byte), not a text file",
        "{name}：第 {line} 行：含有二进制数据（NUL 字节），不是文本文件",
    ),
    "tsv.too_few": (
        "{name}: {n} usable sentence pairs, at least {least} are needed",
        "{name}：只有 {n} 个可用句对，至少需要 {least} 个",
    ),
    "tsv.too_few_at": (
        "{name}: {n} usable sentence pairs, at least {least} are needed (line {line}: {reason})",
        "{name}：只有 {n} 个可用句对，至少需要 {least} 个（第 {line} 行：{reason}）",
    ),
    "tsv.line": ("line {line}: {reason}", "第 {line} 行：{reason}"),
    "tsv.not_utf8": ("not valid UTF-8 (save the file as UTF-8)", "不是有效的 UTF-8（请将文件另存为 UTF-8 编码）"),
    "tsv.no_tab": ("no tab between the two sentences", "两个句子之间没有制表符"),
    "tsv.no_source": ("the first sentence is empty", "第一个句子为空"),
    "tsv.no_target": ("the second sentence is empty", "第二个句子为空"),
    # why a run cannot start, be changed or imported (models.training.runs.MESSAGES: the same ids and English)
    "run.err.unknown": (
        "unknown family {family!r}, data {data!r}, attention {attention!r} or score {score!r}",
        "未知的模型类别 {family!r}、数据 {data!r}、注意力 {attention!r} 或评分方式 {score!r}",
    ),
    "run.err.steps": ("steps must be between 1 and {most}, not {steps}", "步数必须在 1 到 {most} 之间，而不是 {steps}"),
    "run.err.range": ("a setting is out of range", "有一项设置超出了允许范围"),
    "run.err.transformer": (
        "the Transformer needs 1–6 layers and 1–16 heads that divide the hidden size",
        "Transformer 需要 1–6 层、1–16 个头，且头数必须能整除隐藏层大小",
    ),
    "run.err.no_pairs": ("no sentence pairs were given for this run", "这次训练没有得到任何句对"),
    "run.err.full": (
        "this server keeps at most {most} runs: delete some first",
        "本服务器最多保存 {most} 个训练：请先删除一些",
    ),
    "run.err.no_run": ("there is no saved run {run_id!r}", "没有已保存的训练 {run_id!r}"),
    "run.err.no_name": ("a run needs a name", "训练需要一个名称"),
    "run.err.not_zip": ("this file is not a zip of a training run", "此文件不是训练导出的 zip 文件"),
    "run.err.strange": ("the zip holds a file a run does not have: {name!r}", "zip 中有训练不应包含的文件：{name!r}"),
    "run.err.twice": ("the zip holds a file twice", "zip 中有重复的文件"),
    "run.err.too_big": ("the zip unpacks to more than {mb:.0f} MB", "zip 解压后超过 {mb:.0f} MB"),
    "run.err.damaged": ("the zip is damaged: {detail}", "zip 已损坏：{detail}"),
    "run.err.lying": (
        "the zip is damaged: a file is larger than its header says",
        "zip 已损坏：某个文件比其文件头声明的更大",
    ),
    "run.err.no_checkpoint": ("the zip holds no checkpoint", "zip 中没有检查点"),
    "run.err.other_model": (
        "the zip's checkpoint does not load: it is not a model the studio trains",
        "zip 中的检查点无法加载：它不是训练工作室所训练的模型",
    ),
    "run.err.bad_checkpoint": ("the zip's checkpoint does not load: {detail}", "zip 中的检查点无法加载：{detail}"),
    # Resume, private runs (issue 12 §2, §5)
    "studio.resume": ("Resume", "恢复训练"),
    "studio.resume_help": (
        "Goes on from the step where the run stopped to its planned steps: same batches, same "
        "optimizer state, same random numbers, so it ends as an uninterrupted run would.",
        "从停止的那一步继续训练到计划的步数：相同的批次、相同的优化器状态、相同的随机数，因此结果与不间断的训练相同。",
    ),
    "run.err.no_resume": (
        "this run cannot be resumed: it kept no training state (it finished, or was uploaded)",
        "此训练无法恢复：它没有保存训练状态（已完成，或是上传的）",
    ),
    "run.err.not_yours": ("only the session that made this run may change it", "只有创建此训练的会话才能修改它"),
    "studio.publish": ("Publish to the class", "发布给全班"),
    "studio.publish_help": (
        "A published run appears in the model pickers of everyone on this server; an unpublished "
        "run only in this browser session's.",
        "已发布的训练会出现在本服务器上所有人的模型选择器中；未发布的只出现在本浏览器会话中。",
    ),
    "studio.published_by_other": ("Published to the class by another session.", "由其他会话发布给全班。"),
    "studio.class_run": ("Class run: {name}", "全班共享的训练：{name}"),
    # the decoder-only LM and the small BERT (issue 12 §1)
    "studio.family.lm": ("Decoder-only LM", "仅解码器语言模型"),
    "studio.family.bert": ("Small BERT", "小型 BERT"),
    "studio.preset.lm": ("Quick · decoder-only LM (2 layers × 4 heads)", "快速 · 仅解码器语言模型（2 层 × 4 头）"),
    "studio.preset.bert": ("Quick · small BERT (2 layers × 4 heads)", "快速 · 小型 BERT（2 层 × 4 头）"),
    "studio.preset.tiny-lm": ("Tiny · LM (demo)", "极小 · 语言模型（演示）"),
    "studio.preset.tiny-bert": ("Tiny · BERT (demo)", "极小 · BERT（演示）"),
    "studio.data.bible-text": (
        "Bible text: World English Bible (LM, BERT, XL, XLNet)",
        "圣经文本：World English Bible（语言模型、BERT、XL、XLNet）",
    ),
    "studio.data.text": ("Your plain-text file (LM, BERT, XL, XLNet)", "你的纯文本文件（语言模型、BERT、XL、XLNet）"),
    "studio.axis.perplexity": ("validation perplexity", "验证困惑度"),
    "studio.axis.mlm_accuracy": ("masked-LM accuracy (%)", "掩码语言模型准确率（%）"),
    "studio.axis.key": ("token read (key)", "被读取的词元（键）"),
    "studio.axis.query": ("token reading (query)", "读取的词元（查询）"),
    "studio.fig.curves_lm": ("Training loss and validation perplexity", "训练损失与验证困惑度"),
    "studio.fig.curves_bert": ("Training loss and masked-LM accuracy", "训练损失与掩码语言模型准确率"),
    "studio.fig.self": ("The probe's self-attention at step {step}, {head}", "第 {step} 步探针文本的自注意力，{head}"),
    "studio.snapshot_caption_lm": (
        "Step {step}: validation perplexity {score:.1f}.",
        "第 {step} 步：验证困惑度 {score:.1f}。",
    ),
    "studio.snapshot_caption_bert": (
        "Step {step}: masked-LM accuracy {score:.1%} on held-out text.",
        "第 {step} 步：留出文本上的掩码语言模型准确率 {score:.1%}。",
    ),
    "studio.next_tokens": ("The probe's next tokens (greedy):", "探针文本的后续词元（贪心）："),
    "studio.mask_fill": ("The most probable piece at each [MASK]:", "每个 [MASK] 处概率最高的子词："),
    "studio.run_row_lm": ("{status} · perplexity {score} · {data}", "{status} · 困惑度 {score} · {data}"),
    "studio.run_row_bert": (
        "{status} · masked-LM accuracy {score} · {data}",
        "{status} · 掩码语言模型准确率 {score} · {data}",
    ),
    "run.err.data_family": (
        "{family} trains on {kinds}, not on {data!r}",
        "{family} 只能在 {kinds} 上训练，不能用 {data!r}",
    ),
    "run.err.no_text": ("no text was given for this run", "这次训练没有得到任何文本"),
    "run.err.short_text": ("the text is too short to train on: {detail}", "文本太短，无法训练：{detail}"),
    # Transformer-XL and XLNet (issue 12 §1: "and Transformer-XL / XLNet once they exist")
    "studio.family.xl": ("Transformer-XL", "Transformer-XL"),
    "studio.family.xlnet": ("XLNet", "XLNet"),
    "studio.preset.xl": (
        "Quick · Transformer-XL (2 layers × 4 heads, L = M = 16)",
        "快速 · Transformer-XL（2 层 × 4 头，L = M = 16）",
    ),
    "studio.preset.xlnet": (
        "Quick · XLNet (2 layers × 4 heads, n = 16, K = 4)",
        "快速 · XLNet（2 层 × 4 头，n = 16，K = 4）",
    ),
    "studio.preset.tiny-xl": ("Tiny · Transformer-XL (demo)", "极小 · Transformer-XL（演示）"),
    "studio.preset.tiny-xlnet": ("Tiny · XLNet (demo)", "极小 · XLNet（演示）"),
    "studio.seg_len": ("Segment length L (XL)", "片段长度 L（XL）"),
    "studio.seg_len_help": (
        "Tokens read per step; each segment also reads the memory of the ones before it.",
        "每步读取的词元数；每个片段还会读取之前片段留下的记忆。",
    ),
    "studio.mem_len": ("Memory M (XL)", "记忆长度 M（XL）"),
    "studio.mem_len_help": (
        "Cached states of the tokens before the segment (no gradient through them); 0 = vanilla segments.",
        "片段之前词元的缓存状态（梯度不回传）；0 = 普通的独立片段。",
    ),
    "studio.window": ("Window n (XLNet)", "窗口 n（XLNet）"),
    "studio.window_help": (
        "Tokens per training window, each read under a fresh random factorisation order.",
        "每个训练窗口的词元数，每个窗口都使用一个新的随机分解顺序。",
    ),
    "studio.k_split": ("K (XLNet)", "K（XLNet）"),
    "studio.k_split_help": (
        "Partial prediction: only the last ⌈n/K⌉ tokens of each order are predicted.",
        "部分预测：只预测每个顺序中最后 ⌈n/K⌉ 个词元。",
    ),
    "studio.axis.plm_perplexity": ("permutation-LM perplexity", "排列语言模型困惑度"),
    "studio.fig.curves_xlnet": (
        "Training loss and held-out permutation-LM perplexity",
        "训练损失与留出数据上的排列语言模型困惑度",
    ),
    "studio.snapshot_caption_xlnet": (
        "Step {step}: permutation-LM perplexity {score:.1f} on held-out windows (seeded random orders).",
        "第 {step} 步：留出窗口上的排列语言模型困惑度 {score:.1f}（固定种子的随机顺序）。",
    ),
    "studio.run_row_xlnet": (
        "{status} · permutation-LM perplexity {score} · {data}",
        "{status} · 排列语言模型困惑度 {score} · {data}",
    ),
    "studio.fig.xl": (
        "The probe's last segment over [memory | segment] at step {step}, {head}",
        "第 {step} 步探针文本最后一个片段对 [记忆 | 片段] 的注意力，{head}",
    ),
    "studio.fig.query_stream": (
        "The probe's query stream, left-to-right order, at step {step}, {head}",
        "第 {step} 步探针文本的查询流（从左到右的顺序），{head}",
    ),
    "studio.xlnet_predictions": (
        "The top prediction at each predicted position (the last ⌈n/K⌉, left to right):",
        "每个被预测位置（从左到右顺序的最后 ⌈n/K⌉ 个）概率最高的预测：",
    ),
    "run.err.xl": (
        "Transformer-XL needs a segment length of 2–{seg} and a memory of 0–{mem} tokens",
        "Transformer-XL 需要 2–{seg} 的片段长度和 0–{mem} 个词元的记忆",
    ),
    "run.err.xlnet": (
        "XLNet needs a window of 4–{window} tokens and a K of 1–{k} (at most the window)",
        "XLNet 需要 4–{window} 个词元的窗口和 1–{k} 的 K（不超过窗口大小）",
    ),
    "run.err.short_probe": (
        "XLNet's probe needs at least 2 words (it predicts words from the other words)",
        "XLNet 的探针文本至少需要 2 个词（它根据其他词来预测词）",
    ),
    "studio.vocab_cut": (
        "Vocabulary: the {kept:,} most frequent words of the {seen:,} in the data; the others read as <unk>.",
        "词表：数据中 {seen:,} 个词里最常见的 {kept:,} 个；其余的读作 <unk>。",
    ),
    "studio.vocab_cut_help": (
        "A vocabulary is capped so that one large file cannot make a model too large for the "
        "class's server; rare words matter least to what the model learns.",
        "词表设有上限，这样一个大文件不会造出对全班服务器来说过大的模型；罕见词对模型学到的东西影响最小。",
    ),
    "run.err.bad_field": (
        "the run's record is not one the studio writes: its field {field!r} is wrong",
        "这份训练记录不是训练工作室写出的：其字段 {field!r} 有误",
    ),
    "run.err.quota": (
        "you keep at most {most} runs here: delete one of yours first",
        "你在这里最多保留 {most} 个训练：请先删除一个你自己的训练",
    ),
    "run.err.one_at_a_time": (
        "you already have a run training or waiting: wait for it, or stop it first",
        "你已有一个训练正在进行或排队：请等它结束，或先停止它",
    ),
    "run.err.busy": ("this run is training in another process of the server", "这个训练正在服务器的另一个进程中进行"),
    "run.err.too_large_model": (
        "this model is too large for the studio (over {most:.0f} million parameters)",
        "这个模型对训练工作室来说太大（超过 {most:.0f} 百万个参数）",
    ),
    # fine-tuning a pre-trained BERT on a synthetic task (issue 27; Devlin et al. 2019 §4, §5.3)
    "studio.family.finetune": ("Fine-tuned BERT", "微调 BERT"),
    "studio.preset.finetune": ("Quick · fine-tune bert-small (NLI)", "快速 · 微调 bert-small（NLI）"),
    "studio.preset.tiny-finetune": ("Tiny · fine-tuning (demo)", "极小 · 微调（演示）"),
    "studio.data.task": ("The grammar's synthetic task", "语法生成的合成任务"),
    "studio.no_upload": (
        "Fine-tuning trains on the lab's synthetic task: there is no file to upload.",
        "微调在实验室的合成任务上训练：不需要上传文件。",
    ),
    "studio.task": ("Task", "任务"),
    "studio.task.cls": ("One sentence: person, animal or thing? ([CLS])", "单句：人、动物还是物体？（[CLS]）"),
    "studio.task.nli": ("Sentence pair (NLI): entailment / contradiction / neutral", "句对（NLI）：蕴含 / 矛盾 / 中立"),
    "studio.task.qa": ("Answer span (QA): start and end in the context", "答案区间（QA）：上下文中的起点和终点"),
    "studio.task_help": (
        "Every parameter of the pre-trained model is trained on the task with a fresh output layer (§4); "
        "first, the same output layer is trained alone on the frozen model (§5.3). A pair's probe is "
        "typed as `first | second`.",
        "预训练模型的全部参数与一个新的输出层一起在任务上训练（§4）；在此之前，同一个输出层先在冻结的模型上"
        "单独训练（§5.3）。句对的探针写作 `第一句 | 第二句`。",
    ),
    "studio.base": ("Pre-trained model", "预训练模型"),
    "studio.base_help": (
        "The model to fine-tune; its size is its own (the size settings are not used). Only the models on "
        "this server that fit the studio's size limit are offered.",
        "要微调的模型；大小由它自己决定（不使用大小设置）。只列出本服务器上符合训练工作室大小上限的模型。",
    ),
    "studio.axis.task_accuracy": ("test accuracy (%)", "测试准确率（%）"),
    "studio.axis.exact_match": ("test exact match (%)", "测试完全匹配（%）"),
    "studio.fig.curves_finetune": ("Training loss and test accuracy", "训练损失与测试准确率"),
    "studio.fig.curves_span": ("Training loss and test exact match", "训练损失与测试完全匹配"),
    "studio.snapshot_caption_finetune": (
        "Step {step}: accuracy {score:.1%} on the task's test split.",
        "第 {step} 步：任务测试集上的准确率 {score:.1%}。",
    ),
    "studio.snapshot_caption_span": (
        "Step {step}: exact match {score:.1%} of the answers on the task's test split.",
        "第 {step} 步：任务测试集上答案的完全匹配 {score:.1%}。",
    ),
    "studio.predicted_label": ("The predicted label (from [CLS]):", "预测的标签（来自 [CLS]）："),
    "studio.predicted_span": ("The predicted answer span:", "预测的答案区间："),
    "studio.run_row_finetune": ("{status} · test accuracy {score} · {data}", "{status} · 测试准确率 {score} · {data}"),
    "studio.run_row_span": ("{status} · test exact match {score} · {data}", "{status} · 测试完全匹配 {score} · {data}"),
    "studio.finetune_frozen_partial": (
        "(Stop ended the frozen head's training at step {step} of {steps}: its figure is of that head.)",
        "（停止时冻结输出头只训练到第 {step} / {steps} 步：它的结果来自这个头。）",
    ),
    "studio.finetune_test": (
        "Test {metric} on {n} items: all parameters fine-tuned (§4) **{tuned:.1%}** · "
        "frozen, head only (§5.3) **{frozen:.1%}**.",
        "{n} 个测试样本上的{metric}：微调全部参数（§4）**{tuned:.1%}** · 冻结，只训练输出头（§5.3）**{frozen:.1%}**。",
    ),
    "studio.metric.accuracy": ("accuracy", "准确率"),
    "studio.metric.exact_match": ("exact match", "完全匹配"),
    "run.err.finetune": (
        "fine-tuning needs a task of {tasks} and a base of {bases}",
        "微调需要以下任务之一：{tasks}，以及以下预训练模型之一：{bases}",
    ),
    "run.err.no_base": (
        "the base model {base!r} is not installed on this server",
        "本服务器上没有安装预训练模型 {base!r}",
    ),
    # explanation
    "studio.explain": (
        "**What you are watching.** Each step shows the model a batch of sentence pairs with the gold translation "
        "fed in (teacher forcing) and nudges every weight against the gradient of the cross-entropy loss "
        "−Σ log p(y_t | y_<t, x). At each snapshot the model translates the probe greedily and its attention "
        "weights α_{t,i} are kept: at first they are almost uniform; as the model learns, each output word looks "
        "at the source word it translates. On the grammar data every validation sentence has a gold word "
        "alignment, so the alignment error rate AER = 1 − 2|A∩G| / (|A| + |G|) (Och & Ney 2003) measures how "
        "far the argmax of α is from it. The saved model is an ordinary checkpoint: open it on the Seq2seq "
        "attention page and step through it.",
        "**你在看什么。** 每一步把一批句对交给模型，并输入标准译文（教师强制），再沿交叉熵损失 "
        "−Σ log p(y_t | y_<t, x) 的负梯度方向微调每个权重。每个快照时模型用贪心解码翻译探针句子，并保留它的"
        "注意力权重 α_{t,i}：一开始几乎是均匀的；随着学习，每个输出词会看向它所翻译的源词。语法数据中每个"
        "验证句都有标准词对齐，因此对齐错误率 AER = 1 − 2|A∩G| / (|A| + |G|)（Och & Ney 2003）衡量 α 的"
        "最大值位置与它的差距。保存的模型是普通的检查点：可在“Seq2seq 注意力”页面打开并逐步查看。",
    ),
}
SAME: frozenset[str] = frozenset(
    {
        "studio.family.xl",
        "studio.family.xlnet",
        "studio.attn.luong-dot",
        "studio.attn.luong-general",
        "studio.attn.luong-concat",
        "studio.axis.aer",
        "studio.run_row",
    }
)
