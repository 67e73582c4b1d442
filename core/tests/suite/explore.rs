//! search, explore and `packet_get` on the polyglot fixture: identifier queries find their definition
//! first, questions in other words find the file of the behaviour, tests rank below code unless
//! asked for, every answer is bounded, and explore's follow-ups are calls that work.

use serde_json::{json, Value};

use crate::expected::{fixture_root, open};

fn ask(method: &str, request: Value) -> Value {
    open(fixture_root()).call(method, request).unwrap_or_else(|e| panic!("{method} {e}"))
}

/// Distinct files of an answer's hits (search) or anchors (explore), in rank order.
fn files(answer: &Value, list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for h in answer[list].as_array().unwrap() {
        let p = h["path"].as_str().unwrap().to_string();
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

#[test]
fn an_identifier_query_puts_its_definition_first() {
    for (query, handle) in [
        ("slugify", "py/shop/util/text.py::slugify"),
        ("spawn_job", "rust/src/jobs.rs::spawn_job"),
        ("Circle::new", "rust/src/shapes/circle.rs::Circle::new"),
        ("addTax", "ts/src/tax.js::addTax"),
        ("Percent", "go/money/util.go::Percent"),
        ("DiscountedOrder", "java/src/main/java/com/example/shop/model/DiscountedOrder.java::DiscountedOrder"),
    ] {
        let r = ask("search", json!({ "query": query }));
        let first = &r["hits"][0];
        assert_eq!(first["symbol"]["handle"], handle, "{query}: {}", serde_json::to_string_pretty(&r["hits"]).unwrap());
        assert_eq!(first["matched"][0], "definition", "{query}");
        let e = ask("explore", json!({ "query": query }));
        assert_eq!(e["anchors"][0]["handle"], handle, "explore {query}");
    }
}

#[test]
fn a_question_in_other_words_finds_the_file_of_the_behaviour() {
    for (question, file) in [
        ("turn a product title into a web address friendly name", "py/shop/util/text.py"),
        ("thousands separators with two decimals", "py/shop/util/text.py"),
        ("sum the areas of circles on a worker thread", "rust/src/jobs.rs"),
        ("apply the sales tax rate to an amount in cents", "ts/src/tax.js"),
        ("gift wrapping fee charged for an order", "py/shop/promotions.py"),
        ("percentage of an amount rounded towards zero", "go/money/util.go"),
    ] {
        let r = ask("search", json!({ "query": question }));
        let found = files(&r, "hits");
        assert!(found.iter().take(3).any(|f| f == file), "{question}: want {file} in the top 3, got {found:?}");
        let e = ask("explore", json!({ "query": question }));
        let anchors = files(&e, "anchors");
        assert!(anchors.iter().take(3).any(|f| f == file), "explore {question}: got {anchors:?}");
    }
}

#[test]
fn test_files_rank_below_code_unless_the_question_asks_for_tests() {
    let rank = |r: &Value, file: &str| files(r, "hits").iter().position(|f| f == file);
    let plain = ask("search", json!({ "query": "cart total with a discount" }));
    let (code, test) = (rank(&plain, "go/cart/cart.go"), rank(&plain, "go/cart/cart_test.go"));
    assert!(code.is_some() && (test.is_none() || test > code), "code {code:?}, test {test:?}");
    let asked = ask("search", json!({ "query": "tests of the cart total with a discount" }));
    assert_eq!(rank(&asked, "go/cart/cart_test.go"), Some(0), "{:?}", files(&asked, "hits"));
}

#[test]
fn search_is_deterministic_and_bounded() {
    let a = ask("search", json!({ "query": "order total price", "limit": 5 }));
    let b = ask("search", json!({ "query": "order total price", "limit": 5 }));
    assert_eq!(a, b);
    assert_eq!(a["hits"].as_array().unwrap().len(), 5);
    assert_eq!(a["omitted"]["byLimit"]["hits"].as_u64().unwrap() + 5, a["total"].as_u64().unwrap());
    for h in a["hits"].as_array().unwrap() {
        assert!(!h["matched"].as_array().unwrap().is_empty(), "every hit says what it matched: {h}");
    }
    let mut s = open(fixture_root());
    for bad in [json!({ "query": "   " }), json!({ "query": "x", "limit": 0 }), json!({ "query": "x", "limit": 101 })] {
        assert_eq!(s.call("search", bad).unwrap_err().code(), "INVALID_ARGUMENT");
    }
    // Only stop words, or words found nowhere: an empty answer that says so, not an error.
    let none = ask("search", json!({ "query": "where is the zyxxy of it" }));
    assert_eq!(none["hits"].as_array().unwrap().len(), 0);
    assert_eq!(none["unknownWords"], json!(["zyxxi"]));
    // A very long query is taken (its first 64 words count).
    let long = (0..2000).map(|i| format!("word{i}")).collect::<Vec<_>>().join(" ");
    ask("search", json!({ "query": long }));
}

#[test]
fn explore_is_bounded_and_its_follow_ups_are_calls_that_work() {
    let e = ask("explore", json!({ "query": "order total with discount", "limit": 4, "packets": 2, "listLimit": 2 }));
    assert_eq!(e["anchors"].as_array().unwrap().len(), 4);
    assert!(e["omitted"]["byLimit"]["anchors"].as_u64().unwrap() > 0);
    assert_eq!(e["packets"].as_array().unwrap().len(), 2);
    for list in ["paths", "candidateTests"] {
        assert!(e[list].as_array().unwrap().len() <= 2, "{list}");
    }
    assert!(e["blastRadius"]["files"].as_array().unwrap().len() <= 2);
    for p in e["packets"].as_array().unwrap() {
        assert!(p.get("excerpt").is_none(), "no source unless asked: {p}");
    }
    let with_source =
        ask("explore", json!({ "query": "order total with discount", "packets": 1, "includeSource": true }));
    assert!(with_source["packets"][0]["excerpt"]["text"].as_str().unwrap().lines().count() >= 1);

    // The cart test covers the cart: it is a candidate test for a cart question.
    let cart = ask("explore", json!({ "query": "cart total with a discount" }));
    let tests: Vec<&str> =
        cart["candidateTests"].as_array().unwrap().iter().map(|t| t["path"].as_str().unwrap()).collect();
    assert!(tests.contains(&"go/cart/cart_test.go"), "{tests:?}");

    let follow_ups = cart["followUps"].as_array().unwrap();
    assert!(follow_ups.len() >= 3, "{follow_ups:?}");
    let mut s = open(fixture_root());
    for f in follow_ups {
        let method = match f["tool"].as_str().unwrap() {
            "packet_get" => "packetGet",
            "get_file" => "getFile",
            other => other,
        };
        s.call(method, f["arguments"].clone()).unwrap_or_else(|e| panic!("follow-up {f}: {e}"));
    }
}

#[test]
fn explore_shows_the_file_a_query_names() {
    let exact = ask("explore", json!({ "query": "py/shop/util/text.py" }));
    assert_eq!(exact["fileView"]["file"], "py/shop/util/text.py");
    assert!(exact["fileView"]["content"].as_str().unwrap().contains("def slugify"));
    let base = ask("explore", json!({ "query": "promotions.py" }));
    assert_eq!(base["fileView"]["file"], "py/shop/promotions.py");
    // Two files are called circle.*; neither basename alone is unique across languages? `circle.rs` is.
    assert_eq!(ask("explore", json!({ "query": "circle.rs" }))["fileView"]["file"], "rust/src/shapes/circle.rs");
    // `__init__.py` is in three folders: no file view, just anchors.
    assert!(ask("explore", json!({ "query": "__init__.py" })).get("fileView").is_none());
    assert!(ask("explore", json!({ "query": "py/shop/util/text.py", "includeSource": false }))
        .get("fileView")
        .is_none());
}

#[test]
fn packets_by_handle_path_and_name() {
    let by_handle = ask("packetGet", json!({ "target": "py/shop/util/text.py::slugify" }));
    let p = &by_handle["packet"];
    assert_eq!(p["kind"], "symbol");
    assert_eq!(p["doc"], "Turn a product title into a URL-friendly slug.");
    assert!(p["excerpt"]["text"].as_str().unwrap().starts_with("def slugify(title):"));
    assert!(p["usedBy"]["total"].as_u64().unwrap() >= 3);

    let rust_doc = ask("packetGet", json!({ "target": "rust/src/jobs.rs::spawn_job", "includeSource": false }));
    assert_eq!(rust_doc["packet"]["doc"], "Sums the areas of circles with the given radii on a worker thread.");
    assert!(rust_doc["packet"].get("excerpt").is_none());

    let file = ask("packetGet", json!({ "target": "./go/money/util.go", "limit": 1 }));
    assert_eq!(file["packet"]["kind"], "file");
    assert_eq!(file["packet"]["declarations"].as_array().unwrap().len(), 1);
    assert_eq!(file["packet"]["omitted"]["declarations"], 1);

    // A name several declarations share: the best one, and the others as alternatives.
    let order = ask("packetGet", json!({ "target": "Order" }));
    assert!(order["packet"]["target"].as_str().unwrap().ends_with("::Order"));
    assert!(!order["alternatives"].as_array().unwrap().is_empty());

    let mut s = open(fixture_root());
    assert_eq!(s.call("packetGet", json!({ "target": "no_such_thing" })).unwrap_err().code(), "NOT_FOUND");
    assert_eq!(s.call("packetGet", json!({ "target": "" })).unwrap_err().code(), "INVALID_ARGUMENT");
}

#[test]
fn orient_names_the_public_api_and_the_tests() {
    let o = ask("orient", json!({ "limit": 3 }));
    assert_eq!(o["publicApi"].as_array().unwrap().len(), 3);
    assert_eq!(o["publicApi"][0]["handle"], "go/money/money.go::Amount");
    assert_eq!(o["tests"], json!({ "files": 1, "dirs": [{ "dir": "go/cart", "files": 1 }] }));
}
