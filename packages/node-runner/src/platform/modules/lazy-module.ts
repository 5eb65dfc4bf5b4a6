import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * A getter that loads `specifier` (a dependency of this package) on its first call and
 * answers the same module after: for a library only some Sessions use (yaml, picomatch,
 * ignore), so importing the package does not load it. Synchronous, for code that is.
 */
export function lazyModule<Module>(specifier: string): () => Module {
  let loaded: Module | undefined;
  return () => {
    loaded ??= require(specifier) as Module;
    return loaded;
  };
}
