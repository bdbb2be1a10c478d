"""Strings of the what-if views (ui/seq2seq.py forced token, ui/transformer.py forced token and head
ablation), shared by pages 2 and 4: id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # forced token (ui.seq2seq.forced_token_picker, what_if_view of both pages)
    "wi.expander": ("What if? Force a different token at this step", "如果……？在这一步强制换一个词元"),
    "wi.emitted": (
        "Step {step}: the model emitted “{token}”. Force another token here: the steps before it keep the "
        "original output, step {step} takes your token, and greedy decoding continues from it.",
        "第 {step} 步：模型输出了“{token}”。在这里强制换一个词元：之前的步骤保留原输出，第 {step} 步使用你的词元，"
        "之后从它继续贪心解码。",
    ),
    "wi.pick": ("One of the model's top-{k} at step {step}", "第 {step} 步模型概率最高的 {k} 个之一"),
    "wi.type": ("… or type a token (Enter)", "……或输入一个词元（回车）"),
    "wi.type_placeholder": ("e.g. petit, or </s> to stop", "例如 petit，或输入 </s> 结束"),
    "wi.reset": ("Back to the model's own choice", "回到模型自己的选择"),
    "wi.original": ("Original", "原输出"),
    "wi.forced": ("What if step {step} is “{token}”", "如果第 {step} 步是“{token}”"),
    "wi.no_attention": ("No attention in this model: compare the translations.", "这个模型没有注意力：请比较译文。"),
    "wi.fig.original": ("Attention α, original", "注意力 α，原输出"),
    "wi.fig.forced": ("Attention α, step {step} forced (✎)", "注意力 α，第 {step} 步被强制（✎）"),
    "wi.fig.cross": ("Cross-attention, {head}", "交叉注意力，{head}"),
    "wi.fig.cross_forced": ("Cross-attention, {head} (✎ forced)", "交叉注意力，{head}（✎ 强制）"),
    "wi.x.source": ("source", "源句"),
    "wi.y.output": ("output step", "输出步"),
    "wi.empty": ("(empty)", "（空）"),
    # head ablation (ui.transformer.ablation_view)
    "ab.expander": ("What if? Switch off a head", "如果……？关闭一个头"),
    "ab.explain": (
        "Head masking (Michel et al. 2019, “Are Sixteen Heads Really Better than One?”): the head's "
        "output is set to zero before W^O, in every decoding step. Its own weights are still computed; "
        "every later layer sees the change.",
        "头掩码（Michel 等 2019，“Are Sixteen Heads Really Better than One?”）：在每个解码步中，这个头的输出在 "
        "W^O 之前被置为零。它自己的注意力权重仍会计算；之后的每一层都会看到这一变化。",
    ),
    "ab.attention": ("Attention", "注意力"),
    "ab.layer": ("Layer", "层"),
    "ab.head": ("Head", "头"),
    "ab.switch": ("Switch it off", "关闭它"),
    "ab.all_on": ("**Every head on** — Σ log p = {score:.3f}", "**所有头开启** — Σ log p = {score:.3f}"),
    "ab.off": ("**{head} off** — Σ log p = {score:.3f}", "**{head} 关闭** — Σ log p = {score:.3f}"),
    "ab.same": (
        "Same output without this head: the others make up for it here (Michel et al. found that most single "
        "heads can be removed with little loss). Its effect shows in the probabilities and in the other heads' "
        "attention below.",
        "没有这个头，输出相同：其他头在这里弥补了它（Michel 等发现大多数单个头都可以去掉而损失很小）。"
        "它的作用体现在下面的概率和其他头的注意力中。",
    ),
    "ab.grids": (
        "**{attention} at step {step}, on the original tokens** — with every head (left) and with {head} off (right)",
        "**第 {step} 步的{attention}，基于原输出的词元** — 所有头开启（左）与 {head} 关闭（右）",
    ),
    "ab.fig.on": ("Every head on", "所有头开启"),
    "ab.fig.off": ("{head} off", "{head} 关闭"),
    "ab.fig.change": ("Largest |Δ weight| of each head", "每个头的最大 |Δ 权重|"),
    "ab.head_n": ("head {n}", "头 {n}"),
    "ab.layer_n": ("layer {n}", "第 {n} 层"),
    "ab.x.head": ("head", "头"),
    "ab.y.layer": ("layer", "层"),
    "ab.change": (
        "{attention} over the whole output, with the head off minus with every head on. Most changed: {head} "
        "({change:.3f}).",
        "整个输出上的{attention}：关闭该头时减去所有头开启时。变化最大：{head}（{change:.3f}）。",
    ),
    "ab.nothing": (
        "Switching off {head} changed nothing: the output is the same and no attention weight or p(y_t) "
        "moved by {tol:g} or more.",
        "关闭 {head} 没有改变任何东西：输出相同，没有任何注意力权重或 p(y_t) 的变化达到 {tol:g}。",
    ),
    "ab.kind_unchanged": (
        "No {attention} weight moved by {tol:g} or more with {head} off; its effect is elsewhere "
        "(p(y_t) moved by up to {p:.3g}, in the table).",
        "关闭 {head} 后，没有任何{attention}权重的变化达到 {tol:g}；它的作用在别处（p(y_t) 最多变化 {p:.3g}，见表）。",
    ),
    "ab.col.step": ("step", "步"),
    "ab.col.token": ("token", "词元"),
    "ab.col.p_on": ("p, every head", "p，所有头"),
    "ab.col.p_off": ("p, {head} off", "p，{head} 关闭"),
    "ab.probs": (
        "p(y_t) of the original output, teacher-forced with and without the head: the loss change Michel et "
        "al. use to score a head's importance.",
        "原输出的 p(y_t)，在有和没有这个头时用教师强制计算：这就是 Michel 等用来衡量一个头重要性的损失变化。",
    ),
}

SAME: frozenset[str] = frozenset()
