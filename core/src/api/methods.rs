//! The method table: every request of the API, once. A row names the method (its JS name and the
//! typed Rust method), its request and response types, what its answer reads, and the feature's
//! handler:
//! - `index`: the index (built first; with `autoRefresh`, checked for changed files first);
//! - `live`: live files only, never the index;
//! - `index_if(field = "jsonName")`: the index when the request's boolean `field` is set;
//! - `session`: the session itself (status and refresh report on it).
//!
//! From the table come `METHODS`, `Session::call`, the typed `Session` methods, the method list
//! of the generated schema (`method_list`) and the schemas of every request and response. Adding a
//! method is one row here and one feature module.

use serde::Serialize;

// The features' modules and their request and response types.
#[allow(clippy::wildcard_imports)]
use super::*;

/// When a method's answer depends on the index (and so on its freshness).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexBacked {
    Always,
    Never,
    /// When this boolean request field is true.
    When(&'static str),
    /// The method reports on the session itself.
    Session,
}

impl Serialize for IndexBacked {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            IndexBacked::Always => s.serialize_bool(true),
            IndexBacked::Never => s.serialize_bool(false),
            IndexBacked::When(field) => s.serialize_str(field),
            IndexBacked::Session => s.serialize_str("session"),
        }
    }
}

/// One row of the method table, as the generated schema lists it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MethodInfo {
    pub name: &'static str,
    pub request: &'static str,
    pub response: &'static str,
    /// `true`, `false`, the name of the request field that makes it so, or `"session"`.
    pub index_backed: IndexBacked,
}

macro_rules! methods {
    ($( $js:literal => $rust:ident($req:ident) -> $resp:ident, $access:ident $(($field:ident = $json:literal))?, $handler:path; )*) => {
        /// The requests every front offers, by their JS method names, in a fixed order.
        pub const METHODS: [&str; [$($js),*].len()] = [$($js),*];

        /// The method table as data, for the generated schema.
        pub fn method_list() -> Vec<MethodInfo> {
            vec![$(MethodInfo {
                name: $js,
                request: stringify!($req),
                response: stringify!($resp),
                index_backed: methods!(@backed $access $($json)?),
            }),*]
        }

        /// Adds the JSON Schema of every request and response to `properties` (by type name).
        #[cfg(feature = "schema")]
        pub fn register_schemas(
            generator: &mut schemars::gen::SchemaGenerator,
            properties: &mut serde_json::Map<String, serde_json::Value>,
        ) {
            $(
                for (name, schema) in [
                    (stringify!($req), generator.subschema_for::<$req>()),
                    (stringify!($resp), generator.subschema_for::<$resp>()),
                ] {
                    properties.insert(name.to_string(), serde_json::to_value(schema).expect("schemas encode"));
                }
            )*
        }

        impl Session {
            /// Answers a request given as JSON by its method name (one of `METHODS`).
            pub fn call(&mut self, method: &str, request: serde_json::Value) -> Result<serde_json::Value, Error> {
                let request =
                    if request.is_null() { serde_json::Value::Object(Default::default()) } else { request };
                match method {
                    $( $js => encode(self.$rust(super::decode(request)?)), )*
                    other => Err(Error::InvalidArgument(format!(
                        "unknown method `{other}`; expected one of: {}",
                        METHODS.join(", ")
                    ))),
                }
            }

            $(
                #[doc = concat!("The `", $js, "` request (see `", stringify!($req), "`).")]
                pub fn $rust(&mut self, request: $req) -> Result<$resp, Error> {
                    methods!(@run self, request, $handler, $access $($field)?)
                }
            )*
        }
    };
    (@backed index) => { IndexBacked::Always };
    (@backed live) => { IndexBacked::Never };
    (@backed session) => { IndexBacked::Session };
    (@backed index_if $json:literal) => { IndexBacked::When($json) };
    (@run $s:ident, $r:ident, $h:path, index) => { $s.answer(true, |ctx| $h(ctx, $r.clone())) };
    (@run $s:ident, $r:ident, $h:path, live) => { $s.answer(false, |ctx| $h(ctx, $r.clone())) };
    (@run $s:ident, $r:ident, $h:path, index_if $field:ident) => {{
        let backed = $r.$field;
        $s.answer(backed, |ctx| $h(ctx, $r.clone()))
    }};
    (@run $s:ident, $r:ident, $h:path, session) => { $h($s, $r) };
}

