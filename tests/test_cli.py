"""The command line: `python -m minitriton demo` and `python -m minitriton show FILE.py:KERNEL`."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from minitriton.__main__ import main, parse_signature

ROOT = Path(__file__).resolve().parent.parent
ADD = "minitriton/examples/tutorials.py:add_kernel"
ADD_SIGNATURE = "x_ptr=*fp32,y_ptr=*fp32,output_ptr=*fp32,n_elements=i32,BLOCK_SIZE=1024"


def cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-m", "minitriton", *args], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=300)


def test_demo_in_the_interpreter():
    done = cli("demo", MINITRITON_INTERPRET="1")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line for line in done.stdout.splitlines() if "  interpreter  " in line]
    assert len(rows) == 3 and all(row.rstrip().endswith("ok") for row in rows), done.stdout
    for kernel in ("vector add", "fused softmax", "matmul"):
        assert kernel in done.stdout
    ptx = [line for line in done.stdout.splitlines() if "PTX:" in line]  # the sm_90 report, per kernel
    assert len(ptx) == 3 and not any("FAILED" in line for line in ptx), done.stdout


def test_show_ast(capsys):
    assert main(["show", ADD, "--stage", "ast"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("FunctionDef(") and "name='add_kernel'" in out and "attr='program_id'" in out


def test_show_ttir(capsys):
    assert main(["show", ADD, "--stage", "ttir", "--signature", ADD_SIGNATURE]) == 0
    out = capsys.readouterr().out
    assert out.startswith("func @add_kernel(\n    %x_ptr: !ptr<f32> {divisibility=16},")  # one a line
    assert "%n_elements: i32\n) {" in out  # i32 stands for a value with no special facts
    assert out.count("= load ") == 2 and "store " in out


def test_show_ttir_with_values_and_a_string_constexpr(capsys):
    signature = ("a_ptr=*fp16,b_ptr=*fp16,c_ptr=*fp16,M=i32,N=i32,K=i32,stride_am=i32,stride_ak=1,"
                 "stride_bk=i32,stride_bn=1,stride_cm=i32,stride_cn=1,BLOCK_SIZE_M=64,BLOCK_SIZE_N=64,"
                 "BLOCK_SIZE_K=32,GROUP_SIZE_M=8,ACTIVATION=leaky_relu")
    assert main(["show", "minitriton/examples/tutorials.py:matmul_kernel", "--stage", "ttir",
                 "--signature", signature]) == 0
    out = capsys.readouterr().out
    assert "dot " in out and "select " in out  # the constexpr string chose the inlined leaky_relu


@pytest.mark.skipif(importlib.util.find_spec("minitriton.codegen.backend") is None,
                    reason="the CUDA backend is not in this checkout")
def test_show_ptx_needs_no_gpu(capsys):
    assert main(["show", ADD, "--stage", "ptx", "--signature", ADD_SIGNATURE]) == 0
    out = capsys.readouterr().out
    assert ".target sm_90" in out and ".entry add_kernel" in out


@pytest.mark.parametrize("target, message", [
    ("minitriton/examples/tutorials.py:nope", "nope is not defined in minitriton/examples/tutorials.py; "
                                              "its @jit functions: "),
    ("minitriton/examples/tutorials.py", "expected FILE.py:KERNEL"),
    ("no/such/file.py:kernel", "no such file: no/such/file.py"),
    ("minitriton/examples/tutorials.py:np", "np is a module, not a @jit function"),
])
def test_bad_kernel_names_are_usage_errors(target, message):
    done = cli("show", target, "--stage", "ast")
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert "usage: python -m minitriton show" in done.stderr


def test_missing_signature_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["show", ADD, "--stage", "ttir", "--signature", "x_ptr=*fp32"])
    assert exit_.value.code == 2
    assert "--signature must give y_ptr, output_ptr, n_elements, BLOCK_SIZE" in capsys.readouterr().err


def test_a_kernel_mistake_is_reported_without_a_traceback():
    done = cli("show", "chapters/examples/mistakes.py:relu", "--stage", "ttir", "--signature",
               "x_ptr=*fp32,BLOCK=4")
    assert done.returncode == 1
    assert "the condition is a tile" in done.stderr and "Traceback" not in done.stderr


def test_parse_signature():
    values = parse_signature("x=*fp16, n=i64, m=7, eps=1e-5, flag=True, act=leaky_relu, nothing=None")
    assert values["x"].dtype == np.float16 and values["x"].size == 1 and values["x"].ctypes.data % 16 == 0
    assert values["n"] >= 2**31 and values["n"] % 16 not in (0, 1)
    assert (values["m"], values["eps"], values["flag"], values["act"], values["nothing"]) == \
        (7, 1e-5, True, "leaky_relu", None)
