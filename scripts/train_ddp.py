#!/usr/bin/env python3
"""Train a BERT/RoBERTa masked language model on several processes (PyTorch DDP).

`anonlm mlm train` trains on one device. This script trains the same kind of model, with the
same masking, from the data dir that `anonlm mlm prepare --out DATA` writes, on as many
processes as torchrun starts, and writes a model dir that `anonlm audit`, `anonlm probe` and
`anonlm vocab harvest` read. Run it with torchrun (or `python -m torch.distributed.run`):

  GPUs, one process each (NCCL):
    torchrun --nproc_per_node 8 scripts/train_ddp.py \\
        --data DATA --config base --steps 20000 --batch 32 --out MODEL
  CPU processes (gloo), e.g. a trial run:
    torchrun --nproc_per_node 2 scripts/train_ddp.py \\
        --data DATA --config tiny --steps 200 --batch 8 --backend gloo --out MODEL

Without torchrun it runs as one process. --backend auto takes nccl when CUDA is present (each
process on GPU LOCAL_RANK), else gloo (on the CPU).

Reads DATA/data.json (format anonlm-mlm-data, version 1), the uint32 block shards it lists
(every process checks each file's size and SHA-256), documents.jsonl, duplicates.jsonl and
DATA/tokenizer/. Writes MODEL/, built in a hidden temporary dir beside it and renamed at the
end, so a failed run leaves nothing (files 0600, dirs 0700):
  config.json, model.safetensors  the weights with the lowest held-out loss (save_pretrained)
  tokenizer files                 copied from DATA/tokenizer
  manifest.json                   what the model saw: document ids, hashes, token counts
  train_log.jsonl                 step, eval and summary lines, as anonlm's trainer writes them

Each sequence gets 15% of its real, non-special positions chosen (at least one); of those 80%
become the mask id, 10% a random ordinary id, 10% stay. Masks are seeded by (seed, step, slot
of the sequence within the step), so they do not depend on the number of processes. A step
takes --batch sequences per process and micro-batch and --grad-accum micro-batches from a
stream of per-epoch seeded shuffles of the training blocks, and averages the loss over all the
step's masked positions. AdamW (betas 0.9/0.999, eps 1e-6, no weight decay on biases and
norms), linear warm-up, linear decay to 0, gradient clipping at 1.0. The held-out blocks are
evaluated with fixed masks every --eval-every steps and at the end.

With --checkpoint-every N the run works in MODEL.partial/ instead and keeps it when it fails;
--resume continues from its last checkpoint (same settings, data and number of processes) and
gives the same model as an uninterrupted run. One run per --out at a time. Prints counts and
losses only, never text or token ids. Bad input (missing or damaged data, an existing --out)
ends with a message and status 2; under torchrun the launcher then exits with 1.
"""
import argparse
import contextlib
import hashlib
import json
import math
import os
import shutil
import signal
import struct
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F

PROG = "train_ddp.py"
# hidden, layers, heads, intermediate, max positions: the presets of `anonlm mlm train`.
PRESETS = {"tiny": (64, 2, 2, 256, 130), "small": (256, 4, 4, 1024, 514),
           "base": (768, 12, 12, 3072, 514)}
MASK_PROB, REPLACE_MASK, REPLACE_RANDOM = 0.15, 0.8, 0.1
BETAS, ADAM_EPS, CLIP_NORM = (0.9, 0.999), 1e-6, 1.0
CHECKPOINT = "checkpoint.pt"


