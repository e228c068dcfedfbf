#!/usr/bin/env python3
"""Fuzz every input format the anonlm CLI reads, through the built binary.

    python3 scripts/fuzz_inputs.py --bin target/release/anonlm --seed 1 --count 3000 --cases fuzz-cases

Builds small valid inputs with the binary itself (synth, labelstudio export, deid, tokenizer
train, mlm train, probe build/run, vocab harvest), then for each case mutates one input --
document JSONL, a brat dir (.txt/.ann), CoNLL/IOB, a review TSV, an audit or release spec (TOML),
a Label Studio export (JSON) -- and runs the commands that read it with a time limit. Mutations:
byte flips, truncation, inserted control characters and invalid UTF-8, huge numbers, NaN/inf,
duplicated and missing keys, wrong types, offsets out of range; a marker ('Zq' + 12 letters, new
for each case) is planted in every field value, and a second one deep inside document ids (past
the prefix that messages may show).

A case fails when a run
  - exits with a code other than 0, 1 or 2, or is killed by a signal,
  - runs past --timeout,
  - reports an internal error (a panic),
  - prints a marker on stderr or on a stdout that is not the command's data output, or writes the
    value marker into a report, ops log, stats file, metrics file or release state (document ids
    may appear in those; de-identified corpora, recognized spans, tokenizers, models and the
    protected rewrite map are data outputs and are not checked).
Each failing case is saved under --cases as a directory with its inputs, the commands
(cmd.txt), their output and what failed (why.txt); the script then exits 1. Python 3.11 standard
library only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import signal
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ALLOWED_CODES = {0, 1, 2}
ID_PAD = "d" * 40  # longer than the id prefix messages may show (32 characters)


# ---------------------------------------------------------------------------------------------
# Fixtures: small valid inputs made with the binary under test.


def sh(binary: str, cwd: Path, *args: str) -> None:
    r = subprocess.run([binary, *args], cwd=cwd, capture_output=True, timeout=600)
    if r.returncode != 0:
        sys.exit(
            f"fixture step failed: anonlm {' '.join(args)}: exit {r.returncode}\n"
            + r.stderr.decode("utf-8", "replace")
        )


AUDIT_SPEC = """[model]
dir = "MODEL"
[data]
members = "MEMBERS"
non_members = "OTHERS"
examples = "blocks"
block_tokens = 16
max_per_set = 12
min_per_set = 2
seed = 0
[attacks]
blind = true
loss = true
pll = false
reference_ratio = false
canaries = false
[thresholds]
max_auc = 0.9
max_blind_auc = 0.9
max_tpr_at_1pct_fpr = 0.5
[evidence]
names = ["builtin:nl"]
"""

RELEASE_SPEC = """[release]
corpus = "CORPUS"
format = "jsonl"
lang = "nl"
policy = "medroberta"
passes = 1
gold = true
[release.tokenizer]
kind = "wordpiece"
vocab_size = 200
[release.train]
config = "tiny"
steps = 2
batch = 4
seq_len = 16
lr = 3e-3
held_out = 0.3
seed = 1
canaries = 0
[release.probe]
max_per_set = 4
harvest_top_k = 5
top_k = 5
[data]
examples = "blocks"
max_per_set = 10
min_per_set = 2
[attacks]
blind = true
loss = true
pll = false
reference_ratio = false
canaries = false
[thresholds]
max_auc = 0.9
[evidence]
names = ["builtin:nl"]
"""


def make_fixtures(binary: str, fx: Path) -> None:
    fx.mkdir(parents=True, exist_ok=True)
    steps = [
        ["synth", "--lang", "nl", "--docs", "6", "--seed", "1", "--out", "c.jsonl"],
        ["synth", "--lang", "nl", "--docs", "4", "--seed", "5", "--out", "others.jsonl"],
        ["synth", "--lang", "nl", "--docs", "3", "--seed", "2", "--format", "brat", "--out", "brat"],
        ["synth", "--lang", "nl", "--docs", "3", "--seed", "3", "--format", "conll", "--out", "c.conll"],
        ["labelstudio", "export", "-q", "--use-input-spans", "--out", "ls.json", "c.jsonl"],
        ["deid", "-q", "--lang", "nl", "--policy", "medroberta", "--out", "d.jsonl", "c.jsonl"],
        ["tokenizer", "train", "-q", "--corpus", "d.jsonl", "--kind", "wordpiece",
         "--vocab-size", "300", "--out", "tok"],
        ["mlm", "train", "-q", "--corpus", "d.jsonl", "--tokenizer", "tok", "--config", "tiny",
         "--steps", "3", "--batch", "4", "--seq-len", "32", "--held-out", "0.3", "--out", "model"],
        ["probe", "build", "--corpus", "d.jsonl", "--ops-log", "d.ops.jsonl", "--manifest", "model",
         "--original", "c.jsonl", "--out", "probes"],
        ["probe", "run", "--model", "model", "--set", "probes/probes.jsonl", "--out", "pr.jsonl",
         "--top-k", "10", "--max-candidates", "5"],
        ["vocab", "harvest", "--probe", "pr.jsonl", "--model", "model", "--out", "review.tsv",
         "--all-tokens"],
    ]
    for args in steps:
        sh(binary, fx, *args)


# ---------------------------------------------------------------------------------------------
# Mutations.


class Mut:
    """The random choices of one case: a marker for values, one for ids; a light case plants
    the markers and keeps the structure (so that runs get past the parsers), a heavy one
    damages it."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.heavy = rng.random() < 0.5
        self.mark = "Zq" + "".join(rng.choice(string.ascii_letters) for _ in range(12))
        self.idmark = "Zq" + "".join(rng.choice(string.ascii_letters) for _ in range(12))

    def plant(self, s: str) -> str:
        """`s` with the marker inside (start, middle, end or instead)."""
        r = self.rng
        k = r.randrange(5)
        if k == 0:
            return self.mark
        if k == 1:
            return self.mark + " " + s
        if k == 2:
            return s + " " + self.mark
        if k == 3 and s:
            i = r.randrange(len(s) + 1)
            return s[:i] + self.mark + s[i:]
        return s + self.mark

    def weird_number(self):
        return self.rng.choice([
            10**30, -(10**30), 2**63, 2**64 + 5, -1, -(2**63) - 1, 0, 1e308, -1e308, 1.5,
            "NaN", "inf", float("nan"), float("inf"), float("-inf"), 4294967296, 9.999e-320,
        ])

    def weird_value(self, like):
        r = self.rng
        pool = [
            None, True, [], {}, [self.mark], {self.mark: self.mark}, self.mark,
            self.weird_number(), "\u0000" + self.mark, "\ud800" if False else "\ufffe",
            self.mark * r.randint(1, 50),
        ]
        if isinstance(like, str):
            pool += [self.plant(like)] * 4
        if isinstance(like, (int, float)) and not isinstance(like, bool):
            pool += [self.weird_number()] * 4 + [str(like) + self.mark]
        return r.choice(pool)

    def mutate_json(self, v, depth: int = 0):
        """A structural mutation of a parsed JSON value (applied in place where possible)."""
        r = self.rng
        if isinstance(v, dict):
            keys = list(v.keys())
            for k in keys:
                if r.random() < 0.15:
                    del v[k]
                elif r.random() < 0.3:
                    v[k] = self.weird_value(v[k])
                else:
                    v[k] = self.mutate_json(v[k], depth + 1)
            if r.random() < 0.2:
                v[self.mark] = self.plant("x")
            return v
        if isinstance(v, list):
            if v and r.random() < 0.1:
                v.append(r.choice(v))
            if v and r.random() < 0.1:
                del v[r.randrange(len(v))]
            return [self.mutate_json(x, depth + 1) for x in v]
        if isinstance(v, str):
            return self.plant(v) if r.random() < 0.7 else v
        if isinstance(v, bool) or v is None:
            return self.weird_value(v) if r.random() < 0.2 else v
        if isinstance(v, (int, float)):
            if r.random() < 0.3:
                return self.weird_value(v)
            if r.random() < 0.3:
                return v + r.choice([-1, 1, -1000, 1000, 10**9])
            return v
        return v

    def dumps(self, v) -> str:
        s = json.dumps(v, ensure_ascii=self.rng.random() < 0.5, allow_nan=True)
        return s

    def duplicate_key(self, line: str) -> str:
        """`{"a":1,...}` with a key repeated (json.dumps cannot write duplicates)."""
        if line.startswith("{") and len(line) > 2:
            k = self.rng.choice(['"text"', '"id"', '"entities"', '"start"', '"label"', '"data"'])
            return "{" + k + ': "' + self.mark + '", ' + line[1:]
        return line

    def bytes_noise(self, data: bytes) -> bytes:
        """Byte-level damage: flips, truncation, control characters, invalid UTF-8, markers."""
        r = self.rng
        b = bytearray(data)
        for _ in range(r.randint(1, 6)):
            k = r.randrange(8)
            if not b:
                b += self.mark.encode()
                continue
            i = r.randrange(len(b) + 1)
            if k == 0 and i < len(b):
                b[i] ^= 1 << r.randrange(8)
            elif k == 1:
                del b[r.randrange(len(b)) :]
            elif k == 2:
                b[i:i] = bytes([r.choice([0, 1, 7, 8, 9, 10, 13, 27, 127])])
            elif k == 3:
                b[i:i] = r.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80"])
            elif k == 4:
                b[i:i] = self.mark.encode()
            elif k == 5:
                b[i:i] = r.choice([b"\r\n", b"\n\n", b"\xef\xbb\xbf", b"\t", b"\\u0000", b"\\ud800"])
            elif k == 6:
                b[i:i] = r.choice([b"99999999999999999999999", b"-1", b"1e400", b"NaN", b"inf"])
            else:
                j = min(len(b), i + r.randint(1, 40))
                b[i:i] = bytes(b[i:j])
        return bytes(b)


