#!/usr/bin/env bash
# Check of scripts/train_ddp.py on the CPU, self-contained and offline.
#   scripts/check_train_ddp.sh [PYTHON]      (default: $PYTHON, else .ci/venv/bin/python)
# 1. Fabricates a data dir in the format `anonlm mlm prepare` writes: a 200-id vocabulary
#    (specials 0-4), form-like synthetic documents a model can learn, two training shards, a
#    held-out shard, documents.jsonl / duplicates.jsonl and a word-level tokenizer.
# 2. A damaged shard and a non-empty --out are refused with status 2.
# 3. Trains a tiny RoBERTa with two gloo processes under torchrun for 60 steps and checks that
#    the loss fell, the held-out loss ends below the unigram baseline, the model dir holds what
#    anonlm reads (modes 0600/0700, a valid manifest, anonlm's log format) and the model
#    reloads with AutoModelForMaskedLM.
# 4. Without dropout, 2 processes x batch 8 give the same losses as 1 process x batch 8 x
#    --grad-accum 2 (masks and batches do not depend on the number of processes).
# Prints one "ok: ..." line; exits non-zero on any failure. About a minute on 2 CPU cores.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-${PYTHON:-.ci/venv/bin/python}}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export HF_HUB_OFFLINE=1 HF_HUB_DISABLE_PROGRESS_BARS=1 OMP_NUM_THREADS=1
DATA=$TMP/data OUT=$TMP/out/model
start=$SECONDS
fail() { echo "FAIL: $*" >&2; exit 1; }

"$PY" - "$DATA" <<'EOF'
import hashlib, json, sys
from pathlib import Path
import numpy as np
from tokenizers import Tokenizer, models, pre_tokenizers, processors
from transformers import PreTrainedTokenizerFast

data = Path(sys.argv[1])
data.mkdir()
rng = np.random.default_rng(7)
SEQ, VOCAB, CLS, PAD, SEP, MASK = 32, 200, 0, 1, 2, 4
vocab = {t: i for i, t in enumerate(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])}
vocab |= {f"w{i}": i for i in range(5, VOCAB)}
# Form-like documents of 30 tokens (one block each): field i holds one of six words of its own
# (180 of the 195 ordinary ids), so the words are about equally frequent overall (the unigram
# baseline is near ln 180) while a position tells which six words a masked field can hold.
# The last document of each set is shorter, so the set's last block ends in padding.
fields = rng.permutation(np.arange(5, VOCAB))[:180].reshape(30, 6)

def document(n=30):
    return [int(fields[i][rng.integers(6)]) for i in range(n)]

def pack(docs):  # as anonlm packs: CLS piece SEP, SEP between documents, last block padded
    room, blocks, lens, piece = SEQ - 2, [], [], []
    def flush():
        if piece:
            b = [CLS] + piece + [SEP]
            lens.append(len(b))
            blocks.append(b + [PAD] * (SEQ - len(b)))
            piece.clear()
    for d in docs:
        if piece:
            piece.append(SEP)
            if len(piece) == room:
                flush()
        for t in d:
            piece.append(t)
            if len(piece) == room:
                flush()
    flush()
    return np.array(blocks, dtype="<u4"), lens

docs = {"train": [document() for _ in range(299)] + [document(17)],
        "held_out": [document() for _ in range(11)] + [document(10)]}
sha = lambda b: hashlib.sha256(b).hexdigest()
text_sha = lambda ids: sha(" ".join(f"w{i}" for i in ids).encode())
meta = {"format": "anonlm-mlm-data", "format_version": 1, "tool_version": "0.1.0",
        "pack": {"cls": CLS, "sep": SEP, "pad": PAD, "mask": MASK, "vocab_size": VOCAB,
                 "special_ids": [0, 1, 2, 3, 4]},
        "settings": {"seq_len": SEQ, "held_out_fraction": 0.05, "seed": 42}, "canaries": None}
doc_lines, dup_lines, counts = [], [], np.ones(VOCAB)
for name, ds in docs.items():
    blocks, lens = pack(ds)
    assert all(n == SEQ for n in lens[:-1]) and lens[-1] < SEQ
    cuts = [0, 150, len(blocks)] if name == "train" else [0, len(blocks)]
    shards = []
    for k, (a, b) in enumerate(zip(cuts, cuts[1:])):
        f = data / f"{name}-{k:05d}.ids"
        f.write_bytes(blocks[a:b].tobytes())
        shards.append({"file": f.name, "n_blocks": b - a, "sha256": sha(f.read_bytes())})
    for i, d in enumerate(ds):
        doc_lines.append({"set": name, "doc_id": f"{name}-{i:03d}", "sha256": text_sha(d),
                          "n_tokens": len(d)})
    n_dups = 2 if name == "train" else 0  # two copies of the first training document
    for j in range(n_dups):
        dup_lines.append({"set": name, "doc_id": f"copy-{j}", "sha256": doc_lines[0]["sha256"],
                          "same_as": "train-000"})
    meta[name] = {"n_documents": len(ds) + n_dups, "n_tokens": sum(map(len, ds)),
                  "n_blocks": len(blocks), "last_block_len": lens[-1], "shards": shards}
    real = np.concatenate([b[:n] for b, n in zip(blocks, lens)])
    real = real[real >= 5]
    if name == "train":  # add-one smoothed unigram counts of the training tokens
        np.add.at(counts, real, 1)
    else:
        meta["unigram_baseline"] = float(-np.log(counts[real] / counts.sum()).mean())
