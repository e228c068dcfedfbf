"""De-identify a corpus too large for one machine with Spark, one anonlm process per partition.

anonlm reads Document JSONL (or one text document per line) on stdin and writes the
de-identified documents to stdout in the same order, so it works as an `RDD.pipe` map task.
The binary and the key file must be present on every worker (e.g. shipped with --files).

    spark-submit --files target/release/anonlm,secret.key scripts/spark_pipe.py IN_DIR OUT_DIR

Pseudonyms and date shifts are keyed, so every worker produces the same replacement for the same
value; surrogates are consistent corpus-wide when a key file is given. Ops logs go to a per-task
file on the worker (stderr carries counts only, never text).
"""

import sys

from pyspark import SparkFiles
from pyspark.sql import SparkSession


def main(inp: str, out: str) -> None:
    spark = SparkSession.builder.appName("anonlm-deid").getOrCreate()
    binary = SparkFiles.get("anonlm")
    key = SparkFiles.get("secret.key")
    cmd = [binary, "deid", "--format", "jsonl", "--lang", "auto", "--quiet",
           "--policy", "default", "--key-file", key, "--ops-log", "/tmp/anonlm-ops.jsonl",
           "--out", "-", "-"]
    lines = spark.sparkContext.textFile(inp)
    lines.pipe(cmd).saveAsTextFile(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
