/** The fake key every conformance binding is made with: it must reach no event, error or saved record. */
export const KEY = "sk-conformance-FAKE-0123456789abcdef";
