"""The on-disk kernel cache: compile a kernel once per machine, not once per process.

Place in the pipeline: after codegen, before the driver. The compiler asks `make_key` for a digest of
everything that decides the compiled code, then `get_or_compile(key, compile_fn)`; on a hit the
artifacts come from disk and no stage runs. The cache knows nothing of any IR: an entry is a set of
named artifacts ("ttir", "llir", "ptx", "cubin"...), each text or bytes, plus a JSON metadata dict.

On disk an entry is a directory `<cache_dir>/<key[:2]>/<key>/`: one file per artifact, and a
`manifest.json` that lists every file with its size and sha256, and the metadata, and holds a
sha256 of itself. An entry is built in a private staging directory and renamed into place in one
step, so a reader sees all of it or none of it. A reader trusts nothing: an entry whose manifest or
files do not check out, or a file where an entry's folder should be, is removed and reported as a
miss, so the kernel is recompiled. What a killed writer leaves (a staging folder, a temporary file)
is swept away by the next process that reads or writes beside it. Chapter: 09-ptx-driver-cache.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import socket
import tempfile
import time
import uuid
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import llvmlite.binding as llvm

from . import exercise_hooks, version

MANIFEST = "manifest.json"
_KEY = re.compile(r"[0-9a-f]{64}")
_ARTIFACT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


@dataclass
class Artifacts:
    """What compiling one kernel produced: `asm` maps a stage name to its text or binary output."""

    asm: dict[str, str | bytes]
    metadata: dict = field(default_factory=dict)


# --8<-- [start:settings]
CACHE_DIR = "MINITRITON_CACHE_DIR"  # the variable that moves the cache (`triton.knobs.cache.dir`)


def cache_dir() -> Path:
    """Where entries live: `MINITRITON_CACHE_DIR`, else the user's cache directory."""
    if explicit := os.environ.get(CACHE_DIR):
        return Path(explicit)
    user_cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(user_cache) / "minitriton"


def cache_enabled() -> bool:
    """`MINITRITON_CACHE=0` turns the on-disk cache off (every launch of a new process recompiles)."""
    return os.environ.get("MINITRITON_CACHE", "1") != "0"
# --8<-- [end:settings]


