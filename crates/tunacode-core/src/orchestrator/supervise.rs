//! How a request runs under supervision: one run token, cancelled by the user or the global timeout,
//! with the cause recorded for the run to report.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{RequestRun, StopCause};
use crate::agent::{Agent, RunOutcome};
use crate::error::RequestError;

impl Agent {
    /// Processes one user message (seed 000 §1.1 `process_request`). Cancelling `cancel` aborts the
    /// request: partial text is kept as `[INTERRUPTED]`, running tools are cancelled, the session stays
    /// valid and is saved. The global timeout takes the same path.
    pub async fn process_request(
        &self,
        message: &str,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, RequestError> {
        self.process_prompt(message, message, cancel).await
    }

    /// [`Agent::process_request`] for a prompt the user typed as `typed` (what its node in the
    /// session's tree shows) and that expanded to `message` (mentions, custom commands).
    pub async fn process_prompt(
        &self,
        typed: &str,
        message: &str,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, RequestError> {
        self.process_prompt_with_images(typed, message, Vec::new(), cancel)
            .await
    }

    /// [`Agent::process_prompt`] with images sent with the prompt (refused, with nothing sent, for
    /// a model the catalogue says takes none).
    pub async fn process_prompt_with_images(
        &self,
        typed: &str,
        message: &str,
        images: Vec<crate::prompt_images::PromptImage>,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, RequestError> {
        if !images.is_empty() && self.options.vision == Some(false) {
            return Err(RequestError::Images(format!(
                "{} does not take images (the model catalogue says its input is text only); \
                 switch with /model, or set models.\"{}\".vision to true if it does",
                self.options.model, self.options.model
            )));
        }
        self.supervised(cancel, |token, cause| {
            RequestRun::new(self, (typed, message), token, cause)
                .with_images(images)
                .run()
        })
        .await
    }

    /// Compacts the session's history now (`/compact`): the model writes a hand-off summary (no tools)
    /// of the older turns, which replaces them in the conversation; `focus` says what the summary
    /// should keep. They stay in the session, marked. Cancelling `cancel` stops it, changing nothing.
    pub async fn compact(
        &self,
        focus: Option<String>,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, RequestError> {
        self.supervised(cancel, |token, cause| {
            RequestRun::new(self, ("", ""), token, cause).run_compaction(focus)
        })
        .await
    }

    /// Runs `work` with one run token, cancelled by `cancel` (the user) or the global timeout.
    async fn supervised<'s, F, Fut>(
        &'s self,
        cancel: CancellationToken,
        work: F,
    ) -> Result<RunOutcome, RequestError>
    where
        F: FnOnce(CancellationToken, Arc<std::sync::Mutex<Option<StopCause>>>) -> Fut,
        Fut: std::future::Future<Output = Result<RunOutcome, RequestError>> + 's,
    {
        let run_token = CancellationToken::new();
        let cause = Arc::new(std::sync::Mutex::new(None::<StopCause>));
        let finished = CancellationToken::new();
        let watcher = {
            let (run_token, cause, finished) = (run_token.clone(), cause.clone(), finished.clone());
            let timeout = self.options.request_timeout;
            tokio::spawn(async move {
                let timer = async {
                    match timeout {
                        Some(t) => tokio::time::sleep(t).await,
                        None => std::future::pending().await,
                    }
                };
                let stop = tokio::select! {
                    _ = finished.cancelled() => return,
                    _ = cancel.cancelled() => StopCause::Abort,
                    _ = timer => StopCause::Timeout,
                };
                *cause.lock().unwrap_or_else(|p| p.into_inner()) = Some(stop);
                run_token.cancel();
            })
        };
        let result = work(run_token, cause).await;
        finished.cancel();
        let _ = watcher.await;
        result
    }
}
