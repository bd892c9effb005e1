"""Exercise 9.4 (a compiler piece): how many blocks of a kernel fit on one multiprocessor.

ptxas reports a kernel's registers per thread (exercise 9.3) and the compiler knows its shared
memory (`compiled.metadata["shared_bytes"]`); with the launch's `num_warps` they decide how many
of its blocks (programs) a multiprocessor runs at once, its *occupancy*. Four resources each allow
some number of resident blocks, and the smallest number wins. For a GPU described by a row of
GPUS below, as NVIDIA's occupancy calculator counts (`cuda_occupancy.h`):

- **blocks**: at most `max_blocks` blocks;
- **warps**: at most `max_warps` warps, so max_warps // num_warps blocks;
- **registers**: a warp's registers are `registers * 32`, rounded up to a multiple of 256. The
  register file is split into 4 equal quarters, one per warp scheduler, and each warp's registers
  lie in one quarter: a quarter holds (register_file // 4) // (a warp's registers) warps, the
  multiprocessor 4 times that, and the blocks are those warps // num_warps. A kernel of more than
  `max_registers` registers per thread, or whose block needs more than `register_file` registers
  when its warps are counted as num_warps rounded up to a multiple of 4, cannot run: 0 blocks. A
  kernel of 0 registers is not limited by them (count it as `max_blocks`);
- **shared memory**: a block takes its `shared_bytes` plus `reserved_shared` bytes that the driver
  keeps for itself, rounded up to a multiple of 128 bytes; `shared` bytes hold that many blocks.
  A kernel of more than `shared_per_block` bytes cannot run: 0 blocks.

Write

1. `limits(gpu, num_warps, registers, shared_bytes)` -> {"blocks": n, "warps": n, "registers": n,
   "shared": n}: the blocks each resource allows;
2. `occupancy(gpu, num_warps, registers, shared_bytes)` -> (blocks, fraction, limited_by): the
   resident blocks (the smallest limit), the fraction of `max_warps` their warps fill, and the set
   of resources whose limit is that smallest number;
3. `registers_for(gpu, num_warps, blocks)` -> the most registers per thread (at most
   `max_registers`) at which the registers allow `blocks` blocks, 0 if no count does: the `maxnreg`
   a launch would pass to keep that many blocks resident (chapter 9).
"""

GPUS = {  # what the CUDA driver reports for two GPUs (shared memory: the most a kernel may opt in to)
    "sm_80": dict(max_blocks=32, max_warps=64, register_file=65536, max_registers=255,
                  shared=167936, shared_per_block=166912, reserved_shared=1024),  # A100: 164 KB, 163 KB
    "sm_90": dict(max_blocks=32, max_warps=64, register_file=65536, max_registers=255,
                  shared=233472, shared_per_block=232448, reserved_shared=1024),  # H100: 228 KB, 227 KB
}


def limits(gpu: dict, num_warps: int, registers: int, shared_bytes: int) -> dict[str, int]:
    raise NotImplementedError("exercise 9.4: limits")


def occupancy(gpu: dict, num_warps: int, registers: int, shared_bytes: int) -> tuple[int, float, set[str]]:
    raise NotImplementedError("exercise 9.4: occupancy")


def registers_for(gpu: dict, num_warps: int, blocks: int) -> int:
    raise NotImplementedError("exercise 9.4: registers_for")
