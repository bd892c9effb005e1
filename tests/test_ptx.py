"""codegen/ptx: hand-written LLVM IR -> PTX (llvmlite) -> cubin (ptxas), on the CPU.

The IR kernels here are also what the driver's GPU tests load and launch.
"""
import re
import shutil
import stat

import pytest

from minitriton.codegen import ptx, toolkit
from minitriton.codegen.ptx import BackendError, ResourceUsage

needs_ptxas = pytest.mark.skipif(ptx.ptxas_path() is None, reason="ptxas (CUDA toolkit) is not installed")

# out[i] = x[i] + y[i] for i < n; one element per thread, many blocks.
VECTOR_ADD_IR = r"""
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @vector_add(ptr addrspace(1) %x, ptr addrspace(1) %y, ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %block = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %threads = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %start = mul i32 %block, %threads
  %i = add i32 %start, %tid
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %body, label %exit
body:
  %index = sext i32 %i to i64
  %px = getelementptr float, ptr addrspace(1) %x, i64 %index
  %py = getelementptr float, ptr addrspace(1) %y, i64 %index
  %pout = getelementptr float, ptr addrspace(1) %out, i64 %index
  %vx = load float, ptr addrspace(1) %px, align 4
  %vy = load float, ptr addrspace(1) %py, align 4
  %sum = fadd float %vx, %vy
  store float %sum, ptr addrspace(1) %pout, align 4
  br label %exit
exit:
  ret void
}
"""

# Each block reverses its slice of x through dynamic shared memory, starting `offset` bytes in:
# out[start + t] = x[start + threads - 1 - t] (0 where that is past n). Every thread reaches the
# barrier, so a thread past n still writes its (zero) slot.
SHARED_REVERSE_IR = r"""
target triple = "nvptx64-nvidia-cuda"

@smem = external addrspace(3) global [0 x i8], align 16

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @shared_reverse(ptr addrspace(1) %x, ptr addrspace(1) %out, i32 %n, i32 %offset) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %block = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %threads = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %start = mul i32 %block, %threads
  %i = add i32 %start, %tid
  %index = sext i32 %i to i64
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %read, label %stage
read:
  %px = getelementptr float, ptr addrspace(1) %x, i64 %index
  %loaded = load float, ptr addrspace(1) %px, align 4
  br label %stage
stage:
  %value = phi float [ %loaded, %read ], [ 0.0, %entry ]
  %mine = shl i32 %tid, 2
  %mine_at = add i32 %offset, %mine
  %slot = getelementptr i8, ptr addrspace(3) @smem, i32 %mine_at
  store float %value, ptr addrspace(3) %slot, align 4
  call void @llvm.nvvm.barrier0()
  %last = sub i32 %threads, 1
  %partner = sub i32 %last, %tid
  %theirs = shl i32 %partner, 2
  %theirs_at = add i32 %offset, %theirs
  %other = getelementptr i8, ptr addrspace(3) @smem, i32 %theirs_at
  %reversed = load float, ptr addrspace(3) %other, align 4
  br i1 %inside, label %write, label %exit
write:
  %pout = getelementptr float, ptr addrspace(1) %out, i64 %index
  store float %reversed, ptr addrspace(1) %pout, align 4
  br label %exit
exit:
  ret void
}
"""

# 1 KB of static shared memory, which ptxas reports as smem.
STATIC_SHARED_IR = r"""
target triple = "nvptx64-nvidia-cuda"

@buffer = internal addrspace(3) global [256 x float] undef, align 4

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @static_shared(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %slot = getelementptr [256 x float], ptr addrspace(3) @buffer, i32 0, i32 %tid
  store float 1.0, ptr addrspace(3) %slot, align 4
  call void @llvm.nvvm.barrier0()
  %partner = xor i32 %tid, 1
  %other = getelementptr [256 x float], ptr addrspace(3) @buffer, i32 0, i32 %partner
  %v = load float, ptr addrspace(3) %other, align 4
  %index = sext i32 %tid to i64
  %pout = getelementptr float, ptr addrspace(1) %out, i64 %index
  store float %v, ptr addrspace(1) %pout, align 4
  ret void
}
"""

