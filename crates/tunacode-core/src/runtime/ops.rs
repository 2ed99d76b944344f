//! What front ends ask the runtime to do: the protocol crate's operations.

pub use tunacode_protocol::runtime::{Answer, ApprovalAnswer, Op};
