//! Committed snapshots of real answers on the polyglot fixture: any change to what the core answers
//! shows up as a reviewable diff (`cargo insta review`, or `INSTA_UPDATE=always` to accept).

use serde_json::json;

use crate::expected::{fixture_root, open};

#[test]
fn answers_on_the_fixture() {
    let mut s = open(fixture_root());
    let mut ask = |method: &str, request: serde_json::Value| {
        s.call(method, request).unwrap_or_else(|e| json!({ "error": e.code(), "message": e.to_string() }))
    };
    insta::assert_json_snapshot!("orient", ask("orient", json!({})));
    insta::assert_json_snapshot!("symbols_area", ask("workspaceSymbols", json!({ "query": "area" })));
    insta::assert_json_snapshot!("symbols_qualified", ask("workspaceSymbols", json!({ "query": "Circle::new" })));
    insta::assert_json_snapshot!(
        "symbols_imports",
        ask("workspaceSymbols", json!({ "query": "format", "includeImports": true }))
    );
    insta::assert_json_snapshot!("search_order_total", ask("search", json!({ "query": "order total" })));
    insta::assert_json_snapshot!("symbol_cart", ask("getSymbol", json!({ "handle": "go/cart/cart.go::Cart" })));
    insta::assert_json_snapshot!("refs_slugify", ask("refs", json!({ "handle": "py/shop/util/text.py::slugify" })));
    insta::assert_json_snapshot!(
        "callers_circle_new_depth2",
        ask("callers", json!({ "handle": "rust/src/shapes/circle.rs::Circle::new", "depth": 2 }))
    );
    insta::assert_json_snapshot!(
        "callees_java_service",
        ask(
            "callees",
            json!({ "handle": "java/src/main/java/com/example/shop/service/OrderService.java::OrderService::checkout" })
        )
    );
    insta::assert_json_snapshot!(
        "file_graph_context",
        ask("getFile", json!({ "file": "ts/src/receipt.ts", "limit": 5, "includeGraphContext": true }))
    );
    insta::assert_json_snapshot!(
        "explore_discount",
        ask("explore", json!({ "query": "where is the discount applied to an order total?" }))
    );
    insta::assert_json_snapshot!(
        "explore_file_view",
        ask("explore", json!({ "query": "go/money/util.go", "limit": 3 }))
    );
    insta::assert_json_snapshot!("search_slugify", ask("search", json!({ "query": "slugify", "limit": 5 })));
    insta::assert_json_snapshot!(
        "packet_slugify",
        ask("packetGet", json!({ "target": "py/shop/util/text.py::slugify" }))
    );
    insta::assert_json_snapshot!("packet_file", ask("packetGet", json!({ "target": "ts/src/geo/circle.ts" })));
    insta::assert_json_snapshot!(
        "context_skeleton_markdown",
        ask(
            "context",
            json!({ "focus": ["py/shop", "rust/src/shapes"], "compress": "skeleton", "format": "markdown", "budget": "3k" })
        )
    );
    insta::assert_json_snapshot!(
        "context_signatures_ts",
        ask("context", json!({ "focus": ["ts/src/geo"], "compress": "signatures" }))
    );
    insta::assert_json_snapshot!("refs_bad_request", ask("refs", json!({ "handle": "x", "file": "y", "line": 1 })));
}
