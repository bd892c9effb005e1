"""Cache faults: stale kernels and broken caches, family by family.

- A kernel reads module-level values (numbers, strings, containers, dtypes, constexprs, objects,
  @jit functions) as they are when it compiles: the interpreter follows a change at once, and the
  disk cache keys each value, so a process after an edit compiles again.
- A @jit function given as a constexpr is keyed by its source: a new process finds the kernel on disk.
- What a killed writer leaves is swept; a file or folder in the place of the cache's own is healed.
- Every file of a real entry and every field of its manifest, damaged in every way, and every
  malformed autotuning record, is a miss that is compiled (or tuned) again: never a crash, never a
  kernel that is not the one asked for. A read-only cache still runs kernels, with one warning.
The launches that a changed global stops on the GPU path are in tests/test_jit.py.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import uuid
import warnings
from pathlib import Path

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import cache
from minitriton.cache import Artifacts, FileCache, make_key
from minitriton.specialize import NoStableKey, key_json
from minitriton.codegen import backend as cuda_backend
from minitriton.codegen import ptx

ROOT = Path(__file__).resolve().parent.parent
needs_ptxas = pytest.mark.skipif(ptx.ptxas_path() is None, reason="ptxas is not installed here")

# ------------------------------------------------------------------------------------ module-level values

PRELUDE = '''
import enum
import types
import numpy as np
import minitriton as triton
import minitriton.language as tl


@triton.jit
def double(x):
    return x * 2.0


@triton.jit
def triple(x):
    return x * 3.0


@triton.jit
def times_g(x):
    return x * G


class Mode(enum.Enum):
    DOUBLE = 2
    TRIPLE = 3


G = 2.0
'''

KERNEL = '''
@triton.jit
def {name}(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * ({factor}), mask=mask)
'''

# id: (the module's definition, a statement that changes it, the kernel's factor, factor before, after)
GLOBALS = {
    "float": ("SCALE = 2.0", "SCALE = 3.5", "SCALE", 2.0, 3.5),
    "int": ("N = 2", "N = 5", "N", 2, 5),
    "bool": ("FLAG = True", "FLAG = False", "2.0 if FLAG else 3.0", 2.0, 3.0),
    "str": ("MODE = 'double'", "MODE = 'triple'", "2.0 if MODE == 'double' else 3.0", 2.0, 3.0),
    "int to float": ("WIDTH = 2", "WIDTH = 2.5", "WIDTH", 2, 2.5),
    "tuple": ("BLOCKS = (16, 2)", "BLOCKS = (16, 3)", "BLOCKS[1]", 2, 3),
    "list changed in place": ("SIZES = [16, 2]", "SIZES[1] = 3", "SIZES[1]", 2, 3),
    "dict changed in place": ("CFG = {'scale': 2.0}", "CFG['scale'] = 4.0", "CFG['scale']", 2.0, 4.0),
    "dict rebound": ("CFG = {'scale': 2.0}", "CFG = {'scale': 4.0}", "CFG['scale']", 2.0, 4.0),
    "nested": ("NEST = {'b': (1, [2.0, 5.0])}", "NEST['b'][1][0] = 3.0", "NEST['b'][1][0]", 2.0, 3.0),
    "constexpr": ("C = tl.constexpr(2.0)", "C = tl.constexpr(3.0)", "C", 2.0, 3.0),
    "dtype": ("DT = tl.float16", "DT = tl.int8", "tl.full((BLOCK,), 2.75, tl.float32).to(DT).to(tl.float32)", 2.75, 2.0),
    "enum": ("HOW = Mode.DOUBLE", "HOW = Mode.TRIPLE", "HOW.value", 2, 3),
    "numpy scalar": ("S = np.float32(2.0)", "S = np.float32(0.5)", "S", 2.0, 0.5),
    "object attribute": ("OPTS = types.SimpleNamespace(scale=2.0)", "OPTS.scale = 6.0", "OPTS.scale", 2.0, 6.0),
    "@jit function rebound": ("OP = double", "OP = triple", "OP(1.0)", 2.0, 3.0),
    "read by a called @jit function": ("G = 2.0", "G = 7.0", "times_g(1.0)", 2.0, 7.0),
    "@jit functions in a tuple": ("OPS = (double, triple)", "OPS = (triple, double)", "OPS[0](1.0)", 2.0, 3.0),
}


def kernel_name(case: str) -> str:
    return "k_" + "".join(c if c.isalnum() else "_" for c in case)


def globals_module(path: Path, changed: bool) -> str:
    """One kernel per case, each reading its own global; `changed`: with each change made."""
    text = PRELUDE
    for case, (define, change, factor, _, _) in GLOBALS.items():
        text += f"\n{define}\n" + (f"{change}\n" if changed else "") + KERNEL.format(name=kernel_name(case),
                                                                                       factor=factor)
    path.write_text(text)
    return text


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"{path.stem}_{uuid.uuid4().hex}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def launch(kernel, x):
    out = np.full(x.size, np.nan, np.float32)
    kernel[(triton.cdiv(x.size, 32),)](x, out, x.size, BLOCK=32)
    return out


@pytest.mark.no_ptx  # each case is compiled for a GPU below
@pytest.mark.parametrize("case", GLOBALS)
def test_the_interpreter_reads_a_changed_global_at_the_next_launch(case, tmp_path, monkeypatch):
    """As Triton's interpreter, which runs the kernel's Python with its module's globals."""
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    globals_module(tmp_path / "globals_live.py", changed=False)
    module = load(tmp_path / "globals_live.py")
    kernel = getattr(module, kernel_name(case))
    _, change, _, before, after = GLOBALS[case]
    x = np.random.default_rng(0).standard_normal(100).astype(np.float32)
    np.testing.assert_array_equal(launch(kernel, x), x * np.float32(before))
    np.testing.assert_array_equal(launch(kernel, x), x * np.float32(before))  # unchanged: the same kernel
    assert [key[-1].target for key in kernel.cache].count("interpreter") == 1
    exec(change, vars(module))
    np.testing.assert_array_equal(launch(kernel, x), x * np.float32(after))
    exec(GLOBALS[case][0], vars(module))  # back as it was
    np.testing.assert_array_equal(launch(kernel, x), x * np.float32(before))


