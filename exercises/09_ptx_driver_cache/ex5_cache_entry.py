"""Exercise 9.5 (a compiler piece): a cache entry in one file, published in one step and trusted
only after it is checked.

minitriton's disk cache (chapter 9) keeps each entry as a directory with a manifest. Here an entry
is one file, `<root>/<key>.entry`, which holds

    a header: one line of JSON, {"key": key, "metadata": metadata, "files": {name: {"offset": o,
              "size": s, "sha256": hex digest, "text": true or false}, ...}}, then b"\\n";
    a payload: the artifacts' bytes, one after another (a str artifact as its UTF-8 bytes); each
              file's offset counts from the first byte after the header's newline.

Write

1. `put(root, key, asm, metadata)`: store `asm` (artifact name -> str or bytes) and `metadata` (a
   JSON-able dict) as the entry for `key`, creating `root` if needed. Another process may be
   reading the entry, or writing it too, at the same moment: nobody may ever see part of an entry.
   Write the whole file under a temporary name in `root` that no other writer uses and that does
   not end in ".entry", then move it onto the entry's name with `os.replace`, which is atomic. An
   artifact that is neither str nor bytes raises TypeError and leaves no file behind.
2. `get(root, key)` -> (asm, metadata), or None. A missing entry is None. So is every other thing
   that can be wrong with one (a header that is not JSON or not for this key, a file whose size or
   sha256 does not match, bytes missing, bytes left over): then also remove the file, so the
   kernel is compiled again and its entry replaced. A str artifact comes back as str, bytes as bytes.
"""
from pathlib import Path


def put(root: Path, key: str, asm: dict[str, str | bytes], metadata: dict) -> None:
    raise NotImplementedError("exercise 9.5: put")


def get(root: Path, key: str) -> tuple[dict[str, str | bytes], dict] | None:
    raise NotImplementedError("exercise 9.5: get")
