// The MCP SDK is loaded when the first server connection opens, not when the package is
// imported: it brings zod, ajv and their schemas (hundreds of modules) that an application
// with no MCP server never needs.
import type * as ClientModule from "@modelcontextprotocol/sdk/client/index.js";
import type * as HttpModule from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type * as StdioModule from "@modelcontextprotocol/sdk/shared/stdio.js";
import type * as TypesModule from "@modelcontextprotocol/sdk/types.js";

/** The parts of the MCP SDK a connection uses. */
export interface McpSdk {
  readonly Client: typeof ClientModule.Client;
  readonly StreamableHTTPClientTransport: typeof HttpModule.StreamableHTTPClientTransport;
  readonly ElicitRequestSchema: typeof TypesModule.ElicitRequestSchema;
  readonly ErrorCode: typeof TypesModule.ErrorCode;
  readonly McpError: typeof TypesModule.McpError;
  readonly serializeMessage: typeof StdioModule.serializeMessage;
  readonly deserializeMessage: typeof StdioModule.deserializeMessage;
}

let loading: Promise<McpSdk> | undefined;
let loaded: McpSdk | undefined;

/** Loads the SDK once; later calls share it. */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/shared/stdio.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([client, http, stdio, types]) => {
    loaded = Object.freeze({
      Client: client.Client,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      ElicitRequestSchema: types.ElicitRequestSchema,
      ErrorCode: types.ErrorCode,
      McpError: types.McpError,
      serializeMessage: stdio.serializeMessage,
      deserializeMessage: stdio.deserializeMessage,
    });
    return loaded;
  });
  return loading;
}

/** The loaded SDK, for code that runs only on an open connection. */
export function mcpSdk(): McpSdk {
  if (!loaded) throw new Error("The MCP SDK is used before loadMcpSdk resolved.");
  return loaded;
}
