"""Predict, then reveal: the quiz shared by the decoding pages (2, 4, 6) and BERT masking (7).

With the quiz on, a step's answer stays hidden until the student commits a guess: the source word
with the largest attention weight α_t (argmax_j α_tj), the token the model emits at step t, or on
BERT the original piece under a [MASK]. The reveal says right or wrong, the model's answer, where
the guess ranked by the model's own numbers (its α, or its probability p), and a running score kept
in session state per page. The judging (:func:`judge_look`, :func:`judge_write`,
:func:`judge_masked`) and the row hiding (:func:`hide_rows`) are pure and need no Streamlit run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import streamlit as st

from ui.i18n import Labels, tr
from ui.state import checked, linked
from ui.tokens import md_escape

if TYPE_CHECKING:
    from viz_core.bert import PredictionRow

QUESTIONS = Labels({"look": "quiz.kind.look", "write": "quiz.kind.write"})
HIDDEN = "?"  # the label of a row that is not shown yet


@dataclass(frozen=True)
class Verdict:
    """One judged guess. ``guess_weight``: the α or p the model gave the guess (None: outside its
    candidates); ``rank``: the guess's 1-based rank among ``of`` candidates by that weight;
    ``top``/``top_weight``: the model's own top-1 where it can differ from the answer."""

    question: str  # "look", "write" or "masked"
    right: bool
    guess: str
    answer: str
    answer_weight: float | None
    guess_weight: float | None
    rank: int | None
    of: int
    top: str | None = None
    top_weight: float | None = None


def rank_of(weights: Sequence[float], i: int) -> int:
    """1 + the number of candidates the model weighted strictly above candidate ``i`` (ties share a rank)."""
    w = np.asarray(weights, dtype=float)
    return 1 + int((w > w[i]).sum())


def judge_look(guess: int, alpha: Sequence[float], src_tokens: Sequence[str]) -> Verdict:
    """A guessed source position against α_t: right when it holds the largest weight (argmax_j α_tj;
    with a tie at the top, any of the tied positions is right)."""
    a = np.asarray(alpha, dtype=float)
    best = int(a.argmax())
    return Verdict(
        "look",
        bool(a[guess] >= a[best]),
        src_tokens[guess],
        src_tokens[best],
        float(a[best]),
        float(a[guess]),
        rank_of(a, guess),
        len(a),
    )


def _in_candidates(
    guess: str, candidates: Sequence[str], probs: Sequence[float], same: Callable[[str, str], bool]
) -> tuple[float | None, int | None]:
    """(p, rank) of ``guess`` among the model's top-k ``candidates``, or (None, None)."""
    for i, c in enumerate(candidates):
        if same(guess, c):
            return float(probs[i]), rank_of(probs, i)
    return None, None


def judge_write(
    guess: str, emitted: str, candidates: Sequence[str], probs: Sequence[float], emitted_prob: float | None = None
) -> Verdict:
    """A guessed output token: right when it is the emitted token (greedy: the argmax of p; beam or
    sampling: the token the model actually wrote). ``emitted_prob``: p of the emitted token when
    it may lie outside the top-k ``candidates``."""
    same = str.__eq__
    p_emitted = _in_candidates(emitted, candidates, probs, same)[0]
    p_guess, rank = _in_candidates(guess, candidates, probs, same)
    if p_guess is None and guess == emitted:
        p_guess = emitted_prob
    top = int(np.argmax(probs)) if len(candidates) else None
    return Verdict(
        "write",
        guess == emitted,
        guess,
        emitted,
        p_emitted if p_emitted is not None else emitted_prob,
        p_guess,
        rank,
        len(candidates),
        candidates[top] if top is not None and candidates[top] != emitted else None,
        float(probs[top]) if top is not None and candidates[top] != emitted else None,
    )


def same_piece(a: str, b: str) -> bool:
    """The same WordPiece, typed loosely: case, surrounding spaces and the ``##`` prefix aside
    (the small BERT's vocabulary is lowercased)."""

    def norm(s: str) -> str:
        s = s.strip().lower()
        return s[2:] if s.startswith("##") else s

    return norm(a) == norm(b)


