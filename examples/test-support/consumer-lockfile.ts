// Writes a packed consumer's package-lock.json from the workspace's, so `npm ci --offline` installs
// exactly the versions the workspace resolved. `npm ci` at the workspace root leaves the tarballs in npm's
// cache, found by integrity, but not the registry metadata an install with version ranges would need:
// a lockfile that names every version, integrity and tarball address lets the consumer install with no network.

/** A dependency map as package.json and lockfile entries write it: name to range or specifier. */
export type DependencyMap = Readonly<Record<string, string>>;

/** One entry of a lockfile's `packages` map (lockfileVersion 3); fields not named here are kept as they are. */
export interface LockEntry {
  readonly name?: string;
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly link?: boolean;
  readonly dev?: boolean;
  readonly dependencies?: DependencyMap;
  readonly devDependencies?: DependencyMap;
  readonly optionalDependencies?: DependencyMap;
  readonly peerDependencies?: DependencyMap;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly [field: string]: unknown;
}

/** An npm lockfile, lockfileVersion 3: `packages` is keyed by install path, `""` being the project itself. */
export interface Lockfile {
  readonly name?: string;
  readonly lockfileVersion: number;
  readonly requires?: boolean;
  readonly packages: Readonly<Record<string, LockEntry>>;
}

/** A package the consumer installs from a tarball file, placed at `node_modules/<name>`. */
export interface LocalTarball {
  /** The package's name, e.g. `@castellan/models`. */
  readonly name: string;
  /** Its version, from the packed package.json. */
  readonly version: string;
  /** The tarball's path relative to the consumer directory, e.g. `../tarballs/castellan-models-0.1.0.tgz`. */
  readonly path: string;
  /** `sha512-<base64>` of the tarball file. */
  readonly integrity: string;
  /** The packed package.json's `dependencies`; default none. */
  readonly dependencies?: DependencyMap;
  /** The packed package.json's `peerDependencies`; default none. */
  readonly peerDependencies?: DependencyMap;
  /**
   * Where the workspace lockfile keeps this package (e.g. `packages/models`), so its dependencies
   * resolve from there, nested copies first. Default `""`: they resolve from the workspace root.
   */
  readonly workspacePath?: string;
}

/** What {@link consumerLockfile} builds a lockfile from. */
export interface ConsumerLockfileOptions {
  /** The consumer's package name, as in its package.json. */
  readonly name: string;
  /** The consumer's `dependencies`, exactly as its package.json writes them. */
  readonly dependencies: DependencyMap;
  /** The consumer's `devDependencies`, exactly as its package.json writes them; default none. */
  readonly devDependencies?: DependencyMap;
  /** The packages installed from tarball files; each takes `node_modules/<name>` and is used by every dependent. */
  readonly tarballs: readonly LocalTarball[];
  /** The workspace's lockfile, which every other package's entry is copied from. */
  readonly workspace: Lockfile;
  /**
   * The registry a copied entry's tarball address is written for when the workspace lockfile omits it;
   * default `https://registry.npmjs.org/`, which npm rewrites to the configured registry.
   */
  readonly registry?: string;
}

// Flags that describe an entry's place in the workspace's tree, not in the consumer's; recomputed below.
const workspaceFlags = new Set(["dev", "optional", "devOptional", "peer", "extraneous"]);

/**
 * Builds the consumer's lockfile: its root entry, one entry per tarball, and a copy of the workspace
 * lockfile's entry for every package the tarballs and the consumer's other dependencies need, at the path
 * Node would resolve it from, so each copied version is the one the workspace resolved. Follows
 * `dependencies`, `optionalDependencies` the workspace installed, and peer dependencies not marked optional.
 * Throws naming the package and its dependent when the workspace lockfile has no entry for a needed dependency.
 */
