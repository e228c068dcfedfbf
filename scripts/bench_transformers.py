#!/usr/bin/env python3
"""Python baseline for anonlm's MLM benchmark: the same work done with transformers on CPU or GPU.

Model: a randomly initialised RobertaForMaskedLM of one of anonlm's presets (--preset):
small = hidden 256, 4 layers, 4 heads, intermediate 1024 (the default); base = hidden 768,
12 layers, 12 heads, intermediate 3072 (RoBERTa-base); tiny = hidden 64, 2 layers. Vocab 16000,
max sequence --seq (max_position_embeddings seq + 2, since RoBERTa positions start at
pad_token_id + 1). Ids: <s>=0 <pad>=1 </s>=2 <unk>=3
<mask>=4, ordinary ids drawn from [5, 16000) with a fixed seed. No network, no files read.

Measured after a warm-up, with torch.set_num_threads(--threads):
  train:     batch 8 x 128 (<s> w.. </s>), 15% of ordinary positions chosen for MLM
             (80% -> <mask>, 10% -> random id, 10% kept; others label -100),
             forward with labels + backward + AdamW step, dropout on.
             Figure: training tokens/s = 8 * 128 * steps / seconds (all positions).
  fill_mask: sentences of 24 ordinary tokens (+ <s>, </s> = 26 positions), one <mask>
             each, batch 32, under torch.inference_mode; per sentence the top-5 ids
             at the mask (softmax + topk). Figure: sentences/s.
  pll:       pseudo-log-likelihood of 24-token sentences: each of the 24 ordinary
             positions masked in turn (24 copies per sentence); the copies of
             consecutive sentences are packed into batches of --pll-batch (64) copies;
             sum over positions of log p(true token). Figure: sentences/s.
Fill-mask and PLL are measured twice: "full" computes logits at every position
(what `model(...).logits` does), "masked_only" runs the encoder and applies the LM
head only at the masked positions (same numbers, less work); the largest
difference between the two PLL results is reported as a consistency check.

Output: one JSON object (versions, threads, load average, figures) on stdout and
in --out FILE if given.

  nice -n 19 /work/pyvenv/bin/python scripts/bench_transformers.py --threads 2 --out bench.json
  python3 scripts/bench_transformers.py --device cuda --preset base --seq 128 --out gpu.json

On --device cuda every timed section ends with torch.cuda.synchronize(), so the figures count
finished GPU work; --dtype bf16 runs the forward passes under torch.autocast(bfloat16) (mixed
precision: fp32 weights and optimizer, bf16 matrix products).

Environment: scripts/requirements-crosscheck.txt.
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

BOS, PAD, EOS, UNK, MASK = 0, 1, 2, 3, 4
FIRST_ORDINARY_ID = 5

# anonlm's presets (src/mlm/config.rs): hidden, layers, heads, intermediate.
PRESETS = {
    "tiny": (64, 2, 2, 256),
    "small": (256, 4, 4, 1024),
    "base": (768, 12, 12, 3072),
}


def sync(args):
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()


def autocast(args):
    """Mixed precision where asked for; a no-op context otherwise."""
    enabled = args.dtype == "bf16"
    return torch.autocast(device_type=args.device.split(":")[0], dtype=torch.bfloat16, enabled=enabled)


def build_model(args):
    from transformers import RobertaConfig, RobertaForMaskedLM

    hidden, layers, heads, intermediate = PRESETS[args.preset]
    config = RobertaConfig(
        vocab_size=args.vocab,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=intermediate,
        max_position_embeddings=args.seq + 2,
        type_vocab_size=1,
        pad_token_id=PAD,
        bos_token_id=BOS,
        eos_token_id=EOS,
        layer_norm_eps=1e-5,
        tie_word_embeddings=True,
    )
    config._attn_implementation = args.attn
    torch.manual_seed(args.seed)
    return RobertaForMaskedLM(config).to(args.device)


def sentences(g, n, words, vocab):
    """n rows of <s> + `words` ordinary ids + </s>."""
    ids = torch.randint(FIRST_ORDINARY_ID, vocab, (n, words + 2), generator=g, dtype=torch.int64)
    ids[:, 0] = BOS
    ids[:, -1] = EOS
    return ids


def mlm_batch(g, ids, vocab, prob=0.15):
    """Standard BERT/RoBERTa masking of the ordinary positions of `ids`."""
    ordinary = ids >= FIRST_ORDINARY_ID
    chosen = (torch.rand(ids.shape, generator=g) < prob) & ordinary
    labels = torch.where(chosen, ids, torch.full_like(ids, -100))
    r = torch.rand(ids.shape, generator=g)
    inputs = ids.clone()
    inputs[chosen & (r < 0.8)] = MASK
    rand_pos = chosen & (r >= 0.8) & (r < 0.9)
    inputs[rand_pos] = torch.randint(FIRST_ORDINARY_ID, vocab, (int(rand_pos.sum()),), generator=g)
    return inputs, labels


def timed(fn, warmup, iters, args):
    for i in range(warmup):
        fn(i)
    sync(args)
    t0 = time.perf_counter()
    for i in range(iters):
        fn(i)
    sync(args)
    return time.perf_counter() - t0


def bench_train(model, args):
    g = torch.Generator().manual_seed(args.seed + 10)
    batches = []
    for _ in range(args.warmup + args.train_steps):
        ids = sentences(g, args.train_batch, args.seq - 2, args.vocab)
        inputs, labels = mlm_batch(g, ids, args.vocab)
        batches.append((inputs.to(args.device), labels.to(args.device)))
    mask = torch.ones(args.train_batch, args.seq, dtype=torch.int64, device=args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    model.train()
    losses = []

    def step(i):
        inputs, labels = batches[step.k]
        step.k += 1
        with autocast(args):
            out = model(input_ids=inputs, attention_mask=mask, labels=labels)
        opt.zero_grad(set_to_none=True)
        out.loss.backward()
        opt.step()
        # The loss is read back every step (anonlm's trainer does the same).
        losses.append(float(out.loss.detach()))

    step.k = 0
    secs = timed(step, args.warmup, args.train_steps, args)
    tokens = args.train_batch * args.seq * args.train_steps
    return {
        "batch": args.train_batch,
        "seq": args.seq,
        "steps": args.train_steps,
        "warmup_steps": args.warmup,
        "mlm_probability": 0.15,
        "seconds": secs,
        "tokens_per_s": tokens / secs,
        "first_loss": losses[0],
        "last_loss": losses[-1],
    }


def encode_masked(model, ids, attn, mask_rows, mask_cols, full, args):
    """Log-probs [n_masked, vocab] at the masked positions."""
    with autocast(args):
        if full:
            logits = model(input_ids=ids, attention_mask=attn).logits[mask_rows, mask_cols]
        else:
            hidden = model.roberta(input_ids=ids, attention_mask=attn).last_hidden_state
            logits = model.lm_head(hidden[mask_rows, mask_cols])
    return F.log_softmax(logits.float(), dim=-1)


def bench_fill_mask(model, args, full):
    g = torch.Generator().manual_seed(args.seed + 20)
    n_batches = args.warmup + args.fill_batches
    batches = []
    for _ in range(n_batches):
        ids = sentences(g, args.fill_batch, args.words, args.vocab)
        cols = torch.randint(1, args.words + 1, (args.fill_batch,), generator=g)
        rows = torch.arange(args.fill_batch)
        ids[rows, cols] = MASK
        batches.append((ids.to(args.device), rows.to(args.device), cols.to(args.device)))
    attn = torch.ones_like(batches[0][0])
    model.eval()
    tops = []

    def run(i):
        ids, rows, cols = batches[run.k]
        run.k += 1
        with torch.inference_mode():
            logp = encode_masked(model, ids, attn, rows, cols, full, args)
            # Read the top-5 back to the host, as a fill-mask user does.
            tops.append(logp.topk(5, dim=-1).indices.cpu())

    run.k = 0
    secs = timed(run, args.warmup, args.fill_batches, args)
    n = args.fill_batch * args.fill_batches
    return {"sentences": n, "batch": args.fill_batch, "seconds": secs, "sentences_per_s": n / secs}, tops


def bench_pll(model, args, full):
    g = torch.Generator().manual_seed(args.seed + 30)
    n_sent = args.pll_sentences
    sents = sentences(g, n_sent, args.words, args.vocab)  # [S, W+2]
    W = args.words
    # Flat list of copies: copy c = (sentence c // W, masked position 1 + c % W).
    sent_of = torch.arange(n_sent * W) // W
    col_of = 1 + torch.arange(n_sent * W) % W
    copies = sents[sent_of].clone()
    true_ids = copies[torch.arange(len(copies)), col_of].clone()
    copies[torch.arange(len(copies)), col_of] = MASK
    copies, true_ids, col_of, sent_of = (t.to(args.device) for t in (copies, true_ids, col_of, sent_of))
    chunks = list(range(0, len(copies), args.pll_batch))
    model.eval()

    def run_all(chunk_starts):
        pll = torch.zeros(n_sent, dtype=torch.float64, device=args.device)
        with torch.inference_mode():
            for s in chunk_starts:
                e = min(s + args.pll_batch, len(copies))
                ids = copies[s:e]
                rows = torch.arange(e - s, device=args.device)
                logp = encode_masked(model, ids, torch.ones_like(ids), rows, col_of[s:e], full, args)
                tok_lp = logp[rows, true_ids[s:e]].double()
                pll.index_add_(0, sent_of[s:e], tok_lp)
        return pll.cpu()

    run_all(chunks[: args.warmup])  # warm-up: the first `warmup` batches
    sync(args)
    t0 = time.perf_counter()
    pll = run_all(chunks)
    sync(args)
    secs = time.perf_counter() - t0
    return {
        "sentences": n_sent,
        "words_per_sentence": W,
        "copies_per_batch": args.pll_batch,
        "batches": len(chunks),
        "seconds": secs,
        "sentences_per_s": n_sent / secs,
        "mean_pll": float(pll.mean()),
    }, pll


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--preset", default="small", choices=sorted(PRESETS), help="model size (anonlm's presets)")
    p.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    p.add_argument("--dtype", default="fp32", choices=["fp32", "bf16"], help="bf16: autocast mixed precision")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--vocab", type=int, default=16000)
    p.add_argument("--seq", type=int, default=128, help="training sequence length")
    p.add_argument("--words", type=int, default=24, help="ordinary tokens per fill-mask / PLL sentence")
    p.add_argument("--warmup", type=int, default=2, help="warm-up steps / batches before each measurement")
    p.add_argument("--train-steps", type=int, default=10)
    p.add_argument("--train-batch", type=int, default=8)
    p.add_argument("--fill-batches", type=int, default=20)
    p.add_argument("--fill-batch", type=int, default=32)
    p.add_argument("--pll-sentences", type=int, default=64)
    p.add_argument("--pll-batch", type=int, default=64, help="masked copies per batch")
    p.add_argument("--attn", default="sdpa", choices=["sdpa", "eager"], help="transformers attention kernel")
    p.add_argument("--skip", default="", help="comma list of sections to skip: train,fill_mask,pll")
    p.add_argument("--out", help="also write the JSON here")
    args = p.parse_args(argv)
    skip = {s for s in args.skip.split(",") if s}

    import transformers

    torch.set_num_threads(args.threads)
    result = {
        "bench": "transformers-baseline",
        "device": args.device,
        "device_name": torch.cuda.get_device_name() if args.device.startswith("cuda") else platform.processor(),
        "dtype": args.dtype,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(),
        "niceness": os.nice(0),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        "attn_implementation": args.attn,
        "model": dict(zip(("hidden", "layers", "heads", "intermediate"), PRESETS[args.preset]),
                      arch="roberta", preset=args.preset, vocab=args.vocab, max_seq=args.seq),
        "seed": args.seed,
    }
    model = build_model(args)
    result["model"]["parameters"] = sum(p.numel() for p in model.parameters())
    t_all = time.perf_counter()

    if "train" not in skip:
        result["train"] = bench_train(model, args)
        print(f"train: {result['train']['tokens_per_s']:.0f} tokens/s", file=sys.stderr)
    model.eval()
    if "fill_mask" not in skip:
        full, tops_full = bench_fill_mask(model, args, full=True)
        masked, tops_masked = bench_fill_mask(model, args, full=False)
        same = all(torch.equal(a, b) for a, b in zip(tops_full, tops_masked))
        result["fill_mask"] = {"full": full, "masked_only": masked, "top5_agree": same}
        print(f"fill_mask: {full['sentences_per_s']:.1f} / {masked['sentences_per_s']:.1f} sentences/s",
              file=sys.stderr)
    if "pll" not in skip:
        full, pll_full = bench_pll(model, args, full=True)
        masked, pll_masked = bench_pll(model, args, full=False)
        result["pll"] = {"full": full, "masked_only": masked,
                         "max_abs_diff_full_vs_masked": float((pll_full - pll_masked).abs().max())}
        print(f"pll: {full['sentences_per_s']:.1f} / {masked['sentences_per_s']:.1f} sentences/s", file=sys.stderr)

    result["total_seconds"] = time.perf_counter() - t_all
    result["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
