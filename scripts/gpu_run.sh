#!/usr/bin/env bash
# GPU checks and benchmarks of a CUDA build of anonlm, on a machine with an NVIDIA GPU, PyTorch
# and transformers (no Rust toolchain needed there: build with scripts/build_cuda.sh and bring
# the binaries).
#
# Usage: scripts/gpu_run.sh BIN_DIR DEMO_DIR OUT_DIR [all|checks|bench]
#   BIN_DIR   holds `anonlm` and `it` (the integration-test binary; its `cuda_device::` tests), both
#             built with --features cuda
#   DEMO_DIR  the output folder of `anonlm release --demo` run on a CPU (its input/ is reused, and
#             its report is the CPU decision to compare with)
#   OUT_DIR   logs, the GPU release's report and the benchmark JSON files
#   checks    only the correctness checks and the release chain (1, 2); bench: only 3
# Every step runs even when an earlier one fails; the exit code counts the failed steps.
set -uo pipefail
bin=$(cd "$1" && pwd)
demo=$(cd "$2" && pwd)
out=$3
part=${4:-all}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
failures=0
step() {
    local name=$1
    shift
    echo "== $name: $*" | tee -a "$out/steps.log"
    local t0=$SECONDS
    if "$@" >"$out/$name.log" 2>&1; then
        echo "   ok in $((SECONDS - t0)) s" | tee -a "$out/steps.log"
    else
        echo "   FAILED (exit $?) in $((SECONDS - t0)) s; tail of $name.log:" | tee -a "$out/steps.log"
        tail -n 15 "$out/$name.log" | tee -a "$out/steps.log"
        failures=$((failures + 1))
    fi
}

# CUDA 13 libraries: PyTorch's nvidia wheels (cuBLAS, cuRAND, NVRTC, runtime) or a toolkit.
libs=$(python3 - <<'PY'
import glob, os, site
dirs = set()
roots = site.getsitepackages() + [site.getusersitepackages(), "/usr/local/cuda/lib64"]
for root in roots:
    for name in ("libcublas.so.13", "libcublasLt.so.13", "libcurand.so.10", "libnvrtc.so.13",
                 "libcudart.so.13"):
        for found in glob.glob(os.path.join(root, "**", name), recursive=True):
            dirs.add(os.path.dirname(found))
print(":".join(sorted(dirs)))
PY
)
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    nproc
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"

checks() {
# 1. The same logits and top-5 on GPU and CPU; fill and score agree; GPU training lowers the loss.
step cuda_device env CARGO_BIN_EXE_anonlm="$bin/anonlm" "$bin/it" cuda_device:: --ignored --test-threads 1 --nocapture

# 2. The whole release chain with training, probes and the audit on the GPU, on the demo's
#    notes; its decision beside the CPU run's.
#    The spec names its corpora relative to itself, so it is copied with them: the demo dir
#    stays as it was.
cp -r "$demo/input" "$out/input-cuda"
sed 's/^\[release.train\]$/[release.train]\ndevice = "cuda"/' "$demo/input/demo.toml" >"$out/input-cuda/demo-cuda.toml"
step release_cuda "$bin/anonlm" release --spec "$out/input-cuda/demo-cuda.toml" --out "$out/release-cuda" -q
python3 - "$demo/report/report.json" "$out/release-cuda/report/report.json" >"$out/release_compare.txt" 2>&1 <<'PY'
import json, sys
cpu, gpu = (json.load(open(p)) for p in sys.argv[1:3])
def walk(v, path=""):
    if isinstance(v, dict):
        for k, x in v.items():
            yield from walk(x, f"{path}.{k}")
    elif isinstance(v, (int, float, str, bool)) and any(w in path for w in ("decision", "auc", "exposure", "share", "loss")):
        yield path, v
a, b = dict(walk(cpu)), dict(walk(gpu))
for k in sorted(set(a) & set(b)):
    print(f"{k}: cpu={a[k]} cuda={b[k]}")
PY
head -n 60 "$out/release_compare.txt"
}

# 3. Throughput against transformers + torch on the same GPU, in the same call.
bench() {
    local preset=$1 seq=$2 extra=${3:-}
    # shellcheck disable=SC2086
    step "anonlm-$preset-$seq" "$bin/anonlm" mlm bench --device cuda --preset "$preset" --seq "$seq" \
        --train-steps 20 --fill-batches 20 --pll-sentences 64 --out "$out/anonlm-$preset-$seq.json"
    # shellcheck disable=SC2086
    step "torch-$preset-$seq" python3 scripts/bench_transformers.py --device cuda --preset "$preset" \
        --seq "$seq" --train-steps 20 --fill-batches 20 --pll-sentences 64 $extra \
        --out "$out/torch-$preset-$seq.json"
}
benches() {
    bench small 128
    bench base 128
    bench base 512
    step torch-base-128-bf16 python3 scripts/bench_transformers.py --device cuda --preset base \
        --seq 128 --train-steps 20 --fill-batches 20 --pll-sentences 64 --dtype bf16 \
        --out "$out/torch-base-128-bf16.json"
}
case $part in
    all) checks; benches ;;
    checks) checks ;;
    bench) benches ;;
    *) echo "unknown part $part (all, checks or bench)" >&2; exit 2 ;;
esac
echo "failed steps: $failures" | tee -a "$out/steps.log"
exit "$failures"
