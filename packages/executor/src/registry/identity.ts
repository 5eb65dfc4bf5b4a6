import { createHash } from "node:crypto";

/**
 * The paths of a body that hold credentials: never on disk with the record, never in its
 * identity. `*` stands for every element of an array.
 */
export const credentialPaths: readonly (readonly string[])[] = Object.freeze([
  ["model", "token"],
  ["repo", "token"],
  ["artifactUpload", "token"],
  ["packageRegistries", "*", "token"],
  ["referenceScreenshots", "token"],
  ["designImages", "token"],
  ["reference", "token"],
]);

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

/** The map an MCP server's `secretKeys` name keys of: `env` (stdio) or `headers` (http). */
function secretMapOf(server: Json): Json | undefined {
  const map = server.transport === "http" ? server.headers : server.env;
  return isObject(map) ? map : undefined;
}

/** The MCP servers with the values their `secretKeys` name left out (the rest of `env` and `headers` stays). */
function withoutMcpSecrets(body: unknown): unknown {
  if (!isObject(body) || !Array.isArray(body.mcpServers)) return body;
  return {
    ...body,
    mcpServers: body.mcpServers.map((server: unknown) => {
      if (!isObject(server) || !Array.isArray(server.secretKeys)) return server;
      const secretKeys: unknown[] = server.secretKeys;
      const map = secretMapOf(server);
      if (!map) return server;
      const key = server.transport === "http" ? "headers" : "env";
      const kept = Object.fromEntries(Object.entries(map).filter(([name]) => !secretKeys.includes(name)));
      return { ...server, [key]: kept };
    }),
  };
}

/** The body with every credential value left out (what `job.json` keeps). */
export function bodyWithoutCredentials<Body>(body: Body): Body {
  let stripped: unknown = withoutMcpSecrets(body);
  for (const path of credentialPaths) stripped = withoutPath(stripped, path);
  return stripped as Body;
}

/** The credential values of a body, for the job's redactor: every token, and each value an MCP server's `secretKeys` names. */
export function credentialsOf(body: unknown): string[] {
  const found: string[] = [];
  for (const path of credentialPaths) {
    for (const value of valuesAt(body, path)) if (typeof value === "string" && value.length > 0) found.push(value);
  }
  if (isObject(body) && Array.isArray(body.mcpServers)) {
    for (const server of body.mcpServers) {
      if (!isObject(server) || !Array.isArray(server.secretKeys)) continue;
      const map = secretMapOf(server);
      for (const name of server.secretKeys) {
        const value = typeof name === "string" ? map?.[name] : undefined;
        if (typeof value === "string" && value.length > 0) found.push(value);
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
export function jobIdentity(route: string, body: unknown): string {
  return createHash("sha256")
    .update(canonicalJson({ route, body: bodyWithoutCredentials(body) }))
    .digest("hex");
}
