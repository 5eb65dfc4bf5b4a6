import type { JsonObject } from "@castellan/harness";
import { InvalidOptionsError } from "../../../kernel/errors/errors.js";
import type { EnvironmentPolicy } from "../../../platform/environment/environment-policy.js";
import { bindWorkspaceRootSync, type WorkspaceRoot } from "../../../platform/paths/root.js";
import {
  type ResolvedSandboxPolicy,
  resolveSandboxPolicy,
  type SandboxFilesystemPolicy,
} from "../../../platform/sandbox/config.js";
import { SandboxConfigError } from "../../../platform/sandbox/errors.js";
import type { WorkspaceHomeReads } from "../../../platform/sandbox/workspace-policy.js";
import {
  type CommandRuntimeSandboxOptions,
  type CommandSessionOptions,
  commandSettingKeys,
  type ResolvedCommandSettings,
  resolveCommandSettings,
} from "../../commands/index.js";
import { defaultGuidanceMaxBytes, type WorkspaceInstructionsReceipt } from "../instructions/instructions-plugin.js";
import type { SearchEngine } from "../search/index.js";
import { resolveWorkspaceLimits, type WorkspaceLimits } from "../tools/limits.js";
import { defaultImageMaxBytes } from "../tools/read-workspace-image.js";
import { WorkspaceOptionsError } from "./errors.js";

/** Which hosts the workspace's sandboxed commands may reach. Default: none. */
export interface WorkspaceNetworkOptions {
  /** Domain patterns (`example.com`, `*.example.com`) commands may reach. Default `[]`: no external host. */
  readonly allowedDomains?: readonly string[];
  /** Domain patterns refused even when allowed or granted. Default `[]`. */
  readonly deniedDomains?: readonly string[];
  /** Adds `request_network_access`, through which the model asks (and a person approves) more hosts for the Session. Default false; `sandbox: "os"` only. */
  readonly allowRequests?: boolean;
}

/** The bounds of the file tools, and how they treat a missing parent directory. */
export interface WorkspaceFilesOptions extends Partial<WorkspaceLimits> {
  /** Refuse (`parent_missing`) a new or moved file whose directory is missing. Default false. */
  readonly requireExistingParents?: boolean;
  /** What matches a literal search; see `RootBoundWorkspaceToolsOptions.searchEngine`. Default `builtin`. */
  readonly searchEngine?: SearchEngine;
  /** Largest image `read_workspace_image` returns, in bytes. Default 5,242,880; 1 to 52,428,800. */
  readonly maxImageBytes?: number;
  /**
   * Let `edit_workspace_file` and `apply_workspace_patch` write the entries the OS sandbox
   * denies to commands: `.git` internals, `.castellan/`, `.castellan-sessions/`, shell and tool
   * settings (`.bashrc`, `.mcp.json`, `.claude/`, ...), and hard-linked files. Default false:
   * refused with `path_protected`, with either sandbox. Only with `sandbox: "none"`: an OS
   * workspace's file tools always keep its sandbox's rules.
   */
  readonly allowProtectedWrites?: boolean;
}

/** How AGENTS.md guidance reaches the model (as the workspace instructions plugin does). */
export interface WorkspaceGuidanceOptions {
  /** Bytes of guidance one Run carries in all. Default 32,768; 0 to 16,777,216. */
  readonly maxBytes?: number;
  /** Told once per guidance file per Run when it first enters a request; a failure is reported as `hook-failed`. Default: none. */
  readonly record?: (receipt: WorkspaceInstructionsReceipt) => void | Promise<void>;
}

/** What `publish_workspace` hands the host's publisher. */
export interface WorkspacePublishRequest {
  readonly sessionId: string;
  readonly runId: string;
  readonly toolCallId: string;
  /** The Session's workspace root. */
  readonly root: URL;
  /** The model's summary of the change, trimmed. */
  readonly summary: string;
  /** Aborted when the Run is aborted. */
  readonly signal: AbortSignal;
}

/** What a publisher answers: a delivery reference it has checked (e.g. a pushed ref, a pull request URL). */
export interface WorkspacePublication {
  readonly reference: string;
  /** Must be `true`: the publisher confirmed the delivery exists. Anything else is "not published". */
  readonly verified: boolean;
}