class BadInput(Exception):
    """Input the script refuses (status 2)."""


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    add = p.add_argument
    add("--data", type=Path, required=True, help="dir written by `anonlm mlm prepare`")
    add("--out", type=Path, required=True, help="model dir to write")
    add("--overwrite", action="store_true", help="replace a non-empty --out")
    add("--config", default="tiny", help="tiny, small, base or a config.json (default tiny)")
    add("--arch", choices=["bert", "roberta"], help="default: bert if the tokenizer has [CLS]")
    add("--init", type=Path, help="continue training this HF model dir")
    add("--steps", type=int, help="optimizer steps (with --epochs: whichever is fewer)")
    add("--epochs", type=float, help="passes over the training blocks")
    add("--batch", type=int, default=16, help="sequences per process and micro-batch")
    add("--grad-accum", type=int, default=1, help="micro-batches per step")
    add("--lr", type=float, default=1e-4, help="peak learning rate")
    add("--warmup", type=float, default=0.06, help="a ratio of the steps if < 1, else steps")
    add("--weight-decay", type=float, default=0.01)
    add("--eval-every", type=int, default=200, help="0: only at the end")
    add("--seed", type=int, default=42)
    add("--backend", choices=["auto", "nccl", "gloo"], default="auto")
    add("--bf16", action="store_true", help="bfloat16 autocast on GPUs")
    add("--checkpoint-every", type=int, default=0, help="0: no checkpoints")
    add("--resume", action="store_true", help="continue the run in OUT.partial/")
    a = p.parse_args(argv)
    if a.steps is None and a.epochs is None:
        p.error("give --steps or --epochs")
    if min(a.batch, a.grad_accum, 1 if a.steps is None else a.steps) < 1 \
            or (a.epochs is not None and not a.epochs > 0):
        p.error("--batch, --grad-accum, --steps and --epochs must be positive")
    if not 0 <= a.seed < 2**64 or min(a.eval_every, a.checkpoint_every) < 0:
        p.error("--seed, --eval-every and --checkpoint-every must not be negative")
    if not (math.isfinite(a.lr) and a.lr >= 0 and math.isfinite(a.warmup) and a.warmup >= 0):
        p.error("--lr and --warmup must be finite and not negative")
    return a


# ------------------------------------------------------------------------------- input

def read_json(path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise BadInput(f"{path}: cannot read it as JSON ({type(e).__name__})") from None


def read_jsonl(path):
    if not path.is_file():
        raise BadInput(f"{path}: missing")
    with open(path, encoding="utf-8") as f:
        try:
            return [json.loads(line) for line in f if line.strip()]
        except ValueError:
            raise BadInput(f"{path}: a line is not JSON") from None


def scan_shard(path):
    """The SHA-256 and the largest id of a shard file, in one pass."""
    h, top = hashlib.sha256(), 0
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):  # whole ids: the size is checked
            h.update(chunk)
            top = max(top, int(np.frombuffer(chunk, "<u4").max()))
    return h.hexdigest(), top


class Blocks:
    """The packed blocks of one set, over its memory-mapped shards."""

    def __init__(self, data_dir, meta, seq_len, vocab_size):
        self.seq_len, self.n = seq_len, int(meta["n_blocks"])
        self.last_len, self.shards = int(meta["last_block_len"]), []
        for sh in meta["shards"]:
            name, n, path = sh["file"], int(sh["n_blocks"]), data_dir / sh["file"]
            if Path(name).name != name or not path.is_file():
                raise BadInput(f"{path}: missing (listed in data.json)")
            size = path.stat().st_size
            if size != n * seq_len * 4:
                raise BadInput(f"{path}: {size} bytes, but data.json says {n} blocks of "
                               f"{seq_len} uint32 ids ({n * seq_len * 4} bytes)")
            digest, top = scan_shard(path)
            if digest != sh["sha256"]:
                raise BadInput(f"{path}: its SHA-256 differs from data.json (damaged or replaced)")
            if top >= vocab_size:
                raise BadInput(f"{path}: holds ids outside the vocabulary of {vocab_size}")
            if n:
                self.shards.append(np.memmap(path, dtype="<u4", mode="r").reshape(n, seq_len))
        self.starts = np.cumsum([0] + [len(s) for s in self.shards])
        if self.starts[-1] != self.n:
            raise BadInput(f"data.json: the shards hold {self.starts[-1]} blocks, not {self.n}")
        if self.n and not 1 <= self.last_len <= seq_len:
            raise BadInput(f"data.json: last_block_len {self.last_len} is not in 1..{seq_len}")

    def __len__(self):
        return self.n

    def get(self, i):
        """Block i: its ids and the number of real (non-pad) positions."""
        k = int(np.searchsorted(self.starts, i, side="right")) - 1
        real = self.last_len if i == self.n - 1 else self.seq_len
        return self.shards[k][i - self.starts[k]], real


