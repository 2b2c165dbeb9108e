/**
 * Showing visitors' text to the operator on a terminal: the inbox report and the personal-data
 * commands print what visitors wrote, which must not forge report lines or drive the terminal.
 *
 * @module
 */

/**
 * Escapes the control characters of a line (C0, DEL and C1, line breaks included) as `\uXXXX`,
 * so that it prints as one inert line on a terminal.
 *
 * @param line Text that may hold a visitor's characters.
 * @returns The same text with every control character escaped.
 */
export function toPrintable(line: string): string {
  return line.replace(
    // deno-lint-ignore no-control-regex -- matching control characters is the point
    /[\u0000-\u001f\u007f-\u009f]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
