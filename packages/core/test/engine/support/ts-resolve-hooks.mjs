// Lets a child process run the TypeScript sources directly with Node 24's type stripping:
// relative imports are written with `.js` (NodeNext style) but only the `.ts` file exists.
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (specifier.endsWith('.js') && /^(\.|\/|file:)/.test(specifier)) {
      return nextResolve(specifier.slice(0, -3) + '.ts', context);
    }
    throw error;
  }
}
