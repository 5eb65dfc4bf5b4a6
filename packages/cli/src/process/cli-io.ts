/** What one `castellan` invocation runs with: the process's, or a test's. */
export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Read by `-p -`. */
  readonly stdin: AsyncIterable<string | Uint8Array>;
  /** Aborted on SIGINT (and SIGTERM, SIGHUP): the Run stops, its commands end, exit 130. */
  readonly interrupt?: AbortSignal;
}
