"""Spinners and server messages shared by the pages (ui.i18n.spinning, ui/work_queue.py): id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "spin.model": ("Loading model …", "正在加载模型 …"),
    "spin.tf_en_fr": ("Loading tf-en-fr …", "正在加载 tf-en-fr …"),
    "spin.bert": ("Loading the small BERT …", "正在加载小型 BERT …"),
    "spin.translate": ("Translating …", "正在翻译 …"),
    "spin.what_if": ("Decoding the what-if …", "正在解码假设情形 …"),
    "spin.generate": ("Generating …", "正在生成 …"),
    "spin.compute": ("Computing …", "正在计算 …"),
    "spin.ablation": ("Decoding with the head switched off …", "正在关闭这个头后解码 …"),
    "spin.pairs": ("Drawing sentence pairs …", "正在抽取句对 …"),
    "spin.run": ("Running the model …", "正在运行模型 …"),
    "queue.waiting": (
        "{what}: waiting: {ahead} ahead (one heavy request runs at a time on this server).",
        "{what}：排队中，前面还有 {ahead} 个（本服务器一次只运行一个繁重请求）。",
    ),
    "queue.full": (
        "{what}: the server is busy with other heavy requests ({waiting} already waiting). Try again in a minute.",
        "{what}：服务器正忙于其他繁重请求（已有 {waiting} 个在等待）。请一分钟后再试。",
    ),
    # model messages: models.inference.common.InputError's ``key`` (ui.tokens.input_error); the English is
    # the exception's own text, tests/test_model_messages.py checks that they match
    "err.nothing_to_translate": (
        "There is nothing to translate: type an English sentence.",
        "没有可翻译的内容：请输入一个英语句子。",
    ),
    "err.nothing_to_translate_zh": (
        "There is nothing to translate: type a Chinese sentence.",
        "没有可翻译的内容：请输入一个中文句子。",
    ),
    "err.nothing_to_read_digits": (
        "There is nothing to read: type a few digits separated by spaces, e.g. 3 1 4 1 5.",
        "没有可读的内容：请输入几个用空格分隔的数字，例如 3 1 4 1 5。",
    ),
    "err.symbols": (
        "The {task} model reads the symbols {symbols} separated by spaces; “{shown}” is not one of them.",
        "{task} 模型读取用空格分隔的符号 {symbols}；“{shown}”不在其中。",
    ),
    "err.beam": ("The beam width must be between 1 and {max}.", "束宽必须在 1 到 {max} 之间。"),
    "err.alpha": ("The length penalty α must be between 0 and {max:g}.", "长度惩罚 α 必须在 0 到 {max:g} 之间。"),
    "err.hard_needs_attention": ("Hard attention needs a model with attention.", "硬注意力需要一个带注意力的模型。"),
    "err.max_new": ("The number of new tokens must be between 1 and {max}.", "新词元的数量必须在 1 到 {max} 之间。"),
    "err.temperature": ("The temperature must be between 0 and {max:g}.", "温度必须在 0 到 {max:g} 之间。"),
    "err.top_k": (
        "top-k must be between 1 and {max} (or left out for no limit).",
        "top-k 必须在 1 到 {max} 之间（不填则不限制）。",
    ),
    "err.one_token": (
        "Type one output token: a single word or punctuation mark (or </s> to stop here).",
        "请输入一个输出词元：一个词或一个标点符号（或用 </s> 在此结束）。",
    ),
    "err.one_token_many": (
        "Type one output token: a single word or punctuation mark (or </s> to stop here); "
        "“{typed}” reads as {n} tokens.",
        "请输入一个输出词元：一个词或一个标点符号（或用 </s> 在此结束）；“{typed}”会被读成 {n} 个词元。",
    ),
    "err.never_output": (
        "“{token}” cannot be forced: the start and padding symbols are never outputs.",
        "“{token}”不能被强制：起始符号和填充符号从来不是输出。",
    ),
    "err.not_in_vocab": (
        "“{shown}” is not in this model's output vocabulary ({n:,} words), so it cannot be forced "
        "(it is not mapped to <unk>).",
        "“{shown}”不在这个模型的输出词表中（共 {n:,} 个词），所以不能被强制（它不会被映射为 <unk>）。",
    ),
    "err.not_in_vocab_close": (
        "“{shown}” is not in this model's output vocabulary ({n:,} words), so it cannot be "
        "forced (it is not mapped to <unk>). Close words it knows: {close}.",
        "“{shown}”不在这个模型的输出词表中（共 {n:,} 个词），所以不能被强制（它不会被映射为 "
        "<unk>）。它认识的相近词：{close}。",
    ),
    "err.no_step": (
        "Step {step} is not a step of this output ({n} tokens).",
        "第 {step} 步不是这个输出中的一步（共 {n} 个词元）。",
    ),
    "err.attention_kind": (
        "Pick the encoder self-, decoder self- or cross-attention, not “{attention}”.",
        "请选择编码器自注意力、解码器自注意力或交叉注意力，而不是“{attention}”。",
    ),
    "err.no_head": ("This model has no such head: {reason}.", "这个模型没有这个头：{reason}。"),
    "err.unknown_attention": ("unknown attention {attention}", "未知的注意力类型 {attention}"),
    # the Q/K/V sandbox (models.lessons.sandbox)
    "err.sb.empty": ("{name} is empty: type at least one row of numbers.", "{name} 是空的：请至少输入一行数字。"),
    "err.sb.rows": ("{name} has {n} rows; at most {max} are allowed.", "{name} 有 {n} 行；最多允许 {max} 行。"),
    "err.sb.cols": (
        "{name}, row {r} has {n} numbers; at most {max} columns are allowed.",
        "{name} 第 {r} 行有 {n} 个数；最多允许 {max} 列。",
    ),
    "err.sb.cols.one": (
        "{name}, row {r} has {n} number; at most {max} columns are allowed.",
        "{name} 第 {r} 行有 {n} 个数；最多允许 {max} 列。",
    ),
    "err.sb.not_number": (
        "{name}, row {r}, column {c}: {token} is not a number.",
        "{name} 第 {r} 行第 {c} 列：{token} 不是数字。",
    ),
    "err.sb.not_finite": (
        "{name}, row {r}, column {c}: {token} is not a finite number; use numbers between −{max:g} and {max:g}.",
        "{name} 第 {r} 行第 {c} 列：{token} 不是有限数；请使用 −{max:g} 到 {max:g} 之间的数。",
    ),
    "err.sb.range": (
        "{name}, row {r}, column {c}: {value:g} is out of range; use numbers between −{max:g} and {max:g}.",
        "{name} 第 {r} 行第 {c} 列：{value:g} 超出范围；请使用 −{max:g} 到 {max:g} 之间的数。",
    ),
    "err.sb.ragged": (
        "{name}, row {r} has {n} numbers but row 1 has {first}; every row needs the same count.",
        "{name} 第 {r} 行有 {n} 个数，但第 1 行有 {first} 个；每行的个数必须相同。",
    ),
    "err.sb.ragged.one": (
        "{name}, row {r} has {n} number but row 1 has {first}; every row needs the same count.",
        "{name} 第 {r} 行有 {n} 个数，但第 1 行有 {first} 个；每行的个数必须相同。",
    ),
    "err.sb.padding": (
        "padding must hide between 0 and {most} of the {n} keys: at least one key has to stay visible.",
        "填充必须遮住 {n} 个键中的 0 到 {most} 个：至少要有一个键保持可见。",
    ),
    "err.sb.qk_width": (
        "Q has {q} columns but K has {k}: queries and keys need the same width d_k.",
        "Q 有 {q} 列而 K 有 {k} 列：查询和键需要相同的宽度 d_k。",
    ),
    "err.sb.kv_rows": (
        "K has {k} rows but V has {v}: every key needs exactly one value row.",
        "K 有 {k} 行而 V 有 {v} 行：每个键需要恰好一行值。",
    ),
    # models.inference.model_access / hf_adapter: ModelAccessError and ModelDirError (models.errors.KeyedError);
    # REFUSED and OFF are real_model.access.*
    "access.invalid_file": (
        "Model folders are unavailable: the server's config file is invalid (see the README, 'Local model folders').",
        "模型文件夹不可用：服务器的配置文件无效（见 README 的“Local model folders”一节）。",
    ),
    "access.invalid_setting": (
        "Model folders are unavailable: the server's model_folders.{setting} setting is invalid "
        "(see the README, 'Local model folders').",
        "模型文件夹不可用：服务器的 model_folders.{setting} 设置无效（见 README 的“Local model folders”一节）。",
    ),
    "access.bad_size": (
        "config.json has an unusable {name}: it must be a whole number from 1 to {max:,}",
        "config.json 中的 {name} 不可用：它必须是 1 到 {max:,} 之间的整数",
    ),
    "access.no_size": (
        "config.json does not give the model's size ({first} or {second})",
        "config.json 没有给出模型的大小（{first} 或 {second}）",
    ),
    "access.json_large": ("{name} is larger than {mb} MB", "{name} 大于 {mb} MB"),
    "access.bad_json": ("{name} is not valid JSON ({error})", "{name} 不是有效的 JSON（{error}）"),
    "access.many_files": ("this folder holds more than {max:,} files", "这个文件夹中的文件超过 {max:,} 个"),
    "access.link_out": (
        "a file in this folder links outside the allowed model folders",
        "这个文件夹中有文件链接到允许的模型文件夹之外",
    ),
    "access.too_large": (
        "the folder's files are larger than this server's cap of {gb:,.2f} GB",
        "这个文件夹的文件总大小超过本服务器的上限 {gb:,.2f} GB",
    ),
    "access.unreadable": ("this folder cannot be read ({error})", "无法读取这个文件夹（{error}）"),
    "access.not_object": ("config.json is not a JSON object", "config.json 不是一个 JSON 对象"),
    "access.too_many_params": (
        "config.json describes about {n:words} parameters, more than this server's cap of {cap:words}",
        "按 config.json，这个模型约有 {n:,} 个参数，超过本服务器的上限 {cap:,} 个",
    ),
    "access.many_maps": (
        "config.json describes {maps:,} attention maps (layers × heads), more than {max:,}",
        "按 config.json，这个模型有 {maps:,} 张注意力图（层数 × 头数），超过 {max:,} 张",
    ),
    "access.shard_out": ("{name} names files outside the folder", "{name} 列出了这个文件夹之外的文件"),
    "access.no_default": ("the default model is not installed: {command}", "默认模型没有安装：{command}"),
    "access.no_dir": (
        "no directory given: type the path of a local model folder",
        "没有给出目录：请输入一个本地模型文件夹的路径",
    ),
    "access.bad_path": ("that is not a usable path", "这不是一个可用的路径"),
    "access.path_unreadable": ("cannot read the path: {error}", "无法读取这个路径：{error}"),
    "access.no_path": ("the path does not exist", "这个路径不存在"),
    "access.is_file": ("the path is a file, not a model directory", "这个路径是一个文件，不是模型目录"),
    "access.no_config": (
        "this folder is not a model directory: it has no config.json",
        "这个文件夹不是模型目录：其中没有 config.json",
    ),
    "access.no_model_type": (
        "config.json is not a Hugging Face model config (no model_type)",
        "config.json 不是 Hugging Face 模型配置（没有 model_type）",
    ),
    "access.no_weights": (
        "this folder has a config but no weights (model.safetensors or pytorch_model.bin)",
        "这个文件夹有配置但没有权重（model.safetensors 或 pytorch_model.bin）",
    ),
    "access.no_tokenizer": (
        "this folder has no tokenizer files (tokenizer.json or vocab.txt)",
        "这个文件夹没有分词器文件（tokenizer.json 或 vocab.txt）",
    ),
    "access.no_transformers": ("transformers is not installed: {command}", "没有安装 transformers：{command}"),
    "access.failed_config": ("cannot read the config: {detail}", "无法读取配置：{detail}"),
    "access.failed_tokenizer": ("cannot load the tokenizer: {detail}", "无法加载分词器：{detail}"),
    "access.failed_model": ("cannot load the model: {detail}", "无法加载模型：{detail}"),
    "access.no_attention": (
        "this model returned no attention weights (eager attention is not supported)",
        "这个模型没有给出注意力权重（它不支持 eager 注意力）",
    ),
    # models.inference.llm: LLMError (models.errors.KeyedError)
    "llm.no_package": ("the model package is not installed: {command}", "模型软件包没有安装：{command}"),
    "llm.no_gguf": ("the package {package} has no {file}", "软件包 {package} 中没有 {file}"),
    "llm.not_converted": ("the model is not converted yet: run {command}", "模型还没有转换：请运行 {command}"),
}

SAME: frozenset[str] = frozenset()
