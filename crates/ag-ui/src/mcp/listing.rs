//! Listing a server's tools, page by page, within the configuration's bounds.

use rmcp::model::PaginatedRequestParams;
use rmcp::service::{RoleClient, RunningService, ServiceError};

use super::McpConfig;

/// Why a listing stopped.
pub(super) enum Listing {
    Failed(ServiceError),
    /// Past a bound: what the server lists, in words.
    TooMany(String),
}

/// Lists the tools page by page, within `config`'s bounds (rmcp's response cache off: the
/// listing is read once).
pub(super) async fn list(
    service: &RunningService<RoleClient, ()>,
    config: &McpConfig,
) -> Result<Vec<rmcp::model::Tool>, Listing> {
    service
        .peer()
        .set_response_cache_config(rmcp::ClientCacheConfig::disabled())
        .await;
    let max = config.max_tools.max(1);
    let (mut tools, mut bytes, mut cursor) = (Vec::new(), 0usize, None);
    for page in 0.. {
        if page == max {
            return Err(Listing::TooMany(format!(
                "its tools in more than {max} pages (McpConfig::max_tools)"
            )));
        }
        let params = PaginatedRequestParams::default().with_cursor(cursor.take());
        let result = service
            .list_tools(Some(params))
            .await
            .map_err(Listing::Failed)?;
        for tool in result.tools {
            let mut count = Count(0);
            let _ = serde_json::to_writer(&mut count, &tool);
            bytes = bytes.saturating_add(count.0);
            if tools.len() == max {
                return Err(Listing::TooMany(format!(
                    "more than {max} tools (McpConfig::max_tools)"
                )));
            }
            if bytes > config.max_tool_bytes {
                return Err(Listing::TooMany(format!(
                    "more than {} bytes of tool declarations (McpConfig::max_tool_bytes)",
                    config.max_tool_bytes
                )));
            }
            tools.push(tool);
        }
        match result.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    Ok(tools)
}

/// A writer that only counts.
struct Count(usize);

impl std::io::Write for Count {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
