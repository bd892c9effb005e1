"""Exercise 9.5 (a compiler piece): a cache entry in one file, published in one step and trusted
only after it is checked.

A wrong solution, for the tests to catch: a damaged entry is a miss but stays on disk.
"""
import hashlib
import json
import os
import tempfile
from pathlib import Path


def entry(root: Path, key: str) -> Path:
    return Path(root) / f"{key}.entry"


def put(root: Path, key: str, asm: dict[str, str | bytes], metadata: dict) -> None:
    files, payload = {}, bytearray()
    for name, content in asm.items():
        if not isinstance(content, (str, bytes)):
            raise TypeError(f"artifact {name!r} is a {type(content).__name__}, not str or bytes")
        data = content.encode() if isinstance(content, str) else content
        files[name] = {"offset": len(payload), "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                       "text": isinstance(content, str)}
        payload += data
    header = json.dumps({"key": key, "metadata": metadata, "files": files}, sort_keys=True).encode()
    Path(root).mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=root, prefix=f".{key}.", suffix=".partial")  # a name of its own
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(header + b"\n" + payload)
        os.replace(temporary, entry(root, key))  # readers see the old file or the new one, never a part
    finally:
        Path(temporary).unlink(missing_ok=True)  # gone already if it was published


def get(root: Path, key: str) -> tuple[dict[str, str | bytes], dict] | None:
    path = entry(root, key)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        header, _, payload = data.partition(b"\n")
        header = json.loads(header)
        if header["key"] != key:
            raise ValueError("the entry of another key")
        asm, end = {}, 0
        for name, file in header["files"].items():
            content = payload[file["offset"]:file["offset"] + file["size"]]
            if len(content) != file["size"] or hashlib.sha256(content).hexdigest() != file["sha256"]:
                raise ValueError(f"{name} does not match its header")
            asm[name] = content.decode() if file["text"] else content
            end = max(end, file["offset"] + file["size"])
        if end != len(payload):
            raise ValueError("bytes past the last artifact")
        return asm, header["metadata"]
    except Exception:  # whatever is wrong, the answer is the same: compile again
        return None
