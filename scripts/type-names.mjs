#!/usr/bin/env node
// Each exported type name (interface, type alias, class, enum) is defined once across src/ and
// platforms/: a second `Answer` or `StoredCase` makes readers guess which one a file means.
// Exits 1 naming every duplicate with where each definition is; `npm run check` runs it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['src', 'platforms'];

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const exported = (node) =>
  ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export &&
  (ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isEnumDeclaration(node));

/** name -> places it is defined */
const defined = new Map();
for (const file of roots.flatMap(files)) {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  for (const node of source.statements) {
    if (!exported(node) || !node.name) continue;
    const name = node.name.getText(source);
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    // Declaration merging (an interface and a class of one name in one file) is one definition.
    const places = defined.get(name) ?? [];
    if (!places.some((p) => p.startsWith(`${file}:`))) places.push(`${file}:${line}`);
    defined.set(name, places);
  }
}

const twice = [...defined]
  .filter(([, places]) => places.length > 1)
  .sort(([a], [b]) => a.localeCompare(b));
console.log(`exported type names: ${defined.size}, defined more than once: ${twice.length}`);
for (const [name, places] of twice) console.log(`  ${name}: ${places.join(', ')}`);
if (twice.length) process.exit(1);
