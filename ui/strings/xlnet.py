"""Strings of the XLNet page (models.inference.xlnet and its page): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # models.inference.xlnet's InputError ``key``s (the English is the exception's own text)
    "xlnet.err.empty": ("Type a sentence.", "请输入一个句子。"),
    "xlnet.err.one": (
        "Type at least 2 words: XLNet predicts words from the other words.",
        "请至少输入 2 个词：XLNet 根据其他词预测词。",
    ),
    "xlnet.err.long": (
        "Type at most {max} words (this text has {n}): the model reads one window of {max}.",
        "最多输入 {max} 个词（这段文本有 {n} 个）：模型一次只读取 {max} 个词的窗口。",
    ),
    "xlnet.err.order_empty": (
        "Type an order: the positions 1 … {n}, each once.",
        "请输入一个顺序：位置 1 … {n}，每个出现一次。",
    ),
    "xlnet.err.order_nan": (
        "Type the order as whole numbers from 1 to {n}, separated by spaces or commas.",
        "请用 1 到 {n} 的整数输入顺序，以空格或逗号分隔。",
    ),
    "xlnet.err.order_range": (
        "Position {pos} is out of range: positions run from 1 to {n}.",
        "位置 {pos} 超出范围：位置从 1 到 {n}。",
    ),
    "xlnet.err.order_repeat": (
        "Position {pos} comes more than once: each position comes exactly once.",
        "位置 {pos} 出现了不止一次：每个位置必须恰好出现一次。",
    ),
    "xlnet.err.order_missing": (
        "The order misses position(s) {missing}: each of 1 … {n} comes exactly once.",
        "顺序中缺少位置 {missing}：1 … {n} 中每个位置必须恰好出现一次。",
    ),
    "xlnet.err.k": ("K must be between 1 and {max}.", "K 必须在 1 到 {max} 之间。"),
    "xlnet.err.top_k": ("top-k must be between 1 and {max}.", "top-k 必须在 1 到 {max} 之间。"),
    "xlnet.err.position": ("No word {pos} among {n}.", "{n} 个词中没有第 {pos} 个。"),
    "xlnet.err.hidden_none": ("Hide at least one word.", "请至少隐藏一个词。"),
    "xlnet.err.hidden_all": ("Leave at least one word visible.", "请至少保留一个可见的词。"),
    # the page (pages/13_XLNet.py, ui/xlnet.py)
    "nav.13": ("XLNet", "XLNet"),
    "nav.13.blurb": (
        "Permutation language model: factorisation orders, two-stream attention, and BERT's "
        "independence assumption, in a model trained here.",
        "排列语言模型：分解顺序、双流注意力，以及 BERT 的独立性假设，模型在本机训练。",
    ),
    "xlnet.intro": (
        "XLNet (Yang et al. 2019) predicts each word from the words before it in a **factorisation "
        "order** z, with two streams of attention.",
        "XLNet（Yang 等，2019）按**分解顺序** z 用排在前面的词预测每个词，使用两路注意力流。",
    ),
    "xlnet.train_hint": (
        "Train it: python -m models.train --preset xlnet-small",
        "请先训练：python -m models.train --preset xlnet-small",
    ),
    "xlnet.reading": ("Reading …", "正在读取 …"),
    "xlnet.text": ("Sentence", "句子"),
    "xlnet.text_help": (
        "2 to 32 English words, read as lowercase words and punctuation.",
        "2 到 32 个英文词，按小写单词和标点读取。",
    ),
    "xlnet.url.text": ("sentence", "句子"),
    "xlnet.url.text_cut": ("its first 10,000 characters", "其前 10,000 个字符"),
    "xlnet.url.k": ("partial prediction K", "部分预测 K"),
    "slide.xlnet.line": (
        "Step {step} of {n}: position {pos} “{word}” is predicted from the words before it in the "
        "order · top guesses: {tops}",
        "第 {step} 步，共 {n} 步：位置 {pos}“{word}”由顺序中在它之前的词预测 · 首选：{tops}",
    ),
    "xlnet.url.hidden_rest": ("the link's other hidden words", "链接中其余的隐藏词"),
    "xlnet.mode": ("Order z", "顺序 z"),
    "xlnet.mode.identity": ("identity", "恒等"),
    "xlnet.mode.random": ("random", "随机"),
    "xlnet.mode.typed": ("typed", "手动输入"),
    "xlnet.mode_help": (
        "identity: left to right, an ordinary language model; random: a seeded random permutation; "
        "typed: your own list of positions.",
        "恒等：从左到右，即普通的语言模型；随机：由种子决定的随机排列；手动输入：自己给出位置列表。",
    ),
    "xlnet.seed": ("Seed", "种子"),
    "xlnet.resample": ("Resample", "重新抽样"),
    "xlnet.resample_help": (
        "Another random order: the next seed (set it under the options at the right).",
        "换一个随机顺序：下一个种子（可在右侧选项中设置）。",
    ),
    "xlnet.seed_help": (
        "The seed of the random order: the same seed gives the same order.",
        "随机顺序的种子：同一个种子给出同一个顺序。",
    ),
    "xlnet.typed": ("Positions", "位置"),
    "xlnet.typed_placeholder": ("e.g. 3 2 4 1 5", "例如 3 2 4 1 5"),
    "xlnet.typed_help": (
        "The order as positions 1 … n, each once, separated by spaces or commas.",
        "用位置 1 … n 表示顺序，每个恰好出现一次，以空格或逗号分隔。",
    ),
    "xlnet.k_help": (
        "Partial prediction: only the last ⌈n/K⌉ positions of the order are predicted; the others are "
        "context only. This model was trained with K = {k}.",
        "部分预测：只预测顺序中最后 ⌈n/K⌉ 个位置，其余只作上下文。此模型训练时 K = {k}。",
    ),
    "xlnet.options": ("Examples and the seed", "示例与种子"),
    "xlnet.example": ("Pick an example", "选择示例"),
    "xlnet.model": ("Model", "模型"),
    "xlnet.model_help": (
        "The shipped xlnet-small, or an XLNet trained in the Training studio (your runs and the class's).",
        "随附的 xlnet-small，或在训练工作室中训练的 XLNet（你的训练和全班共享的训练）。",
    ),
    "xlnet.example_placeholder": ("Example sentences …", "示例句子 …"),
    "xlnet.unknown": (
        "Not in the model's vocabulary, read as <unk> (⚠ in the figures): {words}",
        "不在模型的词表中，读作 <unk>（图中标 ⚠）：{words}",
    ),
    "xlnet.fig.order": (
        "Factorisation order z (circle t = z_t) · log-likelihood {ll:.2f}",
        "分解顺序 z（第 t 个圆圈 = z_t）· 对数似然 {ll:.2f}",
    ),
    "xlnet.fig.context": ("context", "上下文"),
    "xlnet.fig.predicted": ("predicted", "被预测"),
    "xlnet.fig.step_hover": ("step {step} of the order: {token}", "顺序中的第 {step} 步：{token}"),
    # two lines: the stream, then the head; side by side in half columns, the two titles take the same height
    "xlnet.fig.query": ("Query stream g<br>{head}", "查询流 g<br>{head}"),
    "xlnet.fig.content": ("Content stream h<br>{head}", "内容流 h<br>{head}"),
    "xlnet.fig.y": ("query position", "查询位置"),
    "xlnet.caption": (
        "z = {order}. The query stream g_i knows position i but not its word; the content stream h_i "
        "knows both. Orange: the {m} predicted positions (K = {k}: the last ⌈{n}/{k}⌉ of z): "
        "{targets}; blue: context only. Grey: masked. Log-likelihood of the predicted words under this order: "
        "Σ log p(x_z_t | x_z_<t) = {ll:.4f}.",
        "z = {order}。查询流 g_i 知道位置 i 但不知道该位置的词；内容流 h_i 两者都知道。"
        "橙色：{m} 个被预测的位置（K = {k}：z 的最后 ⌈{n}/{k}⌉ 个）：{targets}；蓝色：仅作上下文。灰色：被掩码遮住。"
        "在这个顺序下被预测词的对数似然：Σ log p(x_z_t | x_z_<t) = {ll:.4f}。",
    ),
    "xlnet.tab.masks": ("The two masks", "两种掩码"),
    "xlnet.tab.predictions": ("Predictions", "预测"),
    "xlnet.tab.bert": ("Against BERT", "与 BERT 对比"),
    "xlnet.mask.content": ("Content stream mask: z_t sees z_≤t", "内容流掩码：z_t 看到 z_≤t"),
    "xlnet.mask.query": ("Query stream mask: z_t sees z_<t", "查询流掩码：z_t 看到 z_<t"),
    "xlnet.mask.content_explain": (
        "Row i: the positions the content state h_i may attend to: those before it in the "
        "order **and itself**. h_i holds its own word, so it can serve later positions.",
        "第 i 行：内容状态 h_i 可以关注的位置：顺序中在它之前的位置**以及它自己**。"
        "h_i 包含它自己的词，所以可以为后面的位置提供信息。",
    ),
    "xlnet.mask.query_explain": (
        "Row i: the positions the query state g_i may attend to: only those before it in the "
        "order, **never its own word**. g_i knows its position (it starts from a learned "
        "vector w, positions are relative), so it can ask “which word is at position i?”",
        "第 i 行：查询状态 g_i 可以关注的位置：只有顺序中在它之前的位置，**从不看自己的词**。"
        "g_i 知道自己的位置（它从一个学到的向量 w 开始，位置是相对的），所以它能问"
        "“位置 i 上是哪个词？”",
    ),
    "xlnet.pred.title": (
        "Top-5 at each predicted position · log-likelihood {ll:.2f}",
        "每个被预测位置的前 5 名 · 对数似然 {ll:.2f}",
    ),
    "xlnet.pred.panel": ("step {step}: position {pos} “{word}”", "第 {step} 步：位置 {pos}“{word}”"),
    "xlnet.pred.true": ("the true word", "真实的词"),
    "xlnet.pred.other": ("other words", "其他词"),
    "xlnet.pred.explain": (
        "Each prediction reads the query stream g at that position in the last layer: it saw the "
        "words before it in the order, not its own. Change the order and the same word is "
        "predicted from different words.",
        "每个预测读取最后一层中该位置的查询流 g：它看到了顺序中在它之前的词，而不是它自己的词。"
        "换一个顺序，同一个词就由不同的词来预测。",
    ),
    "xlnet.bert.hidden": ("Hidden words", "隐藏的词"),
    "xlnet.bert.help": (
        "The words both models must predict; the others are visible to both.",
        "两种方式都要预测的词；其余的词对两者都可见。",
    ),
    "xlnet.bert.point": (
        "**BERT** predicts the hidden words **independently** of each other: each from the visible "
        "words only. **XLNet** predicts them **one after another** in its order: a later hidden "
        "word also sees the earlier ones. Same model and weights here; only the order differs.",
        "**BERT** **相互独立**地预测被隐藏的词：每个词只根据可见的词来预测。"
        "**XLNet** 按顺序**一个接一个**地预测：后面的隐藏词还能看到前面的隐藏词。"
        "这里是同一个模型和同一组权重，只有顺序不同。",
    ),
    "xlnet.bert.independent": ("{pos} “{word}”: independent (BERT-style)", "{pos}“{word}”：独立预测（BERT 式）"),
    "xlnet.bert.sequential": ("{pos} “{word}”: sequential (XLNet)", "{pos}“{word}”：依次预测（XLNet）"),
    "xlnet.bert.ll": (
        "Log-likelihood of the hidden words: independent {ind:.2f}, sequential {seq:.2f}. Top-1 changed at: {changed}.",
        "被隐藏词的对数似然：独立预测 {ind:.2f}，依次预测 {seq:.2f}。首选词发生变化的位置：{changed}。",
    ),
    "xlnet.bert.none_changed": ("none", "无"),
    "xlnet.case.searching": ("Searching the held-out verses for a case …", "正在留出的经文中寻找例子 …"),
    "xlnet.case.none": (
        "No case among the first {n} held-out verses where the order changes a prediction.",
        "在前 {n} 节留出的经文中，没有找到顺序改变预测的例子。",
    ),
    "xlnet.case.found": (
        "**A case from held-out text:** “{text}”. Hide “{first} {second}”: independently, the model's "
        "top guess for “{second}” is “{ind}”; after predicting “{first}” first, it is “{seq}”.",
        "**留出文本中的一个例子：**“{text}”。隐藏“{first} {second}”：独立预测时，模型对“{second}”的首选是"
        "“{ind}”；先预测出“{first}”之后，首选变成“{seq}”。",
    ),
    "xlnet.case.show": ("Show this case", "显示这个例子"),
    "xlnet.memory_note": (
        "The reference XLNet (Yang et al. 2019) also has Transformer-XL's segment recurrence "
        "(a memory of the previous segment's states); this one does not: it reads one window.",
        "参考实现的 XLNet（Yang 等，2019）还带有 Transformer-XL 的片段循环（记住上一片段的状态）；"
        "这里的 XLNet 没有：它只读取一个窗口。",
    ),
}

SAME = frozenset({"nav.13"})
