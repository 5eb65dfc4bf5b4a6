// One browser-level DevTools WebSocket (Node's global WebSocket), carrying flattened sessions:
// a command for an attached page carries that session's id.

/** A DevTools protocol error answer (`{ code, message }`), classified where it arrives. */
export class CdpCommandError extends Error {
  /** The command Chrome refused, e.g. `DOM.getContentQuads`. */
  readonly method: string;
  /** The protocol's error code (JSON-RPC style, e.g. -32000). */
  readonly protocolCode: number;

  constructor(method: string, protocolCode: number, message: string) {
    super(`${method}: ${message}`);
    this.method = method;
    this.protocolCode = protocolCode;
    this.name = "CdpCommandError";
  }
}

/** The transport closed before a command was answered, or a command was sent after it closed. */
export class CdpClosedError extends Error {
  constructor(message = "The DevTools connection is closed.") {
    super(message);
    this.name = "CdpClosedError";
  }
}

/** A protocol event; `sessionId` is set for events of an attached target. */
export interface CdpEvent {
  /** The event's name, e.g. `Target.targetInfoChanged`. */
  readonly method: string;
  readonly params: Record<string, any>;
  readonly sessionId?: string;
}

interface Pending {
  readonly method: string;
  resolve(result: any): void;
  reject(error: Error): void;
}

/** The longest a WebSocket handshake to a loopback Chrome may take. */
const openTimeoutMs = 10_000;

/** A browser-level DevTools connection: commands, events, close. */
export class CdpTransport {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<(event: CdpEvent) => void>();
  readonly #closeListeners = new Set<() => void>();
  #nextId = 1;
  #closed = false;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (message) => this.#receive(message.data));
    socket.addEventListener("close", () => this.#end());
  }

  /** Opens `url`; rejects when the handshake fails, takes over 10 s, or `signal` aborts. */
  static open(url: string, signal?: AbortSignal): Promise<CdpTransport> {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted();
      const socket = new WebSocket(url);
      const settle = (error?: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        socket.removeEventListener("open", onOpen);
        socket.removeEventListener("error", onError);
        if (error) {
          socket.close();
          reject(error);
        } else resolve(new CdpTransport(socket));
      };
      const onOpen = () => settle();
      const onError = () => settle(new CdpClosedError(`The DevTools WebSocket at ${url} could not be opened.`));
      const onAbort = () => settle(signal?.reason instanceof Error ? signal.reason : new Error("Aborted."));
      const timer = setTimeout(
        () => settle(new CdpClosedError(`The DevTools WebSocket at ${url} did not open within ${openTimeoutMs} ms.`)),
        openTimeoutMs,
      );
      socket.addEventListener("open", onOpen);
      socket.addEventListener("error", onError);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** True once the socket closed (either side). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sends one command; resolves with its result or rejects with {@link CdpCommandError} / {@link CdpClosedError}. */
  send<T = any>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    if (this.#closed) return Promise.reject(new CdpClosedError());
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { method, resolve, reject });
      this.#socket.send(
        JSON.stringify(sessionId === undefined ? { id, method, params } : { id, method, params, sessionId }),
      );
    });
  }

  /** Calls `listener` for every event until the returned function is called. */
  onEvent(listener: (event: CdpEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls `listener` once the transport closes. */
  onClose(listener: () => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** Closes the socket (never the browser); resolves once it is closed. Idempotent. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.addEventListener("close", () => resolve(), { once: true });
      this.#socket.close();
      // A peer that never answers the close frame must not hold the caller.
      setTimeout(() => {
        this.#end();
        resolve();
      }, 2_000).unref();
    });
  }

  #receive(data: unknown): void {
    if (typeof data !== "string") return;
    let message: any;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof message?.id === "number") {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) {
        pending.reject(new CdpCommandError(pending.method, message.error.code, String(message.error.message)));
      } else pending.resolve(message.result ?? {});
    } else if (typeof message?.method === "string") {
      const event: CdpEvent = { method: message.method, params: message.params ?? {}, sessionId: message.sessionId };
      for (const listener of [...this.#listeners]) listener(event);
    }
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const pending of this.#pending.values()) pending.reject(new CdpClosedError());
    this.#pending.clear();
    for (const listener of [...this.#closeListeners]) listener();
    this.#listeners.clear();
    this.#closeListeners.clear();
  }
}
