import { isAbsolute } from "node:path";
import type { Capability } from "@castellan/harness";
import {
  createSkillResolverPlugin,
  type McpOptions,
  mcp,
  type NodeRunnerPlugin,
  type WorkspaceGuidanceOptions,
} from "@castellan/node-runner";
import type { JobMcpServer, JobSkill } from "./capability-schemas.js";

/** What {@link jobCapabilities} is given: the checked body fields and where the skills were written. */
export interface JobCapabilitiesOptions {
  readonly skills?: readonly JobSkill[] | undefined;
  readonly mcpServers?: readonly JobMcpServer[] | undefined;
  /** The directory {@link materializeSkills} wrote `skills` to: absolute, the job's own, outside the checkout. */
  readonly skillsDirectory: string;
}

/** What a pass adds for the body's skills and tool servers. */
export interface JobCapabilities {
  /** One `mcp:<name>` capability per tool server, for the agent's `capabilities`. */
  readonly capabilities: Capability[];
  /** The skill resolver over `skillsDirectory` alone (none without skills), for the Runner's `plugins`. */
  readonly plugins: NodeRunnerPlugin[];
  /** The body's skill names, for the agent's `skills`: declared, so `activate_skill` offers them. */
  readonly skillNames: string[];
  /** The values the servers' `secretKeys` name (only those), for the job's redactor. */
  readonly secrets: string[];
}

/**
 * The environment of a stdio server besides its own `env`: the core variables (`PATH`, `HOME`,
 * `TMPDIR`, `LANG`, `LC_*`, `SHELL`, `USER`, `LOGNAME`), without names holding `KEY`, `SECRET` or
 * `TOKEN` and without the facts about this server. `none` would leave no `PATH`: a command named
 * `node` or `npx` would then be looked up in the OS default path, not the one the server runs with.
 */
const serverEnvironment = { inherit: "core", exclude: ["NODE_ENV", "PORT", "CASTELLAN_EXECUTOR_*"] } as const;

/**
 * `workspace({ instructions })` that keeps the checkout's AGENTS.md text out of every model
 * request: a budget of 0 bytes. The runner still names each such file it finds, with its size,
 * in an "[Omitted: ...]" line (there is no option that skips the files altogether).
 */
export const checkoutGuidanceOff: WorkspaceGuidanceOptions = Object.freeze({ maxBytes: 0 });

function serverCapability(server: JobMcpServer): Capability {
  const common = {
    serverName: server.name,
    ...(server.allowedTools ? { tools: [...server.allowedTools] } : {}),
    ...(server.secretKeys ? { secretKeys: [...server.secretKeys] } : {}),
  };
  const options: McpOptions =
    server.transport === "stdio"
      ? {
          ...common,
          transport: "stdio",
          command: server.command,
          ...(server.args ? { args: [...server.args] } : {}),
          // Only this server's process gets its env: nothing is set in the executor's own, so
          // neither the agent's commands nor another server ever see it.
          environment: { ...serverEnvironment, exclude: [...serverEnvironment.exclude], set: { ...server.env } },
        }
      : {
          ...common,
          transport: "http",
          url: server.url,
          ...(server.headers ? { headers: { ...server.headers } } : {}),
        };
  return mcp(options);
}

/**
 * A pass's capabilities from the body's checked `skills` and `mcpServers`. Each tool server is an
 * `mcp({ serverName: name })` capability: stdio with exactly its `env` set over the core
 * variables (see `serverEnvironment`), http at its `https:` or loopback `url` with its
 * `headers`; `allowedTools` becomes `tools`, so the server's other tools are never offered and a
 * name the server lacks fails the Session's open (`mcp_tool_not_found`); `secretKeys` are
 * redacted in what the server returns and listed in `secrets`. The skills are found by a
 * resolver looking in `skillsDirectory` only; nothing reads the checkout's own skills, tool
 * server files or agent settings.
 *
 * @throws DeclarationError, McpUrlRefusedError or EnvironmentPolicyError for a server the schema did not check.
 */
export function jobCapabilities(options: JobCapabilitiesOptions): JobCapabilities {
  const skills = options.skills ?? [];
  const servers = options.mcpServers ?? [];
  const plugins: NodeRunnerPlugin[] = [];
  if (skills.length > 0) {
    if (!isAbsolute(options.skillsDirectory)) {
      throw new TypeError("jobCapabilities: skillsDirectory must be an absolute path.");
    }
    plugins.push(createSkillResolverPlugin({ directories: [options.skillsDirectory] }));
  }
  const secrets: string[] = [];
  for (const server of servers) {
    const entries: Readonly<Record<string, string>> =
      (server.transport === "stdio" ? server.env : server.headers) ?? {};
    for (const key of server.secretKeys ?? []) {
      const value = entries[key];
      if (value !== undefined && !secrets.includes(value)) secrets.push(value);
    }
  }
  return {
    capabilities: servers.map(serverCapability),
    plugins,
    skillNames: skills.map((skill) => skill.name),
    secrets,
  };
}
