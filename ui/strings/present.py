"""Strings of the Present page (pages/12_Present.py), its slides (ui/slides.py) and the sidebar's deck
button (ui/deck.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "nav.12": ("Present", "演示"),
    "nav.12.blurb": (
        "A deck of views from any page as slides, walked with ←/→ or a presenter's clicker.",
        "把任意页面的视图组成幻灯片，用 ←/→ 或翻页笔逐页演示。",
    ),
    # the sidebar's deck button (ui/deck.py)
    "deck.add": ("Add this view to the deck", "将此视图加入幻灯片"),
    "deck.add.help": (
        "Keeps this page, its input and every setting (the step included) as a slide; present the "
        "deck on the Present page.",
        "把本页面、它的输入和所有设置（包括当前步骤）保存为一张幻灯片；在“演示”页面播放。",
    ),
    "deck.count": ("Your deck: {n} slide(s).", "你的幻灯片：{n} 张。"),
    "deck.added": ("Added as slide {n} of the deck.", "已加入为第 {n} 张幻灯片。"),
    "deck.add_section": ("Add this section to the deck", "将本节加入幻灯片"),
    "deck.add_section.help": (
        "Keeps this section's figure, with the choices made in it, as a slide of its own.",
        "把本节的图和其中所做的选择保存为一张单独的幻灯片。",
    ),
    "slide.exposure.parted": (
        "they part at step {step}: “{gold}” in the reference, “{own}” from its own prefix",
        "在第 {step} 步分歧：参考译文是“{gold}”，从自己的前缀解码选了“{own}”",
    ),
    "slide.exposure.no_attention": (
        "This model has no attention to draw for its two decodings.",
        "这个模型没有注意力，无法画出两种解码的注意力。",
    ),
    "slide.exposure.no_corpus": (
        "This model translates no corpus with a test split (a toy task): pick a translation model.",
        "这个模型不翻译带测试集的语料（玩具任务）：请选择一个翻译模型。",
    ),
    "slide.ls.line": (
        "ECE with ε = 0 → with ε = 0.1: {pairs}",
        "期望标定误差 ECE，ε = 0 → ε = 0.1：{pairs}",
    ),
    "deck.lost": (
        "The deck this browser kept could not be read, so a new one starts: {reason}",
        "无法读取此浏览器保存的幻灯片组，因此从新的幻灯片组开始：{reason}",
    ),
    # why a deck file cannot be used (ui/deck.py, DeckError): {where} is one of the deck.where phrases
    "deck.where.deck_title": ("The deck's title", "幻灯片组的标题"),
    "deck.where.slide": ("Slide {number}", "第 {number} 张幻灯片"),
    "deck.where.page": ("Slide {number}'s page", "第 {number} 张幻灯片的页面"),
    "deck.where.params": ("Slide {number}'s params", "第 {number} 张幻灯片的参数"),
    "deck.where.param": ("Slide {number}'s param “{key}”", "第 {number} 张幻灯片的参数“{key}”"),
    "deck.where.title": ("Slide {number}'s title", "第 {number} 张幻灯片的标题"),
    "deck.where.notes": ("Slide {number}'s notes", "第 {number} 张幻灯片的备注"),
    "deck.err.not_text": ("{where} must be text, not {type_name}.", "{where}必须是文本，而不是 {type_name}。"),
    "deck.err.too_long": (
        "{where} has {n:,} characters; at most {most:,} are allowed.",
        "{where}有 {n:,} 个字符；最多允许 {most:,} 个。",
    ),
    "deck.err.odd_char": (
        "{where} contains the invisible or control character {char}.",
        "{where}含有不可见字符或控制字符 {char}。",
    ),
    "deck.err.too_many_values": (
        "{where} has {n} values; at most {most} are allowed.",
        "{where}有 {n} 个值；最多允许 {most} 个。",
    ),
    "deck.err.no_page": (
        "{where} “{name}” is not a page a slide can show (one of: {pages}).",
        "{where}“{name}”不是幻灯片可以显示的页面（可选：{pages}）。",
    ),
    "deck.err.slide_object": (
        "{where} must be an object with a page and its params.",
        "{where}必须是一个包含页面及其参数的对象。",
    ),
    "deck.err.slide_field": (
        "{where} has an unknown field “{field}” (allowed: page, params, title, notes).",
        "{where}有未知字段“{field}”（允许的字段：page、params、title、notes）。",
    ),
    "deck.err.slide_no_page": ("{where} names no page.", "{where}没有指明页面。"),
    "deck.err.params_object": ("{where} must be an object of URL values.", "{where}必须是由 URL 值组成的对象。"),
    "deck.err.too_many_params": (
        "{where} has {n} params; at most {most} are allowed.",
        "{where}有 {n} 个参数；最多允许 {most} 个。",
    ),
    "deck.err.param_name": (
        "{where} has a param name that is not a widget key (letters, digits, _; at most 64): “{name}”.",
        "{where}有一个参数名不是控件的键名（只能用字母、数字和 _，最多 64 个）：“{name}”。",
    ),
    "deck.err.duplicate": (
        "The field “{field}” appears twice in one object.",
        "字段“{field}”在同一个对象中出现了两次。",
    ),
    "deck.err.constant": ("{name} is not a number a deck may hold.", "{name} 不是幻灯片文件可以包含的数字。"),
    "deck.err.too_big": (
        "The file has {size:,} bytes; a deck file may have at most {most:,}.",
        "此文件有 {size:,} 字节；幻灯片文件最多只能有 {most:,} 字节。",
    ),
    "deck.err.not_utf8": (
        "The file is not UTF-8 text, so it is not a deck file (JSON).",
        "此文件不是 UTF-8 文本，因此不是幻灯片文件（JSON）。",
    ),
    "deck.err.json": (
        "The file is not valid JSON (line {line}, column {column}: {detail}).",
        "此文件不是有效的 JSON（第 {line} 行第 {column} 列：{detail}）。",
    ),
    "deck.err.nested": ("The file nests too deeply to be a deck.", "此文件嵌套过深，不可能是幻灯片文件。"),
    "deck.err.format": (
        "This is not an Attention Lab deck: its “format” must be “{format}”.",
        "这不是注意力实验室的幻灯片文件：它的“format”必须是“{format}”。",
    ),
    "deck.err.version": (
        "Deck version “{version}” is not supported; this lab reads version {supported}.",
        "不支持幻灯片文件版本“{version}”；本实验室只能读取版本 {supported}。",
    ),
    "deck.err.deck_field": ("The deck has an unknown field “{field}”.", "幻灯片文件有未知字段“{field}”。"),
    "deck.err.no_slides": (
        "The deck has no slides: “slides” must be a list of at least one slide.",
        "幻灯片组里没有幻灯片：“slides”必须是至少含一张幻灯片的列表。",
    ),
    "deck.err.too_many_slides": (
        "The deck has {n} slides; at most {most} are allowed.",
        "幻灯片组有 {n} 张幻灯片；最多允许 {most} 张。",
    ),
    # the Present page
    "present.intro": (
        "Show views of any page as slides, one at a time and full screen. **←/→** or **PageUp/PageDown** "
        "(a presenter's clicker) walk through each slide's steps and on to the next slide; **.** or **B** "
        "(a clicker's third button) skips to the next slide; **N** shows your speaker notes, **H** hides "
        "what comes after the step; **Esc** ends. On this overview, **PageDown** or **F5** starts. "
        "Everything runs offline.",
        "把任意页面的视图作为幻灯片逐张全屏显示。**←/→** 或 **PageUp/PageDown**（翻页笔）逐步走过每张"
        "幻灯片的步骤，再进入下一张；**.** 或 **B**（翻页笔的第三个键）直接跳到下一张；**N** 显示演讲备注，"
        "**H** 隐藏当前步之后的内容；**Esc** 结束。在本概览页按 **PageDown** 或 **F5** 开始演示。全部离线运行。",
    ),
    "present.deck": ("Deck", "幻灯片组"),
    "present.deck.session": (
        "Your deck (views added with “Add this view to the deck”)",
        "你的幻灯片（用“将此视图加入幻灯片”添加的视图）",
    ),
    "present.deck.upload": ("Upload a deck file", "上传幻灯片文件"),
    "present.my_deck": ("My deck", "我的幻灯片"),
    "present.untitled": ("Untitled deck", "未命名的幻灯片组"),
    "present.url.deck": ("deck", "幻灯片组"),
    "present.url.slide": ("slide number", "幻灯片编号"),
    "present.url.slide_first": ("slide 1", "第 1 张幻灯片"),
    "present.upload": ("Deck file (JSON, saved here with “Download deck”)", "幻灯片文件（JSON，由“下载幻灯片”保存）"),
    "present.bad_file": ("This file cannot be used as a deck: {reason}", "此文件不能用作幻灯片组：{reason}"),
    "present.nothing_linked": (
        "This deck is empty in this session, so there is nothing to present yet.",
        "本次会话中这组幻灯片是空的，因此还没有可演示的内容。",
    ),
    "present.no_slides": (
        "No slides yet. Open any page, set it up as you want to show it, and press **Add this view to "
        "the deck** in the sidebar: the page, its input and every setting, the step included, become "
        "a slide.",
        "还没有幻灯片。打开任意页面，按你想展示的样子设置好，然后在侧边栏点击**将此视图加入幻灯片**："
        "该页面、它的输入和所有设置（包括当前步骤）就成为一张幻灯片。",
    ),
    "present.choose_file": ("Choose a deck file to upload.", "请选择要上传的幻灯片文件。"),
    "present.present": ("Present", "开始演示"),
    "present.download": ("Deck file", "幻灯片文件"),
    "present.download_help": (
        "Download this deck as a small JSON file, to upload here or on another server.",
        "把这组幻灯片下载为小的 JSON 文件，可在此处或其他服务器上上传。",
    ),
    "present.col.slide": ("slide", "幻灯片"),
    "present.col.page": ("page", "页面"),
    "present.col.title": ("title", "标题"),
    "present.col.settings": ("settings", "设置"),
    "present.col.notes": ("speaker notes", "演讲备注"),
    "present.col.notes_help": ("Shown while presenting only when you press N.", "演示时仅在按下 N 键后显示。"),
    "present.col.slide_help": (
        "Type another number to move the slide there.",
        "输入另一个编号即可把幻灯片移到该位置。",
    ),
    "present.col.remove": ("remove", "删除"),
    "present.clear": ("Remove all", "全部删除"),
    "present.copy": ("Edit a copy", "编辑副本"),
    "present.copy_help": (
        "Makes this deck your own deck: titles, order and notes can then be changed.",
        "把这组幻灯片复制为你自己的幻灯片组，之后可以修改标题、顺序和备注。",
    ),
    "present.present_help": (
        "Starts the deck. A clicker starts it too: its “next” (PageDown) or “present” (F5) button.",
        "开始演示。翻页笔也可以开始演示：按它的“下一页”（PageDown）或“放映”（F5）键。",
    ),
    "present.handout": ("Handout", "讲义"),
    "present.handout_help": (
        "One offline HTML page with every slide's figure, title and notes.",
        "一个离线 HTML 页面，包含每张幻灯片的图、标题和备注。",
    ),
    "present.handout_make": ("Make the handout of all {n} slides", "生成全部 {n} 张幻灯片的讲义"),
    "present.handout_making": ("Drawing every slide…", "正在绘制每张幻灯片……"),
    "present.handout_download": ("Download the handout (HTML)", "下载讲义（HTML）"),
    "slide.skip": ("Next slide", "下一张幻灯片"),
    "slide.notes": ("Speaker notes", "演讲备注"),
    "slide.hide": ("Hide what comes next", "隐藏后续内容"),
    # presenting (ui/slides.py)
    "slide.prev_help": ("Previous step or slide (←, PageUp)", "上一步或上一张（←、PageUp）"),
    "slide.next_help": ("Next step or slide (→, PageDown)", "下一步或下一张（→、PageDown）"),
    "slide.end_help": ("End the presentation (Esc)", "结束演示（Esc）"),
    "slide.step": ("step {t} / {n}", "第 {t} / {n} 步"),
    "slide.refused": (
        "This slide's {what} “{raw}” is not available here, so it shows {instead}.",
        "这张幻灯片的{what}“{raw}”在此不可用，因此显示{instead}。",
    ),
    "slide.default": ("the page's default", "页面的默认值"),
    "slide.first_chars": ("its first {n:,} characters", "其前 {n:,} 个字符"),
    "slide.other_topic": (
        "A slide of this page shows “{shown}”; the topic “{raw}” is on the page itself.",
        "本页面的幻灯片显示“{shown}”；主题“{raw}”请在页面中查看。",
    ),
    "slide.no_renderer": (
        "The page “{page}” cannot be shown as a slide yet.",
        "页面“{page}”暂时还不能作为幻灯片显示。",
    ),
    "slide.no_models": (
        "No checkpoints of this kind are installed in checkpoints/.",
        "checkpoints/ 中没有安装这类模型检查点。",
    ),
    "slide.s2s.none": (
        "No attention: only the encoder's final state. Top-{k} next tokens at step {step}",
        "无注意力：只有编码器的最终状态。第 {step} 步的前 {k} 个候选词元",
    ),
    "slide.gen.samples": ("samples “{token}” (p = {p:.1%})", "采样得到“{token}”（p = {p:.1%}）"),
    "slide.bert.none": (
        "No piece was chosen in this draw: pick another seed for this slide.",
        "这次抽取没有选中任何子词：请为这张幻灯片换一个随机种子。",
    ),
    "slide.bert.typed": ("What BERT predicts at the [MASK]s typed in the text", "BERT 在文本中输入的 [MASK] 处的预测"),
    "slide.bert.seed": ("seed {seed}", "随机种子 {seed}"),
    "slide.bert.finetune": (
        "test: fine-tuned (§4) {all:.1%} · frozen, head only (§5.3) {frozen:.1%} · {n} items",
        "测试集：全部微调（§4）{all:.1%} · 冻结、只训练输出头（§5.3）{frozen:.1%} · {n} 项",
    ),
    "slide.bert.title": (
        "What BERT predicts where pieces were masked: {hits} of {n} right at top-1 (green: the original)",
        "BERT 在掩码位置的预测：{n} 个中 {hits} 个 top-1 正确（绿色：原来的子词）",
    ),
    "slide.real.tokens": ("{n} tokens", "{n} 个词元"),
    "slide.what.d_model": ("d_model", "d_model"),
    "slide.what.length": ("sequence length", "序列长度"),
    "slide.what.n_train": ("number of training points", "训练点数"),
    "slide.what.noise": ("noise", "噪声"),
    "slide.what.bandwidth": ("bandwidth", "带宽"),
    "slide.what.steps": ("number of SGD steps", "SGD 步数"),
    "slide.what.lr": ("learning rate", "学习率"),
    "slide.what.step": ("step", "步"),
    "slide.what.layer": ("encoder layer", "编码器层"),
    "slide.what.top_k": ("top-k", "top-k"),
}
SAME = frozenset({"slide.what.d_model", "slide.what.top_k"})