@needs_ptxas
@pytest.mark.parametrize("case", GLOBALS)
def test_compiling_for_a_named_gpu_follows_a_changed_global(case, tmp_path, monkeypatch):
    """warmup(target=...) only compiles, nothing runs: the kernel is compiled again with the new value
    (launching the old one on a GPU raises instead: tests/test_jit.py)."""
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path / "cache"))
    globals_module(tmp_path / "globals_warm.py", changed=False)
    module = load(tmp_path / "globals_warm.py")
    kernel = getattr(module, kernel_name(case))
    x = np.zeros(100, np.float32)
    first = kernel.warmup(x, x, 100, BLOCK=32, grid=(1,), target="sm_80")
    assert kernel.warmup(x, x, 100, BLOCK=32, grid=(1,), target="sm_80") is first
    exec(GLOBALS[case][1], vars(module))
    second = kernel.warmup(x, x, 100, BLOCK=32, grid=(1,), target="sm_80")
    assert second is not first and second.asm["ttir"] != first.asm["ttir"]


def run_python(code: str, cache_dir: Path, cwd: Path) -> str:
    env = dict(os.environ, MINITRITON_CACHE_DIR=str(cache_dir), PYTHONPATH=f"{ROOT}{os.pathsep}{cwd}")
    env.pop("MINITRITON_INTERPRET", None)
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            env=env, cwd=cwd, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


COMPILE_EACH = '''
import json, sys
import numpy as np
from minitriton import cache
from minitriton.codegen import backend
built = []
build = backend.CUDABackend.build
backend.CUDABackend.build = lambda self, fn, *rest: built.append(fn.name) or build(self, fn, *rest)
import {module} as m
x = np.zeros(100, np.float32)
seen = {{}}
for case, name, constexprs in {launches}:
    built.clear()
    compiled = getattr(m, name).warmup(x, x, 100, BLOCK=32, grid=(1,), target="sm_80", **constexprs)
    seen[case] = "compiled" if built else "cached"
print(json.dumps(seen))
'''


