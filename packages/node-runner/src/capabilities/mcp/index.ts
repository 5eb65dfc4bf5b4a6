export { McpToolNameCollisionError } from "../../kernel/errors/errors.js";
export { mcp } from "./capability.js";
export {
  McpCatalogTooLargeError,
  McpMessageTooLargeError,
  McpStartError,
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
