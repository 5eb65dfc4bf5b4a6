import type { LineTester, LongLineTester } from "./line-scanner.js";

/**
 * Matches a case-insensitive literal: `expression` is the escaped literal with the `iu`
 * flags, so case folds by Unicode simple case folding, one code point for one, and a match
 * spans exactly as many code points as the literal. That bounds what a long line's pieces
 * must overlap by, and makes the pattern linear, so it runs on the main thread.
 */
export class FoldedLiteralTester implements LineTester {
  private readonly overlap: number;

  constructor(
    private readonly expression: RegExp,
    literal: string,
  ) {
    // Two code units per code point covers any mix of BMP and astral characters.
    this.overlap = 2 * ([...literal].length - 1);
  }

  mayMatch(text: string): boolean {
    return this.expression.test(text);
  }

  matching(lines: readonly string[]): number[] {
    const matches: number[] = [];
    for (let index = 0; index < lines.length; index++) {
      if (this.expression.test(lines[index] as string)) matches.push(index);
    }
    return matches;
  }

  longLine(): LongLineTester {
    let carry = "";
    return {
      add: (piece) => {
        const text = carry + piece;
        if (this.expression.test(text)) return true;
        carry = this.overlap === 0 ? "" : text.slice(-this.overlap);
        return false;
      },
      end: () => false,
    };
  }
}
