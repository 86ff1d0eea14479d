#!/usr/bin/env python3
"""Where the browser module's bytes go: `twiggy top` of the module before wasm-opt (it keeps the
function names), summed by kind, largest first. Used for the figures in CHANGELOG (issue 40).

    cargo install twiggy
    bash .ci/wasm --build-only
    python3 bench/wasm-size.py target/wasm/wasm32-unknown-unknown/release/ag_ui_wasm.wasm
"""
import collections
import csv
import io
import re
import subprocess
import sys

# The first rule a (demangled, crate-hash-free) item name matches names its kind.
KINDS = [
    ("names and custom sections", lambda s: s.startswith('"function names"') or s.startswith("custom section")),
    ("serde_path_to_error wrappers", lambda s: "serde_path_to_error" in s),
    ("serde Content buffering (tagged enums)", lambda s: "private::de::content" in s),
    ("serde_json::Value as deserializer", lambda s: "serde_json::value::de" in s or "serde_json::value::Value as serde_core::de::Deserializer" in s),
    ("serde_json reader over bytes (SliceRead)", lambda s: "SliceRead" in s),
    ("serde_json reader over str (StrRead)", lambda s: "StrRead" in s),
    ("derived Deserialize / visitors", lambda s: "as serde_core::de::Deserialize" in s or "de::Visitor" in s or "DeserializeSeed" in s),
    ("serde serialize", lambda s: "Serialize" in s or "serde_json::ser" in s),
    ("protobuf (prost, encoding::proto)", lambda s: "prost::" in s or "encoding::proto" in s),
    ("fmt", lambda s: "core::fmt" in s or "fmt::" in s),
    ("ag_ui::verify", lambda s: "ag_ui::verify" in s),
    ("ag_ui::client::apply", lambda s: "client::apply" in s),
    ("ag_ui::client (other)", lambda s: "ag_ui::client" in s),
    ("ag_ui_wasm", lambda s: "ag_ui_wasm" in s),
    ("wasm-bindgen, js-sys, web-sys", lambda s: "wasm_bindgen" in s or "js_sys" in s or "web_sys" in s),
    ("json_patch", lambda s: "json_patch" in s),
    ("hashbrown, btree", lambda s: "hashbrown" in s or "btree" in s),
    ("data segments", lambda s: s.startswith("data segment")),
    ("ag_ui (other)", lambda s: "ag_ui::" in s),
]


def main(path):
    out = subprocess.run(["twiggy", "top", "-n", "1000000", "--format", "csv", path],
                         check=True, capture_output=True, text=True).stdout
    sizes, counts = collections.Counter(), collections.Counter()
    for row in csv.DictReader(io.StringIO(out)):
        name = re.sub(r"\[[0-9a-f]{16}\]", "", row["Name"])
        kind = next((k for k, rule in KINDS if rule(name)), "other (std, small items)")
        sizes[kind] += int(row["ShallowSize"])
        counts[kind] += 1
    total = sum(sizes.values())
    print(f"{'bytes':>9} {'%':>5} {'items':>6}  kind")
    for kind, size in sizes.most_common():
        print(f"{size:9} {100 * size / total:5.1f} {counts[kind]:6}  {kind}")
    print(f"{total:9} 100.0 {sum(counts.values()):6}  total")


if __name__ == "__main__":
    main(sys.argv[1])
