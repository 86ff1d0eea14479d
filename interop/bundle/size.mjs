// The size of the browser client, ours against the reference, for the README's browser
// section: `@ag-ui/client` 1.0.0 doing the job of `reference.mjs`, bundled for the browser
// with its dependencies and minified by esbuild (both from interop/package-lock.json), against
// crates/ag-ui-wasm/pkg/ (built by `.ci/wasm`: the wasm module, and its JavaScript glue
// minified by the same esbuild). Raw and gzipped (level 9) bytes.
//
//   npm ci --prefix interop && bash .ci/wasm --build-only
//   node interop/bundle/size.mjs            (--json for one JSON line)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const pkg = fileURLToPath(new URL('../../crates/ag-ui-wasm/pkg/', import.meta.url));

/** `entry` bundled for the browser and minified, in memory. */
async function bundle(options) {
  const result = await build({
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    write: false,
    logLevel: 'error',
    ...options,
  });
  return Buffer.concat(result.outputFiles.map((file) => Buffer.from(file.contents)));
}

const sizes = (bytes) => ({ raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });

const reference = sizes(await bundle({ entryPoints: [`${here}reference.mjs`] }));
// The glue imports the module's inline JavaScript snippets; bundling takes them in.
const glue = sizes(await bundle({ entryPoints: [`${pkg}ag_ui_wasm.js`] }));
const wasm = sizes(readFileSync(`${pkg}ag_ui_wasm_bg.wasm`));
const ours = { raw: glue.raw + wasm.raw, gzip: glue.gzip + wasm.gzip };

const report = { reference, wasm, glue, ours };
if (process.argv.includes('--json')) {
  console.log(JSON.stringify(report));
} else {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const row = (name, s) => console.log(`${name.padEnd(44)} ${kib(s.raw).padStart(11)} ${kib(s.gzip).padStart(11)}`);
  console.log(`${''.padEnd(44)} ${'raw'.padStart(11)} ${'gzip -9'.padStart(11)}`);
  row('@ag-ui/client 1.0.0 (esbuild, minified)', reference);
  row('ag-ui-wasm: ag_ui_wasm_bg.wasm', wasm);
  row('ag-ui-wasm: ag_ui_wasm.js (esbuild, minified)', glue);
  row('ag-ui-wasm: both', ours);
}
