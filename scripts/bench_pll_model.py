#!/usr/bin/env python3
"""Pseudo-log-likelihood of the sentences of a file with transformers, on an existing model dir.

The peer side of `anonlm mlm score --method pll` (scripts/bench_pll.sh runs both in one go):
the same Hugging Face dir (config.json, weights, tokenizer.json), the same sentences (one per
line), each non-special token masked in turn, the masked copies of consecutive sentences packed
into batches of --batch copies (padded to the longest), sum over positions of log p(true token).

  --head full         logits at every position, what `model(...).logits` does (a user's script)
  --head masked-only  the encoder on the whole batch, the LM head at the masked positions only
                      (what anonlm does; same numbers, less work for a large vocabulary)

Output: one JSON object (versions, threads, seconds, sentences/s, the PLL of every sentence) on
stdout and in --out FILE if given. --compare FILE reads anonlm's JSONL output (field "pll") and
adds the largest absolute difference.

  .ci/venv/bin/python scripts/bench_pll_model.py --model DIR --input sents.txt --threads 2
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def masked_copies(tokenizer, lines):
    """(copies, positions, true ids, owner sentence) for every non-special token of every line."""
    special = set(tokenizer.all_special_ids)
    copies, cols, targets, owner = [], [], [], []
    for index, line in enumerate(lines):
        ids = tokenizer(line)["input_ids"]
        for p, tok in enumerate(ids):
            if tok in special:
                continue
            copy = list(ids)
            copy[p] = tokenizer.mask_token_id
            copies.append(copy)
            cols.append(p)
            targets.append(tok)
            owner.append(index)
    return copies, cols, targets, owner


def encoder_of(model):
    return getattr(model, model.base_model_prefix)


def head_of(model):
    """The MLM head: `cls` for BERT, `lm_head` for RoBERTa."""
    return model.cls if hasattr(model, "cls") else model.lm_head


def run(model, tokenizer, copies, cols, targets, owner, n_sent, batch, head):
    pll = torch.zeros(n_sent, dtype=torch.float64)
    pad = tokenizer.pad_token_id
    with torch.inference_mode():
        for s in range(0, len(copies), batch):
            rows = copies[s : s + batch]
            width = max(len(r) for r in rows)
            ids = torch.full((len(rows), width), pad, dtype=torch.long)
            attn = torch.zeros((len(rows), width), dtype=torch.long)
            for i, r in enumerate(rows):
                ids[i, : len(r)] = torch.tensor(r)
                attn[i, : len(r)] = 1
            r_idx = torch.arange(len(rows))
            c_idx = torch.tensor(cols[s : s + batch])
            if head == "full":
                logits = model(input_ids=ids, attention_mask=attn).logits[r_idx, c_idx]
            else:
                hidden = encoder_of(model)(input_ids=ids, attention_mask=attn).last_hidden_state
                logits = head_of(model)(hidden[r_idx, c_idx])
            logp = F.log_softmax(logits.float(), dim=-1)
            tok_lp = logp[r_idx, torch.tensor(targets[s : s + batch])].double()
            pll.index_add_(0, torch.tensor(owner[s : s + batch]), tok_lp)
    return pll


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="Hugging Face model dir with tokenizer.json")
    p.add_argument("--input", required=True, help="sentences, one per line")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch", type=int, default=64, help="masked copies per forward pass (anonlm's --batch)")
    p.add_argument("--head", default="full", choices=["full", "masked-only"])
    p.add_argument("--attn", default="sdpa", choices=["sdpa", "eager"], help="transformers attention kernel")
    p.add_argument("--compare", help="anonlm's JSONL output of the same sentences")
    p.add_argument("--out", help="also write the JSON here")
    args = p.parse_args(argv)

    import transformers
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    torch.set_num_threads(args.threads)
    with open(args.input, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForMaskedLM.from_pretrained(args.model, attn_implementation=args.attn)
    model.eval()
    copies, cols, targets, owner = masked_copies(tokenizer, lines)
    # Warm-up on the first batch (thread pool, allocator), as anonlm's start-up is not timed either.
    run(model, tokenizer, copies[: args.batch], cols, targets, owner, len(lines), args.batch, args.head)
    t0 = time.perf_counter()
    pll = run(model, tokenizer, copies, cols, targets, owner, len(lines), args.batch, args.head)
    secs = time.perf_counter() - t0
    result = {
        "bench": "transformers-pll",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "threads": torch.get_num_threads(),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        "attn_implementation": args.attn,
        "head": args.head,
        "sentences": len(lines),
        "masked_copies": len(copies),
        "batch": args.batch,
        "seconds": secs,
        "sentences_per_s": len(lines) / secs,
        "pll": [float(x) for x in pll],
    }
    if args.compare:
        with open(args.compare, encoding="utf-8") as f:
            theirs = [json.loads(line)["pll"] for line in f if line.strip()]
        if len(theirs) != len(lines):
            print(f"error: {args.compare} has {len(theirs)} scores for {len(lines)} sentences", file=sys.stderr)
            return 2
        result["max_abs_diff_vs_anonlm"] = max(abs(a - b) for a, b in zip(result["pll"], theirs))
    text = json.dumps(result)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
