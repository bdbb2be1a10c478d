"""The words drawn inside figures (viz_core.texts): id ``fig.<id>`` → (English, 中文). The English is
viz_core's own (one source); ui.i18n.figure_texts passes the current language's words to builders."""
from __future__ import annotations

from viz_core.texts import TEXTS

_ZH: dict[str, str] = {
    "weight": "权重",
    "relative_scale": "{title}，相对于{relative_to}：最深色 = {top:.2g}",
    "chosen_max": "所选的最大值",
    "s2s.x": "源句（英语）",
    "s2s.y": "目标步（法语）",
    "s2s.gold": "标准对齐",
    "s2s.aligned": "对齐位置 p_t",
    "s2s.aligned_hover": "第 {step} 步：p_t = {p:.2f}",
    "beam.kept": "保留",
    "beam.finished": "已完成",
    "beam.pruned": "剪枝",
    "beam.hover": "第 {step} 步：{token}<br>log p = {log_p:.3f}<br>累计 = {total:.3f}<br>{group}<br>排名 {rank}",
    "beam.x": "步",
    "beam.y": "候选中的排名",
    "bleu.hover": "{model}，{lo}–{hi} 个词：BLEU {bleu:.1f}（{n} 个句子）",
    "bleu.x": "源句长度（词数）",
    "bleu.y": "测试集 BLEU",
    "key_attended": "键（被关注）",
    "query_attending": "查询（发出关注）",
    "key": "键",
    "query": "查询",
    "weight_hover": "{query} → {key}<br>权重 = {weight:.4f}",
    "masked_hover": "{query} → {key}<br>被掩码：softmax 前为 −∞，权重 0",
    "masked": "被掩码",
    "may_attend": "{query} → {key}：+0，可以关注",
    "blocked": "{query} → {key}：−∞，被遮住",
    "mask": "掩码",
    "chain.no_scaling": "不缩放",
    "chain.scaled": "② ÷ √d_k = ÷ {scale:.2f}，+ 掩码",
    "chain.unscaled": "② 不缩放，+ 掩码",
    "chain.softmax": "③ softmax → 权重",
    "chain.masked_hover": "{token}：−∞（被掩码）",
    "chain.weight_hover": "{token}：权重 = {weight:.4f}",
    "value": "值",
    "dim_hover": "%{y}：第 %{x} 维 = %{z:.3f}<extra></extra>",
    "head_dims": "头的维度（d_k）",
    "dimension": "维度",
    "gen.model": "模型的 p（T = 1，无 top-k）",
    "gen.sampled": "采样分布（经过 T 和 top-k）",
    "gen.chosen": "选中的词元",
    "gen.sampled_hover": "{token}：采样概率 p = {p:.4f}",
    "handout.subtitle": "注意力实验室讲义",
    "handout.input": "输入",
    "handout.numbers": "关键数值",
    "handout.images": "每张图：相机按钮 = PNG（1920×1080），SVG 按钮 = 矢量图；都由本页面自己离线绘制。",
}

STRINGS: dict[str, tuple[str, str]] = {f"fig.{key}": (en, _ZH[key]) for key, en in TEXTS.items()}
SAME: frozenset[str] = frozenset()
