// Where the MCP test servers are: the pinned devDependencies and the fixture server, each
// started by path under this Node (never through npx).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

/** The entry script of an installed package's bin. */
function packageEntry(name: string, relative: string): string {
  return join(dirname(require.resolve(`${name}/package.json`)), relative);
}

/** `@modelcontextprotocol/server-everything`'s launcher (argument: stdio or streamableHttp). */
export const everythingEntry = packageEntry("@modelcontextprotocol/server-everything", "dist/index.js");
/** `@modelcontextprotocol/server-filesystem`'s entry (arguments: the allowed directories). */
export const filesystemEntry = packageEntry("@modelcontextprotocol/server-filesystem", "dist/index.js");
/** `@modelcontextprotocol/conformance`'s CLI. */
export const conformanceEntry = packageEntry("@modelcontextprotocol/conformance", "dist/index.js");
/** The fixture server on the SDK's server API. */
export const fixtureServerEntry = fileURLToPath(new URL("../fixtures/mcp-fixture-server.ts", import.meta.url));
/** The fixture server that floods its stdout on request (mcp-flood-server.ts). */
export const floodServerEntry = fileURLToPath(new URL("../fixtures/mcp-flood-server.ts", import.meta.url));
