//! [`FixtureError`]: why a fixture, a corpus or an observation could not be read.

/// The kinds of [`FixtureError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FixtureErrorKind {
    /// The file is over the size limit, or a corpus over its file count.
    TooLarge,
    /// The bytes are not JSON.
    Json,
    /// The JSON is not a fixture: a missing or mistyped key, an unknown expectation key, a
    /// name that is not a fixture name.
    Shape,
    /// A file of the corpus could not be read (the I/O error is the source).
    Io,
}

impl FixtureErrorKind {
    /// A stable dotted name: `fixture.too-large`, `fixture.json`, `fixture.shape`, `fixture.io`.
    pub fn as_str(self) -> &'static str {
        match self {
            FixtureErrorKind::TooLarge => "fixture.too-large",
            FixtureErrorKind::Json => "fixture.json",
            FixtureErrorKind::Shape => "fixture.shape",
            FixtureErrorKind::Io => "fixture.io",
        }
    }
}

/// Why a fixture (or an observation sent for a verdict) could not be read: what kind of
/// problem, in which file and at which key, with the cause as its
/// [`source`](std::error::Error::source). What the file says is quoted as bounded excerpts.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.describe())]
pub struct FixtureError {
    kind: FixtureErrorKind,
    file: Option<String>,
    field: Option<String>,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// At most this many bytes of a name or a path quoted in an error.
const QUOTED: usize = 120;

pub(crate) fn quote(text: &str) -> String {
    if text.len() <= QUOTED {
        return text.to_owned();
    }
    let mut end = QUOTED;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

impl FixtureError {
    pub(crate) fn new(kind: FixtureErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            file: None,
            field: None,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(quote(&field.into()));
        self
    }

    pub(crate) fn with_file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(quote(&file.into()));
        self
    }

    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> FixtureErrorKind {
        self.kind
    }

    /// The file, when the fixture came from one.
    pub fn file(&self) -> Option<&str> {
        self.file.as_deref()
    }

    /// The key at fault (`expect.outcome`, `stream[3]`), when one is.
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    fn describe(&self) -> String {
        let mut text = String::new();
        if let Some(file) = &self.file {
            text.push_str(file);
            text.push_str(": ");
        }
        if let Some(field) = &self.field {
            text.push_str(field);
            text.push_str(": ");
        }
        text.push_str(&self.message);
        text.push_str(&format!(" [{}]", self.kind.as_str()));
        text
    }
}
