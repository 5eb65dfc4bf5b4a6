import { ToolInputError } from "@castellan/harness";

/**
 * An opaque continuation: what a page's `nextOffset` holds and a later call passes back as
 * `offset`. It is base64url JSON naming the tool and the call it continues, so a cursor is
 * refused (`offset_invalid`) by another tool, another path or other options.
 */
export function encodeCursor(tool: string, call: Readonly<Record<string, unknown>>, position: unknown): string {
  return Buffer.from(JSON.stringify({ v: 1, tool, call, position }), "utf8").toString("base64url");
}

/** The position of a cursor made by {@link encodeCursor} for the same tool and call; `offset_invalid` otherwise. */
export function decodeCursor(cursor: string, tool: string, call: Readonly<Record<string, unknown>>): unknown {
  let decoded: { v?: unknown; tool?: unknown; call?: unknown; position?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (
    decoded === null ||
    typeof decoded !== "object" ||
    decoded.v !== 1 ||
    decoded.tool !== tool ||
    JSON.stringify(decoded.call) !== JSON.stringify(call)
  ) {
    throw invalid();
  }
  return decoded.position;
}

function invalid(): ToolInputError {
  return new ToolInputError(
    "offset_invalid",
    "This offset is not a nextOffset this tool returned for the same path and options. Pass a page's nextOffset unchanged with the same other arguments, or omit offset to start again.",
  );
}
