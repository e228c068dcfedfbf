#!/usr/bin/env bash
# Trains the name/place tagger of every language from corpora laid out as in ../shared/data/ner:
#   scripts/train_name_models.sh DATA_DIR OUT_DIR [extra `anonlm ner train` flags]
# writes OUT_DIR/<lang>/ (a BiLSTM-CRF with rule-hit features, `anonlm ner train`). Labels map
# through the built-in `conll_ner` label map (PER -> NAME, LOC -> LOCATION, ORG ->
# LOCATION/ORGANIZATION, MISC ignored). NerKor's CoNLL-U Plus files are first flattened to
# `word<TAB>tag` files in a private temporary directory (0700, removed at exit).
# Environment: ANONLM (binary, default target/release/anonlm), LANGS (default "nl es hu it en"),
# MAX_MINUTES (per language, default 16, so all five fit in 90 minutes on 2 cores),
# CASE_COPIES_LANGS (default "en"): languages whose training data also holds a lower-cased copy
# of every third sentence and an upper-cased copy of every tenth, so the tagger learns names
# from context in all-lower-case and all-caps notes (tweets and clinical notes write them so).
# Models trained on CoNLL-2002 (research only) or KIND (non-commercial) are for the user's own
# use: do not ship them (see ../shared/data/ner/README.md).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 DATA_DIR OUT_DIR [anonlm ner train flags]" >&2; exit 2; }
DATA=$1 OUT=$2
shift 2
ANONLM=${ANONLM:-target/release/anonlm}
LANGS=${LANGS:-nl es hu it en}
MAX_MINUTES=${MAX_MINUTES:-16}
CASE_COPIES_LANGS=${CASE_COPIES_LANGS:-en}
[ -x "$ANONLM" ] || { echo "$0: $ANONLM is not an executable (cargo build --release)" >&2; exit 2; }
[ -d "$DATA" ] || { echo "$0: $DATA is not a directory" >&2; exit 2; }
umask 077
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"

# Concatenates token-per-line files (tag last) into one CoNLL file, a blank line between files.
cat_columns() {
    local out=$1; shift
    : > "$out"
    for f in "$@"; do
        awk '{ if (NF == 0) print ""; else print $1 "\t" $NF }' "$f" >> "$out"
        echo >> "$out"
    done
}

# Appends to a CoNLL file (word<TAB>tag) a lower-cased copy of every third sentence and an
# upper-cased copy of every tenth (tags unchanged).
add_case_copies() {
    local file=$1 copies
    copies=$(mktemp -p "$TMP")
    awk -F'\t' 'function flush(  i, w) {
                     if (n == 0) return
                     s++
                     if (s % 3 == 0) { for (i = 1; i <= n; i++) print tolower(word[i]) "\t" tag[i]; print "" }
                     if (s % 10 == 0) { for (i = 1; i <= n; i++) print toupper(word[i]) "\t" tag[i]; print "" }
                     n = 0 }
                 NF == 0 { flush(); next }
                 { n++; word[n] = $1; tag[n] = $NF }
                 END { flush() }' "$file" > "$copies"
    cat "$copies" >> "$file"
}

# Flattens NerKor CoNLL-U Plus files (FORM and CONLL:NER columns) into one CoNLL file.
cat_conllup() {
    local out=$1; shift
    : > "$out"
    for f in "$@"; do
        awk -F'\t' 'NR == 1 { n = split(substr($0, index($0, "=") + 1), c, " ");
                              for (i = 1; i <= n; i++) { if (c[i] == "FORM") fo = i; if (c[i] == "CONLL:NER") ne = i }
                              if (!fo || !ne) { print FILENAME ": no FORM / CONLL:NER column" > "/dev/stderr"; exit 2 }
                              next }
                    /^#/ { next }
                    NF == 0 { print ""; next }
                    $ne !~ /^(O|[BI]-[A-Za-z]+)$/ {
                        # NerKor has a stray tag or two (train/legal/jrc_1.conllup:568 reads `V`).
                        print FILENAME ":" FNR ": tag outside IOB2, read as O" > "/dev/stderr"
                        print $fo "\tO"; next }
                    { print $fo "\t" $ne }' "$f" >> "$out"
        echo >> "$out"
    done
}

for lang in $LANGS; do
    train="$TMP/$lang.train.conll" dev="$TMP/$lang.dev.conll"
    case $lang in
        nl) cat_columns "$train" "$DATA/nl/conll2002.ned.train"; cat_columns "$dev" "$DATA/nl/conll2002.ned.testa" ;;
        es) cat_columns "$train" "$DATA/es/conll2002.esp.train"; cat_columns "$dev" "$DATA/es/conll2002.esp.testa" ;;
        it) cat_columns "$train" "$DATA"/it/kind/*_train.tsv; cat_columns "$dev" "$DATA"/it/kind/*_dev.tsv ;;
        hu) mapfile -t tr < <(find "$DATA/hu/nerkor/train" -name '*.conllup' | sort)
            mapfile -t de < <(find "$DATA/hu/nerkor/devel" -name '*.conllup' | sort)
            cat_conllup "$train" "${tr[@]}"; cat_conllup "$dev" "${de[@]}" ;;
        en) cat_columns "$train" "$DATA/en/wnut17/train.conll" "$DATA"/en/btc/*.conll "$DATA/en/wikigold/wikigold.conll"
            cat_columns "$dev" "$DATA/en/wnut17/dev.conll" ;;
        *) echo "$0: unknown language $lang" >&2; exit 2 ;;
    esac
    case " $CASE_COPIES_LANGS " in *" $lang "*) add_case_copies "$train" ;; esac
    echo "== $lang: training $OUT/$lang (at most $MAX_MINUTES minutes)"
    "$ANONLM" ner train --format conll --label-map conll_ner --train "$train" --dev "$dev" \
        --out "$OUT/$lang" --max-minutes "$MAX_MINUTES" "$@"
done
