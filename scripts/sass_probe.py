import glob, os, subprocess, sys, collections, re
import torch
from minitriton.bench import matmul_kernel
import minitriton as triton
cfg = tuple(int(x) for x in sys.argv[1].split(",")) if len(sys.argv) > 1 else (128, 64, 32, 4, 4)
a = torch.randn(512, 512, device="cuda"); b = torch.randn(512, 512, device="cuda"); c = torch.empty(512, 512, device="cuda")
bm, bn, bk, w, st = cfg
k = matmul_kernel[(16 * 8,)](a, b, c, 512, 512, 512, 512, 1, 512, 1, 512, 1, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, INPUT_PRECISION="ieee", num_warps=w, num_stages=st)
open("/tmp/k.cubin", "wb").write(k.asm["cubin"])
tools = glob.glob(os.path.join(os.path.dirname(__import__("triton").__file__), "backends/nvidia/bin/nvdisasm")) + glob.glob("/usr/local/cuda*/bin/nvdisasm")
print(tools)
sass = subprocess.run([tools[0], "-c", "/tmp/k.cubin"], capture_output=True, text=True).stdout
lines = sass.splitlines()
# find the loop with most FFMA: split on labels
blocks, cur, name = {}, [], "start"
for l in lines:
    m = re.match(r"\s*(\.L_x_\d+):", l)
    if m:
        blocks[name] = cur; cur = []; name = m.group(1)
    else:
        cur.append(l)
blocks[name] = cur
for n, body in blocks.items():
    ops = collections.Counter()
    for l in body:
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", l)
        if m: ops[m.group(2).split(".")[0]] += 1
    if ops["FFMA"] > 20:
        print(n, sum(ops.values()), dict(ops.most_common(14)))
        if len(sys.argv) > 2: print("\n".join(l for l in body if "FFMA" not in l)[:6000])
