//! Prints the JSON Schemas of every API request and response (one document with `definitions`) and
//! the method table (`x-methods`: name, request, response, indexBacked). `scripts/gen-types.js`
//! turns it into npm/src/generated/{schema.json,types.ts}; CI checks that the committed files match.
//!   cargo run -p codegraph-core --features schema --example schema

use codegraph_core::{method_list, register_schemas, DiscoveryOptions};
use schemars::gen::SchemaSettings;

fn main() {
    let mut generator = SchemaSettings::draft07().into_generator();
    let mut props = serde_json::Map::new();
    props.insert(
        "DiscoveryOptions".into(),
        serde_json::to_value(generator.subschema_for::<DiscoveryOptions>()).expect("schema"),
    );
    register_schemas(&mut generator, &mut props);
    let definitions = serde_json::to_value(generator.definitions()).expect("definitions");
    let doc = serde_json::json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "CodegraphApi",
        "type": "object",
        "properties": props,
        "definitions": definitions,
        "x-methods": method_list(),
    });
    println!("{}", serde_json::to_string_pretty(&doc).expect("json"));
}
