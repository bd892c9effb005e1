"""The on-disk cache: keys, round trips, settings, broken entries and concurrent writers."""
from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import llvmlite.binding
import numpy as np
import pytest

import minitriton
from minitriton import cache
from minitriton.cache import Artifacts, FileCache, get_or_compile, make_key

KEY_PARTS = dict(
    source="def add(x, y, out, n, BLOCK: tl.constexpr): ...",
    dependencies=["def helper(x): return x + 1"],
    signature={"x": "*fp32:16", "y": "*fp32:16", "out": "*fp32:16", "n": "i32"},
    constexprs={"BLOCK": 1024},
    options={"num_warps": 4, "num_stages": 3},
    target="sm_90a",
)


def sample_artifacts(cubin_size: int = 4096) -> Artifacts:
    rng = np.random.default_rng(0)
    return Artifacts(
        asm={
            "ttir": "tt.func @add(...) { ... }\n",
            "llir": "define ptx_kernel void @add(ptr addrspace(1) %0) { ret void }\n",
            "ptx": ".version 8.0\n.target sm_90a\n// µ non-ASCII survives\n",
            "cubin": rng.integers(0, 256, cubin_size, dtype=np.uint8).tobytes(),
        },
        metadata={"name": "add", "num_warps": 4, "shared": 0},
    )


@pytest.fixture
def store(tmp_path, monkeypatch) -> FileCache:
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MINITRITON_CACHE", raising=False)
    return FileCache()


class CountingCompiler:
    """A compile_fn that counts how often it runs."""

    def __init__(self):
        self.calls = 0

    def __call__(self) -> Artifacts:
        self.calls += 1
        return sample_artifacts()


# ---- keys ----------------------------------------------------------------------------------

def test_key_is_a_sha256_digest_independent_of_argument_order():
    key = make_key(**KEY_PARTS)
    assert len(key) == 64 and int(key, 16) >= 0
    assert make_key(**dict(reversed(KEY_PARTS.items()))) == key


@pytest.mark.parametrize("part", sorted(KEY_PARTS))
def test_key_changes_when_any_part_changes(part):
    changed = dict(KEY_PARTS, **{part: {"changed": KEY_PARTS[part]}})
    assert make_key(**changed) != make_key(**KEY_PARTS)


def test_key_changes_with_a_nested_value():
    changed = dict(KEY_PARTS, options={"num_warps": 8, "num_stages": 3})
    assert make_key(**changed) != make_key(**KEY_PARTS)


def test_key_changes_with_the_minitriton_version(monkeypatch):
    before = make_key(**KEY_PARTS)
    monkeypatch.setattr(minitriton.version, "VERSION", "999.0")
    assert make_key(**KEY_PARTS) != before


def test_key_changes_with_the_llvm_version(monkeypatch):
    before = make_key(**KEY_PARTS)
    monkeypatch.setattr(llvmlite.binding, "llvm_version_info", (99, 0, 0))
    assert make_key(**KEY_PARTS) != before


def test_key_changes_when_the_compiler_source_changes(tmp_path):
    (tmp_path / "codegen").mkdir()
    (tmp_path / "codegen" / "llvm.py").write_text("EMIT = 'add'\n")
    before = cache.source_fingerprint(tmp_path / "codegen")
    (tmp_path / "codegen" / "llvm.py").write_text("EMIT = 'sub'\n")
    cache.source_fingerprint.cache_clear()
    assert cache.source_fingerprint(tmp_path / "codegen") != before


def test_key_parts_must_be_plain_json():
    with pytest.raises(TypeError, match="plain JSON"):
        make_key(source=object())


@pytest.mark.parametrize("key", ["", "ab", "../" + "0" * 61, "A" * 64, 42])
def test_keys_that_are_not_digests_are_refused(store, key):
    with pytest.raises(ValueError, match="make_key"):
        store.get(key)


# ---- round trip and settings -------------------------------------------------------------------

def test_round_trip_keeps_text_bytes_and_metadata(store):
    key = make_key(**KEY_PARTS)
    assert store.get(key) is None
    store.put(key, sample_artifacts())
    hit = store.get(key)
    assert hit == sample_artifacts()
    assert isinstance(hit.asm["ptx"], str) and isinstance(hit.asm["cubin"], bytes)


def test_entry_layout_and_manifest(store, tmp_path):
    key = make_key(**KEY_PARTS)
    store.put(key, sample_artifacts())
    entry = tmp_path / "cache" / key[:2] / key
    assert sorted(p.name for p in entry.iterdir()) == ["cubin", "llir", "manifest.json", "ptx", "ttir"]
    manifest = json.loads((entry / "manifest.json").read_text())
    assert manifest["files"]["cubin"]["size"] == 4096
    assert manifest["metadata"]["name"] == "add"


def test_bad_artifact_names_and_types_are_refused(store):
    key = make_key(**KEY_PARTS)
    with pytest.raises(ValueError, match="file name"):
        store.put(key, Artifacts({"../ptx": "x"}))
    with pytest.raises(ValueError, match="file name"):
        store.put(key, Artifacts({"manifest.json": "x"}))
    with pytest.raises(TypeError, match="not str or bytes"):
        store.put(key, Artifacts({"cubin": 5}))
    assert list((store.root / key[:2]).iterdir()) == []  # no staging directory left behind


def test_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path / "here"))
    assert cache.cache_dir() == tmp_path / "here"
    monkeypatch.delenv("MINITRITON_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "minitriton"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "minitriton"


def test_cache_dir_moves_where_get_or_compile_writes(tmp_path, monkeypatch):
    monkeypatch.delenv("MINITRITON_CACHE", raising=False)
    key = make_key(**KEY_PARTS)
    compiler = CountingCompiler()
    for place in ("first", "second"):
        monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path / place))
        get_or_compile(key, compiler)
        assert FileCache(tmp_path / place).get(key) == sample_artifacts()
    assert compiler.calls == 2


