import { errorMessage } from "@castellan/harness";
import type { z } from "zod";
import { readSentinelText } from "./read-sentinel.js";

/** A JSON sentinel's value, or why there is none. */
export type JsonSentinelReading<Value> =
  | { readonly state: "absent" }
  | { readonly state: "read"; readonly value: Value }
  | { readonly state: "invalid"; readonly note: string };

/** The most characters of a note about a malformed sentinel, so the agent's keys cannot bloat the result. */
const maxNoteChars = 600;
/** The most schema problems a note names. */
const maxNamedIssues = 3;

/**
 * Sentinel `name` at the root of `checkout`, parsed as JSON and checked against `schema`. A
 * symlink, a file over 1 MiB, text that is not UTF-8 or not JSON, and a value the schema
 * refuses are all `invalid`, with a note naming the file and the first problems. Never rejects.
 */
export async function readJsonSentinel<Schema extends z.ZodType>(
  checkout: string,
  name: string,
  schema: Schema,
): Promise<JsonSentinelReading<z.output<Schema>>> {
  const file = await readSentinelText(checkout, name);
  if (file.state !== "read") return file;
  let json: unknown;
  try {
    json = JSON.parse(file.text);
  } catch (error) {
    return invalid(name, `is not JSON (${errorMessage(error)})`);
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { state: "read", value: parsed.data };
  const issues = parsed.error.issues;
  const named = issues
    .slice(0, maxNamedIssues)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "the top level"}: ${issue.message}`);
  const more = issues.length > maxNamedIssues ? `; and ${issues.length - maxNamedIssues} more` : "";
  return invalid(name, `does not have the expected shape (${named.join("; ")}${more})`);
}

function invalid(name: string, why: string): { readonly state: "invalid"; readonly note: string } {
  const note = `\`${name}\` ${why}; it was ignored.`;
  return { state: "invalid", note: note.length > maxNoteChars ? `${note.slice(0, maxNoteChars - 1)}…` : note };
}