def doc_set(meta, docs, dups, name):
    """The manifest's listing of one set, checked against data.json's counts."""
    documents = [{k: d[k] for k in ("doc_id", "sha256", "n_tokens")}
                 for d in docs if d["set"] == name]
    duplicates = [{k: d[k] for k in ("doc_id", "sha256", "same_as")}
                  for d in dups if d["set"] == name]
    if len(documents) + len(duplicates) != meta["n_documents"]:
        raise BadInput(f"documents.jsonl and duplicates.jsonl list {len(documents)} + "
                       f"{len(duplicates)} {name} documents, data.json {meta['n_documents']}")
    if sum(d["n_tokens"] for d in documents) != meta["n_tokens"]:
        raise BadInput(f"documents.jsonl: the {name} token counts do not add up to data.json's")
    return {"n_documents": meta["n_documents"], "n_tokens": meta["n_tokens"],
            "n_blocks": meta["n_blocks"], "documents": documents, "duplicates": duplicates}


def load_data(data_dir):
    meta = read_json(data_dir / "data.json")
    if not isinstance(meta, dict) or (meta.get("format"), meta.get("format_version")) != \
            ("anonlm-mlm-data", 1):
        raise BadInput(f"{data_dir / 'data.json'}: not format anonlm-mlm-data, format_version 1")
    tok_dir = data_dir / "tokenizer"
    if not (tok_dir / "tokenizer.json").is_file():
        raise BadInput(f"{tok_dir / 'tokenizer.json'}: missing")
    try:
        missing = [k for k in ("tool_version", "n_input_documents", "n_distinct_documents",
                               "corpus_digest", "data_digest", "settings") if k not in meta]
        if missing or "held_out_fraction" not in meta["settings"]:
            raise BadInput(f"data.json lacks {', '.join(missing) or 'settings.held_out_fraction'}")
        pack, seq_len = meta["pack"], int(meta["settings"]["seq_len"])
        vocab = int(pack["vocab_size"])
        special = sorted({*map(int, pack["special_ids"]),
                          *(int(pack[k]) for k in ("cls", "sep", "pad", "mask"))})
        if seq_len < 3 or special[0] < 0 or special[-1] >= vocab or len(special) >= vocab:
            raise BadInput("data.json: seq_len is below 3 or the special ids do not fit")
        is_special = np.zeros(vocab, bool)
        is_special[special] = True
        docs = read_jsonl(data_dir / "documents.jsonl")
        dups = read_jsonl(data_dir / "duplicates.jsonl")
        if any(d["set"] not in ("train", "held_out") for d in docs + dups):
            raise BadInput("documents.jsonl or duplicates.jsonl: a set other than train, held_out")
        if (len(docs), len(docs) + len(dups)) != \
                (meta["n_distinct_documents"], meta["n_input_documents"]):
            raise BadInput("documents.jsonl and duplicates.jsonl disagree with data.json's counts")
        sets = {name: doc_set(meta[name], docs, dups, name) for name in ("train", "held_out")}
        train = Blocks(data_dir, meta["train"], seq_len, vocab)
        held_out = Blocks(data_dir, meta["held_out"], seq_len, vocab)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise BadInput(f"{data_dir}: data.json or a .jsonl file lacks or mangles a field "
                       f"({type(e).__name__}: {e})") from None
    if not len(train):
        raise BadInput("data.json: the training set has no blocks")
    return SimpleNamespace(meta=meta, pack=pack, seq_len=seq_len, sets=sets, train=train,
                           held_out=held_out, tok_dir=tok_dir, is_special=is_special,
                           ordinary=np.flatnonzero(~is_special), mask=int(pack["mask"]))


def plan_output(args):
    """Checks --out, --init and --resume; returns (out, OUT.partial when checkpointing)."""
    out = args.out.absolute()
    if out.exists() and not args.overwrite and (not out.is_dir() or any(out.iterdir())):
        raise BadInput(f"{out} exists and is not empty (give --overwrite to replace it)")
    if args.init and not (args.init / "config.json").is_file():
        raise BadInput(f"--init {args.init}: no config.json there")
    partial = out.with_name(out.name + ".partial")
    if args.resume and not (partial / CHECKPOINT).is_file():
        raise BadInput(f"{partial / CHECKPOINT}: no checkpoint to resume from")
    if not args.resume and partial.exists():
        raise BadInput(f"{partial} holds an unfinished run: give --resume or remove it")
    return out, (partial if args.resume or args.checkpoint_every else None)