/** Delivers a workspace's changes somewhere (the job server's push and pull request is one). */
export interface WorkspacePublisher {
  publish(request: WorkspacePublishRequest): Promise<WorkspacePublication>;
}

/** The command options of a workspace: those of `createCommandSessionPlugin` but the working directory (the root). */
export type WorkspaceCommandOptions = Omit<CommandSessionOptions, "workingDirectory" | "environment"> & {
  /** Default `{ inherit: "core" }`. */
  readonly environment?: EnvironmentPolicy;
};

/** Options of `workspace()`. */
export interface WorkspaceOptions {
  /**
   * An existing directory: a `file:` URL, its text, or an absolute path; or a function of the
   * Session's params returning one. A relative path is refused (`workspace_root_invalid`).
   */
  readonly root: URL | string | ((params: JsonObject) => URL | string);
  /** Only `list_workspace`, `search_workspace`, `read_workspace_file` and `read_workspace_image`: no edits, commands or sandbox. Default false. */
  readonly readOnly?: boolean;
  /** `"os"`: commands run in bubblewrap with the workspace policy, in a worker of the Session's own. `"none"`: commands run uncontained. Default `"os"`. */
  readonly sandbox?: "os" | "none";
  /** Network policy of the OS sandbox. Default: no external host, no requests. */
  readonly network?: WorkspaceNetworkOptions;
  /**
   * Added to the workspace's filesystem policy (paths absolute or under `~`). Default: nothing
   * added. `allowRead` is how a host re-admits part of the home directory, which commands
   * cannot read otherwise (`"~/.gitconfig"`, say); a credential path of `deniedHomeEntries`
   * is re-admitted only by an entry naming it exactly.
   */
  readonly filesystem?: SandboxFilesystemPolicy;
  /**
   * What the OS sandbox's commands may read of the host's home directory besides
   * `filesystem.allowRead`: `"tool-paths"` (default) the read-only caches and toolchains of
   * `defaultHomeReadPaths` (`~/.npm/_cacache`, `~/.nvm/versions`, ...); `"none"` nothing, as a
   * job server wants for its jobs. `sandbox: "os"` only.
   */
  readonly homeReads?: WorkspaceHomeReads;
  /** The command tools' options. Defaults as `createCommandSessionPlugin`, with `environment: { inherit: "core" }`. */
  readonly commands?: WorkspaceCommandOptions;
  /** The file tools' limits. Defaults: `defaultWorkspaceLimits`. */
  readonly files?: WorkspaceFilesOptions;
  /** AGENTS.md delivery. Defaults: 32,768 bytes a Run, no record. */
  readonly instructions?: WorkspaceGuidanceOptions;
  /** Adds `publish_workspace`, which succeeds only on the publisher's verified reference. Default: none, nothing publishes. */
  readonly publisher?: WorkspacePublisher;
}

/** The options checked, defaults applied. */
export interface ResolvedWorkspaceOptions {
  /** The fixed root, bound at creation; or the function each Session's root is derived from. */
  readonly root: WorkspaceRoot | ((params: JsonObject) => URL | string);
  readonly readOnly: boolean;
  readonly sandbox: "os" | "none";
  readonly network: {
    readonly allowedDomains: readonly string[];
    readonly deniedDomains: readonly string[];
    readonly allowRequests: boolean;
  };
  /**
   * The declared network and `filesystem` additions, checked (paths absolute, `~` the host's
   * HOME); undefined unless commands run in the OS sandbox.
   */
  readonly declaredPolicy: ResolvedSandboxPolicy | undefined;
  /** What each Session's command runtime opens its OS sandbox with; undefined unless commands run in one. */
  readonly sandboxOptions: CommandRuntimeSandboxOptions | undefined;
  /** What commands read of the home directory; `"tool-paths"` unless given. */
  readonly homeReads: WorkspaceHomeReads;
  /** The file tools may write protected entries (`sandbox: "none"` only). */
  readonly allowProtectedWrites: boolean;
  /** Undefined for a read-only workspace. */
  readonly commands: ResolvedCommandSettings | undefined;
  readonly limits: WorkspaceLimits;
  readonly requireExistingParents: boolean;
  readonly searchEngine: SearchEngine;
  readonly maxImageBytes: number;
  readonly guidance: { readonly maxBytes: number; readonly record?: WorkspaceGuidanceOptions["record"] };
  readonly publisher: WorkspacePublisher | undefined;
}

