//! Canary templates: sentences with exactly one secret placeholder (`{digits:N}` or `{phone}`),
//! from the built-in files `testsets/canaries/<lang>.txt` (embedded in the binary) or a user
//! file of the same format (documented in the header of the built-in files).

use crate::error::ValueError;

use std::path::Path;

use super::secret::SecretKind;
use super::CanaryError;
use crate::Lang;

/// One template: its text with the placeholder, and where the placeholder is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    text: String,
    kind: SecretKind,
    start: usize,
    end: usize,
}

impl Template {
    /// Parses one template (see the file format); the error says what is wrong.
    pub fn parse(text: &str) -> Result<Self, ValueError> {
        let opens: Vec<usize> = text.match_indices('{').map(|(i, _)| i).collect();
        let closes: Vec<usize> = text.match_indices('}').map(|(i, _)| i).collect();
        let (start, close) = match (opens.as_slice(), closes.as_slice()) {
            ([s], [c]) if s < c => (*s, *c),
            ([], []) => return Err("no secret placeholder ({digits:N} or {phone})".into()),
            _ => return Err("exactly one placeholder and no other braces are allowed".into()),
        };
        let kind: SecretKind = text[start + 1..close].parse()?;
        let end = close + 1;
        if text[..start].trim().is_empty() && text[end..].trim().is_empty() {
            return Err("the template holds nothing but the placeholder".into());
        }
        Ok(Template {
            text: text.to_string(),
            kind,
            start,
            end,
        })
    }

    /// The template with its placeholder, as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn kind(&self) -> SecretKind {
        self.kind
    }

    /// The text before the placeholder.
    pub fn before(&self) -> &str {
        &self.text[..self.start]
    }

    /// The text after the placeholder.
    pub fn after(&self) -> &str {
        &self.text[self.end..]
    }

    /// The sentence with `secret` in place of the placeholder.
    pub fn fill(&self, secret: &str) -> String {
        format!("{}{secret}{}", self.before(), self.after())
    }
}

/// Parses a template file's contents; `source_name` names it in errors (with the line).
pub fn parse_templates(source_name: &str, contents: &str) -> Result<Vec<Template>, CanaryError> {
    let mut out = Vec::new();
    for (i, raw) in contents.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let t = Template::parse(line).map_err(|message| CanaryError::Template {
            source_name: source_name.to_string(),
            line: i + 1,
            message: message.0,
        })?;
        out.push(t);
    }
    if out.is_empty() {
        return Err(CanaryError::Template {
            source_name: source_name.to_string(),
            line: 0,
            message: "no templates".into(),
        });
    }
    Ok(out)
}

/// Reads a user template file.
pub fn read_templates(path: &Path) -> Result<Vec<Template>, CanaryError> {
    let contents = std::fs::read_to_string(path).map_err(|e| CanaryError::io(path, e))?;
    parse_templates(&path.display().to_string(), &contents)
}

/// The built-in template file of `lang`.
pub fn builtin_source(lang: Lang) -> &'static str {
    match lang {
        Lang::Nl => include_str!("../../testsets/canaries/nl.txt"),
        Lang::Hu => include_str!("../../testsets/canaries/hu.txt"),
        Lang::Es => include_str!("../../testsets/canaries/es.txt"),
        Lang::It => include_str!("../../testsets/canaries/it.txt"),
        Lang::En => include_str!("../../testsets/canaries/en.txt"),
    }
}

/// The built-in templates of `lang`.
pub fn builtin(lang: Lang) -> Vec<Template> {
    parse_templates(
        &format!("testsets/canaries/{lang}.txt"),
        builtin_source(lang),
    )
    .expect("built-in canary templates parse")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_parse_fill_and_reject() {
        let t = Template::parse("Het BSN is {digits:9}.").unwrap();
        assert_eq!(t.kind(), SecretKind::Digits(9));
        assert_eq!((t.before(), t.after()), ("Het BSN is ", "."));
        assert_eq!(t.fill("012345678"), "Het BSN is 012345678.");
        assert_eq!(
            Template::parse("Bel {phone}").unwrap().kind(),
            SecretKind::Phone
        );
        for bad in [
            "geen placeholder",
            "{digits:9} en {digits:9}",
            "een } losse {phone}",
            "te klein {digits:4}",
            "{phone}",
            "onbekend {naam}",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
        let err = parse_templates("user.txt", "# c\n\nGoed {phone}.\nFout {x}\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("user.txt:4:"), "{err}");
        assert!(parse_templates("empty.txt", "# only comments\n").is_err());
    }

    #[test]
    fn every_language_has_builtin_templates() {
        for lang in Lang::ALL {
            let ts = builtin(lang);
            assert!(ts.len() >= 3, "{lang}");
            assert!(ts.iter().any(|t| t.kind() == SecretKind::Phone), "{lang}");
        }
    }
}
