"""Compute device selection and torch thread settings."""
from __future__ import annotations

import os

import torch


def pick_device(prefer: str | None = None) -> torch.device:
    """CUDA when present, else Apple MPS, else CPU; ``prefer`` or $ATTN_LAB_DEVICE overrides."""
    choice = prefer or os.environ.get("ATTN_LAB_DEVICE")
    if choice:
        return torch.device(choice)
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def describe_device(device: torch.device) -> str:
    """A short human-readable name of the device, e.g. 'CUDA: NVIDIA H100' or 'CPU (2 threads)'."""
    if device.type == "cuda":
        return f"CUDA: {torch.cuda.get_device_name(device)}"
    if device.type == "mps":
        return "Apple MPS"
    return f"CPU ({torch.get_num_threads()} thread{'s' if torch.get_num_threads() != 1 else ''})"


#: torch intra-op threads for the app, training and the commands, chosen by measurement: on a
#: 2-core machine, 2 threads were 3–18× slower per step than 1 under contention (another
#: process or the Streamlit server busy) and only 1.2× faster when the machine was idle.
DEFAULT_THREADS = 1


def configure_threads(default: int = DEFAULT_THREADS) -> int:
    """Set torch's intra-op threads from $ATTN_LAB_THREADS (default :data:`DEFAULT_THREADS`)."""
    n = int(os.environ.get("ATTN_LAB_THREADS", default))
    if torch.get_num_threads() != n:
        torch.set_num_threads(max(1, n))
    return torch.get_num_threads()
