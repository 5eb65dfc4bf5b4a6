/** What the registry needs of a Session to hold it. */
export interface SessionHandle {
  readonly id: string;
}

/**
 * The open Sessions of one Runner's registry, by id, child Sessions included: a Session is
 * added when it is constructed and removed once it has released its resources. Ids are unique
 * per Runner in practice (a top-level id cannot be open twice, a child's is
 * `<parent>/child/<toolCallId>`), but nothing stops a top-level Session from taking a child's
 * id; then the id is ambiguous and {@link OpenSessions.get} answers for neither, so a hook
 * never acts on another Session than the one it was called for.
 */
export class OpenSessions<S extends SessionHandle> {
  readonly #byId = new Map<string, Set<S>>();

  /** Holds `session` under its id until {@link OpenSessions.remove}. */
  add(session: S): void {
    const held = this.#byId.get(session.id) ?? new Set<S>();
    held.add(session);
    this.#byId.set(session.id, held);
  }

  /** Forgets `session`; a no-op for one not held. */
  remove(session: S): void {
    const held = this.#byId.get(session.id);
    held?.delete(session);
    if (held?.size === 0) this.#byId.delete(session.id);
  }

  /** The one open Session of `sessionId`; undefined for none, or for two sharing the id. */
  get(sessionId: string): S | undefined {
    const held = this.#byId.get(sessionId);
    if (held?.size !== 1) return undefined;
    return held.values().next().value;
  }
}
