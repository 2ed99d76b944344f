//! [`FakeOptions`]: how a fake provider serves besides its script.

/// Options for `FakeProvider::start_with`.
#[derive(Debug, Clone, Default)]
pub struct FakeOptions {
    /// Restart the script from the first turn when it is exhausted (for benchmarks).
    pub cycle: bool,
    /// Port to bind on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// When set, a request that offers no tools (a history-summary request) is answered with this
    /// text without taking a turn of the script, as a real model would write the summary whenever it
    /// is asked.
    pub summary: Option<String>,
    /// What `GET …/models` lists (an OpenAI-compatible server's own models).
    pub served_models: Vec<String>,
    /// Conversations with scripts of their own (sub-agents), told apart by what they send.
    pub routes: Vec<crate::routes::Route>,
    /// Requests held until several are in flight together.
    pub gather: Option<crate::routes::Gather>,
    /// For benchmarks: requests are answered without checking them against the wire's rules, their
    /// history is not read, and none is kept (the tests check them; a 1,000-call run would keep
    /// every growing body and check each whole, on the cores the benchmark measures). So `routes`
    /// and `gather`, which read the body, never match, and `requests()` stays empty.
    pub unchecked: bool,
}
