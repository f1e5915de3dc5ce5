// `node --import ./register-ts.mjs --conditions=herald-source script.ts` runs our sources unbuilt.
import { register } from 'node:module';

register('./ts-resolve-hooks.mjs', import.meta.url);