@pytest.fixture(scope="module")
def processes_after_an_edit(tmp_path_factory):
    """What three processes sharing a cache did with each case's kernel: the first compiles, the
    second runs after each global was changed in the module's source, the third after that."""
    folder = tmp_path_factory.mktemp("globals_disk")
    launches = ", ".join(f"({case!r}, {kernel_name(case)!r}, {{}})" for case in GLOBALS)
    code = COMPILE_EACH.format(module="globals_disk", launches=f"[{launches}]")
    runs = []
    for changed in (False, True, True):
        globals_module(folder / "globals_disk.py", changed)
        shutil.rmtree(folder / "__pycache__", ignore_errors=True)
        runs.append(json.loads(run_python(code, folder / "cache", folder)))
    return runs


@needs_ptxas
@pytest.mark.parametrize("case", GLOBALS)
def test_a_process_after_an_edited_global_compiles_again(case, processes_after_an_edit):
    """The disk cache keys every value a kernel (and the functions it calls) reads."""
    assert [run[case] for run in processes_after_an_edit] == ["compiled", "compiled", "cached"]


class Opaque:
    """An object with no fields: known only by its address."""

    __slots__ = ()


@pytest.mark.parametrize("a, b", [
    (1, 1.0), (1, True), (1, "1"), (0.0, -0.0), ((16, 32), [16, 32]), ({1: 2}, {1: 2.0}), ({"a"}, ["a"]),
    (tl.float16, tl.bfloat16), (tl.constexpr(2), 2), (np.float32(2), np.float64(2)), (int, float),
])
def test_values_that_compile_differently_have_different_keys(a, b):
    assert json.dumps(key_json(a)) != json.dumps(key_json(b))


@pytest.mark.parametrize("a, b", [
    ({"x": 1, "y": 2}, {"y": 2, "x": 1}), (float("nan"), float("nan")), ([[1], {2}], [[1], {2}]),
    (tl.constexpr(tl.float16), tl.constexpr(tl.float16)),
])
def test_equal_values_have_one_key(a, b):
    assert json.dumps(key_json(a), sort_keys=True) == json.dumps(key_json(b), sort_keys=True)


def test_a_value_without_a_plain_form_has_no_key():
    with pytest.raises(NoStableKey):
        key_json(Opaque())


@needs_ptxas
def test_a_kernel_reading_a_value_without_a_plain_form_is_never_stored(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "opaque.py").write_text(PRELUDE + "\nclass Opaque:\n    __slots__ = ()\n\n\nTOKEN = Opaque()\n" +
                                        KERNEL.format(name="k", factor="2.0 if TOKEN is not None else 1.0"))
    module = load(tmp_path / "opaque.py")
    x = np.zeros(100, np.float32)
    assert "mul" in module.k.warmup(x, x, 100, BLOCK=32, grid=(1,), target="sm_80").asm["ptx"]
    assert not list((tmp_path / "cache").rglob("manifest.json"))


# ------------------------------------------------------------------------ @jit functions as constexprs

FUNCTIONS = '''
import minitriton as triton
import minitriton.language as tl
import functions_config as config

POWER = {power}


@triton.jit
def helper(x):
    return x * {factor} + POWER


@triton.jit
def apply(x_ptr, out_ptr, n, F: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, F(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)


@triton.jit
def apply_first(x_ptr, out_ptr, n, FS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, FS[0](tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)


@triton.jit
def through_a_global(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, helper(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)


@triton.jit
def through_a_module(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, config.scaled(tl.load(x_ptr + offs, mask=offs < n)) * config.SCALE, mask=offs < n)
'''

CONFIG = '''
import minitriton as triton

SCALE = {scale}


@triton.jit
def scaled(x):
    return x * 2.0
'''

# how the function reaches the kernel: the kernel, its constexprs, what the four processes do
# (the third edits `helper`, the fourth the globals POWER and config.SCALE)
WAYS = {
    "a constexpr argument": ("apply", "F=m.helper", ["compiled", "cached", "compiled", "compiled"]),
    "in a tuple given as a constexpr": ("apply_first", "FS=(m.helper,)", ["compiled", "cached", "compiled", "compiled"]),
    "called through a global": ("through_a_global", "", ["compiled", "cached", "compiled", "compiled"]),
    "through a module's attribute": ("through_a_module", "", ["compiled", "cached", "cached", "compiled"]),
}


