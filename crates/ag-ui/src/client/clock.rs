//! The wall clock and the process id, on every target the client runs on: `std`'s natively,
//! the browser's (`Date.now()`, no process id) on `wasm32-unknown-unknown`, where `std`'s
//! clock panics. A [`Turn`](crate::client::Turn) is given the time: this is where its drivers
//! read it.
//!
//! ```
//! let now = ag_ui::client::clock::now();
//! assert!(now > std::time::UNIX_EPOCH);
//! ```

use std::time::SystemTime;

/// The current time.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub fn now() -> SystemTime {
    SystemTime::now()
}

/// The current time, from the browser's `Date.now()` (milliseconds since the Unix epoch).
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub fn now() -> SystemTime {
    let millis = js_sys::Date::now();
    // `Date.now()` is a whole, non-negative number of milliseconds well within u64.
    let millis = if millis.is_finite() && millis > 0.0 {
        millis as u64
    } else {
        0
    };
    SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(millis)
}

/// This process's id; 0 in a browser, which has none.
pub(crate) fn process_id() -> u32 {
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    {
        std::process::id()
    }
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    {
        0
    }
}
