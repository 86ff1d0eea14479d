// Asks @ag-ui/encoder 1.0.0's EventEncoder which Content-Type it would answer each Accept
// value with, for the negotiation table of `crates/ag-ui/tests/axum_proto.rs`.
//
// Usage: node interop/proto/negotiate.mjs ACCEPT...
// Prints a JSON array of the content types, in order.
import { EventEncoder } from "@ag-ui/encoder";

const accepts = process.argv.slice(2);
console.log(JSON.stringify(accepts.map((accept) => new EventEncoder({ accept }).getContentType())));