@pytest.fixture(scope="module")
def processes_sharing_a_cache(tmp_path_factory):
    """Each way's kernel compiled by four processes sharing a cache: the second sees the same
    source, the third an edited function, the fourth an edited global it reads."""
    folder = tmp_path_factory.mktemp("functions")
    runs = []
    for factor, power, scale in [(2, 1, 1.0), (2, 1, 1.0), (3, 1, 1.0), (3, 2, 4.0)]:
        (folder / "functions.py").write_text(FUNCTIONS.format(factor=factor, power=power))
        (folder / "functions_config.py").write_text(CONFIG.format(scale=scale))
        shutil.rmtree(folder / "__pycache__", ignore_errors=True)
        launches = ", ".join(f"({way!r}, {name!r}, dict({constexprs}))" for way, (name, constexprs, _) in WAYS.items())
        runs.append(json.loads(run_python(COMPILE_EACH.format(module="functions", launches=f"[{launches}]"),
                                          folder / "cache", folder)))
    return runs


@needs_ptxas
@pytest.mark.parametrize("way", WAYS)
def test_a_jit_function_is_keyed_by_its_source_not_its_address(way, processes_sharing_a_cache):
    assert [run[way] for run in processes_sharing_a_cache] == WAYS[way][2]


def test_a_jit_function_constexpr_key_names_no_address():
    from minitriton.specialize import key_json

    @triton.jit
    def helper(x):
        return x

    text = json.dumps(key_json(helper))
    assert "0x" not in text and "object at" not in text


# ------------------------------------------------------------------------------- leftovers and heals

KEY = make_key(kernel="leftovers")
ARTIFACTS = Artifacts({"ptx": ".version 8.0\n", "cubin": b"\x7fELF" + bytes(64)}, {"name": "k"})


def killed_while(doing: str, root: Path) -> None:
    """A process that dies (SIGKILL) just before it publishes: `put` or `put_json`."""
    code = f'''
        import os, signal
        from minitriton.cache import Artifacts, FileCache
        die = lambda *args: os.kill(os.getpid(), signal.SIGKILL)
        os.rename = os.replace = die
        store = FileCache({str(root)!r})
        if {doing!r} == "put":
            store.put({KEY!r}, Artifacts({{"ptx": "x"}}))
        else:
            store.put_json({KEY!r}, {{"config": "x"}})
    '''
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True)
    assert result.returncode == -signal.SIGKILL, result.stderr


def dot_names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def aged(path: Path, seconds: float) -> Path:
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


LEFTOVERS = {
    # id: (make the leftover, where it lies, whether the next reader or writer removes it)
    "staging of a killed writer": (lambda root: killed_while("put", root), lambda root: root / KEY[:2], True),
    "temporary record of a killed writer": (lambda root: killed_while("put_json", root),
                                            lambda root: root / "autotune", True),
    "staging of another machine, old": (
        lambda root: aged(_made(root / KEY[:2] / f".{KEY}.123-abcdef01.x", dir=True), 2 * cache.STALE_AFTER),
        lambda root: root / KEY[:2], True),
    "staging named otherwise, old": (
        lambda root: aged(_made(root / KEY[:2] / f".{KEY}.tmp1234", dir=True), 2 * cache.STALE_AFTER),
        lambda root: root / KEY[:2], True),
    "trash of a killed remover": (lambda root: _made(root / KEY[:2] / ".trash.0123", dir=True),
                                  lambda root: root / KEY[:2], True),
    "staging of a live writer": (
        lambda root: _made(root / KEY[:2] / f"{cache._staging_prefix(KEY)}live", dir=True),
        lambda root: root / KEY[:2], False),
    "staging named otherwise, fresh": (lambda root: _made(root / KEY[:2] / f".{KEY}.tmp1234", dir=True),
                                       lambda root: root / KEY[:2], False),
}


