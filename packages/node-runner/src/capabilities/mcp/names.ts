import { createHash } from "node:crypto";

/**
 * The Castellan name of a server's tool: `mcp__<server>__<tool>`, characters outside
 * `[A-Za-z0-9_-]` as `_`; over 64 characters, the first 55, `_`, and the first 8 hex digits of
 * the SHA-256 of the unsanitized name.
 */
export function mcpToolName(serverName: string, toolName: string): string {
  const raw = `mcp__${serverName}__${toolName}`;
  const sanitized = raw.replace(/[^A-Za-z0-9_-]/g, "_");
  if (sanitized.length <= 64) return sanitized;
  return `${sanitized.slice(0, 55)}_${createHash("sha256").update(raw).digest("hex").slice(0, 8)}`;
}
