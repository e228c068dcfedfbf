"""De-identify a corpus too large for one machine with Spark, one anonlm process per partition.

    spark-submit --files target/release/anonlm[,secret.key] scripts/spark_pipe.py \
        IN OUT [--policy NAME] [--key secret.key] [--partitions N]

IN is Document JSONL (a file or a folder of part files); OUT receives the de-identified JSONL as
part files, in input order, exactly the bytes one `anonlm deid` run over IN would write. Each
partition's ops log and counts land beside its output part, under the same part name, in the
sibling folders OUT.ops/ and OUT.stats/ (they are written first: OUT/_SUCCESS marks a complete
run). The binary (and a key file, for keyed policies) must be shipped to every worker with
--files.

Every partition runs `anonlm deid` to completion and its exit code is checked (what
`RDD.pipe(command, checkCode=True)` does), so one bad document fails its task and the job: no
_SUCCESS is written and spark-submit exits nonzero. `RDD.pipe` itself cannot give each partition
its own ops-log path, hence the small runner below. The partition's documents pass through a
private temporary folder on the worker (mode 0700, removed afterwards); stderr carries counts and
file names only, never text.
"""

import argparse
import json
import os
import shutil
import subprocess
import tempfile

from pyspark import SparkFiles
from pyspark.sql import SparkSession


def deid_partition(binary, policy, key):
    """The map task: documents in, ("doc" | "ops" | "stats", line) records out."""

    def run(index, lines):
        work = tempfile.mkdtemp(prefix="anonlm-part-")
        try:
            inp = os.path.join(work, "in.jsonl")
            with open(os.open(inp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w",
                      encoding="utf-8") as f:
                for line in lines:
                    f.write(line)
                    f.write("\n")
            out, ops, stats = (os.path.join(work, n) for n in ("out.jsonl", "ops.jsonl",
                                                               "stats.json"))
            cmd = [binary, "deid", "--format", "jsonl", "--lang", "auto", "--quiet",
                   "--policy", policy, "--ops-log", ops, "--stats", stats, "--out", out, inp]
            if key:
                cmd += ["--key-file", key]
            done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  check=False)
            if done.returncode != 0:
                tail = done.stderr.decode("utf-8", "replace")[-2000:]
                raise RuntimeError(
                    f"anonlm deid failed on partition {index} (exit {done.returncode}): {tail}")
            for kind, path in (("doc", out), ("ops", ops)):
                with open(path, encoding="utf-8") as f:
                    for line in f:
                        yield kind, line.rstrip("\n")
            with open(stats, encoding="utf-8") as f:
                # One line per part: the counts as compact JSON.
                yield "stats", json.dumps(json.load(f), separators=(",", ":"), sort_keys=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--policy", default="default")
    ap.add_argument("--key", help="name of a key file shipped with --files")
    ap.add_argument("--partitions", type=int, default=0)
    args = ap.parse_args()

    spark = SparkSession.builder.appName("anonlm-deid").getOrCreate()
    sc = spark.sparkContext
    binary = SparkFiles.get("anonlm")
    key = SparkFiles.get(args.key) if args.key else None
    lines = sc.textFile(args.inp, minPartitions=args.partitions or None)
    records = lines.mapPartitionsWithIndex(
        deid_partition(binary, args.policy, key), preservesPartitioning=True).persist()
    # Same partitions, same part names: OUT.ops/part-00003 is the log of OUT/part-00003.
    for kind, dest in (("ops", args.out + ".ops"), ("stats", args.out + ".stats"),
                       ("doc", args.out)):
        records.filter(lambda r, k=kind: r[0] == k).map(lambda r: r[1]).saveAsTextFile(dest)
    spark.stop()


if __name__ == "__main__":
    main()
