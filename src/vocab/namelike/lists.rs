//! Name lists to look vocabulary entries up in: the project's built-in first names and surnames
//! of every language, or a hospital's own list of patients and staff.

use std::collections::HashSet;
use std::path::Path;

use crate::lang::Lang;
use crate::wordlists::{invalid_utf8_line, parse_list, ListSources, VocabError};

/// Which list a surface matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ListHit {
    FirstName,
    Surname,
    /// A name of the user's own list (first name, surname or full name split into words).
    UserName,
}

/// Lower-cased name words.
#[derive(Debug, Clone, Default)]
pub struct NameLists {
    first: HashSet<String>,
    surnames: HashSet<String>,
    user: HashSet<String>,
}

impl NameLists {
    /// The built-in first-name and surname lists of all five languages. Fails closed when one is
    /// missing from the build.
    pub fn builtin() -> Result<Self, VocabError> {
        let sources = ListSources::default();
        let mut lists = NameLists::default();
        for lang in Lang::ALL {
            for (name, set) in [
                ("first_names", &mut lists.first),
                ("surnames", &mut lists.surnames),
            ] {
                set.extend(sources.load(lang, name)?.iter().flat_map(|n| words(n)));
            }
        }
        Ok(lists)
    }

    /// Adds a user list (one name per line, `#` comments); full names count word by word.
    pub fn add_file(&mut self, path: &Path) -> Result<usize, VocabError> {
        let bytes = std::fs::read(path).map_err(|source| VocabError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| VocabError::Bad {
            path: path.to_path_buf(),
            line: invalid_utf8_line(&e),
            msg: "not UTF-8".into(),
        })?;
        let before = self.user.len();
        self.user.extend(parse_list(&text).flat_map(words));
        Ok(self.user.len() - before)
    }

    /// The list a word is on (case-insensitive); words shorter than 2 letters never match.
    pub fn lookup(&self, word: &str) -> Option<ListHit> {
        if word.chars().count() < 2 {
            return None;
        }
        let w = word.to_lowercase();
        if self.user.contains(&w) {
            Some(ListHit::UserName)
        } else if self.surnames.contains(&w) {
            Some(ListHit::Surname)
        } else if self.first.contains(&w) {
            Some(ListHit::FirstName)
        } else {
            None
        }
    }

    pub fn len(&self) -> usize {
        self.first.len() + self.surnames.len() + self.user.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Surname particles of the five languages: ordinary words, not names, wherever they stand.
const PARTICLES: &[&str] = &[
    "van", "de", "den", "der", "het", "te", "ten", "ter", "in", "op", "'t", "von", "di", "da",
    "del", "della", "dei", "degli", "la", "le", "lo", "y", "e", "dos", "das", "du", "des", "of",
    "st", "st.", "mc", "mac",
];

/// The name words of a list entry: `van den Berg` and `Van den Berg` give `berg` only;
/// `Anne-Marie` stays whole.
fn words(entry: &str) -> impl Iterator<Item = String> + '_ {
    entry
        .split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| !PARTICLES.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_lists_load_and_particles_are_not_names() {
        let lists = NameLists::builtin().unwrap();
        assert!(lists.len() > 1000);
        for particle in ["van", "den", "de", "der"] {
            assert_eq!(lists.lookup(particle), None, "{particle}");
        }
        assert_eq!(lists.lookup("x"), None);
    }

    #[test]
    fn user_list_words_count() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("staff.txt");
        std::fs::write(&p, "# staff\nQuirijn Zwanenburg\nvan der Plas\n").unwrap();
        let mut lists = NameLists::default();
        assert_eq!(lists.add_file(&p).unwrap(), 3);
        assert_eq!(lists.lookup("ZWANENBURG"), Some(ListHit::UserName));
        assert_eq!(lists.lookup("Plas"), Some(ListHit::UserName));
        assert_eq!(lists.lookup("van"), None);
        assert!(lists.add_file(&dir.path().join("missing.txt")).is_err());
    }
}
