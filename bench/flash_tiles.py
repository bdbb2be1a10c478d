"""FlashAttention's tiled forward pass against exact attention on every head of SmolLM2-135M.

`python -m bench.flash_tiles` reads the first 512 tokens of the World English Bible with SmolLM2
(converted: python -m models.prepare_llm), captures every layer's Q, K, V (after RoPE; 30 layers ×
9 query heads, GQA 9:3) and prints, per layer and over all heads:

- max |O_tiled − O_exact|: the tiled pass (models.lessons.at_scale.tiled_attention, Dao et al. 2022,
  Algorithm 1, float32) against softmax(QKᵀ/√d + M)V computed by torch in float32 (the bar: ≤ 1e-6);
- the same divided by max |V| of the head (the error relative to the values being averaged);
- max |O_tiled − O_float64| and max |O_exact,float32 − O_float64|: each float32 path against the same
  attention computed by torch in float64 from the same float32 Q, K, V, and their ratio (≤ 1: the tiled
  pass is no further from the true value than float32 exact attention is);
- max |P_i rebuilt − P_i|: every row of the attention matrix rebuilt from q_i, K and the saved
  log-sum-exp L_i = m_i + log ℓ_i, against the model's own attention weights.

Two float32 paths that round differently disagree by up to about the sum of their errors: where exact
float32 attention is itself ~1e-5 from float64 (outputs of size ~10, float32's ε ≈ 1.2e-7), a 1e-6 absolute
bar between the two is below float32's resolution of those outputs; the float64 columns say which path is
the closer one.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from models.lessons.at_scale import llm_head_qkv, rebuild_row, tiled_attention


def torch_exact(q: np.ndarray, k: np.ndarray, v: np.ndarray, dtype: torch.dtype) -> np.ndarray:
    """Causal softmax(QKᵀ/√d + M)V in torch, in ``dtype``: the reference the tiled pass is held to."""
    qt, kt, vt = (torch.from_numpy(a).to(dtype) for a in (q, k, v))
    s = qt @ kt.T / float(np.sqrt(q.shape[1]))
    n = q.shape[0]
    s = s.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return (torch.softmax(s, dim=-1) @ vt).numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--block", type=int, default=64, help="tile size (queries and keys)")
    parser.add_argument(
        "--version",
        type=int,
        default=1,
        choices=(1, 2),
        help="1: FlashAttention's Algorithm 1 (O normalised at every tile); 2: FlashAttention-2's "
        "(O divided by ℓ once, at the end)",
    )
    args = parser.parse_args()
    from corpora.bible import read_verses
    from models.inference.llm import load_llm

    llm = load_llm()
    text = " ".join(v[3] for v in read_verses()[:400])
    ids = llm.tokenizer(text)["input_ids"][: args.tokens]
    start = time.perf_counter()
    heads = llm_head_qkv(llm, ids)
    print(
        f"SmolLM2-135M, {len(ids)} tokens, {len(heads)} heads captured in {time.perf_counter() - start:.1f} s; "
        f"tile {args.block} × {args.block}, float32, FlashAttention-{args.version} update"
    )
    print(
        f"{'layer':>5} {'max|tiled−exact|':>17} {'÷ max|V|':>10} {'max|tiled−64|':>14} {'max|exact32−64|':>16} "
        f"{'ratio':>6} {'max|O|':>7} {'rebuilt row':>12}"
    )
    keys = ("abs", "rel", "t64", "f32", "out", "row", "beaten")
    worst = dict.fromkeys(keys, 0.0)
    for layer in range(llm.n_layers):
        row = dict.fromkeys(keys, 0.0)
        for h in (h for h in heads if h.layer == layer):
            exact = torch_exact(h.q, h.k, h.v, torch.float32)
            exact64 = torch_exact(h.q, h.k, h.v, torch.float64)
            tiled = tiled_attention(h.q, h.k, h.v, args.block, version=args.version)
            diff = float(np.abs(tiled.output - exact).max())
            rebuilt = np.stack([rebuild_row(h.q[i], h.k, float(tiled.lse[i]), i) for i in range(len(ids))])
            row["abs"] = max(row["abs"], diff)
            row["rel"] = max(row["rel"], diff / float(np.abs(h.v).max()))
            t64, f32 = float(np.abs(tiled.output - exact64).max()), float(np.abs(exact - exact64).max())
            row["t64"], row["f32"] = max(row["t64"], t64), max(row["f32"], f32)
            row["beaten"] += t64 > f32  # heads where the tiled pass is further from float64 than exact float32
            row["out"] = max(row["out"], float(np.abs(exact64).max()))
            row["row"] = max(row["row"], float(np.abs(rebuilt - h.model_weights).max()))
        print(_line(str(layer), row))
        worst = {key: worst[key] + row[key] if key == "beaten" else max(worst[key], row[key]) for key in worst}
    print(_line("all", worst))
    print(
        f"bar 1e-6 on max|tiled−exact| (both float32): {'met' if worst['abs'] <= 1e-6 else 'NOT met'} "
        f"({worst['abs']:.2e}); relative to max|V|: {'met' if worst['rel'] <= 1e-6 else 'NOT met'} "
        f"({worst['rel']:.2e})"
    )
    ratio = worst["t64"] / worst["f32"]
    print(
        f"against float64: tiled {worst['t64']:.2e}, exact float32 {worst['f32']:.2e}, ratio {ratio:.2f} "
        f"(≤ 1: the tiled pass is no further from the true value than exact float32 attention: "
        f"{'yes' if ratio <= 1.0 else 'no'}); heads where the tiled pass is the further of the two: "
        f"{int(worst['beaten'])} of {len(heads)}"
    )


def _line(name: str, row: dict[str, float]) -> str:
    return (
        f"{name:>5} {row['abs']:>17.2e} {row['rel']:>10.2e} {row['t64']:>14.2e} {row['f32']:>16.2e} "
        f"{row['t64'] / row['f32']:>6.2f} {row['out']:>7.2f} {row['row']:>12.2e}"
    )


if __name__ == "__main__":
    main()
