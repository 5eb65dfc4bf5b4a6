import type { WorkspaceFileHandle } from "../../../platform/paths/operations.js";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";
import { isSkippable, openRegularFile } from "./open-regular.js";
import { chunkBytes } from "./types.js";
import type { WalkedFile } from "./walk.js";

/** A file opened ahead of the scan, with its first chunk read. */
export interface OpenedFile {
  readonly file: WalkedFile;
  /** The open regular file; undefined when it was skipped (vanished, a link now, not regular, unreadable). */
  readonly handle: WorkspaceFileHandle | undefined;
  /** Its first chunk, read from `position`, in a buffer of the pool (give it back with {@link FilePrefetcher.release}). */
  readonly chunk: Buffer | undefined;
  readonly position: number;
  readonly bytesRead: number;
}

/** How many files are opened ahead of the one being scanned. */
export const prefetchDepth = 8;

/**
 * Opens files ahead of the scan, in walk order, so the round trips of open, fstat and the
 * first read overlap instead of adding up: a search is otherwise mostly waiting for them.
 * At most {@link prefetchDepth} files are open ahead, each holding one 64 KiB buffer from a
 * fixed pool; {@link close} closes any not taken. Errors that mean "skip this file" skip it;
 * others are thrown by the {@link next} that reaches the file.
 */
export class FilePrefetcher {
  private readonly queue: Promise<OpenedFile | undefined>[] = [];
  private readonly pool: Buffer[] = [];
  private walkDone = false;
  private pulling: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly root: WorkspaceRoot,
    private readonly files: AsyncIterator<WalkedFile> | Iterator<WalkedFile>,
    /** The byte to read a file from: 0, or the cursor's position in the file it names. */
    private readonly positionOf: (file: WalkedFile) => number,
  ) {}

  /** The next file in walk order, opened (or marked skipped); undefined after the last. */
  async next(): Promise<OpenedFile | undefined> {
    for (;;) {
      if (this.queue.length === 0) {
        if (this.walkDone) return undefined;
        await this.pull();
        continue;
      }
      const opened = await this.queue.shift()!;
      void this.pull();
      if (opened) return opened;
    }
  }

  /** Gives a chunk buffer back to the pool. */
  release(buffer: Buffer): void {
    if (this.pool.length < prefetchDepth + 1) this.pool.push(buffer);
  }

  /** Closes every file opened ahead and not taken; later calls to {@link next} end at once. */
  async close(): Promise<void> {
    this.closed = true;
    this.walkDone = true;
    await this.pulling?.catch(() => undefined);
    const pending = this.queue.splice(0);
    await Promise.all(
      pending.map((opened) =>
        opened.then(
          (file) => file?.handle?.close().catch(() => undefined),
          () => undefined,
        ),
      ),
    );
    await this.files.return?.();
  }

  /** Starts opening files until `prefetchDepth` are ahead; one pull runs at a time. */
  private pull(): Promise<void> {
    if (!this.pulling) {
      const running = this.pullFiles();
      this.pulling = running;
      void running.finally(() => {
        if (this.pulling === running) this.pulling = undefined;
      });
    }
    return this.pulling;
  }

  private async pullFiles(): Promise<void> {
    try {
      while (!this.walkDone && this.queue.length < prefetchDepth) {
        const step = await this.files.next();
        if (step.done || this.closed) {
          this.walkDone = true;
          break;
        }
        const opening = this.open(step.value);
        // A rejection is seen by the next() that takes it; until then it must not count as unhandled.
        opening.catch(() => undefined);
        this.queue.push(opening);
      }
    } catch (error) {
      this.walkDone = true;
      const failed = Promise.reject(error);
      failed.catch(() => undefined);
      this.queue.push(failed);
    }
  }

  private async open(file: WalkedFile): Promise<OpenedFile> {
    const position = this.positionOf(file);
    const handle = await openRegularFile(this.root, file.absolute);
    if (!handle) return { file, handle, chunk: undefined, position, bytesRead: 0 };
    const chunk = this.pool.pop() ?? Buffer.allocUnsafe(chunkBytes);
    try {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      return { file, handle, chunk, position, bytesRead };
    } catch (error) {
      this.release(chunk);
      await handle.close().catch(() => undefined);
      if (isSkippable(error)) return { file, handle: undefined, chunk: undefined, position, bytesRead: 0 };
      throw error;
    }
  }
}