# ----------------------------------------------------------------------- masking, order

def rng_for(tag, *parts):
    """A numpy generator keyed by SHA-256 of a purpose tag and 64-bit parts."""
    digest = hashlib.sha256(tag + struct.pack(f"<{len(parts)}Q", *parts)).digest()
    return np.random.Generator(np.random.PCG64(int.from_bytes(digest[:16], "little")))


def masked_batch(data, blocks, picks, tag, seed, step):
    """picks: (block index, slot) pairs. Returns input ids, attention mask, labels."""
    ids = np.empty((len(picks), data.seq_len), np.int64)
    att, labels = np.zeros_like(ids), np.full_like(ids, -100)
    for r, (b, slot) in enumerate(picks):
        row, n = blocks.get(b)
        ids[r], att[r, :n] = row, 1
        cand = np.flatnonzero(~data.is_special[ids[r, :n]])
        if not len(cand):
            continue
        rng = rng_for(tag, seed, step, slot)
        k = min(len(cand), max(1, math.floor(MASK_PROB * len(cand) + 0.5)))
        chosen = np.sort(cand[rng.choice(len(cand), size=k, replace=False)])
        labels[r, chosen] = ids[r, chosen]
        u = rng.random(k)
        random_ids = data.ordinary[rng.integers(0, len(data.ordinary), size=k)]
        ids[r, chosen[u < REPLACE_MASK]] = data.mask
        swap = (u >= REPLACE_MASK) & (u < REPLACE_MASK + REPLACE_RANDOM)
        ids[r, chosen[swap]] = random_ids[swap]
    return ids, att, labels


class Order:
    """The endless stream of training blocks: epoch 0's shuffle, then epoch 1's, ..."""

    def __init__(self, n, seed):
        self.n, self.seed, self.cache = n, seed, {}

    def block(self, slot):
        epoch, i = divmod(slot, self.n)
        if epoch not in self.cache:
            if len(self.cache) >= 2:
                del self.cache[min(self.cache)]
            self.cache[epoch] = rng_for(b"anonlm-ddp.shuffle", self.seed, epoch).permutation(self.n)
        return int(self.cache[epoch][i])


def lr_at(step, peak, warmup, total):
    if warmup and step <= warmup:
        return peak * step / warmup
    return peak * (total - step) / (total - warmup) if total > warmup else peak


# ------------------------------------------------------------------------------- model

def build_model(args, data):
    from tokenizers import Tokenizer
    from transformers import (AutoModelForMaskedLM, BertConfig, BertForMaskedLM, RobertaConfig,
                              RobertaForMaskedLM)
    from transformers.utils import logging as hf_logging
    hf_logging.disable_progress_bar()
    vocab, pad = int(data.pack["vocab_size"]), int(data.pack["pad"])
    if args.init:
        try:
            model = AutoModelForMaskedLM.from_pretrained(args.init)
        except (OSError, ValueError) as e:
            raise BadInput(f"--init {args.init}: cannot load it ({type(e).__name__})") from None
        c = model.config
        if c.model_type not in ("bert", "roberta", "xlm-roberta", "camembert") \
                or c.vocab_size < vocab:
            raise BadInput(f"--init {args.init}: not a BERT/RoBERTa masked LM of {vocab}+ ids")
    else:
        tok = Tokenizer.from_file(str(data.tok_dir / "tokenizer.json"))
        arch = args.arch or ("bert" if tok.token_to_id("[CLS]") is not None else "roberta")
        if args.config in PRESETS:
            h, layers, heads, inter, max_pos = PRESETS[args.config]
            need = data.seq_len + (pad + 1 if arch == "roberta" else 0)
            fields = dict(hidden_size=h, num_hidden_layers=layers, num_attention_heads=heads,
                          intermediate_size=inter, max_position_embeddings=max(max_pos, need))
            if arch == "roberta":
                fields.update(type_vocab_size=1, layer_norm_eps=1e-5)
        else:
            fields = read_json(Path(args.config))
            arch = fields.pop("model_type", arch) if isinstance(fields, dict) else None
            if arch not in ("bert", "roberta") or fields.get("vocab_size", vocab) < vocab:
                raise BadInput(f"{args.config}: not a bert or roberta config.json with a "
                               f"vocab_size of at least {vocab}")
            fields.pop("architectures", None)
        fields.update(vocab_size=max(vocab, fields.get("vocab_size", vocab)), pad_token_id=pad,
                      tie_word_embeddings=True)
        if arch == "roberta":
            fields.update(bos_token_id=int(data.pack["cls"]), eos_token_id=int(data.pack["sep"]))
        config_cls, model_cls = ((BertConfig, BertForMaskedLM) if arch == "bert"
                                 else (RobertaConfig, RobertaForMaskedLM))
        torch.manual_seed(args.seed)
        model = model_cls(config_cls(**fields))
    c = model.config
    room = c.max_position_embeddings - (c.pad_token_id + 1 if c.model_type != "bert" else 0)
    if room < data.seq_len:
        raise BadInput(f"the model has {room} positions, the blocks {data.seq_len}")
    return model


