"""Self-attention against recurrent and convolutional layers: theory and a stopwatch.

Vaswani et al. (2017), Table 1, for sequence length n, width d and kernel size k:

    layer            per-layer complexity   sequential operations   maximum path length
    self-attention   O(n²·d)                O(1)                    O(1)
    recurrent        O(n·d²)                O(n)                    O(n)
    convolutional    O(k·n·d²)              O(1)                    O(log_k n)  (dilated)

``time_layers`` measures one forward pass of each on the current device.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from models.nn.attention import scaled_dot_product_attention

COMPLEXITY_TABLE: tuple[dict[str, str], ...] = (
    {
        "Layer": "Self-attention",
        "Complexity per layer": "O(n²·d)",
        "Sequential operations": "O(1)",
        "Maximum path length": "O(1)",
    },
    {
        "Layer": "Recurrent (GRU)",
        "Complexity per layer": "O(n·d²)",
        "Sequential operations": "O(n)",
        "Maximum path length": "O(n)",
    },
    {
        "Layer": "Convolutional (Conv1d, kernel k)",
        "Complexity per layer": "O(k·n·d²)",
        "Sequential operations": "O(1)",
        "Maximum path length": "O(log_k n) dilated, O(n/k) plain",
    },
    {
        "Layer": "Self-attention, restricted to r neighbours",
        "Complexity per layer": "O(r·n·d)",
        "Sequential operations": "O(1)",
        "Maximum path length": "O(n/r)",
    },
)

LAYERS = ("Self-attention", "GRU", "Conv1d")
DEFAULT_LENGTHS: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024, 2048)


class SelfAttentionLayer(nn.Module):
    """One head: softmax(QKᵀ/√d)V with Q, K, V = xW_q, xW_k, xW_v, then an output projection."""

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: Tensor) -> Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(scaled_dot_product_attention(q, k, v)[0])


class GRULayer(nn.Module):
    """A GRU over the sequence: n steps, each depending on the previous one."""

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.rnn = nn.GRU(d_model, d_model, batch_first=True)

    def forward(self, x: Tensor) -> Tensor:
        return self.rnn(x)[0]


class ConvLayer(nn.Module):
    """A 1-D convolution of kernel size k over the sequence (same length out)."""

    def __init__(self, d_model: int, kernel_size: int = 3) -> None:
        super().__init__()
        self.conv = nn.Conv1d(d_model, d_model, kernel_size, padding=kernel_size // 2)

    def forward(self, x: Tensor) -> Tensor:
        return self.conv(x.transpose(1, 2)).transpose(1, 2)


def build_layers(d_model: int, kernel_size: int = 3) -> dict[str, nn.Module]:
    """The three layers, in ``LAYERS`` order, in eval mode."""
    layers = {
        "Self-attention": SelfAttentionLayer(d_model),
        "GRU": GRULayer(d_model),
        "Conv1d": ConvLayer(d_model, kernel_size),
    }
    return {name: layer.eval() for name, layer in layers.items()}


@dataclass(frozen=True)
class TimingResult:
    """Forward time in seconds per layer and length (NaN: skipped, over the budget)."""

    lengths: np.ndarray
    seconds: dict[str, np.ndarray]
    d_model: int
    batch: int
    device: str
    threads: int


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_layers(
    lengths: tuple[int, ...] = DEFAULT_LENGTHS,
    d_model: int = 64,
    batch: int = 1,
    repeats: int = 3,
    device: str = "cpu",
    kernel_size: int = 3,
    budget_s: float = 2.0,
    seed: int = 0,
) -> TimingResult:
    """Shortest wall time of ``repeats`` forward passes (after one warm-up) under ``no_grad``:
    the minimum is the least disturbed by other work on the machine.

    Once one call of a layer takes longer than ``budget_s``, its longer lengths are skipped
    (NaN), so the measurement stays short on slow devices.
    """
    if not lengths or min(lengths) < 1:
        raise ValueError("lengths must be positive integers")
    dev = torch.device(device)
    torch.manual_seed(seed)
    layers = {name: layer.to(dev) for name, layer in build_layers(d_model, kernel_size).items()}
    seconds = {name: np.full(len(lengths), math.nan) for name in layers}
    over_budget: set[str] = set()
    with torch.no_grad():
        for j, n in enumerate(lengths):
            x = torch.randn(batch, n, d_model, device=dev)
            for name, layer in layers.items():
                if name in over_budget:
                    continue
                layer(x)  # warm-up
                _sync(dev)
                times = []
                for _ in range(repeats):
                    start = time.perf_counter()
                    layer(x)
                    _sync(dev)
                    times.append(time.perf_counter() - start)
                seconds[name][j] = float(min(times))
                if max(times) > budget_s:
                    over_budget.add(name)
    return TimingResult(np.array(lengths), seconds, d_model, batch, str(dev), torch.get_num_threads())


def growth_exponents(result: TimingResult, tail: int = 3) -> dict[str, float]:
    """Slope of log(time) against log(n) over the last ``tail`` measured lengths of each layer:
    about 1 for O(n) work, about 2 once the n² term of self-attention dominates."""
    out = {}
    for name, secs in result.seconds.items():
        ok = np.isfinite(secs) & (secs > 0)
        x, y = np.log(result.lengths[ok][-tail:]), np.log(secs[ok][-tail:])
        out[name] = float(np.polyfit(x, y, 1)[0]) if len(x) >= 2 else math.nan
    return out
