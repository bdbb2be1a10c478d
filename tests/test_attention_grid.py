"""The scalable attention grid: payload size, binning, thumbnails, the one-head figure."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from viz_core.attention_grid import (
    BLUES_RGB,
    GAP_INDEX,
    bin_attention,
    encode_png_indexed,
    grid_payload,
    head_figure,
    thumbnail_png,
)

BYTES_BOUND = 5_000_000


def _softmax_rows(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape, dtype=np.float32) * 2
    x = np.exp(x - x.max(axis=-1, keepdims=True))
    return x / x.sum(axis=-1, keepdims=True)


def _decode_png_indices(png: bytes) -> np.ndarray:
    """Minimal decoder for the 8-bit palette, filter-0 PNGs written by encode_png_indexed."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", (0, 0)
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        assert struct.unpack(">I", png[pos + 8 + length : pos + 12 + length])[0] == zlib.crc32(kind + data)
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", data[:10])
            assert (depth, colour) == (8, 3)
            size = (h, w)
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(size[0], size[1] + 1)
    assert np.all(raw[:, 0] == 0)
    return raw[:, 1:]


def test_payload_is_small_for_12x12x256() -> None:
    weights = _softmax_rows((12, 12, 256, 256))
    tokens = [f"t{i}" for i in range(256)]
    payload = grid_payload(weights, tokens)
    assert payload.nbytes <= BYTES_BOUND
    assert len(payload.figure().to_json()) <= BYTES_BOUND
    assert payload.nbytes < weights.nbytes / 20  # nothing like every weight
    # Each thumbnail is at most 96 × 96 and the mosaic holds all 144 of them.
    assert payload.cell_h <= 96 and payload.cell_w <= 96
    assert (payload.n_layers, payload.n_heads) == (12, 12)
    mosaic = _decode_png_indices(payload.png_bytes)
    assert mosaic.shape == (payload.height, payload.width)
    assert np.array_equal(mosaic[: payload.gap], np.full_like(mosaic[: payload.gap], GAP_INDEX))


def test_png_round_trip_and_pillow_reads_it() -> None:
    idx = np.arange(256, dtype=np.uint8).reshape(16, 16)
    png = encode_png_indexed(idx)
    assert np.array_equal(_decode_png_indices(png), idx)
    image = pytest.importorskip("PIL.Image")
    import io

    with image.open(io.BytesIO(png)) as im:
        assert im.mode == "P" and im.size == (16, 16)
        assert np.array_equal(np.asarray(im), idx)


@pytest.mark.parametrize("how", ["max", "mean"])
@pytest.mark.parametrize("length", [40, 300, 512])
def test_thumbnails_keep_the_argmax_of_a_diagonal(how: str, length: int) -> None:
    eye = np.broadcast_to(np.eye(length, dtype=np.float32), (2, 3, length, length))
    payload = grid_payload(eye, ["w"] * length, how=how)  # type: ignore[arg-type]
    for layer in range(2):
        for head in range(3):
            thumb = payload.head_indices(layer, head)
            assert thumb.shape[0] == thumb.shape[1] <= 96
            assert np.array_equal(thumb.argmax(axis=1), np.arange(thumb.shape[0]))
            assert thumb.max() == len(BLUES_RGB) - 1  # the diagonal is the darkest colour
            assert _decode_png_indices(payload.head_png(layer, head)).shape == thumb.shape


def test_single_thumbnail_png_is_bounded() -> None:
    png = thumbnail_png(np.eye(500, dtype=np.float32), max_size=96)
    idx = _decode_png_indices(png)
    assert max(idx.shape) <= 96 and np.array_equal(idx.argmax(1), np.arange(idx.shape[0]))


def test_mean_binning_preserves_row_sums() -> None:
    w = _softmax_rows((2, 200, 301), seed=1)
    binned = bin_attention(w, 7, 5, how="mean")
    assert binned.shape == (2, 29, 61)  # ⌈200/7⌉, ⌈301/5⌉: the last blocks are shorter
    assert np.allclose(binned.sum(axis=-1), 1.0, atol=1e-5)


def test_max_binning_is_the_block_maximum() -> None:
    w = _softmax_rows((13, 10), seed=2)
    binned = bin_attention(w, 4, 3, how="max")
    for i in range(binned.shape[0]):
        for j in range(binned.shape[1]):
            assert binned[i, j] == w[4 * i : 4 * i + 4, 3 * j : 3 * j + 3].max()


def test_colormap_gets_darker_monotonically() -> None:
    luma = BLUES_RGB.astype(float) @ np.array([0.2126, 0.7152, 0.0722])
    assert BLUES_RGB.shape == (255, 3) and np.all(np.diff(luma) <= 1e-9)
    assert luma[0] > 240 and luma[-1] < 60


def test_head_at_inverts_cell_origin() -> None:
    payload = grid_payload(_softmax_rows((3, 4, 10, 12)), [str(i) for i in range(12)], [str(i) for i in range(10)])
    for layer in range(3):
        for head in range(4):
            y, x = payload.cell_origin(layer, head)
            assert payload.head_at(x + 1, y + 1) == (layer, head)
    assert payload.head_at(0, 0) is None  # the outer gap
    assert payload.query_len == 10 and payload.key_len == 12 and payload.upscale > 1


def test_repeated_tokens_keep_separate_columns() -> None:
    tokens = ["the", "cat", "sat", "on", "the", "mat"]
    w = _softmax_rows((6, 6), seed=3)
    view = head_figure(w, tokens)
    trace = view.figure.data[0]
    assert np.asarray(trace.z).shape == (6, 6)
    assert list(trace.x) == list(range(6))
    xaxis = view.figure.layout.xaxis
    assert list(xaxis.tickvals) == list(range(6)) and list(xaxis.ticktext) == tokens
    assert list(xaxis.ticktext).count("the") == 2
    assert np.allclose(np.asarray(trace.z), w)  # full resolution: the model's numbers
    assert not view.binned and view.nbytes > 0


def test_large_head_is_binned_on_the_server() -> None:
    w = _softmax_rows((512, 512), seed=4)
    view = head_figure(w, [f"t{i}" for i in range(512)])
    z = np.asarray(view.figure.data[0].z)
    assert view.binned and max(z.shape) <= 128
    assert np.allclose(z.sum(axis=1), 1.0, atol=1e-4)
    assert view.nbytes < 400_000


def test_shape_and_token_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError):
        grid_payload(np.zeros((2, 2, 3, 3)), ["a", "b"])
    with pytest.raises(ValueError):
        head_figure(np.zeros((3, 4)), ["a", "b", "c"])
