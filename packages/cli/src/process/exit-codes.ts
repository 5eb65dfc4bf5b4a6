/** Exit codes of `castellan`: 0 done, 1 a failed Run or fatal error, 2 a usage or configuration error, 130 interrupted. */
export const exitCodes = { done: 0, failed: 1, usage: 2, interrupted: 130 } as const;
