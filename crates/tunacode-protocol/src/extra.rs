//! The fields of a message or part that this crate does not model (timestamps, the model's name,
//! provider ids, …), kept in their order so a loaded history is written back unchanged.
//!
//! Written by hand instead of keeping a `serde_json::Map`: with `preserve_order` a map is 72 bytes
//! inline and, once it holds a field, a hash table beside its entries. Most parts have no such field
//! and most messages one to three, read by name a few times a turn, so a list searched in order is
//! both smaller and as fast. A 10,000-message session holds some 25,000 of these. The list is a
//! `ThinVec` (its length and room in its allocation, one pointer inline, none allocated when empty):
//! 16 bytes off every part and message. Values are `ExtraValue`s: a string inline, anything else
//! boxed (24 bytes instead of a `Value`'s 80).

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, Serializer};
use serde_json::{Map, Value};
use thin_vec::ThinVec;

use crate::extra_value::ExtraValue;
use crate::field_name::{FieldKey, FieldName, field_name, owned_field_name};

/// Named JSON values in the order they were read or added; a name is there at most once.
#[derive(Clone, Default)]
pub struct Extra(ThinVec<(FieldName, ExtraValue)>);

impl Extra {
    /// No fields.
    pub const fn new() -> Self {
        Extra(ThinVec::new())
    }

    /// Whether there is no field.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many fields there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.0.iter().position(|(k, _)| k == key)
    }

    /// The value of field `key`.
    pub fn get(&self, key: &str) -> Option<&ExtraValue> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of field `key`, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.0
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.value_mut())
    }

    /// Whether field `key` is there.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets field `key` (in its place when it is there, last otherwise); returns its old value.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.position(&key) {
            Some(i) => Some(std::mem::replace(&mut self.0[i].1, value.into()).into_value()),
            None => {
                // Exactly one more: most hold one to three fields for the whole session.
                self.0.reserve_exact(1);
                self.0.push((owned_field_name(key), value.into()));
                None
            }
        }
    }

    /// The value of field `key`, set to `make()` first when it is not there.
    pub fn get_or_insert_with(&mut self, key: &str, make: impl FnOnce() -> Value) -> &mut Value {
        let i = match self.position(key) {
            Some(i) => i,
            None => {
                self.0.reserve_exact(1);
                self.0.push((field_name(key), make().into()));
                self.0.len() - 1
            }
        };
        self.0[i].1.value_mut()
    }

    /// Takes field `key` out (the others keep their order).
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.position(key).map(|i| self.0.remove(i).1.into_value())
    }

    /// The fields, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ExtraValue)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// The field names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    /// How many fields there is room for (what a reader left allocated).
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// The fields as a JSON object.
    pub fn into_map(self) -> Map<String, Value> {
        self.0
            .into_iter()
            .map(|(k, v)| (k.into_owned(), v.into_value()))
            .collect()
    }
}

impl FromIterator<(String, Value)> for Extra {
    /// The fields in order (see the other `from_iter`).
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        iter.into_iter()
            .map(|(k, v)| (owned_field_name(k), v))
            .collect()
    }
}

impl FromIterator<(FieldName, Value)> for Extra {
    /// The fields in order; a repeated name keeps its first place and its last value (as a JSON
    /// object read into a map does).
    fn from_iter<I: IntoIterator<Item = (FieldName, Value)>>(iter: I) -> Self {
        let pairs: Vec<(FieldName, ExtraValue)> =
            iter.into_iter().map(|(k, v)| (k, v.into())).collect();
        // Copied into a list of exactly their number: collected in place from a reader's buffer,
        // a list may hold that buffer's room, a few hundred bytes of nothing in every part.
        let exact = |fields: Vec<(FieldName, ExtraValue)>| Extra(fields.into_iter().collect());
        if pairs.len() <= SMALL {
            let repeated =
                (1..pairs.len()).any(|i| pairs[..i].iter().any(|(k, _)| *k == pairs[i].0));
            if !repeated {
                return exact(pairs);
            }
            let mut extra = Extra::new();
            for (key, value) in pairs {
                match extra.position(&key) {
                    Some(i) => extra.0[i].1 = value,
                    None => extra.0.push((key, value)),
                }
            }
            extra.0.shrink_to_fit();
            return extra;
        }
        // A hostile file may hold an object of many thousand fields: found by hash, not in order.
        let mut index_of: std::collections::HashMap<FieldName, usize> =
            std::collections::HashMap::with_capacity(pairs.len());
        let mut fields: Vec<(FieldName, ExtraValue)> = Vec::with_capacity(pairs.len());
        for (key, value) in pairs {
            match index_of.get(&key) {
                Some(&i) => fields[i].1 = value,
                None => {
                    index_of.insert(key.clone(), fields.len());
                    fields.push((key, value));
                }
            }
        }
        exact(fields)
    }
}

