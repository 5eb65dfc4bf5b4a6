import { type AgentIdentity, DeclarationError, type Enabled, type JsonObject } from "@castellan/harness";
import type { ParentToolCall } from "../../kernel/permissions/types.js";
import { type EnvironmentPolicy, resolveEnvironmentPolicy } from "../../platform/environment/environment-policy.js";
import { checkServerUrl } from "./url.js";

/** A value given now, or a function of the Session's params evaluated at each open. */
export type FromParams<T> = T | ((params: JsonObject) => T);

/** The server's environment: the command modules' policy; `set` may come from params. Default `{ inherit: "core" }`. */
export type McpEnvironment = Omit<EnvironmentPolicy, "set"> & {
  readonly set?: FromParams<Readonly<Record<string, string>>>;
};

/** A server Castellan spawns and talks to over its stdin and stdout. */
export interface McpStdioOptions {
  readonly transport: "stdio";
  /** The program (no shell): an absolute path or a name in PATH. */
  readonly command: FromParams<string>;
  readonly args?: FromParams<readonly string[]>;
  /** Its working directory. Default: the host's. */
  readonly cwd?: FromParams<string | URL>;
  readonly environment?: McpEnvironment;
}

/** A server reached over Streamable HTTP (`https:`, or `http:` on loopback). */
export interface McpHttpOptions {
  readonly transport: "http";
  readonly url: FromParams<string | URL>;
  readonly headers?: FromParams<Readonly<Record<string, string>>>;
}

/** What an elicitation handler is asked: the server's question and the call it came during. */
export interface McpElicitationRequest {
  readonly serverName: string;
  readonly message: string;
  readonly requestedSchema: JsonObject;
  readonly sessionId: string;
  readonly runId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly agent: AgentIdentity;
  readonly parent?: ParentToolCall;
}

/** The answer to an elicitation. */
export interface McpElicitationAnswer {
  readonly action: "accept" | "decline" | "cancel";
  readonly content?: Readonly<Record<string, unknown>>;
}

/** Answers a server's elicitation requests; without one, elicitation is not advertised. */
export type McpElicitationHandler = (
  request: McpElicitationRequest,
  options: { readonly signal: AbortSignal },
) => McpElicitationAnswer | Promise<McpElicitationAnswer>;

/** Options of `mcp()` besides the transport. */
export interface McpCommonOptions {
  /** 1-32 of `[A-Za-z0-9_-]`; the capability is `mcp:<serverName>` and its tools `mcp__<serverName>__<tool>`. */
  readonly serverName: string;
  /** Only these server tools (each must exist). Default: the whole catalog. */
  readonly tools?: readonly string[];
  /** Exposed tools the application declares read-only (the server's annotations never do). Default none. */
  readonly readOnlyTools?: readonly string[];
  /** Hides the server's tools for a turn. Default true. */
  readonly enabled?: Enabled;
  /** Names of `environment.set` and `headers` entries that are credentials: their values show as `[redacted]`. Default none. */
  readonly secretKeys?: readonly string[];
  readonly elicitation?: McpElicitationHandler;
  /** Starting the server and listing its catalog. Default 30,000 ms; 1 to 600,000. */
  readonly startupTimeoutMs?: number;
  /** One call, restarted by each progress notification. Default 120,000 ms; 1 to `maxCallMs`. */
  readonly callTimeoutMs?: number;
  /** One call in all, progress or not. Default 600,000 ms; 1 to 86,400,000. */
  readonly maxCallMs?: number;
  /** Text of one result kept, in bytes. Default 65,536; 1,024 to 16,777,216. */
  readonly maxResultBytes?: number;
  /** Largest image returned as an image. Default 2,097,152; 1 to 16,777,216. */
  readonly maxImageBytes?: number;
}

/** Options of `mcp()`. */
export type McpOptions = McpCommonOptions & (McpStdioOptions | McpHttpOptions);

/** The options checked, defaults applied; params-derived values are still functions. */
export interface ResolvedMcpOptions {
  readonly serverName: string;
  readonly transport: McpStdioOptions | McpHttpOptions;
  readonly tools: readonly string[] | undefined;
  readonly readOnlyTools: readonly string[];
  readonly enabled: Enabled | undefined;
  readonly secretKeys: readonly string[];
  readonly elicitation: McpElicitationHandler | undefined;
  readonly startupTimeoutMs: number;
  readonly callTimeoutMs: number;
  readonly maxCallMs: number;
  readonly maxResultBytes: number;
  readonly maxImageBytes: number;
}

const common = [
  "serverName",
  "tools",
  "readOnlyTools",
  "enabled",
  "secretKeys",
  "elicitation",
  "startupTimeoutMs",
  "callTimeoutMs",
  "maxCallMs",
  "maxResultBytes",
  "maxImageBytes",
];
const stdioKeys = ["transport", "command", "args", "cwd", "environment"];
const httpKeys = ["transport", "url", "headers"];