def judge_masked(
    guess: str,
    original: str,
    original_prob: float,
    original_rank: int,
    candidates: Sequence[str],
    probs: Sequence[float],
) -> Verdict:
    """A guessed piece under [MASK]: right when it is the original piece (:func:`same_piece`); the
    reveal also gives the model's top-1 and whether that is the original (MLM top-1 accuracy)."""
    right = same_piece(guess, original)
    if right:
        p_guess, rank = original_prob, original_rank + 1
    else:
        p_guess, rank = _in_candidates(guess, candidates, probs, same_piece)
    top = int(np.argmax(probs))
    return Verdict(
        "masked",
        right,
        guess.strip(),
        original,
        original_prob,
        p_guess,
        rank,
        len(candidates),
        candidates[top],
        float(probs[top]),
    )


def answer_options(candidates: Sequence[str], answer: str) -> list[str]:
    """The pills of a token guess: the model's top-k and the right answer, in alphabetical order
    (an order by probability would give the answer away)."""
    return sorted(set(candidates) | {answer}, key=lambda s: (s.lower(), s))


def hide_rows(weights: np.ndarray, tokens: Sequence[str], shown: int) -> tuple[np.ndarray, list[str]]:
    """Attention with query rows ``shown``… blanked (NaN along the second-last axis, so a heatmap
    leaves them empty) and their labels "?": the steps the student has not guessed yet."""
    w = np.array(weights, dtype=float)
    w[..., shown:, :] = np.nan
    return w, [*tokens[:shown], *[HIDDEN] * max(0, len(tokens) - shown)]


# --------------------------------------------------------------------------------------
# Widgets
# --------------------------------------------------------------------------------------


def _board(page: str) -> dict[str, Verdict]:
    """This page's answered questions (question id → verdict), kept for the session."""
    return st.session_state.setdefault(f"_quiz_{page}", {})


def _question_id(origin: Hashable, question: str, where: int) -> str:
    return hashlib.sha1(repr((origin, question, where)).encode()).hexdigest()[:12]


def _record(page: str, qid: str, widget: str, judge: Callable[[Any], Verdict]) -> None:
    """Widget callback: judge the committed guess once (a later change does not re-score)."""
    value = st.session_state.get(widget)
    value = value.strip() if isinstance(value, str) else value
    if value is not None and value != "":
        _board(page).setdefault(qid, judge(value))


def _reset(page: str) -> None:
    _board(page).clear()


def quiz_toggle(page: str) -> bool:
    """The toggle "Quiz: predict, then reveal", kept in the URL as ``?{page}_quiz=true``."""
    return checked(st.toggle, tr("quiz.toggle"), key=f"{page}_quiz", help=tr("quiz.toggle_help"), bind="query-params")


def score_line(page: str) -> None:
    """The running score of this page and its reset button."""
    board = _board(page)
    with st.container(horizontal=True, vertical_alignment="center"):
        st.markdown(tr("quiz.score", right=sum(v.right for v in board.values()), total=len(board)))
        st.button(
            tr("quiz.reset"),
            key=f"{page}_quiz_reset",
            on_click=_reset,
            args=(page,),
            type="tertiary",
            icon=":material/restart_alt:",
            help=tr("quiz.reset_help"),
        )


def reveal(v: Verdict) -> None:
    """Right or wrong, the model's answer and where the guess ranked, in the model's own numbers."""
    guess, answer = md_escape(v.guess), md_escape(v.answer)
    lines = [tr("quiz.right" if v.right else "quiz.wrong")]
    if v.question == "look":
        lines.append(tr("quiz.answer.look", answer=answer, weight=v.answer_weight))
        if not v.right:
            lines.append(tr("quiz.guess.look", guess=guess, weight=v.guess_weight, rank=v.rank, n=v.of))
    else:
        lines.append(
            tr("quiz.answer.masked", answer=answer)
            if v.question == "masked"
            else tr("quiz.answer.write_out", answer=answer, n=v.of)
            if v.answer_weight is None
            else tr("quiz.answer.write", answer=answer, weight=v.answer_weight)
        )
        if not v.right:
            lines.append(
                tr("quiz.guess.out", guess=guess, n=v.of)
                if v.guess_weight is None or v.rank is None
                else tr("quiz.guess.p", guess=guess, weight=v.guess_weight, rank=v.rank, n=v.of)
            )
        if v.question == "masked":
            lines.append(
                tr(
                    "quiz.top.masked",
                    top=md_escape(v.top),
                    weight=v.top_weight,
                    verdict=tr("quiz.model_right" if same_piece(v.top, v.answer) else "quiz.model_wrong"),
                )
            )
        elif v.top is not None:
            lines.append(tr("quiz.top", top=md_escape(v.top), weight=v.top_weight))
    if v.right:
        st.success("  \n".join(lines), icon=":material/check_circle:")
    else:
        st.warning("  \n".join(lines), icon=":material/help:")


