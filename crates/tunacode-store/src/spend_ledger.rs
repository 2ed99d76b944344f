//! [`SpendLedger`]: what this user spent today across every session and process (`spend.json` in the
//! data dir, 0600), with the worst cases of the calls in flight held apart. Every change happens
//! under an exclusive lock on `spend.lock`, so concurrent sessions never lose an update and never
//! both take the last of a cap. A hold whose process is gone (killed mid-call) is dropped.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::StoreError;

/// An amount spent or held.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize, Serialize)]
pub struct Spend {
    /// USD.
    pub usd: f64,
    /// Tokens (input + output).
    pub tokens: u64,
}

impl Spend {
    /// The sum of two amounts (tokens saturate rather than wrap).
    pub fn plus(self, other: Spend) -> Spend {
        Spend {
            usd: self.usd + other.usd,
            tokens: self.tokens.saturating_add(other.tokens),
        }
    }

    /// Whether it can be an amount spent (a finite, non-negative USD figure).
    fn is_valid(&self) -> bool {
        self.usd.is_finite() && self.usd >= 0.0
    }
}

/// A call's worst case held in the ledger until it settles.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
struct Hold {
    id: String,
    pid: u32,
    since: u64,
    amount: Spend,
}

/// The file's content: one day.
#[derive(Debug, Default, Deserialize, Serialize)]
struct Day {
    day: String,
    settled: Spend,
    holds: Vec<Hold>,
}

/// Holds older than this are dropped even if their process lives (no call runs for six hours).
const STALE_HOLD_SECS: u64 = 6 * 3600;

/// The day's spend in a data dir.
#[derive(Debug, Clone)]
pub struct SpendLedger {
    dir: PathBuf,
}

impl SpendLedger {
    /// The ledger in `data_dir`.
    pub fn new(data_dir: &Path) -> Self {
        SpendLedger {
            dir: data_dir.to_path_buf(),
        }
    }

    /// Under the lock: `decide` sees what `today` (the local date, `YYYY-MM-DD`) has spent and holds,
    /// and may hold an amount, which is kept until [`SpendLedger::settle`] with the returned id.
    pub fn hold<T>(
        &self,
        today: &str,
        decide: impl FnOnce(Spend) -> Option<(Spend, T)>,
    ) -> Result<Option<(String, T)>, StoreError> {
        self.locked(today, |day| {
            let taken = day.holds.iter().fold(day.settled, |s, h| s.plus(h.amount));
            let (amount, answer) = decide(taken)?;
            let id = uuid::Uuid::new_v4().simple().to_string();
            day.holds.push(Hold {
                id: id.clone(),
                pid: std::process::id(),
                since: now_secs(),
                amount,
            });
            Some((id, answer))
        })
    }

    /// Replaces hold `id` (if it is still there) by what the call really `spent`, on `today` (the
    /// hold's day; a call that ran past midnight counts in the new day, which is never reset).
    pub fn settle(&self, today: &str, id: &str, spent: Spend) -> Result<(), StoreError> {
        self.locked(today, |day| {
            day.holds.retain(|h| h.id != id);
            day.settled = day.settled.plus(spent);
            Some(())
        })
        .map(|_| ())
    }

    /// What `today` has spent and holds.
    pub fn taken(&self, today: &str) -> Result<Spend, StoreError> {
        self.locked(today, |day| {
            Some(day.holds.iter().fold(day.settled, |s, h| s.plus(h.amount)))
        })
        .map(Option::unwrap_or_default)
    }

    /// Runs `change` on today's ledger under the lock; writes it back when `change` returns `Some`.
    fn locked<T>(
        &self,
        today: &str,
        change: impl FnOnce(&mut Day) -> Option<T>,
    ) -> Result<Option<T>, StoreError> {
        crate::private::private_dir(&self.dir).map_err(|e| self.io("", e))?;
        let lock =
            private_file(&self.dir.join("spend.lock")).map_err(|e| self.io("spend.lock", e))?;
        lock.lock().map_err(|e| self.io("spend.lock", e))?;
        let mut day = self.read(today)?;
        let changed = change(&mut day);
        if changed.is_some() {
            self.write(&day)?;
        }
        drop(lock);
        Ok(changed)
    }

    /// Today's ledger: the file's when it is today's, without the holds of processes that are gone.
    fn read(&self, today: &str) -> Result<Day, StoreError> {
        let path = self.dir.join("spend.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(self.io("spend.json", e)),
        };
        let mut day: Day = if text.trim().is_empty() {
            Day::default()
        } else {
            serde_json::from_str(&text).map_err(|e| StoreError::Malformed {
                path: path.clone(),
                line: e.line(),
                column: e.column(),
                message: format!("{e} (the day's spend; fix or remove the file)"),
            })?
        };
        if !day.settled.is_valid() || day.holds.iter().any(|h| !h.amount.is_valid()) {
            return Err(StoreError::Malformed {
                path,
                line: 1,
                column: 1,
                message:
                    "a negative or non-finite amount (the day's spend; fix or remove the file)"
                        .into(),
            });
        }
        // Dates sort as text: a newer day (past midnight, or another process's time zone) is
        // kept, never reset to an older one.
        if day.day.as_str() < today {
            day = Day {
                day: today.to_string(),
                ..Day::default()
            };
        }
        let now = now_secs();
        day.holds
            .retain(|h| process_lives(h.pid) && now.saturating_sub(h.since) < STALE_HOLD_SECS);
        Ok(day)
    }

    /// Writes the ledger atomically (a temporary file renamed over it).
    fn write(&self, day: &Day) -> Result<(), StoreError> {
        let text = serde_json::to_string(day).map_err(|e| StoreError::Io {
            path: self.dir.join("spend.json"),
            source: std::io::Error::other(e),
        })?;
        let tmp = self.dir.join("spend.json.tmp");
        let mut file = private_file(&tmp).map_err(|e| self.io("spend.json.tmp", e))?;
        file.set_len(0).map_err(|e| self.io("spend.json.tmp", e))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_data())
            .map_err(|e| self.io("spend.json.tmp", e))?;
        std::fs::rename(&tmp, self.dir.join("spend.json")).map_err(|e| self.io("spend.json", e))
    }

    fn io(&self, name: &str, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: self.dir.join(name),
            source,
        }
    }
}

/// Opens (creating, mode 0600) a file to write.
fn private_file(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
}

fn process_lives(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
#[path = "spend_ledger_tests.rs"]
mod tests;