methods! {
    "orient"           => orient(OrientRequest) -> OrientResponse, index, orient::orient;
    "explore"          => explore(ExploreRequest) -> ExploreResponse, index, explore::explore;
    "search"           => search(SearchRequest) -> SearchResponse, index, search::search;
    "packetGet"        => packet_get(PacketGetRequest) -> PacketGetResponse, index, packets::packet_get;
    "context"          => context(ContextRequest) -> ContextResponse, index, context::context;
    "workspaceSymbols" => workspace_symbols(WorkspaceSymbolsRequest) -> WorkspaceSymbolsResponse, index, symbols::workspace_symbols;
    "getFile"          => get_file(GetFileRequest) -> GetFileResponse, index_if(include_graph_context = "includeGraphContext"), files::get_file;
    "getSymbol"        => get_symbol(GetSymbolRequest) -> GetSymbolResponse, index, navigate::get_symbol;
    "goto"             => goto(GotoRequest) -> GotoResponse, index, navigate::goto;
    "refs"             => refs(RefsRequest) -> RefsResponse, index, navigate::refs;
    "callers"          => callers(CallsRequest) -> CallsResponse, index, calls::callers;
    "callees"          => callees(CallsRequest) -> CallsResponse, index, calls::callees;
    "deps"             => deps(DepsRequest) -> DepsResponse, index, deps::deps;
    "rdeps"            => rdeps(DepsRequest) -> DepsResponse, index, deps::rdeps;
    "path"             => path(PathRequest) -> PathResponse, index, deps::path;
    "impact"           => impact(ImpactRequest) -> ImpactResponse, index, impact::impact;
    "review"           => review(ReviewRequest) -> ReviewResponse, index, review::review;
    "renamePreview"    => rename_preview(RenamePreviewRequest) -> RenamePreviewResponse, index, rename::rename_preview;
    "refactorPlan"     => refactor_plan(RefactorPlanRequest) -> RefactorPlanResponse, index, refactor::refactor_plan;
    "graph"            => graph(GraphRequest) -> GraphResponse, index, graph::graph;
    "loc"              => loc(LocRequest) -> LocResponse, index, loc::loc;
    "supertypes"       => supertypes(HierarchyRequest) -> HierarchyResponse, index, hierarchy::supertypes;
    "subtypes"         => subtypes(HierarchyRequest) -> HierarchyResponse, index, hierarchy::subtypes;
    "implementations"  => implementations(ImplementationsRequest) -> ImplementationsResponse, index, hierarchy::implementations;
    "querySqlite"      => query_sqlite(QuerySqliteRequest) -> QuerySqliteResponse, index, sqlite::query_sqlite;
    "artifactBuild"    => artifact_build(ArtifactBuildRequest) -> ArtifactBuildResponse, index, sqlite::artifact_build;
    "customTools"      => custom_tools(CustomToolsRequest) -> CustomToolsResponse, live, tools::custom_tools;
    "runTool"          => run_tool(RunToolRequest) -> QuerySqliteResponse, index, tools::run_tool;
    "status"           => status(StatusRequest) -> StatusResponse, session, status::status;
    "refresh"          => refresh(RefreshRequest) -> RefreshResponse, session, status::refresh;
    "config"           => config(ConfigRequest) -> ConfigResponse, live, config::config;
}

impl Session {
    /// Runs a handler: for an index-backed request the index is built (and, with `autoRefresh`,
    /// brought up to date with small changes on disk) first, and the answer reports its freshness —
    /// a refresh once, then `fresh` until the next change. An index read from the snapshot is read as
    /// the handler goes: should a part it read fail its check, the answer is not given from it — the
    /// index is rebuilt from the sources and the handler runs again.
    fn answer<R>(&mut self, backed: bool, handler: impl Fn(&Ctx) -> Result<R, Error>) -> Result<R, Error> {
        if backed {
            // An index built by this very call has just walked the tree: only an older one is checked.
            let built_now = !self.is_built();
            self.index()?;
            if !built_now {
                self.auto_refresh()?;
            }
        }
        let run = |session: &Session| {
            let ctx = Ctx {
                host: session.host(),
                options: session.options(),
                index: session.built_index().filter(|_| backed),
                artifact: session.artifact_cache(),
                freshness: if backed { session.freshness().clone() } else { Freshness::fresh() },
            };
            handler(&ctx)
        };
        let mut answer = run(self);
        if backed && self.discard_damaged_index() {
            self.index()?;
            answer = run(self);
        }
        let answer = answer?;
        if backed {
            self.take_freshness();
        }
        Ok(answer)
    }
}

fn encode<T: Serialize>(value: Result<T, Error>) -> Result<serde_json::Value, Error> {
    value.and_then(|v| serde_json::to_value(v).map_err(|e| Error::Io(format!("cannot encode the response: {e}"))))
}
