//! The shape of one JSONL line as read straight off the parser, before any check: known fields
//! kept (strings borrowed from the line where possible), wrong-typed values only noted.
//!
//! No visitor here ever fails: serde's type errors quote the offending value, so every value
//! is accepted and the checks in `jsonl.rs` name what is wrong. Only syntax errors come from
//! serde_json. Values that are skipped are still parsed as `serde_json::Value`, so nesting
//! limits and syntax errors are exactly those of a full parse.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::fmt;

/// A JSON value as far as the checks need it: scalars kept, arrays and objects only noted.
#[derive(Debug)]
pub(super) enum Any<'de> {
    Null,
    Bool,
    Num(Number),
    Str(Cow<'de, str>),
    Array,
    Object,
}

/// A whole line: a document object or anything else.
pub(super) enum RawLine<'de> {
    Doc(RawDoc<'de>),
    NotObject,
}

#[derive(Default)]
pub(super) struct RawDoc<'de> {
    pub id: Option<Any<'de>>,
    pub text: Option<Any<'de>>,
    pub meta: Option<Meta>,
    pub entities: Option<Entities<'de>>,
    /// The smallest field name that is not a document field (as a sorted map would list first).
    pub unknown: Option<String>,
}

pub(super) enum Meta {
    Null,
    Map(Map<String, Value>),
    Other,
}

pub(super) enum Entities<'de> {
    Null,
    List(Vec<RawEntity<'de>>),
    Other,
}

pub(super) enum RawEntity<'de> {
    Obj(EntityFields<'de>),
    NotObject,
}

#[derive(Default)]
pub(super) struct EntityFields<'de> {
    pub start: Option<Any<'de>>,
    pub end: Option<Any<'de>>,
    pub label: Option<Any<'de>>,
    pub subtype: Option<Any<'de>>,
    pub source: Option<Any<'de>>,
    pub score: Option<Any<'de>>,
    pub text: Option<Any<'de>>,
    pub unknown: Option<String>,
}

/// Keeps the smallest unknown key, the one `BTreeMap` iteration would meet first.
fn note_unknown(slot: &mut Option<String>, key: Cow<str>) {
    if slot.as_deref().is_none_or(|k| *key < *k) {
        *slot = Some(key.into_owned());
    }
}

/// Skips the rest of an array, parsing each element in full.
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Value>()?.is_some() {}
    Ok(())
}

/// Skips the rest of an object, parsing each entry in full.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<String, Value>()?.is_some() {}
    Ok(())
}

/// A map key, borrowed from the line when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// Implements the scalar methods shared by every "accept anything" visitor: each JSON kind
/// maps to `V::wrap(Any::..)`, so a wrong type is recorded instead of failing.
macro_rules! accept_scalars {
    ($out:ty) => {
        fn visit_unit<E: de::Error>(self) -> Result<$out, E> {
            Ok(V::wrap(Any::Null))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$out, E> {
            Ok(V::wrap(Any::Bool))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<$out, E> {
            Ok(V::wrap(Any::Num(v.into())))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<$out, E> {
            Ok(V::wrap(Any::Num(v.into())))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<$out, E> {
            // As `serde_json::Value` does: a non-finite float becomes null.
            Ok(V::wrap(Number::from_f64(v).map_or(Any::Null, Any::Num)))
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<$out, E> {
            Ok(V::wrap(Any::Str(Cow::Borrowed(v))))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<$out, E> {
            Ok(V::wrap(Any::Str(Cow::Owned(v.to_owned()))))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<$out, E> {
            Ok(V::wrap(Any::Str(Cow::Owned(v))))
        }
    };
}

impl<'de> Deserialize<'de> for Any<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl V {
            fn wrap(a: Any<'_>) -> Any<'_> {
                a
            }
        }
        impl<'de> Visitor<'de> for V {
            type Value = Any<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            accept_scalars!(Any<'de>);
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Any<'de>, A::Error> {
                drain_seq(seq).map(|()| Any::Array)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Any<'de>, A::Error> {
                drain_map(map).map(|()| Any::Object)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for RawLine<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl V {
            fn wrap(a: Any<'_>) -> RawLine<'_> {
                let _ = a;
                RawLine::NotObject
            }
        }
        impl<'de> Visitor<'de> for V {
            type Value = RawLine<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            accept_scalars!(RawLine<'de>);
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<RawLine<'de>, A::Error> {
                drain_seq(seq).map(|()| RawLine::NotObject)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawLine<'de>, A::Error> {
                let mut doc = RawDoc::default();
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    match &*k {
                        "id" => doc.id = Some(map.next_value()?),
                        "text" => doc.text = Some(map.next_value()?),
                        "meta" => doc.meta = Some(map.next_value()?),
                        "entities" => doc.entities = Some(map.next_value()?),
                        _ => {
                            map.next_value::<Value>()?;
                            note_unknown(&mut doc.unknown, k);
                        }
                    }
                }
                Ok(RawLine::Doc(doc))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Meta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl V {
            fn wrap(a: Any<'_>) -> Meta {
                match a {
                    Any::Null => Meta::Null,
                    _ => Meta::Other,
                }
            }
        }
        impl<'de> Visitor<'de> for V {
            type Value = Meta;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            accept_scalars!(Meta);
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Meta, A::Error> {
                drain_seq(seq).map(|()| Meta::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Meta, A::Error> {
                let mut m = Map::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    m.insert(k, v);
                }
                Ok(Meta::Map(m))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Entities<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl V {
            fn wrap(a: Any<'_>) -> Entities<'_> {
                match a {
                    Any::Null => Entities::Null,
                    _ => Entities::Other,
                }
            }
        }
        impl<'de> Visitor<'de> for V {
            type Value = Entities<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array")
            }
            accept_scalars!(Entities<'de>);
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entities<'de>, A::Error> {
                let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(e) = seq.next_element::<RawEntity>()? {
                    v.push(e);
                }
                Ok(Entities::List(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Entities<'de>, A::Error> {
                drain_map(map).map(|()| Entities::Other)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for RawEntity<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl V {
            fn wrap(a: Any<'_>) -> RawEntity<'_> {
                let _ = a;
                RawEntity::NotObject
            }
        }
        impl<'de> Visitor<'de> for V {
            type Value = RawEntity<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            accept_scalars!(RawEntity<'de>);
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<RawEntity<'de>, A::Error> {
                drain_seq(seq).map(|()| RawEntity::NotObject)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEntity<'de>, A::Error> {
                let mut e = EntityFields::default();
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    let slot = match &*k {
                        "start" => &mut e.start,
                        "end" => &mut e.end,
                        "label" => &mut e.label,
                        "subtype" => &mut e.subtype,
                        "source" => &mut e.source,
                        "score" => &mut e.score,
                        "text" => &mut e.text,
                        _ => {
                            map.next_value::<Value>()?;
                            note_unknown(&mut e.unknown, k);
                            continue;
                        }
                    };
                    *slot = Some(map.next_value()?);
                }
                Ok(RawEntity::Obj(e))
            }
        }
        d.deserialize_any(V)
    }
}
