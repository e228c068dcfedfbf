//! Contact details: phone and fax numbers (grouping, separators and prefix kept), e-mail
//! addresses, URLs and IP addresses.

use super::names::{first_name, surname};
use super::places::{list, pick};
use super::text::{fold_ascii, match_case, random_digit, same_value, substitute_layout};
use crate::labels::Subtype;
use crate::lang::Lang;
use rand::{Rng, RngCore};

/// Which contact kind a category-only CONTACT span looks like.
pub fn guess_kind(s: &str) -> Subtype {
    let lower = s.to_ascii_lowercase();
    if s.contains('@') {
        Subtype::Email
    } else if lower.contains("://") || lower.starts_with("www.") {
        Subtype::Url
    } else if is_ipv4(s) || (s.matches(':').count() >= 2 && !s.contains(' ')) {
        Subtype::Ipaddr
    } else {
        Subtype::Phone
    }
}

fn is_ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()) && {
                p.parse::<u32>().is_ok_and(|v| v <= 255)
            }
        })
}

/// Country calling codes kept as written (longest first where they share a prefix).
const COUNTRY_CODES: &[&str] = &[
    "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45", "46", "47", "48", "49",
    "351", "352", "353", "354", "355", "1", "7", "212", "213", "90", "86", "91",
];

/// How many leading digits of a phone number stay: the country code and the first digit of
/// the national number (two when it is a trunk `0`, as in 06, 030, 0586).
fn kept_prefix_digits(digits: &[u8], plus: bool) -> usize {
    let mut keep = 0;
    let s = String::from_utf8_lossy(digits);
    if plus || s.starts_with("00") {
        let skip = if plus { 0 } else { 2 };
        let rest = &s[skip..];
        let cc = COUNTRY_CODES
            .iter()
            .filter(|c| rest.starts_with(**c))
            .map(|c| c.len())
            .max()
            .unwrap_or(2.min(rest.len()));
        keep = skip + cc;
    }
    if keep < digits.len() {
        keep += if digits[keep] == b'0' { 2 } else { 1 };
    }
    keep.min(digits.len())
}

/// A phone or fax number with the same digits count, grouping, separators and prefix.
pub fn phone_like(original: &str, rng: &mut dyn RngCore) -> String {
    let digits: Vec<u8> = original.bytes().filter(u8::is_ascii_digit).collect();
    if digits.len() < 6 {
        return substitute_layout(original, rng);
    }
    let plus = original.trim_start().starts_with('+');
    let keep = kept_prefix_digits(&digits, plus).min(digits.len() - 4);
    let mut seen = 0;
    let mut out = String::with_capacity(original.len());
    for c in original.chars() {
        if c.is_ascii_digit() {
            out.push(if seen < keep { c } else { random_digit(rng) });
            seen += 1;
        } else {
            out.push(c);
        }
    }
    out
}

/// Typical phone layouts per language; `#` is a random digit.
fn phone_layouts(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Nl => &[
            "06-########",
            "06 ## ## ## ##",
            "010-#######",
            "+31 6 ########",
            "030 ### ####",
            "(020) ### ## ##",
        ],
        Lang::Hu => &[
            "+36 30 ### ####",
            "06-52-###-###",
            "+36 1 ### ####",
            "06 20 ### ####",
            "(52) ###-###",
        ],
        Lang::Es => &[
            "6## ### ###",
            "96# ## ## ##",
            "+34 91# ### ###",
            "9########",
            "6##-###-###",
            "(+34) 6## ## ## ##",
        ],
        Lang::It => &[
            "3## #######",
            "+39 06 #### ####",
            "0586 ######",
            "02-########",
            "+39 3## ### ####",
            "091 #######",
        ],
        Lang::En => &[
            "020 7### ####",
            "07### ######",
            "+44 (0)161 ### ####",
            "0113 ### ####",
            "(555) ###-####",
            "+44 7### ######",
        ],
    }
}

/// A fresh phone number in one of the language's usual layouts.
pub fn phone(lang: Lang, rng: &mut dyn RngCore) -> String {
    let layouts = phone_layouts(lang);
    layouts[rng.gen_range(0..layouts.len())]
        .chars()
        .map(|c| if c == '#' { random_digit(rng) } else { c })
        .collect()
}

