#!/usr/bin/env bash
# Name and place token recall of anonlm on the dev splits of ../shared/data/ner, one line of
# figures per language (the tables come from `anonlm eval --names`). Extra arguments (for
# example `--models DIR`, or `--no-builtin-models` for rules and lists only) are passed to every run.
#   scripts/eval_names_dev.sh [BIN] [-- extra args]
set -euo pipefail
BIN=${1:-target/release/anonlm}
shift || true
[ "${1:-}" = "--" ] && shift
NER=../shared/data/ner
run() {
    local lang=$1 gold=$2
    echo "== $lang: $gold"
    "$BIN" eval --names --lang "$lang" --gold "$gold" "${@:3}"
}
run nl "$NER/nl/conll2002.ned.testa" "$@"
run es "$NER/es/conll2002.esp.testa" "$@"
run hu "$NER/hu/nerkor/devel" "$@"
run it "$NER/it/kind/WN_dev.tsv" "$@"
run en "$NER/en/wnut17/dev.conll" "$@"
