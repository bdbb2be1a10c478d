"""Strings of the Transformer block page (models.lessons.block, models.lessons.training_ideas and the page):
id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "nav.14": ("Transformer block", "Transformer 块"),
    "nav.14.blurb": (
        "The whole model around attention, live: embeddings, Add & Norm, the feed-forward network, "
        "N blocks and the output layer, with the tensors of a real sentence; post-LN against pre-LN, "
        "LayerNorm against BatchNorm, label smoothing, warm-up and Adam.",
        "注意力周围的整个模型，实时展示：嵌入、残差连接与层归一化、前馈网络、N 个块和输出层，以及一个真实句子的张量；"
        "后置与前置层归一化、层归一化与批归一化、标签平滑、预热和 Adam。",
    ),
    "block.intro": (
        "Each block: attention → **Add & Norm** LayerNorm(x + Sublayer(x)) → feed-forward "
        "max(0, xW₁ + b₁)W₂ + b₂ → Add & Norm (Vaswani et al. 2017, §3). Click a box.",
        "每个块：注意力 → **残差连接与层归一化** LayerNorm(x + Sublayer(x)) → 前馈网络 "
        "max(0, xW₁ + b₁)W₂ + b₂ → 残差连接与层归一化（Vaswani 等，2017，§3）。点击一个方框。",
    ),
    "block.err.empty": ("Type a few words.", "请输入几个词。"),
    "block.family": ("Model", "模型"),
    "block.family_help": (
        "encoder–decoder: tf-en-fr (translation); decoder-only: tf-lm (a language model); "
        "encoder-only: bert-small (BERT). All three trained here, drawn from the same view.",
        "编码器–解码器：tf-en-fr（翻译）；仅解码器：tf-lm（语言模型）；仅编码器：bert-small（BERT）。"
        "三个模型都在本机训练，用同一个视图绘制。",
    ),
    "block.family.encoder-decoder": ("encoder–decoder", "编码器–解码器"),
    "block.family.decoder-only": ("decoder-only", "仅解码器"),
    "block.family.encoder-only": ("encoder-only (BERT)", "仅编码器（BERT）"),
    "block.text": ("Sentence", "句子"),
    "block.text_help": (
        "Empty: the model's example. The encoder–decoder reads its own greedy translation on the decoder side.",
        "留空：使用模型的示例。编码器–解码器在解码器一侧读取它自己的贪心翻译。",
    ),
    "block.url.text": ("sentence", "句子"),
    "block.box": ("Box", "方框"),
    "block.box_help": (
        "The part of the model whose tensors are shown; or click a box in the diagram.",
        "显示其张量的模型部分；也可以直接点击图中的方框。",
    ),
    "block.layer": ("Block", "块"),
    "block.layer_option": ("block {n}", "第 {n} 块"),
    "block.token": ("Token", "词元"),
    "block.token_help": ("The position whose vector is shown.", "显示其向量的位置。"),
    "block.stack.enc": ("Encoder", "编码器"),
    "block.stack.dec": ("Decoder", "解码器"),
    "block.input.enc": ("source tokens", "源词元"),
    "block.input.dec": ("output so far (shifted right)", "已输出的词元（右移一位）"),
    "block.input.enc_bert": ("[CLS] sentence [SEP]", "[CLS] 句子 [SEP]"),
    "block.repeat": ("× {n}", "× {n}"),
    "block.part.embed": ("Embedding + positions", "嵌入 + 位置编码"),
    "block.part.embed_bert": ("Embedding (token + segment + position)", "嵌入（词元 + 片段 + 位置）"),
    "block.part.self": ("Self-attention", "自注意力"),
    "block.part.masked_self": ("Masked self-attention", "掩码自注意力"),
    "block.part.cross": ("Cross-attention", "交叉注意力"),
    "block.part.norm": ("Add & Norm", "残差连接与层归一化"),
    "block.part.ffn": ("Feed-forward", "前馈网络"),
    "block.part.out": ("Linear + softmax", "线性层 + softmax"),
    "block.part.out_bert": ("MLM head + softmax", "掩码语言模型输出头 + softmax"),
    "block.box_option": ("{stack}: {part}", "{stack}：{part}"),
    "block.hover": ("{part}: click to see its tensors", "{part}：点击查看它的张量"),
    "block.fig.title": (
        "{label}: {n} blocks, d_model = {d}, d_ff = {ff}, {h} heads",
        "{label}：{n} 个块，d_model = {d}，d_ff = {ff}，{h} 个头",
    ),
    # one box's figures
    "block.stream.title": ("The residual stream's size ‖x‖ through the {stack}", "残差流在{stack}中的大小 ‖x‖"),
    "block.stream.x": ("point in the stack", "在堆叠中的位置"),
    "block.stream.y": ("‖x_t‖ (Euclidean norm)", "‖x_t‖（L2 范数）"),
    "block.stream.mean": ("mean over tokens", "所有词元的平均"),
    "block.stream.embedding": ("embedding", "嵌入"),
    "block.stream.point": ("{n}·{part}", "{n}·{part}"),
    "block.stream.caption": (
        "d_model = {d}: every point of the stream is one vector of {d} numbers per token. "
        "‖x‖ after each sub-layer's Add & Norm; with post-norm, LayerNorm resets it to about "
        "√d · |γ| each time.",
        "d_model = {d}：残差流的每个位置上，每个词元是一个 {d} 维向量。图中是每个子层的残差连接与层归一化之后的 "
        "‖x‖；后置层归一化每次都把它重新拉回到大约 √d · |γ|。",
    ),
    "block.attn.title": (
        "{part}, {layer}: attention weights, mean over {h} heads",
        "{part}，{layer}：注意力权重，{h} 个头的平均",
    ),
    "block.attn.caption": (
        "Sublayer(x) = MultiHead(x, …) W^O adds to the stream: ‖Sublayer(x_t)‖ / ‖x_t‖ = {ratio:.3f} "
        "for “{token}” (mean over tokens {mean:.3f}).",
        "Sublayer(x) = MultiHead(x, …) W^O 加到残差流上：对“{token}”，‖Sublayer(x_t)‖ / ‖x_t‖ = "
        "{ratio:.3f}（所有词元的平均为 {mean:.3f}）。",
    ),
    "block.norm.title": (
        "{layer}, {part}: “{token}” before and after LayerNorm",
        "{layer}，{part}：“{token}”在层归一化前后",
    ),
    "block.norm.x": ("feature (1 … d)", "特征（1 … d）"),
    "block.norm.y": ("value", "值"),
    "block.norm.before": ("x + Sublayer(x)", "x + Sublayer(x)"),
    "block.norm.standard": ("standardised: (v − μ)/√(σ² + ε)", "标准化：(v − μ)/√(σ² + ε)"),
    "block.norm.after": ("after γ, β (the block's output)", "乘 γ 加 β 之后（块的输出）"),
    "block.norm.caption": (
        "Before: mean {m0:.4f}, variance {v0:.4f}. Standardised: mean {m1:.1e}, variance {v1:.6f} "
        "(ε = {eps:g}). After γ, β: mean {m2:.4f}, variance {v2:.4f}; γ ranges {g0:.2f} … {g1:.2f}, "
        "β {b0:.2f} … {b1:.2f}. The last line is the model's own output (checked to 10⁻⁵).",
        "之前：均值 {m0:.4f}，方差 {v0:.4f}。标准化后：均值 {m1:.1e}，方差 {v1:.6f}（ε = {eps:g}）。"
        "乘 γ 加 β 之后：均值 {m2:.4f}，方差 {v2:.4f}；γ 的范围 {g0:.2f} … {g1:.2f}，β 的范围 "
        "{b0:.2f} … {b1:.2f}。最后一条线就是模型自己的输出（核对到 10⁻⁵）。",
    ),
    "block.ffn.title": (
        "{layer}, feed-forward: the {ff} hidden units of “{token}”",
        "{layer}，前馈网络：“{token}”的 {ff} 个隐藏单元",
    ),
    "block.ffn.x": ("hidden unit", "隐藏单元"),
    "block.ffn.y": ("activation", "激活值"),
    "block.ffn.zero": ("zero (ReLU)", "为零（ReLU）"),
    "block.ffn.zero_gelu": ("≤ 0 (GELU)", "≤ 0（GELU）"),
    "block.ffn.active": ("positive", "为正"),
    "block.ffn.caption": (
        "max(0, xW₁ + b₁) for “{token}”: {zeros} of {ff} hidden units are exactly 0 ({share:.0%}); "
        "W₂ maps the {active} others back to d = {d}. ‖FFN(x_t)‖ / ‖x_t‖ = {ratio:.3f}.",
        "“{token}”的 max(0, xW₁ + b₁)：{ff} 个隐藏单元中有 {zeros} 个恰好为 0（{share:.0%}）；"
        "W₂ 把其余 {active} 个映射回 d = {d}。‖FFN(x_t)‖ / ‖x_t‖ = {ratio:.3f}。",
    ),
    "block.ffn.caption_gelu": (
        "GELU(xW₁ + b₁) for “{token}”: GELU is never exactly 0; {zeros} of {ff} hidden units "
        "are ≤ 0 ({share:.0%}), near zero; W₂ maps them back to d = {d}. "
        "‖FFN(x_t)‖ / ‖x_t‖ = {ratio:.3f}.",
        "“{token}”的 GELU(xW₁ + b₁)：GELU 从不恰好为 0；{ff} 个隐藏单元中有 {zeros} 个 ≤ 0"
        "（{share:.0%}），接近零；W₂ 把它们映射回 d = {d}。‖FFN(x_t)‖ / ‖x_t‖ = {ratio:.3f}。",
    ),
    "block.out.title": (
        "Output layer at “{token}”: top {k} of {v} after softmax",
        "“{token}”处的输出层：softmax 之后 {v} 个中的前 {k} 个",
    ),
    "block.out.x": ("probability", "概率"),
    "block.out.caption": (
        "logits = h W_out + b over the vocabulary of {v}, then softmax. {what}",
        "logits = h W_out + b，覆盖 {v} 个词的词表，然后 softmax。{what}",
    ),
    "block.out.next": ("At a decoder position this is the next token.", "在解码器的位置上，这就是下一个词元。"),
    "block.out.mlm": (
        "BERT's head predicts the token at this position (nothing is masked here).",
        "BERT 的输出头预测这个位置上的词元（这里没有掩码）。",
    ),
    "block.embed.caption": (
        "The stream starts as {what} and every sub-layer adds to it. Mean ‖x‖: {first:.2f} at the "
        "embedding, {last:.2f} at the output.",
        "残差流从{what}开始，每个子层都往上加。平均 ‖x‖：嵌入处 {first:.2f}，输出处 {last:.2f}。",
    ),
    "block.embed.tf": ("token embedding × √d_model + sinusoidal positions", "词元嵌入 × √d_model + 正弦位置编码"),
    "block.embed.bert": ("LayerNorm(token + segment + position embeddings)", "LayerNorm（词元 + 片段 + 位置嵌入）"),
    "block.unknown": ("Not in the model's vocabulary, read as <unk>: {words}", "不在模型的词表中，读作 <unk>：{words}"),
    # tabs
    "block.tab.changes": ("What each sub-layer adds", "每个子层加了多少"),
    "block.tab.norms": ("Post-LN vs pre-LN", "后置与前置层归一化"),
    "block.tab.batch": ("LayerNorm vs BatchNorm", "层归一化与批归一化"),
    "block.tab.smoothing": ("Label smoothing", "标签平滑"),
    "block.tab.schedule": ("Warm-up and Adam", "预热与 Adam"),
    "block.changes.title": (
        "{stack}: ‖Sublayer(x)‖ / ‖x‖ per block, mean over tokens",
        "{stack}：每个块的 ‖Sublayer(x)‖ / ‖x‖，所有词元的平均",
    ),
    "block.changes.x": ("block", "块"),
    "block.changes.y": ("‖Sublayer(x)‖ / ‖x‖", "‖Sublayer(x)‖ / ‖x‖"),
    "block.changes.explain": (
        "How much each sub-layer changes the residual stream: the norm of what it adds, "
        "‖Sublayer(x_t)‖, over the norm of the stream it is added to, ‖x_t‖, per token, "
        "averaged over the sentence's tokens. Measured on this sentence by hooks on the "
        "model's own modules.",
        "每个子层对残差流的改变有多大：它加上的向量的范数 ‖Sublayer(x_t)‖，除以被加上的残差流的范数 "
        "‖x_t‖，对每个词元计算，再对句子中的词元求平均。在这个句子上，由模型自身模块上的 forward hook 记录。",
    ),
    "block.grad.title": (
        "Gradient norm of each block's FFN W₂ at initialisation",
        "初始化时每个块前馈网络 W₂ 的梯度范数",
    ),
    "block.grad.x": ("block (1 = nearest the input)", "块（1 = 最靠近输入）"),
    "block.grad.y": ("‖∂L/∂W₂‖", "‖∂L/∂W₂‖"),
    "block.grad.dec_post": ("decoder, post-LN", "解码器，后置层归一化"),
    "block.grad.dec_pre": ("decoder, pre-LN", "解码器，前置层归一化"),
    "block.grad.enc_post": ("encoder, post-LN", "编码器，后置层归一化"),
    "block.grad.enc_pre": ("encoder, pre-LN", "编码器，前置层归一化"),
    "block.grad.computing": ("Building fresh models and one backward pass …", "正在构建新模型并做一次反向传播 …"),
    "block.grad.explain": (
        "**Post-LN** (the paper's LayerNorm(x + Sublayer(x))) and **pre-LN** (x + Sublayer(LN(x)), "
        "Xiong et al. 2020), each a freshly initialised {n}+{n}-block encoder–decoder of the lab's "
        "own modules (d = {d}, d_ff = {ff}, {h} heads, vocabulary {v}), same random batch, "
        "cross-entropy, one backward pass, mean over {seeds} seeds; no training. "
        "Post-LN: the decoder's gradients grow toward the output, {post:.1f}× from block 1 to block "
        "{n}; pre-LN: {pre:.1f}×. Large gradients near the output at the start are why post-LN needs "
        "a learning-rate warm-up; pre-LN trains without one (Xiong et al. 2020).",
        "**后置层归一化**（论文中的 LayerNorm(x + Sublayer(x))）与**前置层归一化**"
        "（x + Sublayer(LN(x))，Xiong 等，2020），各为一个用本实验室自身模块新初始化的 {n}+{n} 块"
        "编码器–解码器（d = {d}，d_ff = {ff}，{h} 个头，词表 {v}），同一批随机数据，交叉熵，一次反向传播，"
        "对 {seeds} 个种子求平均；没有训练。后置层归一化：解码器的梯度越靠近输出越大，从第 1 块到第 {n} 块"
        "为 {post:.1f} 倍；前置层归一化：{pre:.1f} 倍。一开始靠近输出的梯度很大，这就是后置层归一化需要"
        "学习率预热的原因；前置层归一化不需要预热也能训练（Xiong 等，2020）。",
    ),
    "block.curves.title": (
        "Training the same {n} + {n}-block Transformer three ways",
        "同一个 {n} + {n} 块 Transformer 的三种训练",
    ),
    "block.curves.x": ("training step", "训练步"),
    "block.curves.y": ("training loss (mean of {every} steps)", "训练损失（每 {every} 步的平均）"),
    "block.curves.run.post": ("post-LN, no warm-up", "后置层归一化，无预热"),
    "block.curves.run.post_warmup": ("post-LN, warm-up {w} steps", "后置层归一化，预热 {w} 步"),
    "block.curves.run.pre": ("pre-LN, no warm-up", "前置层归一化，无预热"),
    "block.curves.explain": (
        "Three trainings of the same {n} + {n}-block encoder–decoder on the reverse task (same seed, same "
        "batches, Adam, peak learning rate {lr:g}, {steps} steps), differing only in where LayerNorm sits and "
        "in the warm-up. Held-out exact match after training: post-LN without warm-up {post:.1%}, post-LN "
        "with a {w}-step warm-up {post_w:.1%}, pre-LN without warm-up {pre:.1%}. "
        "`python -m models.train --preset tf-reverse-post-ln` (and `tf-reverse-post-ln-warmup`, "
        "`tf-reverse-pre-ln`) trains them.",
        "同一个 {n} + {n} 块编码器–解码器在倒序任务上的三次训练（同一种子、同样的批次、Adam、峰值学习率 {lr:g}、"
        "{steps} 步），只有层归一化的位置和预热不同。训练后在留出集上的完全匹配率：后置层归一化无预热 {post:.1%}，"
        "后置层归一化预热 {w} 步 {post_w:.1%}，前置层归一化无预热 {pre:.1%}。"
        "`python -m models.train --preset tf-reverse-post-ln`（以及 `tf-reverse-post-ln-warmup`、"
        "`tf-reverse-pre-ln`）训练它们。",
    ),
    "block.curves.pre_first": (
        "Pre-LN, with no warm-up, learned the task in the steps where post-LN had not, with or without one: "
        "the large gradients near post-LN's output (the figure above) force small early steps, and a warm-up "
        "this short does not make up for them (Xiong et al. 2020, §3–4).",
        "前置层归一化不用预热就在同样的步数里学会了这个任务，而后置层归一化无论有没有预热都还没学会："
        "后置层归一化靠近输出的大梯度（上图）使前期只能用很小的步长，这么短的预热弥补不了（Xiong 等，2020，§3–4）。",
    ),
    "block.curves.close": (
        "Here the three trainings end close together: at this depth and length the placement of LayerNorm "
        "matters less than Xiong et al. (2020) find for deeper models.",
        "这里三次训练的结果相近：在这个深度和训练长度下，层归一化的位置不如 Xiong 等（2020）在更深的模型上发现的那么重要。",
    ),
    "block.curves.missing": (
        "The post-LN and pre-LN trainings are not installed: `python -m models.train --preset "
        "tf-reverse-post-ln` (and `tf-reverse-post-ln-warmup`, `tf-reverse-pre-ln`), then "
        "`python -m models.evaluate --write`.",
        "未安装后置与前置层归一化的训练结果：`python -m models.train --preset tf-reverse-post-ln`"
        "（以及 `tf-reverse-post-ln-warmup`、`tf-reverse-pre-ln`），然后 `python -m models.evaluate --write`。",
    ),
    "block.batch.title": (
        "How far each token's normalised vector moves when the rest of the batch is removed",
        "去掉批中其余部分后，每个词元归一化后的向量移动了多远",
    ),
    "block.batch.x": ("token of sentence 1", "句子 1 的词元"),
    "block.batch.y": ("‖norm(x_t) in the batch − norm(x_t) alone‖", "‖批中的 norm(x_t) − 单独的 norm(x_t)‖"),
    "block.batch.bn": ("BatchNorm", "批归一化"),
    "block.batch.ln": ("LayerNorm", "层归一化"),
    "block.batch.explain": (
        "A padded batch of {b} sentences from tf-lm's embedding layer: {real} tokens and {pad} "
        "padding positions in a {b} × {l} grid, d = {d}. **BatchNorm** (Ioffe & Szegedy 2015) "
        "normalises each feature with its mean and variance over all {cells} positions of the "
        "batch, other sentences and padding included: the statistics change with whatever else is "
        "in the batch (feature 1's mean: {mean_all:.3f} over every position, {mean_real:.3f} over "
        "the real tokens only). **LayerNorm** (Ba et al. 2016) normalises each token over its own "
        "{d} features: the same result alone or in any batch (largest move {ln:.1e}; BatchNorm's "
        "{bn:.2f}). Checked against torch.nn.BatchNorm1d and torch.nn.LayerNorm.",
        "来自 tf-lm 嵌入层的一个填充后的批，包含 {b} 个句子：{b} × {l} 的网格中有 {real} 个词元和 {pad} 个"
        "填充位置，d = {d}。**批归一化**（Ioffe 和 Szegedy，2015）对每个特征用批中全部 {cells} 个位置"
        "（包括其他句子和填充）的均值和方差来归一化：统计量随批中其他内容而变（特征 1 的均值：全部位置上为 "
        "{mean_all:.3f}，只算真实词元为 {mean_real:.3f}）。**层归一化**（Ba 等，2016）对每个词元在它自己的 "
        "{d} 个特征上归一化：单独计算或放在任何批中结果都一样（最大移动 {ln:.1e}；批归一化为 {bn:.2f}）。"
        "已与 torch.nn.BatchNorm1d 和 torch.nn.LayerNorm 核对。",
    ),
    "block.smooth.title": (
        "Label smoothing: the target distribution q (ε = {eps})",
        "标签平滑：目标分布 q（ε = {eps}）",
    ),
    "block.smooth.left": ("The 5-word example", "5 个词的例子"),
    "block.smooth.right": ("{model}'s real vocabulary (V = {v})", "{model} 的真实词表（V = {v}）"),
    "block.smooth.y": ("q(word)", "q(词)"),
    "block.smooth.vocab_x": ("vocabulary index", "词表中的编号"),
    "block.smooth.target": ("the true word", "真实的词"),
    "block.smooth.other": ("every other word", "其他每个词"),
    "block.smooth.words": ("ε/(K−1) over the 4 words, <pad> 0", "ε/(K−1) 分给 4 个词，<pad> 为 0"),
    "block.smooth.all": ("ε/K over all K (torch, this lab)", "ε/K 分给全部 K 个（torch，本实验室）"),
    "block.smooth.others": ("1 − ε on the target, ε/(K−1) on the others", "目标 1 − ε，其他各 ε/(K−1)"),
    "block.smooth.explain": (
        "Instead of a one-hot target, q = (1 − ε)·onehot(y) + ε·u (Szegedy et al. 2016; "
        "Vaswani et al. 2017 §5.4, ε = 0.1). The course's 5-word example, target 0.925 and every "
        "other word 0.025, is u uniform over the **words**: the 5 entries are <pad> and 4 words, "
        "<pad> gets 0, each word ε/(K−1) = 0.1/4 = 0.025, the target 1 − ε + 0.025 = 0.925 (sum 1). "
        "With u over all K = 5 entries (torch's label_smoothing and this lab's training loss) it "
        "would be 0.92 and 0.02; with ε spread over the others only, 0.9 and 0.025. On the right, "
        "{model} (trained with ε = {eps}): the true word “{word}” gets {top:.6f}, each of the other "
        "{others} words {low:.2e}.",
        "不用独热目标，而用 q = (1 − ε)·onehot(y) + ε·u（Szegedy 等，2016；Vaswani 等，2017 §5.4，"
        "ε = 0.1）。课程中 5 个词的例子（目标 0.925，其他每个词 0.025）是把 u 均匀分给**词**："
        "5 个条目是 <pad> 和 4 个词，<pad> 得 0，每个词得 ε/(K−1) = 0.1/4 = 0.025，目标得 "
        "1 − ε + 0.025 = 0.925（总和为 1）。如果把 u 均匀分给全部 K = 5 个条目（torch 的 label_smoothing "
        "和本实验室的训练损失），结果是 0.92 和 0.02；如果 ε 只分给其他词，则是 0.9 和 0.025。右图是 "
        "{model}（训练时 ε = {eps}）：真实的词“{word}”得到 {top:.6f}，其他 {others} 个词各得 {low:.2e}。",
    ),
    "block.lr.title": (
        "lrate = d^−0.5 · min(step^−0.5, step · warmup^−1.5), d = {d}",
        "学习率 lrate = d^−0.5 · min(step^−0.5, step · warmup^−1.5)，d = {d}",
    ),
    "block.lr.x": ("training step", "训练步数"),
    "block.lr.y": ("learning rate (log scale)", "学习率（对数刻度）"),
    "block.lr.with": ("with warm-up ({w} steps)", "有预热（{w} 步）"),
    "block.lr.without": ("without warm-up: d^−0.5 · step^−0.5", "无预热：d^−0.5 · step^−0.5"),
    "block.lr.end": ("end of warm-up", "预热结束"),
    "block.lr.d": ("d_model", "d_model"),
    "block.lr.warmup": ("warm-up steps", "预热步数"),
    "block.lr.explain": (
        "Vaswani et al. 2017, §5.3: the rate rises linearly for {w} steps, peaks at {peak:.2e} at "
        "step {w}, then falls as 1/√step. Without warm-up the first steps would use {first:.2e}, "
        "{times:.0f}× the peak, just when post-LN's gradients near the output are largest (tab "
        "Post-LN vs pre-LN).",
        "Vaswani 等，2017，§5.3：学习率在前 {w} 步线性上升，在第 {w} 步达到峰值 {peak:.2e}，之后按 "
        "1/√step 下降。如果没有预热，最初几步会用 {first:.2e}，是峰值的 {times:.0f} 倍，而这恰好是后置层"
        "归一化靠近输出的梯度最大的时候（见“后置与前置层归一化”标签页）。",
    ),
    "block.adam.head": ("Adam, one step at a time (Kingma & Ba 2015)", "Adam，一步一步来（Kingma 和 Ba，2015）"),
    "block.adam.explain": (
        "For each parameter, with gradient g_t: m_t = β₁m_{{t−1}} + (1 − β₁)g_t (a running mean "
        "of the gradient), v_t = β₂v_{{t−1}} + (1 − β₂)g_t² (of its square); both start at 0 and so "
        "lean toward 0 early on, which the **bias correction** m̂_t = m_t/(1 − β₁ᵗ), "
        "v̂_t = v_t/(1 − β₂ᵗ) undoes; then θ_t = θ_{{t−1}} − α·m̂_t/(√v̂_t + ε). The step's size is "
        "about α whatever the gradient's scale: at t = 1, m̂ = g and v̂ = g², so each parameter moves "
        "by α·sign(g). The Transformer used β₁ = 0.9, β₂ = 0.98, ε = 10⁻⁹ (§5.3). Three parameters, "
        "three steps, α = {lr}; θ after each step equals torch.optim.Adam's:",
        "对每个参数，梯度为 g_t：m_t = β₁m_{{t−1}} + (1 − β₁)g_t（梯度的滑动平均），"
        "v_t = β₂v_{{t−1}} + (1 − β₂)g_t²（梯度平方的滑动平均）；两者都从 0 开始，所以一开始偏向 0，"
        "**偏差修正** m̂_t = m_t/(1 − β₁ᵗ)、v̂_t = v_t/(1 − β₂ᵗ) 消除这一偏差；然后 "
        "θ_t = θ_{{t−1}} − α·m̂_t/(√v̂_t + ε)。每一步的大小约为 α，与梯度的尺度无关：t = 1 时 m̂ = g、"
        "v̂ = g²，所以每个参数移动 α·sign(g)。Transformer 使用 β₁ = 0.9、β₂ = 0.98、ε = 10⁻⁹（§5.3）。"
        "三个参数，三步，α = {lr}；每一步之后的 θ 与 torch.optim.Adam 的一致：",
    ),
    "block.adam.step": ("step t", "步 t"),
    "block.adam.param": ("parameter", "参数"),
    "block.adam.torch": ("θ_t (torch.optim.Adam)", "θ_t（torch.optim.Adam 的结果）"),
    "slide.block.line": ("{model} · {box}", "{model} · {box}"),
    "slide.block.grads": (
        "post-LN decoder at initialisation: ‖∂L/∂W₂‖ {post:.1f}× from block 1 to {n} (pre-LN {pre:.1f}×)",
        "初始化时后置层归一化解码器的 ‖∂L/∂W₂‖ 从第 1 块到第 {n} 块为 {post:.1f} 倍（前置层归一化 {pre:.1f} 倍）",
    ),
    "slide.block.runs": (
        "held-out exact match after {steps} steps: post-LN {post:.1%}, with warm-up {post_w:.1%}, pre-LN {pre:.1%}",
        "{steps} 步后留出集完全匹配率：后置层归一化 {post:.1%}，预热后 {post_w:.1%}，前置层归一化 {pre:.1%}",
    ),
    "slide.block.batch": (
        "largest move when the rest of the batch is removed: LayerNorm {ln:.1e}, BatchNorm {bn:.2f}",
        "去掉批中其余部分后的最大移动：层归一化 {ln:.1e}，批归一化 {bn:.2f}",
    ),
    "slide.block.smoothing": (
        "{model}, ε = {eps:g}: q(“{word}”) = {top:.3f}, the rest spread over V = {v} words",
        "{model}，ε = {eps:g}：q(“{word}”) = {top:.3f}，其余分给 V = {v} 个词",
    ),
    "slide.block.schedule": (
        "peak rate {peak:.2e} at step {w}; without warm-up, step 1 would use {first:.2e} ({times:.0f}× the peak)",
        "第 {w} 步达到峰值 {peak:.2e}；如果没有预热，第 1 步会用 {first:.2e}（峰值的 {times:.0f} 倍）",
    ),
    "block.url.box": ("box", "方框"),
}

SAME = frozenset(
    {
        "block.repeat",
        "block.changes.y",
        "block.grad.y",
        "block.norm.before",
        "block.lr.d",
        "block.stream.point",
        "slide.block.line",
    }
)
