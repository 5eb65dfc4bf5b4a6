import { fileURLToPath } from "node:url";
import {
  createRedactor,
  errorMessage,
  type JsonObject,
  type Redactor,
  type ToolContext,
  type ToolResult,
} from "@castellan/harness";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadInputValidation, validateAgainst } from "../../kernel/tools/validate-input.js";
import { resolveEnvironmentPolicy } from "../../platform/environment/environment-policy.js";
import { McpCatalogTooLargeError, McpStartError } from "./errors.js";
import {
  checkSecretKeys,
  fromParams,
  type McpElicitationAnswer,
  type McpHttpOptions,
  type McpStdioOptions,
  type ResolvedMcpOptions,
} from "./options.js";
import { convertResult } from "./results.js";
import { loadMcpSdk, mcpSdk } from "./sdk.js";
import { StdioServerProcess } from "./stdio-process.js";
import { checkServerUrl } from "./url.js";

/** A tool as the server listed it. */
export interface McpCatalogTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: JsonObject;
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/** Most catalog pages and tools read. */
export const catalogLimits = { pages: 100, tools: 1_000 } as const;
/** Bytes of stderr a start failure shows. */
const startFailureStderrBytes = 4_096;

/** The call a server request (elicitation) belongs to. */
type CallScope = Pick<ToolContext, "sessionId" | "runId" | "toolCallId" | "toolName" | "agent" | "signal">;

function lastBytes(text: string, bytes: number): string {
  const buffer = Buffer.from(text, "utf8");
  return buffer.length <= bytes ? text : buffer.subarray(buffer.length - bytes).toString("utf8");
}

/**
 * The secrets of one credential header: its whole value and, for `<scheme> <credentials>`
 * (`Bearer abc`), the credentials alone, which a server may echo without the scheme.
 */
function headerSecrets(value: string): string[] {
  const credentials = /^[A-Za-z][A-Za-z0-9._~+-]*\s+(\S.*)$/.exec(value)?.[1];
  return credentials ? [value, credentials] : [value];
}

/** A tool call's failure, as the error result the model reads. */
function failure(code: string, message: string): ToolResult {
  return { content: [{ type: "text", text: `${code}: ${message}` }], isError: true };
}

/**
 * One Session's connection to one MCP server: started at open (its catalog listed within
 * `startupTimeoutMs`), one client carrying every call, closed with the Session. A server that
 * dies is not restarted: its calls then fail with `mcp_server_unavailable` until the next open.
 */
export class McpConnection {
  readonly catalog: readonly McpCatalogTool[];
  readonly redactor: Redactor;
  readonly #options: ResolvedMcpOptions;
  readonly #client: Client;
  readonly #stdio: StdioServerProcess | undefined;
  readonly #http: StreamableHTTPClientTransport | undefined;
  readonly #calls = new Set<CallScope>();
  #lost: string | undefined;
  #closing: Promise<void> | undefined;

  private constructor(
    options: ResolvedMcpOptions,
    client: Client,
    transport: { stdio?: StdioServerProcess; http?: StreamableHTTPClientTransport },
    catalog: readonly McpCatalogTool[],
    redactor: Redactor,
  ) {
    this.#options = options;
    this.#client = client;
    this.#stdio = transport.stdio;
    this.#http = transport.http;
    this.catalog = catalog;
    this.redactor = redactor;
    client.onclose = () => {
      const tooLarge = this.#stdio?.tooLarge;
      this.#lost ??= tooLarge
        ? `it sent a message over ${tooLarge.maxBytes} bytes and was stopped`
        : "the connection to the server closed";
    };
  }

