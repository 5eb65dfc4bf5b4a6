// Two ways to reach a test's checkout with git. `sandboxedCheckoutGit` is the server's own (git
// in the OS sandbox). `hostCheckoutGit` runs git on the host over the checkout: what the server
// did before the trust boundary, kept here as the deliberately unsafe configuration the attack
// corpus proves itself able to fail against, and for unit tests of git logic that need no sandbox.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type CheckoutGit,
  createRedactor,
  type GitContext,
  jobEnvironmentPolicy,
  runGit,
  SandboxedCheckoutGit,
  scanProgramConfig,
} from "../src/index.js";

/** Git on the host over `root`, with the server's old overrides only (hooks and credential helper). */
export function hostCheckoutGit(root: string, context: GitContext): CheckoutGit {
  const git: CheckoutGit = {
    root,
    run: (args, call = {}) =>
      runGit(args, call.cwd ? join(root, call.cwd) : root, call.signal ? { ...context, signal: call.signal } : context),
    script: async (script, call = {}) =>
      (
        await promisify(execFile)("/bin/sh", ["-c", script], {
          cwd: call.cwd ? join(root, call.cwd) : root,
          env: { ...context.env },
          maxBuffer: 16 * 1024 * 1024,
          ...(call.signal ? { signal: call.signal } : {}),
        })
      ).stdout,
    refusedConfig: (call) => scanProgramConfig(git, call),
  };
  return git;
}

/** The server's checkout git for a test: in the OS sandbox, the home writable, `writable` too. */
export function sandboxedCheckoutGit(
  root: string,
  home: string,
  writable: readonly string[] = [],
): SandboxedCheckoutGit {
  return new SandboxedCheckoutGit({
    commands: {
      root,
      environment: jobEnvironmentPolicy(home),
      filesystem: { allowRead: [root, home, ...writable], allowWrite: [home, ...writable] },
    },
    redactor: createRedactor(),
    signal: new AbortController().signal,
  });
}
