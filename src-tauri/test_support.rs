//! What the shell's tests share.

use std::time::Duration;

/// Waits until `check` holds, looking every 10 ms; fails the test after
/// 20 s, naming `what`.
pub(crate) async fn until(what: &str, mut check: impl FnMut() -> bool) {
    for _ in 0..2000 {
        if check() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out waiting for {what}");
}
