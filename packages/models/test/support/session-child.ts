import type { Agent } from "@castellan/harness";
import { createFileSessionStore, openSession } from "@castellan/node-runner";

/** In a child process: opens file-store Session `id` in `directory`, runs `input`, writes `print(text)` and a newline to stdout. */
export async function runOneTurn(
  agent: Agent,
  id: string,
  directory: Parameters<typeof createFileSessionStore>[0]["directory"],
  input: string,
  print: (text: string) => string = (text) => text,
): Promise<void> {
  const session = await openSession({ agent, id, store: createFileSessionStore({ directory }) });
  try {
    const result = await session.run(input).result;
    process.stdout.write(`${print(result.text)}\n`);
  } finally {
    await session.close();
  }
}
