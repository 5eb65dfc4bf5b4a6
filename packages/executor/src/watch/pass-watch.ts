import type { RunEvent } from "@castellan/harness";
import { errorMessage } from "@castellan/harness";
import type { CheckoutGit } from "../git/checkout-git.js";
import type { JobWatch } from "./job-watch.js";
import { familyOf, type ToolGuard } from "./tool-guard.js";

const modelOutputEvents = new Set([
  "assistant-text-delta",
  "assistant-thinking-delta",
  "assistant-content",
  "tool-call",
]);

/** Feeds one Run event to the watchdogs and the guard. */
export function watchEvent(event: RunEvent, watch: JobWatch, guard: ToolGuard, probe: () => void): void {
  watch.activity();
  if (modelOutputEvents.has(event.kind)) watch.modelOutput();
  let family: ReturnType<typeof familyOf> | undefined;
  if (event.kind === "tool-end") {
    watch.toolCompleted(event.toolName);
    family = familyOf(event.toolName, event.source);
  } else if (event.kind === "hosted-tool-end" && event.hostedKind === "web-search") {
    watch.toolCompleted(event.toolName);
    family = "web";
  }
  if (family === undefined) return;
  const verdict = guard.observe(family);
  if (verdict.kind === "violation")
    watch.fail(verdict.code, `The guard stopped the job: ${verdict.detail}.`, { guard: guard.counts() });
  else if (verdict.kind === "probe") probe();
}

/**
 * The no-edit probe: after the bound, the tree is looked at. A dirty tree (ignored files aside)
 * or a HEAD off the pass's start satisfies the pass; a clean one is `guard-no-edit`, quoting what
 * was seen; a probe that throws is logged and the bound re-armed. One probe at a time.
 */
export function noEditProbe(context: {
  /** Git on the checkout, in the job's sandbox. */
  readonly git: CheckoutGit;
  readonly startSha: string;
  readonly guard: ToolGuard;
  readonly watch: JobWatch;
  readonly jobId: string;
  readonly log?: (entry: { readonly kind: string; readonly [field: string]: unknown }) => void;
}): () => void {
  let running = false;
  return () => {
    if (running) return;
    running = true;
    void (async () => {
      try {
        const status = (await context.git.run(["status", "--porcelain"])).trim();
        if (status !== "") return context.guard.editSatisfied();
        const head = await context.git.run(["rev-parse", "HEAD"]).then(
          (sha) => sha.trim(),
          () => undefined,
        );
        if (head !== undefined && head !== context.startSha) return context.guard.editSatisfied();
        context.watch.fail("guard-no-edit", "The pass ran its action calls without changing the tree.", {
          tree: { status: "clean", head: head ?? null, startHead: context.startSha },
        });
      } catch (error) {
        context.log?.({
          kind: "job-probe-failed",
          jobId: context.jobId,
          message: errorMessage(error),
        });
        context.guard.rearm();
      } finally {
        running = false;
      }
    })();
  };
}
