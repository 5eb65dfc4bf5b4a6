import { CastellanError } from "@castellan/harness";

/** The MCP server did not start: it could not be spawned, exited, failed `initialize`, or did not answer in time. */
export class McpStartError extends CastellanError {
  readonly serverName: string;

  constructor(serverName: string, message: string, options?: { cause?: unknown }) {
    super("mcp_start_failed", message, options);
    this.serverName = serverName;
  }
}

/** The server's tool catalog is more than 100 pages or 1,000 tools. */
export class McpCatalogTooLargeError extends CastellanError {
  constructor(serverName: string, message: string) {
    super("mcp_catalog_too_large", `MCP server "${serverName}": ${message}`);
  }
}

/** `tools` or `readOnlyTools` names a tool the server (or the exposed set) does not have. */
export class McpToolNotFoundError extends CastellanError {
  readonly toolName: string;

  constructor(serverName: string, toolName: string, message: string) {
    super("mcp_tool_not_found", `MCP server "${serverName}": ${message}`);
    this.toolName = toolName;
  }
}

/** A server tool's `inputSchema` does not compile. */
export class McpToolSchemaInvalidError extends CastellanError {
  constructor(serverName: string, toolName: string, detail: string, options?: { cause?: unknown }) {
    super(
      "mcp_tool_schema_invalid",
      `MCP server "${serverName}": the input schema of tool "${toolName}" does not compile: ${detail}`,
      options,
    );
  }
}

/** A Streamable HTTP server URL that is neither `https:` nor `http:` on loopback. */
export class McpUrlRefusedError extends CastellanError {
  constructor(url: string, reason: string) {
    super(
      "mcp_url_refused",
      `The MCP server URL ${url} is refused: ${reason}. Use https:, or http: on 127.0.0.0/8, [::1] or localhost.`,
    );
  }
}

/**
 * A stdio server sent a line longer than the bound (10 MiB) without its newline: it is treated
 * as misbehaving and stopped (its whole process group, SIGKILL), and the call under way fails
 * with this code. The rest of the Session is untouched.
 */
export class McpMessageTooLargeError extends CastellanError {
  readonly serverName: string;
  /** The bound that was passed, in bytes. */
  readonly maxBytes: number;

  constructor(serverName: string, maxBytes: number) {
    super(
      "mcp_message_too_large",
      `The MCP server "${serverName}" sent a message over ${maxBytes} bytes without ending its line; it was stopped and is not restarted in this Session.`,
    );
    this.serverName = serverName;
    this.maxBytes = maxBytes;
  }
}
