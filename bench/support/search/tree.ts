// The generated tree the search bench walks: nested source-like text files, ignored
// directories (root and nested .gitignore, .git/info/exclude), binaries, and a few large
// files, built deterministically from a seed so every run searches the same bytes.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The size of a generated tree. */
export interface TreeSize {
  /** Files to write, all kinds together. */
  readonly files: number;
  /** Bytes to write in all, about. */
  readonly bytes: number;
}

/** The default: 20,000 files and 200 MB. */
export const defaultTreeSize: TreeSize = { files: 20_000, bytes: 200_000_000 };

/** Tokens the queries look for, each placed at a known rate. */
export const treeTokens = {
  /** In about 1 file in 800, once. */
  rare: "zebraQuokka42",
  /** In about 1.5% of lines. */
  common: "checksum",
  /** Nowhere. */
  absent: "qwxzvAbsent77",
  /** In about 0.3% of lines. */
  multiWord: "let total = compute(",
} as const;

/** What was written. */
export interface GeneratedTree {
  readonly files: number;
  readonly bytes: number;
  readonly ignoredFiles: number;
  readonly binaryFiles: number;
}

/** A small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const words = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "value",
  "index",
  "count",
  "result",
  "buffer",
  "entry",
  "node",
  "item",
];
const comments = [
  "keeps the order stable",
  "café naïve façade",
  "日本語のコメント",
  "handles the edge case",
  "Ωmega ünïcode",
];

/** A pool of source-like lines to draw from (no token of {@link treeTokens} in any). */
function linePool(next: () => number): string[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const name = () => `${pick(words)}${pick(words).replace(/^./, (first) => first.toUpperCase())}`;
  const pool: string[] = [];
  for (let index = 0; index < 4_000; index++) {
    switch (index % 8) {
      case 0:
        pool.push(`export function ${name()}(${name()}: number, ${name()}: string) {`);
        break;
      case 1:
        pool.push(`  const ${name()} = ${name()}(${name()}, ${Math.floor(next() * 1000)});`);
        break;
      case 2:
        pool.push(`  // ${pick(comments)}: ${pick(words)} ${pick(words)}`);
        break;
      case 3:
        pool.push(`  if (${name()} > ${Math.floor(next() * 100)}) return ${name()};`);
        break;
      case 4:
        pool.push(`import { ${name()} } from "./${pick(words)}/${pick(words)}.js";`);
        break;
      case 5:
        pool.push(`    ${name()}.push({ ${pick(words)}: ${name()}, ${pick(words)}: "${pick(comments)}" });`);
        break;
      case 6:
        pool.push("  }");
        break;
      default:
        pool.push(`}${next() < 0.5 ? "" : "\r"}`);
    }
  }
  return pool;
}

/** File sizes summing to about `bytes`: mostly 1-20 KB, and one file in 2,000 a few MB. */
function fileSizes(size: TreeSize, next: () => number): number[] {
  const weights = Array.from({ length: size.files }, (_, index) => (index % 2_000 === 7 ? 300 : 0.2 + next() * 1.8));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => Math.max(64, Math.round((weight / total) * size.bytes)));
}

/** The text of one file of about `bytes`, drawing lines from `pool` and placing tokens at their rates. */
function fileText(bytes: number, pool: readonly string[], next: () => number, rare: boolean): string {
  const lines: string[] = [];
  let length = 0;
  while (length < bytes) {
    let line = pool[Math.floor(next() * pool.length)] as string;
    const roll = next();
    if (roll < 0.015) line = `  const ${treeTokens.common} = hash(${Math.floor(next() * 100)});`;
    else if (roll < 0.018) line = `  ${treeTokens.multiWord}${Math.floor(next() * 10)});`;
    lines.push(line);
    length += line.length + 1;
  }
  if (rare) lines.splice(Math.floor(next() * lines.length), 0, `  // ${treeTokens.rare} marks this file`);
  return `${lines.join("\n")}\n`;
}

/**
 * Writes a tree of about `size` under `directory` (which exists and is empty): `pkgN/src/...`
 * source files, `node_modules/` and `pkgN/build/` ignored (root and nested .gitignore),
 * `*.log` excluded by `.git/info/exclude`, and `.bin` files with a NUL near their start.
 * Ignored and binary files hold the tokens too, so a search that reads them finds more.
 */
export async function generateTree(
  directory: string,
  size: TreeSize = defaultTreeSize,
  seed = 1,
): Promise<GeneratedTree> {
  const next = random(seed);
  const pool = linePool(next);
  const sizes = fileSizes(size, next);
  await mkdir(join(directory, ".git/info"), { recursive: true });
  await writeFile(join(directory, ".gitignore"), "node_modules/\n*.tmp\n");
  await writeFile(join(directory, ".git/info/exclude"), "*.log\n");
  await writeFile(join(directory, ".git/HEAD"), `ref: refs/heads/main ${treeTokens.rare}\n`);
  const packages = Math.max(1, Math.round(size.files / 1_000));
  let bytes = 0;
  let ignoredFiles = 0;
  let binaryFiles = 0;
  const writes: (() => Promise<void>)[] = [];
  const made = new Map<string, Promise<unknown>>();
  for (let index = 0; index < sizes.length; index++) {
    const pkg = `pkg${index % packages}`;
    const roll = next();
    let path: string;
    let content: string | Buffer | undefined;
    const text = fileText(sizes[index] as number, pool, next, index % 800 === 3);
    if (roll < 0.05) {
      path = `node_modules/dep${index % 37}/lib/m${index}.js`;
      ignoredFiles++;
    } else if (roll < 0.08) {
      path = `${pkg}/build/out${index}.js`;
      ignoredFiles++;
    } else if (roll < 0.09) {
      path = `${pkg}/logs/run${index}.log`;
      ignoredFiles++;
    } else if (roll < 0.11) {
      path = `${pkg}/assets/blob${index}.bin`;
      content = Buffer.concat([Buffer.from(text.slice(0, 100)), Buffer.from([0]), Buffer.from(text.slice(100))]);
      binaryFiles++;
    } else {
      const depth = Math.floor(next() * 3);
      const folders = Array.from({ length: depth }, () => `${words[Math.floor(next() * words.length)]}`);
      path = [pkg, "src", ...folders, `file${index}.ts`].join("/");
    }
    content ??= text;
    bytes += content.length;
    const folder = join(directory, path, "..");
    const target = join(directory, path);
    const body = content;
    writes.push(async () => {
      let making = made.get(folder);
      if (!making) {
        making = mkdir(folder, { recursive: true });
        made.set(folder, making);
      }
      await making;
      await writeFile(target, body);
    });
  }
  for (let index = 0; index < packages; index++) {
    await mkdir(join(directory, `pkg${index}`), { recursive: true });
    await writeFile(join(directory, `pkg${index}`, ".gitignore"), "build/\n");
  }
  // Written in order (directories first) with a few writes in flight.
  for (let index = 0; index < writes.length; index += 16) {
    await Promise.all(writes.slice(index, index + 16).map((write) => write()));
  }
  return { files: sizes.length, bytes, ignoredFiles, binaryFiles };
}
