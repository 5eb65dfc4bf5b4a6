// The kinds' table and the phase runner: where credentials sit is read from each kind's
// schema, routes are checked, and a kind of one's own (one row) runs its phases in order,
// settles on a failure, stops at a throw, and always removes its checkout. No agent, no git.
import { access, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentJobOptions,
  type BranchCheckout,
  blueprintBodySchema,
  bodyWithoutCredentials,
  bootstrapBodySchema,
  type ClonedCheckout,
  coderBodySchema,
  createInventoryMemo,
  createRedactor,
  credentialEntries,
  credentialFieldsOf,
  credentialsOf,
  credentialValue,
  defineJobKind,
  JobFailure,
  type JobRun,
  type JobSetup,
  JobTelemetry,
  type JobWorkFields,
  jobBodySchemas,
  jobCredentialFields,
  jobIdentity,
  jobKindNames,
  kindOfRoute,
  kindRoutes,
  parseJobBody,
  resolveKnobs,
  type SharedBody,
} from "../src/index.js";
import { tempDirPerTest } from "./support.js";

const settings = {
  maxConsecutiveMcpCalls: 1,
  maxConsecutiveWebCalls: 1,
  maxConsecutiveNonActionCalls: 1,
  noEditCallLimit: 1,
  allowFileRemotes: false,
};

const pathsOf = (schema: z.ZodType) =>
  credentialFieldsOf(schema).map(({ path, mark }) => `${path.join(".")}:${mark.kind}`);

describe("credential fields", () => {
  it("are read from each kind's schema, once, where the schema marks them", () => {
    const shared = [
      "model.token:value",
      "repo.token:value",
      "mcpServers.*:named-entries",
      "referenceScreenshots.token:value",
      "designImages.token:value",
      "artifactUpload.token:value",
      "packageRegistries.*.token:value",
    ];
    expect(pathsOf(coderBodySchema(settings)).sort()).toEqual([...shared].sort());
    expect(pathsOf(blueprintBodySchema(settings)).sort()).toEqual([...shared].sort());
    expect(pathsOf(bootstrapBodySchema(settings)).sort()).toEqual([...shared, "reference.token:value"].sort());
    const fields = jobCredentialFields(jobBodySchemas(settings));
    expect(Object.keys(fields)).toEqual([...jobKindNames]);
  });

  it("walk unions, defaults, pipes, nullables and read-only wrappers, and refuse a schema nested too deep", () => {
    const secret = credentialValue(z.string());
    const server = credentialEntries(
      z.strictObject({ env: z.record(z.string(), z.string()), secretKeys: z.array(z.string()) }),
    );
    const schema = z.strictObject({
      either: z.union([z.strictObject({ a: secret }), z.strictObject({ b: secret.nullable() })]),
      kept: z.strictObject({ c: secret.default("x").readonly() }),
      piped: secret.transform((text) => text.length),
      servers: z.array(server).optional(),
    });
    expect(pathsOf(schema)).toEqual([
      "either.a:value",
      "either.b:value",
      "kept.c:value",
      "piped:value",
      "servers.*:named-entries",
    ]);
    let deep: z.ZodType = secret;
    for (let level = 0; level < 40; level++) deep = z.strictObject({ next: deep });
    expect(() => credentialFieldsOf(deep)).toThrow(/deeper than 32 levels/);
  });

  it("leave a body's record and identity without a credential, and give the redactor every one", () => {
    const fields = credentialFieldsOf(coderBodySchema(settings));
    const body = {
      jobId: "j",
      model: { provider: "anthropic", token: "model-secret", id: "m" },
      repo: { url: "https://127.0.0.1/r.git", baseBranch: "main", token: "repo-secret" },
      packageRegistries: [{ registry: "https://127.0.0.1/npm/", token: "npm-secret" }],
      mcpServers: [
        {
          name: "tools",
          transport: "stdio",
          command: "tool",
          env: { TOOL_KEY: "tool-secret", TOOL_MODE: "fast" },
          secretKeys: ["TOOL_KEY"],
        },
      ],
    };
    expect(bodyWithoutCredentials(body, fields)).toEqual({
      jobId: "j",
      model: { provider: "anthropic", id: "m" },
      repo: { url: "https://127.0.0.1/r.git", baseBranch: "main" },
      packageRegistries: [{ registry: "https://127.0.0.1/npm/" }],
      mcpServers: [
        { name: "tools", transport: "stdio", command: "tool", env: { TOOL_MODE: "fast" }, secretKeys: ["TOOL_KEY"] },
      ],
    });
    expect(credentialsOf(body, fields).sort()).toEqual(["model-secret", "npm-secret", "repo-secret", "tool-secret"]);
    const refreshed = { ...body, model: { ...body.model, token: "model-secret-2" } };
    expect(jobIdentity("run", refreshed, fields)).toBe(jobIdentity("run", body, fields));
    expect(jobIdentity("blueprint", body, fields)).not.toBe(jobIdentity("run", body, fields));
  });
});

describe("the kinds' table", () => {
  it("maps each route to one kind", () => {
    expect([...kindOfRoute]).toEqual([
      ["run", "coder"],
      ["bootstrap", "bootstrap"],
      ["blueprint", "blueprint"],
    ]);
  });

  it("refuses two kinds on one route, a reserved route and a malformed one", () => {
    expect(() => kindRoutes({ a: { route: "same" }, b: { route: "same" } })).toThrow(
      "Job kinds a and b both claim the route /same.",
    );
    expect(() => kindRoutes({ a: { route: "jobs" } })).toThrow(/not health or jobs/);
    expect(() => kindRoutes({ a: { route: "two/parts" } })).toThrow(/one lowercase segment/);
  });
});

