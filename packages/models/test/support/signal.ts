/** A signal that never aborts, shared. */
export const never: AbortSignal = new AbortController().signal;

/** A fresh signal that never aborts. */
export function neverAborts(): AbortSignal {
  return new AbortController().signal;
}
