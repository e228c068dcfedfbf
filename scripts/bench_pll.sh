#!/usr/bin/env bash
# Pseudo-log-likelihood on a real-size BERT, anonlm and transformers side by side (issue 19):
# the same model dir (a randomly initialised BertForMaskedLM written by transformers' own
# save_pretrained: hidden 512, 8 layers, 8 heads, intermediate 2048, vocabulary 25, so the
# encoder dominates as in the issue's check), the same sentences (45-75 words each), batches of
# 64 masked copies, 2 threads, ROUNDS alternating rounds. anonlm's time is the whole command
# (model load included); transformers' excludes its load and one warm-up batch. The PLLs of
# the two must agree within 1e-3.
#   scripts/bench_pll.sh [BIN] [WORK_DIR] [ROUNDS]          (PYTHON: default .ci/venv/bin/python)
set -euo pipefail
BIN=$(realpath "${1:-target/release/anonlm}")
WORK=${2:-/tmp/anonlm-bench-pll}
ROUNDS=${3:-2}
PYTHON=${PYTHON:-.ci/venv/bin/python}
SCRIPTS=$(realpath "$(dirname "$0")")
mkdir -p "$WORK"
if [ ! -f "$WORK/bert/config.json" ]; then
    "$PYTHON" "$SCRIPTS/crosscheck_transformers.py" make --arch bert --hidden 512 --layers 8 \
        --heads 8 --intermediate 2048 --vocab-size 25 --max-positions 512 --with-tokenizer \
        --attn sdpa --out "$WORK/bert" >/dev/null 2>&1
fi
"$PYTHON" - "$WORK/sentences.txt" <<'PY'
import random, sys
r = random.Random(1)
with open(sys.argv[1], "w") as f:
    for _ in range(20):
        f.write(" ".join(f"w{r.randint(5, 24)}" for _ in range(r.randint(45, 75))) + "\n")
PY
for round in $(seq "$ROUNDS"); do
    /usr/bin/time -f "%e" -o "$WORK/anonlm.time" env RAYON_NUM_THREADS=2 "$BIN" mlm score \
        --model "$WORK/bert" --input "$WORK/sentences.txt" --out "$WORK/anonlm.jsonl" \
        --overwrite --batch 64 2>/dev/null
    ours=$(cat "$WORK/anonlm.time")
    "$PYTHON" "$SCRIPTS/bench_pll_model.py" --model "$WORK/bert" --input "$WORK/sentences.txt" \
        --threads 2 --batch 64 --compare "$WORK/anonlm.jsonl" --out "$WORK/transformers.json" \
        >/dev/null 2>&1
    "$PYTHON" - "$WORK/transformers.json" "$ours" "$round" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ours, theirs = float(sys.argv[2]), d["seconds"]
diff = d["max_abs_diff_vs_anonlm"]
print(f"round {sys.argv[3]}: {d['sentences']} sentences, {d['masked_copies']} masked copies: "
      f"anonlm {ours:.1f} s, transformers {theirs:.1f} s, speed ratio {theirs / ours:.2f}x, "
      f"largest PLL difference {diff:.1e}")
if diff > 1e-3:
    sys.exit("error: the PLLs differ by more than 1e-3")
PY
done
