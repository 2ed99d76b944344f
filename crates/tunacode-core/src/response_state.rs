//! [`ResponseState`]: the per-request state machine (seed 002): USER_INPUT → ASSISTANT →
//! TOOL_EXECUTION → RESPONSE → ASSISTANT …, with `has_user_response` and `task_completed`.

/// Where the request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentState {
    /// Waiting for / holding the user's message.
    UserInput,
    /// The model is producing a response.
    Assistant,
    /// Tools are running.
    ToolExecution,
    /// A response was processed.
    Response,
}

/// A transition the state machine does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("invalid state transition {from:?} -> {to:?}")]
pub struct InvalidTransition {
    /// The current state.
    pub from: AgentState,
    /// The state asked for.
    pub to: AgentState,
}

/// State of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseState {
    state: AgentState,
    /// Whether the user has seen an answer.
    pub has_user_response: bool,
    /// Whether the model marked the task done.
    pub task_completed: bool,
}

impl Default for ResponseState {
    fn default() -> Self {
        ResponseState {
            state: AgentState::UserInput,
            has_user_response: false,
            task_completed: false,
        }
    }
}

impl ResponseState {
    /// A new request's state.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current state.
    pub fn state(&self) -> AgentState {
        self.state
    }

    /// Moves to `to` if allowed (staying in the same state is allowed).
    pub fn transition_to(&mut self, to: AgentState) -> Result<(), InvalidTransition> {
        use AgentState::*;
        let ok = self.state == to
            || matches!(
                (self.state, to),
                (UserInput, Assistant)
                    | (Assistant, ToolExecution)
                    | (Assistant, Response)
                    | (ToolExecution, Response)
                    | (Response, Assistant)
            );
        if !ok {
            return Err(InvalidTransition {
                from: self.state,
                to,
            });
        }
        self.state = to;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentState::*;

    #[test]
    fn follows_the_seed_transitions() {
        let mut s = ResponseState::new();
        for to in [
            Assistant,
            ToolExecution,
            Response,
            Assistant,
            Response,
            Assistant,
        ] {
            s.transition_to(to).unwrap();
        }
        assert_eq!(s.state(), Assistant);
    }

    #[test]
    fn rejects_skipping_states() {
        let mut s = ResponseState::new();
        assert_eq!(
            s.transition_to(ToolExecution),
            Err(InvalidTransition {
                from: UserInput,
                to: ToolExecution
            })
        );
        s.transition_to(Assistant).unwrap();
        s.transition_to(ToolExecution).unwrap();
        assert!(s.transition_to(Assistant).is_err());
        assert!(s.transition_to(UserInput).is_err());
    }
}
