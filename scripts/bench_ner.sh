#!/usr/bin/env bash
# Throughput of the learned NER: training tokens/s (from the model's ner.json) and
# recognize / deid tokens/s with the model joined to the rules, on MEDDOCAN dev.
#
#   scripts/bench_ner.sh MODEL_DIR [THREADS]
#
# Tokens are the alphanumeric runs `anonlm eval` counts. Reads ../shared/data/meddocan/dev in
# place; writes only to a temporary directory.
set -euo pipefail
model=${1:?usage: scripts/bench_ner.sh MODEL_DIR [THREADS]}
threads=${2:-$(nproc)}
here=$(cd "$(dirname "$0")/.." && pwd)
dev="$here/../shared/data/meddocan/dev"
bin="$here/target/release/anonlm"
[ -x "$bin" ] || cargo build --release --manifest-path "$here/Cargo.toml"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--format brat --label-map meddocan --lang es --threads "$threads" -q)
tokens=$("$bin" eval --gold "$dev" --format brat --label-map meddocan --pred "$dev" --pred-label-map meddocan 2>/dev/null |
  sed -n 's/.* \([0-9]*\) tokens.*/\1/p' | head -1)
python3 - "$model/ner.json" <<'P'
import json, sys
t = json.load(open(sys.argv[1]))["training"]
print(f"training: {t['tokens_per_second']:.0f} tokens/s over {t['seconds']:.0f} s "
      f"({t['epochs']} epochs, best dev strict F1 {t['best_dev_f1']:.4f})")
P
run() {
  local name=$1; shift
  local start end
  start=$(date +%s.%N)
  "$@"
  end=$(date +%s.%N)
  python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); print(f'{sys.argv[3]}: {int(sys.argv[4])/s:.0f} tokens/s ({s:.2f} s, {sys.argv[4]} tokens, {sys.argv[5]} threads)')" \
    "$start" "$end" "$name" "$tokens" "$threads"
}
run "recognize, rules only" "$bin" recognize "$dev" "${common[@]}" --out "$tmp/r.jsonl" --out-format jsonl
run "recognize, rules + model" "$bin" recognize "$dev" "${common[@]}" --model "$model" --out "$tmp/rm.jsonl" --out-format jsonl
run "recognize, model only" "$bin" recognize "$dev" "${common[@]}" --model "$model" --no-rules --out "$tmp/m.jsonl" --out-format jsonl
run "deid, rules + model" "$bin" deid "$dev" "${common[@]}" --model "$model" --out "$tmp/deid" --out-format jsonl