const where = "workspace";
const optionKeys = [
  "root",
  "readOnly",
  "sandbox",
  "network",
  "filesystem",
  "homeReads",
  "commands",
  "files",
  "instructions",
  "publisher",
];

function record(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new WorkspaceOptionsError(`${where}: ${field} must be an object.`);
  }
  return value as Record<string, unknown>;
}

function onlyKeys(value: Record<string, unknown>, field: string, keys: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) {
      throw new WorkspaceOptionsError(`${where}: ${field}${key} is not an option; the options are ${keys.join(", ")}.`);
    }
  }
}

function domains(value: unknown, field: string): readonly string[] {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string" && entry !== "")) {
    throw new WorkspaceOptionsError(`${where}: network.${field} must be an array of non-empty domain patterns.`);
  }
  return Object.freeze([...value]);
}

/**
 * Checks `workspace()`'s options and applies the defaults; a fixed root is bound now.
 *
 * @throws WorkspaceOptionsError (`workspace_options_invalid`), WorkspaceRootError (`workspace_root_invalid`), CommandOptionsError, EnvironmentPolicyError.
 */
export function resolveWorkspaceOptions(options: WorkspaceOptions): ResolvedWorkspaceOptions {
  const given = record(options, "options");
  if (!given) throw new WorkspaceOptionsError(`${where}: options are required: { root, ... }.`);
  onlyKeys(given, "", optionKeys);
  const readOnly = given.readOnly ?? false;
  if (typeof readOnly !== "boolean") throw new WorkspaceOptionsError(`${where}: readOnly must be a boolean.`);
  const sandbox = given.sandbox ?? "os";
  if (sandbox !== "os" && sandbox !== "none")
    throw new WorkspaceOptionsError(`${where}: sandbox must be "os" or "none".`);
  if (given.root === undefined)
    throw new WorkspaceOptionsError(`${where}: root is required: a file: URL, an absolute path, or params => URL.`);

  const network = record(given.network, "network") ?? {};
  onlyKeys(network, "network.", ["allowedDomains", "deniedDomains", "allowRequests"]);
  const allowRequests = network.allowRequests ?? false;
  if (typeof allowRequests !== "boolean")
    throw new WorkspaceOptionsError(`${where}: network.allowRequests must be a boolean.`);
  const filesystem = record(given.filesystem, "filesystem") as SandboxFilesystemPolicy | undefined;
  const containedOnly = (field: string) => {
    if (readOnly)
      throw new WorkspaceOptionsError(
        `${where}: ${field} has no effect on a readOnly workspace, which runs no commands; remove it.`,
      );
    if (sandbox === "none")
      throw new WorkspaceOptionsError(
        `${where}: ${field} needs sandbox: "os"; a "none" workspace runs commands uncontained.`,
      );
  };
  if (given.network !== undefined) containedOnly("network");
  if (given.filesystem !== undefined) containedOnly("filesystem");
  if (given.homeReads !== undefined) containedOnly("homeReads");
  const homeReads = given.homeReads ?? "tool-paths";
  if (homeReads !== "tool-paths" && homeReads !== "none")
    throw new WorkspaceOptionsError(`${where}: homeReads must be "tool-paths" or "none".`);
  if (readOnly && given.commands !== undefined) {
    throw new WorkspaceOptionsError(`${where}: commands has no effect on a readOnly workspace; remove it.`);
  }
  if (readOnly && given.publisher !== undefined) {
    throw new WorkspaceOptionsError(`${where}: a readOnly workspace changes nothing to publish; remove publisher.`);
  }
  const commandOptions = record(given.commands, "commands") ?? {};
  const commands = readOnly
    ? undefined
    : resolveCommandSettings(
        { environment: { inherit: "core" }, ...commandOptions } as Omit<CommandSessionOptions, "workingDirectory">,
        `${where}: commands`,
        commandSettingKeys,
      );

  const files = record(given.files, "files") ?? {};
  const {
    requireExistingParents = false,
    searchEngine = "builtin",
    maxImageBytes = defaultImageMaxBytes,
    allowProtectedWrites = false,
    ...limitFields
  } = files;
  if (typeof allowProtectedWrites !== "boolean")
    throw new WorkspaceOptionsError(`${where}: files.allowProtectedWrites must be a boolean.`);
  if (allowProtectedWrites && (sandbox !== "none" || readOnly))
    throw new WorkspaceOptionsError(
      `${where}: files.allowProtectedWrites needs sandbox: "none" and writes; an OS workspace's file tools keep its sandbox's rules.`,
    );
  if (typeof requireExistingParents !== "boolean")
    throw new WorkspaceOptionsError(`${where}: files.requireExistingParents must be a boolean.`);
  if (searchEngine !== "builtin" && searchEngine !== "ripgrep" && searchEngine !== "auto") {
    throw new WorkspaceOptionsError(`${where}: files.searchEngine must be "builtin", "ripgrep" or "auto".`);
  }
  if (
    typeof maxImageBytes !== "number" ||
    !Number.isInteger(maxImageBytes) ||
    maxImageBytes < 1 ||
    maxImageBytes > 52_428_800
  ) {
    throw new WorkspaceOptionsError(`${where}: files.maxImageBytes must be an integer from 1 to 52,428,800.`);
  }
  let limits: WorkspaceLimits;
  try {
    limits = resolveWorkspaceLimits(limitFields as Partial<WorkspaceLimits>, `${where}: files`);
  } catch (error) {
    if (error instanceof InvalidOptionsError)
      throw new WorkspaceOptionsError(error.message.replace("limits.", ""), { cause: error });
    throw error;
  }

  const instructions = record(given.instructions, "instructions") ?? {};
  onlyKeys(instructions, "instructions.", ["maxBytes", "record"]);
  const maxBytes = instructions.maxBytes ?? defaultGuidanceMaxBytes;
  if (typeof maxBytes !== "number" || !Number.isInteger(maxBytes) || maxBytes < 0 || maxBytes > 16_777_216) {
    throw new WorkspaceOptionsError(`${where}: instructions.maxBytes must be an integer from 0 to 16,777,216.`);
  }
  if (instructions.record !== undefined && typeof instructions.record !== "function") {
    throw new WorkspaceOptionsError(`${where}: instructions.record must be a function.`);
  }
  const publisher = given.publisher as WorkspacePublisher | undefined;
  if (publisher !== undefined && (publisher === null || typeof publisher.publish !== "function")) {
    throw new WorkspaceOptionsError(`${where}: publisher must be { publish(request) }.`);
  }
  const root =
    typeof given.root === "function"
      ? (given.root as (params: JsonObject) => URL | string)
      : bindWorkspaceRootSync(given.root as URL | string, undefined, { allowProtectedWrites });
  const allowedDomains = domains(network.allowedDomains, "allowedDomains");
  const deniedDomains = domains(network.deniedDomains, "deniedDomains");
  let declaredPolicy: ResolvedSandboxPolicy | undefined;
  if (!readOnly && sandbox === "os") {
    try {
      declaredPolicy = resolveSandboxPolicy(
        { network: { allowedDomains, deniedDomains }, ...(filesystem ? { filesystem } : {}) },
        process.env.HOME,
        `${where}: the sandbox policy`,
      );
    } catch (error) {
      if (error instanceof SandboxConfigError) throw new WorkspaceOptionsError(error.message, { cause: error });
      throw error;
    }
  }
  return Object.freeze({
    root,
    readOnly,
    sandbox,
    network: Object.freeze({
      allowedDomains,
      deniedDomains,
      allowRequests: !readOnly && sandbox === "os" && allowRequests,
    }),
    declaredPolicy,
    sandboxOptions: declaredPolicy
      ? Object.freeze({
          network: Object.freeze({ allowedDomains, deniedDomains }),
          ...(filesystem ? { filesystem } : {}),
          homeReads,
        })
      : undefined,
    homeReads,
    allowProtectedWrites,
    commands,
    limits,
    requireExistingParents,
    searchEngine,
    maxImageBytes,
    guidance: Object.freeze({
      maxBytes,
      ...(instructions.record ? { record: instructions.record as WorkspaceGuidanceOptions["record"] } : {}),
    }),
    publisher,
  });
}
