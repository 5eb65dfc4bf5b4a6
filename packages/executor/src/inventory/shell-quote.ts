/** One argument quoted for `sh -c`: single quotes, with each embedded quote closed and escaped. */
export function shellQuote(argument: string): string {
  return `'${argument.replaceAll("'", `'\\''`)}'`;
}
