//! The decision before a model call: what its worst case costs (the input now at the dearest input
//! price, plus the most output it may write at the output price), whether that fits what every cap
//! has left, how far `max_tokens` must be clamped to fit, and when not even a short answer fits.

use tunacode_llm::models::Pricing;
use tunacode_store::{Cap, Spend};

/// Below this many output tokens an answer is not worth a call.
pub const MIN_ANSWER_TOKENS: u64 = 1024;

/// A call about to be made.
#[derive(Debug, Clone, Copy)]
pub struct CallShape {
    /// Estimated input tokens.
    pub input_tokens: u64,
    /// The most output the call may write (what it sends as `max_tokens`, or the model's limit).
    pub max_output: u64,
    /// The model's prices (per million tokens), when known.
    pub pricing: Option<Pricing>,
}

/// What a cap has left, and its name for the user.
#[derive(Debug, Clone, Copy)]
pub struct Left {
    /// `request`, `session`, `day` or `run`.
    pub scope: &'static str,
    /// The cap.
    pub cap: Cap,
    /// What is spent (and held) against it.
    pub taken: Spend,
}

/// The plan for one call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Plan {
    /// The call fits; `max_output` is what it may write (lower than asked when clamped), `hold` its
    /// worst case.
    Go {
        /// The output the call may write.
        max_output: u64,
        /// Whether that is lower than the call would have allowed.
        clamped: bool,
        /// The worst case to hold until the call settles.
        hold: Spend,
    },
    /// Not even a short answer fits under `scope`.
    Stop {
        /// The cap that is exhausted.
        scope: &'static str,
        /// Its limit and what was taken, for the message.
        cap: Cap,
        /// What was spent (and held) against it.
        taken: Spend,
    },
}

/// Plans a call of `shape` under the caps `left`.
pub fn plan(shape: CallShape, left: &[Left]) -> Plan {
    let (input_price, output_price) = shape.pricing.map_or((0.0, 0.0), |p| {
        (p.input.max(p.cache_write) / 1e6, p.output / 1e6)
    });
    let input_usd = shape.input_tokens as f64 * input_price;
    let mut allowed = shape.max_output;
    let mut binding = None;
    for l in left {
        let mut fits = allowed;
        if let Some(cap) = l.cap.usd {
            let room = cap - l.taken.usd - input_usd;
            fits = if room < 0.0 {
                0
            } else if output_price > 0.0 {
                fits.min((room / output_price).floor() as u64)
            } else {
                fits
            };
        }
        if let Some(cap) = l.cap.tokens {
            let room = cap.saturating_sub(l.taken.tokens.saturating_add(shape.input_tokens));
            fits = fits.min(room);
        }
        if fits < allowed {
            allowed = fits;
            binding = Some(l);
        }
    }
    if allowed < MIN_ANSWER_TOKENS.min(shape.max_output) {
        let l = binding.expect("only a cap lowers what the call may write");
        return Plan::Stop {
            scope: l.scope,
            cap: l.cap,
            taken: l.taken,
        };
    }
    Plan::Go {
        max_output: allowed,
        clamped: allowed < shape.max_output,
        hold: Spend {
            usd: input_usd + allowed as f64 * output_price,
            tokens: shape.input_tokens.saturating_add(allowed),
        },
    }
}

#[cfg(test)]
#[path = "budget_plan_tests.rs"]
mod tests;
