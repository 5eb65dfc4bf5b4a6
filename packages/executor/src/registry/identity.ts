import { createHash } from "node:crypto";
import type { CredentialFields } from "./credential-fields.js";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

function withoutPath(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (head === "*") return Array.isArray(value) ? value.map((entry) => withoutPath(entry, rest)) : value;
  if (!isObject(value) || !(head in value)) return value;
  const copy = { ...value };
  if (rest.length === 0) delete copy[head];
  else copy[head] = withoutPath(copy[head], rest);
  return copy;
}

function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  if (path.length === 0) return [value];
  const [head, ...rest] = path as [string, ...string[]];
  if (head === "*") return Array.isArray(value) ? value.flatMap((entry) => valuesAt(entry, rest)) : [];
  return isObject(value) ? valuesAt(value[head], rest) : [];
}

/** The map a node's `secretKeys` name entries of: `env` or `headers`, whichever it has. */
const entryMaps = ["env", "headers"] as const;

/** The node with the entries its `secretKeys` name left out of `env` and `headers` (the other entries stay). */
function withoutNamedEntries(node: unknown): unknown {
  if (!isObject(node) || !Array.isArray(node.secretKeys)) return node;
  const secretKeys: unknown[] = node.secretKeys;
  const copy = { ...node };
  for (const key of entryMaps) {
    const map = copy[key];
    if (!isObject(map)) continue;
    copy[key] = Object.fromEntries(Object.entries(map).filter(([name]) => !secretKeys.includes(name)));
  }
  return copy;
}

/** Applies `change` to every node at `path` (`*` is every element of an array), copying what it changes. */
function mapAt(value: unknown, path: readonly string[], change: (node: unknown) => unknown): unknown {
  if (path.length === 0) return change(value);
  const [head, ...rest] = path as [string, ...string[]];
  if (head === "*") return Array.isArray(value) ? value.map((entry) => mapAt(entry, rest, change)) : value;
  if (!isObject(value) || !(head in value)) return value;
  return { ...value, [head]: mapAt(value[head], rest, change) };
}

/**
 * The body with every credential value its schema marks left out (what `job.json` keeps): a
 * marked value goes, and so does each `env` / `headers` entry a marked node's `secretKeys` names.
 */
export function bodyWithoutCredentials<Body>(body: Body, fields: CredentialFields): Body {
  let stripped: unknown = body;
  for (const { path, mark } of fields) {
    stripped = mark.kind === "value" ? withoutPath(stripped, path) : mapAt(stripped, path, withoutNamedEntries);
  }
  return stripped as Body;
}

/** The credential values of a body, for the job's redactor: every marked value, and each entry a `secretKeys` names. */
export function credentialsOf(body: unknown, fields: CredentialFields): string[] {
  const found: string[] = [];
  const keep = (value: unknown) => {
    if (typeof value === "string" && value.length > 0) found.push(value);
  };
  for (const { path, mark } of fields) {
    for (const node of valuesAt(body, path)) {
      if (mark.kind === "value") {
        keep(node);
        continue;
      }
      if (!isObject(node) || !Array.isArray(node.secretKeys)) continue;
      for (const key of entryMaps) {
        const map = node[key];
        if (!isObject(map)) continue;
        for (const name of node.secretKeys) if (typeof name === "string" && Object.hasOwn(map, name)) keep(map[name]);
      }
    }
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
export function jobIdentity(route: string, body: unknown, fields: CredentialFields): string {
  return createHash("sha256")
    .update(canonicalJson({ route, body: bodyWithoutCredentials(body, fields) }))
    .digest("hex");
}
