//! `ag-ui serve --model … --mcp …`: an MCP server that cannot start, or is not an MCP server,
//! is a usage error before anything listens.

use crate::ag_ui;

#[test]
fn an_mcp_command_that_cannot_start_is_refused_at_startup() {
    let output = ag_ui(
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--model",
            "m",
            "--mcp",
            "/nonexistent/mcp-server --stdio",
        ],
        b"",
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--mcp /nonexistent/mcp-server --stdio")
            && stderr.contains("could not start"),
        "{stderr}"
    );
}

#[test]
fn a_command_that_is_not_an_mcp_server_is_refused_at_startup() {
    let output = ag_ui(
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--model",
            "m",
            "--mcp",
            "true",
        ],
        b"",
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("handshake"), "{stderr}");
}

#[test]
fn mcp_needs_a_model() {
    let output = ag_ui(&["serve", "--mcp", "true"], b"");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--model"));
}
