//! [`Progress`]: whether the run is getting anywhere, for the guidance that steers it: how many
//! iterations in a row had no tool call, and the last one that had one.

/// The run's progress, counted by iteration.
#[derive(Debug, Default)]
pub(super) struct Progress {
    /// Iterations in a row without a tool call.
    unproductive: u32,
    /// The last iteration that called a tool.
    last_productive: u32,
}

impl Progress {
    /// Iteration `iteration` called tools.
    pub(super) fn productive(&mut self, iteration: u32) {
        self.unproductive = 0;
        self.last_productive = iteration;
    }

    /// An iteration called no tool (and the task is not complete).
    pub(super) fn unproductive(&mut self) {
        self.unproductive += 1;
    }

    /// When at least `threshold` iterations in a row called no tool: how many, and the last one that
    /// did.
    pub(super) fn stalled(&self, threshold: u32) -> Option<(u32, u32)> {
        (self.unproductive >= threshold).then_some((self.unproductive, self.last_productive))
    }
}
