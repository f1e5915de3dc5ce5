#!/usr/bin/env node
// Entry point: picks the command and loads only its module, so `herald api` never pays for Ink.
import module from 'node:module';

// Cache compiled bytecode between runs (Node >= 22.1); cuts startup for a short-lived CLI.
module.enableCompileCache?.();

const { main } = await import('../main.js');
process.exitCode = await main(process.argv.slice(2));
