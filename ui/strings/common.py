"""Strings of the frame, the landing page and the shared widgets: id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "error.page": (
        "Something went wrong on this page (error {ref}). Reload the page to go on; the teacher finds "
        "the details under this reference in the server's log.",
        "本页出了错（错误编号 {ref}）。请重新加载页面继续；老师可在服务器日志中按此编号查到详情。",
    ),
    # language switch and its notice
    "lang.switch": ("Language · 语言", "语言 · Language"),
    "lang.bad": (
        "The link's language “{raw}” is not available, so this shows {language}.",
        "链接中的语言“{raw}”不可用，因此显示{language}。",
    ),
    # page list (ui/frame.py): label and one-line blurb per page file number
    "nav.home": ("Attention Lab — home", "注意力实验室 — 首页"),
    "nav.1": ("Attention from scratch", "从零理解注意力"),
    "nav.1.blurb": (
        "Kernel regression, score functions, soft/hard/local attention, a Q/K/V sandbox.",
        "核回归、评分函数、软/硬/局部注意力，以及查询/键/值（Q/K/V）沙盒。",
    ),
    "nav.2": ("Seq2seq attention", "序列到序列注意力"),
    "nav.2.blurb": (
        "Translate with an RNN encoder–decoder: no attention, Bahdanau, Luong; step by step.",
        "用 RNN 编码器–解码器翻译：无注意力、Bahdanau、Luong，逐步查看。",
    ),
    "nav.3": ("Positional encoding", "位置编码"),
    "nav.3.blurb": (
        "Sinusoids, their rotation property, learned, relative, RoPE and ALiBi.",
        "正弦位置编码及其旋转性质，可学习、相对、RoPE 与 ALiBi 位置编码。",
    ),
    "nav.4": ("Transformer translation", "Transformer 翻译"),
    "nav.4.blurb": (
        "Multi-head encoder self-, masked decoder self- and cross-attention.",
        "多头注意力：编码器自注意力、带掩码的解码器自注意力与交叉注意力。",
    ),
    "nav.5": ("Inside one head", "单个头的内部"),
    "nav.5.blurb": (
        "QKᵀ → ÷√d_k → mask → softmax → ·V for one query, as numbers.",
        "对一个查询逐步计算 QKᵀ → ÷√d_k → 掩码 → softmax → ·V，全部给出数值。",
    ),
    "nav.6": ("Generation", "文本生成"),
    "nav.6.blurb": ("A decoder-only language model, token by token.", "仅解码器的语言模型，逐个词元生成。"),
    "nav.7": ("BERT masking", "BERT 掩码"),
    "nav.7.blurb": (
        "WordPiece, 15% masking (80/10/10), next-sentence pairs, predictions.",
        "WordPiece 分词、15% 掩码（80/10/10）、下一句预测句对与预测结果。",
    ),
    "nav.8": ("Real model explorer", "真实模型探索"),
    "nav.8.blurb": (
        "Every layer and head of a real pretrained encoder or decoder.",
        "真实预训练编码器或解码器的每一层、每一个头。",
    ),
    "frame.device_pending": ("Compute device: shown once a model has loaded", "计算设备：模型加载后显示"),
    "frame.device": ("Compute device: **{device}**", "计算设备：**{device}**"),
    # models.device.DEVICE_NAMES, the same English
    "device.cuda": ("CUDA: {name}", "CUDA：{name}"),
    "device.mps": ("Apple MPS", "Apple MPS"),
    "device.cpu_one": ("CPU (1 thread)", "CPU（1 个线程）"),
    "device.cpu_many": ("CPU ({n} threads)", "CPU（{n} 个线程）"),
    "common.options": ("Options", "选项"),
    # landing page (app.py)
    "app.title": ("Attention Lab", "注意力实验室"),
    "app.intro": (
        "See how attention works by looking inside small models that run right here, offline. "
        "Type a sentence, step through its translation, and watch where each step looks. "
        "Every number on screen is the number the model computed.",
        "在本机离线运行的小模型内部，看注意力如何工作。输入一句话，逐步查看它的翻译，"
        "观察每一步关注哪里。屏幕上的每个数字都是模型实际算出的数字。",
    ),
    "app.pages": ("Pages, in teaching order", "按教学顺序排列的页面"),
    "app.lecture": ("In a lecture", "课堂上使用"),
    "app.lecture_tips": (
        "- Step through a decoding with **←** and **→** (or the Prev/Next buttons).\n"
        "- Everything runs on this machine: no internet is needed in the room.\n"
        "- The model picker and other settings are kept in the address bar, so a link reopens the same view.",
        "- 用 **←** 和 **→**（或“上一步/下一步”按钮）逐步查看解码过程。\n"
        "- 一切都在本机运行：教室里不需要联网。\n"
        "- 模型选择和其他设置保存在地址栏中，打开同一个链接即可回到同一视图。",
    ),
    # ui/state.py
    "state.notice": (
        "The link's {what} “{raw}” is not available here, so this shows {instead}.",
        "链接中的{what}“{raw}”在此不可用，因此显示{instead}。",
    ),
    "state.session_notice": (
        "This session's {what} “{raw}” is not available here, so this shows {instead}.",
        "本次会话中的{what}“{raw}”在此不可用，因此显示{instead}。",
    ),
    "state.default": ("the default", "默认值"),
    "state.topic": ("topic", "主题"),
    # ui/stepper.py
    "step.label": ("Decoding step", "解码步"),
    "step.prev": ("◀ Prev", "◀ 上一步"),
    "step.next": ("Next ▶", "下一步 ▶"),
    "step.prev_help": ("Previous step (← key)", "上一步（← 键）"),
    "step.next_help": ("Next step (→ key)", "下一步（→ 键）"),
    "step.one": ("{label}: 1 of 1", "{label}：第 1 步，共 1 步"),
    "step.last": ("the last step, {n}", "最后一步（第 {n} 步）"),
    "step.first": ("step 1", "第 1 步"),
    "step.penalty": ("Length penalty α", "长度惩罚 α"),
    "step.penalty_help": (
        "The beam ranks finished outputs by Σ log p / ((5 + |y|) / 6)^α (Wu et al. 2016), the same rule on the "
        "seq2seq and Transformer pages: 0 = raw log-probability, larger α favours longer outputs.",
        "束搜索按 Σ log p / ((5 + |y|) / 6)^α（Wu et al. 2016）为已完成的输出排序，序列到序列页与 Transformer "
        "页使用同一规则：0 表示直接用对数概率，α 越大越偏向较长的输出。",
    ),
    # ui/plot.py
    "plot.fullscreen": ("Full screen (Esc to leave)", "全屏（按 Esc 退出）"),
    "plot.failed": (
        "This figure could not be drawn: the page could not load plotly.js from this server. Reload the page.",
        "无法绘制此图：页面未能从本服务器加载 plotly.js。请重新加载页面。",
    ),
    "plot.no_js": (
        "Figures cannot be shown: the server could not copy plotly.js into static/vendor ({error}).",
        "无法显示图表：服务器未能把 plotly.js 复制到 static/vendor（{error}）。",
    ),
    # ui/export.py
    "export.button": ("Export", "导出"),
    "export.help": (
        "Download this view: numbers, trace, handout. Images: the camera (PNG, 1920×1080) and SVG "
        "buttons in each chart's toolbar.",
        "下载当前视图：数值、轨迹、讲义。图片：用每个图表工具栏中的相机按钮（PNG，1920×1080）和 SVG 按钮。",
    ),
    "export.csv": ("{caption} (CSV)", "{caption}（CSV）"),
    "export.json": ("Whole trace (JSON)", "完整轨迹（JSON）"),
    "export.json_big": ("Over {limit:,} numbers: take the NPZ", "超过 {limit:,} 个数值：请下载 NPZ"),
    "export.npz": ("Trace arrays (NPZ)", "轨迹数组（NPZ）"),
    "export.html": ("Handout (HTML, offline)", "讲义（HTML，离线）"),
    # the handout's key numbers (export_menu numbers=…), by what they are
    "num.model": ("Model", "模型"),
    "num.translation": ("Translation", "译文"),
    "num.output": ("Output", "输出"),
    "num.search": ("Search", "搜索"),
    "num.search_value": ("{search}, width {width}", "{search}，宽度 {width}"),
    "num.score": ("Score", "分数"),
    "num.step": ("Step", "步"),
    "num.query": ("Query", "查询"),
    "num.largest": ("Largest weight", "最大权重"),
    "num.entropy": ("Entropy (bits)", "熵（比特）"),
    "num.generated": ("Generated", "生成的文本"),
    "num.temperature": ("Temperature", "温度"),
    "num.seed": ("Seed", "随机种子"),
    "num.p_step": ("p(step {step})", "p(第 {step} 步)"),
    "num.pieces": ("Pieces", "子词数"),
    "num.rule": ("Rule", "规则"),
    "num.chosen": ("Chosen", "被选中"),
    "num.top1": ("Top-1 right", "第 1 名正确"),
    "num.tokens": ("Tokens", "词元数"),
    "num.layers": ("Layers", "层数"),
    "num.heads": ("Heads", "头数"),
    # ui/grid.py
    "grid.layer": ("Layer", "层"),
    "grid.head": ("Head", "头"),
    "grid.layer_n": ("layer {n}", "第 {n} 层"),
    "grid.head_n": ("head {n}", "头 {n}"),
    "grid.average": ("average over heads", "各头平均"),
    "grid.layer_what": ("layer", "层"),
    "grid.head_what": ("head", "头"),
    "grid.name": ("{layer}, {head}", "{layer}，{head}"),
    # ui/transformer.py: the kinds of attention of an encoder–decoder Transformer
    "kind.encoder": ("Encoder self-attention", "编码器自注意力"),
    "kind.decoder": ("Decoder self-attention (masked)", "解码器自注意力（带掩码）"),
    "kind.cross": ("Cross-attention (encoder–decoder)", "交叉注意力（编码器–解码器）"),
    "kind.short.encoder": ("Encoder self-attention", "编码器自注意力"),
    "kind.short.decoder": ("Decoder self-attention", "解码器自注意力"),
    "kind.short.cross": ("Cross-attention", "交叉注意力"),
    # ui/checkpoints.py, ui/tokens.py
    "ckpt.unreadable": ("{name} (unreadable)", "{name}（无法读取）"),
    "ckpt.cannot_load": ("Cannot load model “{name}”: {error}", "无法加载模型“{name}”：{error}"),
    "tokens.unknown_title": ("not in the model's vocabulary: read as <unk>", "不在模型词表中：读作 <unk>"),
    # the notices next to a translation (models/inference/notices.py: Notice.key and Notice.args)
    "notice.unknown": (
        "{n} of {total} input words are unknown to this model and read as <unk>: {shown}. Its output "
        "for them is a guess.",
        "输入的 {total} 个词中有 {n} 个不在该模型的词表中，被读作 <unk>：{shown}。模型对它们的输出只是猜测。",
    ),
    "notice.cut": (
        "The input is longer than this model reads: the last {dropped} tokens were cut off.",
        "输入超过了该模型能读入的长度：最后 {dropped} 个词元被截掉了。",
    ),
    "notice.length": (
        "The output stopped at the length limit (2·|input| + 10 tokens) without an end token: it is unfinished.",
        "输出在达到长度上限（2·|输入| + 10 个词元）时停止，没有结束词元：译文未完成。",
    ),
    "notice.confidence.none": (
        "Confidence: mean log-probability per output token {confidence:.3f} (no test-set figure "
        "to compare with: run python -m models.evaluate --write).",
        "置信度：每个输出词元的平均对数概率 {confidence:.3f}（没有测试集数据可比较：运行 "
        "python -m models.evaluate --write）。",
    ),
    "notice.confidence.far": (
        "Confidence: mean log-probability per output token {confidence:.3f} — far below the test "
        "set (on its test set the median is {median:.3f}, and 99% of sentences score above "
        "{p01:.3f}): the input is probably outside what this model learned, however fluent the "
        "output.",
        "置信度：每个输出词元的平均对数概率 {confidence:.3f} — 远低于测试集（其测试集中位数为 "
        "{median:.3f}，99% 的句子高于 {p01:.3f}）：输入很可能超出了该模型学到的范围，无论输出看起来多通顺。",
    ),
    "notice.confidence.low": (
        "Confidence: mean log-probability per output token {confidence:.3f} — lower than 95% of "
        "the test set (on its test set the median is {median:.3f}, and 99% of sentences score "
        "above {p01:.3f}).",
        "置信度：每个输出词元的平均对数概率 {confidence:.3f} — 低于测试集 95% 的句子（其测试集中位数为 "
        "{median:.3f}，99% 的句子高于 {p01:.3f}）。",
    ),
    "notice.confidence.typical": (
        "Confidence: mean log-probability per output token {confidence:.3f} — typical of the "
        "test set (on its test set the median is {median:.3f}, and 99% of sentences score "
        "above {p01:.3f}).",
        "置信度：每个输出词元的平均对数概率 {confidence:.3f} — 与测试集相当（其测试集中位数为 "
        "{median:.3f}，99% 的句子高于 {p01:.3f}）。",
    ),
    # the wrong-output notice of the models trained on real pairs (models/inference/notices.wrong_output_notice)
    "notice.risk.low": (
        "Not flagged as probably wrong: estimated chance of a bad translation {p:.0%}, below this model's flag at "
        "{threshold:.0%} (mean log-probability per output token {confidence:.3f}). This is no promise: on its test "
        "set {passed_bad:.0%} of the translations not flagged were bad too (sentence chrF < 30).",
        "未被标记为很可能有误：估计为差译文的概率 {p:.0%}，低于该模型的标记线 {threshold:.0%}（每个输出词元的平均"
        "对数概率 {confidence:.3f}）。但这并不保证译文正确：在其测试集上，未被标记的译文中也有 {passed_bad:.0%} "
        "是差译文（句子级 chrF < 30）。",
    ),
    "notice.risk.unknown": (
        "Probably wrong: estimated chance of a bad translation {p:.0%} (mean log-probability per output token "
        "{confidence:.3f}; on its test set {flagged_bad:.0%} of the translations flagged like this were bad, sentence "
        "chrF < 30). The model does not know {shown}: it guesses at what they mean, and often at the sentence "
        "around them.",
        "译文很可能有误：估计为差译文的概率 {p:.0%}（每个输出词元的平均对数概率 {confidence:.3f}；在其测试集上，像这样"
        "被标记的译文中有 {flagged_bad:.0%} 是差译文，即句子级 chrF < 30）。模型不认识 {shown}：它只能猜这些词的译法，往往连周围的句子也一起译错。",
    ),
    "notice.risk.long": (
        "Probably wrong: estimated chance of a bad translation {p:.0%} (mean log-probability per output token "
        "{confidence:.3f}; on its test set {flagged_bad:.0%} of the translations flagged like this were bad, sentence "
        "chrF < 30). The sentence is long ({n} words; 95% of its corpus's sentences have at most {long}): on long "
        "sentences it drops words and loses their order.",
        "译文很可能有误：估计为差译文的概率 {p:.0%}（每个输出词元的平均对数概率 {confidence:.3f}；在其测试集上，像这样"
        "被标记的译文中有 {flagged_bad:.0%} 是差译文，即句子级 chrF < 30）。这个句子很长（{n} 个词；其语料中 95% 的句子不超过 {long} 个词）：遇到长句，模型会漏词、打乱词序。",
    ),
    "notice.risk.style": (
        "Probably wrong: estimated chance of a bad translation {p:.0%} (mean log-probability per output token "
        "{confidence:.3f}; on its test set {flagged_bad:.0%} of the translations flagged like this were bad, sentence "
        "chrF < 30). It knows every word, but the sentence is probably unlike the {data} it learned from, in wording "
        "or style: it falls back on phrases it learned there.",
        "译文很可能有误：估计为差译文的概率 {p:.0%}（每个输出词元的平均对数概率 {confidence:.3f}；在其测试集上，像这样"
        "被标记的译文中有 {flagged_bad:.0%} 是差译文，即句子级 chrF < 30）。每个词它都认识，但这个句子的措辞或风格很可能不同于它所学的{data}：它会退回到在那里学到的说法。",
    ),
    "notice.risk.unlike": (
        "Probably wrong: estimated chance of a bad translation {p:.0%} (mean log-probability per output token "
        "{confidence:.3f}; on its test set {flagged_bad:.0%} of the translations flagged like this were bad, sentence "
        "chrF < 30). It knows every word, but the sentence is unlike the {data} it learned from: the closest "
        "training sentence has only {overlap:.0%} of their words in common (words in both ÷ words in either). It "
        "falls back on phrases it learned there.",
        "译文很可能有误：估计为差译文的概率 {p:.0%}（每个输出词元的平均对数概率 {confidence:.3f}；在其测试集上，像这样"
        "被标记的译文中有 {flagged_bad:.0%} 是差译文，即句子级 chrF < 30）。每个词它都认识，但这个句子不像它所学的{data}："
        "训练集中最接近的句子与它只有 {overlap:.0%} 的词相同（两句共有的词 ÷ 两句所有的词）。它会退回到在那里学到的说法。",
    ),
    "notice.scope": (
        "This model was trained only on the {data} ({n_words:,} source words); it has not learned ordinary language.",
        "这个模型只在{data}上训练过（{n_words:,} 个源语言词）；它没有学过日常语言。",
    ),
    "notice.forced": (
        "What-if: step {step} was forced to “{token}”. At that step the model ranked “{top}” first "
        "(p = {p_top}) and gave “{token}” p = {p}; every later step is greedy again, computed from the "
        "forced prefix.",
        "假设情形：第 {step} 步被强制为“{token}”。在这一步，模型把“{top}”排在第一（p = {p_top}），"
        "给“{token}”的是 p = {p}；之后的每一步都重新贪心解码，从被强制的前缀算起。",
    ),
    "notice.forced_instead": (
        "What-if: step {step} was forced to “{token}” instead of “{original}”. At that step the "
        "model ranked “{top}” first (p = {p_top}) and gave “{token}” p = {p}; every later step "
        "is greedy again, computed from the forced prefix.",
        "假设情形：第 {step} 步被强制为“{token}”，而不是“{original}”。在这一步，模型把“{top}”"
        "排在第一（p = {p_top}），给“{token}”的是 p = {p}；之后的每一步都重新贪心解码，从被强制的"
        "前缀算起。",
    ),
    # what a model was trained on (config.json training "data", the {data} of notice.scope), by its English text
    "data.en_fr": ("embedded English→French generator", "内置的英语→法语句子生成器"),
    "data.digits_copy": ("random digit sequences, copy", "随机数字序列（复制任务）"),
    "data.digits_reverse": ("random digit sequences, reverse", "随机数字序列（反转任务）"),
    "data.unknown": ("data in its config.json", "其 config.json 中记录的数据"),
    "data.bible_pairs": (
        "World English Bible → Louis Segond 1910 verses",
        "World English Bible → Louis Segond 1910 经文对照",
    ),
    "data.hsk": (
        "HSK 3.0 sentences from the hsk-sentences-audio package, CC-BY-SA-4.0",
        "hsk-sentences-audio 包中的 HSK 3.0 例句（CC-BY-SA-4.0 许可）",
    ),
    # shipped checkpoints' display labels (config.json "label"), by checkpoint name
    "ckpt.label.bert-small": ("Small BERT (3 layers × 4 heads, d=128)", "小型 BERT（3 层 × 4 个头，d=128）"),
    "ckpt.label.s2s-bahdanau": ("Bahdanau (additive)", "Bahdanau（加性）"),
    "ckpt.label.s2s-luong-concat": ("Luong concat", "Luong concat（拼接）"),
    "ckpt.label.s2s-luong-dot": ("Luong dot", "Luong dot（点积）"),
    "ckpt.label.s2s-luong-general": ("Luong general", "Luong general（双线性）"),
    "ckpt.label.s2s-luong-local-m": ("Luong local-m (D = 3)", "Luong 局部 local-m（D = 3）"),
    "ckpt.label.s2s-luong-local-p": ("Luong local-p (D = 3)", "Luong 局部 local-p（D = 3）"),
    "ckpt.label.s2s-none": ("No attention", "无注意力"),
    "ckpt.label.s2s-bible-bahdanau": ("Bahdanau · WEB→Segond verses", "Bahdanau · 英语→法语圣经经文（WEB→Segond）"),
    "ckpt.label.s2s-bible-none": ("No attention · WEB→Segond verses", "无注意力 · 英语→法语圣经经文（WEB→Segond）"),
    "ckpt.label.s2s-hsk-bahdanau": ("Bahdanau · HSK 中文→English", "Bahdanau · HSK 中文→英语"),
    "ckpt.label.s2s-hsk-none": ("No attention · HSK 中文→English", "无注意力 · HSK 中文→英语"),
    "ckpt.label.tf-copy": ("Transformer · copy", "Transformer · 复制"),
    "ckpt.label.tf-en-fr": ("Transformer · English→French", "Transformer · 英语→法语"),
    "ckpt.label.tf-bible": ("Transformer · WEB→Segond verses", "Transformer · 英语→法语圣经经文（WEB→Segond）"),
    "ckpt.label.tf-hsk": ("Transformer · HSK 中文→English", "Transformer · HSK 中文→英语"),
    "ckpt.label.tf-lm": ("Transformer LM · World English Bible", "Transformer 语言模型 · World English Bible"),
    "ckpt.label.tf-reverse": ("Transformer · reverse", "Transformer · 倒序"),
}

SAME: frozenset[str] = frozenset({"device.mps"})  # a product name, the same in every language
