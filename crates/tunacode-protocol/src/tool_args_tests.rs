use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn text_with_spaces_between_tokens_is_kept_compact_and_strings_keep_theirs() {
    let args: ToolArgs =
        serde_json::from_str("{ \"command\" : \"ls  -la\",\n  \"n\": [1, 2] }").unwrap();
    assert_eq!(args.json(), r#"{"command":"ls  -la","n":[1,2]}"#);
    let args: ToolArgs = serde_json::from_str(r#"{"a":"x \" y","b":"\\"}"#).unwrap();
    assert_eq!(args.json(), r#"{"a":"x \" y","b":"\\"}"#);
    assert!(!kept_as_read(r#"{"a":"\\" }"#));
    assert!(kept_as_read(r#"{"a":"\\ "}"#));
}

#[test]
fn key_order_and_numbers_are_written_back_as_read() {
    let text = r#"{"z":1,"a":2.50,"m":{"y":null,"b":true}}"#;
    let args: ToolArgs = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_string(&args).unwrap(), text);
    let from_tree: ToolArgs = serde_json::from_value(json!({"z": 1, "a": 2})).unwrap();
    assert_eq!(from_tree.json(), r#"{"z":1,"a":2}"#);
    assert_eq!(
        serde_json::to_value(&from_tree).unwrap(),
        json!({"z": 1, "a": 2})
    );
}

#[test]
fn serde_json_writes_the_text_and_other_serializers_get_the_value() {
    let args: ToolArgs = serde_json::from_str(r#"{"n":2.50}"#).unwrap();
    // The text as it was read (a value would write 2.5).
    assert_eq!(serde_json::to_string(&args).unwrap(), r#"{"n":2.50}"#);
    assert_eq!(serde_json::to_vec(&args).unwrap(), br#"{"n":2.50}"#);
    assert!(writes_json_text::<&mut serde_json::Serializer<Vec<u8>>>());
    assert!(!writes_json_text::<serde_json::value::Serializer>());
    // Any other serializer is given the value (snapshot tests show it with insta's).
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        serde_json::json!({"n": 2.5})
    );
}

#[test]
fn equality_is_the_values_not_the_texts() {
    let a: ToolArgs = serde_json::from_str(r#"{"x":1,"y":2}"#).unwrap();
    let b: ToolArgs = serde_json::from_str(r#"{"y":2,"x":1}"#).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, ToolArgs::from(json!({"x": 1})));
    assert_eq!(a, json!({"y": 2, "x": 1}));
}

#[test]
fn object_reads_strings_null_and_empty_as_objects() {
    assert_eq!(ToolArgs::from(json!("")).object().unwrap(), Map::new());
    assert_eq!(ToolArgs::default().object().unwrap(), Map::new());
    assert_eq!(ToolArgs::default().json(), "null");
    let string = ToolArgs::from(json!("{\"x\": 1}"));
    assert_eq!(string.object().unwrap()["x"], json!(1));
    assert_eq!(string.as_string().as_deref(), Some("{\"x\": 1}"));
    assert_eq!(string.as_text(), "{\"x\": 1}");
    assert!(!string.is_object());
    assert!(
        ToolArgs::from(json!("{\"x\": "))
            .object()
            .unwrap_err()
            .contains("not valid JSON")
    );
    assert!(ToolArgs::from(json!([1])).object().is_err());
    let object = ToolArgs::from(json!({"path": "a.rs"}));
    assert!(object.is_object());
    assert_eq!(object.as_string(), None);
    assert_eq!(object.as_text(), r#"{"path":"a.rs"}"#);
    assert_eq!(object.field("path"), Some(json!("a.rs")));
    assert_eq!(object.field("other"), None);
}

#[test]
fn takes_one_allocation_of_its_own_length() {
    let args = ToolArgs::from(json!({"file_path": "src/module_1.rs"}));
    assert_eq!(std::mem::size_of::<ToolArgs>(), 16);
    assert_eq!(
        args.json().len(),
        r#"{"file_path":"src/module_1.rs"}"#.len()
    );
}

#[test]
fn reads_from_text_from_a_tree_and_from_a_flattened_field() {
    #[derive(serde::Deserialize)]
    struct Outer {
        #[serde(flatten)]
        inner: Inner,
    }
    #[derive(serde::Deserialize)]
    struct Inner {
        args: ToolArgs,
    }
    for text in [
        r#"{"args":{"b":[1,{"c":null}],"a":"x"}}"#,
        r#"{"args":"{\"x\": 1}"}"#,
        r#"{"args":[1,true,2.5]}"#,
        r#"{"args":null}"#,
        r#"{"args":{}}"#,
    ] {
        let expected = serde_json::from_str::<Value>(text).unwrap()["args"].clone();
        // serde_json's text reader hands over the text; a tree is written again; serde's buffer of a
        // flattened field gives a value.
        let from_text: Inner = serde_json::from_str(text).unwrap();
        let from_tree: Inner = serde_json::from_value(serde_json::from_str(text).unwrap()).unwrap();
        let flattened: Outer = serde_json::from_str(text).unwrap();
        for args in [from_text.args, from_tree.args, flattened.inner.args] {
            assert_eq!(args.to_value(), expected, "{text}");
            assert_eq!(args.json(), expected.to_string(), "{text}");
        }
    }
}

#[test]
fn text_a_reader_of_values_would_refuse_is_refused_and_a_repeated_key_keeps_its_last_value() {
    // Refused on load, as before arguments were kept as text (not kept and later read as null).
    for refused in [
        r#"{"s":"\ud800"}"#,
        r#"{"n":1e400}"#,
        &format!("{}1{}", "[".repeat(200), "]".repeat(200)),
    ] {
        assert!(
            serde_json::from_str::<ToolArgs>(refused).is_err(),
            "{refused}"
        );
    }
    let repeated: ToolArgs = serde_json::from_str(r#"{"path":"a","path":"b"}"#).unwrap();
    assert_eq!(repeated.json(), r#"{"path":"b"}"#);
    let pair: ToolArgs = serde_json::from_str(r#"{"s":"\ud83d\ude00"}"#).unwrap();
    assert_eq!(pair.field("s"), Some(json!("😀")));
    let exponent: ToolArgs = serde_json::from_str(r#"{"n":1e5}"#).unwrap();
    assert_eq!(exponent.json(), r#"{"n":100000.0}"#);
}
