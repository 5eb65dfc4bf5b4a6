import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunEvent } from "@castellan/harness";
import { makePrivateDirectory } from "@castellan/node-runner";
import { jobCapabilities } from "../../capabilities/job-capabilities.js";
import { materializeSkills } from "../../capabilities/skill-files.js";
import { designImagesCorrection } from "../../context/design-images-correction.js";
import { screenshotsBlock } from "../../context/screenshots-block.js";
import { stageContextImages } from "../../context/stage-context-images.js";
import { mergeRefused } from "../../git/program-config-scan.js";
import { composePassInstructions } from "../../instructions/pass-instructions.js";
import { jobInventory } from "../../inventory/job-inventory.js";
import { templateInstructions } from "../../pr/template/instructions.js";
import { readSentinels } from "../../sentinels/read-sentinels.js";
import { ToolGuard } from "../../watch/tool-guard.js";
import type { SharedBody } from "../body/body-fields.js";
import type { ClonedCheckout, JobFindings } from "./job-run.js";
import { type JobSetup, retainedMarker } from "./job-setup.js";
import { type PassContext, runPass, type StoppedPass } from "./pass-runner.js";

/**
 * The agent passes of one job: a function that runs one pass with everything every pass is
 * told (the inventory, the install's note, the PR template when a pull request ends the job,
 * the staged context files), a repair pass with why it runs too, then reads the sentinels and
 * the checkout's git config. The first call makes the transcript directory (marked for the
 * retention sweep), the tool guard, and the body's skills and tool servers (materialised
 * outside the checkout: nothing of the checkout's own is loaded). `salvage` says whether the
 * server commits what each pass left uncommitted; `stopped` is filled by a pass the job is
 * stopped in.
 */
