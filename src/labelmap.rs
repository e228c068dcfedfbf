//! Label maps: TOML files mapping an annotation scheme's labels (MEDDOCAN, i2b2, ...) to
//! canonical labels, built in under `wordlists/labelmaps/` or given as a file.
//!
//! Format:
//! ```toml
//! name = "meddocan"
//! description = "..."
//! [labels]
//! TERRITORIO = "LOCATION/CITY"   # CATEGORY/SUBTYPE, CATEGORY, or "" / "skip" to ignore the type
//! ```

use crate::labels::Label;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

#[derive(Debug, thiserror::Error)]
pub enum LabelMapError {
    #[error("no built-in label map '{name}' (built-in: {available})")]
    UnknownBuiltin { name: String, available: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {msg}")]
    Bad {
        path: String,
        line: usize,
        msg: String,
    },
}

/// A scheme's labels and the canonical label each maps to (`None`: the type is ignored).
#[derive(Clone, Debug, PartialEq)]
pub struct LabelMap {
    pub name: String,
    pub description: String,
    /// In file order, so reverse look-ups prefer the first entry written.
    entries: Vec<(String, Option<Label>)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMap {
    name: String,
    #[serde(default)]
    description: String,
    labels: BTreeMap<Spanned<String>, Spanned<String>>,
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

impl LabelMap {
    /// Names of the built-in maps (`wordlists/labelmaps/<name>.toml`), sorted.
    pub fn builtin_names() -> Vec<&'static str> {
        let mut names: Vec<&'static str> = crate::wordlists::BUILTIN_FILES
            .iter()
            .filter_map(|(p, _)| p.strip_prefix("labelmaps/")?.strip_suffix(".toml"))
            .collect();
        names.sort_unstable();
        names
    }

    /// A built-in map by name, e.g. `meddocan`, `i2b2`, `hungarian`.
    pub fn builtin(name: &str) -> Result<LabelMap, LabelMapError> {
        let rel = format!("labelmaps/{name}.toml");
        let text =
            crate::wordlists::builtin(&rel).ok_or_else(|| LabelMapError::UnknownBuiltin {
                name: name.to_string(),
                available: Self::builtin_names().join(", "),
            })?;
        Self::parse(text, &format!("wordlists/{rel}"))
    }

    /// A map from a TOML file.
    pub fn from_file(path: &Path) -> Result<LabelMap, LabelMapError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| LabelMapError::Io {
            path: shown.clone(),
            source,
        })?;
        Self::parse(&text, &shown)
    }

    /// A file when `name_or_path` exists, contains `/` or ends with `.toml`; else a built-in.
    pub fn load(name_or_path: &str) -> Result<LabelMap, LabelMapError> {
        let path = Path::new(name_or_path);
        if path.exists() || name_or_path.contains('/') || name_or_path.ends_with(".toml") {
            Self::from_file(path)
        } else {
            Self::builtin(name_or_path)
        }
    }