# The thread-index intrinsic misspelt: LLVM takes it for an external function.
MISSPELT_IR = VECTOR_ADD_IR.replace("sreg.tid.x", "sreg.tidd.x")

# A value kept in a stack slot: the -O3 pipeline must promote it to a register.
STACK_SLOT_IR = r"""
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @stack_slot(ptr addrspace(1) %out, float %v) {
  %slot = alloca float, align 4
  store float %v, ptr %slot, align 4
  %again = load float, ptr %slot, align 4
  %twice = fadd float %again, %again
  store float %twice, ptr addrspace(1) %out, align 4
  ret void
}
"""

# wgmma through inline PTX, as codegen emits it for sm_90a.
WGMMA_IR = r"""
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @wgmma(ptr addrspace(1) %out, i64 %a_desc, i64 %b_desc) {
  call void asm sideeffect "wgmma.fence.sync.aligned;", ""()
  %d = call {float, float, float, float} asm sideeffect "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, $4, $5, p, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,l,l"(i64 %a_desc, i64 %b_desc)
  call void asm sideeffect "wgmma.commit_group.sync.aligned;", ""()
  call void asm sideeffect "wgmma.wait_group.sync.aligned 0;", ""()
  %d0 = extractvalue {float, float, float, float} %d, 0
  store float %d0, ptr addrspace(1) %out, align 4
  ret void
}
"""


def test_target_machine_is_made_once_per_arch():
    assert ptx.target_machine("sm_80") is ptx.target_machine("sm_80")
    assert ptx.target_machine("sm_80") is not ptx.target_machine("sm_90")


def test_unknown_arch_is_refused_before_llvm_sees_it():
    with pytest.raises(ValueError, match="unknown GPU arch 'sm_61'"):
        ptx.target_machine("sm_61")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90", "sm_90a"])
def test_vector_add_becomes_a_ptx_entry(arch):
    text = ptx.llvm_to_ptx(VECTOR_ADD_IR, arch)
    assert f".version {ptx.PTX_VERSION[arch] // 10}.{ptx.PTX_VERSION[arch] % 10}" in text
    assert f".target {arch}" in text
    assert ".visible .entry vector_add(" in text
    assert text.count(".param .u64 .ptr .global") == 3
    assert "%tid.x" in text and "%ctaid.x" in text and "%ntid.x" in text
    assert "ld.global" in text and "st.global" in text


def test_the_optimizer_runs():
    text = ptx.llvm_to_ptx(STACK_SLOT_IR, "sm_80")
    assert ".local" not in text and "__local_depot" not in text


def test_dynamic_shared_memory_is_extern():
    text = ptx.llvm_to_ptx(SHARED_REVERSE_IR, "sm_80")
    assert ".extern .shared .align 16 .b8 smem[]" in text
    assert "bar.sync" in text


# A strided gather: each address `base + 2 * (i32 offset)` is used once.
STRIDED_COPY_IR = r"""
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @strided_copy(ptr addrspace(1) %x, ptr addrspace(1) %out, i32 %stride) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %from = mul i32 %tid, %stride
  %px = getelementptr half, ptr addrspace(1) %x, i32 %from
  %v = load half, ptr addrspace(1) %px, align 2
  %pout = getelementptr half, ptr addrspace(1) %out, i32 %tid
  store half %v, ptr addrspace(1) %pout, align 2
  ret void
}
"""