meta |= {"n_input_documents": len(doc_lines) + len(dup_lines),
         "n_distinct_documents": len(doc_lines),
         "corpus_digest": sha("".join(sorted(d["sha256"] + "\n" for d in doc_lines)).encode()),
         "data_digest": sha(b"".join(p.read_bytes() for p in sorted(data.glob("*.ids"))))}
tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
tok.post_processor = processors.TemplateProcessing(
    single="<s> $A </s>", special_tokens=[("<s>", CLS), ("</s>", SEP)])
PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", cls_token="<s>", eos_token="</s>",
                        sep_token="</s>", pad_token="<pad>", unk_token="<unk>",
                        mask_token="<mask>").save_pretrained(data / "tokenizer")
# anonlm hashes tokenizer.json as the tokenizers crate writes it; the file's hash stands in.
meta["tokenizer_sha256"] = sha((data / "tokenizer" / "tokenizer.json").read_bytes())
(data / "data.json").write_text(json.dumps(meta, indent=2))
(data / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in doc_lines))
(data / "duplicates.jsonl").write_text("".join(json.dumps(d) + "\n" for d in dup_lines))
print(f"data: {meta['train']['n_blocks']} training blocks, {meta['held_out']['n_blocks']} "
      f"held out, unigram baseline {meta['unigram_baseline']:.3f}")
EOF

# Bad input is refused with status 2 before training: a damaged shard, a non-empty --out.
cp -r "$DATA" "$TMP/bad"
printf '\x07' | dd of="$TMP/bad/train-00001.ids" bs=1 seek=5 conv=notrunc status=none
rc=0
"$PY" scripts/train_ddp.py --data "$TMP/bad" --out "$TMP/never" --steps 1 2>"$TMP/err" || rc=$?
{ [ "$rc" = 2 ] && grep -q "train-00001.ids" "$TMP/err" && [ ! -e "$TMP/never" ]; } \
    || { cat "$TMP/err" >&2; fail "a damaged shard gave status $rc"; }
mkdir "$TMP/full" && touch "$TMP/full/x"
rc=0
"$PY" scripts/train_ddp.py --data "$DATA" --out "$TMP/full" --steps 1 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || { cat "$TMP/err" >&2; fail "a non-empty --out gave status $rc"; }

"$PY" -m torch.distributed.run --standalone --nproc_per_node 2 scripts/train_ddp.py \
    --data "$DATA" --config tiny --steps 60 --batch 8 --lr 1e-3 --eval-every 20 \
    --out "$OUT" --backend gloo

# Without dropout the processes' share of the work must not change the result.
cat > "$TMP/nodrop.json" <<'EOF'
{"model_type": "roberta", "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
 "intermediate_size": 64, "max_position_embeddings": 40, "type_vocab_size": 1,
 "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}
EOF
same=(--data "$DATA" --config "$TMP/nodrop.json" --steps 6 --lr 1e-3 --eval-every 3
      --backend gloo)
"$PY" -m torch.distributed.run --standalone --nproc_per_node 2 scripts/train_ddp.py "${same[@]}" \
    --batch 8 --out "$TMP/two" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "2-process run"; }
"$PY" scripts/train_ddp.py "${same[@]}" --batch 8 --grad-accum 2 --out "$TMP/one" 2>"$TMP/err" \
    || { cat "$TMP/err" >&2; fail "1-process run"; }

"$PY" - "$DATA" "$OUT" "$TMP" "$((SECONDS - start))" <<'EOF'
import json, stat, sys
from pathlib import Path
import torch
from safetensors import safe_open
from transformers import AutoModelForMaskedLM, AutoTokenizer

data, out, tmp, secs = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]

def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")

def read_log(d):
    return [json.loads(line) for line in open(d / "train_log.jsonl")]

for f in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json",
          "manifest.json", "train_log.jsonl"):
    check((out / f).is_file(), f"{f} missing")