    /// Parses map text; `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<LabelMap, LabelMapError> {
        let bad = |offset: usize, msg: String| LabelMapError::Bad {
            path: origin.to_string(),
            line: line_of(text, offset),
            msg,
        };
        let raw: RawMap = toml::from_str(text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            bad(offset, e.message().trim().to_string())
        })?;
        let mut entries: Vec<(usize, String, Option<Label>)> = Vec::new();
        for (key, value) in raw.labels {
            let target = value.get_ref().trim();
            let label = if target.is_empty() || target.eq_ignore_ascii_case("skip") {
                None
            } else {
                let parsed = Label::parse(target).map_err(|m| {
                    bad(
                        value.span().start,
                        format!("label '{}': {m}", key.get_ref()),
                    )
                })?;
                Some(parsed)
            };
            entries.push((key.span().start, key.into_inner(), label));
        }
        entries.sort_by_key(|(pos, _, _)| *pos);
        Ok(LabelMap {
            name: raw.name,
            description: raw.description,
            entries: entries.into_iter().map(|(_, k, l)| (k, l)).collect(),
        })
    }

    /// The scheme labels and their targets, in file order.
    pub fn entries(&self) -> &[(String, Option<Label>)] {
        &self.entries
    }

    /// The canonical label for a scheme label; `Ok(None)` for a skipped type. Canonical labels
    /// (`NAME_DOCTOR`, `DATE`) not in the map are accepted as themselves.
    pub fn resolve(&self, raw: &str) -> Result<Option<Label>, crate::error::ValueError> {
        let raw = raw.trim();
        let found = self.entries.iter().find(|(k, _)| k == raw).or_else(|| {
            self.entries
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(raw))
        });
        match found {
            Some((_, l)) => Ok(*l),
            None => Label::parse(raw).map(Some).map_err(|_| {
                crate::error::ValueError::from(format!(
                    "label '{raw}' is neither in label map '{}' nor a canonical label",
                    self.name
                ))
            }),
        }
    }

    /// The scheme label for a canonical label: the first entry with exactly that label, else the
    /// first entry of the same category.
    pub fn to_scheme(&self, label: Label) -> Option<String> {
        let exact = self.entries.iter().find(|(_, l)| *l == Some(label));
        let by_category = || {
            self.entries
                .iter()
                .find(|(_, l)| l.is_some_and(|l| l.category == label.category))
        };
        exact.or_else(by_category).map(|(k, _)| k.clone())
    }

    /// A closure usable as `&crate::corpus::brat::LabelResolver`.
    pub fn resolver(
        &self,
    ) -> impl Fn(&str) -> Result<Option<Label>, crate::error::ValueError> + '_ {
        move |raw| self.resolve(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::brat::LabelResolver;
    use crate::labels::{Category, Subtype};

    #[test]
    fn every_builtin_loads_and_is_not_empty() {
        let names = LabelMap::builtin_names();
        for want in [
            "meddocan",
            "hungarian",
            "spanish_radiology",
            "medroberta",
            "i2b2",
        ] {
            assert!(names.contains(&want), "missing built-in {want}");
        }
        for name in names {
            let m = LabelMap::builtin(name).unwrap();
            assert_eq!(m.name, name);
            assert!(!m.entries().is_empty());
            assert!(!m.description.is_empty());
        }
        let e = LabelMap::builtin("nope").unwrap_err().to_string();
        assert!(e.contains("nope") && e.contains("meddocan"), "{e}");
    }

    #[test]
    fn table_of_mappings() {
        use Category as C;
        use Subtype as S;
        let cases: &[(&str, &str, Option<Label>)] = &[
            (
                "meddocan",
                "TERRITORIO",
                Some(Label::new(C::Location, S::City)),
            ),
            (
                "meddocan",
                "SEXO_SUJETO_ASISTENCIA",
                Some(Label::new(C::Other, S::Sex)),
            ),
            (
                "meddocan",
                "CENTRO_SALUD",
                Some(Label::new(C::Location, S::Hospital)),
            ),
            ("hungarian", "PER", Some(Label::category_only(C::Name))),
            ("hungarian", "TAJ", Some(Label::new(C::Id, S::Ssn))),
            (
                "hungarian",
                "MEDSOL_ID",
                Some(Label::new(C::Name, S::Username)),
            ),
            (
                "hungarian",
                "BIRTH_DATE",
                Some(Label::new(C::Date, S::Birthdate)),
            ),
            ("spanish_radiology", "CAB", None),
            (
                "spanish_radiology",
                "FECHA",
                Some(Label::category_only(C::Date)),
            ),
            (
                "spanish_radiology",
                "INST",
                Some(Label::new(C::Location, S::Hospital)),
            ),
            ("medroberta", "GPE", Some(Label::new(C::Location, S::City))),
            (
                "i2b2",
                "LOCATION-OTHER",
                Some(Label::new(C::Location, S::Other)),
            ),
            ("i2b2", "PATIENT", Some(Label::new(C::Name, S::Patient))),
            // Canonical labels pass through any map.
            (
                "medroberta",
                "NAME_DOCTOR",
                Some(Label::new(C::Name, S::Doctor)),
            ),
            (
                "i2b2",
                "CONTACT/EMAIL",
                Some(Label::new(C::Contact, S::Email)),
            ),
        ];
        for (map, raw, want) in cases {
            let m = LabelMap::builtin(map).unwrap();
            assert_eq!(m.resolve(raw).unwrap(), *want, "{map}: {raw}");
        }
        let err = LabelMap::builtin("meddocan")
            .unwrap()
            .resolve("NO_SUCH_TYPE")
            .unwrap_err();
        assert!(
            err.contains("NO_SUCH_TYPE") && err.contains("meddocan"),
            "{err}"
        );
    }

    #[test]
    fn reverse_lookup_prefers_first_exact_then_category() {
        let m = LabelMap::builtin("meddocan").unwrap();
        let hosp = Label::new(Category::Location, Subtype::Hospital);
        assert_eq!(m.to_scheme(hosp).as_deref(), Some("HOSPITAL"));
        let idnum = Label::new(Category::Id, Subtype::Idnum);
        assert_eq!(
            m.to_scheme(idnum).as_deref(),
            Some("ID_CONTACTO_ASISTENCIAL")
        );
        let name = Label::category_only(Category::Name);
        assert_eq!(
            m.to_scheme(name).as_deref(),
            Some("NOMBRE_SUJETO_ASISTENCIA")
        );
        let hu = LabelMap::builtin("hungarian").unwrap();
        let doctor = Label::new(Category::Name, Subtype::Doctor);
        assert_eq!(hu.to_scheme(doctor).as_deref(), Some("PER"));
        let mr = LabelMap::builtin("medroberta").unwrap();
        assert_eq!(mr.to_scheme(Label::category_only(Category::Date)), None);
    }

    #[test]
    fn every_meddocan_readme_label_resolves() {
        let Some(readme) = crate::testdata::shared_data("meddocan/README.md") else {
            return;
        };
        let text = std::fs::read_to_string(&readme).unwrap();
        let m = LabelMap::builtin("meddocan").unwrap();
        let mut seen = 0;
        for line in text.lines() {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            // `| LABEL | CATEGORY / SUBTYPE (...) | train | dev |`
            if cells.len() < 4 || !cells[1].chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                continue;
            }
            if cells[1].is_empty() || cells[1] == "MEDDOCAN" {
                continue;
            }
            let want: String = cells[2]
                .split('(')
                .next()
                .unwrap()
                .replace(' ', "")
                .to_string();
            let got = m.resolve(cells[1]).unwrap().unwrap();
            assert_eq!(got.to_string(), want, "{}", cells[1]);
            seen += 1;
        }
        assert_eq!(seen, 22, "labels found in the README table");
    }

    #[test]
    fn bad_files_name_the_line() {
        let bad_label = "name = \"x\"\n[labels]\nA = \"NAME\"\nB = \"NAME/ZIP\"\n";
        let e = LabelMap::parse(bad_label, "m.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.toml:4:"), "{e}");
        assert!(e.contains('B'), "{e}");
        let bad_syntax = "name = \"x\"\n[labels]\nA = NAME\n";
        let e = LabelMap::parse(bad_syntax, "m.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.toml:3:"), "{e}");
        let dup = "name = \"x\"\n[labels]\nA = \"NAME\"\nA = \"DATE\"\n";
        let e = LabelMap::parse(dup, "m.toml").unwrap_err().to_string();
        assert!(e.starts_with("m.toml:4:"), "{e}");
        let unknown_key = "name = \"x\"\ncolour = 1\n[labels]\n";
        let e = LabelMap::parse(unknown_key, "m.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.toml:2:"), "{e}");
    }

    #[test]
    fn load_reads_files_and_resolver_fits_brat() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine.toml");
        std::fs::write(
            &path,
            "name = \"mine\"\n[labels]\nZ = \"DATE/BIRTHDATE\"\nY = \"\"\nX = \"DATE\"\n",
        )
        .unwrap();
        let m = LabelMap::load(path.to_str().unwrap()).unwrap();
        assert_eq!(m.name, "mine");
        let keys: Vec<&str> = m.entries().iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["Z", "Y", "X"], "file order kept");
        assert_eq!(m.resolve("Y").unwrap(), None);
        let date = Label::category_only(Category::Date);
        assert_eq!(m.to_scheme(date).as_deref(), Some("X"));
        let resolver = m.resolver();
        let r: &LabelResolver = &resolver;
        assert_eq!(
            r("Z").unwrap(),
            Some(Label::new(Category::Date, Subtype::Birthdate))
        );
        assert_eq!(LabelMap::load("i2b2").unwrap().name, "i2b2");
        let missing = LabelMap::load("no/such/map.toml").unwrap_err().to_string();
        assert!(missing.starts_with("no/such/map.toml:"), "{missing}");
    }
}
