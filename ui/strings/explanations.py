"""Strings of the "Is attention an explanation?" page (pages/16_Attention_as_explanation.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # models.lessons.explanations' InputError keys
    "err.explain.one_mask": (
        "Write [MASK] once where a word is missing, e.g. “the cat sat on the [MASK] .”",
        "请在缺词处写一次 [MASK]，例如 “the cat sat on the [MASK] .”",
    ),
    "err.explain.too_short": (
        "Type at least two tokens for the model to continue.",
        "请至少输入两个词元，供模型续写。",
    ),
    "nav.16": ("Is attention an explanation?", "注意力是解释吗？"),
    "nav.16.blurb": (
        "One input, every answer: raw attention, rollout and flow, norm-based attention, gradients "
        "and occlusion side by side, and which one is faithful, measured.",
        "同一个输入，所有答案：原始注意力、rollout 与 flow、基于范数的注意力、梯度与遮挡并排比较，并度量哪一个忠实。",
    ),
    "xai.intro": (
        "Attention weights are often read as an explanation. Here every method scores the same input "
        "tokens for one output token, and occlusion (removing a token and re-running the model) says "
        "what the model really needed.",
        "注意力权重常被当作解释。这里每种方法都为同一输出词元给同样的输入词元打分，而遮挡（删去一个词元后重新运行模型）"
        "说明模型真正需要什么。",
    ),
    "xai.computing": (
        "Running every method (gradients and occlusion re-run the model)…",
        "正在运行所有方法（梯度与遮挡需要重新运行模型）…",
    ),
    "xai.model": ("Model", "模型"),
    "xai.model_help": (
        "Two grammar translation models with gold word alignments, the MiniLM masked LM, the real LLM SmolLM2-135M.",
        "两个带标准词对齐的语法翻译模型、MiniLM 掩码语言模型、真实大语言模型 SmolLM2-135M。",
    ),
    "xai.model.s2s-bahdanau": ("RNN seq2seq (Bahdanau)", "RNN 序列到序列（Bahdanau）"),
    "xai.model.tf-en-fr": ("Transformer en→fr", "Transformer 英→法"),
    "xai.model.minilm-mlm": ("MiniLM masked LM", "MiniLM 掩码语言模型"),
    "xai.model.smollm2": ("SmolLM2-135M (real LLM)", "SmolLM2-135M（真实大语言模型）"),
    "xai.text": ("Input", "输入"),
    "xai.url.text_cut": ("the first 2,000 characters", "前 2000 个字符"),
    "xai.text_help.s2s-bahdanau": (
        "An English sentence of the grammar; the output is the model's translation.",
        "语法中的一个英文句子；输出是模型的翻译。",
    ),
    "xai.text_help.tf-en-fr": (
        "An English sentence of the grammar; the output is the model's translation.",
        "语法中的一个英文句子；输出是模型的翻译。",
    ),
    "xai.text_help.minilm-mlm": (
        "A sentence with one [MASK]; the output is the model's top word there.",
        "含一个 [MASK] 的句子；输出是模型在该处的首选词。",
    ),
    "xai.text_help.smollm2": (
        "Text to continue (its last 64 tokens are read); the output is the next token the model finds most probable.",
        "待续写的文本（读取最后 64 个词元）；输出是模型认为最可能的下一个词元。",
    ),
    "xai.step": ("Output token", "输出词元"),
    "xai.step_help": ("Which token of the translation is explained.", "解释译文中的哪个词元。"),
    "xai.options": ("Options", "选项"),
    "xai.layer": ("Layer of the one-head row (−1: the last)", "单头一行所用的层（−1：最后一层）"),
    "xai.layer_help": ("The first row shows one head of this layer.", "第一行显示该层的一个头。"),
    "xai.head": ("Head of the one-head row", "单头一行所用的头"),
    "xai.head_help": ("Counted from 0; taken modulo the model's number of heads.", "从 0 开始计数；按模型的头数取模。"),
    "xai.predict": ("Predict first", "先预测"),
    "xai.predict_help": (
        "Pick the tokens you expect to matter before the methods are shown; occlusion scores your guess.",
        "在显示各方法之前，选出你认为重要的词元；遮挡结果为你的猜测打分。",
    ),
    "xai.guess": ("Which input tokens will matter most for the output?", "哪些输入词元对输出最重要？"),
    "xai.reveal": ("Reveal", "揭晓"),
    "xai.predict_first": ("Choose one or more tokens, then press Reveal.", "选择一个或多个词元，然后点击“揭晓”。"),
    "xai.score": (
        "{hits} of your {k} picks are among the {k} tokens whose removal costs the output most "
        "(occlusion: {top}). Your picks are outlined in orange.",
        "你选的 {k} 个词元中有 {hits} 个属于删除后对输出影响最大的 {k} 个词元（遮挡：{top}）。你的选择以橙色框出。",
    ),
    "xai.sink_warning": (
        "Plain rollout puts {share:.0%} of its weight on the first token. On a decoder with an "
        "attention sink (Xiao et al. 2023, §3) the first token soaks up attention without carrying "
        "the meaning: read the row “rollout without the first token”, and compare with occlusion.",
        "普通 rollout 把 {share:.0%} 的权重放在第一个词元上。在存在注意力汇聚（attention sink，Xiao 等 2023，§3）"
        "的解码器中，第一个词元吸收注意力却不承载语义：请看“rollout（去除第一个词元）”那一行，并与遮挡比较。",
    ),
    "xai.erasure.title": (
        "Erasure: p(output) as each method's top tokens are removed",
        "擦除：按各方法删除得分最高的词元后 p(输出) 的变化",
    ),
    "xai.erasure.x": ("tokens removed (k)", "删除的词元数 (k)"),
    "xai.erasure.y": ("p(output)", "p(输出)"),
    "xai.ig_check": (
        "Integrated gradients' completeness (Sundararajan et al. 2017, §3): Σ attributions = {total:.4f}; "
        "F(x) − F(x′) = {fx:.4f} − ({fb:.4f}); gap {gap:.2%} with {steps} trapezoid intervals. {baseline}",
        "积分梯度的完备性（Sundararajan 等 2017，§3）：归因之和 = {total:.4f}；F(x) − F(x′) = {fx:.4f} − ({fb:.4f})；"
        "{steps} 个梯形区间下误差 {gap:.2%}。{baseline}",
    ),
    "xai.baseline.zero": ("Baseline x′: the zero embedding (§6.3).", "基线 x′：零嵌入（§6.3）。"),
    "xai.baseline.token": (
        "Baseline x′: the first token, then “{token}” at every other position, not the zero embedding: at zero a "
        "Llama's RMSNorm makes F erratic.",
        "基线 x′：保留第一个词元，其余位置都换成“{token}”，而不是零嵌入：在零附近 Llama 的 RMSNorm 使 F 很不稳定。",
    ),
    "xai.fig.caption": ("Every method over the input tokens", "各方法在输入词元上的得分"),
    "xai.fig.title": (
        "Which input tokens explain “{target}” (p = {p:.2f})?",
        "哪些输入词元解释了“{target}”（p = {p:.2f}）？",
    ),
    "xai.fig.scale": ("|score| ÷ row max", "|得分| ÷ 行最大值"),
    "xai.fig.value": ("score", "得分"),
    "xai.fig.undefined": ("not defined for this model", "该模型无此定义"),
    "xai.table_explain": (
        "ρ: Spearman's rank correlation with occlusion over the removable tokens. AOPC: the mean drop "
        "of p(output) as the method's top 1 … 5 tokens are removed (higher: the method found the "
        "tokens the model needs).",
        "ρ：与遮挡结果在可删除词元上的斯皮尔曼秩相关。AOPC：删除该方法得分最高的 1 … 5 个词元后 p(输出) 的平均下降"
        "（越高说明该方法找到了模型需要的词元）。",
    ),
    "xai.col.method": ("method", "方法"),
    "xai.col.rho": ("ρ with occlusion", "与遮挡的 ρ"),
    "xai.col.aopc": ("AOPC", "AOPC"),
    # the rows' names on the figure's axis (a tick label is cut at 12 characters; the hover has the full name)
    "xai.ms.attn_head_lh": ("attn L{layer} H{head}", "注意力 L{layer}H{head}"),
    "xai.ms.attn_last": ("attn, last", "注意力 末层"),
    "xai.ms.attn_all": ("attn, all", "注意力 各层"),
    "xai.ms.rollout": ("rollout", "注意力 rollout"),
    "xai.ms.rollout_sink": ("rollout−sink", "rollout 去首"),
    "xai.ms.flow": ("flow", "注意力 flow"),
    "xai.ms.norm": ("‖α f(x)‖", "范数 ‖αf(x)‖"),
    "xai.ms.grad_input": ("grad × input", "梯度 × 输入"),
    "xai.ms.ig": ("integ. grads", "积分梯度"),
    "xai.ms.occlusion": ("occlusion", "遮挡"),
    "xai.m.attn_head": ("attention, one head", "注意力，单个头"),
    "xai.m.attn_head_lh": ("attention, layer {layer} head {head}", "注意力，第 {layer} 层第 {head} 个头"),
    "xai.m.attn_last": ("attention, last layer (mean of heads)", "注意力，最后一层（各头平均）"),
    "xai.m.attn_all": ("attention, every layer (mean)", "注意力，所有层（平均）"),
    "xai.m.rollout": ("attention rollout", "注意力 rollout"),
    "xai.m.rollout_sink": ("rollout without the first token", "rollout（去除第一个词元）"),
    "xai.m.flow": ("attention flow", "注意力 flow"),
    "xai.m.norm": ("norm-based ‖α f(x)‖", "基于范数 ‖α f(x)‖"),
    "xai.m.grad_input": ("gradient × input", "梯度 × 输入"),
    "xai.m.ig": ("integrated gradients", "积分梯度"),
    "xai.m.occlusion": ("occlusion (Δ log p)", "遮挡（Δ log p）"),
    "xai.slide.line": ("Which input tokens explain “{target}”?", "哪些输入词元解释了“{target}”？"),
    "xai.swap.toggle": (
        "Different attention, the same output? (Jain & Wallace 2019, §4.2)",
        "不同的注意力，相同的输出？（Jain & Wallace 2019，§4.2）",
    ),
    "xai.swap.help": (
        "At the chosen output token, replace the model's attention weights by a random permutation "
        "of them, and by weights an adversary searched far from them, and see whether the output "
        "changes.",
        "在所选输出词元处，把模型的注意力权重换成其随机排列，以及对抗搜索得到的远离原权重的权重，看输出是否改变。",
    ),
    "xai.swap.computing": (
        "Permuting the attention and searching for an adversarial one…",
        "正在置换注意力并搜索对抗注意力…",
    ),
    "xai.swap.title": (
        "Output token {step}: the model's attention, a permutation, an adversary's",
        "第 {step} 个输出词元：模型的注意力、一个置换、对抗注意力",
    ),
    "xai.swap.scale": ("attention weight", "注意力权重"),
    "xai.swap.row.original": ("model's α → “{out}” (p = {p:.2f})", "模型的 α → “{out}”（p = {p:.2f}）"),
    "xai.swap.row.permuted": (
        "permuted α → “{out}” (p = {p:.2f}; JSD {jsd:.2f}, TVD {tvd:.3f})",
        "置换后的 α → “{out}”（p = {p:.2f}；JSD {jsd:.2f}，TVD {tvd:.3f}）",
    ),
    "xai.swap.row.adversarial": (
        "adversarial α̃ → “{out}” (p = {p:.2f}; JSD {jsd:.2f}, TVD {tvd:.3f})",
        "对抗 α̃ → “{out}”（p = {p:.2f}；JSD {jsd:.2f}，TVD {tvd:.3f}）",
    ),
    "xai.swap.caption": (
        "Over {n} random permutations of this step's weights the output distribution moved by a "
        "median total variation (TVD) of {tvd:.3f}, the weights by a median Jensen–Shannon "
        "divergence (JSD, in nats, at most ln 2 ≈ 0.69) of {jsd:.2f}; the top token stayed the same "
        "in {same:.0%} of them. The adversary (Adam on the weights) looked for the largest JSD that "
        "keeps the output's TVD ≤ {eps}. Very different weights with the same output: these weights "
        "alone do not explain the output.",
        "对该步权重做 {n} 次随机置换，输出分布的总变差距离（TVD）中位数为 {tvd:.3f}，权重的 Jensen–Shannon "
        "散度（JSD，单位奈特，最大 ln 2 ≈ 0.69）中位数为 {jsd:.2f}；其中 {same:.0%} 的置换下首选词元不变。"
        "对抗搜索（对权重用 Adam）寻找在输出 TVD ≤ {eps} 条件下最大的 JSD。权重截然不同而输出相同："
        "仅凭这些权重不能解释输出。",
    ),
    "xai.uniform": (
        "**Wiegreffe & Pinter's answer (2019, §3.1): does this model need its attention?** A twin of the small "
        "Bahdanau RNN, trained the same way on the same {n_train:,} grammar pairs but with its weights frozen to "
        "uniform (α = 1/S: the context is the mean of the source states), scores test BLEU {u_bleu:.1f} (exact "
        "match {u_em:.0%}) where the learned attention scores {l_bleu:.1f} ({l_em:.0%}), on the same {n_test:,} "
        "test sentences.",
        "**Wiegreffe & Pinter 的回应（2019，§3.1）：这个模型需要它的注意力吗？** 小型 Bahdanau RNN 的对照模型，"
        "用同样的 {n_train:,} 个语法句对以同样方式训练，但权重冻结为均匀分布（α = 1/S：上下文是源端状态的平均），"
        "在同样的 {n_test:,} 个测试句上 BLEU 为 {u_bleu:.1f}（完全匹配 {u_em:.0%}），而学到的注意力为 {l_bleu:.1f}（{l_em:.0%}）。",
    ),
    "xai.uniform.mattered": (
        "A gap this large means the learned weights carry what the translation needs: here, swapping them for "
        "others that leave one step's output unchanged does not show that attention is unimportant.",
        "差距这么大说明学到的权重承载了翻译所需的信息：在这里，换成让某一步输出不变的其他权重，并不能说明注意力不重要。",
    ),
    "xai.uniform.little": (
        "A gap this small means this task hardly needs learned attention, so its weights say little about what "
        "the model used (Wiegreffe & Pinter's condition for reading them at all).",
        "差距这么小说明这个任务几乎不需要学到的注意力，因此它的权重很难说明模型用了什么（这正是 Wiegreffe & Pinter 提出的前提）。",
    ),
    "xai.uniform.missing": (
        "The uniform-attention twin is not installed: `python -m models.train --preset s2s-uniform`, then "
        "`python -m models.evaluate --write`.",
        "未安装均匀注意力对照模型：`python -m models.train --preset s2s-uniform`，然后 `python -m models.evaluate --write`。",
    ),
    "xai.claims": (
        "**What the papers claim.** Jain & Wallace (2019, §4.1) find attention weights often uncorrelated with "
        "gradient and leave-one-out importance, and (§4.2) that very different attention can give the same output. "
        "Wiegreffe & Pinter (2019, §3–4) answer that this does not prove attention is no explanation: it depends on "
        "the model and the test. Abnar & Zuidema (2020, §3) add the residual connection (0.5·A + 0.5·I) and combine "
        "layers by rollout (a product of matrices) or flow (a max-flow in the layered graph), which correlate better "
        "with ablation than raw attention. Kobayashi et al. (2020, §3–4) show that the weight alone ignores how "
        "large the transformed vector ‖f(x)‖ is, and weigh ‖α f(x)‖. Sundararajan et al. (2017, §3) require that "
        "attributions add up to F(x) − F(baseline) (completeness), checked above. The table measures each method "
        "here against occlusion on this input; `python -m bench.explanations` measures it on 50 inputs per model.",
        "**论文的论断。** Jain & Wallace（2019，§4.1）发现注意力权重常与梯度和逐一删除的重要性不相关，并且（§4.2）"
        "截然不同的注意力可以给出相同输出。Wiegreffe & Pinter（2019，§3–4）回应说这并不能证明注意力不是解释：这取决于模型和检验方式。"
        "Abnar & Zuidema（2020，§3）加入残差连接（0.5·A + 0.5·I），并用 rollout（矩阵连乘）或 flow（分层图上的最大流）"
        "组合各层，它们与消融结果的相关性优于原始注意力。Kobayashi 等（2020，§3–4）指出仅看权重忽略了变换后向量 ‖f(x)‖ 的大小，"
        "因此采用 ‖α f(x)‖。Sundararajan 等（2017，§3）要求归因之和等于 F(x) − F(基线)（完备性），上面已检验。"
        "表格在本输入上把每种方法与遮挡对比；`python -m bench.explanations` 在每个模型的 50 个输入上度量。",
    ),
}
SAME: frozenset[str] = frozenset({"xai.col.aopc"})
