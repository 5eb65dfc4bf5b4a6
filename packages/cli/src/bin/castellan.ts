#!/usr/bin/env node
// The `castellan` bin: `castellan serve ...` is the executor's own command line (the same
// options, environment and exit codes as `castellan-executor serve`); everything else runs
// through cli/run-cli.ts. SIGINT, SIGTERM and SIGHUP abort the current Run: it stops, its
// commands end, the Session closes, and the exit code is 130.
const argv = process.argv.slice(2);

/** Resolves when everything written to `stream` so far has been handed to the OS. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => (stream.writableLength === 0 ? resolve() : stream.write("", () => resolve())));
}
if (argv[0] === "serve") {
  const { executorMain } = await import("@castellan/executor");
  await executorMain(argv);
} else {
  const { runCli } = await import("../cli/run-cli.js");
  process.title = "castellan";
  const interrupt = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      if (interrupt.signal.aborted)
        process.stderr.write("castellan: still stopping: waiting for the commands to end...\n");
      interrupt.abort(new Error(`interrupted by ${signal}`));
    });
  }
  const code = await runCli(argv, {
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    // A getter: touching process.stdin opens it, and only `-p -` reads it.
    get stdin() {
      return process.stdin;
    },
    interrupt: interrupt.signal,
  });
  // The command is over: exit once stdout and stderr have drained, without waiting for a
  // provider's kept-alive connection or any other handle a library left open.
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}