  /**
   * Starts the server for one Session and lists its catalog.
   *
   * @throws McpStartError (`mcp_start_failed`), McpCatalogTooLargeError, McpUrlRefusedError, DeclarationError, EnvironmentPolicyError.
   */
  static async open(options: ResolvedMcpOptions, params: JsonObject, signal: AbortSignal): Promise<McpConnection> {
    const { serverName } = options;
    const at = `mcp "${serverName}"`;
    const { Client, StreamableHTTPClientTransport } = await loadMcpSdk();
    let stdio: StdioServerProcess | undefined;
    let http: StreamableHTTPClientTransport | undefined;
    let secrets: string[] = [];
    let commandText: string;
    if (options.transport.transport === "stdio") {
      const spec = options.transport as McpStdioOptions;
      const command = fromParams(spec.command, params);
      const args = [...fromParams(spec.args ?? [], params)];
      const cwdValue = spec.cwd === undefined ? undefined : fromParams(spec.cwd, params);
      const cwd =
        cwdValue === undefined
          ? undefined
          : cwdValue instanceof URL || cwdValue.startsWith("file:")
            ? fileURLToPath(cwdValue)
            : cwdValue;
      const environment = spec.environment ?? { inherit: "core" };
      const set = environment.set === undefined ? undefined : fromParams(environment.set, params);
      checkSecretKeys(options.secretKeys, Object.keys(set ?? {}), at);
      secrets = options.secretKeys.map((key) => set?.[key] ?? "");
      const { set: _declared, ...policy } = environment;
      const env = resolveEnvironmentPolicy(
        { ...policy, ...(set ? { set } : {}) },
        `${at}: environment`,
      ).environmentFor();
      stdio = new StdioServerProcess({ command, args, cwd, env, serverName });
      commandText = [command, ...args].join(" ");
    } else {
      const spec = options.transport as McpHttpOptions;
      const url = checkServerUrl(fromParams(spec.url, params));
      const headers = spec.headers === undefined ? {} : fromParams(spec.headers, params);
      checkSecretKeys(options.secretKeys, Object.keys(headers), at);
      secrets = options.secretKeys.flatMap((key) => headerSecrets(headers[key] ?? ""));
      http = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { ...headers } },
        // A redirect is never followed: the checked URL is the only one spoken to.
        fetch: (input, init) => fetch(input, { ...init, redirect: "error" }),
        reconnectionOptions: {
          initialReconnectionDelay: 1_000,
          maxReconnectionDelay: 30_000,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 5,
        },
      });
      commandText = url.href;
    }
    const redactor = createRedactor(secrets);
    const client = new Client(
      { name: "castellan", version: "0.1.0" },
      { capabilities: options.elicitation ? { elicitation: { form: {} } } : {} },
    );
    const transport = (stdio ?? http) as StdioServerProcess | StreamableHTTPClientTransport;
    const timeout = AbortSignal.timeout(options.startupTimeoutMs);
    const startSignal = AbortSignal.any([signal, timeout]);
    const fail = async (reason: string, cause: unknown): Promise<never> => {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      // Whatever the server answered may be in the cause (an HTTP server reflecting its Authorization header).
      if (signal.aborted) throw redactor.scrubError(cause);
      const stderr = stdio ? redactor.scrub(lastBytes(stdio.stderrTail, startFailureStderrBytes)).trim() : "";
      throw redactor.scrubError(
        new McpStartError(
          serverName,
          `The MCP server "${serverName}" (${commandText}) did not start: ${reason}.${stderr ? ` Its stderr ends:\n${stderr}` : ""}`,
          { cause },
        ),
      );
    };
    try {
      await client.connect(transport, { signal: startSignal, timeout: options.startupTimeoutMs });
    } catch (error) {
      const exit = stdio?.exit;
      return await fail(
        stdio?.tooLarge
          ? stdio.tooLarge.message
          : timeout.aborted
            ? `it did not initialize within ${options.startupTimeoutMs} ms`
            : exit
              ? `it exited (${exit.signal ?? `code ${exit.code}`}) during initialize`
              : errorMessage(error),
        error,
      );
    }
    const catalog: McpCatalogTool[] = [];
    try {
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        if (page >= catalogLimits.pages) {
          throw new McpCatalogTooLargeError(serverName, `its catalog has more than ${catalogLimits.pages} pages.`);
        }
        const listed = await client.listTools(cursor ? { cursor } : {}, {
          signal: startSignal,
          timeout: options.startupTimeoutMs,
        });
        for (const tool of listed.tools) catalog.push(tool as unknown as McpCatalogTool);
        if (catalog.length > catalogLimits.tools) {
          throw new McpCatalogTooLargeError(serverName, `its catalog has more than ${catalogLimits.tools} tools.`);
        }
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
    } catch (error) {
      if (error instanceof McpCatalogTooLargeError) {
        await client.close().catch(() => undefined);
        await transport.close().catch(() => undefined);
        throw error;
      }
      return await fail(
        timeout.aborted ? `it did not list its tools within ${options.startupTimeoutMs} ms` : errorMessage(error),
        error,
      );
    }
    const connection = new McpConnection(
      options,
      client,
      { ...(stdio ? { stdio } : {}), ...(http ? { http } : {}) },
      catalog,
      redactor,
    );
    if (options.elicitation) {
      await loadInputValidation();
      client.setRequestHandler(
        mcpSdk().ElicitRequestSchema,
        async (request) => (await connection.#elicit(request.params as Record<string, unknown>)) as never,
      );
    }
    return connection;
  }

  /** Calls one server tool; every failure is an error result (never a throw, but for an abort). */
  async call(toolName: string, input: unknown, scope: CallScope): Promise<ToolResult> {
    const { serverName } = this.#options;
    if (this.#lost)
      return failure(
        "mcp_server_unavailable",
        `The MCP server "${serverName}" is not available (${this.#lost}); it is not restarted in this Session.`,
      );
    this.#calls.add(scope);
    try {
      const result = await this.#client.callTool(
        { name: toolName, arguments: (input ?? {}) as Record<string, unknown> },
        undefined,
        {
          signal: scope.signal,
          timeout: this.#options.callTimeoutMs,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: this.#options.maxCallMs,
          onprogress: () => undefined,
        },
      );
      return convertResult(result as never, this.#options, this.redactor);
    } catch (error) {
      if (scope.signal.aborted) throw error;
      const tooLarge = this.#stdio?.tooLarge;
      if (tooLarge) return failure(tooLarge.code, tooLarge.message);
      // A closed connection may be the server dying: its exit is seen a moment later.
      const ended =
        this.#stdio &&
        (this.#stdio.exit ??
          (await Promise.race([
            this.#stdio.exited,
            new Promise<undefined>((resolve) => setTimeout(resolve, 100, undefined)),
          ])));
      if (ended && this.#stdio?.exit) {
        this.#lost ??= `it exited (${ended.signal ?? `code ${ended.code}`})`;
        const stderr = this.redactor.scrub(this.#stdio.stderrTail).trim();
        return failure(
          "mcp_server_exited",
          `The MCP server "${serverName}" exited during the call (${ended.signal ? `signal ${ended.signal}` : `exit code ${ended.code}`}).${stderr ? ` Its stderr ends:\n${stderr}` : ""}`,
        );
      }
      const { ErrorCode, McpError } = mcpSdk();
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        return failure(
          "mcp_call_timeout",
          this.redactor.scrub(`The call to "${toolName}" timed out: ${error.message}`),
        );
      }
      if (this.#lost)
        return failure("mcp_server_unavailable", `The MCP server "${serverName}" is not available (${this.#lost}).`);
      return failure(
        "mcp_call_failed",
        this.redactor.scrub(`The call to "${toolName}" failed: ${errorMessage(error)}`),
      );
    } finally {
      this.#calls.delete(scope);
    }
  }

  async #elicit(params: Record<string, unknown>): Promise<McpElicitationAnswer> {
    const handler = this.#options.elicitation;
    // The request belongs to a call under way; with several, the latest.
    const scope = [...this.#calls].at(-1);
    if (!handler || !scope) return { action: "decline" };
    if (scope.signal.aborted) return { action: "cancel" };
    const requestedSchema = (params.requestedSchema ?? { type: "object", properties: {} }) as JsonObject;
    const answer = await handler(
      {
        serverName: this.#options.serverName,
        message: String(params.message ?? ""),
        requestedSchema,
        sessionId: scope.sessionId,
        runId: scope.runId,
        toolCallId: scope.toolCallId,
        toolName: scope.toolName,
        agent: scope.agent,
      },
      { signal: scope.signal },
    );
    if (scope.signal.aborted) return { action: "cancel" };
    if (answer?.action !== "accept") return { action: answer?.action === "decline" ? "decline" : "cancel" };
    const content: Record<string, unknown> = { ...(answer.content ?? {}) };
    const properties = (requestedSchema.properties ?? {}) as Record<string, { default?: unknown }>;
    for (const [name, property] of Object.entries(properties)) {
      if (content[name] === undefined && property && typeof property === "object" && "default" in property)
        content[name] = property.default;
    }
    const problem = validateAgainst(requestedSchema as object, content);
    if (problem)
      throw new (mcpSdk().McpError)(
        mcpSdk().ErrorCode.InvalidParams,
        `The elicitation answer does not fit the requested schema: ${problem}`,
      );
    return { action: "accept", content };
  }

  /** Closes the client and ends the server (a stdio server's whole group; an HTTP session with DELETE). */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#lost ??= "the Session closed";
      if (this.#http) await this.#http.terminateSession().catch(() => undefined);
      await this.#client.close().catch(() => undefined);
      await this.#stdio?.close();
    })();
    return this.#closing;
  }
}