export function consumerLockfile(options: ConsumerLockfileOptions): Lockfile {
  const { workspace } = options;
  const tarballs = new Map(options.tarballs.map((tarball) => [`node_modules/${tarball.name}`, tarball]));
  const packages: Record<string, LockEntry> = {
    "": {
      name: options.name,
      dependencies: options.dependencies,
      ...(options.devDependencies ? { devDependencies: options.devDependencies } : {}),
    },
  };
  // Each workspace package's own folder maps to its place in the consumer's node_modules.
  const workspaceFolders = options.tarballs
    .filter((tarball) => tarball.workspacePath)
    .map((tarball) => ({ from: `${tarball.workspacePath}/`, to: `node_modules/${tarball.name}/` }));
  const toConsumerPath = (workspacePath: string): string => {
    const folder = workspaceFolders.find(({ from }) => workspacePath.startsWith(from));
    return folder ? folder.to + workspacePath.slice(folder.from.length) : workspacePath;
  };

  const production = new Set<string>();
  const reached = new Set<string>();
  // Visits the package at `consumerPath` (its entry in the workspace at `workspacePath`) and everything it needs.
  const visit = (consumerPath: string, workspacePath: string, forProduction: boolean): void => {
    if (forProduction ? production.has(consumerPath) : reached.has(consumerPath)) return;
    reached.add(consumerPath);
    if (forProduction) production.add(consumerPath);
    const tarball = tarballs.get(consumerPath);
    const entry = tarball ? tarballEntry(tarball) : workspace.packages[workspacePath];
    if (!entry) throw new Error(`The workspace lockfile has no entry at ${workspacePath}`);
    packages[consumerPath] = entry;
    const from = tarball ? (tarball.workspacePath ?? "") : workspacePath;
    for (const [dependency, optional] of dependenciesOf(entry)) {
      const found = resolve(dependency, from);
      if (found === undefined) {
        if (optional) continue;
        throw new Error(
          `The workspace lockfile has no ${dependency}@${requiredRange(entry, dependency)} for ${consumerPath}`,
        );
      }
      visit(found.consumerPath, found.workspacePath, forProduction);
    }
  };
  // Where `dependency` required from the workspace path `from` lands: nested copies first, then hoisted ones.
  const resolve = (dependency: string, from: string): { consumerPath: string; workspacePath: string } | undefined => {
    for (const folder of ancestors(from)) {
      const workspacePath = `${folder}node_modules/${dependency}`;
      const consumerPath = toConsumerPath(workspacePath);
      // A tarball takes the top-level place: whatever the workspace hoisted there, dependents get the tarball.
      if (tarballs.has(consumerPath)) return { consumerPath, workspacePath };
      const entry = workspace.packages[workspacePath];
      if (entry && !entry.link) return { consumerPath, workspacePath };
    }
    return undefined;
  };
  const root = (dependencies: DependencyMap | undefined, forProduction: boolean) => {
    for (const [dependency, range] of Object.entries(dependencies ?? {})) {
      const found = resolve(dependency, "");
      if (!found) throw new Error(`The workspace lockfile has no ${dependency}@${range} for the consumer`);
      visit(found.consumerPath, found.workspacePath, forProduction);
    }
  };
  root(options.dependencies, true);
  root(options.devDependencies, false);

  const registry = options.registry ?? "https://registry.npmjs.org/";
  for (const path of Object.keys(packages)) {
    if (path === "") continue;
    const entry = packages[path]!;
    const copy: Record<string, unknown> = Object.fromEntries(
      Object.entries(entry).filter(([field]) => !workspaceFlags.has(field)),
    );
    // With an address and an integrity npm takes the tarball straight from its cache; without an address it
    // first asks the registry for the package's metadata, which the cache is not sure to hold.
    if (copy.resolved === undefined)
      copy.resolved = registryTarball(registry, entry.name ?? nameAt(path), entry.version);
    packages[path] = production.has(path) ? copy : { ...copy, dev: true };
  }
  return { name: options.name, lockfileVersion: 3, requires: true, packages };
}

/** The lockfile entry of a package installed from a tarball file. */
function tarballEntry(tarball: LocalTarball): LockEntry {
  return {
    version: tarball.version,
    resolved: `file:${tarball.path}`,
    integrity: tarball.integrity,
    ...(tarball.dependencies ? { dependencies: tarball.dependencies } : {}),
    ...(tarball.peerDependencies ? { peerDependencies: tarball.peerDependencies } : {}),
  };
}

/** The package name installed at a lockfile path: what follows its last `node_modules/`. */
export function nameAt(path: string): string {
  return path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
}

/** The address a registry serves a version's tarball at, e.g. `<registry>@scope/name/-/name-1.0.0.tgz`. */
function registryTarball(registry: string, name: string, version: string | undefined): string {
  if (version === undefined) throw new Error(`The workspace lockfile gives no version for ${name}`);
  const base = registry.endsWith("/") ? registry : `${registry}/`;
  return `${base}${name}/-/${name.slice(name.lastIndexOf("/") + 1)}-${version}.tgz`;
}

/** The dependencies an installed package needs, each with whether it may be absent. */
function* dependenciesOf(entry: LockEntry): Generator<[name: string, optional: boolean]> {
  for (const name of Object.keys(entry.dependencies ?? {})) yield [name, false];
  for (const name of Object.keys(entry.optionalDependencies ?? {})) yield [name, true];
  // Optional peers are not installed for the dependent (npm leaves them to the consumer), so they are not followed.
  for (const name of Object.keys(entry.peerDependencies ?? {})) {
    if (!entry.peerDependenciesMeta?.[name]?.optional) yield [name, false];
  }
}

/** The range `entry` declares for `dependency`, for error messages. */
function requiredRange(entry: LockEntry, dependency: string): string {
  return entry.dependencies?.[dependency] ?? entry.peerDependencies?.[dependency] ?? "*";
}

/** The folders Node searches from `path` (a lockfile path), nearest first, each ending in `/` (the root is `""`). */
function* ancestors(path: string): Generator<string> {
  let current = path;
  while (current !== "") {
    yield `${current}/`;
    const parent = current.lastIndexOf("/node_modules/");
    current = parent < 0 ? "" : current.slice(0, parent);
  }
  yield "";
}