def _made(path: Path, dir: bool) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if dir:
        path.mkdir()
        (path / "ptx").write_text("half written")
    else:
        path.write_text("half written")
    return path


@pytest.mark.parametrize("case", LEFTOVERS)
def test_what_a_dead_writer_left_is_swept(case, tmp_path):
    make, where, swept = LEFTOVERS[case]
    root = tmp_path / "cache"
    make(root)
    folder = where(root)
    assert dot_names(folder), "the leftover is there"
    store = FileCache(root)
    assert store.get(KEY) is None and store.get_json(KEY) is None
    store.put(KEY, ARTIFACTS)
    store.put_json(KEY, {"config": "y"})
    assert (dot_names(folder) == []) == swept
    assert store.get(KEY) == ARTIFACTS and store.get_json(KEY) == {"config": "y"}


def _file_at(path: Path) -> None:
    shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not what belongs here")


def _folder_at(path: Path) -> None:
    path.unlink(missing_ok=True)
    (path / "inside").mkdir(parents=True)


def _dangling_link_at(path: Path) -> None:
    shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(path.parent / "nowhere")


def _record(root: Path) -> Path:
    return root / "autotune" / f"{KEY}.json"


HEALS = {
    "an entry replaced by a file": (lambda root: _file_at(root / KEY[:2] / KEY)),
    "an entry replaced by a dangling link": (lambda root: _dangling_link_at(root / KEY[:2] / KEY)),
    "a shard folder replaced by a file": (lambda root: _file_at(root / KEY[:2])),
    "an entry's file replaced by a folder": (lambda root: _folder_at(root / KEY[:2] / KEY / "cubin")),
    "the manifest replaced by a folder": (lambda root: _folder_at(root / KEY[:2] / KEY / "manifest.json")),
    "a record replaced by a folder": (lambda root: _folder_at(_record(root))),
    "the autotune folder replaced by a file": (lambda root: _file_at(root / "autotune")),
}


@pytest.mark.parametrize("case", HEALS)
def test_something_in_the_place_of_the_caches_own_is_healed(case, tmp_path):
    root = tmp_path / "cache"
    store = FileCache(root)
    store.put(KEY, ARTIFACTS)
    store.put_json(KEY, {"config": "x"})
    HEALS[case](root)
    for _ in range(2):  # the first reader heals it and misses; a writer then succeeds
        hit, record = store.get(KEY), store.get_json(KEY)
        assert hit in (None, ARTIFACTS) and record in (None, {"config": "x"})
        if hit is None:
            store.put(KEY, ARTIFACTS)
        if record is None:
            store.put_json(KEY, {"config": "x"})
    assert store.get(KEY) == ARTIFACTS and store.get_json(KEY) == {"config": "x"}
    assert (root / KEY[:2] / KEY).is_dir() and _record(root).is_file()


# ------------------------------------------------------------------------- damaged entries, walked


@pytest.fixture(scope="module")
def pristine_entry(tmp_path_factory):
    """A real entry: a kernel compiled for sm_80 into a cache of its own, and its PTX."""
    folder = tmp_path_factory.mktemp("pristine")
    (folder / "walked.py").write_text(PRELUDE + "\nSCALE = 2.0\n" + KERNEL.format(name="walked", factor="times_g(SCALE)"))
    module = load(folder / "walked.py")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(cache.CACHE_DIR, str(folder / "cache"))
        x = np.zeros(100, np.float32)
        compiled = module.walked.warmup(x, x, 100, BLOCK=32, grid=(1,), target="sm_80")
    [manifest] = (folder / "cache").rglob("manifest.json")
    return module, manifest.parent, compiled


def _truncate(path: Path):
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


def _garble(path: Path):
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x40
    path.write_bytes(bytes(data))


DAMAGE = {
    "truncated": _truncate,
    "one byte garbled": _garble,
    "binary garbage": lambda path: path.write_bytes(np.random.default_rng(1).bytes(200)),
    "deleted": lambda path: path.unlink(),
    "a folder in its place": _folder_at,
    "empty": lambda path: path.write_bytes(b""),
    "an empty JSON object": lambda path: path.write_text("{}"),
    "JSON null": lambda path: path.write_text("null"),
}
FILES = ["manifest.json", "ttir", "layout", "llir", "ptx", "cubin"]


