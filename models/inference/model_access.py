"""Which local model folders the server may open, and how much of them it may hold (no torch, no streamlit).

A typed folder goes through :func:`resolve_folder` (the policy: ``off`` | ``confined`` | ``open``),
then :func:`check_caps` (size and parameter caps, read off the folder and its ``config.json``
before any weights are read), and loaded models live in a :class:`ModelRegistry` (least recently
used evicted first, one load at a time). The settings come from ``attention_lab.toml``
(``[model_folders]``) and environment variables (:func:`load_settings`; the README's "Local model
folders" section documents them).

Every path that is refused for being outside the roots, missing, not a folder, unreadable or not a
path at all gets the same :data:`REFUSED` message: it never says whether something exists there
and never quotes a path, so a student cannot probe the server's disk through the model box.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import threading
import tomllib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from models.errors import Count, KeyedError

__all__ = [
    "ModelAccessError",
    "Settings",
    "load_settings",
    "resolve_folder",
    "folder_label",
    "estimate_parameters",
    "bad_json",
    "check_caps",
    "ModelRegistry",
    "REFUSED",
    "OFF",
    "MODES",
]

MODES = ("off", "confined", "open")
REFUSED = (
    "There is no model folder at this path that this server may open. It opens model folders "
    "only from the folders its administrator allows."
)
OFF = "This server does not open local model folders (its model_folders mode is off)."
REPO = Path(__file__).resolve().parents[2]
CONFIG_ENV = "ATTENTION_LAB_CONFIG"
ENV = {
    "mode": "ATTENTION_LAB_MODEL_FOLDERS",
    "roots": "ATTENTION_LAB_MODEL_ROOTS",
    "max_bytes": "ATTENTION_LAB_MODEL_MAX_BYTES",
    "max_params": "ATTENTION_LAB_MODEL_MAX_PARAMS",
    "max_loaded": "ATTENTION_LAB_MODEL_MAX_LOADED",
}
MAX_PATH_CHARS = 4096
MAX_FILES = 10_000  # entries walked in one folder before it is refused
MAX_CONFIG_BYTES = 1_000_000
MAX_DIMENSION = 100_000_000  # any one size in config.json (vocabulary, hidden size, positions …)
MAX_ATTENTION_MAPS = 1_024  # layers × heads: each is a 512 × 512 float32 map (1 MB) in one trace

# config.json names of each size, in the order transformers' architectures use them
_SIZES = {
    "hidden": ("hidden_size", "n_embd", "d_model", "dim"),
    "layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "intermediate": ("intermediate_size", "n_inner", "d_ff", "hidden_dim", "ffn_dim", "encoder_ffn_dim"),
    "vocab": ("vocab_size",),
    "positions": ("max_position_embeddings", "n_positions"),
    "types": ("type_vocab_size",),
    "heads": ("num_attention_heads", "n_head", "num_heads", "n_heads"),
}


class ModelAccessError(KeyedError, ValueError):
    """A model folder this server will not open; the message is one line and safe to show, in the
    reader's language on a page (models.errors.KeyedError: ``key`` and ``params``)."""


def _default_root() -> Path:
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "attention-lab" / "models"


@dataclass(frozen=True)
class Settings:
    """The model-folder loader's server setting (defaults: confined to one root, classroom caps)."""

    mode: str = "confined"
    roots: tuple[Path, ...] = ()
    max_bytes: int = 1_500_000_000  # all files of a folder together
    max_params: int = 350_000_000  # implied by config.json (BERT-large has 335 M)
    max_loaded: int = 2  # models held in memory at once


def _invalid(key: str) -> ModelAccessError:
    """The message for an invalid setting (``key`` = "file": the config file itself)."""
    if key == "file":
        return ModelAccessError(
            "Model folders are unavailable: the server's config file is invalid (see the README, "
            "'Local model folders').",
            "access.invalid_file",
        )
    return ModelAccessError(
        f"Model folders are unavailable: the server's model_folders.{key} setting is invalid "
        f"(see the README, 'Local model folders').",
        "access.invalid_setting",
        setting=key,
    )


def _positive(key: str, value: Any) -> int:
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise _invalid(key) from None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _invalid(key)
    return value