# ---------------------------------------------------------------------------------------------
# Inputs of each format, from the fixtures.


def jsonl_docs(m: Mut, fx: Path, name: str = "c.jsonl") -> bytes:
    r = m.rng
    lines = (fx / name).read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines[: r.randint(1, len(lines))]:
        d = json.loads(line)
        d["id"] = ID_PAD + m.idmark + str(r.randrange(100))
        # A light case keeps the offsets valid: the marker goes after the text.
        d["text"] = m.plant(d.get("text", "")) if m.heavy else d.get("text", "") + " " + m.mark
        for e in d.get("entities", []):
            if m.heavy and r.random() < 0.3:
                e["start"], e["end"] = r.choice([
                    (e["end"], e["start"]), (-1, 3), (0, 10**9), (len(d["text"]) + 1, len(d["text"]) + 5),
                    (2**64, 2**64 + 1), (0.5, 3), ("0", "3"), (None, 2),
                ])
            for k in ("label", "subtype", "source") if m.heavy else ("source",):
                if r.random() < 0.4:
                    e[k] = m.plant(str(e.get(k, "NAME")))
        if r.random() < 0.4:
            d["meta"] = {m.plant("k"): m.plant("v")}
        if m.heavy and r.random() < 0.6:
            d = m.mutate_json(d)
            if isinstance(d.get("id"), str):
                d["id"] = ID_PAD + m.idmark  # ids are shown by a short prefix, by design
        s = m.dumps(d)
        if m.heavy and r.random() < 0.1:
            s = m.duplicate_key(s)
        out.append(s)
    data = ("\n".join(out) + "\n").encode("utf-8", "surrogatepass")
    if m.heavy and r.random() < 0.35:
        data = m.bytes_noise(data)
    return data