def _set_field(path: tuple, value):
    def damage(manifest: Path):
        data = json.loads(manifest.read_text())
        inner = data
        for part in path[:-1]:
            inner = inner[part]
        if value is KeyError:
            del inner[path[-1]]
        else:
            inner[path[-1]] = value
        manifest.write_text(json.dumps(data))
    return damage


FIELDS = [("key",), ("sha256",), ("files",), ("metadata",), ("files", "ptx"), ("files", "cubin", "size"),
          ("files", "ptx", "sha256"), ("files", "ptx", "text"), ("metadata", "name"),
          ("metadata", "runtime_args"), ("metadata", "signature"), ("metadata", "num_warps"),
          ("metadata", "shared_bytes"), ("metadata", "arch")]
WRONG = {"missing": KeyError, "null": None, "a list": [["x"]], "a string": "x", "a number": 7, "an object": {}}
WALK = {f"{file}: {how}": (file, damage) for file in FILES for how, damage in DAMAGE.items()}
WALK.update({f"manifest {'.'.join(path)}: {how}": ("manifest.json", _set_field(path, value))
             for path in FIELDS for how, value in WRONG.items()})
WALK["manifest: an extra field"] = ("manifest.json", _set_field(("extra",), 1))
WALK["manifest: num_warps changed, well typed"] = ("manifest.json", _set_field(("metadata", "num_warps"), 8))
WALK["manifest: shared_bytes changed, well typed"] = ("manifest.json", _set_field(("metadata", "shared_bytes"), 99))


@needs_ptxas
@pytest.mark.parametrize("case", WALK)
def test_a_damaged_entry_is_compiled_again(case, pristine_entry, tmp_path, monkeypatch):
    module, pristine, compiled = pristine_entry
    root = tmp_path / "cache"
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(root))
    entry = root / pristine.parent.name / pristine.name
    shutil.copytree(pristine, entry)
    file, damage = WALK[case]
    damage(entry / file)
    built = []
    build = cuda_backend.CUDABackend.build
    monkeypatch.setattr(cuda_backend.CUDABackend, "build", lambda self, *a: built.append(1) or build(self, *a))
    x = np.zeros(100, np.float32)
    for expected_builds in (1, 1):  # damaged: compiled again; then found whole
        module.walked.cache.clear()
        again = module.walked.warmup(x, x, 100, BLOCK=32, grid=(1,), target="sm_80")
        assert len(built) == expected_builds
        assert again.asm == compiled.asm and again.metadata == compiled.metadata
        assert again.runtime_args == compiled.runtime_args


@needs_ptxas
def test_the_walk_reaches_every_file_and_field(pristine_entry):
    _, pristine, _ = pristine_entry
    assert sorted(FILES) == sorted(p.name for p in pristine.iterdir())
    manifest = json.loads((pristine / "manifest.json").read_text())
    assert set(manifest) == {path[0] for path in FIELDS} and set(manifest["metadata"]) >= \
        {path[1] for path in FIELDS if path[0] == "metadata" and len(path) == 2}


# ------------------------------------------------------------------------- damaged autotuning records

TUNED = '''
import minitriton as triton
import minitriton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 64}, num_warps=2)], key=["n"])
@triton.jit
def tuned(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)
'''


def _edit_record(field: str, value):
    def damage(path: Path):
        record = json.loads(path.read_text())
        if value is KeyError:
            del record[field]
        elif callable(value):
            record[field] = value(record[field])
        else:
            record[field] = value
        path.write_text(json.dumps(record))
    return damage


RECORDS = {f"record: {how}": damage for how, damage in DAMAGE.items() if how != "deleted"}
RECORDS.update({f"{field}: {how}": _edit_record(field, value) for field in ("config", "timings", "failures")
                for how, value in WRONG.items() if (field, how) != ("failures", "missing")})