def test_get_or_compile_compiles_once(store):
    key = make_key(**KEY_PARTS)
    compiler = CountingCompiler()
    assert get_or_compile(key, compiler) == sample_artifacts()
    assert get_or_compile(key, compiler) == sample_artifacts()
    assert compiler.calls == 1


def test_cache_off_compiles_every_time_and_writes_nothing(store, monkeypatch):
    monkeypatch.setenv("MINITRITON_CACHE", "0")
    assert not cache.cache_enabled()
    key = make_key(**KEY_PARTS)
    compiler = CountingCompiler()
    get_or_compile(key, compiler)
    get_or_compile(key, compiler)
    assert compiler.calls == 2
    assert not store.root.exists()


def test_an_unwritable_cache_warns_and_still_compiles(tmp_path, monkeypatch):
    monkeypatch.delenv("MINITRITON_CACHE", raising=False)
    (tmp_path / "a-file").write_text("not a directory")
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path / "a-file"))
    with pytest.warns(UserWarning, match="MINITRITON_CACHE_DIR"):
        assert get_or_compile(make_key(**KEY_PARTS), CountingCompiler()) == sample_artifacts()


# ---- broken entries ----------------------------------------------------------------------------

def truncate(entry: Path):
    data = (entry / "cubin").read_bytes()
    (entry / "cubin").write_bytes(data[: len(data) // 2])


def garble_one_byte(entry: Path):
    data = bytearray((entry / "ptx").read_bytes())
    data[3] ^= 0x01
    (entry / "ptx").write_bytes(bytes(data))


def delete_a_file(entry: Path):
    (entry / "llir").unlink()


def delete_the_manifest(entry: Path):
    (entry / "manifest.json").unlink()


def garbage_manifest(entry: Path):
    (entry / "manifest.json").write_bytes(b"\x00{not json")


def truncated_manifest(entry: Path):
    text = (entry / "manifest.json").read_text()
    (entry / "manifest.json").write_text(text[: len(text) // 2])


def manifest_of_the_wrong_shape(entry: Path):
    (entry / "manifest.json").write_text("[1, 2, 3]")


def manifest_pointing_outside(entry: Path):
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["files"]["../../secret"] = manifest["files"].pop("ptx")
    (entry / "manifest.json").write_text(json.dumps(manifest))


def manifest_of_another_key(entry: Path):
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["key"] = "0" * 64
    (entry / "manifest.json").write_text(json.dumps(manifest))


BREAKAGES = [truncate, garble_one_byte, delete_a_file, delete_the_manifest, garbage_manifest,
             truncated_manifest, manifest_of_the_wrong_shape, manifest_pointing_outside,
             manifest_of_another_key]


@pytest.mark.parametrize("break_entry", BREAKAGES, ids=lambda f: f.__name__)
def test_a_broken_entry_is_a_miss_and_is_recompiled(store, break_entry):
    key = make_key(**KEY_PARTS)
    store.put(key, sample_artifacts())
    entry = store.root / key[:2] / key
    break_entry(entry)

    assert store.get(key) is None
    assert not entry.exists()  # removed, so the next put starts clean
    compiler = CountingCompiler()
    assert get_or_compile(key, compiler) == sample_artifacts()
    assert compiler.calls == 1
    assert store.get(key) == sample_artifacts()


def test_put_replaces_a_broken_entry(store):
    key = make_key(**KEY_PARTS)
    store.put(key, sample_artifacts())
    garble_one_byte(store.root / key[:2] / key)
    store.put(key, sample_artifacts())
    assert store.get(key) == sample_artifacts()


# ---- concurrent writers --------------------------------------------------------------------------

def put_after_barrier(root: str, key: str, barrier) -> None:
    barrier.wait()
    FileCache(root).put(key, sample_artifacts(cubin_size=1 << 20))
    assert FileCache(root).get(key) == sample_artifacts(cubin_size=1 << 20)


def test_eight_processes_putting_one_key_leave_one_good_entry(tmp_path):
    spawn = multiprocessing.get_context("spawn")
    key = make_key(**KEY_PARTS)
    barrier = spawn.Barrier(8)
    writers = [spawn.Process(target=put_after_barrier, args=(str(tmp_path), key, barrier))
               for _ in range(8)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=120)
    assert [writer.exitcode for writer in writers] == [0] * 8

    assert [p.name for p in (tmp_path / key[:2]).iterdir()] == [key]  # no staging left behind
    entry = tmp_path / key[:2] / key
    manifest = json.loads((entry / "manifest.json").read_text())
    for name, expected in manifest["files"].items():
        assert (entry / name).stat().st_size == expected["size"]
    assert FileCache(tmp_path).get(key) == sample_artifacts(cubin_size=1 << 20)


# ---- autotuning records --------------------------------------------------------------------------

def test_json_records_round_trip(store):
    key = make_key(kernel="matmul", shape=[1000, 1000, 1000])
    assert store.get_json(key) is None
    store.put_json(key, {"BLOCK_M": 128, "num_warps": 8})
    assert store.get_json(key) == {"BLOCK_M": 128, "num_warps": 8}
    assert (store.root / "autotune" / f"{key}.json").is_file()
    assert [p.name for p in (store.root / "autotune").iterdir()] == [f"{key}.json"]


def test_a_broken_json_record_is_a_miss(store):
    key = make_key(kernel="matmul")
    store.put_json(key, {"BLOCK_M": 128, "num_warps": 8})
    path = store.root / "autotune" / f"{key}.json"
    path.write_text(path.read_text()[:-3])
    assert store.get_json(key) is None
    assert not path.exists()
