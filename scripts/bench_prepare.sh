#!/usr/bin/env bash
# Peak memory and throughput of data preparation and training on generated corpora of growing
# size (issue 19): for each size, `anonlm synth` is repeated with new seeds (ids made distinct)
# until the corpus reaches SIZE MB, then `tokenizer train`, `mlm prepare` and a short
# `mlm train --data` run under /usr/bin/time. Prints one line per stage and size.
#   scripts/bench_prepare.sh [BIN] [WORK_DIR] [SIZES_MB...]      (default sizes: 500 2000)
set -euo pipefail
BIN=$(realpath "${1:-target/release/anonlm}")
WORK=${2:-/tmp/anonlm-bench-prepare}
shift 2 || true
SIZES=${*:-500 2000}
mkdir -p "$WORK"
cd "$WORK"

measure() { # label, command...: wall seconds and peak RSS (MB) of the command
    local label=$1
    shift
    /usr/bin/time -f "%e %M" -o time.txt "$@" >/dev/null 2>stage.log || {
        cat stage.log >&2
        exit 1
    }
    read -r secs kb <time.txt
    echo "$label: ${secs} s, peak RSS $((kb / 1024)) MB"
}

for size in $SIZES; do
    corpus=corpus-$size.jsonl
    if [ ! -f "$corpus" ]; then
        seed=0
        : >"$corpus.part"
        while [ "$(stat -c %s "$corpus.part")" -lt $((size * 1000000)) ]; do
            "$BIN" synth --lang nl --docs 5000 --seed "$seed" --out - 2>/dev/null |
                sed "s/\"id\":\"synth-nl-/\"id\":\"s$seed-/" >>"$corpus.part"
            seed=$((seed + 1))
        done
        mv "$corpus.part" "$corpus"
    fi
    mb=$(($(stat -c %s "$corpus") / 1000000))
    echo "== corpus of $mb MB ($(wc -l <"$corpus") documents)"
    rm -rf "tok-$size" "data-$size" "model-$size"
    measure "tokenizer train (bpe 16k)" "$BIN" tokenizer train --corpus "$corpus" --kind bpe \
        --vocab-size 16000 --out "tok-$size" -q
    measure "mlm prepare (seq 128)" "$BIN" mlm prepare --corpus "$corpus" --tokenizer "tok-$size" \
        --seq-len 128 --held-out 0.0005 --out "data-$size" -q
    grep -o "([0-9.]* MB/s)" stage.log | sed "s/^/  prepare throughput /"
    measure "mlm train --data (small, 30 steps of 16)" "$BIN" mlm train --data "data-$size" \
        --config small --steps 30 --batch 16 --eval-every 0 --checkpoint-every 0 \
        --out "model-$size" -q
    du -sh "data-$size" | sed "s/^/  data dir /"
done
