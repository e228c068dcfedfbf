//! E-mail addresses, URLs and IPv6 addresses, found from cheap byte anchors ('@', "http",
//! "www.", ':') and grown outwards by hand instead of scanning with a regex.

use super::Cand;
use crate::labels::{Category, Label, Subtype};
use aho_corasick::AhoCorasick;

fn local_part(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b".!#$%&'*+/=?^_`{|}~-".contains(&b)
}

fn domain_part(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.' || b == b'-'
}

pub fn emails(text: &str, out: &mut Vec<Cand>) {
    let b = text.as_bytes();
    let mut last_end = 0;
    for at in memchr::memchr_iter(b'@', b) {
        if at < last_end {
            continue;
        }
        // Local parts may hold accented letters ("garcía@"): walk back by characters.
        let mut s = at;
        for (i, c) in text[last_end..at].char_indices().rev() {
            if c.is_ascii() && !local_part(c as u8) || (!c.is_ascii() && !c.is_alphanumeric()) {
                break;
            }
            s = last_end + i;
        }
        // "E-mail.jdoe@x.es": a glued field label is not part of the address.
        let local = &text[s..at];
        for label in ["e-mail", "email", "mail", "correo"] {
            if local.len() > label.len() + 1
                && local[..label.len()].eq_ignore_ascii_case(label)
                && matches!(local.as_bytes()[label.len()], b'.' | b'-' | b':')
            {
                s += label.len() + 1;
                break;
            }
        }
        while s < at && matches!(b[s], b'.' | b'\'' | b'-') {
            s += 1;
        }
        let mut e = at + 1;
        while e < b.len() && domain_part(b[e]) {
            e += 1;
        }
        while e > at + 1 && matches!(b[e - 1], b'.' | b'-') {
            e -= 1;
        }
        let domain = &text[at + 1..e];
        let tld_ok = domain.rsplit_once('.').is_some_and(|(host, tld)| {
            !host.is_empty() && tld.len() >= 2 && tld.bytes().all(|c| c.is_ascii_alphabetic())
        });
        if s < at && tld_ok {
            out.push(Cand::new(
                s,
                e,
                Label::new(Category::Contact, Subtype::Email),
                "email",
                0.95,
            ));
            last_end = e;
        }
    }
}

pub struct Urls {
    ac: AhoCorasick,
}

impl Urls {
    pub fn new() -> Result<Self, super::PatternError> {
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(["http://", "https://", "www.", "ftp://"])
            .map_err(|e| super::PatternError::Regex(e.to_string()))?;
        Ok(Urls { ac })
    }

    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        let b = text.as_bytes();
        let mut last_end = 0;
        for m in self.ac.find_iter(text) {
            let s = m.start();
            if s < last_end || (s > 0 && b[s - 1].is_ascii_alphanumeric()) {
                continue;
            }
            let mut e = m.end();
            while e < b.len() && !b[e].is_ascii_whitespace() && !b"<>\"'()[]{}|\\^`".contains(&b[e])
            {
                e += 1;
            }
            while e > m.end() && b".,;:!?".contains(&b[e - 1]) {
                e -= 1;
            }
            // Keep only the ASCII head; a non-ASCII byte ends the URL at a char boundary.
            let e = text[s..e]
                .char_indices()
                .find(|(_, c)| !c.is_ascii())
                .map_or(e, |(i, _)| s + i);
            if e > m.end() + 2 {
                out.push(Cand::new(
                    s,
                    e,
                    Label::new(Category::Contact, Subtype::Url),
                    "url",
                    0.95,
                ));
                last_end = e;
            }
        }
    }
}

pub fn ipv6(text: &str, out: &mut Vec<Cand>) {
    let b = text.as_bytes();
    let hexish = |c: u8| c.is_ascii_hexdigit() || c == b':' || c == b'.';
    let mut next_free = 0;
    for colon in memchr::memchr_iter(b':', b) {
        if colon < next_free {
            continue;
        }
        let next_ok = b
            .get(colon + 1)
            .is_some_and(|&c| c.is_ascii_hexdigit() || c == b':');
        if !next_ok {
            continue;
        }
        let mut s = colon;
        while s > 0 && hexish(b[s - 1]) {
            s -= 1;
        }
        let mut e = colon;
        while e < b.len() && hexish(b[e]) {
            e += 1;
        }
        next_free = e;
        while e > s && b[e - 1] == b'.' {
            e -= 1;
        }
        if (s > 0 && b[s - 1].is_ascii_alphanumeric())
            || (e < b.len() && b[e].is_ascii_alphanumeric())
        {
            continue;
        }
        let cand = &text[s..e];
        let colons = cand.bytes().filter(|&c| c == b':').count();
        if (cand.contains("::") || colons == 7)
            && colons >= 2
            && cand.parse::<std::net::Ipv6Addr>().is_ok()
        {
            out.push(Cand::new(
                s,
                e,
                Label::new(Category::Contact, Subtype::Ipaddr),
                "ipv6",
                0.9,
            ));
        }
    }
}
