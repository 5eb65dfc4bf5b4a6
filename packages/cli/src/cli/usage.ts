/** The synopsis printed with a usage error. */
export const usage = [
  "usage: castellan -p <task> [--json] [agent flags]",
  "       castellan sessions [--all] [--json] [--limit N]",
  "       castellan doctor [--json]",
  "       castellan serve [castellan-executor serve options]",
  "       castellan --help | --version",
].join("\n");

/** What `castellan --help` prints. */
export const help = `${usage}

Castellan's coding agent in this directory, its saved Sessions and its machine check.

Commands:
  -p, --print <task>  one Run of the agent without a terminal; "-" reads the task from stdin.
                      Prints the final text, and "session: <id>" on stderr
    --json            print every Run event as one JSON line instead (the last is run-end)
    --approval-wait MS  how long a tool call that needs approval waits for an answer before
                      it is denied (default 0)
  sessions            the saved Sessions of this directory, newest first: id, updated, Runs,
                      the last Run's status, pending approvals and the start of the first input
    --all             every saved Session, with its workspace
    --json            the same fields as one JSON array
    --limit N         at most N Sessions (default 20)
  doctor              what this machine has and lacks: Node, bubblewrap, socat, ripgrep, git,
                      Chromium, a real sandbox probe, and which provider keys are set
    --json            the checks as one JSON array
  serve               the executor's job server, exactly as castellan-executor serve

Agent flags:
  -c, --continue      continue the most recently updated Session of this directory
  --resume <id>       continue that Session
  --permissions P     read-only | ask-on-write | full-access (default ask-on-write)
  --sandbox S         os | none (default os: commands run in bubblewrap with no network;
                      without bubblewrap castellan stops, it never falls back)
  --model M           <provider>/<id> or <id>; providers: anthropic, codex, openai, openrouter
  --browser           add the managed Chromium's browser tools

Options:
  -h, --help          print this and exit
  --version           print the version and exit

Models: the first provider whose key is set, in the order ANTHROPIC_API_KEY,
CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN, OPENAI_API_KEY, OPENROUTER_API_KEY; keys are never printed.
State is kept in $CASTELLAN_HOME (default ~/.castellan): sessions/, tasks/ and live/.
Exit codes: 0 done, 1 a failed Run or error, 2 a bad command line or configuration, 130 interrupted.
`;
