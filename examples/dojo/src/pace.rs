//! [`Pace`]: a factor on the pauses of the scripts and of the agents' simulated work.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A factor on the reference backend's pauses: `1` is its timing, `0` none at all.
///
/// ```
/// use std::time::Duration;
/// use ag_ui_dojo::Pace;
///
/// let pace: Pace = "0.5".parse().unwrap();
/// assert_eq!(pace.scale(Duration::from_millis(300)), Duration::from_millis(150));
/// assert!("-1".parse::<Pace>().is_err());
/// assert!("NaN".parse::<Pace>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Pace(f64);

impl Pace {
    /// The reference backend's own timing.
    pub const REFERENCE: Pace = Pace(1.0);
    /// No pauses at all.
    pub const INSTANT: Pace = Pace(0.0);
    /// The largest factor accepted: a hundred times slower than the reference (a 1 s pause
    /// becomes 100 s).
    pub const MAX_FACTOR: f64 = 100.0;

    /// A pace of `factor` times the reference's pauses.
    ///
    /// # Errors
    ///
    /// [`PaceError`] unless `factor` is a finite number from 0 to [`MAX_FACTOR`](Self::MAX_FACTOR).
    pub fn new(factor: f64) -> Result<Self, PaceError> {
        if factor.is_finite() && (0.0..=Self::MAX_FACTOR).contains(&factor) {
            Ok(Pace(factor))
        } else {
            Err(PaceError(format!(
                "the pace must be a number from 0 to {}, not {factor}",
                Self::MAX_FACTOR
            )))
        }
    }

    /// The factor.
    pub fn factor(self) -> f64 {
        self.0
    }

    /// The reference's `pause`, scaled.
    pub fn scale(self, pause: Duration) -> Duration {
        // In range by construction: a finite factor of at most 100 times a pause of seconds.
        Duration::try_from_secs_f64(pause.as_secs_f64() * self.0).unwrap_or(Duration::ZERO)
    }

    /// Waits the reference's `pause`, scaled; returns at once at pace 0.
    pub async fn pause(self, pause: Duration) {
        let pause = self.scale(pause);
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    }
}

impl Default for Pace {
    fn default() -> Self {
        Pace::REFERENCE
    }
}

impl FromStr for Pace {
    type Err = PaceError;

    fn from_str(s: &str) -> Result<Self, PaceError> {
        let factor = s
            .trim()
            .parse::<f64>()
            .map_err(|e| PaceError(format!("the pace must be a number, not {s:?}: {e}")))?;
        Pace::new(factor)
    }
}

/// A pace that is not a number from 0 to [`Pace::MAX_FACTOR`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaceError(String);

impl fmt::Display for PaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PaceError {}
