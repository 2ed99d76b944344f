//! `Op::SaveKey`: a provider's key saved to the user's config (mode 0600), off the async threads;
//! then, only when it was saved, the switch to the model that needed it.

use tunacode_protocol::runtime::Secret;
use tunacode_store::{SetupUpdate, save_setup};

use crate::runtime::actor::Actor;
use crate::runtime::events::OpFailure;

impl Actor {
    pub(super) async fn on_save_key(&mut self, var: String, key: Secret, model: Option<String>) {
        let file = self.parts.settings.paths.config_file.clone();
        let update = SetupUpdate {
            default_model: None,
            env: vec![(var, key.expose().to_string())],
            provider: None,
        };
        match tokio::task::spawn_blocking(move || save_setup(&file, &update)).await {
            Ok(Ok(())) => {
                if let Some(model) = model {
                    self.on_set_model(model).await;
                }
            }
            Ok(Err(e)) => self.fail(OpFailure::Settings(format!(
                "The key could not be saved: {e}"
            ))),
            Err(e) => self.fail(OpFailure::Invalid(format!("internal error: {e}"))),
        }
    }
}
