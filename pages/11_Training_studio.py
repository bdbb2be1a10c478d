"""Training studio: train a small RNN encoder–decoder from the browser, in the background, and watch
its attention emerge snapshot by snapshot; saved runs appear in the Seq2seq page's model picker."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ui.deck import publish_view
from ui.frame import page_frame
from ui.i18n import tr

page_frame(tr("nav.11"), icon="🏋️", intro=tr("studio.intro"))

from models.training.runs import ACTIVE_STATES, Run  # noqa: E402
from ui.studio import keep_owner, live_panel, result_view, runs_manager, settings_popover, shown_run  # noqa: E402
from ui.views.studio import StudioState  # noqa: E402

with st.sidebar:  # a script with no place on the page
    keep_owner()
settings_popover()
run = shown_run()
if run is None:
    st.info(tr("studio.nothing"))
else:
    state = StudioState(run.id)  # a Transformer's layer and head: the result's fragment picks them
    publish_view(state)
    if isinstance(run, Run) and run.status in ACTIVE_STATES:
        st.fragment(live_panel, run_every=1.0)()
    else:
        # the head is the result fragment's: it publishes the state again with the head picked there
        st.fragment(result_view)(run, lambda layer, head: publish_view(replace(state, layer=layer, head=head)))
runs_manager()
st.markdown(tr("studio.explain"))
