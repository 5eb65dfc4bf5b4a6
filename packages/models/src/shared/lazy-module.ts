/**
 * A module loaded on first use, once: the provider SDKs are imported when a binding makes its
 * first request, not when its subpath is imported, so a program pays for an SDK only when it
 * talks to that provider. A failed load is tried again by the next call.
 */
export interface LazyModule<Module> {
  /** Loads the module (at most once at a time) and resolves with it. */
  load(): Promise<Module>;
  /** The module if it has loaded, else undefined: nothing that needs it can have happened yet. */
  loaded(): Module | undefined;
}

/** Wraps a dynamic `import()` as a {@link LazyModule}. */
export function lazyModule<Module>(importer: () => Promise<Module>): LazyModule<Module> {
  let module: Module | undefined;
  let loading: Promise<Module> | undefined;
  return {
    load() {
      if (module !== undefined) return Promise.resolve(module);
      loading ??= importer().then(
        (loadedModule) => {
          module = loadedModule;
          return loadedModule;
        },
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
    loaded: () => module,
  };
}

/** A value made from a lazily loaded module on first use, once; a failed attempt is retried. */
export function onFirstUse<Value>(make: () => Promise<Value>): () => Promise<Value> {
  let made: Promise<Value> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}
