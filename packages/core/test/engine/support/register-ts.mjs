// `node --import ./register-ts.mjs --conditions=herald-source script.ts` runs our sources unbuilt,
// with Node 24's type stripping. Relative imports are written with `.js` (NodeNext style) but only
// the `.ts` file exists. The hooks are synchronous and run in this thread: `module.register` would
// start a loader thread with a V8 heap of its own (about 25 MB of resident memory, which the
// benchmark would count as Herald's).
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (specifier.endsWith('.js') && /^(\.|\/|file:)/.test(specifier)) return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      throw error;
    }
  },
});
