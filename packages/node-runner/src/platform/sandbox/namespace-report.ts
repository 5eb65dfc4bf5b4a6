// bubblewrap tells the pid of the PID namespace's init on `--info-fd` the moment it has made it,
// before that init runs anything. The runtime's command line does not ask for it, so it is added
// here: the supervisor then kills that init, and with it the whole namespace, when it ends the
// command, whatever the process tree looks like at that moment. The runtime is pinned, and its
// command line has two shapes (bwrap run directly, or through a `/bin/sh` that first opens the
// file of mount arguments); any other shape is refused, so no sandboxed command runs without it.
import { SandboxUnavailableError } from "./errors.js";

/** The descriptor the report uses: the first after stdio (the runtime keeps 9 for its argument file). */
export const namespaceReportFd = 3;

/** The runtime's rendering of one word for a POSIX shell (bare when nothing in it is special). */
function shellWord(word: string): string {
  if (/^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@+,-]*$/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

/** What precedes bwrap when its mount arguments go through a file (the runtime's `--args` form). */
const argsFilePrefix = /^\/bin\/sh -c 'exec 9<"\$1" && shift && exec "\$@"' srt-args \/proc\/\d+\/fd\/\d+ $/;

/**
 * The runtime's argv (`[shell, "-c", <bwrap invocation>]`) with `--info-fd 3` added to
 * bubblewrap's options, and the descriptor to read. Off Linux the runtime runs no bubblewrap:
 * the argv is returned as it is, with no descriptor.
 *
 * @throws SandboxUnavailableError (`sandbox_unavailable`) when on Linux the invocation is not one of the
 *   runtime's two shapes.
 */
export function withNamespaceReport(
  argv: readonly string[],
  bwrapPath: string,
  platform: NodeJS.Platform = process.platform,
): { readonly argv: readonly string[]; readonly reportFd: number | undefined } {
  if (platform !== "linux") return { argv, reportFd: undefined };
  const [shell, flag, invocation, ...rest] = argv;
  if (shell === undefined || flag !== "-c" || typeof invocation !== "string" || rest.length > 0) {
    throw new SandboxUnavailableError("The sandbox runtime's argv is not [shell, -c, command]; nothing was run.", []);
  }
  // The runtime's options start every invocation; the command comes only after them.
  const head = `${shellWord(bwrapPath)} --new-session `;
  const at = invocation.indexOf(head);
  if (at < 0 || (at > 0 && !argsFilePrefix.test(invocation.slice(0, at)))) {
    throw new SandboxUnavailableError(
      `The sandbox runtime's command line does not start bubblewrap (${bwrapPath}) as expected, so the namespace it makes could not be followed; nothing was run.`,
      [],
    );
  }
  const split = at + shellWord(bwrapPath).length;
  const reported = `${invocation.slice(0, split)} --info-fd ${namespaceReportFd}${invocation.slice(split)}`;
  return { argv: [shell, flag, reported], reportFd: namespaceReportFd };
}
