"""Strings of page 1, Attention from scratch (pages/1_Attention_from_scratch.py, ui/foundations.py):
id → (English, 中文). Templates with fields double their LaTeX braces."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "scratch.intro": (
        "A **query** scores every **key**; a softmax turns the scores into weights that mix the **values**.",
        "一个**查询**给每个**键**打分；softmax 把分数变成权重，再用这些权重混合各个**值**。",
    ),
    "scratch.tab.kr": ("Kernel regression", "核回归"),
    "scratch.tab.scores": ("Score functions", "评分函数"),
    "scratch.tab.shl": ("Soft, hard, local", "软、硬、局部注意力"),
    "scratch.tab.sandbox": ("Q/K/V sandbox", "查询/键/值（Q/K/V）沙盒"),
    "scratch.tab.why": ("Why attention", "为什么需要注意力"),
    "scratch.tab.complexity": ("Attention vs RNN vs CNN", "注意力 vs RNN vs CNN"),
    # kernel regression
    "scratch.kr.header": (
        "Nadaraya–Watson kernel regression: attention pooling in one dimension",
        "Nadaraya–Watson 核回归：一维的注意力汇聚",
    ),
    "scratch.kr.n": ("Training points n", "训练点数 n"),
    "scratch.kr.noise": ("Noise σ", "噪声 σ"),
    "scratch.kr.h": ("Gaussian bandwidth h", "高斯核带宽 h"),
    "scratch.kr.resample": ("Resample", "重新采样"),
    "scratch.kr.resample_help": (
        "Draw a new random training set with the same size and noise.",
        "以相同的大小和噪声重新随机抽取一组训练数据。",
    ),
    "scratch.kr.sgd": ("Learned w", "可学习的 w"),
    "scratch.kr.steps": ("SGD steps for w", "w 的 SGD 步数"),
    "scratch.kr.lr": ("Learning rate", "学习率"),
    "scratch.kr.method": ("Weights to show", "显示哪种权重"),
    "scratch.kr.average": ("Average pooling", "平均汇聚"),
    "scratch.kr.gaussian": ("Gaussian kernel", "高斯核"),
    "scratch.kr.parametric": ("Parametric (learned w)", "带参数（学习 w）"),
    "scratch.kr.gaussian_h": ("Gaussian kernel (h = {h:g})", "高斯核（h = {h:g}）"),
    "scratch.kr.parametric_w": ("Parametric (learned w = {w:.2f})", "带参数（学到的 w = {w:.2f}）"),
    "scratch.kr.parametric_short": ("Parametric", "带参数"),
    "scratch.kr.fig_fit": ("Fitted curves (thick: the chosen method)", "拟合曲线（粗线：所选方法）"),
    "scratch.kr.fig_weights": ("Attention weights α(x, xᵢ): {name}", "注意力权重 α(x, xᵢ)：{name}"),
    "scratch.kr.x_key": ("training input xᵢ (key)", "训练输入 xᵢ（键）"),
    "scratch.kr.y_query": ("test input x (query)", "测试输入 x（查询）"),
    "scratch.kr.test_error": ("Test error: {name}", "测试误差：{name}"),
    "scratch.kr.test_error_help": (
        "Mean squared error against the noise-free f on the test grid.",
        "在测试网格上相对无噪声 f 的均方误差。",
    ),
    "scratch.kr.fig_loss": ("Training the width w", "训练宽度 w"),
    "scratch.kr.setup": (
        "Predict $y$ at a new input $x$ by averaging the training targets $y_i$, weighting each "
        "by how close its input $x_i$ is to $x$. The test input is the **query**, the training "
        "inputs are the **keys**, the training targets are the **values**.",
        "在新输入 $x$ 处预测 $y$：对训练目标 $y_i$ 取加权平均，每个的权重取决于它的输入 $x_i$ 离 $x$ 有多近。"
        "测试输入是**查询**，训练输入是**键**，训练目标是**值**。",
    ),
    "scratch.kr.explain": (
        "* **Average pooling**: $\\alpha = 1/n$ for every query, so the prediction is a flat line "
        "at the mean of the $y_i$: it ignores the query.\n"
        "* **Gaussian kernel**: $w = 1/h$. Nearby training points get most of the weight; a "
        "small bandwidth $h$ follows the noise, a large one over-smooths.\n"
        "* **Parametric**: $w$ is learned by gradient descent on the squared "
        "error, each training point predicted from the *other* points (otherwise $w \\to \\infty$ "
        "and each point simply looks itself up). A larger $w$ narrows "
        "the band of weights in the heatmap and makes the curve less smooth.",
        "* **平均汇聚**：对每个查询都有 $\\alpha = 1/n$，因此预测是一条位于 $y_i$ 均值处的水平线：它忽略了查询。\n"
        "* **高斯核**：$w = 1/h$。附近的训练点获得大部分权重；带宽 $h$ 小则追随噪声，大则过度平滑。\n"
        "* **带参数**：$w$ 通过梯度下降最小化平方误差学得，每个训练点都由*其他*点来预测"
        "（否则 $w \\to \\infty$，每个点只会查到它自己）。"
        "$w$ 越大，热图中的权重带越窄，曲线越不平滑。",
    ),
    "scratch.kr.learned": (
        "Parametric: after {steps} steps of gradient descent the learned width is **w = {w:.2f}**, "
        "i.e. h = 1/w = {h:.2f}.",
        "带参数：{steps} 步梯度下降之后，学得的宽度 **w = {w:.2f}**，即 h = 1/w = {h:.2f}。",
    ),
    # score functions
    "scratch.sf.header": ("Score functions side by side", "评分函数对比"),
    "scratch.sf.intro": (
        "One query $q$ and a few keys $k_i$ in the plane. Type their coordinates; every "
        "score and weight below follows at once.",
        "平面上的一个查询 $q$ 和几个键 $k_i$。输入它们的坐标，下面的每个分数和权重都会立即更新。",
    ),
    "scratch.sf.n_keys": ("Number of keys", "键的个数"),
    "scratch.sf.fig_plane": ("Query and keys", "查询与键"),
    "scratch.sf.fig_bars": ("Weights α = softmax(e)", "权重 α = softmax(e)"),
    "scratch.sf.params": ("The fixed parameters W, W_q, W_k and v used here", "此处使用的固定参数 W、W_q、W_k 和 v"),
    "scratch.sf.explain": (
        "Dot products grow with the length of the vectors, so a long key wins even when it "
        "points elsewhere; **cosine** compares directions only. **General** and **additive** have "
        "learned parameters (here fixed random numbers), so they can prefer other directions.",
        "点积随向量长度增大，所以一个很长的键即使指向别处也会胜出；**余弦**只比较方向。**general** 和**加性**"
        "评分函数有可学习的参数（此处为固定的随机数），因此可以偏好其他方向。",
    ),
    "scratch.sf.name.dot": ("dot", "点积"),
    "scratch.sf.name.scaled": ("scaled dot", "缩放点积"),
    "scratch.sf.name.general": ("general", "general（双线性）"),
    "scratch.sf.name.additive": ("additive", "加性"),
    "scratch.sf.name.cosine": ("cosine", "余弦"),
    "scratch.sat.header": (
        "Why divide by √d? Unscaled dot products saturate the softmax",
        "为什么要除以 √d？未缩放的点积会让 softmax 饱和",
    ),
    "scratch.sat.d": ("Dimension d of queries and keys", "查询和键的维度 d"),
    "scratch.sat.spinner": ("Drawing random queries and keys …", "正在抽取随机的查询和键 …"),
    "scratch.sat.explain": (
        "With entries of $q$ and $k$ drawn from $\\mathcal N(0, 1)$, $q^\\top k$ has mean 0 and "
        "variance $d$. At $d$ = {d} the unscaled scores spread over about ±{spread:.0f}, "
        "so the softmax puts {top:.0%} of the weight on one key on average "
        "(scaled: {top_scaled:.0%}). The softmax's gradient "
        "$\\partial\\alpha/\\partial e = \\operatorname{{diag}}(\\alpha) - \\alpha\\alpha^\\top$ "
        "shrinks with it (size {grad:.3f} against "
        "{grad_scaled:.3f}): the scores stop learning. Dividing by $\\sqrt d$ "
        "keeps the variance at 1 for every $d$. Averages over 300 random draws of "
        "{n_keys} keys.",
        "$q$ 和 $k$ 的分量取自 $\\mathcal N(0, 1)$ 时，$q^\\top k$ 的均值为 0、方差为 $d$。在 $d$ = {d} 时，"
        "未缩放的分数分布在约 ±{spread:.0f} 的范围内，因此 softmax 平均把 {top:.0%} 的权重放在一个键上"
        "（缩放后：{top_scaled:.0%}）。softmax 的梯度 "
        "$\\partial\\alpha/\\partial e = \\operatorname{{diag}}(\\alpha) - \\alpha\\alpha^\\top$ 随之变小"
        "（大小 {grad:.3f}，缩放后 {grad_scaled:.3f}）：分数不再学习。除以 $\\sqrt d$ 可使任意 $d$ 下方差都保持为 1。"
        "结果为 {n_keys} 个键的 300 次随机抽取的平均。",
    ),
    # soft, hard, local
    "scratch.shl.header": ("Soft, hard and local attention on one example", "同一个例子上的软、硬和局部注意力"),
    "scratch.shl.focus": ("The query resembles", "查询与哪个词相似"),
    "scratch.shl.sharp": ("Query length (sharpness)", "查询长度（锐度）"),
    "scratch.shl.center": ("Local: aligned position pₜ", "局部：对齐位置 pₜ"),
    "scratch.shl.width": ("Local: half-width D", "局部：半宽 D"),
    "scratch.shl.explain": (
        "* **Soft** (Bahdanau; Luong global): $\\alpha = \\operatorname{{softmax}}(e)$ over all "
        "source words. Differentiable, so it trains with ordinary backpropagation; costs one "
        "score per source word.\n"
        "* **Hard** (Xu et al. 2015): attend to a single word, here "
        "“{hard}”. Choosing is not differentiable, so training needs "
        "sampling (REINFORCE) instead of plain gradients.\n"
        "* **Local** (Luong et al. 2015): only a window $[p_t - D, p_t + D]$ (outlined) counts. "
        "Only {scored} of {n} words are scored. **Local-m** assumes monotonic "
        "alignment, $p_t = t$, and takes the softmax inside the window: its weights sum to "
        "{sum_m:.2f}. **Local-p** predicts $p_t = S\\cdot\\sigma(v_p^\\top \\tanh(W_p h_t))$ and "
        "multiplies that softmax by a Gaussian around $p_t$ with $\\sigma = D/2$: its weights sum to "
        "{sum_p:.2f}, not 1. Here both use the $p_t$ of the slider.",
        "* **软注意力**（Bahdanau；Luong 全局）：在所有源词上计算 $\\alpha = \\operatorname{{softmax}}(e)$。"
        "可微，因此用普通的反向传播训练；每个源词算一个分数。\n"
        "* **硬注意力**（Xu et al. 2015）：只关注一个词，这里是“{hard}”。选择不可微，所以训练需要采样"
        "（REINFORCE）而不是普通梯度。\n"
        "* **局部注意力**（Luong et al. 2015）：只有窗口 $[p_t - D, p_t + D]$（带边框）内的词参与。"
        "{n} 个词中只有 {scored} 个被打分。**Local-m** 假设单调对齐 $p_t = t$，在窗口内取 softmax："
        "权重之和为 {sum_m:.2f}。**Local-p** 预测 $p_t = S\\cdot\\sigma(v_p^\\top \\tanh(W_p h_t))$，"
        "并把 softmax 乘以以 $p_t$ 为中心、$\\sigma = D/2$ 的高斯：权重之和为 {sum_p:.2f}，不是 1。"
        "这里两者都使用滑块给出的 $p_t$。",
    ),
    # sandbox
    "scratch.sb.header": (
        "Q/K/V sandbox: every step of softmax(QKᵀ/√d + mask)·V",
        "查询/键/值（Q/K/V）沙盒：softmax(QKᵀ/√d + 掩码)·V 的每一步",
    ),
    "scratch.sb.q": ("Q (queries)", "Q（查询）"),
    "scratch.sb.k": ("K (keys)", "K（键）"),
    "scratch.sb.v": ("V (values)", "V（值）"),
    "scratch.sb.mask": ("Mask", "掩码"),
    "scratch.sb.mask.none": ("none", "无"),
    "scratch.sb.mask.causal": ("causal (key j ≤ query i)", "因果（键 j ≤ 查询 i）"),
    "scratch.sb.mask.padding": ("padding (hide the last keys)", "填充（遮住最后几个键）"),
    "scratch.sb.padded": ("Padded keys", "填充的键数"),
    "scratch.sb.input": (
        "One row per line, numbers separated by spaces or commas; at most "
        "{rows} rows × {cols} columns, each between "
        "−{limit:g} and {limit:g}. Q and K need the same number of "
        "columns; K and V the same number of rows.",
        "每行一行矩阵，数字用空格或逗号分隔；最多 {rows} 行 × {cols} 列，每个数在 −{limit:g} 到 {limit:g} 之间。"
        "Q 和 K 的列数必须相同；K 和 V 的行数必须相同。",
    ),
    "scratch.sb.latex_if": (r"\text{if query } i \text{ may see key } j", r"\text{若查询 } i \text{ 可以看到键 } j"),
    "scratch.sb.latex_else": (r"\text{otherwise}", r"\text{否则}"),
    "scratch.sb.explain": (
        "Each output row is a weighted average of the rows of V, with the weights of the "
        "same row of step 4. A masked key gets $e^{-\\infty} = 0$ weight, so it cannot "
        "leak into the output.",
        "每个输出行都是 V 各行的加权平均，权重取自第 4 步中的同一行。被掩码的键得到 "
        "$e^{-\\infty} = 0$ 的权重，因此不会泄漏到输出中。",
    ),
    # why attention
    "scratch.why.header": ("Why attention: the fixed-size bottleneck", "为什么需要注意力：固定长度的瓶颈"),
    "scratch.why.explain": (
        "A plain encoder–decoder reads the whole source sentence into **one** vector $c = h_T$ "
        "of fixed size, then writes the translation from that vector alone. Ten words or fifty, "
        "the same few hundred numbers must hold everything, so long sentences lose detail: "
        "names drop out, clauses are forgotten, quality falls with length.\n\n"
        "With attention the decoder keeps **all** encoder states $h_1, \\dots, h_T$ and, at each "
        "output step $t$, builds a fresh context from the ones it needs now. The memory grows "
        "with the sentence instead of being squeezed into one vector.",
        "普通的编码器–解码器把整个源句读进**一个**固定长度的向量 $c = h_T$，然后只凭这个向量写出译文。"
        "无论十个词还是五十个词，都要塞进同样几百个数里，所以长句会丢失细节：人名漏掉，从句被遗忘，"
        "质量随句长下降。\n\n"
        "有了注意力，解码器保留编码器的**全部**状态 $h_1, \\dots, h_T$，并在每个输出步 $t$ 从当前需要的状态"
        "构造新的上下文向量。记忆随句子增长，而不是被压缩进一个向量。",
    ),
    "scratch.why.latex_without": (r"\text{without: }", r"\text{无注意力：}"),
    "scratch.why.latex_with": (r"\text{with: }", r"\text{有注意力：}"),
    "scratch.why.caption": (
        "Translation quality against source length for the shipped seq2seq models, with and without attention.",
        "随附的序列到序列模型（有注意力和无注意力）的翻译质量随源句长度的变化。",
    ),
    "scratch.why.missing": (
        "The quality-against-sentence-length chart of the seq2seq models (with and "
        "without attention) appears here once the shipped seq2seq checkpoints are "
        "evaluated: run `python -m models.evaluate --write`.",
        "序列到序列模型（有注意力和无注意力）的“质量–句长”图会在随附检查点评估后显示在这里："
        "运行 `python -m models.evaluate --write`。",
    ),
    "scratch.why.unreadable": (" (The results could not be read: {problem}.)", "（无法读取结果：{problem}。）"),
    "scratch.why.try": ("Try it: Seq2seq attention", "试一试：序列到序列注意力"),
    "scratch.why.try_text": ("Try it on the **Seq2seq attention** page.", "在**序列到序列注意力**页面上试一试。"),
    # complexity
    "scratch.cx.header": (
        "Self-attention against recurrent and convolutional layers",
        "自注意力与循环层、卷积层的对比",
    ),
    "scratch.cx.explain": (
        "$n$ is the sequence length, $d$ the width, $k$ the kernel size. Self-attention compares "
        "every pair of positions ($n^2$ pairs), but all at once: no step waits for another, and "
        "any two words are one step apart. A recurrent layer needs $n$ steps one after the "
        "other, and information from word 1 reaches word $n$ only through $n$ steps.",
        "$n$ 是序列长度，$d$ 是宽度，$k$ 是卷积核大小。自注意力比较每一对位置（$n^2$ 对），但一次全部完成："
        "没有哪一步需要等待另一步，任意两个词之间只隔一步。循环层需要一个接一个的 $n$ 步，"
        "第 1 个词的信息要经过 $n$ 步才能到达第 $n$ 个词。",
    ),
    "scratch.cx.width": ("Width d", "宽度 d"),
    "scratch.cx.longest": ("Longest sequence", "最长序列"),
    "scratch.cx.repeats": ("Repeats", "重复次数"),
    "scratch.cx.measure": ("Measure", "测量"),
    "scratch.cx.measure_help": (
        "Time one forward pass of each layer at every length on this device.",
        "在本设备上，对每种长度测量每种层一次前向计算的时间。",
    ),
    "scratch.cx.press": (
        "Press **Measure** to time one forward pass of each layer on {device} "
        "(batch 1, lengths 16 … the longest). It takes a few seconds.",
        "按**测量**，在 {device} 上测量每种层一次前向计算的时间（批大小 1，长度 16 … 最长）。需要几秒钟。",
    ),
    "scratch.cx.spinner": ("Timing forward passes …", "正在计时前向计算 …"),
    "scratch.cx.fig": (
        "Forward time on {device} ({threads} thread(s)), d = {d}",
        "{device} 上的前向时间（{threads} 个线程），d = {d}",
    ),
    "scratch.cx.growth": (
        "Growth over the longest three lengths, time ∝ $n^p$: {slopes}. Self-attention's $n^2$ term takes over at "
        "long lengths; at short lengths fixed overheads dominate every layer. The GRU's time is spent in $n$ "
        "sequential steps, which a GPU cannot run in parallel.",
        "在最长的三个长度上的增长，时间 ∝ $n^p$：{slopes}。长序列时自注意力的 $n^2$ 项占主导；短序列时每种层都由"
        "固定开销主导。GRU 的时间花在 $n$ 个顺序步骤上，GPU 无法并行执行它们。",
    ),
}

SAME: frozenset[str] = frozenset()
