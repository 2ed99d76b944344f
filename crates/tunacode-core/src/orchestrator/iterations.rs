//! [`Iterations`]: the request's iteration count against its limit (seed 000's `max_iterations`,
//! raised when the user chooses to continue), and whether the next call is the summary the user
//! asked for at the limit.

/// Where the request stands against its iteration limit.
#[derive(Debug)]
pub(super) struct Iterations {
    /// Iterations run.
    count: u32,
    /// The limit in force.
    limit: u32,
    /// The next call is the summary the user asked for at the limit: no tools, then stop.
    final_summary: bool,
}

impl Iterations {
    /// None run yet, under `limit`.
    pub(super) fn new(limit: u32) -> Self {
        Iterations {
            count: 0,
            limit,
            final_summary: false,
        }
    }

    /// Iterations run.
    pub(super) fn count(&self) -> u32 {
        self.count
    }

    /// The limit in force.
    pub(super) fn limit(&self) -> u32 {
        self.limit
    }

    /// Whether the limit is reached (the summary call the user asked for still runs).
    pub(super) fn at_limit(&self) -> bool {
        self.count >= self.limit && !self.final_summary
    }

    /// Starts the next iteration; its number.
    pub(super) fn start_next(&mut self) -> u32 {
        self.count += 1;
        self.count
    }

    /// Raises the limit by `by`; the new limit.
    pub(super) fn extend(&mut self, by: u32) -> u32 {
        self.limit += by;
        self.limit
    }

    /// The next call is the last: the summary, without tools.
    pub(super) fn summarize_last(&mut self) {
        self.final_summary = true;
    }

    /// Whether the current call is that summary.
    pub(super) fn summarizing(&self) -> bool {
        self.final_summary
    }
}
