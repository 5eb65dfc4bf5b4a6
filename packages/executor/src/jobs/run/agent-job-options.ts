import type { RunEvent } from "@castellan/harness";
import type { ModelFactory } from "../../agent/model-factory.js";
import type { ExecutorKnobs } from "../../config/knobs.js";
import type { CommitAuthor } from "../../git/checkout.js";
import type { SpawnProcess } from "../../git/git.js";
import type { JobInventoryOptions } from "../../inventory/job-inventory.js";

/** What the job runner needs from its server. */
export interface AgentJobOptions {
  readonly modelFactory: ModelFactory;
  /** The server's knobs: watchdogs, guard limits (a body may raise those), command timeouts and heartbeats. */
  readonly limits: ExecutorKnobs;
  /**
   * The server's own paths no job's commands may read (the data directory, the transcript
   * root, the token file); the job's own checkout and home are opened again inside them.
   */
  readonly protectedPaths: readonly string[];
  /** How the environment inventory is measured, and the settled findings the server's jobs share. */
  readonly inventory: Omit<JobInventoryOptions, "probe" | "network">;

  /** The identity of the server's commits, set in each checkout for the agent's too. */
  readonly commitAuthor: CommitAuthor;
  /** The user's npm config a job's `.npmrc` is seeded from. Default `npm_config_userconfig`, else `~/.npmrc`. */
  readonly npmUserConfig?: string;
  /** How long the last checkpoint of a job stopped mid-pass may take. Default 10,000 ms. */
  readonly finalCheckpointMs?: number;
  /** Starts the server's own processes (git). Default `spawnDetached` from `@castellan/node-runner`. */
  readonly spawn?: SpawnProcess;
  /** Where a warning goes (a probe that could not tell). */
  readonly log?: (entry: { readonly kind: string; readonly [field: string]: unknown }) => void;
  /** Where Session logs are kept: `<transcriptRoot>/<jobId>.<8 hex>/`, marked for the retention sweep. */
  readonly transcriptRoot: string;
  /** Each Run event of a pass, with the pass's name. */
  readonly onEvent?: (jobId: string, pass: string, event: RunEvent) => void;
}
