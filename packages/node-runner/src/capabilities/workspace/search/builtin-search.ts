import type { WorkspaceRoot } from "../../../platform/paths/root.js";
import { ignoreScopeFor } from "../ignore/ignore-scope.js";
import { ChunkReader, type FileScanner } from "./chunk-reader.js";
import type { LinePosition, SearchCursor } from "./cursor.js";
import { FoldedLiteralTester } from "./folded-tester.js";
import { LineScanner } from "./line-scanner.js";
import { LiteralScanner } from "./literal-scanner.js";
import { isSkippable } from "./open-regular.js";
import { PageBuilder } from "./page.js";
import { FilePrefetcher } from "./prefetch.js";
import { RegexTimeoutError, WorkerRegexTester } from "./regex-tester.js";
import { lineExpression, type SearchRequest, type SearchSettings } from "./request.js";
import type { SearchStart } from "./start.js";
import type { SearchWorkspacePage } from "./types.js";
import { type WalkedFile, walkFiles } from "./walk.js";

/** One search call's checked input, where it starts, and when it must stop. */
export interface SearchCall {
  readonly root: WorkspaceRoot;
  readonly request: SearchRequest;
  readonly settings: SearchSettings;
  readonly start: SearchStart;
  /** The cursor passed back, if any. */
  readonly cursor: SearchCursor | undefined;
  /** `Date.now()` time at which the call stops with `timedOut`. */
  readonly deadline: number;
}

const fileStart: LinePosition = Object.freeze({ byte: 0, line: 1, reported: false });

/**
 * The built-in engine: walks the files in order from the cursor, streams each through one
 * 64 KiB buffer, and fills one page. Literal case-sensitive queries are matched as bytes;
 * case-insensitive literals and regular expressions line by line (regular expressions in a
 * worker thread, terminated at the deadline).
 */
export async function builtinSearch(call: SearchCall): Promise<SearchWorkspacePage> {
  const { root, request, settings, cursor, deadline } = call;
  const { signal } = settings;
  const page = new PageBuilder(request, settings.maxPageBytes, settings.maxLineBytes);
  const expression = lineExpression(request);
  const regexTester = request.regex
    ? new WorkerRegexTester(expression!.source, expression!.flags, deadline, signal)
    : undefined;
  const scanner: FileScanner =
    expression === undefined
      ? new LiteralScanner(request.query, settings.maxLineBytes)
      : new LineScanner(regexTester ?? new FoldedLiteralTester(expression, request.query), settings.maxLineBytes);
  const reader = new ChunkReader();
  const pause = () => {
    signal?.throwIfAborted();
    return Date.now() >= deadline;
  };
  let files = 0;
  let timedOut = false;
  let next: SearchCursor | undefined;
  const positionOf = (file: WalkedFile) => (cursor?.position && file.path === cursor.path ? cursor.position.byte : 0);
  const selected = await selectedFiles(call);
  const iterator = Symbol.asyncIterator in selected ? selected[Symbol.asyncIterator]() : selected[Symbol.iterator]();
  const prefetcher = new FilePrefetcher(root, iterator, positionOf);
  try {
    for (;;) {
      signal?.throwIfAborted();
      const opened = await prefetcher.next();
      if (!opened) break;
      const { file, handle } = opened;
      let position = fileStart;
      if (cursor && file.path === cursor.path) {
        if (!cursor.position) {
          await handle?.close().catch(() => undefined);
          if (opened.chunk) prefetcher.release(opened.chunk);
          continue;
        }
        position = cursor.position;
      }
      // Only once a file has been searched, so every call makes progress.
      if (files > 0 && pause()) {
        timedOut = true;
        next = { path: file.path, segments: file.segments, position };
        await handle?.close().catch(() => undefined);
        if (opened.chunk) prefetcher.release(opened.chunk);
        break;
      }
      if (!handle || !opened.chunk) continue;
      files++;
      const scanned = files;
      try {
        prefetcher.release(reader.adopt(handle, opened.position, opened.chunk, opened.bytesRead));
        const outcome = await scanner.scan(
          reader,
          position,
          (hit) => page.add(file.path, file.segments, hit, scanned),
          pause,
        );
        if (outcome.kind === "full") break;
        if (outcome.kind === "paused") {
          timedOut = true;
          next = { path: file.path, segments: file.segments, position: outcome.position };
          break;
        }
      } catch (error) {
        if (error instanceof RegexTimeoutError) {
          // The pattern would stall on this file again: continue after it.
          timedOut = true;
          next = { path: file.path, segments: file.segments, position: undefined };
          break;
        }
        if (!isSkippable(error)) throw error;
      } finally {
        // Not waited for: the next file is already open, and a close cannot fail usefully.
        void handle.close().catch(() => undefined);
      }
    }
  } finally {
    await prefetcher.close();
    await regexTester?.close();
  }
  return page.finish({ cursor: next, files, timedOut });
}

/** The files to search, in walk order from the cursor: the walk of a directory, or the one file. */
export async function selectedFiles(call: SearchCall): Promise<AsyncIterable<WalkedFile> | Iterable<WalkedFile>> {
  const { root, request, settings, start, cursor } = call;
  if (start.kind === "file") {
    const accepted = request.matchesGlob === undefined || request.matchesGlob(start.path);
    return accepted ? [{ segments: start.segments, path: start.path, absolute: start.absolute }] : [];
  }
  const scope = await ignoreScopeFor(root, start.segments, { maxRulesFileBytes: settings.maxRulesFileBytes });
  return walkFiles(root, {
    directory: start.segments,
    scope,
    matchesGlob: request.matchesGlob,
    resumeAt: cursor?.segments,
    signal: settings.signal,
  });
}
