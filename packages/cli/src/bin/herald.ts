#!/usr/bin/env node
// Entry point: picks the command and loads only its module, so `herald api` never pays for Ink.
import module from 'node:module';

// Cache compiled bytecode between runs (Node >= 22.1); cuts startup for a short-lived CLI.
module.enableCompileCache?.();

// A closed pipe (`herald api … | head -1`) ends the command quietly, as for other Unix tools.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

const { main } = await import('../main.js');
process.exitCode = await main(process.argv.slice(2));