def test_an_address_is_one_mad_wide_and_a_shared_one_is_32_bits():
    """The NVPTX switches `ptx._initialize_llvm` sets: `base + 2 * offset` is one mad.wide (not a
    mul.wide and a 64-bit add), and shared memory is addressed through 32-bit registers."""
    strided = ptx.llvm_to_ptx(STRIDED_COPY_IR, "sm_80")
    assert "mad.wide.s32" in strided and "mul.wide" not in strided
    shared = ptx.llvm_to_ptx(SHARED_REVERSE_IR, "sm_80")
    assert re.search(r"st\.shared\.b32\s+\[%r\d+\]", shared), shared
    assert re.search(r"ld\.shared\.b32\s+%r\d+, \[%r\d+\]", shared), shared


@pytest.mark.parametrize("registers, threads, cap", [
    (103, 256, 128),  # 2 blocks of 256 threads: 128 registers each still fit
    (60, 512, 64),  # 2 blocks of 512
    (216, 256, 255),  # one block: all a thread may have
    (20, 64, 32),  # 32 blocks of 64 threads fill the SM's 2048 threads: 32 registers each
    (94, 128, 96),  # 5 blocks of 128
    (255, 1024, 64),  # no block fits 255 of them: the cap is what one block could have
    (0, 128, 32),  # a report without a register count: 16 blocks of 128 threads
])
def test_the_register_cap_costs_no_block(registers, threads, cap):
    assert ptx.register_cap(registers, threads) == cap


@needs_ptxas
def test_a_kernel_assembles_again_with_the_registers_it_may_have():
    """Layer norm's forward at 8 warps: ptxas alone takes 103 registers; told it may have 128 (two
    blocks of 256 threads an SM either way), it takes more, and the PTX kept is the capped one."""
    import numpy as np
    from minitriton.examples.tutorials import _layer_norm_fwd_fused
    x, w, m = np.zeros((4, 16384), np.float16), np.zeros(16384, np.float16), np.zeros(4, np.float32)
    kernel = _layer_norm_fwd_fused.warmup(x, x, w, w, m, m, 16384, 16384, 1e-5, BLOCK_SIZE=16384, num_warps=8,
                                          grid=(4,), target="sm_90a")
    assert ".maxntid 256\n.maxnreg 128\n" in kernel.asm["ptx"]
    assert kernel.metadata["spill_stores"] == 0 and kernel.metadata["registers"] <= 128
    uncapped = kernel.asm["ptx"].replace(".maxnreg 128\n", "")
    _, alone = ptx.ptx_to_cubin(uncapped, "sm_90a")
    assert alone.registers < kernel.metadata["registers"]
    text, _, usage = ptx.assemble(uncapped, "sm_90a", 256, capped=True)  # a cap of the user's: kept
    assert text == uncapped and usage.registers == alone.registers


@needs_ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_vector_add_assembles(arch):
    image, usage = ptx.ptx_to_cubin(ptx.llvm_to_ptx(VECTOR_ADD_IR, arch), arch)
    assert image.startswith(b"\x7fELF")
    assert 0 < usage.registers <= 32
    assert (usage.spill_stores, usage.spill_loads, usage.stack_frame, usage.shared_bytes) == (0, 0, 0, 0)


@needs_ptxas
def test_shared_memory_in_the_report():
    _, dynamic = ptx.ptx_to_cubin(ptx.llvm_to_ptx(SHARED_REVERSE_IR, "sm_80"), "sm_80")
    assert dynamic.shared_bytes == 0  # dynamic shared memory is sized at launch, not by ptxas
    _, static = ptx.ptx_to_cubin(ptx.llvm_to_ptx(STATIC_SHARED_IR, "sm_90"), "sm_90")
    assert static.shared_bytes == 256 * 4


@needs_ptxas
def test_wgmma_inline_asm_assembles_for_sm_90a():
    image, usage = ptx.ptx_to_cubin(ptx.llvm_to_ptx(WGMMA_IR, "sm_90a"), "sm_90a")
    assert image.startswith(b"\x7fELF") and usage.registers > 0


