"""A smoke run of bench/hostile_class.py (issue 25): a few of its cheaper attacks, through the bench's own
functions, each in a temporary runs folder, must hold (the bench itself replays them all)."""

from __future__ import annotations

import io
import zipfile
import zlib

import pytest

from bench import hostile_class
from bench.hostile_class import Held, Lab

ATTACKS = (
    hostile_class.takeover_cookie,
    hostile_class.memory_huge_config,
    pytest.param(hostile_class.memory_bomb, marks=pytest.mark.slow),  # 24 MB of deflate made: 2–3 s
    hostile_class.memory_upload,
    hostile_class.leak_page_error,
    hostile_class.leak_server_flags,
    hostile_class.leak_model_name,  # the others well under 2 s each: no training, no model page
    # the two the bench's first run found open (a bad run.json broke a restarted server's studio; a
    # deck's title was drawn as markdown): AppTest page runs, seconds each
    pytest.param(hostile_class.lockout_hostile_records, marks=pytest.mark.slow),
    pytest.param(hostile_class.markup_deck_title, marks=pytest.mark.slow),
)


@pytest.fixture
def lab():
    with hostile_class.class_lab() as made:
        yield made


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda fn: fn.__name__)
def test_a_cheap_attack_is_held(lab: Lab, attack):
    result = hostile_class.attack(lab, attack)
    assert isinstance(result, Held) and result.held, result.detail


def test_the_bombs_crc_is_zlibs_and_its_sizes_are_declared():
    for n in (0, 1, 1000, 65_537):
        assert hostile_class._crc32_of_zeros(n) == zlib.crc32(bytes(n))
    bomb = hostile_class.zip_bomb(chunks=2)  # 128 MiB of zeros: small enough to read back here
    with zipfile.ZipFile(io.BytesIO(bomb)) as archive:
        sizes = {i.filename: i.file_size for i in archive.infolist()}
        assert sizes["checkpoint/config.json"] == 2 * hostile_class.BOMB_CHUNK
        with archive.open("checkpoint/config.json") as fh:  # a valid zip: its CRC checks out when read
            while fh.read(1 << 24):
                pass


def test_a_failed_attack_reads_not_held(lab: Lab):
    def boom(_: Lab) -> Held:
        raise ValueError("the product gave way")

    result = hostile_class.attack(lab, boom)
    assert not result.held and "ValueError" in result.detail
    assert hostile_class.line("x", result, 1.0).startswith("NOT HELD")