check(not (out / "checkpoint.pt").exists(), "a checkpoint left in the model dir")
check([p.name for p in out.parent.iterdir()] == ["model"], "temporary files beside the model")
for p in [out, *out.iterdir()]:
    mode = stat.S_IMODE(p.stat().st_mode)
    check(mode == (0o700 if p.is_dir() else 0o600), f"{p.name} has mode {oct(mode)}")

meta = json.loads((data / "data.json").read_text())
docs = [json.loads(line) for line in open(data / "documents.jsonl")]
m = json.loads((out / "manifest.json").read_text())
for k in ("tool", "version", "seed", "settings", "pack", "seq_len", "held_out_fraction",
          "n_input_documents", "n_distinct_documents", "corpus_digest", "data_digest", "train",
          "held_out"):
    check(k in m, f"the manifest lacks {k}")
check((m["tool"], m["version"], m["seed"], m["pack"], m["seq_len"], m["held_out_fraction"])
      == ("anonlm", meta["tool_version"], 42, meta["pack"], 32, 0.05), "manifest header")
check(m["settings"]["world_size"] == 2 and m["settings"]["trainer"] == "scripts/train_ddp.py"
      and "canaries" not in m, "manifest settings or canaries")
check(all(m[k] == meta[k] for k in ("corpus_digest", "data_digest", "n_input_documents",
                                     "n_distinct_documents")), "manifest digests or counts")
for s in ("train", "held_out"):
    want = [{k: d[k] for k in ("doc_id", "sha256", "n_tokens")} for d in docs if d["set"] == s]
    check(m[s]["documents"] == want, f"manifest {s} documents")
    check(len(want) + len(m[s]["duplicates"]) == meta[s]["n_documents"] == m[s]["n_documents"],
          f"manifest {s} document count")
    check(all(set(d) == {"doc_id", "sha256", "same_as"} for d in m[s]["duplicates"]),
          f"manifest {s} duplicates")
check(len(m["train"]["documents"]) == 300 and len(m["train"]["duplicates"]) == 2,
      "300 training documents and 2 duplicates")

log = read_log(out)
steps = [x for x in log if x["type"] == "step"]
evals = [x for x in log if x["type"] == "eval"]
summary = log[-1]
check([x["step"] for x in steps] == list(range(1, 61)), "one log line per step")
check([x["step"] for x in evals] == [20, 40, 60], "evaluations at steps 20, 40 and 60")
check(summary["type"] == "summary" and summary["unigram_baseline"] == meta["unigram_baseline"]
      and summary["best_loss"] == min(x["held_out_loss"] for x in evals), "the summary line")
first = sum(x["loss"] for x in steps[:5]) / 5
last = sum(x["loss"] for x in steps[-5:]) / 5
final = evals[-1]["held_out_loss"]
check(last < first - 0.3, f"the training loss did not fall ({first:.3f} -> {last:.3f})")
check(final < meta["unigram_baseline"],
      f"held-out loss {final:.3f} is not below the unigram baseline "
      f"{meta['unigram_baseline']:.3f}")

with safe_open(str(out / "model.safetensors"), "pt") as f:
    keys = set(f.keys())
    emb = f.get_tensor("roberta.embeddings.word_embeddings.weight")
    check(tuple(emb.shape) == (200, 64), "word embeddings of 200 x 64")
    if "lm_head.decoder.weight" in keys:
        check(torch.equal(f.get_tensor("lm_head.decoder.weight"), emb), "an untied decoder")
check("lm_head.bias" in keys or "lm_head.decoder.bias" in keys, "no lm_head bias")
model = AutoModelForMaskedLM.from_pretrained(out).eval()
tok = AutoTokenizer.from_pretrained(out)
check(type(model).__name__ == "RobertaForMaskedLM" and tok.mask_token_id == 4, "reloaded model")
enc = tok(["w5 w6 <mask> w8 w9"], return_tensors="pt")
with torch.no_grad():
    logits = model(**enc).logits
check(tuple(logits.shape) == (1, 7, 200) and bool(torch.isfinite(logits).all()),
      "the reloaded model's logits")

one, two = read_log(tmp / "one"), read_log(tmp / "two")
loss = lambda log: [x.get("loss", x.get("held_out_loss")) for x in log if x["type"] != "summary"]
check(len(loss(one)) == len(loss(two)) == 8
      and all(abs(a - b) < 1e-4 for a, b in zip(loss(one), loss(two))),
      f"1 and 2 processes disagree: {loss(one)} vs {loss(two)}")

print(f"ok: train loss {first:.3f} -> {last:.3f} (mean of the first and last 5 steps); held-out "
      + ", ".join(f"{e['held_out_loss']:.3f}@{e['step']}" for e in evals)
      + f" < unigram baseline {meta['unigram_baseline']:.3f}; 1 vs 2 processes agree within "
      f"{max(abs(a - b) for a, b in zip(loss(one), loss(two))):.1e}; {secs} s")
EOF
