import { type ChildProcess, spawn } from "node:child_process";
import { access, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFileSessionStore } from "./file-store.js";
import type { SessionRecord } from "./records.js";

// Cross-process tests run a child Node process on the built package (dist), as a real second
// writer would. Build first: `npm run build`.

const builtStore = fileURLToPath(new URL("../../../dist/index.js", import.meta.url));

/** The child: opens the Session, reports its records, then obeys "append" and "close". */
const childScript = `
import { createFileSessionStore } from ${JSON.stringify(pathToFileURL(builtStore).href)};
const [directory, sessionId] = process.argv.slice(2);
try {
  const log = await createFileSessionStore({ directory }).open(sessionId);
  process.on("message", async (message) => {
    if (message.type === "append") {
      await log.append(message.records);
      process.send({ type: "appended" });
    } else if (message.type === "close") {
      await log.close();
      process.send({ type: "closed" }, () => process.disconnect());
    }
  });
  process.send({ type: "opened", records: log.records });
} catch (error) {
  process.send({ type: "failed", code: error.code, message: error.message }, () => process.disconnect());
}
`;

interface ChildMessage {
  readonly type: string;
  readonly records?: SessionRecord[];
  readonly code?: string;
}

const opening: SessionRecord = {
  kind: "session-open",
  formatVersion: 1,
  sessionId: "s1",
  agentId: "helper",
  params: { depth: 1 },
};

let root: string;
let scriptPath: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await access(builtStore).catch(() => {
    throw new Error(`${builtStore} is missing; run \`npm run build\` before these tests.`);
  });
});

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-lock-"));
  scriptPath = join(root, "child.mjs");
  await writeFile(scriptPath, childScript);
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child)));
  await rm(root, { recursive: true, force: true });
});

function startChild(sessionId: string): ChildProcess {
  const child = spawn(process.execPath, [scriptPath, join(root, "logs"), sessionId], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  children.push(child);
  return child;
}

/** The child's next message; rejects if it exits first. */
function nextMessage(child: ChildProcess): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ChildMessage) => {
      child.off("exit", onExit);
      resolve(message);
    };
    const onExit = (code: number | null, signal: string | null) => {
      child.off("message", onMessage);
      reject(new Error(`The child exited (${code ?? signal}) before sending a message.`));
    };
    child.once("message", onMessage);
    child.once("exit", onExit);
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

const lockPath = () => join(root, "logs", "s1.lock");
const store = () => createFileSessionStore({ directory: join(root, "logs") });