def _roots(value: Any) -> tuple[Path, ...]:
    if isinstance(value, str):
        value = [v for v in value.split(os.pathsep) if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _invalid("roots")
    roots = []
    for text in value:
        try:
            path = Path(text.strip()).expanduser()
        except RuntimeError:  # ~user of an unknown user
            raise _invalid("roots") from None
        if not path.is_absolute():
            raise _invalid("roots")
        roots.append(path.resolve())
    return tuple(roots)


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The setting from ``[model_folders]`` of the config file ($ATTENTION_LAB_CONFIG, else
    ``attention_lab.toml`` in the repository root when it exists), each key overridden by its
    environment variable (:data:`ENV`). Raises ModelAccessError naming the key that is invalid."""
    env = os.environ if environ is None else environ
    config_path = Path(env[CONFIG_ENV]) if env.get(CONFIG_ENV) else REPO / "attention_lab.toml"
    table: dict[str, Any] = {}
    if env.get(CONFIG_ENV) or config_path.is_file():
        try:
            table = tomllib.loads(config_path.read_text(encoding="utf-8")).get("model_folders", {})
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            raise _invalid("file") from None
        if not isinstance(table, dict) or set(table) - set(ENV):
            raise _invalid("file")
    values = {**table, **{key: env[name] for key, name in ENV.items() if env.get(name, "").strip()}}
    mode = str(values.get("mode", Settings.mode)).strip().lower()
    if mode not in MODES:
        raise _invalid("mode")
    return Settings(
        mode=mode,
        roots=_roots(values["roots"]) if "roots" in values else (_default_root().resolve(),),
        **{
            key: _positive(key, values.get(key, getattr(Settings, key)))
            for key in ("max_bytes", "max_params", "max_loaded")
        },
    )


def _inside(path: Path, settings: Settings) -> bool:
    return settings.mode == "open" or any(path.is_relative_to(root) for root in settings.roots)


def resolve_folder(typed: str, settings: Settings) -> Path:
    """The resolved (symlink-free, absolute) folder that ``typed`` names, if the policy allows it.

    ``confined``: an absolute or ``~`` path must resolve inside a root; a relative path is looked up
    under each root in turn. ``open``: any folder (relative to the working directory). Everything
    else — outside the roots, missing, a file, unreadable, a NUL byte, an unknown ``~user``, over
    4,096 characters — raises ModelAccessError(:data:`REFUSED`): one message, so the answer says
    nothing about what is outside the roots. Containment is checked before anything is looked at.
    """
    if settings.mode == "off":
        raise ModelAccessError(OFF, "real_model.access.off")
    try:
        raw = str(typed).strip()
        if raw and "\x00" not in raw and len(raw) <= MAX_PATH_CHARS:
            path = Path(raw).expanduser()
            candidates = [path] if path.is_absolute() or settings.mode == "open" else [r / path for r in settings.roots]
            for candidate in candidates:
                resolved = candidate.resolve()
                if _inside(resolved, settings) and resolved.is_dir():
                    return resolved
    except (OSError, RuntimeError, ValueError):
        pass
    raise ModelAccessError(REFUSED, "real_model.access.refused")


def folder_label(folder: Path, settings: Settings) -> str:
    """A resolved folder as the page names it: relative to its root (never an absolute server path)."""
    for root in settings.roots if settings.mode == "confined" else ():
        if folder.is_relative_to(root) and folder != root:
            return folder.relative_to(root).as_posix()
    return folder.name or "the model folder"


def _dimension(config: Mapping[str, Any], size: str, default: int | None = None) -> int:
    """The first of the names of ``size`` (a key of ``_SIZES``) that config.json sets, as a positive whole number."""
    for name in _SIZES[size]:
        if name in config and config[name] is not None:
            value = config[name]
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DIMENSION:
                raise ModelAccessError(
                    f"config.json has an unusable {name}: it must be a whole number from 1 to {MAX_DIMENSION:,}",
                    "access.bad_size",
                    name=name,
                    max=MAX_DIMENSION,
                )
            return value
    if default is None:
        first, second = _SIZES[size][:2]  # (sizes without a default all have two names or more)
        raise ModelAccessError(
            f"config.json does not give the model's size ({first} or {second})",
            "access.no_size",
            first=first,
            second=second,
        )
    return default


def estimate_parameters(config: Mapping[str, Any]) -> int:
    """Parameters of a BERT-style encoder with this config.json (Devlin et al., 2019):
    embeddings (V + P + T)·h + 2h, and per layer Q, K, V, O 4(h² + h), feed-forward 2hi + i + h and
    two LayerNorms 4h. Heads add no parameters; the pooler and any task head are left out, so the
    estimate is a lower bound (MiniLM-L6: 22.6 M estimated, 22.7 M real)."""
    h = _dimension(config, "hidden")
    n_layers = _dimension(config, "layers")
    inter = _dimension(config, "intermediate", 4 * h)
    embeddings = (
        _dimension(config, "vocab", 1) + _dimension(config, "positions", 1) + _dimension(config, "types", 1)
    ) * h + 2 * h
    layer = 4 * (h * h + h) + 2 * h * inter + inter + h + 4 * h
    return embeddings + n_layers * layer


def bad_json(name: str, exc: BaseException, error_class: type[ModelAccessError] = ModelAccessError) -> ModelAccessError:
    """An ``error_class`` error for a JSON file ``name`` that does not parse (``exc``: the parser's error)."""
    error = exc.__class__.__name__
    return error_class(f"{name} is not valid JSON ({error})", "access.bad_json", name=name, error=error)


def _read_json(path: Path) -> Any:
    if path.stat().st_size > MAX_CONFIG_BYTES:
        mb = MAX_CONFIG_BYTES // 1_000_000
        raise ModelAccessError(f"{path.name} is larger than {mb} MB", "access.json_large", name=path.name, mb=mb)
    try:
        return json.loads(path.read_text(encoding="utf-8"), parse_constant=str)  # NaN/Infinity: unusable
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise bad_json(path.name, exc) from None


def check_caps(folder: Path, settings: Settings) -> dict[str, Any]:
    """Refuse a resolved folder before anything heavy is read: when its files together exceed
    ``max_bytes``, when its config.json implies more than ``max_params`` parameters or more than
    :data:`MAX_ATTENTION_MAPS` layer × head maps, when an entry links outside the roots (confined)
    or a shard index names a file outside the folder. Returns the parsed config.json."""
    total, count = 0, 0
    try:
        for dirpath, dirnames, filenames in os.walk(folder):
            for name in dirnames + filenames:
                count += 1
                if count > MAX_FILES:
                    raise ModelAccessError(
                        f"this folder holds more than {MAX_FILES:,} files", "access.many_files", max=MAX_FILES
                    )
                entry = Path(dirpath) / name
                if entry.is_symlink() and not _inside(entry.resolve(), settings):
                    raise ModelAccessError(
                        "a file in this folder links outside the allowed model folders", "access.link_out"
                    )
                if name in filenames and entry.is_file():
                    total += entry.stat().st_size
                    if total > settings.max_bytes:
                        gb = settings.max_bytes / 1e9
                        raise ModelAccessError(
                            f"the folder's files are larger than this server's cap of {gb:,.2f} GB",
                            "access.too_large",
                            gb=gb,
                        )
        config = _read_json(folder / "config.json")
    except OSError as exc:
        error = exc.__class__.__name__
        raise ModelAccessError(f"this folder cannot be read ({error})", "access.unreadable", error=error) from None
    if not isinstance(config, dict):
        raise ModelAccessError("config.json is not a JSON object", "access.not_object")
    n_params, cap = Count(estimate_parameters(config)), Count(settings.max_params)
    if n_params > cap:
        raise ModelAccessError(
            f"config.json describes about {n_params:words} parameters, more than this server's cap of {cap:words}",
            "access.too_many_params",
            n=n_params,
            cap=cap,
        )
    maps = _dimension(config, "layers") * _dimension(config, "heads", 1)
    if maps > MAX_ATTENTION_MAPS:
        raise ModelAccessError(
            f"config.json describes {maps:,} attention maps (layers × heads), more than {MAX_ATTENTION_MAPS:,}",
            "access.many_maps",
            maps=maps,
            max=MAX_ATTENTION_MAPS,
        )
    for index in sorted(folder.glob("*.index.json")):
        data = _read_json(index)
        weight_map = data.get("weight_map") if isinstance(data, dict) else None
        shards = set(weight_map.values()) if isinstance(weight_map, dict) else {None}
        if not all(isinstance(s, str) and s and Path(s).name == s and s not in (".", "..") for s in shards):
            raise ModelAccessError(f"{index.name} names files outside the folder", "access.shard_out", name=index.name)
    return config


T = TypeVar("T")


def release_memory() -> None:
    """Collect garbage and hand freed heap pages back to the system (glibc ``malloc_trim``), so an
    evicted model's memory shows up as free, not as the server's resident size."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


class ModelRegistry(Generic[T]):
    """At most ``max_entries`` loaded models by key (the resolved folder), least recently used evicted
    and released first; at most one load runs at a time, and a key is loaded once however many
    sessions ask for it together. Failed loads are not kept (the next request tries again)."""

    def __init__(self, load: Callable[[str], T], max_entries: int) -> None:
        self._load = load
        self.max_entries = max(1, int(max_entries))
        self._items: OrderedDict[str, T] = OrderedDict()
        self._items_lock = threading.Lock()
        self._load_lock = threading.Lock()

    def holds(self, key: str) -> bool:
        with self._items_lock:
            return key in self._items

    def _cached(self, key: str) -> T | None:
        with self._items_lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        return None

    def get(self, key: str) -> T:
        """The model for ``key``, loading it (alone) if it is not held."""
        found = self._cached(key)
        if found is not None:
            return found
        with self._load_lock:
            found = self._cached(key)  # another session loaded it while this one waited
            if found is not None:
                return found
            model = self._load(key)
            with self._items_lock:
                self._items[key] = model
                evicted = [self._items.popitem(last=False) for _ in range(len(self._items) - self.max_entries)]
        if evicted:
            del evicted
            release_memory()
        return model
