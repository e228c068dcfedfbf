//! Secret kinds of canary placeholders (`{digits:N}`, `{phone}`): their text format, the size
//! of their secret space, and seeded draws of distinct secrets.

use crate::error::ValueError;

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::CanaryError;

/// Smallest secret space a template may declare: 10× the audit's default 10,000 candidates.
pub const MIN_SPACE: u64 = 100_000;

/// Most digits of a `{digits:N}` secret (10^18 still fits a `u64`).
pub const MAX_DIGITS: u8 = 18;

/// What a placeholder stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum SecretKind {
    /// `N` decimal digits, leading zeros allowed.
    Digits(u8),
    /// `0dd-ddddddd`: '0', two digits, '-', seven digits.
    Phone,
}

impl SecretKind {
    /// Number of distinct secrets of this kind.
    pub fn space(self) -> u64 {
        match self {
            SecretKind::Digits(n) => 10u64.pow(u32::from(n)),
            SecretKind::Phone => 1_000_000_000,
        }
    }

    /// A uniformly random secret of this kind.
    pub fn draw(self, rng: &mut impl Rng) -> String {
        match self {
            SecretKind::Digits(n) => {
                let v = rng.gen_range(0..self.space());
                format!("{v:0width$}", width = usize::from(n))
            }
            SecretKind::Phone => {
                let v = rng.gen_range(0..self.space());
                let s = format!("{v:09}");
                format!("0{}-{}", &s[..2], &s[2..])
            }
        }
    }

    /// Whether `s` has this kind's format.
    pub fn matches(self, s: &str) -> bool {
        let b = s.as_bytes();
        let digits = |t: &[u8]| t.iter().all(u8::is_ascii_digit);
        match self {
            SecretKind::Digits(n) => b.len() == usize::from(n) && digits(b),
            SecretKind::Phone => {
                b.len() == 11 && b[0] == b'0' && b[3] == b'-' && digits(&b[1..3]) && digits(&b[4..])
            }
        }
    }
}

impl fmt::Display for SecretKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretKind::Digits(n) => write!(f, "digits:{n}"),
            SecretKind::Phone => f.write_str("phone"),
        }
    }
}

impl FromStr for SecretKind {
    type Err = crate::error::ValueError;

    /// `digits:N` (5 ≤ N ≤ 18) or `phone`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "phone" {
            return Ok(SecretKind::Phone);
        }
        let n = s
            .strip_prefix("digits:")
            .and_then(|n| n.parse::<u8>().ok())
            .ok_or_else(|| {
                ValueError::from(format!("unknown secret kind '{s}' (digits:N or phone)"))
            })?;
        if !(1..=MAX_DIGITS).contains(&n) {
            return Err(ValueError::from(format!(
                "digits:{n}: N must be between 5 and {MAX_DIGITS}"
            )));
        }
        let kind = SecretKind::Digits(n);
        if kind.space() < MIN_SPACE {
            return Err(ValueError::from(format!(
                "digits:{n} has only {} secrets; at least {MIN_SPACE} are needed (N >= 5)",
                kind.space()
            )));
        }
        Ok(kind)
    }
}

impl TryFrom<String> for SecretKind {
    type Error = ValueError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<SecretKind> for String {
    fn from(k: SecretKind) -> String {
        k.to_string()
    }
}

/// A ChaCha8 stream keyed by SHA-256 of `tag` and `parts` (little-endian).
pub fn keyed_rng(tag: &[u8], parts: &[u64]) -> ChaCha8Rng {
    let mut h = Sha256::new();
    h.update(tag);
    for p in parts {
        h.update(p.to_le_bytes());
    }
    ChaCha8Rng::from_seed(h.finalize().into())
}

/// `n` distinct secrets of `kind`, none in `exclude`, drawn from `rng` (rejection sampling).
/// Refused unless the secret space is at least 10× `n` plus the excluded ones, so the draw
/// is quick and the secrets are a small sample of the space.
pub fn distinct_secrets(
    kind: SecretKind,
    n: usize,
    exclude: &HashSet<&str>,
    rng: &mut impl Rng,
) -> Result<Vec<String>, CanaryError> {
    let needed = 10u128 * (n as u128 + exclude.len() as u128);
    if u128::from(kind.space()) < needed {
        return Err(CanaryError::Settings(format!(
            "secret kind {kind} has {} secrets, fewer than 10x the {n} candidates and {} \
             inserted secrets",
            kind.space(),
            exclude.len()
        )));
    }
    let mut seen: HashSet<String> = HashSet::with_capacity(n);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let s = kind.draw(rng);
        if !exclude.contains(s.as_str()) && seen.insert(s.clone()) {
            out.push(s);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_format_and_check() {
        assert_eq!("digits:9".parse::<SecretKind>(), Ok(SecretKind::Digits(9)));
        assert_eq!("phone".parse::<SecretKind>(), Ok(SecretKind::Phone));
        assert!("digits:4".parse::<SecretKind>().is_err(), "space too small");
        assert!("digits:19".parse::<SecretKind>().is_err());
        assert!("ssn".parse::<SecretKind>().is_err());
        let mut rng = keyed_rng(b"test", &[1]);
        for kind in [
            SecretKind::Digits(5),
            SecretKind::Digits(12),
            SecretKind::Phone,
        ] {
            assert_eq!(kind.to_string().parse::<SecretKind>(), Ok(kind));
            for _ in 0..100 {
                let s = kind.draw(&mut rng);
                assert!(kind.matches(&s), "{kind}: {s}");
            }
        }
        assert!(!SecretKind::Phone.matches("012345678901"));
        assert!(!SecretKind::Digits(6).matches("12345a"));
    }

    #[test]
    fn distinct_secrets_exclude_and_refuse_small_spaces() {
        let mut rng = keyed_rng(b"test", &[2]);
        let kind = SecretKind::Digits(5);
        let excluded: Vec<String> = (0..500).map(|i| format!("{:05}", i * 7)).collect();
        let exclude: HashSet<&str> = excluded.iter().map(String::as_str).collect();
        let got = distinct_secrets(kind, 9_000, &exclude, &mut rng).unwrap();
        let set: HashSet<&str> = got.iter().map(String::as_str).collect();
        assert_eq!(set.len(), 9_000);
        assert!(set.is_disjoint(&exclude));
        assert!(distinct_secrets(kind, 10_001, &HashSet::new(), &mut rng).is_err());
    }
}
