import { mkdirSync, realpathSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type { CommandPreparedSpawn, CommandPrepareRequest } from "../process/index.js";
import type { ResolvedSandboxPolicy } from "./config.js";
import { SandboxConfigError } from "./errors.js";
import { withNamespaceReport } from "./namespace-report.js";
import { defaultSandboxDependencies, findExecutable } from "./preflight.js";

/** The exact version of `@anthropic-ai/sandbox-runtime` this layer is written against. */
export const sandboxRuntimeVersion = "0.0.83";

/**
 * What the plugin needs of a sandbox runtime. An adapter only transforms argv and env: the
 * supervisor alone owns the spawn, the group, the output, the deadline, abort and stop.
 */
export interface SandboxRuntimeAdapter {
  /** Starts the profile (the first lease). A rejection fails the Session open (`sandbox_unavailable`). */
  initialize(config: ResolvedSandboxPolicy): Promise<void>;
  /**
   * Widens the network allow list of the active (initialized) profile with `hosts`, canonical
   * names; it takes effect for the next connection its proxy decides. `deniedDomains` still wins.
   */
  allowNetworkHosts(hosts: readonly string[]): Promise<void> | void;
  /** The final argv and env of one approved command; `env` given is the environment policy's. */
  prepare(request: CommandPrepareRequest): Promise<CommandPreparedSpawn>;
  /**
   * The command's stderr with the runtime's denials appended; awaited after its group is gone
   * (and for a prepared command that never started). Releases what the runtime keeps per command.
   */
  finalize(request: { readonly commandId: string; readonly command: string; readonly stderr: string }): Promise<string>;
  /** Ends the profile (the last lease closed). */
  reset(): Promise<void>;
}

/** Where the in-process runtime finds its programs; defaults are looked up in the host's `PATH`. */
export interface SandboxRuntimeAdapterOptions {
  readonly bwrapPath?: string;
  readonly socatPath?: string;
  readonly ripgrepPath?: string;
}

type Runtime = typeof import("@anthropic-ai/sandbox-runtime");

const runtimePackage = "@anthropic-ai/sandbox-runtime";

/** The real path of the installed runtime package's directory. */
export function sandboxRuntimePackagePath(): string {
  const manifest = createRequire(import.meta.url).resolve(`${runtimePackage}/package.json`);
  return realpathSync(dirname(manifest));
}

/**
 * The pinned `@anthropic-ai/sandbox-runtime` in this process (its `SandboxManager` is global).
 * The runtime's own environment for the child (a copy of this process's) is discarded: the
 * command gets the environment policy's variables, plus what the runtime passes through
 * bubblewrap's `--setenv` inside the wrapped argv (the proxy settings).
 */
export function createSandboxRuntimeAdapter(options: SandboxRuntimeAdapterOptions = {}): SandboxRuntimeAdapter {
  let runtime: Runtime | undefined;
  // The bubblewrap the active profile runs, as the runtime writes it in each command line.
  let activeBwrapPath: string | undefined;
  const temp = new ProfileTemp();
  const load = async (): Promise<Runtime> => {
    runtime ??= (await import(runtimePackage)) as Runtime;
    return runtime;
  };
  return Object.freeze({
    async initialize(policy: ResolvedSandboxPolicy) {
      const { SandboxManager, SandboxRuntimeConfigSchema } = await load();
      // Absolute paths: the wrapped command runs them under the policy's PATH, not this process's.
      const bwrapPath =
        options.bwrapPath ?? findExecutable(defaultSandboxDependencies.bwrap) ?? defaultSandboxDependencies.bwrap;
      const socatPath =
        options.socatPath ?? findExecutable(defaultSandboxDependencies.socat) ?? defaultSandboxDependencies.socat;
      const rgPath =
        options.ripgrepPath ?? findExecutable(defaultSandboxDependencies.rg) ?? defaultSandboxDependencies.rg;
      const config = {
        network: {
          allowedDomains: [...policy.network.allowedDomains],
          deniedDomains: [...policy.network.deniedDomains],
        },
        filesystem: {
          denyRead: [...policy.filesystem.denyRead],
          allowRead: [...policy.filesystem.allowRead],
          allowWrite: [...policy.filesystem.allowWrite, await temp.create()],
          denyWrite: [...policy.filesystem.denyWrite],
        },
        bwrapPath,
        socatPath,
        ripgrep: { command: rgPath },
      };
      const parsed = SandboxRuntimeConfigSchema.safeParse(config);
      if (!parsed.success) {
        await temp.remove();
        throw new SandboxConfigError(
          `The sandbox policy is not valid for ${runtimePackage} ${sandboxRuntimeVersion}: ${parsed.error.issues
            .map((issue: { path: (string | number)[]; message: string }) => `${issue.path.join(".")}: ${issue.message}`)
            .join("; ")}`,
        );
      }
      // The log monitor puts seccomp and proxy denials in the store that `finalize` reads.
      try {
        await SandboxManager.initialize(parsed.data, undefined, true);
        activeBwrapPath = bwrapPath;
      } catch (error) {
        await temp.remove();
        throw error;
      }
    },
    async allowNetworkHosts(hosts: readonly string[]) {
      const { SandboxManager } = await load();
      const current = SandboxManager.getConfig();
      if (!current) throw new Error("The sandbox runtime is not initialized.");
      const allowed = [...new Set([...current.network.allowedDomains, ...hosts])];
      // The proxy's filter reads the installed config at each connection: the next command sees it.
      SandboxManager.updateConfig({ ...current, network: { ...current.network, allowedDomains: allowed } });
    },
    async prepare(request: CommandPrepareRequest) {
      const { SandboxManager } = await load();
      if (!SandboxManager.isSandboxingEnabled()) throw new Error("The sandbox runtime is not initialized.");
      if (request.shell.arguments.length !== 1 || request.shell.arguments[0] !== "-c") {
        throw new Error("A sandboxed command's shell must take the command after -c.");
      }
      temp.ensure();
      const wrapped = await SandboxManager.wrapWithSandboxArgv(
        withTempDirectoryFirst(request.command),
        request.shell.executable,
        undefined,
        undefined,
        request.cwd,
        { commandId: request.commandId },
      );
      // bubblewrap reports its namespace's init on a descriptor the supervisor reads and kills.
      const reported = withNamespaceReport(wrapped.argv, activeBwrapPath ?? defaultSandboxDependencies.bwrap);
      const [first, ...rest] = reported.argv;
      if (first === undefined) throw new Error("The sandbox runtime returned no argv.");
      const executable = isAbsolute(first) ? first : (findExecutable(first) ?? first);
      // Not wrapped.env: it is this process's whole environment.
      return {
        argv: [executable, ...rest],
        env: { ...request.env },
        ...(reported.reportFd !== undefined ? { pidNamespaceReportFd: reported.reportFd } : {}),
      };
    },
    async finalize(request: { readonly commandId: string; readonly command: string; readonly stderr: string }) {
      const { SandboxManager } = await load();
      try {
        return SandboxManager.annotateStderrWithSandboxFailures(request.commandId, request.stderr);
      } finally {
        // The empty files and directories bwrap made on the host as mount points for absent
        // denied names go once no command of this profile runs (the runtime counts them).
        SandboxManager.cleanupAfterCommand();
      }
    },
    async reset() {
      const { SandboxManager } = await load();
      try {
        await SandboxManager.reset();
      } finally {
        await temp.remove();
      }
    },
  });
}

let shared: SandboxRuntimeAdapter | undefined;

/** The variable the runtime reads, at each wrap, for the `TMPDIR` it gives sandboxed commands. */
const runtimeTmpdirVariable = "CLAUDE_CODE_TMPDIR";

/**
 * The profile's private temporary directory: made owner-only under the host's temp directory
 * when the profile starts, writable inside the sandbox (it joins `allowWrite`), the sandboxed
 * commands' `TMPDIR`, and removed when the profile resets. The runtime reads its location from
 * its process's environment, so that variable is set while the profile is active (in a
 * sandbox worker, the worker's own copy of the environment).
 */
class ProfileTemp {
  #path: string | undefined;
  #previous: string | undefined;

  get path(): string | undefined {
    return this.#path;
  }

  async create(): Promise<string> {
    await this.remove();
    this.#path = realpathSync(await mkdtemp(join(tmpdir(), "castellan-sandbox-")));
    this.#previous = process.env[runtimeTmpdirVariable];
    process.env[runtimeTmpdirVariable] = this.#path;
    return this.#path;
  }

  /** Makes the directory again if something removed it; a command's first step checks it. */
  ensure(): void {
    if (this.#path !== undefined) mkdirSync(this.#path, { recursive: true, mode: 0o700 });
  }

  async remove(): Promise<void> {
    const path = this.#path;
    if (path === undefined) return;
    this.#path = undefined;
    if (this.#previous === undefined) delete process.env[runtimeTmpdirVariable];
    else process.env[runtimeTmpdirVariable] = this.#previous;
    await rm(path, { recursive: true, force: true });
  }
}

/**
 * The command as the sandboxed shell runs it: the temporary directory is made (or found) first,
 * inside the same sandboxed process, and the command runs only if that succeeded.
 */
function withTempDirectoryFirst(command: string): string {
  return `[ -d "$TMPDIR" ] || mkdir -p -- "$TMPDIR" || exit 125; ${command}`;
}

/** The one in-process adapter every plugin without a `runtimeAdapter` shares. */
export function inProcessSandboxRuntimeAdapter(): SandboxRuntimeAdapter {
  shared ??= createSandboxRuntimeAdapter();
  return shared;
}
