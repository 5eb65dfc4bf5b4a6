import { type SearchCall, selectedFiles } from "./builtin-search.js";
import { ChunkReader, type ScanOutcome } from "./chunk-reader.js";
import type { LinePosition, SearchCursor } from "./cursor.js";
import { LiteralScanner } from "./literal-scanner.js";
import { isSkippable, openRegularFile } from "./open-regular.js";
import { PageBuilder } from "./page.js";
import { runRipgrep } from "./ripgrep/run-ripgrep.js";
import { binaryProbeBytes, type SearchWorkspacePage } from "./types.js";
import type { WalkedFile } from "./walk.js";

/** Files in the first batch given to rg; each later batch doubles, up to {@link largestBatch}. */
const firstBatch = 256;
const largestBatch = 4_096;

const fileStart: LinePosition = Object.freeze({ byte: 0, line: 1, reported: false });

/**
 * The ripgrep engine, for case-sensitive literals: this engine's walk selects the files (the
 * same ignore rules, links and special files skipped, glob, order) and hands them to `rg` in
 * batches as explicit paths; rg only matches. Its JSON output gives each matching line's
 * number, offset and bytes, which take the same excerpt and paging as the built-in engine's
 * hits, so the pages are identical. The binary rule is applied from rg's first-NUL offset
 * (explicit files are searched in full). Searched built in instead: the file a cursor
 * continues inside, a file with a line too long for rg's message to be read, and a text
 * file with a NUL in rg's first buffer past the first 8 KiB (rg reads that NUL as a line end).
 *
 * Unlike the built-in engine, rg opens a file by path without `O_NOFOLLOW`: a regular file
 * swapped for a link between the walk reading its directory and rg opening it would be read
 * through the link.
 */
export async function ripgrepSearch(call: SearchCall, executable: string): Promise<SearchWorkspacePage> {
  const { root, request, settings, cursor, deadline } = call;
  const { signal } = settings;
  const page = new PageBuilder(request, settings.maxPageBytes, settings.maxLineBytes);
  const scanner = new LiteralScanner(request.query, settings.maxLineBytes);
  const reader = new ChunkReader();
  const pause = () => {
    signal?.throwIfAborted();
    return Date.now() >= deadline;
  };
  let files = 0;
  let next: SearchCursor | undefined;
  let timedOut = false;
  /** Searches one file built in; true to go on, false when the page ended in it. */
  const builtIn = async (file: WalkedFile, position: LinePosition): Promise<boolean> => {
    const handle = await openRegularFile(root, file.absolute);
    if (!handle) return true;
    files++;
    const scanned = files;
    let outcome: ScanOutcome;
    try {
      reader.open(handle, position.byte);
      outcome = await scanner.scan(reader, position, (hit) => page.add(file.path, file.segments, hit, scanned), pause);
    } catch (error) {
      if (isSkippable(error)) return true;
      throw error;
    } finally {
      await handle.close().catch(() => undefined);
    }
    if (outcome.kind === "paused") {
      timedOut = true;
      next = { path: file.path, segments: file.segments, position: outcome.position };
    }
    return outcome.kind === "end" || outcome.kind === "binary";
  };

  const selected = await selectedFiles(call);
  const iterator = Symbol.asyncIterator in selected ? selected[Symbol.asyncIterator]() : selected[Symbol.iterator]();
  let size = firstBatch;
  try {
    walk: for (;;) {
      const batch: WalkedFile[] = [];
      while (batch.length < size) {
        const step = await iterator.next();
        if (step.done) break;
        const file = step.value;
        if (cursor && file.path === cursor.path) {
          if (!cursor.position) continue;
          if (cursor.position.byte > 0 || cursor.position.reported) {
            // rg cannot start inside a file: the cursor's file is finished built in.
            if (!(await builtIn(file, cursor.position))) break walk;
            continue;
          }
        }
        batch.push(file);
      }
      if (batch.length === 0) break;
      size = Math.min(size * 2, largestBatch);
      if (files > 0 && pause()) {
        timedOut = true;
        next = { path: batch[0]!.path, segments: batch[0]!.segments, position: fileStart };
        break;
      }
      const outcome = await runRipgrep({
        executable,
        cwd: root.realPath,
        query: request.query,
        paths: batch.map((file) => file.path),
        prefixBytes: settings.maxLineBytes + 1,
        deadline,
        signal,
      });
      if (outcome.kind === "timedOut") {
        if (files > 0) {
          timedOut = true;
          next = { path: batch[0]!.path, segments: batch[0]!.segments, position: fileStart };
          break;
        }
        // Nothing searched yet in this call: make progress built in, file by file.
        for (const file of batch) if (!(await builtIn(file, fileStart))) break walk;
        continue;
      }
      for (const file of batch) {
        const found = outcome.files.get(file.path);
        // rg turns a NUL it sees into a line end, which shifts the line numbers after it: a
        // text file (no NUL in its first 8 KiB) with one soon after is searched built in.
        const shifted = found?.binaryOffset !== undefined && found.binaryOffset >= binaryProbeBytes;
        if (found?.oversized || shifted) {
          if (!(await builtIn(file, fileStart))) break walk;
          continue;
        }
        files++;
        if (!found || found.binaryOffset !== undefined) continue;
        found.matches.sort((a, b) => a.line - b.line);
        for (const match of found.matches) {
          if (!page.add(file.path, file.segments, match, files)) break walk;
        }
      }
    }
  } finally {
    await iterator.return?.();
  }
  return page.finish({ cursor: next, files, timedOut });
}
