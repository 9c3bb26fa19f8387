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
            .map_err(|e| cluster_error(&format!("cannot use the seed addresses {urls:?}"), e))?;
        let store = Store {
            client,
            connection: Mutex::new(None),
        };
        // The seeds say at once what is wrong if they can (no server answers, or a Redis
        // that is not a cluster), rather than the client after its retries.
        if let Some((what, source)) = probe(urls) {
            return Err(Error::Cluster { what, source });
        }
        // Unreachable is an error before the first document.
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
        op: impl FnMut(&mut ClusterConnection) -> RedisResult<T>,
    ) -> Result<T> {
        self.run_for(RETRY_FOR, what, op)
    }

    /// [`run`](Self::run), retrying for at most `retry_for` (zero: one try).
    pub(super) fn run_for<T>(
        &self,
        retry_for: Duration,
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
                    if start.elapsed() >= retry_for {
                        return Err(cluster_error(what, error));
                    }
                    std::thread::sleep(RETRY_PAUSE);
                }
            }
        }
    }
}

/// Why no cluster connection can be made through `urls`, when the seeds themselves say
/// so: one answers but is not in cluster mode, or none answers at all. `None` as soon as
/// a seed is a cluster node (the cluster may still be failing over: worth retrying).
fn probe(urls: &[String]) -> Option<(String, BoxedError)> {
    let mut last: Option<BoxedError> = None;
    for url in urls {
        let connection = redis::Client::open(url.as_str())
            .and_then(|client| client.get_connection_with_timeout(Duration::from_secs(1)));
        let mut connection = match connection {
            Ok(connection) => connection,
            Err(error) => {
                last = Some(Box::new(error));
                continue;
            }
        };
        let info: String = match redis::cmd("INFO").arg("cluster").query(&mut connection) {
            Ok(info) => info,
            // It answers: let the cluster client tell.
            Err(_) => return None,
        };
        if info.contains("cluster_enabled:0") {
            return Some((
                format!(
                    "{url} is a Redis server not in cluster mode: a shared index needs a \
                     Redis Cluster (cluster-enabled yes); give its seed addresses"
                ),
                "INFO cluster: cluster_enabled:0".into(),
            ));
        }
        return None;
    }
    let what = format!("no seed address answers ({})", urls.join(", "));
    last.map(|source| (what, source))
}

/// The cause an [`Error::Cluster`] carries.
type BoxedError = Box<dyn std::error::Error + Send + Sync>;

fn cluster_error(what: &str, error: redis::RedisError) -> Error {
    Error::Cluster {
        what: what.to_owned(),
        source: Box::new(error),
    }
}
