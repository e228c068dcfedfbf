#!/usr/bin/env python3
"""Cross-check anonlm's masked language model against Hugging Face transformers.

anonlm writes its own model code (Rust, candle). This script is the independent
reference: it never touches the network (HF_HUB_OFFLINE=1 is set below) and only
reads/writes local directories.

Two modes:

  check --model DIR --expect FILE.safetensors [--tol 1e-4] [--require-tokenizer]
      FILE holds `input_ids` (int64 [B,T]), `attention_mask` (int64 [B,T]) and
      `logits` (float32 [B,T,V]) computed by anonlm for the checkpoint in DIR.
      DIR is loaded with AutoModelForMaskedLM.from_pretrained (eval mode, float32),
      the logits are recomputed and compared on positions where attention_mask == 1.
      Prints one JSON line:
        {"model_type", "max_abs_diff", "tol", "ok", "tokenizer_loads", ...}
      and exits 0 if ok, 1 if not (2 on usage / loading errors).
      "tokenizer_loads" is null when DIR has no tokenizer.json, else whether
      AutoTokenizer.from_pretrained(DIR) loads; it only affects "ok" with
      --require-tokenizer.

  make --arch bert|roberta --out DIR [--format safetensors|bin] [--seed S]
       [--vocab-size N] [--hidden 64] [--layers 2] [--heads 4]
       [--intermediate 128] [--max-positions 64] [--with-tokenizer]
      Builds a small randomly initialised BertForMaskedLM / RobertaForMaskedLM
      (torch.manual_seed(S), tied word embeddings), writes it with
      save_pretrained (so the tied decoder weight is omitted, as in real
      checkpoints; --format bin rewrites the same tensors as pytorch_model.bin,
      since transformers 5 only writes safetensors), and writes
      DIR/reference.safetensors with a seeded batch (`input_ids`,
      `attention_mask`, one row padded with pad_token_id) and the model's
      `logits` for it. The special-token layout is:
        bert:    [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4   (rows: CLS w.. SEP PAD..)
        roberta: <s>=0 <pad>=1 </s>=2 <unk>=3 <mask>=4      (rows: <s> w.. </s> <pad>..)
      ordinary ids are drawn from [5, vocab). RoBERTa position ids start at
      pad_token_id + 1, so a roberta reference row holds at most
      max_positions - 2 tokens. --with-tokenizer also writes a word-level
      tokenizer.json (words "w5".."w{N-1}" plus the specials) so the tokenizer
      check can be exercised.
      What transformers 5.23 writes (seen with this script): bert has
      `bert.*`, `cls.predictions.transform.{dense,LayerNorm}.*` and
      `cls.predictions.bias` (no `cls.predictions.decoder.*`); roberta has
      `roberta.*`, `lm_head.{dense,layer_norm}.*` and `lm_head.bias` (no
      `lm_head.decoder.*`). The decoder weight is the word embedding matrix.
      The MLM output bias is set to non-zero random values so that a loader
      that drops it fails the check.

Self-test (must print ok with max_abs_diff 0.0):
  python scripts/crosscheck_transformers.py make --arch roberta --out /tmp/r
  python scripts/crosscheck_transformers.py check --model /tmp/r --expect /tmp/r/reference.safetensors

Environment: scripts/requirements-crosscheck.txt (Python 3.11, CPU torch).
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

import torch  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402

# Special-token layouts used by `make` (see the module docstring).
SPECIALS = {
    "bert": {"pad": ("[PAD]", 0), "unk": ("[UNK]", 1), "cls": ("[CLS]", 2), "sep": ("[SEP]", 3), "mask": ("[MASK]", 4)},
    "roberta": {"cls": ("<s>", 0), "pad": ("<pad>", 1), "sep": ("</s>", 2), "unk": ("<unk>", 3), "mask": ("<mask>", 4)},
}
FIRST_ORDINARY_ID = 5


def eprint(*args):
    print(*args, file=sys.stderr)


def forward_logits(model, input_ids, attention_mask):
    with torch.inference_mode():
        out = model(input_ids=input_ids, attention_mask=attention_mask)
    return out.logits.float()


# ---------------------------------------------------------------- check


def tokenizer_status(model_dir):
    """None if there is no tokenizer.json, else (loads: bool, error: str | None)."""
    if not os.path.exists(os.path.join(model_dir, "tokenizer.json")):
        return None, None
    try:
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(model_dir)
        tok("w5 w6")  # a load that cannot encode is not a load
        return True, None
    except Exception as exc:  # report, do not crash: the logits check stands alone
        return False, f"{type(exc).__name__}: {exc}"


def cmd_check(args):
    from transformers import AutoModelForMaskedLM

    try:
        expect = load_file(args.expect)
    except Exception as exc:
        eprint(f"error: cannot read {args.expect}: {exc}")
        return 2
    missing = [k for k in ("input_ids", "attention_mask", "logits") if k not in expect]
    if missing:
        eprint(f"error: {args.expect} lacks tensor(s) {missing}")
        return 2
    input_ids = expect["input_ids"].to(torch.int64)
    attention_mask = expect["attention_mask"].to(torch.int64)
    want = expect["logits"].to(torch.float32)

    try:
        model = AutoModelForMaskedLM.from_pretrained(
            args.model, dtype=torch.float32, attn_implementation=args.attn
        )
    except Exception as exc:
        eprint(f"error: cannot load a masked LM from {args.model}: {type(exc).__name__}: {exc}")
        return 2
    model.eval()

    report = {"model_type": model.config.model_type}
    got = forward_logits(model, input_ids, attention_mask)
    if got.shape != want.shape:
        report.update(
            max_abs_diff=None,
            tol=args.tol,
            ok=False,
            error=f"shape mismatch: transformers {list(got.shape)} vs expected {list(want.shape)}",
        )
    else:
        real = attention_mask.bool()
        diff = (got - want).abs()[real]  # [n_real, V]
        max_abs = float(diff.max()) if diff.numel() else 0.0
        finite = bool(torch.isfinite(want[real]).all())
        ok = finite and max_abs <= args.tol
        report.update(max_abs_diff=max_abs, tol=args.tol, ok=ok, positions=int(real.sum()), vocab=int(got.shape[-1]))
        if not finite:
            report["error"] = "expected logits contain NaN/inf"
        if diff.numel():
            # Where the worst position is: helps when only padding-adjacent rows fail.
            per_pos = (got - want).abs().amax(-1).masked_fill(~real, 0.0)
            b, t = divmod(int(per_pos.argmax()), per_pos.shape[1])
            report["worst_position"] = [b, t]
            # Do both sides agree on the top prediction at every real position?
            report["argmax_agree"] = bool((got.argmax(-1) == want.argmax(-1))[real].all())

    loads, tok_err = tokenizer_status(args.model)
    report["tokenizer_loads"] = loads
    if tok_err:
        report["tokenizer_error"] = tok_err
    if args.require_tokenizer and loads is not True:
        report["ok"] = False
    print(json.dumps(report))
    return 0 if report["ok"] else 1


# ---------------------------------------------------------------- make


def build_model(args):
    from transformers import BertConfig, BertForMaskedLM, RobertaConfig, RobertaForMaskedLM

    sp = SPECIALS[args.arch]
    common = dict(
        vocab_size=args.vocab_size,
        hidden_size=args.hidden,
        num_hidden_layers=args.layers,
        num_attention_heads=args.heads,
        intermediate_size=args.intermediate,
        max_position_embeddings=args.max_positions,
        pad_token_id=sp["pad"][1],
        tie_word_embeddings=True,
    )
    if args.arch == "bert":
        config = BertConfig(**common, type_vocab_size=2)
        cls = BertForMaskedLM
    else:
        config = RobertaConfig(**common, type_vocab_size=1, bos_token_id=sp["cls"][1], eos_token_id=sp["sep"][1], layer_norm_eps=1e-5)
        cls = RobertaForMaskedLM
    config._attn_implementation = args.attn
    torch.manual_seed(args.seed)
    model = cls(config)
    # Random init leaves the MLM output bias at zero; make it non-zero so a
    # loader that drops it is caught by the logits comparison.
    with torch.no_grad():
        bias = model.get_output_embeddings().bias
        bias.copy_(torch.randn(bias.shape, generator=torch.Generator().manual_seed(args.seed + 1)) * 0.1)
    model.eval()
    return model


def reference_batch(arch, vocab_size, max_positions, seed, batch=3, length=16):
    """Seeded batch: CLS w.. SEP rows, the last row shorter and padded with the pad id."""
    sp = SPECIALS[arch]
    if arch == "roberta":
        length = min(length, max_positions - 2)
    else:
        length = min(length, max_positions)
    if length < 4:
        raise SystemExit(f"error: --max-positions {max_positions} is too small for a reference batch")
    if vocab_size <= FIRST_ORDINARY_ID:
        raise SystemExit(f"error: --vocab-size must be > {FIRST_ORDINARY_ID}")
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(FIRST_ORDINARY_ID, vocab_size, (batch, length), generator=g, dtype=torch.int64)
    mask = torch.ones(batch, length, dtype=torch.int64)
    lengths = [length] * batch
    lengths[-1] = length // 2 + 1  # one padded row
    for b, n in enumerate(lengths):
        ids[b, 0] = sp["cls"][1]
        ids[b, n - 1] = sp["sep"][1]
        ids[b, n:] = sp["pad"][1]
        mask[b, n:] = 0
    # One [MASK] in the first row, as a fill-mask input would have.
    ids[0, 2] = sp["mask"][1]
    return ids, mask


def write_word_tokenizer(arch, vocab_size, out_dir):
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    sp = SPECIALS[arch]
    vocab = {name: idx for name, idx in sp.values()}
    for i in range(FIRST_ORDINARY_ID, vocab_size):
        vocab[f"w{i}"] = i
    tok = Tokenizer(models.WordLevel(vocab, unk_token=sp["unk"][0]))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    cls_t, sep_t = sp["cls"], sp["sep"]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{cls_t[0]} $A {sep_t[0]}",
        pair=f"{cls_t[0]} $A {sep_t[0]} $B {sep_t[0]}",
        special_tokens=[cls_t, sep_t],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token=sp["pad"][0],
        unk_token=sp["unk"][0],
        cls_token=sp["cls"][0],
        sep_token=sp["sep"][0],
        mask_token=sp["mask"][0],
        bos_token=sp["cls"][0] if arch == "roberta" else None,
        eos_token=sp["sep"][0] if arch == "roberta" else None,
    )
    fast.save_pretrained(out_dir)


def cmd_make(args):
    out = args.out
    if os.path.exists(out) and os.listdir(out):
        eprint(f"error: {out} exists and is not empty; refusing to overwrite")
        return 2
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    model = build_model(args)
    ids, mask = reference_batch(args.arch, args.vocab_size, args.max_positions, args.seed + 2)
    logits = forward_logits(model, ids, mask).contiguous()

    # Write into a temp dir beside OUT, then rename: OUT never holds half a model.
    tmp = tempfile.mkdtemp(prefix=".tmp-crosscheck-", dir=parent)
    model.save_pretrained(tmp)
    if args.format == "bin":
        st = os.path.join(tmp, "model.safetensors")
        tensors = load_file(st)  # exactly the tensors save_pretrained chose to write
        torch.save(tensors, os.path.join(tmp, "pytorch_model.bin"))
        os.remove(st)
    save_file(
        {"input_ids": ids, "attention_mask": mask, "logits": logits},
        os.path.join(tmp, "reference.safetensors"),
        metadata={"arch": args.arch, "seed": str(args.seed), "writer": "scripts/crosscheck_transformers.py"},
    )
    if args.with_tokenizer:
        write_word_tokenizer(args.arch, args.vocab_size, tmp)
    if os.path.exists(out):
        os.rmdir(out)  # empty (checked above)
    os.rename(tmp, out)
    files = sorted(os.listdir(out))
    print(json.dumps({"out": out, "arch": args.arch, "format": args.format, "seed": args.seed,
                      "reference_shape": list(logits.shape), "files": files}))
    return 0


# ---------------------------------------------------------------- main


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)

    c = sub.add_parser("check", help="compare anonlm logits with transformers")
    c.add_argument("--model", required=True, help="checkpoint directory (config.json + weights)")
    c.add_argument("--expect", required=True, help="safetensors with input_ids, attention_mask, logits")
    c.add_argument("--tol", type=float, default=1e-4, help="max absolute logit difference (default 1e-4)")
    c.add_argument("--require-tokenizer", action="store_true", help="fail unless tokenizer.json loads")
    c.add_argument("--attn", default="eager", choices=["eager", "sdpa"], help="transformers attention kernel")

    m = sub.add_parser("make", help="write a small random transformers checkpoint + reference logits")
    m.add_argument("--arch", required=True, choices=["bert", "roberta"])
    m.add_argument("--out", required=True, help="new (or empty) output directory")
    m.add_argument("--format", default="safetensors", choices=["safetensors", "bin"])
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--vocab-size", type=int, default=1000)
    m.add_argument("--hidden", type=int, default=64)
    m.add_argument("--layers", type=int, default=2)
    m.add_argument("--heads", type=int, default=4)
    m.add_argument("--intermediate", type=int, default=128)
    m.add_argument("--max-positions", type=int, default=64)
    m.add_argument("--with-tokenizer", action="store_true", help="also write a word-level tokenizer.json")
    m.add_argument("--attn", default="eager", choices=["eager", "sdpa"], help="transformers attention kernel")

    args = p.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    return cmd_check(args) if args.cmd == "check" else cmd_make(args)


if __name__ == "__main__":
    sys.exit(main())
