"""Server time and bytes on the wire of the Real model explorer at 512 tokens.

    python -m bench.real_model_payload [--model DIR | --model smollm2] [--tokens 128 512] [--repeat 3] [--threads 1]

For each length it runs what the page runs for a *new* text: the model forward pass with every
attention weight (:func:`models.inference.hf_adapter.run_hf`), the layers × heads grid as one PNG mosaic
(:func:`viz_core.attention_grid.grid_payload` + its plotly figure), one head and the head average
(:func:`viz_core.attention_grid.head_figure`, binned above 128 tokens) and the lines view
(:func:`viz_core.bert.lines_figure`, a 40-token window), and prints the best of ``--repeat`` runs.
"views" is the time of the figures alone — what a click on another head costs, the attention
being cached. Bytes are the JSON of the four figures as Streamlit sends them. ``--model smollm2`` runs
the real decoder as the page sees it (models.inference.hf_adapter.llm_view of its converted copy;
its 30 layers × 9 heads drawn with the heads as rows, ui.bert.heads_as_rows).
Target (issue 5, the Transformer lab's bar): ≤ 1 s on the server and ≤ 5 MB at 512 tokens.
"""

from __future__ import annotations

import argparse
import os
import time

TIME_BOUND_S = 1.0
BYTES_BOUND = 5_000_000
TEXT = (
    "The animal didn't cross the street because it was too tired. The trophy would not fit in the brown "
    "suitcase because it was too big. "
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--model",
        default="",
        help="a local model folder, or smollm2 for the real decoder (default: the installed MiniLM-L6)",
    )
    ap.add_argument("--tokens", type=int, nargs="+", default=[128, 512])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=int(os.environ.get("ATTN_LAB_THREADS", 1)))
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    from models.inference.hf_adapter import llm_view, load_hf_model, run_hf
    from models.inference.llm import MODEL_NAME, load_llm
    from ui.bert import heads_as_rows
    from viz_core.attention_grid import grid_payload, head_figure
    from viz_core.bert import lines_figure
    from viz_core.labels import safe_label
    from viz_core.transformer import grid_figure

    t0 = time.perf_counter()
    model = llm_view(load_llm()) if args.model == MODEL_NAME else load_hf_model(args.model or None)
    print(
        f"{model.summary}; loaded in {time.perf_counter() - t0:.1f} s (once per server: st.cache_resource); "
        f"torch threads {torch.get_num_threads()}; best of {args.repeat}"
    )
    header = (
        f"{'tokens':>6} {'forward':>8} {'grid':>7} {'views':>7} {'total':>7} {'grid MB':>8} {'all MB':>7}"
        "  within bounds"
    )
    print(header)
    print("-" * len(header))
    failures = 0
    for n in args.tokens:
        text = TEXT * (n // 20 + 2)
        best: dict[str, float] = {}
        sizes = (0, 0)
        for _ in range(args.repeat):
            t_start = time.perf_counter()
            trace = run_hf(model, text, max_tokens=n)
            t_fwd = time.perf_counter()
            if heads_as_rows(model.n_layers, model.n_heads):  # as pages/8_Real_model_explorer.py draws it
                payload = grid_payload(trace.attention.transpose(1, 0, 2, 3), trace.tokens, max_thumb=96, min_thumb=64)
                grid_json = grid_figure(payload, target_width=1100).to_json()
            else:
                payload = grid_payload(trace.attention, trace.tokens, max_thumb=96, min_thumb=64)
                grid_json = payload.figure().to_json()
            t_grid = time.perf_counter()
            labels = [safe_label(t, 16) for t in trace.tokens]
            one = head_figure(trace.attention[0, 0], labels).figure.to_json()
            avg = head_figure(trace.attention[0].mean(0), labels).figure.to_json()
            lines = lines_figure(trace.attention[0, 0], trace.tokens, 0, 40, None, 0.05).to_json()
            t_end = time.perf_counter()
            for key, value in (
                ("forward", t_fwd - t_start),
                ("grid", t_grid - t_fwd),
                ("views", t_end - t_grid),
                ("total", t_end - t_start),
            ):
                best[key] = min(best.get(key, float("inf")), value)
            grid_b = len(grid_json.encode())
            sizes = (grid_b, grid_b + sum(len(j.encode()) for j in (one, avg, lines)))
        ok = best["total"] <= TIME_BOUND_S and sizes[1] <= BYTES_BOUND
        failures += not ok
        length = trace.attention.shape[-1]
        print(
            f"{length:>6} {best['forward']:7.3f}s {best['grid']:6.3f}s {best['views']:6.3f}s {best['total']:6.3f}s "
            f"{sizes[0] / 1e6:8.2f} {sizes[1] / 1e6:7.2f}  {'yes' if ok else 'NO'}"
        )
    print(
        "forward = tokenise + model with output_attentions; grid = PNG mosaic + its figure JSON; views = one "
        "head + head average + lines view JSON; total = all three (a new text); MB = JSON bytes sent"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
