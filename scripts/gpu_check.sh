#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (run from the repository root, from source):
#   1. the GPU tests (pytest -m gpu);
#   2. every CPU test again with MINITRITON_GPU_DIFF=1: each kernel a test runs in the interpreter
#      also runs on the GPU, on identical copies of its arrays, and the results must agree;
#   3. the differential fuzzer's GPU batch: FUZZ_COUNT random programs from seed FUZZ_SEED (default
#      300 from 0) on the GPU, against their reference and the interpreter (reproducers of any
#      mismatch go to FUZZ_OUT, default fuzz-failures/);
#   4. the demo, alone and under compute-sanitizer's memcheck and racecheck;
#   5. a benchmark when BENCH names one (e.g. BENCH="all --quick").
# Prints a short table at the end; exits non-zero if any step failed.
set -uo pipefail
export PYTHONPATH=. PYTHONUNBUFFERED=1
export MINITRITON_CACHE_DIR=${MINITRITON_CACHE_DIR:-$(mktemp -d)}
python=${PYTHON:-python3}
declare -a names results
step() {
  local name=$1; shift
  local start=$SECONDS
  "$@"
  local rc=$?
  names+=("$name"); results+=("$([ $rc = 0 ] && echo ok || echo "FAILED (rc $rc)") in $((SECONDS - start)) s")
}
step "gpu tests" $python -m pytest -q -m gpu tests -p no:cacheprovider
step "cpu tests, compared on the gpu" env MINITRITON_GPU_DIFF=1 $python -m pytest -q -p no:cacheprovider \
  ${DIFF_TESTS:-tests --ignore=tests/test_docs.py --ignore=tests/test_exercises.py} ${DIFF_ARGS:-}
step "fuzz on the gpu" $python -m tests.fuzz --gpu --count "${FUZZ_COUNT:-300}" --seed "${FUZZ_SEED:-0}" \
  --archs "" --out "${FUZZ_OUT:-fuzz-failures}"
step "demo" $python -m minitriton demo
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -n "$sanitizer" ]; then
  for tool in memcheck racecheck; do
    step "demo under $tool" "$sanitizer" --tool $tool --error-exitcode 9 $python -m minitriton demo
  done
else
  names+=("compute-sanitizer"); results+=("not found: memcheck and racecheck not run")
fi
if [ -n "${BENCH:-}" ]; then step "bench $BENCH" $python -m minitriton bench $BENCH; fi
echo
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in "${!names[@]}"; do printf '%-34s %s\n' "${names[$i]}" "${results[$i]}"; done
for r in "${results[@]}"; do [[ $r == ok* || $r == not\ found* ]] || exit 1; done
