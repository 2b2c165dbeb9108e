/**
 * The operator's CLI refuses the studio's own addresses whatever environment it runs with (issue
 * L6 of the re-attack): the service records its inbox, From address and team in the store once it
 * has started, and export and erasure read them there, so a CLI given only `STUDIO_KV_PATH` does
 * not take the studio's inbox, which receives every visitor's notices, for a visitor's address.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../../compose/create_app.ts";
import { createOperatorServices } from "../../compose/create_operator_services.ts";
import { runPersonalDataCommand } from "../../lib/privacy/personal_data_command.ts";
import {
  type StoredStudioAddresses,
  STUDIO_ADDRESSES_KEY,
} from "../../lib/privacy/studio_addresses.ts";
import { createMemoryStore } from "../../testing.ts";
import { createRecordingLogger } from "../_support.ts";

const SERVICE_ENV = {
  STUDIO_LOG: "quiet",
  STUDIO_INBOX: "Equipa <Equipa@Atelier.example>",
  STUDIO_MAIL_FROM: "Atelier <site@atelier.example>",
  STUDIO_TEAM: "rita@atelier.example, rui@atelier.example",
};

/** Runs the CLI's command with an environment of its own over the store; answers its output. */
async function runCli(store: ReturnType<typeof createMemoryStore>, args: string[]) {
  const operator = createOperatorServices({ STUDIO_LOG: "quiet" }, store);
  const output: string[] = [];
  const errors: string[] = [];
  try {
    const code = await runPersonalDataCommand(operator.services, args, {
      write: (text) => output.push(text),
      writeError: (line) => errors.push(line),
    });
    return { code, output: output.join(""), errors: errors.join("\n") };
  } finally {
    await operator.close();
  }
}

test("the service records its own addresses once started, and the CLI refuses them without its environment", async () => {
  const store = createMemoryStore();
  const app = await createApp(SERVICE_ENV, {
    openStore: () => Promise.resolve(store),
    logger: createRecordingLogger(),
  });
  try {
    // The record waits for the outbox's first look at the store, a second after start.
    let kept: StoredStudioAddresses | null = null;
    for (let waited = 0; !kept && waited < 5_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      kept = (await store.get<StoredStudioAddresses>(STUDIO_ADDRESSES_KEY)).value;
    }
    assert.deepEqual(kept?.addresses, [
      "equipa@atelier.example",
      "rita@atelier.example",
      "rui@atelier.example",
      "site@atelier.example",
    ]);
    for (
      const address of ["equipa@atelier.example", "SITE@atelier.example", "rui@atelier.example"]
    ) {
      const exported = await runCli(store, ["export", address]);
      assert.equal(exported.code, 1, address);
      assert.match(exported.errors, /is the studio's own address/, address);
      const erased = await runCli(store, ["erase", address, "--actor", "Rita"]);
      assert.equal(erased.code, 1, address);
      assert.match(erased.errors, /is the studio's own address/, address);
    }
    const visitor = await runCli(store, ["export", "ana@example.pt"]);
    assert.equal(visitor.code, 0, visitor.errors);
    assert.match(visitor.output, /"ana@example.pt"/);
  } finally {
    await app.close();
  }
});
