#!/usr/bin/env node
// Extents of function expressions bound to a name, for `scip2json.py --extents`.
//
//   node ts-extents.cjs PROJECT_DIR OUT.json        (TypeScript is loaded from NODE_PATH or the
//                                                     scip-typescript install; see truth.sh)
//
// scip-typescript gives a definition an enclosing_range for functions, methods and classes, and for
// a variable only in some cases; it gives none to `next: (value) => {...}` in an object literal,
// `static create = <T>(...) => ...` or `const f = (<T>(x) => ...)`. scip2json.py needs an extent
// to attribute the references inside such a function to it as their caller. For every
// variable / property declaration / property assignment whose initializer (under parentheses,
// `as`, `satisfies`, `!` and type assertions) is an arrow function or function expression, this
// writes {relative_path: [[nameLine, nameCol, startLine, startCol, endLine, endCol], ...]}: 0-based,
// UTF-16 columns (the encoding scip-typescript uses), the name position being where
// scip-typescript puts the definition occurrence and the range that of the function.
'use strict';
const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const [rootArg, out] = process.argv.slice(2);
if (!rootArg || !out) {
  console.error('usage: ts-extents.cjs PROJECT_DIR OUT.json');
  process.exit(2);
}
const root = path.resolve(rootArg);
const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
const cfg = ts.readConfigFile(configPath, ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(cfg.config, ts.sys, path.dirname(configPath));

function unwrap(e) {
  for (;;) {
    if (!e) return e;
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) ||
        ts.isTypeAssertionExpression(e) || (ts.isSatisfiesExpression && ts.isSatisfiesExpression(e))) {
      e = e.expression;
    } else {
      return e;
    }
  }
}

const result = {};
let n = 0;
for (const file of parsed.fileNames) {
  if (file.endsWith('.d.ts')) continue;
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const rel = path.relative(root, file).split(path.sep).join('/');
  const rows = [];
  const visit = (node) => {
    if ((ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) &&
        node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name) ||
                      ts.isStringLiteral(node.name))) {
      const init = unwrap(node.initializer);
      if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
        const name = sf.getLineAndCharacterOfPosition(node.name.getStart(sf));
        const a = sf.getLineAndCharacterOfPosition(init.getStart(sf));
        const b = sf.getLineAndCharacterOfPosition(init.getEnd());
        rows.push([name.line, name.character, a.line, a.character, b.line, b.character]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (rows.length) {
    result[rel] = rows;
    n += rows.length;
  }
}
fs.writeFileSync(out, JSON.stringify(result));
console.log(`ts-extents: ${n} function-valued names in ${Object.keys(result).length} files -> ${out}`);
