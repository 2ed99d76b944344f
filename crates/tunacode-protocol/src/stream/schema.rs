//! The JSON schema of the stream-json format, generated from its types: what `tunacode schema` prints
//! and `docs/stream-json.schema.json` holds.

use serde_json::{Value, json};

use crate::stream::input::InputLine;
use crate::stream::line::{Line, SCHEMA_VERSION};
use crate::stream::output::OutputEvent;
use crate::stream::result::RunResult;

/// The schema of every output line (events, then the `result` line) and every input line.
pub fn json_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": format!("TunaCode stream-json, schema version {SCHEMA_VERSION}"),
        "schema_version": SCHEMA_VERSION,
        "output": schemars::schema_for!(Line<OutputEvent>),
        "result": result_schema(),
        "input": schemars::schema_for!(InputLine),
    })
}

/// The `result` line: a [`RunResult`] with `type` and `schema_version` after its fields.
fn result_schema() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(RunResult)).unwrap_or_default();
    schema["properties"]["type"] = json!({"type": "string", "const": "result"});
    schema["properties"]["schema_version"] =
        json!({"type": "integer", "format": "uint32", "minimum": 0});
    if let Some(required) = schema["required"].as_array_mut() {
        required.extend([json!("type"), json!("schema_version")]);
    }
    schema
}
