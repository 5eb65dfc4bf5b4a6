import type { JsonObject } from "@castellan/harness";
import type { SessionRecord } from "./records.js";
import type { SessionStore } from "./types.js";

/** What a catalog says of one saved Session, without opening it. */
export interface SessionSummary {
  readonly sessionId: string;
  /** The agent whose history it is (its `session-open` record). */
  readonly agentId: string;
  /** The params it was opened with. */
  readonly params: JsonObject;
  /** When its first record was saved (ISO 8601). */
  readonly createdAt: string;
  /** When its last readable record was saved (ISO 8601). */
  readonly updatedAt: string;
  /** True while a writer (in this or another live process) holds it open. */
  readonly locked: boolean;
}

/**
 * A store's read-only view of what it holds, for viewers (`castellan sessions`, the web
 * console): neither method takes the writer lock or writes anything, so a Session that is
 * open elsewhere can be listed and read while it runs.
 */
export interface SessionCatalog {
  /** Every Session with a readable first record, newest `updatedAt` first. */
  list(options?: { readonly signal?: AbortSignal }): Promise<SessionSummary[]>;
  /**
   * A Session's records, oldest first, up to its first torn or invalid one (which is left as
   * it is, for its writer to judge). A Session never saved has none.
   */
  read(sessionId: string, options?: { readonly signal?: AbortSignal }): Promise<SessionRecord[]>;
}

/** True when `store` also offers the {@link SessionCatalog} methods (the file and memory stores do). */
export function isSessionCatalog(store: SessionStore): store is SessionStore & SessionCatalog {
  const candidate = store as Partial<SessionCatalog>;
  return typeof candidate.list === "function" && typeof candidate.read === "function";
}

/** Newest first, then by id so equal times keep one order. */
export function byNewest(a: SessionSummary, b: SessionSummary): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}
