import { readFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { ModelFactory } from "../agent/model-factory.js";
import { ExecutorConfigError } from "../errors/errors.js";
import type { SpawnProcess } from "../git/git.js";
import { userNpmrcPath } from "../install/registry-auth.js";
import { type ExecutorKnobs, resolveKnobs } from "./knobs.js";

/** Options of `createExecutorServer`; each beats its environment variable. */
export interface ExecutorServerOptions extends Partial<ExecutorKnobs> {
  /** `CASTELLAN_EXECUTOR_HOST`: the address to listen on. Default `127.0.0.1`. */
  readonly host?: string;
  /**
   * The bearer token drivers send, at least 32 characters. Default: the file named by
   * `CASTELLAN_EXECUTOR_TOKEN_FILE` (preferred: the token stays out of the environment), else
   * `CASTELLAN_EXECUTOR_TOKEN`. Required.
   */
  readonly token?: string;
  /** `CASTELLAN_EXECUTOR_DATA_DIR`: job records and per-job state. Default `~/.castellan/executor`. */
  readonly dataDirectory?: string;
  /**
   * `HARNESS_TRANSCRIPT_ROOT` (the bin's `--transcript-root`): where Session logs are kept.
   * Default `<dataDirectory>/transcripts`, so a job's transcripts live and go with the server's
   * own state (never a shared temporary directory).
   */
  readonly transcriptRoot?: string;
  /** `HARNESS_DOCKER_STATUS_FILE`: the boot-time sandbox record. Default `<tmpdir>/harness-docker-status.json`. */
  readonly sandboxStatusFile?: string;
  /** `HARNESS_DOCKER_PROBE_BINARY`: what the sandbox check runs. Default `/bin/true`. */
  readonly sandboxProbeBinary?: string;
  /** `HARNESS_DOCKER_EGRESS_TARGET`: an `IPv4:port` or `[IPv6]:port` the egress check connects to. Default unset: not measured. */
  readonly egressTarget?: string;
  /** `HARNESS_DOCKER_EGRESS_DNS_NAME`: the name the egress check resolves, with a target only. Default `registry.npmjs.org`. */
  readonly egressDnsName?: string;
  /** More `Host` header values accepted besides this machine's loopback names with the port. Default none. */
  readonly allowedHosts?: readonly string[];
  /** `Origin` header values accepted; any other Origin is refused. Default none. */
  readonly allowedOrigins?: readonly string[];
  /** Accept `file://` repository URLs (tests and the bench). Default false. */
  readonly allowFileRemotes?: boolean;
  /** How long a stopping server waits for its jobs to settle, in ms. Default 30,000. */
  readonly shutdownGraceMs?: number;
  /** The identity of the server's commits, `Name <email>`, set in every checkout. Default `Castellan <castellan@localhost>`. */
  readonly commitAuthor?: string;
  /**
   * The user's npm config file a job's own `.npmrc` is seeded from (read, never written). Default
   * `npm_config_userconfig` of `env`, else `~/.npmrc`.
   */
  readonly npmUserConfig?: string;
  /** Where settings not given as options are read. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Binds a job's model for each pass. Default: the body's provider through `@castellan/models`. */
  readonly modelFactory?: ModelFactory;
  /**
   * Starts the server's own processes (git clone, commit, push), detached, with exactly the
   * given `cwd` and `env`; tests pass a wrapper that records each argv. Default `spawnDetached`
   * from `@castellan/node-runner` (through its spawn broker).
   */
  readonly spawn?: SpawnProcess;
  /** Where the server's log lines go. Default: JSON lines on stderr. */
  readonly log?: (entry: { readonly kind: string; readonly [field: string]: unknown }) => void;
}

/** The options with every default applied and every value checked. */
export interface ResolvedExecutorOptions extends ExecutorKnobs {
  readonly host: string;
  readonly token: string;
  /** The token file's path, when the token came from one (jobs may not read it). */
  readonly tokenFile: string | undefined;
  readonly dataDirectory: string;
  readonly transcriptRoot: string;
  readonly sandboxStatusFile: string;
  readonly sandboxProbeBinary: string;
  readonly egressTarget: string | undefined;
  readonly egressDnsName: string;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly allowFileRemotes: boolean;
  readonly shutdownGraceMs: number;
  readonly commitAuthor: { readonly name: string; readonly email: string };
  readonly npmUserConfig: string;
  /** Whether `DOCKER_HOST` is set in the server's environment (its jobs' commands inherit it). */
  readonly dockerHostSet: boolean;
}

/** `Name <email>`, as git writes an identity. */
const identityPattern = /^([^<>\n]*[^<>\s])\s*<([^<>\s]+@[^<>\s]+)>$/;

function commitAuthorOf(value: unknown): { readonly name: string; readonly email: string } {
  if (value === undefined) return Object.freeze({ name: "Castellan", email: "castellan@localhost" });
  const match = typeof value === "string" ? identityPattern.exec(value.trim()) : null;
  if (!match) throw new ExecutorConfigError("commitAuthor", "commitAuthor must be `Name <email>`.");
  return Object.freeze({ name: match[1] as string, email: match[2] as string });
}

/** The shortest token accepted. */
export const minTokenLength = 32;

function text(value: unknown, setting: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") {
    throw new ExecutorConfigError(setting, `${setting} must be a non-empty string.`);
  }
  return value.trim();
}

