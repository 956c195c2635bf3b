#!/usr/bin/env node
// Reports files over 400 lines and functions over 60 lines in src/ and platforms/ (issue 18's
// limits), longest first. `--strict` exits 1 when anything is over, for use in a check.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const FILE_MAX = 400;
const FUNCTION_MAX = 60;
const roots = ['src', 'platforms'];

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

function functionName(node, source) {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return parent.name.getText(source);
  return '(anonymous)';
}

const long = [];
const longFunctions = [];
for (const file of roots.flatMap(files)) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length;
  if (lines > FILE_MAX) long.push({ file, lines });
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.end).line;
      const n = end - start + 1;
      if (n > FUNCTION_MAX)
        longFunctions.push({
          file: `${file}:${start + 1}`,
          name: functionName(node, source),
          lines: n,
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

long.sort((a, b) => b.lines - a.lines);
longFunctions.sort((a, b) => b.lines - a.lines);
console.log(`files over ${FILE_MAX} lines: ${long.length}`);
for (const f of long) console.log(`  ${f.lines}\t${f.file}`);
console.log(`functions over ${FUNCTION_MAX} lines: ${longFunctions.length}`);
for (const f of longFunctions) console.log(`  ${f.lines}\t${f.file}\t${f.name}`);
if (process.argv.includes('--strict') && long.length + longFunctions.length > 0) process.exit(1);
