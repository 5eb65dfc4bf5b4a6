export { mcp } from "./capability.js";
export {
  McpCatalogTooLargeError,
  McpMessageTooLargeError,
  McpStartError,
  McpToolNameCollisionError,
  McpToolNotFoundError,
  McpToolSchemaInvalidError,
  McpUrlRefusedError,
} from "./errors.js";
export { mcpToolName } from "./names.js";
export type {
  FromParams,
  McpCommonOptions,
  McpElicitationAnswer,
  McpElicitationHandler,
  McpElicitationRequest,
  McpEnvironment,
  McpHttpOptions,
  McpOptions,
  McpStdioOptions,
} from "./options.js";
