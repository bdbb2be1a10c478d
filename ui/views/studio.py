"""The Training studio page's view as a slide: a saved run's attention emerging, one step per
snapshot, drawn by the figure functions the page calls (ui.studio: probe_figure, the probe's map;
run_curves, the loss and validation curves); a slide only draws them larger. (ui.studio and the
training code it imports load when a studio slide is drawn, not with every deck.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ui.grid import AVERAGE
from ui.i18n import tr
from ui.views.base import PLAN_WIDTH, SLIDE_HEIGHT, SlideParams, SlideProblem, SlideView, line, link_of, show_figure


@dataclass(frozen=True)
class StudioState:
    """The studio's run view as values: the run's id (one of the reader's runs or a published one), and for a
    Transformer's probe the layer and head (0-based; ui.grid.AVERAGE for the mean; an RNN's one map has
    neither: None). The step is the snapshot (``studio_snap_step``)."""

    run: str
    layer: int | None = None
    head: int = AVERAGE
    KEYS: ClassVar[dict[str, str]] = {
        "run": "studio_run",
        "layer": "studio_layer",
        "head": "studio_head",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> tuple[StudioState, Any, list[Any]]:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted), with
        the run it names and that run's snapshots, read once."""
        from models.runs.snapshots import read_snapshots

        saved = saved_runs()
        if not saved:
            raise SlideProblem(tr("slide.studio.none"))
        run = saved[p.option(cls.KEYS["run"], saved, next(iter(saved)), "slide.what.run")]
        shots = read_snapshots(run.folder)
        maps = [s.weights for s in shots if s.weights is not None]
        if maps and maps[0].ndim == 4:  # a Transformer's probe: the page's picker
            layer, head = p.layer_head(cls.KEYS["layer"], cls.KEYS["head"], *maps[0].shape[:2])
            return cls(run.id, layer, head), run, shots
        return cls(run.id), run, shots

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self, head=None if self.layer is None else self.head)  # (an RNN's: no layer, no head)


def saved_runs() -> dict:
    """The reader's runs and the published ones, by id, newest first (the page's default: the first)."""
    from models.runs.store import list_runs
    from ui.studio import registry, session_owner

    return {run.id: run for run in list_runs(registry().root, session_owner())}


def slide(p: SlideParams) -> SlideView:
    """The page's run as a slide, one step per snapshot: the probe's map (Bahdanau et al. 2015's α, or
    a Transformer's cross-attention, of the page's layer and head); a model without attention shows
    its loss and BLEU curves at the snapshot instead."""
    from ui.studio import probe_figure, run_curves, snapshot_caption

    state, run, shots = StudioState.read(p)
    if not shots:
        raise SlideProblem(tr("slide.studio.no_snapshots"))

    def draw(step: int) -> None:
        shot = shots[step]
        line(run.name, snapshot_caption(shot))
        if shot.weights is None:
            show_figure(run_curves(run, shot))
        else:
            show_figure(probe_figure(shot, state.layer, state.head, width=PLAN_WIDTH, height=SLIDE_HEIGHT))

    return p.view(len(shots), p.step("studio_snap", len(shots)), draw)