const temp = tempDirPerTest("castellan-job-kinds-");
const telemetries: JobTelemetry[] = [];
afterEach(async () => {
  for (const telemetry of telemetries.splice(0)) await telemetry.close();
});

/** The work and options of one job of a kind defined in the test. */
async function jobOf(controller = new AbortController()) {
  const directory = join(temp.path, "jobs", "k1");
  await mkdir(directory, { recursive: true });
  const telemetry = await JobTelemetry.open(join(directory, "telemetry.jsonl"));
  telemetries.push(telemetry);
  const phases: (string | undefined)[] = [];
  const work: JobWorkFields = {
    jobId: "k1",
    directory,
    signal: controller.signal,
    telemetry,
    redactor: createRedactor(["model-secret"]),
    publishRunEvent: () => undefined,
    update: async (patch) => {
      phases.push(patch.phase);
    },
  };
  const options: AgentJobOptions = {
    modelFactory: () => {
      throw new Error("No pass runs in these tests.");
    },
    limits: resolveKnobs({}, {}),
    protectedPaths: [],
    inventory: {
      memo: createInventoryMemo(),
      sandboxProbeBinary: "/bin/true",
      egressTarget: undefined,
      egressDnsName: "egress.invalid",
      dockerHostSet: false,
    },
    commitAuthor: { name: "Castellan", email: "castellan@example.invalid" },
    transcriptRoot: join(temp.path, "transcripts"),
  };
  const body = parseJobBody(
    {
      jobId: "k1",
      model: { provider: "anthropic", token: "model-secret", id: "m" },
      systemPrompt: "Sort it.",
      repo: { url: "https://127.0.0.1/r.git", baseBranch: "main" },
    },
    blueprintBodySchema(settings),
    [],
  );
  return { work, options, body, phases, checkout: join(directory, "checkout") };
}

/** A clone that makes a checkout without git: the phase runner does not care how. */
async function plainClone(setup: JobSetup<SharedBody>): Promise<ClonedCheckout> {
  await setup.work.update({ phase: "clone" });
  await mkdir(setup.directories.checkout, { recursive: true });
  await writeFile(join(setup.directories.checkout, "file.txt"), "made\n");
  return { startSha: undefined, baseSha: undefined, git: setup.openCheckoutGit() };
}

/** A kind of the test's own: the plain clone, no salvage, these steps. */
const kindWith = (steps: readonly ((run: JobRun) => Promise<void>)[]) =>
  defineJobKind({
    route: "sort",
    bodySchema: blueprintBodySchema,
    phases: { clone: plainClone, salvage: false, steps },
  });

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe("a kind of one's own", () => {
  it("runs its steps in order, builds its result from the findings, and removes its checkout", async () => {
    const { work, options, body, phases, checkout } = await jobOf();
    const order: string[] = [];
    const kind = kindWith([
      async (run) => {
        order.push("first");
        expect(await exists(join(run.directories.checkout, "file.txt"))).toBe(true);
        run.findings.report.sorted = run.body.jobId;
      },
      async (run) => {
        order.push("second");
        run.findings.notes.push("the model-secret was seen");
      },
    ]);
    const outcome = await kind.run(work, body, options);
    expect(order).toEqual(["first", "second"]);
    expect(phases).toEqual(["clone"]);
    expect(outcome).toEqual({ result: { sorted: "k1", summary: "", notes: [expect.any(String)] } });
    expect(JSON.stringify(outcome)).not.toContain("model-secret");
    expect(await exists(checkout)).toBe(false);
  });

  it("ends in a failure a step settled on, with the result as its evidence, after the later steps ran", async () => {
    const { work, options, body } = await jobOf();
    const kind = kindWith([
      async (run) => {
        run.findings.failure = { code: "still-red", message: "The checks failed." };
      },
      async (run) => {
        run.findings.report.pushed = true;
      },
    ]);
    expect(await kind.run(work, body, options)).toEqual({
      error: { code: "still-red", message: "The checks failed.", evidence: { pushed: true, summary: "" } },
    });
  });

  it("stops at a step that throws: its failure's code, scrubbed, later steps skipped, the checkout removed", async () => {
    const { work, options, body, checkout } = await jobOf();
    const later: string[] = [];
    const kind = kindWith([
      async () => {
        throw new JobFailure("no-sort", "Nothing to sort with model-secret.", { tried: 1 });
      },
      async () => {
        later.push("ran");
      },
    ]);
    const outcome = await kind.run(work, body, options);
    expect(outcome).toMatchObject({ error: { code: "no-sort", evidence: { tried: 1 } } });
    expect(JSON.stringify(outcome)).not.toContain("model-secret");
    expect(later).toEqual([]);
    expect(await exists(checkout)).toBe(false);
  });

  it("answers aborted when the job is stopped mid-step", async () => {
    const controller = new AbortController();
    const { work, options, body } = await jobOf(controller);
    const kind = kindWith([
      async (run) => {
        controller.abort(new Error("stop"));
        run.signal.throwIfAborted();
      },
    ]);
    expect(await kind.run(work, body, options)).toEqual({
      error: { code: "aborted", message: "The job was stopped." },
    });
  });

  it("types a step by the checkout its kind's clone makes", () => {
    const needsPusher = async (run: JobRun<SharedBody, BranchCheckout>) => {
      await run.cloned.pusher.push();
    };
    const row = () =>
      defineJobKind({
        route: "sort",
        bodySchema: blueprintBodySchema,
        // @ts-expect-error A clone without a pusher cannot feed a step that pushes.
        phases: { clone: plainClone, salvage: false, steps: [needsPusher] },
      });
    expect(typeof row).toBe("function");
  });
});
