"""Strings of the click-to-explain widget (ui/explain.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "explain.hint": (
        "Click a cell to see how its weight was computed.",
        "点击一个单元格，查看其注意力权重是如何计算出来的。",
    ),
    "explain.too_many": (
        "This heatmap has too many cells to click: click-to-explain is off here.",
        "此热图的单元格太多，无法点击：这里不提供点击解释。",
    ),
    "explain.block.title": (
        "Block: queries {q0}–{q1} → keys {k0}–{k1}, drawn as {drawn}",
        "块：查询 {q0}–{q1} → 键 {k0}–{k1}，图中数值 {drawn}",
    ),
    "explain.block.mean": (
        "The heatmap is binned: this cell draws the mean over its {n_q} queries of the weight each "
        "gives to the block's keys, Σ of the block's {n} attention weights ÷ {n_q} = {total} ÷ "
        "{n_q} = {value} from the model's weights (drawn {drawn}, difference {err}).",
        "热图已分箱：此单元格显示块内 {n_q} 个查询各自分给块内键的权重之和的平均值，即块内 {n} 个"
        "注意力权重之和 ÷ {n_q} = {total} ÷ {n_q} = {value}（由模型的权重算出；图中 {drawn}，差值 {err}）。",
    ),
    "explain.block.max": (
        "The heatmap is binned: this cell draws the largest of the block's {n} attention weights, "
        "{value} from the model's weights (drawn {drawn}, difference {err}).",
        "热图已分箱：此单元格显示块内 {n} 个注意力权重中的最大值 {value}（由模型的权重算出；"
        "图中 {drawn}，差值 {err}）。",
    ),
    "explain.block.pick": (
        "Explain one cell of the block (largest weight first)",
        "解释块内的一个单元格（按权重从大到小）",
    ),
    "explain.block.capped": (" — the {shown} largest of its {n}", " — 共 {n} 个中最大的 {shown} 个"),
    "explain.col.query": ("query", "查询"),
    "explain.step.model": ("the model's weight", "模型的权重"),
    "explain.how.model": (
        "this cell of the model's attention (the heatmap draws its block)",
        "模型注意力中的这个单元格（热图画的是它所在的块）",
    ),
    "explain.shown.drawn": ("the weight drawn ({drawn})", "即图中所画的注意力权重（{drawn}）"),
    "explain.shown.model": (
        "the model's weight ({drawn}) inside the drawn block",
        "即模型给出的注意力权重（{drawn}），位于图中所画的块内",
    ),
    "explain.title": (
        "Why {weight}? Query “{query}” (row {row}) → key “{key_token}” (column {col})",
        "为什么是 {weight}？查询“{query}”（第 {row} 行）→ 键“{key_token}”（第 {col} 列）",
    ),
    "explain.where.head": (" · layer {layer}, head {head}", " · 第 {layer} 层，第 {head} 个头"),
    "explain.where.layer": (" · layer {layer}, average over heads", " · 第 {layer} 层，各头平均"),
    "explain.col.step": ("step", "步骤"),
    "explain.col.how": ("how", "计算方式"),
    "explain.col.value": ("value", "数值"),
    "explain.step.score": ("① score", "① 评分"),
    "explain.step.scale": ("② scaling", "② 缩放"),
    "explain.step.mask": ("③ mask", "③ 掩码"),
    "explain.step.softmax": ("④ softmax over the row", "④ 对整行做 softmax"),
    "explain.step.gaussian": ("⑤ local-p Gaussian", "⑤ local-p 高斯因子"),
    "explain.step.hard": ("⑤ hard attention", "⑤ 硬注意力"),
    "explain.step.drawn": ("drawn on the heatmap", "热图上的数值"),
    "explain.step.check": ("check", "核对"),
    "explain.how.dims": ("{formula}, over {d} dimensions", "{formula}，共 {d} 维"),
    "explain.how.scale": ("÷ √d_k = ÷ {scale}", "÷ √d_k = ÷ {scale}"),
    "explain.how.noscale": ("none: this score function is not scaled", "无：该评分函数不做缩放"),
    "explain.how.allowed": ("+ 0: the query may attend to this key", "+ 0：查询可以关注此键"),
    "explain.how.blocked": ("+ (−∞): the mask blocks this key", "+ (−∞)：掩码屏蔽了此键"),
    "explain.how.window": (
        "+ (−∞): outside the local window [p_t − D, p_t + D], p_t = {p}",
        "+ (−∞)：位于局部窗口 [p_t − D, p_t + D] 之外，p_t = {p}",
    ),
    "explain.how.softmax": (
        "exp({x} − {m}) / Σ_j exp(x_j − {m}) = {num} / {den}, over {n} keys",
        "exp({x} − {m}) / Σ_j exp(x_j − {m}) = {num} / {den}，共 {n} 个键",
    ),
    "explain.how.gaussian": (
        "× exp(−(s − p_t)² / 2σ²) = × {factor}, p_t = {p}",
        "× exp(−(s − p_t)² / 2σ²) = × {factor}，p_t = {p}",
    ),
    "explain.how.hard": ("1 at the row's largest weight, 0 elsewhere", "整行最大权重处为 1，其余为 0"),
    "explain.how.drawn": ("the value the page drew", "页面绘制的数值"),
    "explain.how.check": (
        "the model's own row in the same run, max difference {err}",
        "同一次运行中模型自身的该行，最大差值 {err}",
    ),
    "explain.sentence": (
        "The model scored key “{key_token}” for query “{query}” at {score}; among the {n} keys this query "
        "may attend to, the softmax turns that into {weight}, {shown}.",
        "模型为查询“{query}”对键“{key_token}”打分 {score}；在该查询可关注的 {n} 个键中，softmax 将其变为 "
        "{weight}，{shown}。",
    ),
    "explain.mismatch": (
        "This derivation does not reproduce the drawn weight (difference {err}): the view was "
        "computed differently (e.g. a what-if run).",
        "此推导未能复现图中的权重（差值 {err}）：该视图的计算方式不同（例如假设分析运行）。",
    ),
    "explain.average": (
        "The average over heads: each head's weight for this cell, then their mean.",
        "各头的平均：先列出每个头在此单元格的权重，再取平均。",
    ),
    "explain.col.head": ("head", "头"),
    "explain.col.score": ("score", "评分"),
    "explain.col.weight": ("weight", "权重"),
    "explain.mean": ("mean", "平均"),
    "explain.row": ("The whole row: every key's score, mask and weight", "整行：每个键的评分、掩码与权重"),
    "explain.col.key": ("key", "键"),
    "explain.col.scaled": ("scaled", "缩放后"),
    "explain.col.mask": ("mask", "掩码"),
    "explain.col.softmax": ("softmax", "softmax"),
    "explain.vectors": ("The vectors of the score", "评分所用的向量"),
    "explain.vectors.sum": (
        "The score function above combines these vectors into the score {score}.",
        "上面的评分函数由这些向量算出评分 {score}。",
    ),
    "explain.whole": (
        "The whole head: every query's row (click a cell to explain it)",
        "整个头：每个查询的一行（点击单元格查看解释）",
    ),
    "explain.whole.title": ("Layer {layer}, head {head}: every query", "第 {layer} 层，第 {head} 个头：所有查询"),
    "explain.failed": ("This cell cannot be explained: {reason}", "无法解释此单元格：{reason}"),
}
SAME = frozenset({"explain.how.scale", "explain.col.softmax"})
