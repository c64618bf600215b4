// Runs the WebAssembly bank explorer (banklab_explorer.js) under node on many patterns:
//   node explorer_run.js BANKLAB_EXPLORER_JS PATTERNS.json OUT.json
// PATTERNS.json: [{"op","width","mask","expr","title"}, ...]; OUT.json: the explorer's answers.
"use strict";
const fs = require("fs");
const [jsPath, inPath, outPath] = process.argv.slice(2);
require(require("path").resolve(jsPath))().then((m) => {
  const pats = JSON.parse(fs.readFileSync(inPath, "utf8"));
  const out = pats.map((p) => JSON.parse(m.ccall("banklab_explain", "string",
      ["string", "string", "string", "string", "string"], [p.op, p.width, p.mask, p.expr, p.title])));
  fs.writeFileSync(outPath, JSON.stringify(out));
}).catch((e) => { console.error(e); process.exit(1); });