def _ask(
    page: str,
    qid: str,
    prompt: str,
    options: Sequence[Any],
    labels: Sequence[str],
    judge: Callable[[Any], Verdict],
    typed: bool = False,
) -> None:
    """The question: pills of ``options`` (shown as ``labels``) and, when ``typed``, a text box."""
    key = f"{page}_quiz_{qid}"
    st.markdown(prompt)
    label = dict(zip(options, labels))
    checked(
        st.pills,
        tr("quiz.pick"),
        list(options),
        format_func=lambda o: md_escape(label[o]),
        key=key,
        on_change=_record,
        args=(page, qid, key, judge),
    )
    if typed:
        checked(
            st.text_input,
            tr("quiz.type"),
            key=f"{key}_typed",
            max_chars=60,
            on_change=_record,
            args=(page, qid, f"{key}_typed", judge),
        )


def _position_labels(tokens: Sequence[str]) -> list[str]:
    """Source tokens as pill labels; a repeated token carries its position (1-based) to tell it apart."""
    return [f"{tok} ({i + 1})" if tokens.count(tok) > 1 else tok for i, tok in enumerate(tokens)]


def step_quiz(
    page: str,
    origin: Hashable,
    step: int,
    *,
    emitted: str,
    candidates: Sequence[str],
    probs: Sequence[float],
    emitted_prob: float | None = None,
    alpha: Sequence[float] | None = None,
    src_tokens: Sequence[str] | None = None,
) -> bool:
    """Ask about decoding step ``step`` of the output identified by ``origin`` (what a guess is
    about: model, input, settings, and the head for α); returns True once it is answered, so the
    page may show the step. ``alpha``/``src_tokens``: the step's attention over the source (then
    the student picks: where it looks, or what it writes)."""
    question = "write"
    if alpha is not None:
        question = (
            linked(
                st.segmented_control,
                tr("quiz.kind"),
                list(QUESTIONS),
                format_func=QUESTIONS.get,
                default="look",
                required=True,
                key=f"{page}_quiz_kind",
            )
            or "look"
        )
    elif src_tokens is not None:  # a seq2seq model without attention
        st.caption(tr("quiz.no_attention"))
    qid = _question_id(origin, question, step)
    verdict = _board(page).get(qid)
    if verdict is not None:
        reveal(verdict)
    elif question == "look":
        _ask(
            page,
            qid,
            tr("quiz.ask.look", step=step + 1),
            range(len(src_tokens)),
            _position_labels(src_tokens),
            partial(judge_look, alpha=np.asarray(alpha), src_tokens=list(src_tokens)),
        )
    else:
        options = answer_options(candidates, emitted)
        _ask(
            page,
            qid,
            tr("quiz.ask.write", step=step + 1),
            options,
            options,
            partial(
                judge_write,
                emitted=emitted,
                candidates=list(candidates),
                probs=list(map(float, probs)),
                emitted_prob=emitted_prob,
            ),
        )
    if verdict is None:
        st.caption(tr("quiz.hidden"))
    score_line(page)
    return verdict is not None


def masked_quiz(page: str, origin: Hashable, rows: Sequence[PredictionRow]) -> set[int]:
    """Ask, one at a time, for the original piece at every position the model read as [MASK];
    returns the positions not guessed yet (the page hides their predictions and originals)."""
    targets = [r for r in rows if r.shown == "[MASK]" and r.original != "[MASK]"]  # a typed [MASK] hides nothing
    board = _board(page)
    ids = {r.position: _question_id(origin, "masked", r.position) for r in targets}
    hidden = {pos for pos, qid in ids.items() if qid not in board}
    answered = [board[qid] for qid in board if qid in ids.values()]
    if answered:
        reveal(answered[-1])  # the latest guess
    waiting = [r for r in targets if r.position in hidden]
    if waiting:
        r = waiting[0]
        options = answer_options(r.top_tokens, r.original)
        _ask(
            page,
            ids[r.position],
            tr("quiz.ask.masked", i=len(targets) - len(waiting) + 1, n=len(targets), pos=r.position),
            options,
            options,
            partial(
                judge_masked,
                original=r.original,
                original_prob=r.original_prob,
                original_rank=r.original_rank,
                candidates=r.top_tokens,
                probs=r.top_probs,
            ),
            typed=True,
        )
    elif targets:
        st.caption(tr("quiz.all_done"))
    score_line(page)
    return hidden