describe("the writer lock", () => {
  it("lets a new process read what this one wrote, and this one read what it appended", async () => {
    const written: SessionRecord = { kind: "run-start", runId: "run-1", input: [{ type: "text", text: "ünïcode" }] };
    const log = await store().open("s1");
    await log.append([opening, written]);
    await log.close();

    const child = startChild("s1");
    const opened = await nextMessage(child);
    expect(opened).toEqual({ type: "opened", records: [opening, written] });
    const added: SessionRecord = { kind: "run-end", runId: "run-1", status: "completed" };
    child.send({ type: "append", records: [added] });
    expect(await nextMessage(child)).toEqual({ type: "appended" });
    child.send({ type: "close" });
    expect(await nextMessage(child)).toEqual({ type: "closed" });

    const reopened = await store().open("s1");
    expect(reopened.records.at(-1)).toEqual(added);
    expect(reopened.records).toHaveLength(3);
    await reopened.close();
  });

  it("refuses a second writer in this process, through the same or another store object", async () => {
    const log = await store().open("s1");
    await expect(store().open("s1")).rejects.toMatchObject({
      code: "session_locked",
      message: expect.stringMatching(/"s1".*another writer in this process/),
    });
    const sameStore = store();
    const other = await sameStore.open("s2");
    await expect(sameStore.open("s2")).rejects.toMatchObject({ code: "session_locked" });
    await other.close();
    await log.close();
    const again = await store().open("s1");
    await again.close();
  });

  it("refuses a writer while another live process holds the Session, naming its pid", async () => {
    const child = startChild("s1");
    expect(await nextMessage(child)).toMatchObject({ type: "opened" });
    await expect(store().open("s1")).rejects.toMatchObject({
      code: "session_locked",
      message: expect.stringContaining(`process ${child.pid} holds it`),
    });

    child.send({ type: "close" });
    expect(await nextMessage(child)).toEqual({ type: "closed" });
    const log = await store().open("s1");
    await log.close();
  });

  it("refuses the child while this process holds the Session", async () => {
    const log = await store().open("s1");
    const child = startChild("s1");
    expect(await nextMessage(child)).toMatchObject({ type: "failed", code: "session_locked" });
    await log.close();
  });

  it("takes over the lock of a killed writer", async () => {
    const child = startChild("s1");
    expect(await nextMessage(child)).toMatchObject({ type: "opened" });
    await stop(child);
    expect(JSON.parse(await readFile(lockPath(), "utf8"))).toMatchObject({ pid: child.pid, host: hostname() });

    const log = await store().open("s1");
    expect(JSON.parse(await readFile(lockPath(), "utf8"))).toMatchObject({ pid: process.pid });
    await log.append([opening]);
    await log.close();
    await expect(access(lockPath())).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("reports a lock held on another host, which it cannot check", async () => {
    await store()
      .open("s0")
      .then((log) => log.close());
    await writeFile(lockPath(), JSON.stringify({ pid: 1, host: "elsewhere.invalid", at: new Date().toISOString() }));
    await expect(store().open("s1")).rejects.toMatchObject({
      code: "session_locked",
      message: expect.stringContaining('host "elsewhere.invalid"'),
    });
  });

  it("takes over a lock left by an earlier process that had this pid, not one of this process", async () => {
    await store()
      .open("s0")
      .then((log) => log.close());
    const lock = { pid: process.pid, host: hostname(), at: new Date().toISOString() };
    await writeFile(
      lockPath(),
      JSON.stringify({ ...lock, started: new Date(Date.now() - process.uptime() * 1000).toISOString() }),
    );
    await expect(store().open("s1")).rejects.toMatchObject({ code: "session_locked" });

    await writeFile(lockPath(), JSON.stringify({ ...lock, started: "2000-01-01T00:00:00.000Z" }));
    const log = await store().open("s1");
    await log.close();
  });

  it("treats an unreadable lock as being written while young and as stale once old", async () => {
    await store()
      .open("s0")
      .then((log) => log.close());
    await writeFile(lockPath(), "");
    await expect(store().open("s1")).rejects.toMatchObject({
      code: "session_locked",
      message: expect.stringContaining("not readable as a lock"),
    });

    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(lockPath(), anHourAgo, anHourAgo);
    const log = await store().open("s1");
    await log.close();
  });

  it("removes the staging files of writers killed while taking the lock, and keeps those of live ones", async () => {
    await store()
      .open("s0")
      .then((log) => log.close());
    // A process that has exited: its pid names no live process.
    const gone = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await new Promise((resolve) => gone.once("exit", resolve));
    const holder = (pid: number, host = hostname()) => JSON.stringify({ pid, host, at: new Date().toISOString() });
    const staging = (name: string) => `${lockPath()}.${name}.tmp`;
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await writeFile(staging(`${gone.pid}.dead`), holder(gone.pid as number));
    await writeFile(staging("0.torn-old"), "");
    await utimes(staging("0.torn-old"), anHourAgo, anHourAgo);
    await writeFile(staging("0.torn-young"), '{"pid":');
    await writeFile(staging(`${process.ppid}.live`), holder(process.ppid));
    await writeFile(staging(`${gone.pid}.remote`), holder(gone.pid as number, "elsewhere.invalid"));
    await writeFile(`${lockPath()}.notes`, "not a staging file");

    const log = await store().open("s1");
    await log.close();
    const left = (await readdir(join(root, "logs"))).filter((name) => name.startsWith("s1.")).sort();
    expect(left).toEqual(
      [
        "s1.lock.0.torn-young.tmp",
        `s1.lock.${process.ppid}.live.tmp`,
        `s1.lock.${gone.pid}.remote.tmp`,
        "s1.lock.notes",
      ].sort(),
    );
  });
});
