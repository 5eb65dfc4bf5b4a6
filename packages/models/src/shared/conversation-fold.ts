import type { Message } from "@castellan/harness";

/** How an adapter folds a conversation into its wire form, one message at a time. */
export interface ConversationFoldSteps<State> {
  /** A new, empty fold. */
  start(): State;
  /** Adds one message to the fold (in place). */
  add(state: State, message: Message): void;
}

/**
 * Folds a conversation into an adapter's wire form, resuming from the previous request's fold
 * when the new request's messages begin with exactly the same message objects (the runner sends
 * the whole conversation every turn, the old messages unchanged and the new ones at the end).
 * A request then costs what its new messages cost, plus a comparison of object references,
 * instead of a walk over every message. A request that does not extend the last one (a
 * `beforeModel` hook rewrote a message, a compaction replaced the start) is folded afresh.
 *
 * Folds are kept per conversation, keyed by its first message object, so bindings shared by
 * several Sessions keep one fold each; entries go with their messages. The state `run` returns
 * is the live fold the next request continues: callers build their request from it without
 * changing it (copy what they would extend, such as a last turn they merge a context block into).
 */
export class ConversationFold<State> {
  private readonly folds = new WeakMap<Message, { source: readonly Message[]; state: State }>();

  constructor(private readonly steps: ConversationFoldSteps<State>) {}

  /** The fold of `messages`. Treat it as read-only. */
  run(messages: readonly Message[]): State {
    const first = messages[0];
    if (first === undefined) return this.steps.start();
    const saved = this.folds.get(first);
    let state: State;
    let from = 0;
    if (saved && extends_(messages, saved.source)) {
      state = saved.state;
      from = saved.source.length;
    } else {
      state = this.steps.start();
    }
    for (let index = from; index < messages.length; index++) this.steps.add(state, messages[index] as Message);
    // The caller's array may be changed later; the fold keeps its own list of the references.
    this.folds.set(first, { source: messages.slice(), state });
    return state;
  }
}

/** Whether `messages` starts with every message of `source`, the same objects in the same order. */
function extends_(messages: readonly Message[], source: readonly Message[]): boolean {
  if (source.length > messages.length) return false;
  for (let index = source.length - 1; index >= 0; index--) {
    if (messages[index] !== source[index]) return false;
  }
  return true;
}
