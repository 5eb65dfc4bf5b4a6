import { createHash } from "node:crypto";

/** The paths of a body that hold credentials: never on disk with the record, never in its identity. */
export const credentialPaths: readonly (readonly string[])[] = Object.freeze([
  ["model", "token"],
  ["repo", "token"],
]);

function withoutPath(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0 || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (!(head in (value as Record<string, unknown>))) return value;
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0) delete copy[head];
  else copy[head] = withoutPath(copy[head], rest);
  return copy;
}

/** The body with every credential value left out (what `job.json` keeps). */
export function bodyWithoutCredentials<Body>(body: Body): Body {
  let stripped: unknown = body;
  for (const path of credentialPaths) stripped = withoutPath(stripped, path);
  return stripped as Body;
}

/** The credential values of a body, for the job's redactor. */
export function credentialsOf(body: unknown): string[] {
  const found: string[] = [];
  for (const path of credentialPaths) {
    let value: unknown = body;
    for (const key of path)
      value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
    if (typeof value === "string" && value.length > 0) found.push(value);
  }
  return found;
}

/** JSON with every object's keys sorted, so equal values have one text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, entry]) => entry !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(",")}}`;
}

/**
 * A job body's identity: the SHA-256 of its canonical JSON without credential values and with
 * its route, so a replay with a refreshed token is the same job and the same body on another
 * route is not.
 */
export function jobIdentity(route: string, body: unknown): string {
  return createHash("sha256")
    .update(canonicalJson({ route, body: bodyWithoutCredentials(body) }))
    .digest("hex");
}
