"""Strings of the quiz, "predict, then reveal" (ui/quiz.py), on pages 2, 4, 6 and 7: id → (English, 中文)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "quiz.toggle": ("Quiz: predict, then reveal", "测验：先预测，再揭晓"),
    "quiz.toggle_help": (
        "Each step stays hidden until you guess what the model does there; then you see its answer "
        "and your running score.",
        "每一步在你猜出模型会怎么做之前都保持隐藏；猜完后显示模型的答案和你的累计得分。",
    ),
    "quiz.kind": ("Guess", "猜测"),
    "quiz.kind.look": ("Where it looks", "关注哪里"),
    "quiz.kind.write": ("What it writes", "输出什么"),
    "quiz.ask.look": (
        "**Step {step}:** which source word gets the largest attention weight α? Click your guess.",
        "**第 {step} 步：**哪个源词得到最大的注意力权重 α？点击你的猜测。",
    ),
    "quiz.ask.write": (
        "**Step {step}:** which token will the model emit? Click your guess.",
        "**第 {step} 步：**模型会输出哪个词元？点击你的猜测。",
    ),
    "quiz.ask.masked": (
        "**Masked piece {i} of {n}:** position {pos} reads [MASK]. Which piece was there?",
        "**第 {i} 个被掩码的子词，共 {n} 个：**位置 {pos} 读作 [MASK]。原来是哪个子词？",
    ),
    "quiz.pick": ("Your guess", "你的猜测"),
    "quiz.type": ("… or type the piece (Enter)", "……或输入这个子词（回车）"),
    "quiz.right": ("Right!", "答对了！"),
    "quiz.wrong": ("Not this time.", "这次没猜中。"),
    "quiz.answer.look": (
        "The largest attention weight goes to “{answer}” (α = {weight:.2f}).",
        "最大的注意力权重落在“{answer}”上（α = {weight:.2f}）。",
    ),
    "quiz.answer.write": (
        "The model emitted “{answer}” (p = {weight:.1%}).",
        "模型输出了“{answer}”（p = {weight:.1%}）。",
    ),
    "quiz.answer.write_out": (
        "The model emitted “{answer}”, outside its top-{n}.",
        "模型输出了“{answer}”，它不在前 {n} 名中。",
    ),
    "quiz.answer.masked": ("The piece was “{answer}”.", "原来的子词是“{answer}”。"),
    "quiz.guess.look": (
        "Your “{guess}” got α = {weight:.2f}, rank {rank} of {n} source words.",
        "你猜的“{guess}”得到 α = {weight:.2f}，在 {n} 个源词中排第 {rank}。",
    ),
    "quiz.guess.p": (
        "The model gave your “{guess}” p = {weight:.1%}, rank {rank} of its top-{n}.",
        "模型给你猜的“{guess}”的概率是 p = {weight:.1%}，在它的前 {n} 名中排第 {rank}。",
    ),
    "quiz.guess.out": ("Your “{guess}” is not among the model's top-{n}.", "你猜的“{guess}”不在模型的前 {n} 名中。"),
    "quiz.top": (
        "The model's own top-1 was “{top}” (p = {weight:.1%}).",
        "模型自己的第 1 名是“{top}”（p = {weight:.1%}）。",
    ),
    "quiz.top.masked": (
        "The model's top-1 is “{top}” (p = {weight:.1%}): {verdict}",
        "模型的第 1 名是“{top}”（p = {weight:.1%}）：{verdict}",
    ),
    "quiz.model_right": ("the model got it right.", "模型猜对了。"),
    "quiz.model_wrong": ("the model got it wrong.", "模型猜错了。"),
    "quiz.score": ("Score: {right} of {total} right", "得分：{total} 题中答对 {right} 题"),
    "quiz.reset": ("Reset score", "重置得分"),
    "quiz.reset_help": ("Start counting again; every step asks again.", "重新计分；每一步都会重新提问。"),
    "quiz.hidden": ("Hidden until you guess: the rest of this step.", "猜测之前隐藏：这一步的其余内容。"),
    "quiz.no_compare": (
        "The quiz plays on one model: choose no comparison model to play.",
        "测验只针对一个模型：不选对比模型即可开始。",
    ),
    "quiz.no_attention": ("This model has no attention: guess what it writes.", "这个模型没有注意力：请猜它输出什么。"),
    "quiz.all_done": (
        "Every masked piece is guessed: the predictions are shown.",
        "每个被掩码的子词都已猜过：下面显示模型的预测。",
    ),
}
SAME: frozenset[str] = frozenset()
