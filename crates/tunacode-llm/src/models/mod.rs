//! The model registry: a bundled table of the models users pick (context window, output limit, prices),
//! a cached refresh from the public models.dev catalogue, and the user's overrides. It answers what a
//! model's context window is and what a call cost when the provider does not say.

mod models_dev;
mod registry;

pub use models_dev::{MODELS_DEV_URL, parse_models_dev, refresh};
pub use registry::{ModelInfo, ModelOverride, ModelRegistry, Pricing, RegistrySource};
