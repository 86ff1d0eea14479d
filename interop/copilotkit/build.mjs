// Bundles the page (app.jsx, with React, @copilotkit/react-core and its stylesheet) into
// OUTDIR/app.js + app.css and writes OUTDIR/index.html.
//
//   node build.mjs [OUTDIR]   (default: ./dist)
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { build } from "esbuild";

const outdir = process.argv[2] ?? new URL("./dist", import.meta.url).pathname;
await mkdir(outdir, { recursive: true });
await build({
  entryPoints: { app: new URL("./app.jsx", import.meta.url).pathname },
  bundle: true,
  format: "esm",
  jsx: "automatic",
  target: "chrome120",
  outdir,
  define: { "process.env.NODE_ENV": '"production"' },
  minify: true,
  // KaTeX's fonts (math in markdown), referenced by the stylesheet: not bundled, this page
  // shows no math.
  external: ["*.woff2", "*.woff", "*.ttf"],
  logLevel: "warning",
});
await writeFile(
  join(outdir, "index.html"),
  `<!doctype html>
<html>
<head><meta charset="utf-8"><title>ag-ui-dojo behind CopilotKit</title>
<link rel="stylesheet" href="/app.css"></head>
<body><div id="root"></div><script type="module" src="/app.js"></script></body>
</html>
`,
);
