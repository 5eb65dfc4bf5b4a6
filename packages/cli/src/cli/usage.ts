/** The synopsis printed with a usage error. */
export const usage = [
  "usage: castellan sessions [--all] [--json] [--limit N]",
  "       castellan --help | --version",
].join("\n");

/** What `castellan --help` prints. */
export const help = `${usage}

Castellan's command line.

Commands:
  sessions        the saved Sessions of this directory, newest first: id, updated, Runs,
                  the last Run's status, pending approvals and the start of the first input
    --all         every saved Session, with its workspace
    --json        the same fields as one JSON array
    --limit N     at most N Sessions (default 20)

Options:
  --help          print this and exit
  --version       print the version and exit

Sessions are kept in $CASTELLAN_HOME/sessions (default ~/.castellan/sessions).
Exit codes: 0 done, 1 a failure, 2 a bad command line.
`;
