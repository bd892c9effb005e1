"""Exercise 9.1 (a compiler piece): a canonical cache key.

The disk cache (chapter 9) files a compiled kernel under a key made of everything that decides the
compiled code. Write `cache_key(**parts)`: a sha256 digest, as 64 lowercase hex characters, of the
parts. Parts are plain JSON values: str, int, float, bool, None, lists, and dicts with str keys.

- The same parts give the same key whatever order they come in: the order of the keyword
  arguments, and the order of the keys of every dict, at any depth.
- Anything else that differs gives a different key: 1, 1.0, "1" and True are four different
  values; [1, 2] and [2, 1] are different lists; a part set to None differs from a part left out;
  a string that contains a comma or an equals sign cannot be mistaken for two parts.

`json` and `hashlib` have what you need.
"""


def cache_key(**parts) -> str:
    raise NotImplementedError("exercise 9.1: cache_key")
