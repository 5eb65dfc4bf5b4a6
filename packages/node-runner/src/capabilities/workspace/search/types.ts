/** What the model asks `search_workspace` for. */
export interface SearchWorkspaceInput {
  /**
   * What to find within one line: a literal (by default) or, with `regex`, JavaScript
   * RegExp source. Not empty, at most {@link maxQueryBytes} bytes of UTF-8, no lone
   * surrogate; a literal cannot contain a line feed (a match never spans lines).
   */
  readonly query: string;
  /** Workspace path of the directory to walk or the one file to search. Default `.` (the root). */
  readonly path?: string;
  /**
   * Only files whose root-relative path matches (picomatch: `*` and `?` stay within one
   * name, `**` crosses `/`, `[...]` a class; dotfiles match; no braces, extglobs or `!`
   * negation). `*.ts` is top-level only; `**\/*.ts` is any depth. Directories are always walked.
   */
  readonly glob?: string;
  /** `query` is RegExp source, compiled with the `u` flag (and `i` with `ignoreCase`). Default false. */
  readonly regex?: boolean;
  /** Case-insensitive: Unicode simple case folding (`é` finds `É`, `ß` does not find `SS`). Default false. */
  readonly ignoreCase?: boolean;
  /** A page's `nextOffset`, passed back unchanged with the same other fields to continue. */
  readonly offset?: string;
}

/** One matching line. */
export interface SearchHit {
  /** Root-relative POSIX path of the file. */
  readonly path: string;
  /** 1-based line number: what the read tool takes as `startLine`. */
  readonly line: number;
  /**
   * The line's text without its LF (a CR before it is kept, as the read tool keeps CRLF),
   * cut to `maxLineBytes` bytes at a UTF-8 character boundary; invalid UTF-8 is U+FFFD.
   */
  readonly text: string;
  /** Present (true) when `text` is only the start of the line. */
  readonly textTruncated?: true;
}

/** One page of results: at most `maxPageBytes` bytes as JSON (`JSON.stringify`, UTF-8). */
export interface SearchWorkspacePage {
  /** Matching lines in walk order (path by path in UTF-8 byte order of names, then line). */
  readonly hits: SearchHit[];
  /**
   * Files searched for this page: regular files the walk selected (binary ones included),
   * from where it started to the file `nextOffset` points into, both counted.
   */
  readonly filesScanned: number;
  /** True exactly when `nextOffset` is set: the page filled, or time ran out (`timedOut`), before the end. */
  readonly truncated: boolean;
  /** Pass as `offset` (with the same other input) for the next page; absent at the end. */
  readonly nextOffset?: string;
  /**
   * True when the search stopped at `searchTimeoutMs`. A literal search continues where it
   * stopped; a regex search continues after the file it was in, whose remaining lines are
   * not searched (a pattern that backtracks there would again).
   */
  readonly timedOut: boolean;
}

/** Which matcher runs a search; both give identical pages and accept each other's cursors. */
export type SearchEngine = "auto" | "builtin" | "ripgrep";

/** The bounds and environment of a search: the host's, not the model's. */
export interface SearchWorkspaceOptions {
  /** Largest page, as UTF-8 JSON bytes. Default 32,768; 1,024 to 1,048,576. */
  readonly maxPageBytes?: number;
  /** Longest hit text, in UTF-8 bytes. Default 512; 16 to 65,536. */
  readonly maxLineBytes?: number;
  /** Time a call may take before it returns what it has with `timedOut`. Default 30,000 ms; 1 to 600,000. */
  readonly searchTimeoutMs?: number;
  /** Largest `.gitignore` or `.git/info/exclude` applied; a larger one is left out. Default 1,048,576; 0 to 67,108,864. */
  readonly maxRulesFileBytes?: number;
  /** Honoured between files and between 64 KiB chunks; the call then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * `builtin` (default): the engine in this process. `ripgrep`: a case-sensitive literal
   * search's matching runs in `rg` (the walk, ignore rules, binary rule, excerpts and paging
   * stay this engine's, so pages are identical); other searches run built in; an error when
   * no rg is found. `auto`: `ripgrep` when an `rg` is found on PATH, else `builtin`. rg opens
   * files by path, so a file swapped for a link while the search runs could be read through
   * it: the built-in engine opens with `O_NOFOLLOW`.
   */
  readonly engine?: SearchEngine;
  /** The `rg` executable for the ripgrep engine. Default: `rg` found on `PATH`. */
  readonly ripgrepPath?: string;
}

/** Longest query accepted, in UTF-8 bytes. */
export const maxQueryBytes = 4_096;

/** The size of the buffer each file streams through. */
export const chunkBytes = 65_536;

/** The bytes searched for a NUL to tell a binary file. */
export const binaryProbeBytes = 8_192;

/**
 * Longest part of one line a regex is matched against, in UTF-16 code units (about as many
 * bytes of ASCII): a longer line (minified code) is matched on its first 1 MiB only.
 */
export const maxRegexLineUnits = 1_048_576;