function integer(value: unknown, field: string, fallback: number, min: number, max: number, where: string): number {
  const given = value ?? fallback;
  if (typeof given !== "number" || !Number.isInteger(given) || given < min || given > max) {
    throw new DeclarationError(
      `${where}: ${field} must be an integer from ${min.toLocaleString("en")} to ${max.toLocaleString("en")}.`,
    );
  }
  return given;
}

function names(value: unknown, field: string, where: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string" && name !== "")) {
    throw new DeclarationError(`${where}: ${field} must be an array of names.`);
  }
  return Object.freeze([...value]);
}

/** Resolves a params-derived value for one Session. */
export function fromParams<T>(value: FromParams<T>, params: JsonObject): T {
  return typeof value === "function" ? (value as (params: JsonObject) => T)(params) : value;
}

/** Checks that every secret key names an `environment.set` or `headers` entry. */
export function checkSecretKeys(secretKeys: readonly string[], entries: readonly string[], where: string): void {
  for (const key of secretKeys) {
    if (!entries.includes(key)) {
      throw new DeclarationError(`${where}: secretKeys names "${key}", which is no environment.set or headers entry.`);
    }
  }
}

/**
 * Checks `mcp()`'s options: what is given now is checked now (a refused URL, a `set` of a
 * never-passed name, a secret key naming nothing); what comes from params is checked at open.
 *
 * @throws DeclarationError, McpUrlRefusedError (`mcp_url_refused`), EnvironmentPolicyError (`environment_invalid`).
 */
export function resolveMcpOptions(options: McpOptions): ResolvedMcpOptions {
  const where = "mcp";
  if (options === null || typeof options !== "object") throw new DeclarationError(`${where}: options are required.`);
  const serverName = options.serverName;
  if (typeof serverName !== "string" || !/^[A-Za-z0-9_-]{1,32}$/.test(serverName)) {
    throw new DeclarationError(`${where}: serverName must be 1-32 letters, digits, "_" or "-".`);
  }
  const at = `mcp "${serverName}"`;
  const allowed = [...common, ...(options.transport === "http" ? httpKeys : stdioKeys)];
  if (options.transport !== "stdio" && options.transport !== "http") {
    throw new DeclarationError(`${at}: transport must be "stdio" or "http".`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key))
      throw new DeclarationError(`${at}: ${key} is not an option of the ${options.transport} transport.`);
  }
  const secretKeys = names(options.secretKeys, "secretKeys", at) ?? [];
  if (options.transport === "stdio") {
    if (typeof options.command !== "function" && (typeof options.command !== "string" || options.command === "")) {
      throw new DeclarationError(`${at}: command must be a program name or path.`);
    }
    const environment = options.environment ?? { inherit: "core" };
    const set = environment.set;
    // A fixed policy is checked now; one whose set comes from params, at each open.
    if (typeof set !== "function") resolveEnvironmentPolicy(environment as EnvironmentPolicy, `${at}: environment`);
    else resolveEnvironmentPolicy({ ...environment, set: {} }, `${at}: environment`);
    if (typeof set !== "function") checkSecretKeys(secretKeys, Object.keys(set ?? {}), at);
  } else {
    if (typeof options.url !== "function") checkServerUrl(options.url);
    const headers = options.headers;
    if (typeof headers !== "function") checkSecretKeys(secretKeys, Object.keys(headers ?? {}), at);
  }
  if (options.elicitation !== undefined && typeof options.elicitation !== "function") {
    throw new DeclarationError(`${at}: elicitation must be a function.`);
  }
  const maxCallMs = integer(options.maxCallMs, "maxCallMs", 600_000, 1, 86_400_000, at);
  const { transport, command, args, cwd, environment, url, headers } = options as McpOptions & Record<string, never>;
  const transportOptions =
    transport === "stdio"
      ? Object.freeze({
          transport,
          command,
          ...(args ? { args } : {}),
          ...(cwd ? { cwd } : {}),
          environment: environment ?? { inherit: "core" },
        })
      : Object.freeze({ transport, url, ...(headers ? { headers } : {}) });
  return Object.freeze({
    serverName,
    transport: transportOptions as McpStdioOptions | McpHttpOptions,
    tools: names(options.tools, "tools", at),
    readOnlyTools: names(options.readOnlyTools, "readOnlyTools", at) ?? [],
    enabled: options.enabled,
    secretKeys,
    elicitation: options.elicitation,
    startupTimeoutMs: integer(options.startupTimeoutMs, "startupTimeoutMs", 30_000, 1, 600_000, at),
    callTimeoutMs: integer(options.callTimeoutMs, "callTimeoutMs", 120_000, 1, maxCallMs, at),
    maxCallMs,
    maxResultBytes: integer(options.maxResultBytes, "maxResultBytes", 65_536, 1_024, 16_777_216, at),
    maxImageBytes: integer(options.maxImageBytes, "maxImageBytes", 2_097_152, 1, 16_777_216, at),
  });
}
