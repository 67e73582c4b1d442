//! Prints the JSON Schemas of every API request and response (one document with `definitions`).
//! `scripts/gen-types.sh` turns it into npm/src/generated/{schema.json,types.ts}; CI checks that the
//! committed files match.
//!   cargo run -p codegraph-core --features schema --example schema

use codegraph_core::*;
use schemars::gen::SchemaSettings;

macro_rules! api_types {
    ($gen:ident, $props:ident; $($ty:ty),* $(,)?) => {
        $(
            let schema = $gen.subschema_for::<$ty>();
            $props.insert(stringify!($ty).to_string(), serde_json::to_value(schema).expect("schema"));
        )*
    };
}

fn main() {
    let mut generator = SchemaSettings::draft07().into_generator();
    let mut props = serde_json::Map::new();
    api_types!(generator, props;
        DiscoveryOptions,
        OrientRequest, OrientResponse,
        ExploreRequest, ExploreResponse,
        SearchRequest, SearchResponse,
        PacketGetRequest, PacketGetResponse,
        ContextRequest, ContextResponse,
        WorkspaceSymbolsRequest, WorkspaceSymbolsResponse,
        GetFileRequest, GetFileResponse,
        GetSymbolRequest, GetSymbolResponse,
        GotoRequest, GotoResponse,
        RefsRequest, RefsResponse,
        CallsRequest, CallsResponse,
        DepsRequest, DepsResponse,
        PathRequest, PathResponse,
        StatusRequest, StatusResponse,
        RefreshRequest, RefreshResponse,
    );
    let definitions = serde_json::to_value(generator.definitions()).expect("definitions");
    let methods: Vec<&str> = METHODS.to_vec();
    let doc = serde_json::json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "CodegraphApi",
        "type": "object",
        "properties": props,
        "definitions": definitions,
        "x-methods": methods,
    });
    println!("{}", serde_json::to_string_pretty(&doc).expect("json"));
}
