"""The Training studio page's view as a slide: a saved run's attention emerging, one step per
snapshot, drawn by the figure functions the page calls (ui.studio: probe_figure, the probe's map;
run_curves, the loss and validation curves); a slide only draws them larger. (ui.studio and the
training code it imports load when a studio slide is drawn, not with every deck.)"""

from __future__ import annotations

from ui.grid import AVERAGE
from ui.i18n import tr
from ui.views.base import PLAN_WIDTH, SLIDE_HEIGHT, SlideParams, SlideProblem, SlideView, line, show_figure


def slide(p: SlideParams) -> SlideView:
    """The page's run as a slide, one step per snapshot: the probe's map (Bahdanau et al. 2015's α, or
    a Transformer's cross-attention, of the page's layer and head); a model without attention shows
    its loss and BLEU curves at the snapshot instead."""
    from models.runs.store import list_runs
    from models.runs.snapshots import read_snapshots
    from ui.studio import probe_figure, registry, run_curves, session_owner, snapshot_caption

    saved = {run.id: run for run in list_runs(registry().root, session_owner())}  # newest first, the page's default
    if not saved:
        raise SlideProblem(tr("slide.studio.none"))
    run = saved[p.option("studio_run", saved, next(iter(saved)), "slide.what.run")]
    shots = read_snapshots(run.folder)
    if not shots:
        raise SlideProblem(tr("slide.studio.no_snapshots"))
    maps = [s.weights for s in shots if s.weights is not None]
    layer, head = None, AVERAGE  # an RNN's one map has no layer or head; a Transformer's: the page's picker
    if maps and maps[0].ndim == 4:
        layer, head = p.layer_head("studio", *maps[0].shape[:2])

    def draw(step: int) -> None:
        shot = shots[step]
        line(run.name, snapshot_caption(shot))
        if shot.weights is None:
            show_figure(run_curves(run, shot))
        else:
            show_figure(probe_figure(shot, layer, head, width=PLAN_WIDTH, height=SLIDE_HEIGHT))

    return p.view(len(shots), p.step("studio_snap", len(shots)), draw)
