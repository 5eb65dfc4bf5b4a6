import type { WorkspaceRoot } from "../../../platform/paths/root.js";
import { type GuidanceSource, readGuidanceSource } from "./guidance-source.js";

/** One source of a Run's guidance, and whether a model request has carried it yet. */
interface Entry {
  readonly source: GuidanceSource;
  /** The directory (workspace path segments joined by `/`; "" for the root) the source governs. */
  readonly scope: string;
  delivered: boolean;
}

/**
 * The guidance of one Run: every source read so far, each read once and frozen for the Run,
 * root first, then in the order tool calls discovered them. Budget: `maxBytes` of text over
 * the whole Run; the source that crosses it is cut, and later ones are omitted (read for
 * their hash and size only).
 */
export class RunGuidance {
  private readonly entries: Entry[] = [];
  /** Directories already looked in this Run ("" for the root), with the read in flight. */
  private readonly looked = new Map<string, Promise<void>>();
  private used = 0;
  /** Reads run one at a time, so the budget each is given accounts for every earlier one. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly root: WorkspaceRoot,
    private readonly maxBytes: number,
  ) {}

  /**
   * Looks for guidance in every directory from the root down to `directory` (segments) not
   * looked in yet this Run. Sources found are pending until a request carries them.
   */
  async discover(directory: readonly string[]): Promise<void> {
    for (let depth = 0; depth <= directory.length; depth++) {
      const segments = directory.slice(0, depth);
      const scope = segments.join("/");
      let looking = this.looked.get(scope);
      if (!looking) {
        looking = this.queue.then(() => this.read(segments, scope));
        this.queue = looking.catch(() => undefined);
        this.looked.set(scope, looking);
      }
      await looking;
    }
  }

  /** Workspace paths of the sources governing `directory` that no model request has carried yet. */
  pendingFor(directory: readonly string[]): string[] {
    return this.governing(directory)
      .filter((entry) => !entry.delivered)
      .map((entry) => entry.source.path);
  }

  /** The sources governing `directory`, root first: what a reviewer of a file there is given. */
  sourcesFor(directory: readonly string[]): GuidanceSource[] {
    return this.governing(directory).map((entry) => entry.source);
  }

  /**
   * Every source, in order, for the request about to be sent; marks them carried and returns
   * those carried for the first time, for the host's `record` callback.
   */
  deliver(): { readonly all: readonly GuidanceSource[]; readonly fresh: readonly GuidanceSource[] } {
    const fresh: GuidanceSource[] = [];
    for (const entry of this.entries) {
      if (entry.delivered) continue;
      entry.delivered = true;
      fresh.push(entry.source);
    }
    return { all: this.entries.map((entry) => entry.source), fresh };
  }

  private governing(directory: readonly string[]): Entry[] {
    const scopes = new Set<string>();
    for (let depth = 0; depth <= directory.length; depth++) scopes.add(directory.slice(0, depth).join("/"));
    return this.entries.filter((entry) => scopes.has(entry.scope));
  }

  private async read(segments: readonly string[], scope: string): Promise<void> {
    const source = await readGuidanceSource(this.root, segments, Math.max(0, this.maxBytes - this.used));
    if (!source) return;
    if (source.status === "read") this.used += source.includedBytes;
    // The root's guidance comes first whatever order the reads finished in.
    const entry: Entry = { source, scope, delivered: false };
    if (scope === "") this.entries.unshift(entry);
    else this.entries.push(entry);
  }
}
