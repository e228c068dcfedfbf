#!/usr/bin/env bash
# GPU checks and benchmarks of a CUDA build of anonlm, on a machine with an NVIDIA GPU, PyTorch
# and transformers (no Rust toolchain needed there: build with scripts/build_cuda.sh and bring
# the binaries).
#
# Usage: scripts/gpu_run.sh BIN_DIR DEMO_DIR OUT_DIR [all | PART...]
#   BIN_DIR   holds `anonlm` and `it` (the integration-test binary; its `cuda_device::` tests), both
#             built with --features cuda
#   DEMO_DIR  the output folder of `anonlm release --demo` run on a CPU (its input/ is reused, and
#             its report is the CPU decision to compare with)
#   OUT_DIR   logs, the GPU release's report and the benchmark JSON files
#   PART      checks: the correctness checks and the release chain (1, 2); bench: 3; ddp: 4
#             (needs only BIN_DIR/anonlm, a CPU build will do; DEMO_DIR is not read).
#             DDP_DEVICE=cpu runs it on the CPU (gloo) as a dry run; DDP_BASE_STEPS (default 40);
#             PYTHON (default python3) has torch and transformers.
# Every step runs even when an earlier one fails; the exit code counts the failed steps.
set -uo pipefail
bin=$(cd "$1" && pwd)
demo=$(cd "$2" && pwd)
out=$3
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
# 4. scripts/train_ddp.py on the GPU with NCCL (one process: NCCL refuses two processes on one
#    GPU), on shards and canaries that anonlm prepared; anonlm audits its model dir. Then the
#    base model's training speed, the script in fp32 and bf16 and anonlm's own trainer, on the
#    same data in the same call.
ddp() {
    local d=$out/ddp py=${PYTHON:-python3} dev=${DDP_DEVICE:-cuda} base_steps=${DDP_BASE_STEPS:-40}
    local backend=nccl bf16=--bf16
    [ "$dev" = cuda ] || { backend=gloo; bf16=; }
    local run=("$py" -m torch.distributed.run --standalone --nproc_per_node 1 scripts/train_ddp.py)
    mkdir -p "$d"
    step ddp-data sh -c "
        '$bin/anonlm' synth --lang nl --docs 240 --seed 31 --out '$d/notes.jsonl' &&
        '$bin/anonlm' deid --lang nl --policy medroberta -q --out '$d/deid.jsonl' '$d/notes.jsonl' &&
        '$bin/anonlm' tokenizer train --kind wordpiece --vocab-size 2000 -q \
            --corpus '$d/deid.jsonl' --out '$d/tok' &&
        '$bin/anonlm' mlm prepare --corpus '$d/deid.jsonl' --tokenizer '$d/tok' --seq-len 64 \
            --held-out 0.25 --canaries 3 --canary-seed 7 --canary-file '$d/canaries.json' \
            --out '$d/data64' -q &&
        '$bin/anonlm' mlm prepare --corpus '$d/deid.jsonl' --tokenizer '$d/tok' --seq-len 128 \
            --out '$d/data128' -q"
    # The demo's notes and recipe (de-identified, tiny, 1200 steps of 16 x 64), on the GPU via NCCL.
    step ddp-nccl-tiny "${run[@]}" --data "$d/data64" --config tiny --steps 1200 --batch 16 \
        --lr 3e-3 --eval-every 400 --backend $backend --out "$d/model"
    cat >"$d/audit.toml" <<SPEC
[model]
dir = "model"
device = "$dev"
[data]
corpus = "deid.jsonl"
canaries = "canaries.json"
examples = "blocks"
unit = "sentence"
max_per_set = 200
min_words = 5
min_per_set = 30
[attacks]
blind = true
loss = true
pll = true
canaries = true
canary_candidates = 2000
[thresholds]
canary_gate_max_repeats = 1
SPEC
    # Exit 0 (PASS) or 1 (FAIL or INVALID) means the audit read the model dir; 2 means it refused.
    step ddp-audit sh -c "cd '$d' && '$bin/anonlm' audit --spec audit.toml --out audit; [ \$? -le 1 ]"
    "$py" - "$d" "$backend" <<'PY' | tee "$d/summary.txt"
import json, sys
from pathlib import Path
d = Path(sys.argv[1])
log = [json.loads(l) for l in open(d / "model/train_log.jsonl")]
steps = [x for x in log if x["type"] == "step"]
evals = [x for x in log if x["type"] == "eval"]
m = json.loads((d / "model/manifest.json").read_text())
print(f"{m['settings']['world_size']} process, {sys.argv[2]}; tiny: loss {steps[0]['loss']:.3f} -> "
      f"{steps[-1]['loss']:.3f}; held-out " + ", ".join(
          f"{e['held_out_loss']:.3f}@{e['step']}" for e in evals)
      + f"; unigram baseline {log[-1]['unigram_baseline']:.3f}")
r = json.loads((d / "audit/report.json").read_text())
print(f"audit of its model dir: {r['decision']['outcome']}")
for a in r.get("attacks", []):
    auc = a.get("metrics", {}).get("auc", {})
    if auc:
        print(f"  {a['name']}: AUC {auc['value']:.3f} [{auc['lower']:.3f}, {auc['upper']:.3f}]")
for g in (r.get("canaries") or {}).get("groups", []):
    print(f"  canaries x{g['repeats']}: mean exposure {g['mean_exposure']:.2f} bits")
PY
    # Training speed of the base model (RoBERTa-base shape, vocabulary 2,000), batch 32 x 128.
    local base=(--data "$d/data128" --config base --steps "$base_steps" --batch 32 --eval-every 0)
    step ddp-base-fp32 "${run[@]}" "${base[@]}" --backend $backend --out "$d/base-fp32"
    [ -z "$bf16" ] || step ddp-base-bf16 "${run[@]}" "${base[@]}" --backend $backend $bf16 \
        --out "$d/base-bf16"
    step anonlm-base-train "$bin/anonlm" mlm train --device "$dev" "${base[@]}" -q \
        --out "$d/base-anonlm"
    "$py" - "$d" <<'PY' | tee -a "$d/summary.txt"
import json, statistics, sys
from pathlib import Path
d = Path(sys.argv[1])
for name in ("base-fp32", "base-bf16", "base-anonlm"):
    f = d / name / "train_log.jsonl"
    if not f.exists():
        print(f"{name}: no log")
        continue
    steps = [json.loads(l) for l in open(f)]
    steps = [x for x in steps if x["type"] == "step"]
    steps = steps[len(steps) // 4:]  # after warm-up
    tps = statistics.median(x["tokens_per_s"] for x in steps if x.get("tokens_per_s"))
    print(f"{name}: median {tps:,.0f} tokens/s over steps {steps[0]['step']}-{steps[-1]['step']}")
PY
}

[ $# -ge 4 ] || set -- "$1" "$2" "$3" all
shift 3
for part in "$@"; do
    case $part in
        all) checks; benches; ddp ;;
        checks) checks ;;
        bench) benches ;;
        ddp) ddp ;;
        *) echo "unknown part $part (all, checks, bench or ddp)" >&2; exit 2 ;;
    esac
done
echo "failed steps: $failures" | tee -a "$out/steps.log"
exit "$failures"
