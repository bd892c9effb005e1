"""The interpreter's memory: the arrays of a launch in one flat address space, so that pointers
are plain int64 addresses, as on the GPU. Loads, stores and atomics check every active lane against
the arrays (and the caller's read-only marks) and name the op's source line when one is outside
them. Also the conversions between values and the bits memory holds. Chapter: 03-tile-ir.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from . import ir
from .errors import InterpreterError, LaunchError, Loc
from .floats import bf16_bits, float_bits, float_from_bits


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


@dataclass(frozen=True)
class Extent:
    """One argument's array in a region of memory: its bytes [start, end) from the region's base,
    and whether the kernel may write them (False for an array the caller made read-only)."""

    name: str
    start: int
    end: int
    writable: bool = True


@dataclass
class Allocation:
    """A region of the address space: one caller's array, or the union of arrays whose bytes
    overlap (views of one buffer, one array given twice), with each argument's `Extent` in it."""

    base: int
    data: np.ndarray  # a uint8 view of the caller's bytes, so writes land in them
    arrays: list[Extent]
    views: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return "/".join(dict.fromkeys(a.name for a in self.arrays))

    @property
    def end(self) -> int:
        return self.base + self.data.size

    def view(self, storage: np.dtype) -> np.ndarray:
        """The region's whole elements as `storage` (cached: every load would ask again)."""
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
    one region. An access is checked against the arrays of the arguments its pointer was made
    from, when the interpreter knows them (`origins`: a stride that walks out of `x_ptr` is an
    error about `x_ptr`, even where another array lies), else against every array. An address
    outside them, or misaligned for its type, is an error naming the array; so is a write to an
    array the caller made read-only.
    """

    def __init__(self):
        self.allocations: list[Allocation] = []  # sorted by base, disjoint
        self.homes: dict[str, tuple[Allocation, Extent]] = {}  # argument name -> its region and bytes
        self._bases = np.empty(0, np.int64)
        self._sizes = np.empty(0, np.int64)
        self.host_pointers = False  # set for a kernel that makes pointers from integers

    def add(self, buffer: np.ndarray, name: str, address: int | None = None) -> int:
        """Map `buffer` (any dtype, contiguous) at `address` (by default where it lies in host
        memory) as argument `name`, and return that address."""
        if not (buffer.flags.c_contiguous or buffer.flags.f_contiguous):
            raise LaunchError(f"argument {name!r}: the interpreter needs a contiguous array; "
                              f"pass np.ascontiguousarray(...) instead of a strided view")
        data = buffer.reshape(-1, order="A").view(np.uint8)
        base = buffer.ctypes.data if address is None else address
        new = Allocation(base, data, [Extent(name, 0, data.size, bool(buffer.flags.writeable))])
        overlapping = [a for a in self.allocations if a.base < new.end and new.base < a.end]
        if overlapping:
            new = self._merged(overlapping + [new])
        kept = [a for a in self.allocations if a not in overlapping] + [new]
        self.allocations = sorted(kept, key=lambda a: a.base)
        self.homes = {e.name: (a, e) for a in self.allocations for e in a.arrays}
        self._bases = np.array([a.base for a in self.allocations], np.int64)
        self._sizes = np.array([a.data.size for a in self.allocations], np.int64)
        return base

    @staticmethod
    def _merged(parts: list[Allocation]) -> Allocation:
        """One region for arrays whose bytes overlap: views of one host buffer, or one array given
        twice."""
        first, end = min(a.base for a in parts), max(a.end for a in parts)
        arrays = [replace(e, start=e.start + a.base - first, end=e.end + a.base - first)
                  for a in parts for e in a.arrays]
        if all(a.base == parts[0].base and a.end == parts[0].end for a in parts):  # one array, given again
            writable = next((a.data for a in parts if a.data.flags.writeable), parts[0].data)
            return Allocation(first, writable, arrays)
        if any(a.data.ctypes.data != a.base for a in parts):
            names = " and ".join(a.name for a in parts)
            raise LaunchError(f"arguments {names} overlap on the device but are different arrays, "
                              "and the interpreter copies each to the host on its own: pass arrays "
                              "that do not overlap")
        union = np.ctypeslib.as_array((ctypes.c_uint8 * (end - first)).from_address(first))
        return Allocation(first, union, arrays)

    def load(self, addresses, mask, dtype: ir.DType, loc: Loc | None, origins=None) -> np.ndarray:
        """The values at `addresses` (0 where `mask` is false); `origins` names the arguments the
        pointers were made from, where the interpreter knows them."""
        shape = np.shape(addresses)
        out = np.zeros(int(np.prod(shape)), dtype.np)
        for lanes, stored, index in self._resolve("load reads", addresses, mask, dtype, loc, origins):
            out[lanes] = _decode(stored[index], dtype)
        return out.reshape(shape)

    def store(self, addresses, values, mask, dtype: ir.DType, loc: Loc | None, origins=None) -> None:
        values = np.broadcast_to(values, np.shape(addresses)).reshape(-1)
        for lanes, stored, index in self._resolve("store writes", addresses, mask, dtype, loc, origins,
                                                  writes=True):
            stored[index] = _encode(values[lanes], dtype)

    def atomic(self, kind: str, addresses, values, mask, dtype: ir.DType, loc: Loc | None, origins=None):
        """Apply `kind` (add, max, min, xchg, and, or, xor) lane by lane; return the old values."""
        combine = ATOMIC_KINDS[kind]
        values = np.broadcast_to(values, np.shape(addresses)).reshape(-1)
        return self._read_modify_write(f"atomic_{kind} updates", addresses, mask, dtype, loc, origins,
                                       lambda old, lanes: combine(old, values[lanes]))

    def atomic_cas(self, addresses, expected, values, dtype: ir.DType, loc: Loc | None, origins=None):
        """Where memory holds `expected` (bit for bit), write `values`; return the old values."""
        shape = np.shape(addresses)
        expected = np.broadcast_to(expected, shape).reshape(-1)
        values = np.broadcast_to(values, shape).reshape(-1)

        def swap(old, lanes):
            same = bits_of(old, dtype) == bits_of(expected[lanes], dtype)
            return np.where(same, values[lanes], old)
        return self._read_modify_write("atomic_cas updates", addresses, None, dtype, loc, origins, swap)

    def _read_modify_write(self, verb, addresses, mask, dtype, loc, origins, update) -> np.ndarray:
        shape = np.shape(addresses)
        old = np.zeros(int(np.prod(shape)), dtype.np)
        for lanes, stored, index in self._resolve(verb, addresses, mask, dtype, loc, origins, writes=True):
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

    def _resolve(self, verb: str, addresses, mask, dtype: ir.DType, loc: Loc | None, origins=None,
                 writes: bool = False):
        """Group the active lanes by the region they fall in: [(lanes, typed region, element index)].

        Raises an InterpreterError if an active lane is outside the arrays it may reach (those of
        `origins` where every one is mapped, else any array), or misaligned, or `writes` to an
        array the caller made read-only. Every lane is checked before any is written.
        """
        shape = np.shape(addresses)
        flat = np.asarray(addresses, np.int64).reshape(-1)
        lanes = np.arange(flat.size) if mask is None else np.flatnonzero(mask)
        if lanes.size == 0:
            return []
        address = flat[lanes]
        if origins and all(name in self.homes for name in origins):
            return self._within(verb, lanes, address, shape, dtype, loc, sorted(origins), writes)
        size = dtype.storage.itemsize
        which = np.searchsorted(self._bases, address, side="right") - 1  # the region at or below
        offset = address - self._bases[np.maximum(which, 0)] if self.allocations else address
        outside = (which < 0) | (offset + size > self._sizes[np.maximum(which, 0)]) if self.allocations \
            else np.ones(lanes.size, bool)
        bad = outside | (address % size != 0)
        groups = []
        # pointers made from integers may point anywhere on the host
        if bad.any() and self.host_pointers:
            host = outside & (address % size == 0)
            groups, found = self._host_groups(verb, lanes[host], address[host], dtype, loc, writes)
            bad[np.flatnonzero(host)[found]] = False
        if bad.any():
            first = int(np.argmax(bad))
            raise self._fault(verb, int(address[first]), int(lanes[first]), int(bad.sum()), shape, dtype,
                              loc, self._nearest(int(address[first])))
        inside = ~outside
        lanes, which, offset = lanes[inside], which[inside], offset[inside]
        for w in np.unique(which) if lanes.size else []:
            region, chosen = self.allocations[w], which == w
            if writes:
                self._check_writable(verb, region, offset[chosen], size, loc)
            groups.append((lanes[chosen], region.view(dtype.storage), offset[chosen] // size))
        return groups

    def _within(self, verb, lanes, address, shape, dtype, loc, names, writes):
        """`_resolve` for pointers made from the arguments `names`: each lane must fall in one of
        their arrays, whatever else lies at its address."""
        size, groups = dtype.storage.itemsize, []
        left = np.ones(lanes.size, bool)
        for name in names:
            region, extent = self.homes[name]
            offset = address - region.base
            here = left & (offset >= extent.start) & (offset + size <= extent.end) & (address % size == 0)
            if here.any():
                if writes and not extent.writable:
                    raise self._read_only(verb, extent.name, loc)
                groups.append((lanes[here], region.view(dtype.storage), offset[here] // size))
                left &= ~here
        if left.any():
            first = int(np.argmax(left))
            at = int(address[first])
            near = min(((self.homes[n][0].base + self.homes[n][1].start, self.homes[n][1]) for n in names),
                       key=lambda array: _distance(at, array[0], array[1].end - array[1].start))
            raise self._fault(verb, at, int(lanes[first]), int(left.sum()), shape, dtype, loc, near)
        return groups

    def _check_writable(self, verb: str, region: Allocation, offset: np.ndarray, size: int, loc) -> None:
        """Every written byte must lie in an array some argument may write."""
        if all(e.writable for e in region.arrays):
            return
        writable = np.zeros(offset.size, bool)
        for e in region.arrays:
            if e.writable:
                writable |= (offset >= e.start) & (offset + size <= e.end)
        if not writable.all():
            first = offset[int(np.argmin(writable))]
            frozen = next(e for e in region.arrays if not e.writable and e.start <= first < e.end)
            raise self._read_only(verb, frozen.name, loc)

    @staticmethod
    def _read_only(verb: str, name: str, loc) -> InterpreterError:
        return InterpreterError(loc, f"{verb} {name}, which the caller made read-only",
                                "pass a writable array, or do not write through this pointer "
                                "(annotate the parameter tl.const to have the compiler check it)")

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
            extent = Extent(f"host memory at {low:#x}", 0, high - low, "w" in perms)
            region = Allocation(low, view, [extent])
            groups.append((lanes[here], region.view(dtype.storage), (address[here] - low) // size))
            found |= here
        return groups, found

    def _fault(self, verb, address, lane, count, shape, dtype, loc, near) -> InterpreterError:
        """An error for people: which array the address is near (`near`: its base and Extent, or
        None), which element it would be, and the array the address lies in if another."""
        size = dtype.storage.itemsize
        hint = ("mask the lanes that fall outside the array, e.g. mask=offsets < n "
                "(masked-off lanes never touch memory)")
        other = None  # another argument's array that holds the address
        if near is None:
            what = f"address {address:#x}, which is in no array"
        else:
            base, array = near
            nbytes, offset = array.end - array.start, address - base
            if 0 <= offset and offset + size <= nbytes:
                what = (f"{array.name} at byte offset {offset}, which is not a multiple of "
                        f"{size} bytes, the size of {dtype}")
                hint = "pointer offsets count elements, not bytes: ptr + i moves i elements"
            elif offset < 0:
                what = f"{array.name}[{offset // size}], before its first element"
            else:
                what = f"{array.name}[{offset // size}], past the end of its {nbytes // size} elements"
            other = self._holder(address)
            other = other if other is not None and other.name != array.name else None
            if other is not None:  # what a GPU would touch without a word
                hint = (f"a pointer made from {array.name} must stay in {array.name}, "
                        f"not reach {other.name} (a GPU would use {other.name}'s data without a word): "
                        f"check the offsets' strides, or mask the lanes that fall outside")
        where = f" (tile element {tuple(int(i) for i in np.unravel_index(lane, shape))})" if shape else ""
        more = f"; {count} lanes of the tile fault" if count > 1 else ""
        inside = f"; that address is in {other.name}, another argument's array" if other is not None else ""
        return InterpreterError(loc, f"{verb} {what}{where}{more}{inside}", hint)

    def _holder(self, address: int) -> Extent | None:
        """The argument's array whose bytes hold `address`, if any."""
        for region in self.allocations:
            for array in region.arrays:
                if region.base + array.start <= address < region.base + array.end:
                    return array
        return None

    def _nearest(self, address: int) -> tuple[int, Extent] | None:
        """The argument's array an address is close to (within the array's own size, or 4 KiB),
        as its base address and Extent, if any."""
        arrays = [(region.base + e.start, e) for region in self.allocations for e in region.arrays]
        best = min(arrays, key=lambda a: _distance(address, a[0], a[1].end - a[1].start), default=None)
        if best is None:
            return None
        size = best[1].end - best[1].start
        if _distance(address, best[0], size) > max(size, 4096):
            return None
        return best