# ---------------------------------------------------------------------------- training

def main(argv=None):
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    backend = args.backend
    if backend == "auto":
        backend = "nccl" if torch.cuda.is_available() else "gloo"
    try:
        if backend == "nccl" and not torch.cuda.is_available():
            raise BadInput("--backend nccl needs CUDA GPUs")
        data = load_data(args.data)
        out, partial = plan_output(args)
        model = build_model(args, data)
    except BadInput as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    os.umask(0o077)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up when torchrun stops us
    for k, v in (("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", "29500"), ("RANK", "0"),
                 ("WORLD_SIZE", "1"), ("LOCAL_RANK", "0")):
        os.environ.setdefault(k, v)
    device = torch.device("cpu")
    if backend == "nccl":
        device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
        torch.cuda.set_device(device)
    dist.init_process_group(backend, device_id=device if device.type == "cuda" else None)
    dist.barrier()  # every process has checked --out before rank 0 creates anything
    work = None
    try:
        if dist.get_rank() == 0:
            os.makedirs(out.parent, mode=0o700, exist_ok=True)
            if partial:
                os.makedirs(partial, mode=0o700, exist_ok=True)
            work = partial or Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        return train(args, data, model.to(device), device, out, partial, work)
    except BaseException:
        if work is not None and partial is None:
            shutil.rmtree(work, ignore_errors=True)
        raise
    finally:
        dist.destroy_process_group()


