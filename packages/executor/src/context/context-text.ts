/**
 * A body-supplied string (a view, a file name) as one quoted line of prompt text: control
 * characters escaped, so a name cannot break out of the list it is written in.
 */
export function quoted(text: string): string {
  return JSON.stringify(text);
}
