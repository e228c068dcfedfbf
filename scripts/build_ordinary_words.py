#!/usr/bin/env python3
"""Derive the ordinary English words: the lower-case words of SCOWL's American and British lists.

Usage (from the crate root; python3 standard library only):

    apt-get install wamerican wbritish      # Debian's packages of SCOWL, size 50
    python3 scripts/build_ordinary_words.py /usr/share/dict wordlists

DICT_DIR holds `american-english` and `british-english` (their SHA-256 is checked, so another
version of the packages fails rather than drifting). Writes wordlists/en/ordinary_words.txt
and wordlists/PROVENANCE_ordinary_words.md; deterministic (CI rebuilds and compares them, in
tests/it/wordlist_sources.rs).

What the list is for: a note typed in capitals or in lower case gives no capital to mark a
name ("SON FERGAL CALLED", "dr gilhooly aware"). After a relative's or staff word or an
abbreviated title, a word of four letters or more that no list of the language holds and that
is no ordinary word is read as the name; this list says which words are ordinary. SCOWL's
permissive licence allows copying its lists with its notice, which the list's header and the
provenance file carry.
"""

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_name_lists import write_list, write_text  # noqa: E402

# wamerican and wbritish 2020.12.07-2 (Debian 12 and 13).
SOURCES = {
    "american-english": "9f513f1ceadb6a01c5485b7dbdfd5118dc66cd70b59cae2851292112d4066a32",
    "british-english": "7424d6682301dc86f73b0a5c8c53f0ba4c9f0a41fb2d1cb7e5fe7f8a04f15fb0",
}
PACKAGES = "wamerican and wbritish 2020.12.07-2"
MIN_LETTERS = 4
OUTPUT = "en/ordinary_words.txt"
NOTICE = [
    "SCOWL (Spell Checker Oriented Word Lists), Copyright 2000-2011 by Kevin Atkinson.",
    "Permission to use, copy, modify, distribute and sell these word lists, the associated",
    "scripts, the output created from the scripts, and its documentation for any purpose is",
    "hereby granted without fee, provided that the above copyright notice appears in all copies",
    "and that both that copyright notice and this permission notice appear in supporting",
    "documentation. Kevin Atkinson makes no representations about the suitability of this array",
    'for any purpose. It is provided "as is" without express or implied warranty.',
]


def read_source(dict_dir, name):
    data = Path(dict_dir, name).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SOURCES[name]:
        raise SystemExit(
            f"{dict_dir}/{name}: SHA-256 {digest}, expected {SOURCES[name]} ({PACKAGES})"
        )
    return data.decode("utf-8").splitlines()


def is_ordinary(entry):
    """A lower-case word of ASCII letters only: no proper noun, possessive or accented loan."""
    return len(entry) >= MIN_LETTERS and entry.isascii() and entry.isalpha() and entry.islower()


def main(argv):
    if len(argv) != 3:
        print("usage: build_ordinary_words.py DICT_DIR VOCAB_DIR", file=sys.stderr)
        return 2
    dict_dir, vocab = argv[1], argv[2]
    counts = {}
    words = set()
    for name in SOURCES:
        entries = [e for e in read_source(dict_dir, name) if is_ordinary(e)]
        counts[name] = len(entries)
        words.update(entries)
    header = [
        "Ordinary English words (lower case, four letters or more), derived by",
        "scripts/build_ordinary_words.py from SCOWL (see wordlists/PROVENANCE_ordinary_words.md);",
        "do not edit by hand.",
    ] + NOTICE
    write_list(f"{vocab}/{OUTPUT}", header, words)
    lines = [
        "# Provenance of the ordinary English words",
        "",
        f"`wordlists/{OUTPUT}` is derived, not written by hand. Rebuild it from the crate root with",
        "",
        "    apt-get install wamerican wbritish",
        "    python3 scripts/build_ordinary_words.py /usr/share/dict wordlists",
        "",
        "(python3 standard library only; deterministic; the script checks the SHA-256 of each",
        "source). `.ci/run` installs the two packages and `tests/it/wordlist_sources.rs` rebuilds",
        "the list in CI and compares it with the shipped one.",
        "",
        "## Source and licence",
        "",
        f"Debian's {PACKAGES}: the size-50 American and British word lists of SCOWL",
        "(Spell Checker Oriented Word Lists, by Kevin Atkinson), whose licence allows copying:",
        "",
    ]
    lines += [f"> {n}" for n in NOTICE]
    lines += [
        "",
        "## Selection",
        "",
        f"Every entry of `american-english` and `british-english` of {MIN_LETTERS} letters or more",
        "that is written in lower-case ASCII letters only (no proper noun, possessive or accented",
        "word), the two lists joined.",
        "",
        "## What it is for",
        "",
        "In a note typed in capitals or in lower case no capital marks a name. After a relative's",
        "or staff word or an abbreviated title written in the same case (`SON FERGAL CALLED`,",
        "`INTERPRETER TSEGAYE PRESENT`, `dr gilhooly aware`), a word of four letters or more that",
        "no list of the language holds and that this list does not hold is read as the name.",
        "",
        "## Counts",
        "",
    ]
    lines += [f"- {name}: {n} entries selected" for name, n in counts.items()]
    lines += [f"- joined: {len(words)} words", ""]
    write_text(f"{vocab}/PROVENANCE_ordinary_words.md", "\n".join(lines))
    print(f"{OUTPUT}: {len(words)} words", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
