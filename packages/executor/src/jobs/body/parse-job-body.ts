import type { z } from "zod";
import { type ExecutorErrorField, ExecutorRequestError } from "../../errors/errors.js";

/** Kinds of the protocol this server does not run. */
const unsupportedKinds: ReadonlySet<string> = new Set(["mocker", "playwright"]);

/** Fields of the protocol that are out of this server's scope. */
export const outOfScopeFields: readonly string[] = Object.freeze([
  "generateImages",
  "ambientAuth",
  "infra",
  "repos",
  "secrets",
  "contextDocuments",
]);

function pathOf(path: readonly PropertyKey[]): string {
  return (
    path
      .map((part) => (typeof part === "number" ? `[${part}]` : String(part)))
      .join(".")
      .replace(/\.\[/g, "[") || "(body)"
  );
}

/**
 * Checks a parsed body against a kind's schema: the protocol's refusals first (an unsupported kind, a field out of
 * this server's scope, an unknown top-level field), then the schema. Messages and `fields`
 * name paths and rules, never a submitted value.
 */
export function parseJobBody<Body>(body: unknown, schema: z.ZodType<Body>, servedKinds: readonly string[]): Body {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ExecutorRequestError("executor_invalid_body", "The body must be a JSON object.");
  }
  const record = body as Record<string, unknown>;
  if (typeof record.kind === "string" && unsupportedKinds.has(record.kind)) {
    throw new ExecutorRequestError(
      "executor_unsupported_kind",
      `Kind "${record.kind}" is not served by this executor; it runs ${servedKinds.join(", ")}.`,
    );
  }
  const unserved = Object.keys(record).filter((key) => outOfScopeFields.includes(key));
  if (unserved.length > 0) {
    throw new ExecutorRequestError(
      "executor_unsupported_field",
      `This executor does not serve ${unserved.join(", ")}.`,
      unserved.map((path) => ({ path, message: "not served by this executor" })),
    );
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const unknown: ExecutorErrorField[] = [];
  const invalid: ExecutorErrorField[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) unknown.push({ path: pathOf([...issue.path, key]), message: "unknown field" });
    } else {
      invalid.push({ path: pathOf(issue.path), message: issue.message });
    }
  }
  if (unknown.length > 0) {
    throw new ExecutorRequestError(
      "executor_unknown_fields",
      `Unknown field${unknown.length > 1 ? "s" : ""}: ${unknown.map((field) => field.path).join(", ")}.`,
      unknown,
    );
  }
  throw new ExecutorRequestError(
    "executor_invalid_body",
    `The body is not a valid job: ${invalid.map((field) => field.path).join(", ")}.`,
    invalid,
  );
}
