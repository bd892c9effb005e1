"""The interpreter's memory: the arrays of a launch in one flat address space, so that pointers
are plain int64 addresses, as on the GPU. Loads, stores and atomics check every active lane against
the arrays (and the caller's read-only marks) and name the op's source line when one is outside
them. Also the conversions between values and the bits memory holds. Chapter: 03-tile-ir.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import ir
from .dtypes import bf16_bits, float_bits, float_from_bits
from .errors import InterpreterError, LaunchError, Loc


def as_dtype(dtype: ir.DType, x) -> Any:
    """`x` as a value of `dtype`: integers wrap, bf16 and fp8 are rounded to their numbers (an
    fp8 number stays itself, an infinity too: only a conversion saturates, see `_cast`; a NaN an op
    makes in bf16 is 0x7FFF, the one NaN the GPU's conversion to bf16 gives)."""
    if dtype.is_bf16():
        return float_from_bits(bf16_bits(x), dtype)
    if dtype.stored_as_bits:
        return float_from_bits(float_bits(x, dtype), dtype)
    return np.asarray(x).astype(dtype.np, copy=False)


def bits_of(x, dtype: ir.DType) -> np.ndarray:
    """The bit patterns of values of `dtype`, as unsigned integers of its width."""
    if dtype.stored_as_bits:
        return float_bits(x, dtype)
    return np.asarray(x).view(f"u{dtype.itemsize}")


def from_bits(bits: np.ndarray, dtype: ir.DType) -> np.ndarray:
    return float_from_bits(bits, dtype) if dtype.stored_as_bits else bits.view(dtype.np)


# ---------------------------------------------------------------------------------------------------
# Memory: the caller's arrays in one flat address space.
# ---------------------------------------------------------------------------------------------------

def _decode(stored: np.ndarray, dtype: ir.DType) -> np.ndarray:
    """Values of `dtype` from what memory holds (`DType.storage`: bf16, fp8 as bits, int1 as a byte)."""
    if dtype.stored_as_bits:
        return float_from_bits(stored, dtype)
    return stored != 0 if dtype.is_bool() else stored


def _encode(values, dtype: ir.DType) -> np.ndarray:
    if dtype.stored_as_bits:
        return float_bits(values, dtype)
    return np.asarray(values).astype(dtype.storage, copy=False)


@dataclass
class Allocation:
    """One caller's array: its name (the argument's), its base address and its bytes."""

    name: str
    base: int
    data: np.ndarray  # a uint8 view of the caller's array, so writes land in it
    writable: bool = True  # False for an array the caller marked read-only
    views: dict = field(default_factory=dict)

    @property
    def end(self) -> int:
        return self.base + self.data.size

    def view(self, storage: np.dtype) -> np.ndarray:
        """The array's whole elements as `storage` (cached: every load would ask again)."""
        if storage not in self.views:
            whole = self.data.size - self.data.size % storage.itemsize
            self.views[storage] = self.data[:whole].view(storage)
        return self.views[storage]


def _host_mappings() -> list[tuple[int, int, str]]:
    """This process's mapped address ranges and their permissions ("rw-p"...), from /proc/self/maps."""
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except OSError:  # not Linux: no pointer from an integer is known to be safe
        return []
    ranges = []
    for line in lines:
        span, perms = line.split()[:2]
        start, end = (int(x, 16) for x in span.split("-"))
        ranges.append((start, end, perms))
    return ranges


# --8<-- [start:memory]
class Memory:
    """Maps the caller's arrays into one address space, so pointers are plain int64 addresses.

    Each array sits at the address its kernel argument has on the device: a host array's own
    address, a GPU array's device address (its bytes copied to the host for the run). So a pointer
    a kernel reads from memory (a table of `data_ptr()`s) means what it means on the GPU, as long
    as it points into an array the launch was given. Views of one host buffer that overlap become
    one region. An address in no array, or misaligned for its type, is an error naming the nearest
    array; so is a write to an array the caller made read-only.
    """

    def __init__(self):
        self.allocations: list[Allocation] = []  # sorted by base, disjoint
        self._bases = np.empty(0, np.int64)
        self._sizes = np.empty(0, np.int64)
        self.host_pointers = False  # set for a kernel that makes pointers from integers

    def add(self, buffer: np.ndarray, name: str, address: int | None = None) -> int:
        """Map `buffer` (any dtype, contiguous) at `address` (by default where it lies in host
        memory) and return that address."""
        if not (buffer.flags.c_contiguous or buffer.flags.f_contiguous):
            raise LaunchError(f"argument {name!r}: the interpreter needs a contiguous array; "
                              f"pass np.ascontiguousarray(...) instead of a strided view")
        data = buffer.reshape(-1, order="A").view(np.uint8)
        base = buffer.ctypes.data if address is None else address
        new = Allocation(name, base, data, writable=bool(buffer.flags.writeable))
        overlapping = [a for a in self.allocations if a.base < new.end and new.base < a.end]
        if overlapping:
            new = self._merged(overlapping + [new])
        kept = [a for a in self.allocations if a not in overlapping] + [new]
        self.allocations = sorted(kept, key=lambda a: a.base)
        self._bases = np.array([a.base for a in self.allocations], np.int64)
        self._sizes = np.array([a.data.size for a in self.allocations], np.int64)
        return base

    @staticmethod
    def _merged(parts: list[Allocation]) -> Allocation:
        """One region for arrays whose bytes overlap: views of one host buffer, or one array given twice."""
        first, end = min(a.base for a in parts), max(a.end for a in parts)
        if all(a.base == parts[0].base and a.end == parts[0].end for a in parts):  # one array, given again
            return Allocation("/".join(dict.fromkeys(a.name for a in parts)), first, parts[0].data,
                              writable=all(a.writable for a in parts))
        if any(a.data.ctypes.data != a.base for a in parts):
            names = " and ".join(a.name for a in parts)
            raise LaunchError(f"arguments {names} overlap on the device but are different arrays, and the "
                              "interpreter copies each to the host on its own: pass arrays that do not overlap")
        union = np.ctypeslib.as_array((ctypes.c_uint8 * (end - first)).from_address(first))
        return Allocation("/".join(dict.fromkeys(a.name for a in parts)), first, union,
                          writable=all(a.writable for a in parts))

    def load(self, addresses, mask, dtype: ir.DType, loc: Loc | None) -> np.ndarray:
        """The values at `addresses` (0 where `mask` is false)."""
        shape = np.shape(addresses)
        out = np.zeros(int(np.prod(shape)), dtype.np)
        for lanes, stored, index in self._resolve("load reads", addresses, mask, dtype, loc):
            out[lanes] = _decode(stored[index], dtype)
        return out.reshape(shape)

    def store(self, addresses, values, mask, dtype: ir.DType, loc: Loc | None) -> None:
        values = np.broadcast_to(values, np.shape(addresses)).reshape(-1)
        for lanes, stored, index in self._resolve("store writes", addresses, mask, dtype, loc, writes=True):
            stored[index] = _encode(values[lanes], dtype)

    def atomic(self, kind: str, addresses, values, mask, dtype: ir.DType, loc: Loc | None):
        """Apply `kind` (add, max, min, xchg, and, or, xor) lane by lane; return the old values."""
        combine = ATOMIC_KINDS[kind]
        values = np.broadcast_to(values, np.shape(addresses)).reshape(-1)
        return self._read_modify_write(f"atomic_{kind} updates", addresses, mask, dtype, loc,
                                       lambda old, lanes: combine(old, values[lanes]))

    def atomic_cas(self, addresses, expected, values, dtype: ir.DType, loc: Loc | None):
        """Where memory holds `expected` (bit for bit), write `values`; return the old values."""
        shape = np.shape(addresses)
        expected = np.broadcast_to(expected, shape).reshape(-1)
        values = np.broadcast_to(values, shape).reshape(-1)

        def swap(old, lanes):
            same = bits_of(old, dtype) == bits_of(expected[lanes], dtype)
            return np.where(same, values[lanes], old)
        return self._read_modify_write("atomic_cas updates", addresses, None, dtype, loc, swap)

    def _read_modify_write(self, verb, addresses, mask, dtype, loc, update) -> np.ndarray:
        shape = np.shape(addresses)
        old = np.zeros(int(np.prod(shape)), dtype.np)
        for lanes, stored, index in self._resolve(verb, addresses, mask, dtype, loc, writes=True):
            # Lanes run one after another in element order. Each round applies, vectorized, the
            # first waiting lane of every address, so lanes sharing an address all take effect.
            waiting = np.arange(lanes.size)
            while waiting.size:
                _, first = np.unique(index[waiting], return_index=True)
                now = waiting[first]
                current = _decode(stored[index[now]], dtype)
                old[lanes[now]] = current
                stored[index[now]] = _encode(as_dtype(dtype, update(current, lanes[now])), dtype)
                waiting = np.delete(waiting, first)
        return old.reshape(shape)

    def _resolve(self, verb: str, addresses, mask, dtype: ir.DType, loc: Loc | None, writes: bool = False):
        """Group the active lanes by the array they fall in: [(lanes, typed array, element index)].

        Raises an InterpreterError if an active lane is outside every array or misaligned, or
        `writes` to an array the caller made read-only.
        """
        shape = np.shape(addresses)
        flat = np.asarray(addresses, np.int64).reshape(-1)
        lanes = np.arange(flat.size) if mask is None else np.flatnonzero(mask)
        address = flat[lanes]
        size = dtype.storage.itemsize
        if lanes.size == 0:
            return []
        which = np.searchsorted(self._bases, address, side="right") - 1  # the array at or below
        offset = address - self._bases[np.maximum(which, 0)] if self.allocations else address
        outside = (which < 0) | (offset + size > self._sizes[np.maximum(which, 0)]) if self.allocations \
            else np.ones(lanes.size, bool)
        bad = outside | (address % size != 0)
        groups = []
        if bad.any() and self.host_pointers:  # pointers made from integers may point anywhere on the host
            host = outside & (address % size == 0)
            groups, found = self._host_groups(verb, lanes[host], address[host], dtype, loc, writes)
            bad[np.flatnonzero(host)[found]] = False
        if bad.any():
            first = int(np.argmax(bad))
            raise self._fault(verb, int(address[first]), int(lanes[first]), int(bad.sum()), shape,
                              dtype, loc)
        inside = ~outside
        lanes, which, offset = lanes[inside], which[inside], offset[inside]
        arrays = np.unique(which) if lanes.size else []
        for w in arrays:
            alloc = self.allocations[w]
            if writes and not alloc.writable:
                raise InterpreterError(loc, f"{verb} {alloc.name}, which the caller made read-only",
                                       "pass a writable array, or do not write through this pointer "
                                       "(annotate the parameter tl.const to have the compiler check it)")
            chosen = which == w
            groups.append((lanes[chosen], alloc.view(dtype.storage), offset[chosen] // size))
        return groups

    def _host_groups(self, verb, lanes, address, dtype, loc, writes):
        """Lanes whose address lies in memory this process has mapped (readable, and writable if
        `writes`), grouped by mapping as `_resolve` groups them, and which lanes were found. The
        bounds come from /proc/self/maps, so no address can crash the interpreter."""
        size = dtype.storage.itemsize
        groups, found = [], np.zeros(lanes.size, bool)
        for start, end, perms in _host_mappings():
            here = (address >= start) & (address + size <= end) & ~found
            if not here.any() or "r" not in perms or writes and "w" not in perms:
                continue
            low, high = int(address[here].min()), int(address[here].max()) + size
            view = np.ctypeslib.as_array((ctypes.c_uint8 * (high - low)).from_address(low))
            region = Allocation(f"host memory at {low:#x}", low, view, writable="w" in perms)
            groups.append((lanes[here], region.view(dtype.storage), (address[here] - low) // size))
            found |= here
        return groups, found

    def _fault(self, verb, address, lane, count, shape, dtype, loc) -> InterpreterError:
        """An error for people: which array the address is near, and which element it would be."""
        size = dtype.storage.itemsize
        near = self._nearest(address)
        hint = ("mask the lanes that fall outside the array, e.g. mask=offsets < n "
                "(masked-off lanes never touch memory)")
        if near is None:
            what = f"address {address:#x}, which is in no array"
        else:
            offset = address - near.base
            if 0 <= offset and offset + size <= near.data.size:
                what = (f"{near.name} at byte offset {offset}, which is not a multiple of "
                        f"{size} bytes, the size of {dtype}")
                hint = "pointer offsets count elements, not bytes: ptr + i moves i elements"
            elif offset < 0:
                what = f"{near.name}[{offset // size}], before its first element"
            else:
                what = (f"{near.name}[{offset // size}], past the end of its "
                        f"{near.data.size // size} elements")
        where = f" (tile element {tuple(int(i) for i in np.unravel_index(lane, shape))})" if shape else ""
        more = f"; {count} lanes of the tile fault" if count > 1 else ""
        return InterpreterError(loc, f"{verb} {what}{where}{more}", hint)

    def _nearest(self, address: int) -> Allocation | None:
        """The array an address is close to (within the array's own size, or 4 KiB), if any."""
        def distance(a: Allocation) -> int:
            return max(a.base - address, address - a.end + 1, 0)
        best = min(self.allocations, key=distance, default=None)
        if best is None or distance(best) > max(best.data.size, 4096):
            return None
        return best
# --8<-- [end:memory]


ATOMIC_KINDS: dict[str, Callable] = {
    "add": np.add, "max": np.maximum, "min": np.minimum, "xchg": lambda old, new: new,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
}
