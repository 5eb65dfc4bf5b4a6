import type { Session } from "../session/session.js";

/**
 * The open Sessions of one Runner's registry, by id, child Sessions included: a Session is
 * added when it is constructed and removed once it has released its resources. Ids are unique
 * per Runner in practice (a top-level id cannot be open twice, a child's is
 * `<parent>/child/<toolCallId>`), but nothing stops a top-level Session from taking a child's
 * id; then the id is ambiguous and {@link OpenSessions.get} answers for neither, so a hook
 * never acts on another Session than the one it was called for.
 */
export class OpenSessions {
  readonly #byId = new Map<string, Set<Session>>();

  /** Holds `session` under its id until {@link OpenSessions.remove}. */
  add(session: Session): void {
    const held = this.#byId.get(session.id) ?? new Set<Session>();
    held.add(session);
    this.#byId.set(session.id, held);
  }

  /** Forgets `session`; a no-op for one not held. */
  remove(session: Session): void {
    const held = this.#byId.get(session.id);
    held?.delete(session);
    if (held?.size === 0) this.#byId.delete(session.id);
  }

  /** The one open Session of `sessionId`; undefined for none, or for two sharing the id. */
  get(sessionId: string): Session | undefined {
    const held = this.#byId.get(sessionId);
    if (held?.size !== 1) return undefined;
    return held.values().next().value;
  }
}
