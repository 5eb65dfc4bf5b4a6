// OpenRouter's `reasoning_details`: the structured reasoning (text with its signature, encrypted
// reasoning, summaries) a reasoning model must get back on its assistant message to continue,
// which tool calling with reasoning models requires. Streamed as pieces per `index`, assembled
// here into complete entries, kept as one opaque provider block and sent back unchanged.
import type { ContentBlock, JsonObject, JsonValue, ProviderBlock } from "@castellan/harness";

/**
 * The `provider` of the blocks both `openaiCompatible` and `openrouter` make: the block holds
 * the Chat Completions wire field, not anything particular to one service, so a Session moved
 * between the two adapters keeps its reasoning.
 */
export const compatibleBlockProvider = "openai-compatible";

/** Fields whose streamed pieces are appended to each other; any other field keeps its first non-null value. */
const streamedFields = new Set(["text", "summary", "data"]);
/** Fields that must be text (or null) when present. */
const textFields = ["text", "summary", "data", "signature", "id", "format"] as const;

type Entry = Record<string, JsonValue>;

/**
 * Assembles the `reasoning_details` pieces of one answer. Pieces with the same `index` are one
 * entry: their `text`, `summary` and `data` are appended in order, other fields (a signature
 * that comes last, `id`, `format`) keep their first non-null value, and the entry keeps the
 * key order of its first piece. A piece without an index continues the entry before it when
 * both are text or summary of the same type without an index, and is a new entry otherwise.
 * Entry types other than the documented three are kept as they come.
 */
export class ReasoningDetails {
  readonly #malformed: (what: string) => Error;
  #entries: Entry[] = [];
  #byIndex = new Map<number, Entry>();

  /** `malformed` makes the error thrown for a broken piece. */
  constructor(malformed: (what: string) => Error) {
    this.#malformed = malformed;
  }

  /** Takes a delta's `reasoning_details` (null and undefined are nothing); throws for a malformed one. */
  accept(value: unknown): void {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) throw this.#malformed("reasoning_details that are not a list");
    for (const piece of value) this.#acceptPiece(piece);
  }

  /**
   * The entries assembled since the last call, in the order their first pieces came, or
   * undefined when there are none. Pieces arriving afterwards (a signature after the text
   * began) start the next group; `reasoningDetailsOf` joins the groups again.
   */
  take(): JsonValue[] | undefined {
    if (this.#entries.length === 0) return undefined;
    const entries = this.#entries;
    this.#entries = [];
    this.#byIndex = new Map();
    return entries;
  }

  #acceptPiece(piece: unknown): void {
    if (piece === null || typeof piece !== "object" || Array.isArray(piece)) {
      throw this.#malformed("a reasoning_details entry that is not an object");
    }
    const fields = piece as Record<string, JsonValue>;
    const { type, index } = fields;
    if (typeof type !== "string" || type.length === 0)
      throw this.#malformed("a reasoning_details entry without a type");
    if (index !== undefined && !(typeof index === "number" && Number.isInteger(index) && index >= 0)) {
      throw this.#malformed("a reasoning_details entry whose index is not a non-negative integer");
    }
    for (const name of textFields) {
      const field = fields[name];
      if (field !== undefined && field !== null && typeof field !== "string") {
        throw this.#malformed(`a reasoning_details entry whose ${name} is not text`);
      }
    }
    const entry = index === undefined ? this.#continuedWithoutIndex(type) : this.#byIndex.get(index);
    if (!entry) {
      const created = { ...fields };
      this.#entries.push(created);
      if (index !== undefined) this.#byIndex.set(index, created);
      return;
    }
    if (entry.type !== type) {
      // The types are the server's text, so the message does not quote them.
      throw this.#malformed(`pieces of reasoning_details entry ${index} with different types`);
    }
    for (const [name, field] of Object.entries(fields)) {
      const current = entry[name];
      if (streamedFields.has(name) && typeof field === "string" && typeof current === "string") {
        entry[name] = current + field;
      } else if (current === undefined || current === null) {
        entry[name] = field;
      }
    }
  }

  #continuedWithoutIndex(type: string): Entry | undefined {
    const last = this.#entries.at(-1);
    if (!last || last.index !== undefined || last.type !== type) return undefined;
    return type === "reasoning.text" || type === "reasoning.summary" ? last : undefined;
  }
}

/** The provider block that keeps assembled entries on the assistant message. */
export function reasoningBlock(entries: readonly JsonValue[]): ProviderBlock {
  return { type: "provider", provider: compatibleBlockProvider, data: { reasoning_details: entries } };
}

/**
 * The `reasoning_details` to send back with an assistant message: the entries of its own
 * reasoning blocks, or undefined when it has none. One block (the usual case) goes back exactly
 * as it was saved; several (pieces that arrived after the text began) are joined by index under
 * the streaming rules. Blocks of other providers, and blocks not shaped like ours, are skipped.
 */
export function reasoningDetailsOf(content: readonly ContentBlock[]): readonly JsonValue[] | undefined {
  const groups: (readonly JsonValue[])[] = [];
  for (const block of content) {
    if (block.type !== "provider" || block.provider !== compatibleBlockProvider) continue;
    const details = isObject(block.data) ? block.data.reasoning_details : undefined;
    if (Array.isArray(details) && details.length > 0) groups.push(details);
  }
  if (groups.length <= 1) return groups[0];
  const joined = new ReasoningDetails((what) => new Error(what));
  try {
    for (const group of groups) joined.accept(group);
    return joined.take();
  } catch {
    // Saved entries that do not join (edited by hand) go back one group after another.
    return groups.flat();
  }
}

function isObject(value: JsonValue): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
