//! Which two-byte openings can begin a match of an anchored regex, read once from its lazy DFA,
//! so the shape scan asks the regex only at the few word starts where it can match (most words
//! die within two bytes, and a regex call costs more than the bytes it reads). Written here
//! because no crate offers a DFA's reachable-prefix table; regex-automata gives the states.

use regex_automata::hybrid::dfa::DFA;
use regex_automata::nfa::thompson;
use regex_automata::{Anchored, Input};

/// A bit per pair of bytes: set when a match can begin with those two bytes.
pub struct Openings {
    /// `None`: the table could not be computed and every opening is allowed.
    live: Option<Box<[u64; 1024]>>,
}

impl Openings {
    /// The table of the anchored pattern `src` (the pattern must match no empty string). A
    /// table the lazy DFA cannot give (a quit byte, a full cache) allows every opening: the
    /// scan is then as slow as without it, never wrong.
    pub fn new(src: &str) -> Self {
        Openings {
            live: live_pairs(src),
        }
    }

    /// Whether a match can start at the beginning of `rest`. Fewer than two bytes left: yes.
    #[inline]
    pub fn may_start(&self, rest: &[u8]) -> bool {
        match (&self.live, rest) {
            (Some(live), [b1, b2, ..]) => {
                let pair = (*b1 as usize) << 8 | *b2 as usize;
                live[pair >> 6] >> (pair & 63) & 1 == 1
            }
            _ => true,
        }
    }
}

fn live_pairs(src: &str) -> Option<Box<[u64; 1024]>> {
    let dfa = DFA::builder()
        .configure(DFA::config().cache_capacity(64 << 20))
        .thompson(thompson::Config::new().nfa_size_limit(Some(64 << 20)))
        .build(src)
        .ok()?;
    let mut cache = dfa.create_cache();
    let start = dfa
        .start_state_forward(&mut cache, &Input::new("").anchored(Anchored::Yes))
        .ok()?;
    let mut live = Box::new([0u64; 1024]);
    for b1 in 0..=255u8 {
        let s1 = dfa.next_state(&mut cache, start, b1).ok()?;
        if s1.is_quit() {
            return None;
        }
        if s1.is_dead() {
            continue;
        }
        for b2 in 0..=255u8 {
            let s2 = dfa.next_state(&mut cache, s1, b2).ok()?;
            if s2.is_quit() {
                return None;
            }
            // A match state is never the dead state: a match ending after one byte or two
            // leaves the pair live.
            if !s2.is_dead() {
                let pair = (b1 as usize) << 8 | b2 as usize;
                live[pair >> 6] |= 1 << (pair & 63);
            }
        }
    }
    // A cleared cache would have invalidated `s1` while its row was read.
    (cache.clear_count() == 0).then_some(live)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_follow_the_pattern() {
        let o = Openings::new(r"^(?:(?i:march|may)[ ]+[0-9]{1,2}|[0-9]{4})");
        assert!(o.table_built());
        for rest in ["March 3", "MAY 12", "mar", "2019", "12", "m", ""] {
            assert!(o.may_start(rest.as_bytes()), "{rest}");
        }
        for rest in ["the", "Mx 3", "1a", "a1", " 2019", "-1"] {
            assert!(!o.may_start(rest.as_bytes()), "{rest}");
        }
    }

    #[test]
    fn a_match_of_one_byte_keeps_its_pairs_open() {
        let o = Openings::new(r"^(?:[0-9]|ab)");
        assert!(o.may_start(b"7."));
        assert!(o.may_start(b"7 "));
        assert!(!o.may_start(b"a."));
    }

    impl Openings {
        fn table_built(&self) -> bool {
            self.live.is_some()
        }
    }
}
