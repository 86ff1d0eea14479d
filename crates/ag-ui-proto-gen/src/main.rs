//! Rewrites `crates/ag-ui/src/encoding/proto/generated.rs` from `crates/ag-ui/proto/*.proto`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scratch = std::env::temp_dir().join(format!("ag-ui-proto-gen-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let code = ag_ui_proto_gen::generate(&ag_ui_proto_gen::library_dir().join("proto"), &scratch);
    std::fs::remove_dir_all(&scratch)?;
    let path = ag_ui_proto_gen::generated_path();
    std::fs::write(&path, code?)?;
    println!("wrote {}", path.display());
    Ok(())
}