function path(value: string, setting: string): string {
  if (value.includes("\0")) throw new ExecutorConfigError(setting, `${setting} is not a path.`);
  return isAbsolute(value) ? value : resolve(value);
}

function list(value: unknown, setting: string): readonly string[] {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string" && entry.length > 0)) {
    throw new ExecutorConfigError(setting, `${setting} must be a list of non-empty strings.`);
  }
  return Object.freeze(value.map((entry) => entry.toLowerCase()));
}

/** The token from the option, the token file, or the variable: at least 32 characters, never logged. */
function resolveToken(option: unknown, env: Readonly<Record<string, string | undefined>>): string {
  let token: string | undefined;
  let source: string;
  if (option !== undefined) {
    source = "token";
    token = typeof option === "string" ? option : undefined;
  } else if (env.CASTELLAN_EXECUTOR_TOKEN_FILE?.trim()) {
    source = "CASTELLAN_EXECUTOR_TOKEN_FILE";
    try {
      token = readFileSync(env.CASTELLAN_EXECUTOR_TOKEN_FILE.trim(), "utf8").replace(/\r?\n$/, "");
    } catch (error) {
      throw new ExecutorConfigError(source, `${source} names a file that cannot be read.`, { cause: error });
    }
  } else {
    source = "CASTELLAN_EXECUTOR_TOKEN";
    token = env.CASTELLAN_EXECUTOR_TOKEN;
  }
  if (token === undefined || token === "") {
    throw new ExecutorConfigError(
      source,
      "A bearer token is required: set CASTELLAN_EXECUTOR_TOKEN_FILE (preferred) or CASTELLAN_EXECUTOR_TOKEN, or pass token.",
    );
  }
  if (token.length < minTokenLength || /\s/.test(token)) {
    throw new ExecutorConfigError(
      source,
      `The token from ${source} must be at least ${minTokenLength} characters, without whitespace.`,
    );
  }
  return token;
}

/** Applies defaults and checks every setting; throws `ExecutorConfigError` naming the first bad one. */
export function resolveExecutorOptions(options: ExecutorServerOptions = {}): ResolvedExecutorOptions {
  const env = options.env ?? process.env;
  const knobs = resolveKnobs(options as Partial<Record<keyof ExecutorKnobs, unknown>>, env);
  const setting = (option: keyof ExecutorServerOptions, variable: string | undefined) =>
    text(options[option], option) ?? (variable === undefined ? undefined : text(env[variable] || undefined, variable));
  const grace = options.shutdownGraceMs ?? 30_000;
  if (!Number.isSafeInteger(grace) || grace < 0) {
    throw new ExecutorConfigError("shutdownGraceMs", "shutdownGraceMs must be a non-negative integer.");
  }
  if (options.allowFileRemotes !== undefined && typeof options.allowFileRemotes !== "boolean") {
    throw new ExecutorConfigError("allowFileRemotes", "allowFileRemotes must be a boolean.");
  }
  const dataDirectory = path(
    setting("dataDirectory", "CASTELLAN_EXECUTOR_DATA_DIR") ?? join(homedir(), ".castellan", "executor"),
    "dataDirectory",
  );
  return Object.freeze({
    ...knobs,
    host: setting("host", "CASTELLAN_EXECUTOR_HOST") ?? "127.0.0.1",
    token: resolveToken(options.token, env),
    tokenFile:
      options.token === undefined && env.CASTELLAN_EXECUTOR_TOKEN_FILE?.trim()
        ? resolve(env.CASTELLAN_EXECUTOR_TOKEN_FILE.trim())
        : undefined,
    dataDirectory,
    transcriptRoot: path(
      setting("transcriptRoot", "HARNESS_TRANSCRIPT_ROOT") ?? join(dataDirectory, "transcripts"),
      "transcriptRoot",
    ),
    sandboxStatusFile: path(
      setting("sandboxStatusFile", "HARNESS_DOCKER_STATUS_FILE") ?? join(tmpdir(), "harness-docker-status.json"),
      "sandboxStatusFile",
    ),
    sandboxProbeBinary: setting("sandboxProbeBinary", "HARNESS_DOCKER_PROBE_BINARY") ?? "/bin/true",
    egressTarget: setting("egressTarget", "HARNESS_DOCKER_EGRESS_TARGET"),
    egressDnsName: setting("egressDnsName", "HARNESS_DOCKER_EGRESS_DNS_NAME") ?? "registry.npmjs.org",
    allowedHosts: list(options.allowedHosts, "allowedHosts"),
    allowedOrigins: list(options.allowedOrigins, "allowedOrigins"),
    allowFileRemotes: options.allowFileRemotes ?? false,
    shutdownGraceMs: grace,
    commitAuthor: commitAuthorOf(options.commitAuthor),
    npmUserConfig: path(text(options.npmUserConfig, "npmUserConfig") ?? userNpmrcPath(env), "npmUserConfig"),
    dockerHostSet: Boolean(env.DOCKER_HOST),
  });
}
