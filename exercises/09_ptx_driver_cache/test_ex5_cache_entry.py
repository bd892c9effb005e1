"""Tests for exercise 9.5: run with `pytest exercises/09_ptx_driver_cache/test_ex5_cache_entry.py`."""
import hashlib
import os
import threading

import pytest
from _impl import load

impl = load("09_ptx_driver_cache/ex5_cache_entry")
KEY, OTHER_KEY = hashlib.sha256(b"add_kernel").hexdigest(), hashlib.sha256(b"softmax_kernel").hexdigest()
ASM = {"ttir": "func @add_kernel(...)\n", "ptx": "// 2 µs a launch\n.visible .entry add_kernel()\n",
       "cubin": bytes(range(256)) * 5}
METADATA = {"name": "add_kernel", "shared_bytes": 0, "num_warps": 4}


def test_what_is_put_is_got(tmp_path):
    impl.put(tmp_path / "cache", KEY, ASM, METADATA)
    asm, metadata = impl.get(tmp_path / "cache", KEY)
    assert asm == ASM and metadata == METADATA
    assert isinstance(asm["ptx"], str) and isinstance(asm["cubin"], bytes)
    assert sorted(os.listdir(tmp_path / "cache")) == [f"{KEY}.entry"], "one file per entry, nothing else left"


def test_a_missing_entry_is_a_miss(tmp_path):
    assert impl.get(tmp_path, KEY) is None
    impl.put(tmp_path, KEY, ASM, METADATA)
    assert impl.get(tmp_path, OTHER_KEY) is None


def test_a_second_put_replaces_the_first(tmp_path):
    impl.put(tmp_path, KEY, ASM, METADATA)
    impl.put(tmp_path, KEY, {"ptx": "newer"}, {"name": "newer"})
    assert impl.get(tmp_path, KEY) == ({"ptx": "newer"}, {"name": "newer"})


def test_an_entry_with_no_artifacts(tmp_path):
    impl.put(tmp_path, KEY, {}, {})
    assert impl.get(tmp_path, KEY) == ({}, {})


def truncated(data, path):
    return data[:-1]


def extended(data, path):
    return data + b"\0"


def flipped(data, path):
    return data[:-100] + bytes([data[-100] ^ 1]) + data[-99:]


def not_json(data, path):
    return b"{not json" + data[data.index(b"\n"):]


def emptied(data, path):
    return b""


def of_another_key(data, path):
    impl.put(path.parent / "other", OTHER_KEY, ASM, METADATA)
    return (path.parent / "other" / f"{OTHER_KEY}.entry").read_bytes()


@pytest.mark.parametrize("damage", [truncated, extended, flipped, not_json, emptied, of_another_key],
                         ids=lambda f: f.__name__)
def test_a_damaged_entry_is_a_miss_and_is_removed(tmp_path, damage):
    impl.put(tmp_path, KEY, ASM, METADATA)
    path = tmp_path / f"{KEY}.entry"
    path.write_bytes(damage(path.read_bytes(), path))
    assert impl.get(tmp_path, KEY) is None
    assert not path.exists(), "a damaged entry must be removed"
    impl.put(tmp_path, KEY, ASM, METADATA)
    assert impl.get(tmp_path, KEY) == (ASM, METADATA)


def test_a_bad_artifact_leaves_no_file(tmp_path):
    with pytest.raises(TypeError):
        impl.put(tmp_path, KEY, {"ptx": "fine", "cubin": [1, 2, 3]}, METADATA)
    assert os.listdir(tmp_path) == []


def test_the_entry_appears_in_one_step(tmp_path, monkeypatch):
    """The entry's name is only ever given to a complete file, by os.replace."""
    replace, moves = os.replace, []

    def watched_replace(source, destination):
        assert impl.get(tmp_path, KEY) is None, "the entry existed before it was moved into place"
        assert os.path.dirname(os.path.abspath(source)) == str(tmp_path), "write the file in the same directory"
        assert not str(source).endswith(".entry"), "a temporary name must not look like an entry"
        moves.append(destination)
        replace(source, destination)

    monkeypatch.setattr(os, "replace", watched_replace)
    impl.put(tmp_path, KEY, ASM, METADATA)
    assert [os.path.basename(m) for m in moves] == [f"{KEY}.entry"]


def test_two_writers_at_once(tmp_path, monkeypatch):
    """A second writer puts the entry while the first is about to move its file into place: both
    succeed, and the first one's entry, moved last, is the one that stays."""
    replace, calls = os.replace, []

    def interrupted_replace(source, destination):
        calls.append(source)
        if len(calls) == 1:
            impl.put(tmp_path, KEY, {"ptx": "second"}, {"name": "second"})
        replace(source, destination)

    monkeypatch.setattr(os, "replace", interrupted_replace)
    impl.put(tmp_path, KEY, {"ptx": "first"}, {"name": "first"})
    assert calls[0] != calls[1], "two writers used one temporary file"
    assert impl.get(tmp_path, KEY) == ({"ptx": "first"}, {"name": "first"})
    assert sorted(os.listdir(tmp_path)) == [f"{KEY}.entry"], "temporary files were left behind"


def test_readers_never_see_part_of_an_entry_while_writers_write(tmp_path):
    """Four writers put the same large entry again and again while a reader reads it: every read
    after the first put finds it whole (a reader that found part of it would remove it)."""
    big = dict(ASM, cubin=os.urandom(1 << 20))
    impl.put(tmp_path, KEY, big, METADATA)
    errors, misses, stop = [], [], threading.Event()

    def write():
        try:
            for _ in range(15):
                impl.put(tmp_path, KEY, big, METADATA)
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    def read():
        while not stop.is_set():
            if impl.get(tmp_path, KEY) != (big, METADATA):
                misses.append(1)

    reader = threading.Thread(target=read)
    writers = [threading.Thread(target=write) for _ in range(4)]
    reader.start()
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    stop.set()
    reader.join()
    assert not errors, f"a writer failed: {errors[0]!r}"
    assert not misses, f"{len(misses)} reads found no whole entry"
    assert sorted(os.listdir(tmp_path)) == [f"{KEY}.entry"], "temporary files were left behind"
