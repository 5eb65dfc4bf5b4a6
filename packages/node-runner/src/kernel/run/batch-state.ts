import type { DeclarationSource, JsonValue, StateUpdate, StateView } from "@castellan/harness";
import { CastellanError, deepFreeze, findNonJson, isReservedStateKey } from "@castellan/harness";
import type { ChildUsage } from "../store/records.js";

/** A state update names an undeclared key or holds a value that is not JSON. */
export class StateError extends CastellanError {
  constructor(message: string) {
    super("state_invalid", message);
  }
}

/** A write to a reserved (`castellan.`) state key by someone other than the built-in capability that owns it. */
export class StateKeyReservedError extends CastellanError {
  /** The key. */
  readonly key: string;

  constructor(key: string, where: string) {
    super(
      "state_key_reserved",
      `${where}: state key "${key}" is reserved for Castellan's own capabilities; only the capability that declares it writes it.`,
    );
    this.key = key;
  }
}

/** Refuses a patch naming a reserved key that `writer` (a tool's source, or the host) does not own. */
export function assertReservedWriter(
  patch: Readonly<Record<string, JsonValue>>,
  owners: Readonly<Record<string, DeclarationSource>>,
  writer: DeclarationSource | "host",
  where: string,
): void {
  for (const key of Object.keys(patch)) {
    if (!isReservedStateKey(key)) continue;
    const owner = owners[key];
    const owned =
      owner !== undefined &&
      writer !== "host" &&
      writer.kind === "capability" &&
      owner.kind === "capability" &&
      owner.name === writer.name;
    if (!owned) throw new StateKeyReservedError(key, where);
  }
}

/**
 * Checks a state patch against the declared keys; returns a deeply frozen copy. Every key
 * must be declared by the agent or one of its capabilities, and every value must be JSON.
 */
export function admitStatePatch(
  patch: unknown,
  declared: Readonly<Record<string, JsonValue>>,
  where: string,
): Readonly<Record<string, JsonValue>> {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    throw new StateError(`${where}: a state update must be an object of declared keys and JSON values.`);
  }
  for (const key of Object.keys(patch)) {
    if (!Object.hasOwn(declared, key)) {
      const known = Object.keys(declared);
      throw new StateError(
        `${where}: state key "${key}" is not declared${known.length ? ` (declared: ${known.join(", ")})` : ""}.`,
      );
    }
  }
  const nonJson = findNonJson(patch, "state");
  if (nonJson) throw new StateError(`${where}: the state value at ${nonJson} is not JSON.`);
  return deepFreeze(structuredClone(patch) as Record<string, JsonValue>);
}

/**
 * The tentative state of one tool batch: writes are visible to later tools of the batch and
 * become one committed change when the batch settles.
 */
export class BatchState {
  private changes: Readonly<Record<string, JsonValue>> = Object.freeze({});
  private cached: StateView | undefined;

  constructor(
    private readonly committed: StateView,
    private readonly declared: Readonly<Record<string, JsonValue>>,
    private readonly reserved: Readonly<Record<string, DeclarationSource>> = {},
  ) {}

  /** Committed state with this batch's writes over it. */
  get view(): StateView {
    this.cached ??= Object.freeze({ ...this.committed, ...this.changes });
    return this.cached;
  }

  private readonly byCall = new Map<string, Readonly<Record<string, JsonValue>>>();

  update(
    update: StateUpdate,
    call: { readonly id: string; readonly name: string },
    source: DeclarationSource = { kind: "agent" },
  ): void {
    const patch = typeof update === "function" ? update(this.view) : update;
    const where = `Tool "${call.name}" setState`;
    if (patch !== null && typeof patch === "object" && !Array.isArray(patch)) {
      assertReservedWriter(patch as Readonly<Record<string, JsonValue>>, this.reserved, source, where);
    }
    const admitted = admitStatePatch(patch, this.declared, where);
    this.changes = Object.freeze({ ...this.changes, ...admitted });
    this.byCall.set(call.id, Object.freeze({ ...(this.byCall.get(call.id) ?? {}), ...admitted }));
    this.cached = undefined;
  }

  /** Applies writes saved with receipts of calls that settled before a crash (a resumed batch). */
  seed(changes: Readonly<Record<string, JsonValue>>): void {
    this.changes = Object.freeze({ ...this.changes, ...changes });
    this.cached = undefined;
  }

  /** What one call wrote, for its receipt; undefined when it wrote nothing. */
  writtenBy(toolCallId: string): Readonly<Record<string, JsonValue>> | undefined {
    return this.byCall.get(toolCallId);
  }

  private readonly usageByCall = new Map<string, ChildUsage[]>();

  /** Keeps one model call of a child agent that `toolCallId` ran (`ctx.runAgent`), for its receipt. */
  recordChildUsage(toolCallId: string, usage: ChildUsage): void {
    const list = this.usageByCall.get(toolCallId) ?? [];
    list.push(usage);
    this.usageByCall.set(toolCallId, list);
  }

  /** The usage of every child agent one call ran, in order; undefined when it ran none that called a model. */
  childUsageOf(toolCallId: string): readonly ChildUsage[] | undefined {
    const list = this.usageByCall.get(toolCallId);
    return list && list.length > 0 ? Object.freeze([...list]) : undefined;
  }

  /** The batch's writes merged, or undefined when it wrote nothing. */
  get pending(): Readonly<Record<string, JsonValue>> | undefined {
    return Object.keys(this.changes).length > 0 ? this.changes : undefined;
  }
}