def train(args, data, model, device, out, partial, work):
    """The training loop; rank 0 writes the log, the checkpoints and the model dir."""
    rank, world = dist.get_rank(), dist.get_world_size()
    n_train, G = len(data.train), args.batch * world * args.grad_accum
    total = args.steps or 2**62
    if args.epochs is not None:
        total = min(total, max(1, math.ceil(args.epochs * n_train / G)))
    warmup = min(total, math.floor(args.warmup * total + 0.5) if args.warmup < 1
                 else int(args.warmup))
    settings = {k: getattr(args, k) for k in (
        "config", "steps", "epochs", "batch", "grad_accum", "lr", "warmup", "weight_decay",
        "eval_every", "seed", "bf16")}
    settings.update(
        init=str(args.init) if args.init else None, arch=model.config.model_type,
        total_steps=total, warmup_steps=warmup, global_batch=G, adam_betas=list(BETAS),
        adam_eps=ADAM_EPS, clip_norm=CLIP_NORM, masking={"mask_prob": MASK_PROB, "replace_mask":
        REPLACE_MASK, "replace_random": REPLACE_RANDOM}, trainer="scripts/train_ddp.py",
        world_size=world)
    fingerprint = json.loads(json.dumps({**settings, "data_digest": data.meta["data_digest"]}))
    params = list(model.named_parameters())
    no_decay = lambda n: n.lower().endswith("bias") or "norm" in n.lower()
    opt = torch.optim.AdamW(
        [{"params": [p for n, p in params if not no_decay(n)], "weight_decay": args.weight_decay},
         {"params": [p for n, p in params if no_decay(n)], "weight_decay": 0.0}],
        lr=args.lr, betas=BETAS, eps=ADAM_EPS)
    st = SimpleNamespace(step=0, best_loss=None, best_step=None, best=None, last_eval=None)
    if args.resume:
        ck = torch.load(partial / CHECKPOINT, map_location="cpu", weights_only=True)
        if ck["fingerprint"] != fingerprint:
            diff = sorted(k for k in fingerprint if ck["fingerprint"].get(k) != fingerprint[k])
            print(f"{PROG}: error: the checkpoint was made with other settings or data: "
                  f"{', '.join(diff)}", file=sys.stderr)
            return 2
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        st = SimpleNamespace(**ck["state"])
    log = None
    if rank == 0:
        path = work / "train_log.jsonl"
        kept = path.read_text().splitlines() if args.resume and path.exists() else []
        path.write_text("".join(l + "\n" for l in kept if json.loads(l)["step"] <= st.step))
        log = open(path, "a")
        print(f"{PROG}: {world} processes ({device.type}); {n_train} training blocks, "
              f"{len(data.held_out)} held out, of {data.seq_len}; steps {st.step + 1}..{total} "
              f"of {G} sequences; {sum(p.numel() for _, p in params):,} parameters",
              file=sys.stderr)

    def write(line):
        if log:
            line = {k: None if isinstance(v, float) and not math.isfinite(v) else v
                    for k, v in line.items()}
            log.write(json.dumps(line) + "\n")
            log.flush()

    ddp = torch.nn.parallel.DistributedDataParallel(
        model, device_ids=[device.index] if device.type == "cuda" else None)
    order = Order(n_train, args.seed)
    autocast = contextlib.nullcontext
    if args.bf16 and device.type == "cuda":
        autocast = lambda: torch.autocast("cuda", torch.bfloat16)
    to_dev = lambda arrays: [torch.from_numpy(a).to(device) for a in arrays]

    def evaluate():
        model.eval()
        acc = torch.zeros(2, dtype=torch.float64, device=device)
        mine = list(range(rank, len(data.held_out), world))
        with torch.no_grad():
            for i in range(0, len(mine), args.batch):
                picks = [(b, b) for b in mine[i:i + args.batch]]
                ids, att, lab = to_dev(masked_batch(data, data.held_out, picks,
                                                    b"anonlm-ddp.eval", args.seed, 0))
                with autocast():
                    logits = model(input_ids=ids, attention_mask=att).logits
                acc[0] += F.cross_entropy(logits.float().flatten(0, 1), lab.flatten(),
                                          reduction="sum")
                acc[1] += (lab != -100).sum()
        dist.all_reduce(acc)
        return acc[0].item() / acc[1].item() if acc[1].item() > 0 else None

    started = time.time()
    while st.step < total:
        step, t0 = st.step + 1, time.time()
        lr = lr_at(step, args.lr, warmup, total)
        for g in opt.param_groups:
            g["lr"] = lr
        torch.manual_seed(int.from_bytes(hashlib.sha256(struct.pack(
            "<4Q", 1, args.seed, step, rank)).digest()[:8], "little"))  # dropout
        batches = []
        for i in range(args.grad_accum):  # this process's slots of the step's G sequences
            first = (i * world + rank) * args.batch
            picks = [(order.block((step - 1) * G + j), j)
                     for j in range(first, first + args.batch)]
            batches.append(masked_batch(data, data.train, picks, b"anonlm-ddp.mask",
                                        args.seed, step))
        counts = torch.tensor([sum(float((b[2] != -100).sum()) for b in batches),
                               sum(float(b[1].sum()) for b in batches)],
                              dtype=torch.float64, device=device)
        dist.all_reduce(counts)
        n_masked, n_tokens = counts.tolist()
        ddp.train()
        loss_sum = torch.zeros((), dtype=torch.float64, device=device)
        for i, batch in enumerate(batches):
            ids, att, lab = to_dev(batch)
            with ddp.no_sync() if i < len(batches) - 1 else contextlib.nullcontext():
                with autocast():
                    logits = ddp(input_ids=ids, attention_mask=att).logits
                loss = F.cross_entropy(logits.float().flatten(0, 1), lab.flatten(),
                                       reduction="sum")
                # DDP averages over processes: scale so the step's gradient is that of the
                # mean loss over all its masked positions.
                (loss * world / max(n_masked, 1.0)).backward()
            loss_sum += loss.detach()
        grad_norm = torch.nn.utils.clip_grad_norm_(ddp.parameters(), CLIP_NORM).item()
        opt.step()
        opt.zero_grad(set_to_none=True)
        dist.all_reduce(loss_sum)
        step_loss = loss_sum.item() / max(n_masked, 1.0)
        if not math.isfinite(step_loss):
            sys.exit(f"{PROG}: the loss is not finite at step {step}; lower --lr")
        st.step = step
        write({"type": "step", "step": step, "epoch": step * G / n_train, "loss": step_loss,
               "lr": lr, "grad_norm": grad_norm, "tokens": int(n_tokens),
               "masked": int(n_masked), "tokens_per_s": n_tokens / max(time.time() - t0, 1e-9)})
        say = step % max(1, total // 20) == 0 or step == total
        line = f"step {step}/{total} loss {step_loss:.4f} lr {lr:.3g}"
        if len(data.held_out) and (args.eval_every and step % args.eval_every == 0
                                   or step == total):
            loss = evaluate()
            if loss is not None:
                st.last_eval, say = loss, True
                if st.best_loss is None or loss < st.best_loss:
                    st.best_loss, st.best_step = loss, step
                    if rank == 0:
                        st.best = {k: v.detach().to("cpu", copy=True)
                                   for k, v in model.state_dict().items()}
                write({"type": "eval", "step": step, "held_out_loss": loss,
                       "best_loss": st.best_loss, "best_step": st.best_step,
                       "held_out_blocks": len(data.held_out)})
                line += f" held-out {loss:.4f} (best {st.best_loss:.4f} at {st.best_step})"
        if rank == 0 and say:
            print(f"{PROG}: {line}", file=sys.stderr)
        if rank == 0 and args.checkpoint_every and step % args.checkpoint_every == 0 \
                and step < total:
            torch.save({"fingerprint": fingerprint, "model": model.state_dict(),
                        "optimizer": opt.state_dict(), "state": vars(st)}, work / "ck.tmp")
            os.replace(work / "ck.tmp", work / CHECKPOINT)

    baseline = data.meta.get("unigram_baseline")
    write({"type": "summary", "step": st.step, "best_step": st.best_step,
           "best_loss": st.best_loss, "last_eval_loss": st.last_eval,
           "unigram_baseline": baseline, "stopped_early": False})
    if rank == 0:
        log.close()
        save(data, args, settings, model, st, work, out)
        print(f"{PROG}: wrote {out}: step {st.step} in {time.time() - started:.0f} s; best "
              f"held-out loss {st.best_loss} at step {st.best_step}; unigram baseline "
              f"{baseline}", file=sys.stderr)
    return 0


def save(data, args, settings, model, st, work, out):
    """Writes the model, tokenizer and manifest into `work` and renames it to `out`."""
    if st.best is not None and st.best_step != st.step:
        model.load_state_dict(st.best)
    model.save_pretrained(work)
    for f in sorted(data.tok_dir.iterdir()):
        if f.is_file():
            shutil.copyfile(f, work / f.name)
    m = data.meta
    manifest = {"tool": "anonlm", "version": m["tool_version"], "seed": args.seed,
                "settings": settings, "pack": data.pack, "seq_len": data.seq_len,
                "held_out_fraction": m["settings"]["held_out_fraction"],
                **{k: m[k] for k in ("n_input_documents", "n_distinct_documents",
                                     "corpus_digest", "data_digest")},
                "train": data.sets["train"], "held_out": data.sets["held_out"]}
    if m.get("canaries") is not None:
        manifest["canaries"] = m["canaries"]
    (work / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    (work / CHECKPOINT).unlink(missing_ok=True)
    for root, dirs, files in os.walk(work):
        for name in dirs + files:
            os.chmod(os.path.join(root, name), 0o700 if name in dirs else 0o600)
    os.chmod(work, 0o700)
    if out.is_dir() and not out.is_symlink():
        shutil.rmtree(out)
    elif out.exists() or out.is_symlink():
        out.unlink()
    os.rename(work, out)


if __name__ == "__main__":
    sys.exit(main())
