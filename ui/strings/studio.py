"""Strings of the Training studio (pages/11_Training_studio.py, ui/studio.py): id → (English, 中文)."""
from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "nav.11": ("Training studio", "训练工作室"),
    "nav.11.blurb": ("Train a small encoder–decoder from the browser and watch its attention emerge, step by step.",
                     "在浏览器中训练一个小型编码器–解码器，逐步观看注意力如何形成。"),
    "studio.intro": ("Press **Train** and watch a small RNN or Transformer encoder–decoder learn to align: the loss "
                     "falls, the validation BLEU rises and the probe sentence's attention map turns into an alignment. "
                     "Training runs in the background: you may leave the page and come back.",
                     "按下 **训练**，观看一个小型 RNN 或 Transformer 编码器–解码器学习对齐：损失下降，验证 BLEU 上升，"
                     "探针句子的注意力权重图逐渐变成对齐。训练在后台运行：你可以离开本页面再回来。"),
    "studio.family": ("Model", "模型"),
    "studio.family.rnn": ("RNN encoder–decoder", "RNN 编码器–解码器"),
    "studio.family.transformer": ("Transformer encoder–decoder", "Transformer 编码器–解码器"),
    "studio.layers": ("Layers (Transformer)", "层数（Transformer）"),
    "studio.layers_help": ("Encoder and decoder layers each.", "编码器和解码器各自的层数。"),
    "studio.heads": ("Heads (Transformer)", "头数（Transformer）"),
    "studio.heads_help": ("Attention heads per layer; they must divide the hidden size.",
                          "每层的注意力头数；必须能整除隐藏层大小。"),
    "studio.smoothing": ("Label smoothing (Transformer)", "标签平滑（Transformer）"),
    "studio.smoothing_help": ("ε: the target distribution gives ε of its mass to the other words (Szegedy et al. 2016).",
                              "ε：目标分布把 ε 的概率质量分给其他词（Szegedy 等，2016）。"),
    "studio.probe_placeholder": ("empty: the first validation sentence", "留空：第一个验证句子"),
    "studio.fig.cross": ("The probe's cross-attention at step {step}, {head}", "第 {step} 步探针句子的交叉注意力，{head}"),
    "studio.preset.transformer": ("Quick · Transformer (2 layers × 4 heads)", "快速 · Transformer（2 层 × 4 头）"),
    "studio.preset.tiny-transformer": ("Tiny · Transformer (demo)", "极小 · Transformer（演示）"),
    # settings
    "studio.settings": ("Settings", "设置"),
    "studio.preset": ("Preset", "预设"),
    "studio.preset_help": ("Settings that train in about a minute on one laptop CPU core; every field below can "
                           "still be changed.", "在一个笔记本 CPU 核心上约一分钟即可训练完的设置；下面每一项仍可修改。"),
    "studio.preset.bahdanau": ("Quick · Bahdanau (additive)", "快速 · Bahdanau（加性）"),
    "studio.preset.luong": ("Quick · Luong general", "快速 · Luong general"),
    "studio.preset.none": ("Quick · no attention", "快速 · 无注意力"),
    "studio.preset.tiny": ("Tiny · a few seconds (demo)", "极小 · 几秒钟（演示）"),
    "studio.data": ("Data", "数据"),
    "studio.data.grammar": ("English→French grammar (with gold alignments)", "英语→法语语法生成语料（带标准对齐）"),
    "studio.data.bible": ("Bible verses: World English Bible → Louis Segond", "圣经经文：World English Bible → Louis Segond"),
    "studio.data.hsk": ("HSK sentences: Chinese → English (CC-BY-SA-4.0)", "HSK 例句：汉语 → 英语（CC-BY-SA-4.0）"),
    "studio.data.upload": ("Your file (Tatoeba format)", "你的文件（Tatoeba 格式）"),
    "studio.upload": ("Sentence pairs: source<TAB>target[<TAB>attribution], UTF-8",
                      "句对：源句<TAB>目标句[<TAB>出处]，UTF-8 编码"),
    "studio.attention": ("Attention (RNN)", "注意力（RNN）"),
    "studio.attention_help": ("Bahdanau scores s_{t−1} against each h_i with a small network; Luong scores s_t "
                              "(dot, general or concat); none passes only the encoder's last state.",
                              "Bahdanau 用一个小网络比较 s_{t−1} 与每个 h_i；Luong 用 s_t 打分（dot、general 或 concat）；"
                              "无注意力时只传递编码器的最后状态。"),
    "studio.attn.none": ("No attention", "无注意力"),
    "studio.attn.bahdanau": ("Bahdanau (additive)", "Bahdanau（加性）"),
    "studio.attn.luong-dot": ("Luong dot", "Luong dot"),
    "studio.attn.luong-general": ("Luong general", "Luong general"),
    "studio.attn.luong-concat": ("Luong concat", "Luong concat"),
    "studio.bidirectional": ("Bidirectional encoder (RNN)", "双向编码器（RNN）"),
    "studio.bidirectional_help": ("Each h_i reads the sentence from both ends.", "每个 h_i 从两端读取句子。"),
    "studio.hidden": ("Hidden size", "隐藏层大小"),
    "studio.hidden_help": ("The RNN's embedding, GRU and attention size, or the Transformer's d_model: bigger learns "
                           "more, but each step is slower.",
                           "RNN 的词嵌入、GRU 和注意力大小，或 Transformer 的 d_model：越大学得越多，但每步越慢。"),
    "studio.dropout": ("Dropout", "Dropout"),
    "studio.dropout_help": ("Share of activations zeroed in training, against overfitting.",
                            "训练时被置零的激活比例，用于防止过拟合。"),
    "studio.teacher": ("Teacher forcing (RNN)", "教师强制（RNN）"),
    "studio.teacher_help": ("Probability that the decoder reads the gold previous word rather than its own guess.",
                            "解码器读取标准前一个词（而不是自己的猜测）的概率。"),
    "studio.batch": ("Batch size", "批大小"),
    "studio.batch_help": ("Sentence pairs per step.", "每步的句对数。"),
    "studio.lr": ("Learning rate", "学习率"),
    "studio.lr_help": ("Peak step size of Adam (warm-up over the first 10% of the steps, then linear decay).",
                       "Adam 的峰值步长（前 10% 的步数预热，然后线性衰减）。"),
    "studio.steps": ("Steps", "步数"),
    "studio.steps_help": ("Optimizer steps; the run is defined by them, not by time.",
                          "优化器步数；一次训练由步数而不是时间决定。"),
    "studio.n_train": ("Training pairs", "训练句对数"),
    "studio.n_train_help": ("How many sentence pairs the model learns from.", "模型学习所用的句对数量。"),
    "studio.probe": ("Probe sentence", "探针句子"),
    "studio.probe_help": ("Decoded at every snapshot, so that you can watch its attention form. Chinese: put a "
                          "space between words.",
                          "每个快照都会解码它，让你观看它的注意力如何形成。中文：词与词之间请加空格。"),
    "studio.name": ("Name of the run", "训练名称"),
    "studio.train": ("Train", "训练"),
    "studio.stop": ("Stop", "停止"),
    "studio.stop_help": ("Stops between two steps and saves the model as it is; a stopped run cannot be resumed.",
                         "在两步之间停止并按当前状态保存模型；停止的训练无法继续。"),
    # messages
    "studio.bad_settings": ("These settings cannot train: {error}", "这些设置无法训练：{error}"),
    "studio.no_file": ("Choose a file of sentence pairs first.", "请先选择一个句对文件。"),
    "studio.bad_file": ("This file cannot be used: {error}", "无法使用此文件：{error}"),
    "studio.bad_rows": ("{n} line(s) of the file were left out:", "文件中有 {n} 行被跳过："),
    "studio.cannot_start": ("The run could not start: {error}", "训练无法开始：{error}"),
    "studio.waiting": ("Waiting: {n} training(s) ahead of yours on this server.",
                       "等待中：本服务器上还有 {n} 个训练排在你前面。"),
    "studio.waiting_next": ("Waiting: yours is next, once the current training on this server ends.",
                            "等待中：本服务器当前的训练结束后就轮到你。"),
    "studio.progress": ("Step {step} of {steps} · about {eta:.0f} s left", "第 {step} / {steps} 步 · 约剩 {eta:.0f} 秒"),
    "studio.starting": ("Preparing the data …", "正在准备数据……"),
    "studio.stats": ("loss {loss:.3f} · {tps:,.0f} target tokens/s · {device} · {data}",
                     "损失 {loss:.3f} · 每秒 {tps:,.0f} 个目标词元 · {device} · {data}"),
    "studio.finished": ("Finished: {steps} steps in {seconds:.0f} s; saved as “{name}”.",
                        "完成：{seconds:.0f} 秒内训练了 {steps} 步；已保存为“{name}”。"),
    "studio.stopped": ("Stopped at step {steps}; the model as it was is saved as “{name}”.",
                       "在第 {steps} 步停止；当时的模型已保存为“{name}”。"),
    "studio.failed": ("The run failed: {error}", "训练失败：{error}"),
    "studio.nothing": ("No run yet: open **Settings**, choose a preset and press **Train**.",
                       "还没有训练：打开 **设置**，选择一个预设并按 **训练**。"),
    "studio.no_attention": ("This model has no attention: the decoder sees only the encoder's last state.",
                            "此模型没有注意力：解码器只看到编码器的最后状态。"),
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
    "studio.snapshot_caption": ("Step {step}: validation BLEU {bleu:.1f}{aer}.", "第 {step} 步：验证 BLEU {bleu:.1f}{aer}。"),
    "studio.aer_part": (", AER {aer:.3f}", "，AER {aer:.3f}"),
    # saved runs
    "studio.runs": ("Your runs ({n})", "你的训练（{n}）"),
    "studio.runs_where": ("Saved under {folder} (set ATTENTION_LAB_RUNS to change). Each run appears in the model "
                          "picker of the Seq2seq attention page as “Your run: …”.",
                          "保存在 {folder}（可用 ATTENTION_LAB_RUNS 更改）。每个训练都会以“你的训练：…”出现在"
                          "“Seq2seq 注意力”页面的模型选择中。"),
    "studio.run_row": ("{status} · BLEU {bleu} · {data}", "{status} · BLEU {bleu} · {data}"),
    "studio.show": ("Show", "显示"),
    "studio.rename": ("New name", "新名称"),
    "studio.rename_button": ("Rename", "重命名"),
    "studio.download": ("Download zip", "下载 zip"),
    "studio.delete": ("Delete", "删除"),
    "studio.import": ("Upload a run's zip", "上传训练的 zip"),
    "studio.import_button": ("Add this run", "添加此训练"),
    "studio.imported": ("Added the run “{name}”.", "已添加训练“{name}”。"),
    "studio.run_error": ("That did not work: {error}", "操作失败：{error}"),
    "studio.status.finished": ("finished", "已完成"),
    "studio.status.stopped": ("stopped", "已停止"),
    "studio.status.failed": ("failed", "失败"),
    "studio.status.running": ("training", "训练中"),
    "studio.status.waiting": ("waiting", "等待中"),
    "studio.your_run": ("Your run: {name}", "你的训练：{name}"),
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
        "最大值位置与它的差距。保存的模型是普通的检查点：可在“Seq2seq 注意力”页面打开并逐步查看。"),
}
SAME: frozenset[str] = frozenset({"studio.attn.luong-dot", "studio.attn.luong-general", "studio.attn.luong-concat",
                                  "studio.dropout", "studio.axis.aer", "studio.run_row"})
