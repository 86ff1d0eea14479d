//! The committed generated code is exactly what the committed schema generates.

use std::path::Path;

#[test]
fn committed_code_matches_the_schema() {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ag-ui-proto-gen-drift");
    std::fs::create_dir_all(&scratch).unwrap();
    let fresh = ag_ui_proto_gen::generate(&ag_ui_proto_gen::library_dir().join("proto"), &scratch)
        .expect("the schema compiles");
    let committed = std::fs::read_to_string(ag_ui_proto_gen::generated_path())
        .expect("the generated code is committed");
    assert!(
        fresh == committed,
        "crates/ag-ui/src/encoding/proto/generated.rs is out of date with crates/ag-ui/proto: \
         run `cargo run -p ag-ui-proto-gen` and commit the result"
    );
}

#[test]
fn a_schema_edit_is_caught() {
    // The check above can fail: the same generation from an edited schema gives other code.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ag-ui-proto-gen-edited");
    let scratch = dir.join("out");
    std::fs::create_dir_all(&scratch).unwrap();
    for file in ag_ui_proto_gen::PROTO_FILES {
        let text = std::fs::read_to_string(ag_ui_proto_gen::library_dir().join("proto").join(file))
            .unwrap();
        let text = text.replace("string delta = 3;", "string delta = 9;");
        std::fs::write(dir.join(file), text).unwrap();
    }
    let edited = ag_ui_proto_gen::generate(&dir, &scratch).expect("the edited schema compiles");
    let committed = std::fs::read_to_string(ag_ui_proto_gen::generated_path()).unwrap();
    assert_ne!(edited, committed);
}