fn slug(s: &str) -> String {
    let words: Vec<String> = s
        .split(|c: char| !c.is_alphanumeric())
        .map(|w| fold_ascii(w).to_lowercase())
        .filter(|w| w.len() > 3)
        .take(2)
        .collect();
    words.join("-")
}

/// An e-mail address shaped like `original` (separator style, digit count, free-mail vs
/// institutional domain).
pub fn email_like(lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    let (local, domain) = original.rsplit_once('@').unwrap_or((original, ""));
    let f = fold_ascii(&first_name(lang, rng)).to_lowercase();
    let s = fold_ascii(&surname(lang, rng)).to_lowercase();
    let mut new_local = if local.contains('.') {
        format!("{f}.{s}")
    } else if local.contains('_') {
        format!("{f}_{s}")
    } else if local.contains('-') {
        format!("{f}-{s}")
    } else if local.chars().count() <= 8 {
        format!("{}{s}", f.chars().next().unwrap_or('x'))
    } else {
        format!("{f}{s}")
    };
    for _ in 0..local.chars().filter(char::is_ascii_digit).count() {
        new_local.push(random_digit(rng));
    }
    let new_domain = if domain.is_empty() {
        pick(lang, "email_domains", rng)
    } else if Lang::ALL.iter().any(|&l| {
        list(l, "email_domains")
            .iter()
            .any(|d| d.eq_ignore_ascii_case(domain))
    }) {
        let mut d = pick(lang, "email_domains", rng);
        for _ in 0..8 {
            if !same_value(&d, domain) {
                break;
            }
            d = pick(lang, "email_domains", rng);
        }
        d
    } else {
        new_host(lang, domain, rng)
    };
    match_case(original, &format!("{new_local}@{new_domain}"))
}

/// `host` with its registrable label (the one before the top-level domain) replaced.
fn new_host(lang: Lang, host: &str, rng: &mut dyn RngCore) -> String {
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() < 2 {
        return substitute_layout(host, rng);
    }
    // "nhs.uk", "co.uk": treat two-letter second-level labels as part of the suffix.
    let mut idx = labels.len() - 2;
    if idx > 0 && matches!(labels[idx], "co" | "ac" | "org" | "gov" | "nhs" | "com") {
        idx -= 1;
    }
    let source = if rng.gen_bool(0.5) {
        pick(lang, "hospitals", rng)
    } else {
        pick(lang, "organizations", rng)
    };
    let mut out: Vec<String> = labels.iter().map(|l| l.to_string()).collect();
    let mut new = slug(&source);
    if new.is_empty() || same_value(&new, labels[idx]) {
        new = substitute_layout(labels[idx], rng);
    }
    out[idx] = new;
    out.join(".")
}

/// A fresh e-mail address.
pub fn email(lang: Lang, rng: &mut dyn RngCore) -> String {
    let f = fold_ascii(&first_name(lang, rng)).to_lowercase();
    let s = fold_ascii(&surname(lang, rng)).to_lowercase();
    let local = match rng.gen_range(0..4) {
        0 => format!("{f}.{s}"),
        1 => format!("{}{s}", f.chars().next().unwrap_or('x')),
        2 => format!("{f}{s}{}", rng.gen_range(1..100)),
        _ => format!("{f}_{s}"),
    };
    let domain = if rng.gen_bool(0.6) {
        pick(lang, "email_domains", rng)
    } else {
        format!("{}.{}", slug(&pick(lang, "hospitals", rng)), tld(lang))
    };
    format!("{local}@{domain}")
}

fn tld(lang: Lang) -> &'static str {
    match lang {
        Lang::Nl => "nl",
        Lang::Hu => "hu",
        Lang::Es => "es",
        Lang::It => "it",
        Lang::En => "nhs.uk",
    }
}

/// A URL with the same scheme, `www.`, top-level domain and path layout.
pub fn url_like(lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    let (scheme, rest) = match original.find("://") {
        Some(i) => original.split_at(i + 3),
        None => ("", original),
    };
    let (host, path) = match rest.find(['/', '?', '#']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let (www, bare) = match host.strip_prefix("www.") {
        Some(b) => ("www.", b),
        None => ("", host),
    };
    let path: String = path
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                substitute_layout(&c.to_string(), rng)
                    .chars()
                    .next()
                    .unwrap_or(c)
            } else {
                c
            }
        })
        .collect();
    format!("{scheme}{www}{}{path}", new_host(lang, bare, rng))
}

