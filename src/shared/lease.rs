//! The writer lease: at most one live writer per name in a space. A key per writer name
//! that the Redis server expires (`PX`), renewed by a thread of the writer while it runs;
//! a writer that dies leaves it to expire. No writer's clock is involved.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::identity::random_token;
use super::store::Store;
use crate::error::{Error, Result};

/// A writer's hold on its name, renewed until it is dropped (then given back at once).
pub(super) struct Lease {
    /// Set when a renewal found the key another writer's: this writer's decisions stop.
    lost: Arc<AtomicBool>,
    /// Dropped to stop the renewing thread, which then gives the lease back.
    stop: Option<Sender<()>>,
    /// Told when the lease was given back (behind a lock: the registry is shared by threads).
    done: Mutex<Receiver<()>>,
}

impl Lease {
    /// Takes the lease `key` for `length` on a connection of its own (`store`), waiting
    /// for a lease left by a writer that died to expire; [`Error::WriterRunning`] as soon as
    /// the holder is seen renewing it, or when it is still held after `length`.
    pub(super) fn take(
        store: Store,
        key: String,
        length: Duration,
        namespace: &str,
        node: &str,
    ) -> Result<Lease> {
        let token = random_token();
        let millis = length.as_millis() as u64;
        let deadline = Instant::now() + length + Duration::from_secs(1);
        let mut last_ttl: Option<i64> = None;
        loop {
            let taken: Option<String> = store.run("cannot take the writer's lease", |c| {
                redis::cmd("SET")
                    .arg(&key)
                    .arg(&token)
                    .arg("NX")
                    .arg("PX")
                    .arg(millis)
                    .query(c)
            })?;
            // A retried SET may find the key its first try wrote.
            let ours = || -> Result<bool> {
                let holder: Option<String> = store.run("cannot read the writer's lease", |c| {
                    redis::cmd("GET").arg(&key).query(c)
                })?;
                Ok(holder.as_deref() == Some(token.as_str()))
            };
            if taken.is_some() || ours()? {
                break;
            }
            let ttl: i64 = store.run("cannot read the writer's lease", |c| {
                redis::cmd("PTTL").arg(&key).query(c)
            })?;
            // A lease whose time grew was renewed: its writer is alive.
            let renewed = last_ttl.is_some_and(|last| ttl > last + 50);
            if renewed || Instant::now() >= deadline {
                return Err(Error::WriterRunning {
                    namespace: namespace.to_owned(),
                    node: node.to_owned(),
                });
            }
            last_ttl = Some(ttl);
            std::thread::sleep(Duration::from_millis(250));
        }
        let lost = Arc::new(AtomicBool::new(false));
        let (stop, stopped) = mpsc::channel::<()>();
        let (given_back, done) = mpsc::channel::<()>();
        {
            let (lost, key, token) = (Arc::clone(&lost), key.clone(), token.clone());
            std::thread::spawn(move || {
                // Renewed five times a lease: a failover's pause does not let it lapse.
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(length / 5) {
                    let renewed: Result<i64> = store.run("cannot renew the writer's lease", |c| {
                        redis::cmd("EVAL")
                            .arg(RENEW)
                            .arg(1)
                            .arg(&key)
                            .arg(&token)
                            .arg(millis)
                            .query(c)
                    });
                    // An unreachable cluster fails the writer's own steps: only a lease
                    // found another's stops it here.
                    if let Ok(0) = renewed {
                        lost.store(true, Ordering::SeqCst);
                    }
                }
                // Given back, if still ours, so that the shard can run again at once: one
                // try (a cluster out of reach lets it expire).
                let _ = store.run_for(Duration::ZERO, "cannot give the lease back", |c| {
                    redis::cmd("EVAL")
                        .arg(RELEASE)
                        .arg(1)
                        .arg(&key)
                        .arg(&token)
                        .query::<i64>(c)
                });
                let _ = given_back.send(());
            });
        }
        Ok(Lease {
            lost,
            stop: Some(stop),
            done: Mutex::new(done),
        })
    }

    /// Whether the lease was found another writer's (this one stalled beyond it).
    pub(super) fn lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        drop(self.stop.take());
        // The thread gives the lease back, unless it is retrying a renewal on a cluster out
        // of reach: then the lease expires by itself.
        let done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        let _ = done.recv_timeout(Duration::from_secs(3));
    }
}

/// Renews the lease `KEYS[1]` for `ARGV[2]` ms if it holds `ARGV[1]`: 1 if it did, else 0.
const RENEW: &str = "
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
";

/// Deletes the lease `KEYS[1]` if it holds `ARGV[1]`.
const RELEASE: &str = "
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";
