import type { Tool } from "@castellan/harness";

// Where a tool found at acquisition came from, in words (`server "docs", tool "read.file"`), so
// a name clash after mapping can name both originals. Internal.
const origins = new WeakMap<Tool, string>();

/** Records where `tool` came from. */
export function withToolOrigin<T extends Tool>(tool: T, origin: string): T {
  origins.set(tool, origin);
  return tool;
}

/** Where `tool` came from, if recorded. */
export function toolOriginOf(tool: unknown): string | undefined {
  return typeof tool === "object" && tool !== null ? origins.get(tool as Tool) : undefined;
}