RECORDS.update({
    "config: not one of the configs": _edit_record("config", "BLOCK: 8, num_warps: 4, num_stages: 3"),
    "timings: a time that is a string": _edit_record("timings", lambda t: {k: "fast" for k in t}),
    "timings: a negative time": _edit_record("timings", lambda t: {k: -1.0 for k in t}),
    "failures: a reason that is a number": _edit_record("failures", lambda f: {"BLOCK: 16": 3}),
    "record: JSON nested too deep": lambda path: path.write_text("[" * 100000 + "]" * 100000),
})


@pytest.mark.parametrize("case", RECORDS)
def test_a_damaged_autotuning_record_is_tuned_again(case, tmp_path, monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "tuned_module.py").write_text(TUNED)
    x = np.random.default_rng(2).standard_normal(100).astype(np.float32)
    for round in range(3):  # writes the record; reads the damaged one; reads the rewritten one
        tuned = load(tmp_path / "tuned_module.py").tuned
        out = np.full(100, np.nan, np.float32)
        tuned[lambda meta: (triton.cdiv(100, meta["BLOCK"]),)](x, out, 100)
        np.testing.assert_array_equal(out, x + 1)
        [record] = (tmp_path / "cache" / "autotune").glob("*.json")
        if round == 0:
            RECORDS[case](record)
    assert json.loads(record.read_text())["config"] in {str(c) for c in tuned.configs}


# ---------------------------------------------------------------------------------- a read-only cache

@pytest.fixture
def read_only(tmp_path):
    """Make a folder and all it holds read-only, for this user (root too: the immutable flag)."""
    frozen = []

    def freeze(folder: Path):
        folders = [folder, *(p for p in folder.rglob("*") if p.is_dir())]
        if os.geteuid() == 0:
            done = subprocess.run(["chattr", "-R", "+i", str(folder)], capture_output=True)
            if done.returncode:
                pytest.skip("no way to make a folder read-only for root here (chattr failed)")
        else:
            for path in folders:
                path.chmod(0o555)
        frozen.append(folder)

    yield freeze
    for folder in frozen:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-R", "-i", str(folder)], capture_output=True)
        else:
            for path in [folder, *(p for p in folder.rglob("*") if p.is_dir())]:
                path.chmod(0o755)
        shutil.rmtree(folder)  # no damaged entry left for anything that reads the test folders


@needs_ptxas
@pytest.mark.parametrize("holding", ["nothing", "a good entry", "a damaged entry"])
def test_a_read_only_cache_still_runs_kernels_with_at_most_one_warning(holding, tmp_path, monkeypatch, read_only):
    root = tmp_path / "cache"
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(root))
    (tmp_path / "read_only.py").write_text(PRELUDE + KERNEL.format(name="a", factor="2.0") +
                                           KERNEL.format(name="b", factor="3.0"))
    module = load(tmp_path / "read_only.py")
    x = np.zeros(100, np.float32)
    reference = {name: getattr(module, name).warmup(x, x, 100, BLOCK=32, grid=(1,), target="sm_80")
                 for name in "ab"}
    if holding == "nothing":
        shutil.rmtree(root)
        root.mkdir()
    elif holding == "a damaged entry":
        for manifest in root.rglob("manifest.json"):
            _garble(manifest)
    read_only(root)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name in "ab":
            kernel = getattr(module, name)
            kernel.cache.clear()
            assert kernel.warmup(x, x, 100, BLOCK=32, grid=(1,), target="sm_80").asm == reference[name].asm
    assert len(caught) == (0 if holding == "a good entry" else 1), [str(w.message) for w in caught]
    if caught:
        assert "MINITRITON_CACHE_DIR" in str(caught[0].message)


def test_a_read_only_cache_still_tunes(tmp_path, monkeypatch, read_only):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    root = tmp_path / "cache"
    root.mkdir()
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(root))
    read_only(root)
    (tmp_path / "tuned_read_only.py").write_text(TUNED)
    tuned = load(tmp_path / "tuned_read_only.py").tuned
    x = np.arange(100, dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in (100, 50):
            out = np.full(100, np.nan, np.float32)
            tuned[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
            np.testing.assert_array_equal(out[:n], x[:n] + 1)
    assert len(caught) <= 1
