#!/usr/bin/env node
// The `castellan` bin: runs the command line and exits with its code (cli/run-cli.ts).
import { runCli } from "../cli/run-cli.js";

process.title = "castellan";
process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
});
