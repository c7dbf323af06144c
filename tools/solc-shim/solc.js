#!/usr/bin/env node
// A `solc` command-line shim over solcjs (the npm package `solc`), answering the two
// invocations foundry-compilers (and forge) make: `--version` and `--standard-json`.
// It exists so that harvey's own tests, examples and benchmarks have a real solc on
// machines where no native binary can be installed. Users bring their own solc.
'use strict';
const fs = require('fs');
const path = require('path');

// `--solcjs <dir>` (first, from `solc-at`) picks another solcjs build than the pinned one.
let args = process.argv.slice(2);
let solcjsModule = 'solc';
if (args[0] === '--solcjs' && args.length > 1) {
  solcjsModule = args[1];
  args = args.slice(2);
}

function usage(message) {
  process.stderr.write(`solc shim: ${message}\n` +
    'supported: solc --version | solc --standard-json [--base-path P] [--include-path P] [--allow-paths P,...]\n');
  process.exit(1);
}

function optionValues(name) {
  const values = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name && i + 1 < args.length) values.push(args[i + 1]);
    else if (args[i].startsWith(name + '=')) values.push(args[i].slice(name.length + 1));
  }
  return values;
}

const solc = require(solcjsModule);

if (args.includes('--version')) {
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${solc.version()}\n`);
  process.exit(0);
}
if (!args.includes('--standard-json')) usage(`unsupported arguments: ${args.join(' ')}`);

// Imports that the standard-json input does not already carry are read from disk,
// relative to the base path and include paths, as native solc does.
const roots = [...optionValues('--base-path'), ...optionValues('--include-path'), process.cwd()];
function findImports(importPath) {
  const candidates = path.isAbsolute(importPath) ? [importPath] : roots.map((r) => path.join(r, importPath));
  for (const candidate of candidates) {
    try {
      return { contents: fs.readFileSync(candidate, 'utf8') };
    } catch (_) { /* try the next root */ }
  }
  return { error: `File not found: ${importPath} (searched ${roots.join(', ')})` };
}

const input = fs.readFileSync(0, 'utf8');
// solcjs before 0.5 takes standard JSON through `compileStandardWrapper` (its `compile` is
// the legacy interface); later ones through `compile` with an import callback.
const legacy = /^0\.[1-4]\./.test(solc.version()) && typeof solc.compileStandardWrapper === 'function';
const output = legacy ? solc.compileStandardWrapper(input, findImports) : solc.compile(input, { import: findImports });
process.stdout.write(typeof output === 'string' ? output : JSON.stringify(output));
process.stdout.write('\n');
