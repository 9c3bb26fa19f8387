//! The connection to Redis Cluster: one synchronous cluster connection, thrown away and
//! made again after any error (redis-rs's synchronous cluster connection neither follows
//! a failover on its own nor stays in step after a failed pipeline), with bounded retries.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use redis::cluster::{ClusterClient, ClusterClientBuilder, ClusterConnection};
use redis::RedisResult;

use crate::error::{Error, Result};

/// How long an operation is retried: longer than a failover (3 to 5 seconds with a node
/// timeout of 2 s), short enough that an unreachable cluster is an error soon.
pub(super) const RETRY_FOR: Duration = Duration::from_secs(15);

/// The pause between two tries.
const RETRY_PAUSE: Duration = Duration::from_millis(100);

/// A cluster client and its current connection.
pub(super) struct Store {
    client: ClusterClient,
    connection: Mutex<Option<ClusterConnection>>,
}

impl Store {
    /// Connects to the cluster through the seed addresses `urls` (`redis://host:port`).
    pub(super) fn connect(urls: &[String]) -> Result<Store> {
        let client = ClusterClientBuilder::new(urls.to_vec())
            .connection_timeout(Duration::from_secs(1))
            .response_timeout(Duration::from_secs(2))
            // The crate's own retries sleep up to minutes between tries; ours are bounded.
            .retries(2)
            .min_retry_wait(50)
            .max_retry_wait(200)
            .build()
            .map_err(|e| cluster_error("cannot use the seed addresses", e))?;
        let store = Store {
            client,
            connection: Mutex::new(None),
        };
        // Unreachable is an error at once, not at the first document.
        store.run("cannot connect", |_| Ok(()))?;
        Ok(store)
    }

    /// Runs `op` on a connection, connecting (again) first when needed; after an error the
    /// connection is dropped and `op` tried again on a new one, for at most [`RETRY_FOR`].
    /// `op` must be safe to repeat (each of this module's operations is, or, as a counter's
    /// increment, may only skip values).
    pub(super) fn run<T>(
        &self,
        what: &str,
        mut op: impl FnMut(&mut ClusterConnection) -> RedisResult<T>,
    ) -> Result<T> {
        let start = Instant::now();
        let mut slot = self.connection.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let result = match slot.as_mut() {
                Some(connection) => op(connection),
                None => self.client.get_connection().and_then(|mut connection| {
                    let result = op(&mut connection);
                    *slot = Some(connection);
                    result
                }),
            };
            match result {
                Ok(value) => return Ok(value),
                Err(error) => {
                    *slot = None;
                    if start.elapsed() >= RETRY_FOR {
                        return Err(cluster_error(what, error));
                    }
                    std::thread::sleep(RETRY_PAUSE);
                }
            }
        }
    }
}

fn cluster_error(what: &str, error: redis::RedisError) -> Error {
    Error::Cluster {
        what: what.to_owned(),
        source: Box::new(error),
    }
}