/// A fresh URL of an institution.
pub fn url(lang: Lang, rng: &mut dyn RngCore) -> String {
    let host = slug(&pick(lang, "hospitals", rng));
    let path = match rng.gen_range(0..3) {
        0 => String::new(),
        1 => format!("/p/{}", rng.gen_range(1000..99_999)),
        _ => format!("/{}", slug(&pick(lang, "cities", rng))),
    };
    format!("https://www.{host}.{}{path}", tld(lang))
}

fn random_ipv4(rng: &mut dyn RngCore) -> String {
    match rng.gen_range(0..3) {
        0 => format!(
            "192.168.{}.{}",
            rng.gen_range(0..256),
            rng.gen_range(1..255)
        ),
        1 => format!(
            "10.{}.{}.{}",
            rng.gen_range(0..256),
            rng.gen_range(0..256),
            rng.gen_range(1..255)
        ),
        _ => {
            let mut first = rng.gen_range(1..224);
            if first == 127 || first == 10 {
                first += 1;
            }
            format!(
                "{first}.{}.{}.{}",
                rng.gen_range(0..256),
                rng.gen_range(0..256),
                rng.gen_range(1..255)
            )
        }
    }
}

/// An IP address of the same family (IPv6 keeps its layout, hex digits re-drawn).
pub fn ip_like(original: &str, rng: &mut dyn RngCore) -> String {
    if is_ipv4(original) {
        return random_ipv4(rng);
    }
    if original.contains(':') {
        const HEX: &[u8] = b"0123456789abcdef";
        return original
            .chars()
            .map(|c| {
                if c.is_ascii_hexdigit() {
                    let h = char::from(HEX[rng.gen_range(0..16)]);
                    if c.is_ascii_uppercase() {
                        h.to_ascii_uppercase()
                    } else {
                        h
                    }
                } else {
                    c
                }
            })
            .collect();
    }
    substitute_layout(original, rng)
}

/// A fresh IPv4 address.
pub fn ip(rng: &mut dyn RngCore) -> String {
    random_ipv4(rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn phones_keep_layout_and_prefix() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let cases: &[(&str, &str)] = &[
            ("+31 6 12345678", "+31 6 "),
            ("06-12345678", "06-"),
            ("+36 30 123 4567", "+36 3"),
            ("0034 912 345 678", "0034 9"),
            ("(020) 794 60 12", "(02"),
        ];
        for &(s, prefix) in cases {
            for _ in 0..100 {
                let out = phone_like(s, &mut rng);
                assert_eq!(out.len(), s.len());
                assert!(out.starts_with(prefix), "{s} -> {out}");
                for (a, b) in s.chars().zip(out.chars()) {
                    assert_eq!(a.is_ascii_digit(), b.is_ascii_digit());
                    if !a.is_ascii_digit() {
                        assert_eq!(a, b);
                    }
                }
            }
        }
    }

    #[test]
    fn emails_urls_ips_keep_their_shape() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let e = email_like(Lang::Hu, "berzi.andras@med.unideb.hu", &mut rng);
        assert!(e.ends_with(".hu") && e.starts_with(|c: char| c.is_ascii_lowercase()));
        assert!(e.contains('.') && !e.contains("unideb"), "{e}");
        assert!(e.is_ascii());
        let e = email_like(Lang::Es, "jlopez77@gmail.com", &mut rng);
        let (local, domain) = e.split_once('@').unwrap();
        assert!(local.ends_with(|c: char| c.is_ascii_digit()));
        assert_ne!(domain, "gmail.com");
        let u = url_like(Lang::Nl, "https://www.ziekenhuis.nl/afdeling/12", &mut rng);
        assert!(u.starts_with("https://www.") && u.contains(".nl/"), "{u}");
        assert_eq!(u.matches('/').count(), 4);
        assert!(is_ipv4(&ip_like("192.168.1.20", &mut rng)));
        let v6 = ip_like("fe80::1ff:fe23:4567:890a", &mut rng);
        assert_eq!(v6.len(), "fe80::1ff:fe23:4567:890a".len());
        assert_eq!(guess_kind("a@b.nl"), Subtype::Email);
        assert_eq!(guess_kind("www.x.nl"), Subtype::Url);
        assert_eq!(guess_kind("10.0.0.1"), Subtype::Ipaddr);
        assert_eq!(guess_kind("06-12345678"), Subtype::Phone);
    }
}