@needs_ptxas
def test_misspelt_intrinsic_fails_in_ptxas_with_the_line():
    text = ptx.llvm_to_ptx(MISSPELT_IR, "sm_80")  # LLVM accepts it: an unknown external function
    with pytest.raises(BackendError) as caught:
        ptx.ptx_to_cubin(text, "sm_80")
    message = str(caught.value)
    assert caught.value.stage == "ptxas"
    assert "ptxas rejected the PTX for sm_80" in message
    assert "Parsing error near '.nvvm'" in message
    assert "llvm.nvvm.read.ptx.sreg.tidd.x" in message  # the PTX line ptxas names, quoted
    assert "hint: a name starting with 'llvm.'" in message
    assert "/tmp" not in message  # the temporary file's path is not the reader's business


def test_llvm_parse_error_points_at_the_line():
    broken = VECTOR_ADD_IR.replace("%sum = fadd float %vx, %vy", "%sum = fadd float %vx, %nothing")
    with pytest.raises(BackendError) as caught:
        ptx.llvm_to_ptx(broken, "sm_80")
    assert caught.value.stage == "llvm-parse"
    assert "%nothing" in str(caught.value)
    assert "^" in str(caught.value)


def test_llvm_verify_error_names_the_stage():
    # Parses (names may be used before they are defined) but does not verify: %b is used before it
    # is computed in the same block.
    invalid = r"""
    define ptx_kernel void @k(ptr addrspace(1) %out) {
      %a = add i32 %b, 1
      %b = add i32 1, 2
      store i32 %a, ptr addrspace(1) %out
      ret void
    }"""
    with pytest.raises(BackendError) as caught:
        ptx.llvm_to_ptx(invalid, "sm_80")
    assert caught.value.stage == "llvm-verify"
    assert "does not dominate" in str(caught.value)


# What ptxas 13.0 -v prints for two kernels and a device function (one kernel spills).
PTXAS_REPORT = """\
ptxas info    : 4 bytes gmem, 16 bytes cmem[4]
ptxas info    : Compiling entry function '_Z2k2Pf' for 'sm_80'
ptxas info    : Function properties for _Z2k2Pf
    464 bytes stack frame, 564 bytes spill stores, 584 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 464 bytes cumulative stack size, 360 bytes cmem[0]
ptxas info    : Compile time = 48.486 ms
ptxas info    : Compiling entry function '_Z2k1Pff' for 'sm_80'
ptxas info    : Function properties for _Z2k1Pff
    272 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 272 bytes cumulative stack size, 4096 bytes smem, 364 bytes cmem[0]
ptxas info    : Compile time = 23.508 ms
ptxas info    : Function properties for _Z6helperf
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
"""


def test_resource_report_parses_per_kernel():
    usage = ptx.parse_resource_usage(PTXAS_REPORT)
    assert usage == {
        "_Z2k2Pf": ResourceUsage(registers=24, spill_stores=564, spill_loads=584, stack_frame=464,
                                 shared_bytes=0),
        "_Z2k1Pff": ResourceUsage(registers=40, spill_stores=0, spill_loads=0, stack_frame=272,
                                  shared_bytes=4096),
    }


def test_ptxas_is_found_through_cuda_home(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "ptxas"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert ptx.ptxas_path() == str(fake)


def test_no_ptxas_anywhere(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.setattr(toolkit, "_cuda_roots", lambda: [])  # no /usr/local/cuda
    monkeypatch.setattr(toolkit, "from_wheels", lambda suffix: None)  # and no nvidia-cuda-nvcc wheel
    assert ptx.ptxas_path() is None
    with pytest.raises(BackendError, match="ptxas was not found"):
        ptx.ptx_to_cubin(ptx.llvm_to_ptx(VECTOR_ADD_IR, "sm_80"), "sm_80")


def test_ptxas_path_is_on_path_first():
    if shutil.which("ptxas") is None:
        pytest.skip("no ptxas on PATH")
    assert ptx.ptxas_path() == shutil.which("ptxas")
