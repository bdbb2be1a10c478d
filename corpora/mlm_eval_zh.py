"""A held-out set of 100 simple everyday Chinese sentences for masked-LM evaluation, written for this
project (never trained on: :func:`is_held_out` drops any training sentence that contains one of them, or
that one of them contains, compared without punctuation or spaces: substrings, not whole sentences).

Each sentence hides one character, written in braces; a person would guess it from the rest (北京是中国的
{首}都。). :func:`masked_items` turns them into ``("…[MASK]…", "字")`` pairs; top-k accuracy is the share of
sentences whose hidden character is among a model's k most probable pieces at [MASK]
(``python -m bench.mlm_everyday --lang zh``).
"""

from __future__ import annotations

import functools
import re

__all__ = ["SENTENCES", "masked_items", "is_held_out"]

MASK_TOKEN = "[MASK]"

SENTENCES: tuple[str, ...] = (
    "北京是中国的{首}都。",
    "我每天早上刷{牙}。",
    "她上班前喝一杯咖{啡}。",
    "太阳从东{边}升起来。",
    "我们去海边游{泳}。",
    "我弟弟今年十{岁}了。",
    "出门的时候请关{门}。",
    "他吃早饭的时候看报{纸}。",
    "冬天非常{冷}。",
    "我要用笔写一封{信}。",
    "猫坐在椅子{上}。",
    "他们在电影{院}看电影。",
    "妈妈在厨房做晚{饭}。",
    "孩子们在公{园}里玩。",
    "吃饭以前我先洗{手}。",
    "火车晚上六点出{发}。",
    "一个星期有七{天}。",
    "他上个月买了一辆新{车}。",
    "今天的天空很{蓝}。",
    "我很{饿}，我们吃饭吧。",
    "爸爸每天坐公共汽{车}上班。",
    "小鸟在天上{飞}。",
    "她钢{琴}弹得很好。",
    "睡觉以前请关{灯}。",
    "医生在医{院}工作。",
    "我有一个哥哥和一个{妹}妹。",
    "下雨了，带上雨{伞}吧。",
    "图书馆里有很多{书}。",
    "她正在给朋友打电{话}。",
    "星期一的前一天是星期{天}。",
    "我忘了带钥{匙}，开不了门。",
    "我们吃蛋{糕}过生日。",
    "请问最近的地铁{站}在哪儿？",
    "这个苹果很{甜}。",
    "我每天晚上十点睡{觉}。",
    "他在学{校}学习中文。",
    "老师在黑板上写{字}。",
    "我的手机没{电}了。",
    "夏天天气很{热}。",
    "我们坐飞{机}去上海。",
    "这件衣服太贵了，我不{买}了。",
    "我想喝一杯{茶}。",
    "周末我们去超{市}买东西。",
    "她的生日是五月三{号}。",
    "我的朋友住在我家旁{边}。",
    "他跑得很{快}。",
    "你叫什么名{字}？",
    "我们明天早上八点见{面}。",
    "孩子在床上睡{着}了。",
    "这道菜太{辣}了。",
    "我每天喝八杯{水}。",
    "他感冒了，今天不能去上{班}。",
    "请把窗户打{开}。",
    "我的房间在二{楼}。",
    "春天到了，花都{开}了。",
    "秋天树叶变{黄}了。",
    "她是我最好的朋{友}。",
    "我不会说日{语}。",
    "这家餐厅的菜很好{吃}。",
    "他每天早上跑{步}。",
    "我们一起去看足{球}比赛吧。",
    "明天会下{雨}吗？",
    "你会开{车}吗？",
    "我的钱包{丢}了。",
    "这个问题太{难}了。",
    "时间不早了，我们回{家}吧。",
    "我在商店买了一双{鞋}。",
    "她戴着一顶红色的帽{子}。",
    "牛奶在冰{箱}里。",
    "我们用筷{子}吃饭。",
    "医生让我多休{息}。",
    "一年有十二个{月}。",
    "今天是我妈妈的生{日}。",
    "他的汉语说得非常{好}。",
    "这个城市有很多{人}。",
    "出租{车}在门口等我们。",
    "爷爷每天下午在公园散{步}。",
    "这本书我已经看{完}了。",
    "你几点下{课}？",
    "我们家养了一只小{狗}。",
    "小猫喜欢吃{鱼}。",
    "他考试考得很好，非常高{兴}。",
    "请你说慢一{点}。",
    "我没听{懂}你的话。",
    "冬天晚上天{黑}得很早。",
    "河里有很多小{鱼}。",
    "她每天坐地{铁}上学。",
    "我们在饭{馆}吃午饭。",
    "我家有四口{人}。",
    "他每个周末都去游泳{池}游泳。",
    "吃完饭要洗{碗}。",
    "外面太冷了，多穿一件衣{服}。",
    "新年快{乐}！",
    "谢谢你的帮{助}。",
    "对不{起}，我来晚了。",
    "我想去银{行}取钱。",
    "他在邮{局}寄了一封信。",
    "这条裤{子}有点儿长。",
    "我们坐船过{河}。",
    "妹妹在房间里画{画}。",
)

_BRACED = re.compile(r"\{([^{}]+)\}")
_NOT_TEXT = re.compile(r"[\W_]+")  # punctuation and spaces, Chinese and Latin


@functools.lru_cache(maxsize=1)
def masked_items() -> tuple[tuple[str, str], ...]:
    """("sentence with [MASK]", hidden character) for every sentence; one brace pair of one character each."""
    items = []
    for sentence in SENTENCES:
        hidden = _BRACED.findall(sentence)
        if len(hidden) != 1 or len(hidden[0]) != 1:
            raise ValueError(f"expected one {{character}} in {sentence!r}")
        items.append((_BRACED.sub(MASK_TOKEN, sentence), hidden[0]))
    return tuple(items)


def _core(text: str) -> str:
    return _NOT_TEXT.sub("", text.lower())


@functools.lru_cache(maxsize=1)
def _held_out_cores() -> tuple[str, ...]:
    return tuple(_core(_BRACED.sub(r"\1", s)) for s in SENTENCES)


def is_held_out(text: str) -> bool:
    """True when ``text`` contains one of the evaluation sentences or is part of one (without punctuation
    and spaces): such a text is never trained on."""
    core = _core(text)
    return bool(core) and any(held in core or core in held for held in _held_out_cores())
