import { defineTool, type Tool } from "@castellan/harness";
import type { BrowserOwner } from "./browser-owner.js";
import { BrowserToolError } from "./errors.js";
import { findLine, observationPage } from "./observation-pages.js";
import type { StoredObservation } from "./observation-store.js";
import { browserToolSchemas } from "./schemas.js";
import type { SessionBrowser } from "./session-browser.js";
import { admitted, browserFor, invalidInput, observe, pageAdmission, pageBytes, perform } from "./tool-support.js";

/** The input of `browser_snapshot`: nothing, a continuation (both fields), or `query` alone. */
export interface BrowserSnapshotInput {
  /** A continuation's observation id, with `offset`. Default: observe the page again. */
  readonly observationId?: string;
  /** A continuation's byte offset (an integer from 0), with `observationId`. */
  readonly offset?: number;
  /** Alone: 1-256 characters searched case-insensitively and literally in the latest observation. */
  readonly query?: string;
}

type SnapshotRequest =
  | { readonly kind: "observe" }
  | { readonly kind: "page"; readonly observationId: string; readonly offset: number }
  | { readonly kind: "query"; readonly query: string };

function requestOf(input: BrowserSnapshotInput): SnapshotRequest {
  const { observationId, offset, query } = input;
  if (query !== undefined) {
    if (observationId !== undefined || offset !== undefined) {
      throw invalidInput(
        "query is given alone, without observationId or offset; call browser_snapshot again with query only.",
      );
    }
    return { kind: "query", query };
  }
  if (observationId === undefined && offset === undefined) return { kind: "observe" };
  if (observationId === undefined || offset === undefined) {
    throw invalidInput(
      "observationId and offset are given together, exactly as a continuation shows them; or call browser_snapshot with no arguments.",
    );
  }
  return { kind: "page", observationId, offset };
}

function staleError(): BrowserToolError {
  return new BrowserToolError(
    "browser_continuation_stale",
    "That observation is no longer the latest (a browser action ended it); call browser_snapshot with no arguments to observe the page again.",
  );
}

function latestFor(state: SessionBrowser, request: SnapshotRequest): StoredObservation {
  const latest = state.latest;
  if (!latest || (request.kind === "page" && request.observationId !== latest.observationId)) throw staleError();
  if (request.kind === "page" && request.offset > latest.bytes.length) {
    throw invalidInput(
      `offset ${request.offset} is past the observation's ${latest.bytes.length} bytes; use the offset a continuation gives.`,
    );
  }
  return latest;
}

function queryResult(owner: BrowserOwner, latest: StoredObservation, query: string): string {
  const match = findLine(latest, query);
  if (!match) {
    return `No line of observation ${latest.observationId} contains ${JSON.stringify(query)} (case-insensitive). Page with its continuation or call browser_snapshot with no arguments to observe again.`;
  }
  const heading = `First match in observation ${latest.observationId}, line ${match.line} (byte ${match.offset} of ${latest.bytes.length}):`;
  return observationPage(latest, match.offset, pageBytes(owner), heading);
}

/** `browser_snapshot`: observes the page again, or reads the latest observation by continuation or query. */
export function snapshotTool(owner: BrowserOwner): Tool<BrowserSnapshotInput> {
  return defineTool<BrowserSnapshotInput>({
    name: "browser_snapshot",
    description:
      "With no arguments: observe the active page again (URL, title, tabs, viewport, focus, ARIA snapshot with refs). With observationId and offset from a continuation: the next slice of that same observation. With query alone: the first line of the latest observation containing it (case-insensitive) and what follows. Paging and query do not refresh the page or its refs.",
    inputSchema: browserToolSchemas.browser_snapshot,
    admit(input, ctx) {
      const request = requestOf(input);
      const admission = pageAdmission(owner, ctx);
      if (request.kind !== "observe") latestFor(owner.session(ctx.sessionId), request);
      return admitted(admission);
    },
    execute: (input, ctx) =>
      perform(owner, ctx, async (state) => {
        const request = requestOf(input);
        if (request.kind === "page")
          return observationPage(latestFor(state, request), request.offset, pageBytes(owner));
        if (request.kind === "query") return queryResult(owner, latestFor(state, request), request.query);
        const browser = await browserFor(owner, state, ctx.signal);
        return await observe(owner, state, () => browser.observe({ signal: ctx.signal }));
      }),
  });
}
