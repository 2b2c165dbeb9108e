/**
 * The operator's commands over personal data, shared by `deno task inbox` and the npm package's
 * `studio-website inbox`: `export <email>` prints the export as JSON, `erase <email> --actor
 * <name>` erases and prints the erasure record as JSON (see `personal_data.ts`).
 *
 * @module
 */
import { ApiError } from "../contract/api_error.ts";
import { toPrintable } from "./to_printable.ts";
import { erasePersonalData, type ErasureServices, exportPersonalData } from "./personal_data.ts";

/** The commands' lines of a usage text. */
export const PERSONAL_DATA_USAGE =
  `  export <email>       print, as JSON, everything stored about an e-mail address
  erase <email> --actor <name> [--discard-undelivered]
                       cancel the address's upcoming bookings (their CANCEL invites are sent),
                       erase everything stored about it, and print the erasure record as JSON;
                       --discard-undelivered erases even if those invites cannot be delivered`;

/** Where a command writes. */
export interface CommandOutput {
  /** Standard output: the JSON document. */
  write(text: string): void;
  /** Standard error: what went wrong. */
  writeError(line: string): void;
}

/** The value after `--name`, if given. */
function readOption(args: readonly string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

/**
 * Whether `command` is one of the personal-data commands.
 *
 * @param command The first argument after `inbox`.
 */
export function isPersonalDataCommand(command: string | undefined): boolean {
  return command === "export" || command === "erase";
}

/**
 * Runs `export <email>` or `erase <email> --actor <name> [--discard-undelivered]`.
 *
 * @param services The services over the service's store (`createServices` with the
 * environment's settings), with an outbox that can deliver the cancellations.
 * @param args The arguments after `inbox`, e.g. `["erase", "ana@example.pt", "--actor", "Rui"]`.
 * @param output Where the JSON and the errors go.
 * @returns The exit code: 0 done, 1 refused or failed (the reason on standard error), 2 usage.
 * @throws Whatever the store throws other than a refusal.
 */
export async function runPersonalDataCommand(
  services: ErasureServices,
  args: readonly string[],
  output: CommandOutput,
): Promise<number> {
  const [command, email] = args;
  if (!isPersonalDataCommand(command) || !email || email.startsWith("--")) {
    output.writeError(`Usage:\n${PERSONAL_DATA_USAGE}`);
    return 2;
  }
  try {
    if (command === "export") {
      const document = await exportPersonalData(services, email);
      output.write(JSON.stringify(document, null, 2) + "\n");
      return 0;
    }
    const actor = readOption(args, "--actor");
    if (actor === undefined) {
      output.writeError("erase needs --actor <name>: who asked for the erasure is recorded");
      return 2;
    }
    const record = await erasePersonalData(services, email, {
      actor,
      discardUndelivered: args.includes("--discard-undelivered"),
    });
    output.write(JSON.stringify(record, null, 2) + "\n");
    return 0;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.writeError(toPrintable(`${error.message}: ${error.hint}`));
    return 1;
  }
}