# --8<-- [end:memory]


def _distance(address: int, base: int, nbytes: int) -> int:
    """How far `address` is outside the `nbytes` bytes at `base` (0 inside)."""
    return max(base - address, address - (base + nbytes) + 1, 0)


# --8<-- [start:origins]
# Ops whose pointer result points where (one of) these operands point: arithmetic on a pointer,
# the shape ops, a choice between pointers, a pointer cast to another pointer type.
POINTS_LIKE = {"addptr": (0,), "splat": (0,), "broadcast": (0,), "expand_dims": (0,), "reshape": (0,),
               "trans": (0,), "convert_layout": (0,), "hint": (0,), "select": (1, 2), "join": (0, 1),
               "split": (0,), "gather": (0,), "cast": (0,), "bitcast": (0,)}


def pointer_origins(fn: ir.Function) -> dict[int, tuple[str, ...]]:
    """The arguments each pointer value of `fn` was made from, by the value's `id`, where they are
    known: a pointer argument is its own origin, `x_ptr + offsets` and every reshaping of it keep
    their operand's, a select joins its two, and loops and ifs carry them through their regions
    (to a fixed point, for the values a loop carries around). A pointer loaded from memory or made
    from an integer has none: it may point anywhere, and is checked against every array."""
    origins: dict[int, frozenset | None] = {id(a): frozenset([a.name]) for a in fn.args if a.dtype.is_ptr()}

    def meet(target: ir.Value, sources) -> bool:
        """Give `target` the origins of any of `sources` (None: unknown); True if that changed them."""
        if not target.dtype.is_ptr():
            return False
        known = [origins[id(v)] for v in sources if id(v) in origins]
        if not known:
            return False  # nothing has reached the sources yet
        joined = None if any(k is None for k in known) else frozenset().union(*known)
        old = origins.get(id(target), frozenset())
        new = None if joined is None or old is None else old | joined
        if id(target) in origins and new == old:
            return False
        origins[id(target)] = new
        return True

    changed = True
    while changed:
        changed = False
        for op in fn.walk():
            if op.name == "for":
                loop = ir.loop_parts(op)
                for init, carried, yielded, result in zip(loop.inits, loop.carried, loop.yielded,
                                                          loop.results):
                    changed |= meet(carried, [init, yielded]) | meet(result, [init, yielded])
            elif op.name == "while":
                # before(values) -> condition(c, *passed); after(passed) -> yield(values)
                before, after = op.regions
                for arg, init, yielded in zip(before.args, op.operands, after.terminator.operands):
                    changed |= meet(arg, [init, yielded])
                for arg, result, passed in zip(after.args, op.results, before.ops[-1].operands[1:]):
                    changed |= meet(arg, [passed]) | meet(result, [passed])
            elif op.name == "if":
                for i, result in enumerate(op.results):
                    changed |= meet(result, [region.terminator.operands[i] for region in op.regions])
            elif op.name in POINTS_LIKE and (op.name not in ("cast", "bitcast")
                                             or op.operands[0].dtype.is_ptr()):
                for result in op.results:
                    changed |= meet(result, [op.operands[i] for i in POINTS_LIKE[op.name]])
            else:
                for result in op.results:
                    if result.dtype.is_ptr() and origins.get(id(result), frozenset()) is not None:
                        origins[id(result)], changed = None, True
    return {key: tuple(sorted(names)) for key, names in origins.items() if names}
# --8<-- [end:origins]


ATOMIC_KINDS: dict[str, Callable] = {
    "add": np.add, "max": np.maximum, "min": np.minimum, "xchg": lambda old, new: new,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
}
