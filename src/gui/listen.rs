//! Connections: the accept loop, the cap on open connections (a WebSocket
//! holds its place until it closes; one over the cap is closed at once), and
//! the time a client has to send a request's head and its body.

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tower::ServiceExt;

/// How long a client has to send a request's head (an idle connection,
/// kept alive or never used, is closed after it) and, separately, its body.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The most connections open at once, whatever the descriptor limit allows.
pub const MAX_CONNECTIONS: usize = 512;
/// The fewest connections allowed, however low the descriptor limit.
const MIN_CONNECTIONS: usize = 8;

/// A connection's place under the cap, carried in each request's
/// extensions so that a WebSocket keeps it until it closes.
#[derive(Clone)]
pub struct Slot(#[allow(dead_code)] Arc<OwnedSemaphorePermit>);

/// The soft limit on open descriptors (`None` where it cannot be read).
pub fn descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes one `rlimit` through the pointer, which
        // points to a live local of that type; it reads nothing through it.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
        #[allow(clippy::unnecessary_cast)]
        ok.then_some(limit.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    None
}

/// The cap on connections: [`MAX_CONNECTIONS`], or fewer where the
/// descriptor limit must also leave room for `max_engines` engine processes
/// (three pipes each), record files and the runtime's own.
pub fn connection_cap(max_engines: usize) -> usize {
    let reserve = 64 + 4 * max_engines as u64;
    let room = descriptor_limit().map_or(MAX_CONNECTIONS as u64, |n| n.saturating_sub(reserve));
    (room.min(MAX_CONNECTIONS as u64) as usize).max(MIN_CONNECTIONS)
}

/// Accepts connections until `stop` fires and serves each with `router`:
/// at most `cap` at once (one over is closed at once), each request head
/// within `timeout`.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    cap: usize,
    timeout: Duration,
    stop: oneshot::Receiver<()>,
) {
    let places = Arc::new(Semaphore::new(cap));
    let mut stop = stop;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = &mut stop => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors or a connection reset before accept: wait a little.
                log::warn!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = places.clone().try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let slot = Slot(Arc::new(permit));
        let router = router.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |mut request: Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(slot.clone());
                router.clone().oneshot(request.map(Body::new))
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(timeout)
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            let _ = connection.await;
        });
    }
}

/// Reads the whole request body within the timeout (408 after it) and up to
/// `limit` bytes (413 past it), so that a slow body holds no handler.
pub async fn read_body(State((timeout, limit)): State<(Duration, usize)>, request: Request, next: Next) -> Response {
    if request.method() == axum::http::Method::GET {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match tokio::time::timeout(timeout, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return super::GuiError::TooLarge(format!("the request body is over {} MiB or broken", limit >> 20))
                .into_response();
        }
        Err(_) => {
            let why = format!("the request body did not arrive within {} s", timeout.as_secs_f64());
            return (StatusCode::REQUEST_TIMEOUT, why).into_response();
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_cap_leaves_room_for_engines() {
        let cap = connection_cap(8);
        assert!((MIN_CONNECTIONS..=MAX_CONNECTIONS).contains(&cap), "{cap}");
        if let Some(n) = descriptor_limit() {
            assert!(n > 0);
            assert!(cap as u64 + 64 + 32 <= n.max(cap as u64 + 96), "{cap} of {n}");
        }
    }
}