/// Up to this many fields, names are compared in order.
const SMALL: usize = 16;

impl From<Map<String, Value>> for Extra {
    fn from(map: Map<String, Value>) -> Self {
        Extra(
            map.into_iter()
                .map(|(k, v)| (owned_field_name(k), v.into()))
                .collect(),
        )
    }
}

impl std::ops::Index<&str> for Extra {
    type Output = ExtraValue;

    /// The value of field `key`. Panics when it is not there.
    fn index(&self, key: &str) -> &ExtraValue {
        self.get(key)
            .unwrap_or_else(|| panic!("no field `{key}` in extra"))
    }
}

/// Equal when they hold the same fields, in any order (as JSON objects compare).
impl PartialEq for Extra {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl std::fmt::Debug for Extra {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Extra {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Extra {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ExtraVisitor)
    }
}

struct ExtraVisitor;

impl<'de> Visitor<'de> for ExtraVisitor {
    type Value = Extra;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Extra, A::Error> {
        let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(0).min(SMALL));
        while let Some((FieldKey(key), value)) = map.next_entry::<FieldKey, Value>()? {
            pairs.push((key, value));
        }
        Ok(pairs.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fields_keep_their_order_and_a_repeated_name_its_first_place() {
        let read: Extra =
            serde_json::from_str(r#"{"b": 1, "a": 2, "b": 3, "model": "m"}"#).unwrap();
        assert_eq!(read.len(), 3);
        assert_eq!(
            serde_json::to_string(&read).unwrap(),
            r#"{"b":3,"a":2,"model":"m"}"#
        );
        assert_eq!(read["model"], "m");
        assert_eq!(read.get("c"), None);
        assert_eq!(read.capacity(), 3, "no room kept for the repeated field");
    }

    #[test]
    fn changes_keep_the_other_fields_in_place() {
        let mut extra = Extra::from(json!({"x": 1, "y": 2, "z": 3}).as_object().unwrap().clone());
        assert_eq!(extra.insert("y".into(), json!(20)), Some(json!(2)));
        assert_eq!(extra.remove("x"), Some(json!(1)));
        assert_eq!(extra.remove("x"), None);
        *extra.get_or_insert_with("w", || json!([])) = json!([1]);
        extra.get_or_insert_with("z", || unreachable!());
        let keys: Vec<&str> = extra.keys().collect();
        assert_eq!(keys, ["y", "z", "w"]);
        assert!(extra.contains_key("w") && !extra.contains_key("x"));
        assert_eq!(
            Value::Object(extra.into_map()),
            json!({"y": 20, "z": 3, "w": [1]})
        );
    }

    #[test]
    fn equality_ignores_order_but_not_values() {
        let a: Extra = serde_json::from_value(json!({"p": 1, "q": 2})).unwrap();
        let b: Extra = serde_json::from_value(json!({"q": 2, "p": 1})).unwrap();
        let c: Extra = serde_json::from_value(json!({"q": 2, "p": 9})).unwrap();
        let d: Extra = serde_json::from_value(json!({"q": 2})).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
        assert_ne!(d, a);
        assert_eq!(Extra::new(), Extra::default());
    }

    #[test]
    fn many_fields_are_read_without_comparing_every_pair() {
        let text = format!(
            "{{{},\"k7\":\"last\"}}",
            (0..50_000)
                .map(|i| format!("\"k{i}\":{i}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let read: Extra = serde_json::from_str(&text).unwrap();
        assert_eq!(read.len(), 50_000);
        assert_eq!(read["k7"], "last");
        assert_eq!(read.keys().nth(7), Some("k7"));
    }

    #[test]
    fn a_string_field_is_one_small_allocation() {
        // The list's 16-byte head and one 48-byte field: malloc's 80-byte chunk (a `Value` made
        // it 120 bytes, a 128-byte chunk, and its string one more allocation).
        assert_eq!(std::mem::size_of::<(FieldName, ExtraValue)>(), 48);
        let read: Extra = serde_json::from_str(r#"{"finish_reason": "tool_calls"}"#).unwrap();
        let (name, value) = &read.0[0];
        assert!(
            matches!(name, std::borrow::Cow::Borrowed(_)),
            "a static name"
        );
        assert!(matches!(value, ExtraValue::Text(t) if !t.is_heap_allocated()));
        assert_eq!(read["finish_reason"], "tool_calls");
    }

    #[test]
    fn a_part_with_no_field_holds_no_allocation() {
        assert!(std::mem::size_of::<Extra>() <= 24);
        let empty: Extra = serde_json::from_str("{}").unwrap();
        assert_eq!(empty.0.capacity(), 0);
    }
}