export function jobPasses<Body extends SharedBody>(
  setup: JobSetup<Body>,
  cloned: ClonedCheckout & { readonly pusher?: PassContext["pusher"] },
  findings: JobFindings,
  options: { readonly salvage: boolean; readonly stopped: StoppedPass },
): (repair?: string) => Promise<void> {
  const { work, body, redactor, watch, signal, directories } = setup;
  const limits = setup.options.limits;
  let context: Promise<PassContext> | undefined;
  let repairs = 0;
  const followUpsSeen = new Set<string>();

  const open = async (): Promise<PassContext> => {
    const transcriptDirectory = join(setup.options.transcriptRoot, `${work.jobId}.${randomBytes(4).toString("hex")}`);
    await makePrivateDirectory(transcriptDirectory);
    const marker = join(transcriptDirectory, retainedMarker);
    await writeFile(marker, `${work.jobId}\n`, { mode: 0o600 });
    setup.retain(marker);
    if (body.skills && body.skills.length > 0) await materializeSkills(directories.skills, body.skills);
    const capabilities = jobCapabilities({
      skills: body.skills,
      mcpServers: body.mcpServers,
      skillsDirectory: directories.skills,
    });
    for (const secret of capabilities.secrets) redactor.add(secret);
    // The inventory is measured once per job; later passes are told the same.
    let inventory: Promise<string> | undefined;
    const onEvent = setup.options.onEvent;
    return {
      work,
      checkout: directories.checkout,
      checkoutGit: cloned.git,
      publish: cloned.pusher ? setup.publish : undefined,
      stopped: options.stopped,
      watch,
      guard: new ToolGuard({ ...limits, ...body.tuning?.guardLimits }),
      signal,
      pusher: cloned.pusher,
      checkpointIntervalMs: limits.checkpointIntervalMs,
      finalCheckpointMs: setup.options.finalCheckpointMs ?? 10_000,
      model: body.model,
      modelFactory: setup.options.modelFactory,
      proxyPhasePath: body.proxyPhasePath === true,
      network: body.network,
      environment: setup.environment,
      filesystem: setup.filesystem,
      transcriptDirectory,
      taskDirectory: directories.tasks,
      redactor,
      salvage: options.salvage,
      log: setup.log,
      capabilities: () => capabilities.capabilities,
      plugins: capabilities.plugins,
      skills: capabilities.skillNames,
      ...(onEvent ? { onEvent: (pass: string, event: RunEvent) => onEvent(work.jobId, pass, event) } : {}),
      inventory: (probe) => {
        inventory ??= jobInventory({
          ...setup.options.inventory,
          network: body.network,
          // Each probe feeds the inactivity watchdog, as a heartbeat would.
          probe: async (command, timeoutMs) => {
            const result = await probe(command, timeoutMs);
            watch.activity();
            return result;
          },
        });
        return inventory;
      },
    };
  };

  const isTracked = async (path: string) => (await cloned.git.run(["ls-files", "--", path])).trim() !== "";
  /** Stages the context files before a pass (only misses are fetched again), and says what landed. */
  const contextBlocks = async (): Promise<string[]> => {
    const blocks: string[] = [];
    const specs = [
      ["reference-screenshots", body.referenceScreenshots],
      ["design-renders", body.designImages],
    ] as const;
    for (const [kind, spec] of specs) {
      if (!spec) continue;
      const staging = await stageContextImages({ checkout: directories.checkout, kind, spec, signal, isTracked });
      findings.stagings.set(kind, staging);
      watch.activity();
      const block = kind === "reference-screenshots" ? screenshotsBlock(staging) : designImagesCorrection(staging);
      if (block) blocks.push(block);
    }
    return blocks;
  };

  /** What the sentinels said: the latest usable briefing and effort, every new follow-up. */
  const readAfterPass = async (name: string) => {
    const reading = await readSentinels(directories.checkout, {
      titleFromHeading: findings.pullRequest?.template === undefined,
      scrub: (text) => redactor.scrub(text),
    });
    if (reading.description && findings.pullRequest) findings.briefing = reading.description;
    if (reading.effort) findings.effort = reading.effort;
    for (const followUp of reading.followUps ?? []) {
      const key = JSON.stringify([followUp.title, followUp.detail ?? null]);
      if (followUpsSeen.has(key)) continue;
      followUpsSeen.add(key);
      work.telemetry.publishFollowUp({
        title: followUp.title,
        ...(followUp.detail !== undefined ? { detail: followUp.detail } : {}),
        pass: name,
      });
    }
    findings.notes.push(...reading.notes.map((note) => `${name}: ${note}`));
  };

  return async (repair?: string): Promise<void> => {
    context ??= open();
    const passContext = await context;
    const name = repair === undefined ? setup.firstPass : `${setup.firstPass}-repair-${++repairs}`;
    const blocks = await contextBlocks();
    const template = findings.pullRequest?.template;
    let outcome: Awaited<ReturnType<typeof runPass>>;
    try {
      outcome = await runPass(passContext, name, (inventoryText) =>
        composePassInstructions({
          systemPrompt: body.systemPrompt,
          inventory: inventoryText,
          pullRequest: findings.pullRequest !== undefined,
          ...(repair !== undefined
            ? { continuing: "repair" as const, repair }
            : work.resumedFrom
              ? { continuing: "resumed" as const }
              : {}),
          ...(findings.install?.note ? { install: findings.install.note } : {}),
          ...(template ? { template: templateInstructions(template) } : {}),
          context: blocks,
        }),
      );
    } finally {
      // What the checkout's config names is read after every pass, whether or not the pass (or its salvage) failed.
      const scanned = await cloned.git.refusedConfig({ signal: AbortSignal.timeout(30_000) }).catch(() => []);
      findings.refusedGitConfig = mergeRefused(findings.refusedGitConfig, scanned);
    }
    findings.lastText = outcome.text;
    if (outcome.salvage) findings.salvages.push(outcome.salvage);
    await readAfterPass(name);
  };
}
