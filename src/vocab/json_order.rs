//! Key order of a JSON document: read from the original text, applied when an edited
//! `serde_json::Value` (whose objects are sorted maps in this build) is written back, so a
//! rewritten `tokenizer.json` differs from the original only where it was edited.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;
use std::collections::HashMap;

/// The shape of a document: the key order of every object, element by element.
#[derive(Clone, Debug, Default)]
pub enum Order {
    #[default]
    Leaf,
    Arr(Vec<Order>),
    Obj(Vec<(String, Order)>),
}

impl<'de> Deserialize<'de> for Order {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Order;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Order, E> {
                Ok(Order::Leaf)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Order, E> {
                Ok(Order::Leaf)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Order, E> {
                Ok(Order::Leaf)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Order, E> {
                Ok(Order::Leaf)
            }
            fn visit_str<E>(self, _: &str) -> Result<Order, E> {
                Ok(Order::Leaf)
            }
            fn visit_unit<E>(self) -> Result<Order, E> {
                Ok(Order::Leaf)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Order, A::Error> {
                let mut items = Vec::new();
                while let Some(o) = a.next_element()? {
                    items.push(o);
                }
                Ok(Order::Arr(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Order, A::Error> {
                let mut keys = Vec::new();
                while let Some((k, o)) = a.next_entry::<String, Order>()? {
                    keys.push((k, o));
                }
                Ok(Order::Obj(keys))
            }
        }
        d.deserialize_any(V)
    }
}

/// `value` serialized with the key order of `order`: keys of the original first, in their
/// order; keys not in the original after them, ordered by their value when `by_value` names
/// the object (a vocabulary: token → id), else by name.
pub struct Ordered<'a> {
    pub value: &'a Value,
    pub order: &'a Order,
}

impl Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        static LEAF: Order = Order::Leaf;
        match (self.value, self.order) {
            (Value::Array(items), order) => {
                let inner: &[Order] = match order {
                    Order::Arr(o) => o,
                    _ => &[],
                };
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for (i, v) in items.iter().enumerate() {
                    seq.serialize_element(&Ordered {
                        value: v,
                        order: inner.get(i).unwrap_or(&LEAF),
                    })?;
                }
                seq.end()
            }
            (Value::Object(map), order) => {
                let keys: &[(String, Order)] = match order {
                    Order::Obj(k) => k,
                    _ => &[],
                };
                let known: HashMap<&str, &Order> =
                    keys.iter().map(|(k, o)| (k.as_str(), o)).collect();
                let mut names: Vec<&String> = keys
                    .iter()
                    .map(|(k, _)| k)
                    .filter(|k| map.contains_key(*k))
                    .collect();
                let mut extra: Vec<&String> = map
                    .keys()
                    .filter(|k| !known.contains_key(k.as_str()))
                    .collect();
                // An edited vocabulary (every value a number): new keys by id among the old.
                let by_id = !extra.is_empty() && map.values().all(Value::is_u64);
                names.append(&mut extra);
                if by_id {
                    names.sort_by_key(|k| map[*k].as_u64());
                }
                let mut m = s.serialize_map(Some(map.len()))?;
                for k in names {
                    m.serialize_entry(
                        k,
                        &Ordered {
                            value: &map[k],
                            order: known.get(k.as_str()).copied().unwrap_or(&LEAF),
                        },
                    )?;
                }
                m.end()
            }
            (v, _) => v.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn original_key_order_is_kept_and_vocabularies_go_by_id() {
        let text = r#"{"z": 1, "a": {"y": [ {"q": 1, "b": 2} ], "x": null}, "vocab": {"c": 0, "old": 1, "a": 2}}"#;
        let order: Order = serde_json::from_str(text).unwrap();
        let mut v: Value = serde_json::from_str(text).unwrap();
        let vocab = v["vocab"].as_object_mut().unwrap();
        vocab.remove("old");
        vocab.insert("new".into(), Value::from(1));
        let out = serde_json::to_string(&Ordered {
            value: &v,
            order: &order,
        })
        .unwrap();
        assert_eq!(
            out,
            r#"{"z":1,"a":{"y":[{"q":1,"b":2}],"x":null},"vocab":{"c":0,"new":1,"a":2}}"#
        );
    }
}