def brat_dir(m: Mut, fx: Path, dst: Path) -> None:
    r = m.rng
    dst.mkdir()
    src = fx / "brat"
    for txt in sorted(src.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        ann = (src / (txt.stem + ".ann")).read_text(encoding="utf-8").splitlines()
        new_text = m.plant(text) if m.heavy and r.random() < 0.5 else text + "\n" + m.mark + "\n"
        lines = []
        for line in ann:
            parts = line.split("\t")
            if len(parts) == 3 and not m.heavy and r.random() < 0.3:
                lines.append(line)
                line = f"#{len(lines)}\tAnnotatorNotes {parts[0]}\t{m.mark}"
            elif len(parts) == 3 and m.heavy and r.random() < 0.6:
                tid, mid, surface = parts
                kind, *offs = mid.split(" ")
                k = r.randrange(7)
                if k == 0:
                    kind = m.plant(kind)
                elif k == 1:
                    offs = [str(m.weird_number()), str(m.weird_number())]
                elif k == 2:
                    offs = [offs[0] + m.mark] + offs[1:]
                elif k == 3:
                    offs = [offs[0], str(len(new_text) + r.randint(1, 100))]
                elif k == 4:
                    offs = [offs[0] + ";" + m.mark, "3"]
                elif k == 5:
                    tid = m.plant(tid)
                else:
                    surface = m.plant(surface)
                line = "\t".join([tid, " ".join([kind, *offs]), surface])
            elif r.random() < 0.1:
                line = m.plant(line)
            lines.append(line)
        if m.heavy and r.random() < 0.2:
            lines.append(r.choice([m.mark, "T9\t" + m.mark, "T9\tNAME 0", "#1\tAnnotatorNotes T1\t" + m.mark,
                                   "R1\t" + m.mark + " Arg1:T1 Arg2:T2", "T9\tNAME 1 2;3\t" + m.mark]))
        tb = new_text.encode()
        ab = ("\n".join(lines) + "\n").encode()
        if m.heavy and r.random() < 0.3:
            tb = m.bytes_noise(tb)
        if m.heavy and r.random() < 0.3:
            ab = m.bytes_noise(ab)
        (dst / txt.name).write_bytes(tb)
        if not m.heavy or r.random() < 0.97:
            (dst / (txt.stem + ".ann")).write_bytes(ab)
    if m.heavy and r.random() < 0.05:
        (dst / "orphan.ann").write_text("T1\tNAME 0 3\t" + m.mark + "\n")


def conll_file(m: Mut, fx: Path) -> bytes:
    r = m.rng
    out = []
    for line in (fx / "c.conll").read_text(encoding="utf-8").splitlines():
        parts = line.split(" ")
        if len(parts) >= 2 and not line.startswith("-DOCSTART-") and r.random() < 0.3:
            k = r.randrange(5) if m.heavy else 0
            if k == 0:
                parts[0] = m.plant(parts[0])
            elif k == 1:
                parts[-1] = m.plant(parts[-1])
            elif k == 2:
                parts[-1] = r.choice(["I-", "B-", "X-NAME", "B-" + m.mark, "I-NAME_" + m.mark, "O-O"])
            elif k == 3:
                parts = [m.mark]
            else:
                parts.insert(1, m.mark)
        elif line.startswith("-DOCSTART-") and r.random() < 0.5:
            line = "-DOCSTART- " + ID_PAD + m.idmark
            parts = line.split(" ")
        out.append(" ".join(parts) if parts != [""] else "")
    data = ("\n".join(out) + "\n").encode()
    if m.heavy and r.random() < 0.35:
        data = m.bytes_noise(data)
    return data


def review_tsv(m: Mut, fx: Path) -> bytes:
    r = m.rng
    lines = (fx / "review.tsv").read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        cols = line.split("\t")
        if len(cols) == 5 and not line.startswith("token\t") and r.random() < 0.4:
            k = r.randrange(7) if m.heavy else 3
            if k == 0:
                cols[0] = m.plant(cols[0])
            elif k == 1:
                cols[1] = str(m.weird_number()) if r.random() < 0.5 else m.plant(cols[1])
            elif k == 2:
                cols[2] = str(m.weird_number())
            elif k == 3:
                cols[3] = m.plant(cols[3])
            elif k == 4:
                cols[4] = r.choice([m.plant(cols[4]), "REMOVE", "", "keep " + m.mark])
            elif k == 5:
                cols = cols[: r.randint(0, 4)]
            else:
                cols.append(m.mark)
        out.append("\t".join(cols))
    if m.heavy and r.random() < 0.2:
        out.insert(r.randint(0, len(out)), m.mark + "\t1\t2\t" + m.mark + "\tremove")
    data = ("\n".join(out) + "\n").encode()
    if m.heavy and r.random() < 0.3:
        data = m.bytes_noise(data)
    return data


def toml_value(m: Mut, key: str, value: str) -> str:
    """A mutated TOML value for `key = value` (value as written)."""
    r = m.rng
    k = r.randrange(9)
    if k == 0:
        return json.dumps(m.mark)
    if k == 1:
        return r.choice(["nan", "inf", "-inf", "+nan", "1e400", "99999999999999999999", "-1", "0"])
    if k == 2:
        return json.dumps(m.plant(value.strip('"')))
    if k == 3:
        return "[" + json.dumps(m.mark) + ", 1]"
    if k == 4:
        return "{ " + m.mark + " = 1 }"
    if k == 5:
        return r.choice(["true", "1.5", '"1"', "[]", "1979-05-27"])
    if k == 6:
        return value + " " + m.mark
    if k == 7:
        return '"""' + m.mark + '\n"""'
    return value


PATH_KEYS = {"dir", "members", "non_members", "corpus", "reference_corpus", "reference",
             "tokenizer", "model", "names", "policy", "gold"}


def toml_spec(m: Mut, text: str) -> bytes:
    r = m.rng
    out = []
    for line in text.splitlines():
        if "=" in line and r.random() < (0.3 if m.heavy else 0.05):
            key, value = [s.strip() for s in line.split("=", 1)]
            if key in PATH_KEYS and value.startswith('"'):
                # Paths name the file in messages by design; mutate the type, not the name.
                value = r.choice([value, "1", "nan", "[1]", "{ a = 1 }", "true"])
            else:
                value = toml_value(m, key, value)
            if m.heavy and r.random() < 0.15:
                key = m.plant(key) if r.random() < 0.5 else key + "_" + m.mark
            line = f"{key} = {value}"
            if r.random() < 0.1:
                out.append(line)  # a duplicated key
        elif m.heavy and line.startswith("[") and r.random() < 0.05:
            line = r.choice(["[" + m.mark + "]", line + "\n" + line, "[[data]]", line[:-1]])
        elif m.heavy and r.random() < 0.03:
            continue
        out.append(line)
    if m.heavy and r.random() < 0.1:
        out.append(m.mark + " = " + json.dumps(m.mark))
    data = ("\n".join(out) + "\n").encode()
    if m.heavy and r.random() < 0.25:
        data = m.bytes_noise(data)
    return data


def labelstudio_json(m: Mut, fx: Path) -> bytes:
    r = m.rng
    tasks = json.loads((fx / "ls.json").read_text(encoding="utf-8"))
    tasks = tasks[: r.randint(1, len(tasks))]
    for t in tasks:
        data = t.get("data", {})
        if isinstance(data, dict):
            if "text" in data:
                data["text"] = m.plant(data["text"])
            if "doc_id" in data:
                data["doc_id"] = ID_PAD + m.idmark
        for key in ("annotations", "predictions"):
            for a in t.get(key, []) or []:
                for res in a.get("result", []) or []:
                    v = res.get("value", {})
                    if m.heavy and r.random() < 0.3:
                        v["start"], v["end"] = r.choice([
                            (5, 2), (-1, 4), (0, 10**12), (2**64, 2**64 + 2), ("a", "b"), (1.5, 2.5), (None, None),
                        ])
                    if r.random() < 0.3:
                        v["text"] = m.plant(str(v.get("text", "")))
                    if r.random() < 0.3 and isinstance(v.get("labels"), list):
                        v["labels"] = [m.plant(str(x)) for x in v["labels"]] + ([m.mark] if r.random() < 0.3 else [])
        if m.heavy and r.random() < 0.4:
            m.mutate_json(t)
            if isinstance(t.get("data"), dict) and isinstance(t["data"].get("doc_id"), str):
                t["data"]["doc_id"] = ID_PAD + m.idmark
            if isinstance(t.get("id"), str):
                t["id"] = ID_PAD + m.idmark  # task ids are shown by a short prefix, by design
            for key in ("annotations", "predictions"):
                for a in t.get(key, []) if isinstance(t.get(key), list) else []:
                    for res in (a.get("result", []) if isinstance(a, dict) and isinstance(a.get("result"), list) else []):
                        if isinstance(res, dict) and isinstance(res.get("id"), str):
                            res["id"] = ID_PAD + m.idmark
    if m.heavy and r.random() < 0.1:
        tasks = r.choice([{"tasks": tasks}, tasks[0], m.mark, [m.mark], [[1]]])
    s = m.dumps(tasks)
    if r.random() < 0.1:
        s = s.replace("{", '{"id": "' + ID_PAD + m.idmark + '", ', 1)
    data = s.encode("utf-8", "surrogatepass")
    if m.heavy and r.random() < 0.3:
        data = m.bytes_noise(data)
    return data


# ---------------------------------------------------------------------------------------------
# Cases: an input, the commands that read it, the files that must hold no marker.


class Run:
    def __init__(self, args: list[str], data_stdout: bool = False, checked: tuple[str, ...] = (),
                 timeout: float | None = None):
        self.args = args
        self.data_stdout = data_stdout
        self.checked = checked  # files (relative to the case dir) that must hold no value marker
        self.timeout = timeout


def build_case(kind: str, m: Mut, fx: Path, d: Path) -> list[Run]:
    r = m.rng
    f = str(fx)
    if kind == "jsonl":
        (d / "in.jsonl").write_bytes(jsonl_docs(m, fx))
        (d / "pred.jsonl").write_bytes(jsonl_docs(m, fx) if m.heavy else (d / "in.jsonl").read_bytes())
        extra = ["--use-input-spans"] if r.random() < 0.5 else []
        runs = [
            Run(["deid", "-q", "--lang", r.choice(["nl", "auto"]), "--out", "out.jsonl", *extra, "in.jsonl"],
                checked=("out.ops.jsonl", "out.stats.json")),
            Run(["deid", "-q", "--lang", "nl", "--format", "auto", "--out", "-", "-"], data_stdout=True),
            Run(["recognize", "-q", "--lang", "nl", "--out", "-", "in.jsonl"], data_stdout=True),
            Run(["eval", "--gold", "in.jsonl", "--pred", "pred.jsonl", "--json", "eval.json"], checked=("eval.json",)),
            Run(["labelstudio", "export", "-q", "--use-input-spans", "--out", "-", "in.jsonl"], data_stdout=True),
        ]
        if r.random() < 0.3:
            runs.append(Run(["tokenizer", "train", "-q", "--corpus", "in.jsonl", "--kind",
                             r.choice(["wordpiece", "bpe", "unigram"]), "--vocab-size", "120", "--out", "tok"]))
        if r.random() < 0.15:
            runs.append(Run(["mlm", "train", "-q", "--corpus", "in.jsonl", "--tokenizer", f + "/tok",
                             "--config", "tiny", "--steps", "1", "--batch", "2", "--seq-len", "16",
                             "--held-out", "0", "--out", "m"], checked=("m/train_log.jsonl",)))
        if r.random() < 0.2:
            # The de-identified output of the first run, its ops log and the mutated original.
            runs.append(Run(["probe", "build", "--corpus", "out.jsonl", "--ops-log", "out.ops.jsonl",
                             "--original", "in.jsonl", "--manifest", f + "/model", "--out", "probes"],
                            checked=("probes/summary.json",)))
        return runs
    if kind == "stdin-jsonl":
        (d / "in.jsonl").write_bytes(jsonl_docs(m, fx))
        return [Run(["deid", "-q", "--lang", "nl", "--out", "-", "-"], data_stdout=True),
                Run(["recognize", "-q", "--lang", "nl", "--out", "-", "-"], data_stdout=True)]
    if kind == "brat":
        brat_dir(m, fx, d / "brat")
        return [
            Run(["deid", "-q", "--lang", "nl", "--format", "brat", "--out", "outb", "--use-input-spans", "brat"],
                checked=("outb.ops.jsonl", "outb.stats.json")),
            Run(["recognize", "-q", "--lang", "nl", "--format", "brat", "--out-format", "jsonl", "--out", "-", "brat"],
                data_stdout=True),
            Run(["eval", "--gold", "brat", "--format", "brat", "--pred", f + "/c.jsonl", "--pred-format",
                 "jsonl", "--json", "eval.json"], checked=("eval.json",)),
        ]
    if kind == "conll":
        (d / "in.conll").write_bytes(conll_file(m, fx))
        return [
            Run(["deid", "-q", "--lang", "nl", "--format", "conll", "--out", "out.conll", "in.conll"],
                checked=("out.conll.ops.jsonl", "out.conll.stats.json", "out.ops.jsonl", "out.stats.json")),
            Run(["recognize", "-q", "--lang", "nl", "--format", "conll", "--out", "-", "in.conll"], data_stdout=True),
            Run(["eval", "--gold", "in.conll", "--format", "conll", "--pred", "in.conll", "--json", "eval.json"],
                checked=("eval.json",)),
        ]
    if kind == "review":
        (d / "review.tsv").write_bytes(review_tsv(m, fx))
        return [
            Run(["vocab", "rewrite", "--model", f + "/model", "--tokens", "review.tsv", "--out", "rw",
                 "--map", "map.json"]),
            Run(["probe", "metrics", "--probe", f + "/pr.jsonl", "--model", f + "/model", "--review", "review.tsv",
                 "--out", "metrics.json"], checked=("metrics.json",)),
        ]
    if kind == "audit":
        spec = (AUDIT_SPEC.replace("MODEL", f + "/model").replace("MEMBERS", f + "/d.jsonl")
                .replace("OTHERS", f + "/others.jsonl"))
        (d / "spec.toml").write_bytes(toml_spec(m, spec))
        return [Run(["audit", "--spec", "spec.toml", "--out", "rep"],
                    checked=("rep/report.json", "rep/report.md", "rep/report.html"))]
    if kind == "release":
        (d / "spec.toml").write_bytes(toml_spec(m, RELEASE_SPEC.replace("CORPUS", f + "/c.jsonl")))
        return [Run(["release", "-q", "--spec", "spec.toml", "--out", "rel"],
                    checked=("rel/release.state.json", "rel/report/report.json", "rel/report/report.md",
                             "rel/report/report.html"), timeout=300)]
    if kind == "labelstudio":
        (d / "ls.json").write_bytes(labelstudio_json(m, fx))
        return [Run(["labelstudio", "import", "--out", "-", "ls.json"], data_stdout=True),
                Run(["labelstudio", "import", "--out", "imp.jsonl", "ls.json"])]
    raise ValueError(kind)


# Relative weights of the formats (a release run costs seconds, so it is drawn rarely).
KINDS = [("jsonl", 30), ("stdin-jsonl", 8), ("brat", 15), ("conll", 12), ("review", 12),
         ("audit", 8), ("labelstudio", 15), ("release", 1)]


def run_one(binary: str, run: Run, d: Path, timeout: float) -> tuple[int | None, bytes, bytes, bool]:
    stdin = None
    if "-" in run.args[-1:]:
        stdin = open(d / "in.jsonl", "rb")
    try:
        p = subprocess.Popen([binary, *run.args], cwd=d, stdin=stdin or subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = p.communicate(timeout=run.timeout or timeout)
            return p.returncode, out, err, False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return None, out, err, True
    finally:
        if stdin:
            stdin.close()


def check(run: Run, m: Mut, d: Path, code, out: bytes, err: bytes, hung: bool) -> list[str]:
    why = []
    if hung:
        why.append("hung past the time limit")
    elif code is not None and code < 0:
        why.append(f"killed by signal {-code}")
    elif code not in ALLOWED_CODES:
        why.append(f"exit code {code}")
    if b"internal error at" in err or b"panicked" in err:
        why.append("internal error (panic)")
    marks = [m.mark.encode(), m.idmark.encode()]
    if any(x in err for x in marks):
        why.append("a planted marker on stderr")
    if not run.data_stdout and any(x in out for x in marks):
        why.append("a planted marker on stdout (not a data output)")
    for rel in run.checked:
        p = d / rel
        if p.is_file() and m.mark.encode() in p.read_bytes():
            why.append(f"the value marker in {rel}")
    return why


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="the anonlm binary")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True, help="cases to run")
    ap.add_argument("--cases", required=True, help="directory for failing cases")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per run")
    ap.add_argument("--kinds", default=",".join(k for k, _ in KINDS),
                    help="comma-separated formats to fuzz")
    ap.add_argument("--fixtures", help="reuse (or make) the fixtures here")
    a = ap.parse_args()
    binary = str(Path(a.bin).resolve())
    cases = Path(a.cases)
    cases.mkdir(parents=True, exist_ok=True)
    kinds = [(k, w) for k, w in KINDS if k in a.kinds.split(",")]
    if not kinds:
        sys.exit("no known --kinds")
    with tempfile.TemporaryDirectory(prefix="anonlm-fuzz-") as tmp:
        fx = Path(a.fixtures) if a.fixtures else Path(tmp) / "fixtures"
        if not (fx / "review.tsv").exists():
            make_fixtures(binary, fx)
        fx = fx.resolve()
        failed = 0
        counts: dict[str, int] = {}
        exits: dict[tuple[str, int | None], int] = {}
        started = time.time()
        for i in range(a.count):
            rng = random.Random(a.seed * 1_000_003 + i)
            kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
            m = Mut(rng)
            d = Path(tmp) / f"case-{i}"
            d.mkdir()
            runs = build_case(kind, m, fx, d)
            counts[kind] = counts.get(kind, 0) + 1
            report = []
            bad = False
            for run in runs:
                code, out, err, hung = run_one(binary, run, d, a.timeout)
                why = check(run, m, d, code, out, err, hung)
                report.append(f"$ anonlm {shlex.join(run.args)}\nexit {code}{' (hung)' if hung else ''}\n"
                              + ("FAILED: " + "; ".join(why) + "\n" if why else "")
                              + "--- stderr\n" + err.decode("utf-8", "replace")[-4000:] + "\n")
                bad |= bool(why)
                cmd = " ".join(run.args[:2]) if run.args[0] in ("vocab", "probe", "labelstudio", "tokenizer", "mlm") else run.args[0]
                exits[(cmd, code)] = exits.get((cmd, code), 0) + 1
            if bad:
                failed += 1
                if not (cases / "fixtures").exists():
                    shutil.copytree(fx, cases / "fixtures", symlinks=True)
                keep = cases / f"seed{a.seed}-case{i}-{kind}"
                if keep.exists():
                    shutil.rmtree(keep)
                shutil.copytree(d, keep, symlinks=True)
                (keep / "cmd.txt").write_text(
                    f"cd {keep}  # fixture paths below were under {fx} (a copy: {cases / 'fixtures'})\n"
                    f"# markers: value {m.mark}, id {m.idmark}\n" + "\n".join(report))
                first = next(line for line in "\n".join(report).splitlines() if line.startswith("FAILED"))
                print(f"case {i} ({kind}): {first}", flush=True)
            shutil.rmtree(d, ignore_errors=True)
            if (i + 1) % 200 == 0:
                print(f"{i + 1}/{a.count} cases, {failed} failing, {time.time() - started:.0f} s", flush=True)
        print(f"fuzz: seed {a.seed}, {a.count} cases ({', '.join(f'{k} {n}' for k, n in sorted(counts.items()))}), "
              f"{failed} failing" + (f", saved under {cases}" if failed else ""))
        print("exit codes: " + ", ".join(f"{c} -> {k}: {n}" for (c, k), n in sorted(exits.items(), key=str)))
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
