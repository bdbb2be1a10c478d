"""Issue 14's bar for the model-folder box of the Real model explorer, measured on the page itself.

    python -m bench.hostile_paths [--model DIR]

Builds a confined layout in a temporary folder (:func:`make_layout`: one allowed root holding a copy
of a real model — default the installed MiniLM-L6 — plus symlinks out of it, and a valid model
outside it), points the server setting at that root (``ATTENTION_LAB_MODEL_ROOTS``), and runs page 8
in-process (``AppTest``) as students would:

- the 20 hostile paths of :data:`HOSTILE`, each typed into the model-folder box: a path *reveals*
  when the page shows anything but the one refusal or names a server path, and *renders markup*
  when any shown text holds an unescaped link, image, tag or URL;
- four sessions typing four aliases of one folder: how many times the model is loaded;
- a folder whose config.json declares hidden size 16,384 × 48 layers over a tiny weights file, and
  one whose (sparse) weights file is over the size cap: how many weight or model reads ran before
  each was refused;
- memory of a registry holding one model, before and after a second load evicts the first.

Bar: 0 reveal, 0 markup, the aliases loaded once, 0 reads before a refusal. Exit status 1 if missed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REAL_PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "8_Real_model_explorer.py")

# The bar's twenty hostile paths, as functions of the layout (make_layout's dictionary).
HOSTILE: dict[str, Callable[[dict[str, Path]], str]] = {
    "system file": lambda lab: "/etc/shadow",
    "readable system file": lambda lab: "/etc/passwd",
    "system folder": lambda lab: "/etc",
    "proc": lambda lab: "/proc/self/environ",
    "missing absolute": lambda lab: "/no/such/folder",
    "root's home": lambda lab: "/root/.ssh",
    "own home": lambda lab: "~",
    "own ssh": lambda lab: "~/.ssh",
    "~user": lambda lab: "~root",
    "~nosuchuser": lambda lab: "~nosuchuser",
    "~nosuchuser/sub": lambda lab: "~nosuchuser/models",
    "symlink out to /etc": lambda lab: "escape",
    "symlink out to a model": lambda lab: "out-model",
    "model outside the root": lambda lab: str(lab["outside"] / "model"),
    "dot-dot from the root": lambda lab: str(lab["root"] / ".." / "outside" / "model"),
    "relative dot-dot": lambda lab: "../../../../../../etc",
    "markdown link": lambda lab: "[x](http://e)",
    "markdown image": lambda lab: "![](http://e/x.png)",
    "NUL byte": lambda lab: "model\x00/etc/passwd",
    "10k characters": lambda lab: "a" * 10_000,
}


# The finding: hidden size 16,384 × 48 layers over a tiny weights file grew a process to 21 GB.
OVERSIZED_CONFIG = {
    "hidden_size": 16_384,
    "num_hidden_layers": 48,
    "intermediate_size": 65_536,
    "vocab_size": 30_522,
    "num_attention_heads": 128,
}


def aliases(lab: dict[str, Path]) -> list[str]:
    """Four spellings of root/model, as four students might type them."""
    return ["model", f"{lab['root']}/model/", f"{lab['root']}//model", f"{lab['root']}/./model"]


def make_layout(base: Path, model: Path) -> dict[str, Path]:
    """base/root (the one allowed root): model/ (a copy of ``model``), sub/, alias-link → model,
    escape → /etc, out-model → base/outside/model (a valid model outside the root)."""
    base = base.resolve()
    root, outside = base / "root", base / "outside"
    shutil.copytree(model, root / "model", symlinks=False)
    shutil.copytree(model, outside / "model", symlinks=False)
    (root / "sub").mkdir()
    (root / "alias-link").symlink_to(root / "model")
    (root / "escape").symlink_to("/etc")
    (root / "out-model").symlink_to(outside / "model")
    return {"base": base, "root": root, "outside": outside}


def fake_model(folder: Path, config: dict, weights_bytes: int = 64) -> Path:
    """config.json, a vocabulary and a weights file of ``weights_bytes`` (sparse: no disk used)."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", **config}))
    (folder / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n")
    with open(folder / "model.safetensors", "wb") as f:
        f.truncate(weights_bytes)
    return folder


class ReadCounter:
    """Counts every model, config, tokenizer and weights read (the calls still run)."""

    def __init__(self) -> None:
        import safetensors
        import safetensors.torch
        import torch
        import transformers

        self.calls = 0
        targets = [
            (cls, "from_pretrained")
            for cls in (
                transformers.AutoModel,
                transformers.AutoModelForMaskedLM,
                transformers.AutoConfig,
                transformers.AutoTokenizer,
            )
        ]
        targets += [(torch, "load"), (safetensors.torch, "load_file"), (safetensors, "safe_open")]
        for owner, name in targets:
            setattr(owner, name, self._wrap(getattr(owner, name)))

    def _wrap(self, fn: Callable) -> Callable:
        def counted(*args, **kwargs):
            self.calls += 1
            return fn(*args, **kwargs)

        return counted


def _shown(at) -> list[str]:
    return [
        e.value
        for element_type in (
            "markdown",
            "caption",
            "error",
            "info",
            "warning",
            "success",
            "text",
            "code",
            "subheader",
            "title",
        )
        for e in getattr(at, element_type)
    ]


def _memory(lab: dict[str, Path]) -> None:
    """Resident memory of this process with a registry of one model: the second load evicts the first."""
    from bench.load_test import rss_mb
    from models.inference.hf_adapter import load_hf_model
    from models.inference.model_access import ModelRegistry, Settings

    registry = ModelRegistry(lambda key: load_hf_model(key, settings=Settings(mode="open")), max_entries=1)
    start = rss_mb(os.getpid())
    registry.get(str(lab["root"] / "model"))
    one = rss_mb(os.getpid())
    registry.get(str(lab["outside"] / "model"))
    after = rss_mb(os.getpid())
    print(f"memory (max_loaded=1): {start:.0f} MB, one model {one:.0f} MB, a second one evicting it {after:.0f} MB")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="", help="the model folder to copy into the root (default: MiniLM-L6)")
    args = ap.parse_args(argv)

    from streamlit.testing.v1 import AppTest

    import ui.bert
    from models.inference.hf_adapter import default_model_path
    from models.inference.model_access import REFUSED
    from ui.tokens import md_escape

    lab = make_layout(Path(tempfile.mkdtemp(prefix="hostile-paths-")), Path(args.model or default_model_path()))
    try:
        os.environ.update({"ATTENTION_LAB_MODEL_FOLDERS": "confined", "ATTENTION_LAB_MODEL_ROOTS": str(lab["root"])})
        fake_model(lab["root"] / "big", OVERSIZED_CONFIG)
        fake_model(lab["root"] / "heavy", {"hidden_size": 32, "num_hidden_layers": 2}, weights_bytes=2_000_000_000)
        loads: list[str] = []
        load = ui.bert._load_real
        ui.bert._load_real = lambda key: loads.append(key) or load(key)  # counted; the registry calls it
        reads = ReadCounter()

        def session(typed: str) -> AppTest:
            at = AppTest.from_file(REAL_PAGE, default_timeout=300)
            at.session_state["real_source"] = "folder"
            at.session_state["real_dir"] = typed
            return at.run()

        messages: set[str] = set()
        reveal = markup = exceptions = 0
        t0 = time.perf_counter()
        print(f"{'hostile path':<24} {'same message':>12} {'reveals':>8} {'markup':>7}")
        for name, make in HOSTILE.items():
            at = session(make(lab))
            shown = _shown(at)
            errors = [e.value for e in at.error]
            messages.update(errors)
            same = len(errors) == 1 and errors[0].endswith(md_escape(REFUSED))
            reveals = not same or any(str(lab["base"]) in v or "/etc" in v or "/root" in v for v in shown)
            marks = any(m in v for v in shown for m in ("](", "<img", "<a ", "<script", "http"))
            reveal, markup, exceptions = reveal + reveals, markup + marks, exceptions + bool(at.exception)
            print(f"{name:<24} {'yes' if same else 'NO':>12} {int(reveals):>8} {int(marks):>7}")
        reveal += len(messages) > 1  # one message for all, whatever was typed
        print(
            f"({time.perf_counter() - t0:.1f} s for {len(HOSTILE)} page runs; {len(messages)} distinct message(s); "
            f"exceptions: {exceptions})"
        )

        t0 = time.perf_counter()
        labels = []
        for typed in aliases(lab):
            at = session(typed)
            labels += [c.value.split(" — ")[0] for c in at.caption if " — " in c.value][:1]
        alias_loads = loads.count(str(lab["root"] / "model"))
        print(
            f"4 aliases of one folder, 4 sessions: loaded {alias_loads} time(s), shown as {sorted(set(labels))} "
            f"({time.perf_counter() - t0:.1f} s)"
        )

        refused_before = {}
        for name, expected in (("big", "parameters"), ("heavy", "larger than this server's cap")):
            reads.calls = 0
            at = session(name)
            ok = any(expected in e.value.replace("\\", "") for e in at.error)
            refused_before[name] = (ok, reads.calls)
            print(f"{name:<6} refused ({expected}): {'yes' if ok else 'NO'}; model/weights reads before: {reads.calls}")
        _memory(lab)
    finally:
        shutil.rmtree(lab["base"], ignore_errors=True)

    met = (
        reveal == 0
        and markup == 0
        and exceptions == 0
        and alias_loads == 1
        and all(ok and n == 0 for ok, n in refused_before.values())
    )
    print(
        f"bar: {reveal} reveal, {markup} markup, {exceptions} exceptions, aliases loaded {alias_loads}×, "
        f"oversized refused before weights read: {all(ok and n == 0 for ok, n in refused_before.values())} "
        f"— {'met' if met else 'MISSED'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
