"""Exercise 9.4 (a compiler piece): how many blocks of a kernel fit on one multiprocessor.

The reference solution. The task, in full, is in exercises/09_ptx_driver_cache/ex4_occupancy.py.
"""
GPUS = {  # what the CUDA driver reports for two GPUs (shared memory: the most a kernel may opt in to)
    "sm_80": dict(max_blocks=32, max_warps=64, register_file=65536, max_registers=255,
                  shared=167936, shared_per_block=166912, reserved_shared=1024),  # A100: 164 KB, 163 KB
    "sm_90": dict(max_blocks=32, max_warps=64, register_file=65536, max_registers=255,
                  shared=233472, shared_per_block=232448, reserved_shared=1024),  # H100: 228 KB, 227 KB
}
QUARTERS = 4  # warp schedulers, each with a quarter of the register file


def round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def register_limit(gpu: dict, num_warps: int, registers: int) -> int:
    if registers == 0:
        return gpu["max_blocks"]
    per_warp = round_up(registers * 32, 256)
    if registers > gpu["max_registers"] or per_warp * round_up(num_warps, QUARTERS) > gpu["register_file"]:
        return 0
    warps_per_quarter = gpu["register_file"] // QUARTERS // per_warp
    return warps_per_quarter * QUARTERS // num_warps


def shared_limit(gpu: dict, shared_bytes: int) -> int:
    if shared_bytes > gpu["shared_per_block"]:
        return 0
    return gpu["shared"] // round_up(shared_bytes + gpu["reserved_shared"], 128)


def limits(gpu: dict, num_warps: int, registers: int, shared_bytes: int) -> dict[str, int]:
    return {"blocks": gpu["max_blocks"], "warps": gpu["max_warps"] // num_warps,
            "registers": register_limit(gpu, num_warps, registers), "shared": shared_limit(gpu, shared_bytes)}


def occupancy(gpu: dict, num_warps: int, registers: int, shared_bytes: int) -> tuple[int, float, set[str]]:
    each = limits(gpu, num_warps, registers, shared_bytes)
    blocks = min(each.values())
    return blocks, blocks * num_warps / gpu["max_warps"], {name for name, n in each.items() if n == blocks}


def registers_for(gpu: dict, num_warps: int, blocks: int) -> int:
    fitting = [r for r in range(1, gpu["max_registers"] + 1) if register_limit(gpu, num_warps, r) >= blocks]
    return max(fitting, default=0)
