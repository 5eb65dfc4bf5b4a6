import {
  type BindingKind,
  type Capability,
  DeclarationError,
  defineCapability,
  defineTool,
  errorMessage,
  type JsonObject,
  resource,
  type Tool,
} from "@castellan/harness";
import { McpToolNameCollisionError } from "../../kernel/errors/errors.js";
import { withToolOrigin } from "../../kernel/tools/tool-origins.js";
import { compileInputValidator, loadInputValidation } from "../../kernel/tools/validate-input.js";
import type { McpConnection } from "./connection.js";
import { McpToolNotFoundError, McpToolSchemaInvalidError } from "./errors.js";
import { mcpToolName } from "./names.js";
import { type McpOptions, type ResolvedMcpOptions, resolveMcpOptions } from "./options.js";

/** The Castellan tools of one Session's catalog: the allow-listed ones, named, checked and bound to the connection. */
async function catalogTools(connection: McpConnection, options: ResolvedMcpOptions): Promise<Tool[]> {
  const { serverName } = options;
  const listed = new Map(connection.catalog.map((tool) => [tool.name, tool]));
  for (const name of options.tools ?? []) {
    if (!listed.has(name))
      throw new McpToolNotFoundError(serverName, name, `tools lists "${name}", which the server does not have.`);
  }
  const exposed = options.tools
    ? options.tools.map((name) => listed.get(name) as (typeof connection.catalog)[number])
    : [...listed.values()];
  const exposedNames = new Set(exposed.map((tool) => tool.name));
  for (const name of options.readOnlyTools) {
    if (!exposedNames.has(name)) {
      throw new McpToolNotFoundError(
        serverName,
        name,
        `readOnlyTools lists "${name}", which is not an exposed tool of the server.`,
      );
    }
  }
  await loadInputValidation();
  const byName = new Map<string, string>();
  const tools: Tool[] = [];
  for (const entry of exposed) {
    const name = mcpToolName(serverName, entry.name);
    const clash = byName.get(name);
    const origin = `server "${serverName}" tool "${entry.name}"`;
    if (clash) throw new McpToolNameCollisionError(name, clash, origin);
    byName.set(name, origin);
    const tool = defineTool({
      name,
      description: connection.redactor.scrub(
        entry.description ?? `The "${entry.name}" tool of the ${serverName} MCP server.`,
      ),
      inputSchema: (entry.inputSchema ?? { type: "object" }) as JsonObject,
      // Only the application's word makes a server tool read-only; annotations never do.
      readOnly: options.readOnlyTools.includes(entry.name),
      execute: (input, ctx) =>
        connection.call(entry.name, input, {
          sessionId: ctx.sessionId,
          runId: ctx.runId,
          toolCallId: ctx.toolCallId,
          toolName: ctx.toolName,
          agent: ctx.agent,
          signal: ctx.signal,
        }),
    });
    try {
      compileInputValidator(tool);
    } catch (error) {
      throw new McpToolSchemaInvalidError(serverName, entry.name, errorMessage(error), { cause: error });
    }
    tools.push(withToolOrigin(tool, origin));
  }
  return tools;
}

/**
 * A capability (named `mcp:<serverName>`) giving an MCP server's tools, on the official
 * `@modelcontextprotocol/sdk` client. Each Session (child Sessions included) starts its own
 * server when it opens: a stdio server is spawned by Castellan without a shell, in its own
 * process group, with the command modules' environment policy (default `{ inherit: "core" }`);
 * an HTTP one is reached over Streamable HTTP (`https:`, or `http:` on loopback). The whole
 * catalog is listed within `startupTimeoutMs` and fixed for the Session; its tools are named
 * `mcp__<serverName>__<tool>`, keep the server's description and input schema, and are
 * read-only only when `readOnlyTools` says so. The server closes with the Session. It adds no
 * instructions; sampling and roots are not offered, elicitation only with a handler. A stdio
 * server is application-chosen code running outside the OS sandbox: only permissions govern it.
 *
 * @throws DeclarationError, McpUrlRefusedError (`mcp_url_refused`), EnvironmentPolicyError for what is given now;
 *   opening fails with `mcp_start_failed`, `mcp_catalog_too_large`, `mcp_tool_not_found`,
 *   `mcp_tool_schema_invalid` or `mcp_tool_name_collision`.
 */
export function mcp(options: McpOptions): Capability {
  const resolved = resolveMcpOptions(options);
  const { serverName } = resolved;
  const kind: BindingKind<JsonObject, McpConnection> = {
    name: "mcp",
    describe: () => ({ serverName, transport: resolved.transport.transport }),
    async acquire(params, { signal }) {
      // The client code (and the SDK behind it) loads when a server first connects.
      const { McpConnection } = await import("./connection.js");
      const connection = await McpConnection.open(resolved, params, signal);
      try {
        const tools = await catalogTools(connection, resolved);
        return { value: connection, tools, close: () => connection.close() };
      } catch (error) {
        await connection.close();
        throw error;
      }
    },
  };
  if (
    resolved.enabled !== undefined &&
    typeof resolved.enabled !== "boolean" &&
    typeof resolved.enabled !== "function"
  ) {
    throw new DeclarationError(`mcp "${serverName}": enabled must be a boolean or a function of the turn context.`);
  }
  return defineCapability({
    name: `mcp:${serverName}`,
    resources: [resource(kind, { fromParams: (params: JsonObject) => params })],
    ...(resolved.enabled !== undefined ? { enabled: resolved.enabled } : {}),
  });
}