# --8<-- [start:key]
def make_key(**parts) -> str:
    """A sha256 digest of everything that decides the compiled code.

    The compiler passes: `source` (the kernel's source) and `dependencies` (the sources of every
    @jit function it calls, in call order), `signature` (argument types and divisibility-by-16
    facts), `constexprs` (their values), `options` (num_warps, num_stages, maxnreg), `target`
    ("sm_90a"), `libraries` (the bitcode files a launch links, by content), and `ptxas` (its
    version) when it assembles a cubin. Parts must be plain JSON
    values; the toolchain's versions are always added, so upgrading minitriton or LLVM misses the
    cache.
    """
    everything = {"parts": parts, "toolchain": toolchain_versions()}
    try:
        canonical = json.dumps(everything, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except TypeError as error:
        raise TypeError(f"a cache key part is not plain JSON ({error}); pass str, int, float, "
                        f"bool, None, lists or dicts with str keys") from None
    return hashlib.sha256(canonical.encode()).hexdigest()
# --8<-- [end:key]


# --8<-- [start:toolchain]
def toolchain_versions() -> dict[str, str]:
    """The versions of the tools that turn a kernel into machine code."""
    return {
        "minitriton": version.VERSION,
        # A changed compiler changes the code it emits, even before its version number moves.
        "minitriton_source": source_fingerprint(Path(__file__).parent),
        "llvm": ".".join(map(str, llvm.llvm_version_info)),
    }


@functools.cache
def source_fingerprint(package: Path) -> str:
    """A sha256 over the names and contents of the package's Python files."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
# --8<-- [end:toolchain]


class FileCache:
    """Entries under one root directory, written atomically and verified on every read."""

    def __init__(self, root: Path | str | None = None):
        self.root = Path(root) if root is not None else cache_dir()

    def _entry(self, key: str) -> Path:
        return self.root / _checked(key)[:2] / key

    # --8<-- [start:get]
    def get(self, key: str) -> Artifacts | None:
        """The entry's artifacts if the manifest and every file check out, else None (a miss)."""
        entry = self._entry(key)
        _sweep(entry.parent)
        if not entry.is_dir():
            if os.path.lexists(entry):  # a file (or a link to nothing) where the entry should be
                _discard(entry)
            return None
        try:
            manifest = json.loads((entry / MANIFEST).read_bytes())
            if set(manifest) != {"key", "files", "metadata", "sha256"} or manifest["key"] != key \
                    or manifest.pop("sha256") != _sha256(_canonical(manifest)):
                raise ValueError("the manifest is not the one written for this key")
            asm = {}
            for name, expected in manifest["files"].items():
                data = (entry / _checked_name(name)).read_bytes()
                if len(data) != expected["size"] or _sha256(data) != expected["sha256"]:
                    raise ValueError(f"{name} does not match the manifest")
                asm[name] = data.decode() if expected["text"] else data
            return Artifacts(asm, manifest["metadata"])
        except Exception:
            # Whatever is wrong (truncated, garbled, half-deleted, a folder for a file, not even
            # JSON, JSON of another shape), the answer is the same: recompile. A cache must never be
            # the reason a launch fails.
            _discard(entry)
            return None
    # --8<-- [end:get]

    # --8<-- [start:put]
    def put(self, key: str, artifacts: Artifacts) -> None:
        """Store an entry; if another process stored a good one for this key first, keep theirs."""
        entry = self._entry(key)
        make_folder(entry.parent)
        _sweep_once(self.root)
        staging = Path(tempfile.mkdtemp(prefix=_staging_prefix(key), dir=entry.parent))
        try:
            files = {}
            for name, content in artifacts.asm.items():
                if not isinstance(content, (str, bytes)):
                    raise TypeError(f"artifact {name!r} is a {type(content).__name__}, not str or bytes")
                data = content.encode() if isinstance(content, str) else content
                (staging / _checked_name(name)).write_bytes(data)
                files[name] = {"size": len(data), "sha256": _sha256(data),
                               "text": isinstance(content, str)}
            # The manifest goes last: a staging directory without one is never a valid entry. Its
            # own digest covers the metadata, which no artifact's digest does.
            manifest = {"key": key, "files": files, "metadata": artifacts.metadata}
            manifest["sha256"] = _sha256(_canonical(manifest))
            (staging / MANIFEST).write_text(json.dumps(manifest, sort_keys=True, indent=1))
            for attempt in range(3):
                try:
                    os.rename(staging, entry)  # atomic; fails while another writer's entry is there
                    return
                except OSError:
                    if self.get(key) is not None:
                        return  # theirs is as good as ours
                    if attempt == 2:
                        raise
                    # Theirs was broken and get() removed it (or it was never there): try again.
        finally:
            shutil.rmtree(staging, ignore_errors=True)  # already gone if it was published
    # --8<-- [end:put]

    # --8<-- [start:json]
    def get_json(self, key: str):
        """A small record stored with put_json (autotuning results), or None. What it holds is the
        reader's to check: any JSON value may be there."""
        path = self._record(key)
        try:
            return json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except Exception:  # a folder, a garbled or truncated file, binary garbage: a miss
            _discard(path)
            return None

    def put_json(self, key: str, record) -> None:
        path = self._record(key)
        make_folder(path.parent)
        _sweep(path.parent)
        if path.is_dir():  # a folder where the record should be: nothing could replace it
            _discard(path)
        _write_atomically(path, json.dumps(record, sort_keys=True).encode())

    def _record(self, key: str) -> Path:
        return self.root / "autotune" / f"{_checked(key)}.json"
    # --8<-- [end:json]


# --8<-- [start:get_or_compile]
def get_or_compile(key: str, compile_fn: Callable[[], Artifacts],
                   cache: FileCache | None = None) -> Artifacts:
    """The cached artifacts for `key`, else `compile_fn()`'s, stored for the next process. A compile
    with a reader's piece in it (`exercise_hooks`) neither reads nor writes the cache, and a key of
    None (a kernel that depends on a value with no plain form) is compiled and not stored."""
    if key is None or not cache_enabled() or exercise_hooks.installed():
        return compile_fn()
    cache = cache or FileCache()
    if (hit := cache.get(key)) is not None:
        return hit
    artifacts = compile_fn()
    try:
        cache.put(key, artifacts)
    except OSError as error:
        cannot_write(cache.root, error)
    return artifacts
# --8<-- [end:get_or_compile]


_WARNED: set[Path] = set()


def cannot_write(root: Path, error: OSError) -> None:
    """Warn, once a process for each cache folder, that nothing can be stored there (read-only,
    full, not a folder): kernels still run, and are compiled again in each process."""
    if root not in _WARNED:
        _WARNED.add(root)
        warnings.warn(f"minitriton: could not write the kernel cache in {root} ({error}); kernels are "
                      f"compiled again in each process: set MINITRITON_CACHE_DIR to a writable directory",
                      stacklevel=3)


# --8<-- [start:sweep]
STALE_AFTER = 600  # seconds: writing an entry takes milliseconds, so older staging was abandoned
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
_STAGING = re.compile(r"\..*\.(\d+)-([0-9a-f]{8})\.[^.]*")  # .<name>.<pid>-<host>.<random>


def _staging_prefix(name: str) -> str:
    """A writer's staging folders and temporary files are named by its process and machine, so
    that another process can tell when their writer is gone."""
    return f".{name}.{os.getpid()}-{_HOST}."


def _sweep(folder: Path) -> None:
    """Remove what writers that died left in `folder`: the trash of a removal, and staging folders
    and temporary files whose process is gone from this machine, or that are older than
    STALE_AFTER (a writer on another machine, or one that named them otherwise)."""
    try:
        leftovers = [e for e in os.scandir(folder) if e.name.startswith(".")]
    except OSError:
        return
    for leftover in leftovers:
        staging = _STAGING.fullmatch(leftover.name)
        try:
            age = time.time() - leftover.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        if leftover.name.startswith(".trash.") or age > STALE_AFTER or \
                staging and staging[2] == _HOST and not _alive(int(staging[1])):
            remove(Path(leftover.path))


@functools.cache
def _sweep_once(root: Path) -> None:
    """Every folder of the cache, swept by the first write of a process."""
    for folder in [root / "autotune", *(p for p in _listing(root) if len(p.name) == 2)]:
        _sweep(folder)


def _alive(pid: int) -> bool:
    """Whether process `pid` runs on this machine (a zombie, killed but not yet waited for, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True
# --8<-- [end:sweep]


def _listing(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def _checked(key: str) -> str:
    """Keys become path names, so only make_key's digests are accepted."""
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError(f"cache key {key!r} is not a sha256 hex digest; make it with make_key()")
    return key


def _checked_name(name: str) -> str:
    """Artifact names become file names beside the manifest, so they must be plain."""
    if not _ARTIFACT_NAME.fullmatch(name) or name == MANIFEST:
        raise ValueError(f"artifact name {name!r} cannot be a file name in the cache")
    return name


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def _write_atomically(path: Path, data: bytes) -> None:
    """Write to a temporary file beside `path`, then rename it over `path` in one step."""
    fd, temporary = tempfile.mkstemp(prefix=_staging_prefix(path.name), dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _discard(path: Path) -> None:
    """Remove a broken entry or record, whatever it is; rename it away first so no reader finds it
    half-deleted."""
    trash = path.with_name(f".trash.{uuid.uuid4().hex}")
    try:
        os.rename(path, trash)
    except OSError:
        return  # someone else removed it already, or the folder is read-only
    remove(trash)


def remove(path: Path) -> None:
    """Remove a folder, a file or a link, whichever `path` is (nothing where removing fails)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except OSError:
            pass


def make_folder(folder: Path) -> None:
    """Make one of the cache's own folders (a shard, `autotune`, `launcher`), removing a file in its
    place (never the root, which the user names)."""
    if not folder.is_dir() and os.path.lexists(folder):
        _discard(folder)
    folder.mkdir(parents=True, exist_ok=True)
