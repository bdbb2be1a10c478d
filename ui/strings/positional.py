"""Strings of page 3, Positional encoding (pages/3_Positional_encoding.py, ui/positional.py):
id → (English, 中文). Templates with fields double their LaTeX braces."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "positional.intro": (
        "Attention is blind to word order; a **positional encoding** tells the model where each word sits.",
        "注意力本身看不到词序；**位置编码**告诉模型每个词位于何处。",
    ),
    "positional.tab.sinusoids": ("Sinusoids", "正弦编码"),
    "positional.tab.rotation": ("Similarity and rotation", "相似度与旋转"),
    "positional.tab.embeddings": ("Adding to embeddings", "与嵌入相加"),
    "positional.tab.schemes": ("Learned, relative, RoPE, ALiBi", "可学习、相对、RoPE、ALiBi"),
    "positional.tab.padding": ("Padding", "填充"),
    # sinusoids
    "positional.sin.header": ("The sinusoidal encoding (Vaswani et al. 2017)", "正弦位置编码（Vaswani et al. 2017）"),
    "positional.seq_len": ("Sequence length", "序列长度"),
    "positional.dims": ("Dimensions to draw", "要绘制的维度"),
    "positional.fig.curves": ("Chosen dimensions against position", "所选维度随位置的变化"),
    "positional.fig.heatmap": (
        "All {length} positions × {d_model} dimensions",
        "全部 {length} 个位置 × {d_model} 个维度",
    ),
    "positional.explain.sinusoids": (
        "Each pair of dimensions $(2i, 2i+1)$ is a sine and a cosine of one frequency "
        "$\\omega_i = 10000^{-2i/d}$. The first pairs wiggle fast (left of the heatmap), the last "
        "ones hardly move in 100 positions: like the hands of a clock, fast ones tell nearby "
        "positions apart, slow ones tell far-apart positions apart, and together no two "
        "positions get the same vector.",
        "每一对维度 $(2i, 2i+1)$ 是同一频率 $\\omega_i = 10000^{-2i/d}$ 的正弦和余弦。前面的维度对变化很快"
        "（热图左侧），最后的几对在 100 个位置内几乎不动：就像钟表的指针，快的区分相邻位置，慢的区分相距很远的位置，"
        "合在一起，任意两个位置都不会得到相同的向量。",
    ),
    "positional.explain.wavelengths": (
        "The wavelengths $\\lambda_i = 2\\pi \\cdot 10000^{{2i/d}}$ form a **geometric "
        "progression**: each is {ratio:.3f} times the one before, from $2\\pi \\approx 6.28$ "
        "(dimensions 0, 1) up to {longest:,.0f} (dimensions {d2}, "
        "{d1}), just short of $10000 \\cdot 2\\pi \\approx 62{{,}}832$. On a log axis "
        "that is a straight line.",
        "波长 $\\lambda_i = 2\\pi \\cdot 10000^{{2i/d}}$ 构成**等比数列**：每个是前一个的 {ratio:.3f} 倍，"
        "从 $2\\pi \\approx 6.28$（维度 0、1）到 {longest:,.0f}（维度 {d2}、{d1}），略小于 "
        "$10000 \\cdot 2\\pi \\approx 62{{,}}832$。在对数坐标轴上它是一条直线。",
    ),
    # similarity and rotation
    "positional.rot.header": ("Similarity between positions, and the rotation property", "位置之间的相似度与旋转性质"),
    "positional.positions": ("Positions", "位置数"),
    "positional.shift": ("Shift k", "偏移 k"),
    "positional.example_pos": ("Example position pos", "示例位置 pos"),
    "positional.fig.similarity": ("PE(p)·PE(q): encodings, not scores", "PE(p)·PE(q)：编码之间的点积，不是注意力分数"),
    "positional.fig.offset": ("Against the offset k", "随偏移 k 的变化"),
    "positional.explain.offsets": (
        "The dot product of two encodings depends only on how far apart they are, not where: "
        "$PE(pos)\\cdot PE(pos+k) = \\sum_i \\cos(\\omega_i k)$ for every $pos$ (largest spread "
        "over $pos$ here: {spread:.1e}). It is largest at $k = 0$, falls "
        "off with distance, and is the same for $+k$ and $-k$: the dot product alone cannot "
        "tell before from after. These are dot products of encodings, **not attention "
        "scores**: a score compares $W_Q x_i$ with $W_K x_j$ (end of this tab).",
        "两个编码的点积只取决于它们相距多远，而与所在位置无关：对每个 $pos$ 都有 "
        "$PE(pos)\\cdot PE(pos+k) = \\sum_i \\cos(\\omega_i k)$（此处随 $pos$ 的最大偏差：{spread:.1e}）。"
        "它在 $k = 0$ 处最大，随距离减小，且 $+k$ 与 $-k$ 相同：仅凭点积无法区分前后。这些是编码之间的点积，"
        "**不是注意力分数**：分数比较的是 $W_Q x_i$ 与 $W_K x_j$（见本标签页末尾）。",
    ),
    "positional.rot.err_k": ("Max error, k = {k}, all pos", "最大误差，k = {k}，所有 pos"),
    "positional.rot.err_k_help": (
        "max over pos = 0 … {last} and all dimensions of |M_k·PE(pos) − PE(pos+k)|, in float64.",
        "在 pos = 0 … {last} 和所有维度上 |M_k·PE(pos) − PE(pos+k)| 的最大值，float64 计算。",
    ),
    "positional.rot.err_all": ("Max error, every k = 0 … {last}", "最大误差，所有 k = 0 … {last}"),
    "positional.rot.err_all_help": (
        "The same check for every shift k, each with its own M_k.",
        "对每个偏移 k 用各自的 M_k 做同样的检查。",
    ),
    "positional.rot.err_f32": ("Max error, k = {k}, float32 table", "最大误差，k = {k}，float32 表"),
    "positional.rot.err_f32_help": (
        "The model stores PE in float32; this is rounding, not the formula.",
        "模型以 float32 存储 PE；这是舍入误差，不是公式的误差。",
    ),
    "positional.explain.rotation": (
        "For every shift $k$ there is one fixed matrix $M_k$ — block-diagonal, a 2×2 rotation "
        "by $\\omega_i k$ per frequency — that turns the encoding of *any* position into the "
        "encoding $k$ places later. It does not depend on $pos$, so a linear layer *could* "
        "learn to attend by relative offset (Vaswani et al.'s hypothesis, §3.5); whether a "
        "trained one does is below. The errors above are float64 rounding, about $10^{-14}$.",
        "对每个偏移 $k$，都有一个固定矩阵 $M_k$（分块对角，每个频率一个旋转角为 $\\omega_i k$ 的 2×2 旋转），"
        "它把*任意*位置的编码变成 $k$ 个位置之后的编码。它与 $pos$ 无关，因此线性层*可以*学会按相对偏移分配注意力"
        "（Vaswani 等人的假设，§3.5）；训练好的层是否真的如此，见下文。上面的误差是 float64 舍入误差，约 $10^{-14}$。",
    ),
    "positional.rot.formula_note": (
        r"\text{(one head's rows of } W_Q, W_K\text{; biases left out)}",
        r"\text{（一个头对应的 } W_Q, W_K \text{ 行；不含偏置）}",
    ),
    # a trained model's position-only score
    "positional.score.header": (
        "##### What attention scores: the position-only score of tf-en-fr",
        "##### 注意力实际打出的分数：tf-en-fr 中只与位置有关的分数",
    ),
    "positional.score.layer": ("Encoder layer", "编码器层"),
    "positional.score.head": ("Head", "头"),
    "positional.score.layer_what": ("encoder layer", "编码器层"),
    "positional.score.layer0": ("layer 0", "第 0 层"),
    "positional.score.head_what": ("head", "头"),
    "positional.score.head1": ("head 1", "头 1"),
    "positional.fig.position_score": (
        "Position-only score, layer {layer}, head {head}",
        "只与位置有关的分数，第 {layer} 层，头 {head}",
    ),
    "positional.fig.diagonals": ("The same score along diagonals i − j = k", "同一分数沿对角线 i − j = k 的取值"),
    "positional.score.caption": (
        "Encoder layer {layer}, head {head} of tf-en-fr, positions 0 … {last} (the longest training source), "
        "with the model's own W_Q, W_K (d_k = {d_k}) and PE table, biases left out (they add terms in i alone or j "
        "alone). This is a score, not an attention weight: blue below 0, red above, white 0, the scale set by this "
        "matrix's largest |score| ({peak:.2f}).",
        "tf-en-fr 编码器第 {layer} 层、头 {head}，位置 0 … {last}（最长的训练源句），使用模型自己的 W_Q、W_K"
        "（d_k = {d_k}）和 PE 表，不含偏置（偏置只增加仅与 i 或仅与 j 有关的项）。这是分数，不是注意力权重："
        "小于 0 为蓝，大于 0 为红，0 为白，色标范围由该矩阵的最大 |分数|（{peak:.2f}）决定。",
    ),
    "positional.score.layer0_note": (
        "In layer 0 the input is $\\sqrt{d}\\cdot E[\\text{word}] + PE$, so the real score is "
        "this plus cross terms between words and positions.",
        "在第 0 层，输入是 $\\sqrt{d}\\cdot E[\\text{word}] + PE$，因此真实分数是这一项再加上词与位置之间的交叉项。",
    ),
    "positional.score.layer1_note": (
        "In layer 1 the encoding arrives through layer 0's residual stream and LayerNorm, so "
        "this is what layer 1's weights make of the bare encoding.",
        "在第 1 层，位置编码经由第 0 层的残差流和 LayerNorm 传入，因此这是第 1 层的权重对单纯位置编码的处理结果。",
    ),
    "positional.explain.model_scores": (
        "$PE_i \\cdot PE_j$ at the top of this tab depends on $i - j$ only. The position-only "
        "part of the attention score does not: it is $PE_i^\\top W_Q^\\top W_K\\, PE_j / "
        "\\sqrt{{d_k}}$, which would depend on $i - j$ only if $W_Q^\\top W_K$ commuted with "
        "every rotation $M_k$, and a trained one does not. Along the diagonal "
        "$i - j = {offset}$ this head's score goes from {low:.2f} at "
        "$(i, j) = ({i1}, {j1})$ to {high:.2f} at $({i2}, {j2})$: a change of "
        "**{variation:.0%}** of its largest |score|. {layer_note} Relative attention "
        "*can* be learned from absolute sinusoids, but nothing forces it. That is why "
        "Transformer-XL (Dai et al. 2019) splits the score so that position enters only as "
        "$R_{{i-j}}$, a function of $i - j$ (next tab).",
        "本标签页顶部的 $PE_i \\cdot PE_j$ 只取决于 $i - j$。注意力分数中只与位置有关的部分则不然：它是 "
        "$PE_i^\\top W_Q^\\top W_K\\, PE_j / \\sqrt{{d_k}}$，只有当 $W_Q^\\top W_K$ 与每个旋转 $M_k$ "
        "可交换时才只取决于 $i - j$，而训练得到的矩阵并不满足。沿对角线 $i - j = {offset}$，这个头的分数从 "
        "$(i, j) = ({i1}, {j1})$ 处的 {low:.2f} 变到 $({i2}, {j2})$ 处的 {high:.2f}：变化量为其最大 |分数| 的 "
        "**{variation:.0%}**。{layer_note}相对位置的注意力*可以*从绝对正弦编码中学到，但没有任何机制强制这样做。"
        "正因如此，Transformer-XL（Dai et al. 2019）把分数拆开，让位置只以 $R_{{i-j}}$（$i - j$ 的函数）"
        "的形式进入（见下一个标签页）。",
    ),
    "positional.model_missing_hint": (". The other figures on this page do not need it.", "。本页的其他图不需要它。"),
    "positional.rotation_spinner": ("Checking every shift k …", "正在检查每个偏移 k …"),
    # embeddings
    "positional.emb.header": ("Adding the encoding to word embeddings", "把位置编码加到词嵌入上"),
    "positional.emb.init": ("Embedding initial std σ", "嵌入初始化标准差 σ"),
    "positional.emb.init.tied": ("1/√d_model (tied with the output layer)", "1/√d_model（与输出层共享权重）"),
    "positional.emb.init.unit": ("1 (nn.Embedding default)", "1（nn.Embedding 嵌入层的默认值）"),
    "positional.emb.scaled": ("Scale embeddings by √d_model", "嵌入乘以 √d_model"),
    "positional.emb.word_norm": ("‖s·e‖ (mean over words)", "‖s·e‖（对词取平均）"),
    "positional.emb.word_share": ("word's share of ‖x‖²", "词在 ‖x‖² 中所占比例"),
    "positional.explain.embeddings": (
        "Every $PE(pos)$ has length $\\sqrt{d/2}$. The original Transformer shares its "
        "embedding matrix with the output layer (§3.4), and the reference code initialises it "
        "with $\\sigma = 1/\\sqrt{d}$, so a word vector has length about 1: added as is, the "
        "position would swamp the word (left of the curve: two different words at one "
        "position look alike). Multiplying by $\\sqrt{d_{model}}$ (§3.4) brings the word to "
        "length about $\\sqrt d$, the same order as the encoding, so both the word and its "
        "position survive in the sum.",
        "每个 $PE(pos)$ 的长度都是 $\\sqrt{d/2}$。原始 Transformer 让嵌入矩阵与输出层共享（§3.4），参考代码用 "
        "$\\sigma = 1/\\sqrt{d}$ 初始化它，所以词向量长度约为 1：直接相加的话，位置会淹没词（曲线左侧：同一位置上"
        "两个不同的词看起来差不多）。乘以 $\\sqrt{d_{model}}$（§3.4）使词向量长度约为 $\\sqrt d$，与位置编码同一"
        "量级，于是词和它的位置在和中都得以保留。",
    ),
    "positional.emb.differ": (
        "**How our models differ from the paper.** Ours also multiply by $\\sqrt{d_{model}}$ "
        "and add sinusoidal PE, but tf-en-fr does **not** tie its embeddings "
        "(`tie_embeddings: false` in its `config.json`) and initialises every matrix, the "
        "embeddings included, with Glorot (Xavier) uniform, not $\\sigma = 1/\\sqrt{d}$. Only "
        "the language model tf-lm ties its embedding to the output layer (also Glorot-"
        "initialised).",
        "**我们的模型与论文的区别。** 我们的模型同样乘以 $\\sqrt{d_{model}}$ 并加上正弦 PE，但 tf-en-fr **没有**"
        "共享嵌入（其 `config.json` 中 `tie_embeddings: false`），并且所有矩阵（包括嵌入）都用 Glorot（Xavier）"
        "均匀分布初始化，而不是 $\\sigma = 1/\\sqrt{d}$。只有语言模型 tf-lm 让嵌入与输出层共享（同样用 Glorot 初始化）。",
    ),
    # schemes
    "positional.sch.header": (
        "Learned, relative, rotary and ALiBi side by side",
        "可学习、相对、旋转（RoPE）与 ALiBi 位置编码对比",
    ),
    "positional.sch.train_len": ("Training length", "训练长度"),
    "positional.sch.eval_len": ("Shown length", "显示长度"),
    "positional.sch.alibi_head": ("ALiBi head", "ALiBi 头"),
    "positional.sch.title.learned": (
        "Learned: cosine<br>similarity of<br>{source} rows",
        "可学习：<br>{source} 各行的<br>余弦相似度",
    ),
    "positional.sch.title.learned_source": ("a learned", "某个可学习表"),
    "positional.sch.title.sinusoidal": (
        "Sinusoidal:<br>PE_i·PE_j<br>(not a score)",
        "正弦：<br>PE_i·PE_j<br>（不是分数）",
    ),
    "positional.sch.title.xl": ("Transformer-XL:<br>its position<br>terms", "Transformer-XL：<br>其位置项"),
    "positional.sch.title.rope": ("RoPE: score<br>of one fixed<br>q and k", "RoPE：一组固定<br>q 与 k 的<br>分数"),
    "positional.sch.title.alibi": (
        "ALiBi (causal):<br>−m·(i − j)<br>for j ≤ i",
        "ALiBi（因果）：<br>−m·(i − j)<br>j ≤ i",
    ),
    "positional.sch.learned_note": (
        "Learned: the cosine similarity between rows i and j of {source}'s learned position table. ",
        "可学习：{source} 的可学习位置表中第 i 行与第 j 行的余弦相似度。",
    ),
    "positional.sch.caption": (
        "What each scheme does with position alone, query i down, key j across, each "
        "scaled to [−1, 1]. {learned_note}Sinusoidal: dot products of encodings, not "
        "attention scores. Transformer-XL: its position terms with random, untrained "
        "W_R and v; RoPE: one fixed random query and key; ALiBi: its causal bias, blank "
        "above the diagonal where the future is masked. Dashed box: positions below the "
        "training length; every pair inside it was seen in training.",
        "每种方案仅凭位置做了什么：纵轴为查询 i，横轴为键 j，各自缩放到 [−1, 1]。{learned_note}正弦：编码之间的点积，"
        "不是注意力分数。Transformer-XL：其位置项，W_R 和 v 随机且未训练；RoPE：一组固定的随机查询和键；"
        "ALiBi：其因果偏置，对角线以上（未来位置被掩码）为空白。虚线框：训练长度以内的位置，框内每一对在训练中都出现过。",
    ),
    "positional.explain.schemes": (
        "* **Transformer-XL / RoPE**: position enters the score only through $i - j$, "
        "whatever the weights: with the same content everywhere the maps are constant along "
        "diagonals.\n"
        "* **Sinusoidal**: $PE_i \\cdot PE_j$ is constant along diagonals too, but a trained "
        "model's score $(W_Q PE_i)\\cdot(W_K PE_j)$ is not (tf-en-fr in the previous tab).\n"
        "* **RoPE**: {unseen} of {pairs} frequency pairs turn less "
        "than once in {train_len} positions, so past the training length they show the "
        "model angles it never saw.\n"
        "* **ALiBi**, head {head}: slope $m$ = {slope:.4g}; the bias "
        "$-m\\,(i-j)$ on keys $j \\le i$ (the future is masked) keeps falling in a straight "
        "line, however long the input.",
        "* **Transformer-XL / RoPE**：无论权重如何，位置只通过 $i - j$ 进入分数：各处内容相同时，图沿对角线不变。\n"
        "* **正弦**：$PE_i \\cdot PE_j$ 沿对角线同样不变，但训练后模型的分数 $(W_Q PE_i)\\cdot(W_K PE_j)$ 并非如此"
        "（见上一个标签页的 tf-en-fr）。\n"
        "* **RoPE**：{pairs} 个频率对中有 {unseen} 个在 {train_len} 个位置内转不满一圈，因此超出训练长度后，"
        "它们给模型看到从未见过的角度。\n"
        "* **ALiBi**，头 {head}：斜率 $m$ = {slope:.4g}；键 $j \\le i$ 上的偏置 $-m\\,(i-j)$（未来位置被掩码）"
        "无论输入多长都沿直线持续下降。",
    ),
    "positional.learned.header": ("##### Learned absolute positions", "##### 可学习的绝对位置"),
    "positional.learned.none": (
        "No trained checkpoint with a learned position table was found under "
        "`checkpoints/`. When one is there (a `*.safetensors` file with a tensor named like "
        "`*position_embeddings*` or `*pos_embedding*`, as in BERT), its position × dimension "
        "matrix appears here, with the cosine similarity between its rows in the maps "
        "above: blank past its last row, because a learned table has nothing to say about "
        "positions it was never given.",
        "在 `checkpoints/` 下没有找到带可学习位置表的已训练检查点。若有（一个 `*.safetensors` 文件，其中张量名形如 "
        "`*position_embeddings*` 或 `*pos_embedding*`，如 BERT），它的“位置 × 维度”矩阵会显示在这里，其各行之间的"
        "余弦相似度显示在上面的图中：超出最后一行的部分为空白，因为可学习的位置表对从未给过的位置一无所知。",
    ),
    "positional.learned.caption": (
        "From the trained checkpoint `{name}`, tensor `{tensor}`: {rows} positions × {cols} dimensions.",
        "来自已训练检查点 `{name}` 的张量 `{tensor}`：{rows} 个位置 × {cols} 个维度。",
    ),
    "positional.fig.learned": ("Learned position embeddings", "可学习的位置嵌入"),
    # padding
    "positional.pad.header": (
        "Padding: a zero row for the PAD position, and what ours do",
        "填充：PAD 位置用全零行，以及我们的模型怎么做",
    ),
    "positional.pad.length": ("Sentence {i} length", "句子 {i} 的长度"),
    "positional.fig.pad_ids": ("Position ids of a padded batch", "填充后批次的位置编号"),
    "positional.explain.padding": (
        "Sentences of different lengths share one batch, so the short ones are filled with "
        "PAD. A common convention (fairseq's, there with the PAD index in place of 0): real tokens get "
        "position ids $1, 2, \\dots, n$; PAD gets id 0, and row 0 of the position table is all "
        "zeros, like the word embedding's `padding_idx` row. A PAD slot then enters the model "
        "as an exact zero vector and its position carries no signal. The attention mask still "
        "has to hide PAD keys: zero in is not zero out after the biases of the first layer.",
        "不同长度的句子放在同一批次中，短句用 PAD 填充。一种常见约定（fairseq 的做法，那里用 PAD 的索引代替 0）："
        "真实词元的位置编号为 $1, 2, \\dots, n$；PAD 的编号为 0，位置表的第 0 行全为零，就像词嵌入中 `padding_idx` "
        "那一行。这样 PAD 位置以精确的零向量进入模型，它的位置不携带任何信号。注意力掩码仍然必须遮住 PAD 键："
        "经过第一层的偏置之后，输入为零并不意味着输出为零。",
    ),
    "positional.pad.differ": (
        "**How our models differ.** The original Transformer paper says nothing about PAD, "
        "and our Transformers do not use this convention: they add $PE(t)$ at every slot $t$, "
        "padded slots too (`PositionalEncoding` adds the first $L$ rows of the table to the "
        "whole batch; only the PAD *word* embedding row is zero). Those slots are then masked "
        "out by the padding mask, in self-attention and cross-attention alike, so their "
        "position never reaches a real token.",
        "**我们的模型的不同之处。** 原始 Transformer 论文没有提到 PAD，我们的 Transformer 也不采用这一约定："
        "它们在每个位置 $t$（包括填充位置）都加上 $PE(t)$（`PositionalEncoding` 把表的前 $L$ 行加到整个批次上；"
        "只有 PAD *词*嵌入那一行为零）。这些位置随后在自注意力和交叉注意力中都被填充掩码遮住，"
        "因此它们的位置信息永远不会传到真实词元。",
    ),
}

SAME: frozenset[str] = frozenset()
