import { join } from "node:path";
import { inspectDestination, prepareContextDirectory } from "./context-destination.js";
import {
  artifactIdPattern,
  type ContextImageFile,
  type ContextImagesSpec,
  contextFileNamePattern,
} from "./context-images-schema.js";
import {
  type ContextImageKind,
  type ContextStaging,
  contextImagesDirectory,
  type FailedContextImage,
  type StagedContextImage,
} from "./context-staging.js";
import { fetchContextImage } from "./fetch-context-image.js";

/** The most images one staging writes; the manifest's later entries are reported as omitted. */
export const maxStagedContextImages = 64;
/** The most bytes of one image, by its declared length and by its stream. */
export const maxContextImageBytes = 10 * 1024 * 1024;
/** The bound of one whole staging; what has not landed by then failed as timed out. */
export const contextStagingTimeoutMs = 60_000;

// A few transfers at a time: 64 images one after another could spend the whole bound on a slow
// link, and more at once would only compete for the same one.
const concurrentTransfers = 4;

/** What {@link stageContextImages} stages, where, and within which bounds. */
export interface StageContextImagesOptions {
  /** The checkout's absolute path. */
  readonly checkout: string;
  /** Which directory under `.castellan-context/` the images go to. */
  readonly kind: ContextImageKind;
  /** The manifest, as the body's schema checked it. */
  readonly spec: ContextImagesSpec;
  /** The job's signal; its abort fails what has not landed as cancelled. */
  readonly signal: AbortSignal;
  /** Whether git tracks a path (relative to the checkout, `/`-separated); a tracked file is never replaced. */
  readonly isTracked: (relativePath: string) => Promise<boolean>;
  /** The fetch to use; the global one by default. */
  readonly fetch?: typeof fetch;
  /** The bound of the whole staging in ms; {@link contextStagingTimeoutMs} (60 s) by default. */
  readonly timeoutMs?: number;
  /** The bound of one image in bytes; {@link maxContextImageBytes} (10 MiB) by default. */
  readonly maxBytesPerImage?: number;
  /** The most images staged; {@link maxStagedContextImages} (64) by default. */
  readonly maxFiles?: number;
}

type Slot = { readonly staged: StagedContextImage } | { readonly failed: FailedContextImage };

async function eachAtMost<Item>(items: readonly Item[], limit: number, work: (item: Item) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as Item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Stages a manifest's images into `<checkout>/.castellan-context/<kind>/<fileName>` before the
 * agent's first turn. Best-effort and never throws for a transfer: what did not land is named
 * with a reason. Idempotent: a non-empty file already at a destination counts as staged and
 * is not fetched, so a repair pass re-running this fetches only the misses. A tracked path, a
 * symlink or a non-regular file at a destination is left alone and reported. At most
 * `maxFiles` (64) images; the rest join `omitted`. One bound (60 s), started on entry, covers
 * the whole staging; the job's signal cancels it.
 */
export async function stageContextImages(options: StageContextImagesOptions): Promise<ContextStaging> {
  const { spec, kind } = options;
  const maxFiles = options.maxFiles ?? maxStagedContextImages;
  const maxBytes = options.maxBytesPerImage ?? maxContextImageBytes;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs ?? contextStagingTimeoutMs)]);
  const describeAbort = () => (options.signal.aborted ? "cancelled" : "timed out");
  const files = spec.files.slice(0, maxFiles);
  // Views said once each: a repeated view says nothing more to the agent.
  const omitted = [...new Set([...(spec.omitted ?? []), ...spec.files.slice(maxFiles).map((file) => file.view)])];
  const relativeDirectory = contextImagesDirectory(kind);
  const slots: Slot[] = [];
  const staged = (file: ContextImageFile) => ({
    view: file.view,
    fileName: file.fileName,
    path: `${relativeDirectory}/${file.fileName}`,
  });
  const fail = (index: number, reason: string) => {
    const file = files[index]!;
    slots[index] = { failed: { view: file.view, fileName: file.fileName, reason } };
  };
  const prepared = files.length > 0 ? await prepareContextDirectory(options.checkout, kind) : undefined;
  const misses: number[] = [];
  if (prepared && "reason" in prepared) {
    for (const index of files.keys()) fail(index, prepared.reason);
  } else if (prepared) {
    const names = new Set<string>();
    for (const [index, file] of files.entries()) {
      // The schema refused these already; a caller that skipped it still cannot leave the directory.
      if (!contextFileNamePattern.test(file.fileName)) fail(index, "invalid file name");
      else if (!artifactIdPattern.test(file.artifactId)) fail(index, "invalid artifact id");
      else if (names.has(file.fileName.toLowerCase())) fail(index, "duplicate file name");
      else {
        names.add(file.fileName.toLowerCase());
        let tracked: boolean;
        try {
          tracked = await options.isTracked(staged(file).path);
        } catch {
          fail(index, "could not ask git whether the path is tracked");
          continue;
        }
        // Before the destination check: a tracked file there is non-empty and would count as staged.
        if (tracked) {
          fail(index, "tracked file in the way");
          continue;
        }
        const destination = await inspectDestination(join(prepared.directory, file.fileName));
        if (destination.state === "blocked") fail(index, destination.reason);
        else if (destination.state === "present") slots[index] = { staged: { ...staged(file), fetched: false } };
        else misses.push(index);
      }
    }
    await eachAtMost(misses, concurrentTransfers, async (index) => {
      const file = files[index]!;
      if (signal.aborted) return fail(index, describeAbort());
      const result = await fetchContextImage({
        url: spec.url,
        artifactId: file.artifactId,
        token: spec.token,
        destination: join(prepared.directory, file.fileName),
        maxBytes,
        signal,
        fetch: options.fetch ?? fetch,
        describeAbort,
      });
      if (result.ok) slots[index] = { staged: { ...staged(file), fetched: true } };
      else fail(index, result.reason);
    });
  }
  return {
    kind,
    staged: slots.flatMap((slot) => ("staged" in slot ? [slot.staged] : [])),
    omitted,
    failed: slots.flatMap((slot) => ("failed" in slot ? [slot.failed] : [])),
  };
}
