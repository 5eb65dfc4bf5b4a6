/** A promise with its resolve function, to hand control between a test and the code under test. */
export interface Latch<T = void> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

/** A new unresolved Latch. */
export function latch<T = void>(): Latch<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
