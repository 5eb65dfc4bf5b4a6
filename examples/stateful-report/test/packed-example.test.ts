// The stateful-report example as a consumer gets it: installed from the packed tarballs
// outside the workspace, typechecked there, and run as three separate OS processes on one
// file-stored Session: record the updates, compact, then report from the receipts.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPackedConsumer, exec, type PackedConsumer } from "../../test-support/pack.ts";

const example = fileURLToPath(new URL("../report.ts", import.meta.url));
let packed: PackedConsumer;

beforeAll(async () => {
  packed = await createPackedConsumer([example]);
}, 300_000);

afterAll(async () => {
  if (packed) await packed.remove();
});

/** The saved records of the example's Session, in order. */
async function savedRecords(sessions: string): Promise<{ kind: string; [field: string]: unknown }[]> {
  const text = await readFile(join(sessions, "weekly-report.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => (JSON.parse(line) as { record: { kind: string } }).record);
}

describe("the packed stateful-report example", () => {
  it("typechecks against the packed type declarations", async () => {
    const read = await packed.typecheck();
    expect(read.entries).toEqual(["report.ts"]);
    expect(read.packages).toEqual(["harness", "models", "node-runner"]);
    expect(read.workspaceFiles).toEqual([]);
  });

  it("keeps its progress through compaction and a fresh process", async () => {
    const sessions = join(packed.directory, "sessions");
    const env = { ...process.env, REPORT_SESSIONS: sessions };
    const node = (command: string) => exec(process.execPath, ["report.ts", command], { cwd: packed.directory, env });

    const update = await node("update");
    expect(update.stdout).toContain("Updates recorded: 3");
    let records = await savedRecords(sessions);
    const receipts = records.filter((record) => record.kind === "tool-end" && record.toolName === "record_update");
    expect(receipts).toHaveLength(3);
    const committed = records.filter((record) => record.kind === "tool-batch-end" && record.status === "committed");
    expect(committed.map((record) => record.changes)).toEqual([{ updates: 1 }, { updates: 2 }, { updates: 3 }]);
    expect(records.filter((record) => record.kind === "compaction")).toEqual([]);

    const compact = await node("compact");
    expect(compact.stdout).toMatch(/Compacted \d+ message\(s\) into a summary/);
    records = await savedRecords(sessions);
    const compactions = records.filter((record) => record.kind === "compaction");
    expect(compactions).toHaveLength(1);
    expect(compactions[0]?.summary).toContain("record_update was called 3 time(s)");

    const summary = await node("summary");
    expect(summary.stdout).toContain("report_status: Completed updates (from receipts): 3, in 1 Run(s)");
    expect(summary.stdout).toContain("Durable state agrees: updates = 3.");
    // The third process recorded nothing new: the tool stayed hidden, and the receipts it read are the first process's.
    records = await savedRecords(sessions);
    expect(records.filter((record) => record.kind === "tool-end" && record.toolName === "record_update")).toHaveLength(
      3,
    );
    expect(records.filter((record) => record.kind === "run-end").map((record) => record.status)).toEqual([
      "completed",
      "completed",
    ]);
  });
});
