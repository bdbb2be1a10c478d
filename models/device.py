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


#: The English of each device name by string id (the app shows them in the reader's language:
#: ui/strings/common.py holds the same ids).
DEVICE_NAMES = {
    "device.cuda": "CUDA: {name}",
    "device.mps": "Apple MPS",
    "device.cpu_one": "CPU (1 thread)",
    "device.cpu_many": "CPU ({n} threads)",
}


def device_name(device: torch.device) -> tuple[str, dict[str, object]]:
    """The device's name as a string id of :data:`DEVICE_NAMES` and its fields."""
    if device.type == "cuda":
        return "device.cuda", {"name": torch.cuda.get_device_name(device)}
    if device.type == "mps":
        return "device.mps", {}
    n = torch.get_num_threads()
    return ("device.cpu_one", {}) if n == 1 else ("device.cpu_many", {"n": n})


def describe_device(device: torch.device) -> str:
    """A short human-readable name of the device, e.g. 'CUDA: NVIDIA H100' or 'CPU (2 threads)'."""
    key, fields = device_name(device)
    return DEVICE_NAMES[key].format(**fields)


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
