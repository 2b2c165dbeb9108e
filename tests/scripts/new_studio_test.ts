/**
 * The starter (`deno task new-studio`, scripts/new_studio.ts), run on copies of the sample studio
 * frozen as a fixture (tests/fixtures/studios/sample/, never content/, which the adopter changes)
 * in temporary folders: the facts, the schedule, the example case study in place of the sample's,
 * a content folder that builds whole, and the values it refuses.
 *
 * @module
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { parse } from "yaml";
import { newStudio, NewStudioError, SAMPLE_NAME } from "../../scripts/new_studio.ts";
import { checkContent } from "../../scripts/check_content.ts";
import { buildContent, readContentFiles } from "../../scripts/build_content.ts";
import { createHandler } from "../../mod.ts";
import { createMemoryMailer, createMemoryStore } from "../../testing.ts";
import { readSchedule } from "../../lib/availability/read_schedule.ts";
import { RUNTIME } from "../_kv.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The sample studio, as content/ holds it on a fresh clone. */
const FIXTURE = ROOT + "tests/fixtures/studios/sample/";

const SOURCE_ONLY = { skip: RUNTIME !== "deno" && "runs a script of the checkout (Deno)" };

/** The studio of the command in docs/adopting.md. */
const SOL = {
  name: "Ateliê Sol",
  email: "ola@sol.example",
  city: "São Paulo",
  timeZone: "America/Sao_Paulo",
  address: "Rua Augusta 10, 01305-000 São Paulo",
  country: "BR",
};

/** What no file of a studio set up from the sample may still say: its name and its city. */
const SAMPLE_WORDS = /Traço|Lisbo[an]/;

/** Copies the sample studio into a temporary folder, runs `use` on the copy, then removes it. */
async function withContentCopy(use: (folder: string) => Promise<void>): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), "new-studio-")) + "/";
  try {
    await cp(FIXTURE, folder, { recursive: true });
    await use(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The Markdown files of a content folder: the pages of each language and the skills. */
async function readMarkdown(folder: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const language of ["pt", "en"]) {
    for (const name of await readdir(folder + language)) {
      files.set(`${language}/${name}`, await readFile(`${folder}${language}/${name}`, "utf8"));
    }
  }
  for (const skill of await readdir(folder + "skills")) {
    const path = `skills/${skill}/SKILL.md`;
    files.set(path, await readFile(folder + path, "utf8"));
  }
  return files;
}

/** The work index and the home page of each language show the example's card, and no other. */
async function assertExampleShown(folder: string): Promise<void> {
  const { corpus } = buildContent(await readContentFiles(folder));
  const store = createMemoryStore();
  try {
    const handler = createHandler({
      baseUrl: "https://sol.example",
      store,
      mailer: createMemoryMailer(),
      content: corpus,
    });
    const pages = [["/", "/trabalho/"], ["/trabalho", "/trabalho/"], ["/en", "/en/work/"], [
      "/en/work",
      "/en/work/",
    ]];
    for (const [path, cases] of pages) {
      const response = await handler(new Request("https://sol.example" + path));
      const body = await response.text();
      assert.equal(response.status, 200, path);
      const links = new Set(body.match(new RegExp(`href="${cases}[a-z0-9-]+"`, "g")));
      const example = cases === "/trabalho/" ? "exemplo" : "example";
      assert.deepEqual([...links], [`href="${cases}${example}"`], path);
    }
  } finally {
    store.close();
  }
}

test(
  "newStudio() writes the studio's facts into site.yaml and changes no other line",
  SOURCE_ONLY,
  async () => {
    await withContentCopy(async (folder) => {
      const before = await readFile(folder + "site.yaml", "utf8");
      await newStudio({ ...SOL, cityEn: "Sao Paulo" }, folder);
      const after = await readFile(folder + "site.yaml", "utf8");
      const facts = parse(after);
      assert.equal(facts.name, "Ateliê Sol");
      assert.equal(facts.email, "ola@sol.example");
      assert.equal(facts.address, "Rua Augusta 10, 01305-000 São Paulo");
      assert.equal(facts.country, "BR");
      assert.deepEqual(facts.city, { pt: "São Paulo", en: "Sao Paulo" });
      const [oldLines, newLines] = [before.split("\n"), after.split("\n")];
      assert.equal(newLines.length, oldLines.length);
      const changed = oldLines.filter((line, index) => line !== newLines[index]);
      assert.deepEqual(changed.map((line) => line.split(":")[0]), [
        "name",
        "email",
        "address",
        "country",
        "city",
      ]);
      assert.match(newLines[12], /^city: \{ pt: São Paulo, en: Sao Paulo \}$/, "flow style kept");
    });
  },
);

test(
  "newStudio() sets the schedule's zone, holidays and meeting place and empties its closed dates",
  SOURCE_ONLY,
  async () => {
    await withContentCopy(async (folder) => {
      const before = await readFile(folder + "schedule.json", "utf8");
      await newStudio(SOL, folder);
      const text = await readFile(folder + "schedule.json", "utf8");
      const schedule = readSchedule(JSON.parse(text));
      assert.equal(schedule.timeZone, "America/Sao_Paulo");
      assert.equal(schedule.holidayCountry, "BR");
      assert.deepEqual(schedule.closedDates, []);
      assert.equal(
        schedule.meetingPlace.pt,
        "Videochamada: https://meet.sol.example/conversa " +
          "(ou no estúdio, Rua Augusta 10, 01305-000 São Paulo, se preferir)",
      );
      assert.match(schedule.meetingPlace.en, /^Video call: https:\/\/meet\.sol\.example\/conversa/);
      const unchanged = (json: string) =>
        json.split("\n").filter((line) =>
          !/timeZone|closedDates|holidayCountry|"(pt|en)"/.test(line)
        );
      assert.deepEqual(unchanged(text), unchanged(before), "the file's layout is kept");
    });
  },
);

test(
  "newStudio() replaces the sample's case studies with one example, and the content is whole",
  SOURCE_ONLY,
  async () => {
    await withContentCopy(async (folder) => {
      const report = await newStudio(SOL, folder);
      assert.deepEqual(report.country, { code: "BR", from: "given" });
      const markdown = await readMarkdown(folder);
      const cases = [...markdown].filter(([, text]) => /^layout: case$/m.test(text));
      assert.deepEqual(cases.map(([path]) => path).sort(), [
        "en/work_example.md",
        "pt/work_example.md",
      ]);
      for (const [path, text] of cases) {
        assert.match(text, /^title: (Exemplo de projeto|Example project)$/m, path);
        assert.match(text, /^\*\*(Este projeto é um exemplo|This project is an example)/m, path);
        assert.match(text, /^ {4}src: work-example-cover\.jpg$/m, path);
      }
      const pictures = (await readdir(folder + "assets")).filter((name) =>
        name.startsWith("work-")
      );
      assert.deepEqual(pictures, ["work-example-cover.jpg"]);
      const photo = await sharp(folder + "assets/work-example-cover.jpg").metadata();
      assert.deepEqual([photo.format, photo.width, photo.height], ["jpeg", 1600, 1000]);
      for (const [path, text] of markdown) {
        assert.doesNotMatch(text, SAMPLE_WORDS, `${path} names the sample studio or its city`);
      }
      const settings = (await readFile(folder + "site.yaml", "utf8")).replace(/^#.*$/gm, "");
      assert.doesNotMatch(settings, SAMPLE_WORDS, "site.yaml names the sample outside comments");
      assert.doesNotMatch(await readFile(folder + "schedule.json", "utf8"), SAMPLE_WORDS);
      // The build's checks, every page in both languages and every link: the removed case
      // studies are linked from nowhere, the example shows on the work index and home page.
      assert.deepEqual(await checkContent(folder), []);
      await assertExampleShown(folder);
    });
  },
);

test(
  "newStudio() refuses a studio set up already, unless forced",
  SOURCE_ONLY,
  async () => {
    await withContentCopy(async (folder) => {
      await newStudio(SOL, folder);
      await assert.rejects(
        newStudio({ ...SOL, name: "Ateliê Lua" }, folder),
        (error: Error) =>
          error instanceof NewStudioError && /"Ateliê Sol", not the sample/.test(error.message) &&
          /--force/.test(error.message),
      );
      const report = await newStudio({ ...SOL, name: "Ateliê Lua", force: true }, folder);
      assert.deepEqual(report.removed, [], "the example is written again, not removed");
      assert.equal(parse(await readFile(folder + "site.yaml", "utf8")).name, "Ateliê Lua");
      const pages = await readMarkdown(folder);
      assert.equal([...pages.values()].filter((text) => /^layout: case$/m.test(text)).length, 2);
    });
  },
);

test(
  "newStudio() checks every value before it changes a file",
  SOURCE_ONLY,
  async () => {
    await withContentCopy(async (folder) => {
      const before = await readFile(folder + "site.yaml", "utf8");
      const refusals: [Partial<typeof SOL>, RegExp][] = [
        [{ email: "ola@" }, /Invalid --email "ola@"/],
        [{ email: "ola@localhost" }, /Invalid --email/],
        [{ timeZone: "Mars/Olympus" }, /Invalid --time-zone "Mars\/Olympus"/],
        [{ timeZone: "+03:00" }, /Invalid --time-zone/],
        [{ country: "Brazil" }, /Invalid --country "Brazil"/],
        [{ country: "ZZ" }, /Invalid --country "ZZ"/],
        [{ name: " " }, /Missing --name/],
        [{ name: "{{name}}" }, /Invalid --name/],
      ];
      for (const [change, message] of refusals) {
        await assert.rejects(
          newStudio({ ...SOL, ...change }, folder),
          (error: Error) => error instanceof NewStudioError && message.test(error.message),
          JSON.stringify(change),
        );
      }
      assert.equal(await readFile(folder + "site.yaml", "utf8"), before);
      assert.equal(parse(before).name, SAMPLE_NAME);
      assert.ok((await readdir(folder + "en")).includes("work_mare_alta.md"));
    });
  },
);

test(
  "newStudio() takes the country of the time zone, or asks for one when countries share it",
  SOURCE_ONLY,
  async () => {
    await withContentCopy(async (folder) => {
      await assert.rejects(
        newStudio({ ...SOL, country: undefined, timeZone: "Europe/Zurich" }, folder),
        /No single country uses the time zone "Europe\/Zurich": give one with --country/,
      );
      const report = await newStudio(
        { ...SOL, country: undefined, timeZone: "america/sao_paulo" },
        folder,
      );
      assert.deepEqual(report.country, { code: "BR", from: "time zone" });
      const schedule = JSON.parse(await readFile(folder + "schedule.json", "utf8"));
      assert.equal(schedule.timeZone, "America/Sao_Paulo", "spelt as the zone's data spells it");
      assert.equal(schedule.holidayCountry, "BR");
    });
  },
);

test(
  "deno task new-studio without a terminal fails with its usage when a fact is missing",
  SOURCE_ONLY,
  async () => {
    await withContentCopy(async (folder) => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", ROOT + "scripts/new_studio.ts", "--content", folder, "--name", "Sol"],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1" },
      }).output();
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 2, stderr);
      assert.match(stderr, /^Missing --email, --city, --time-zone\n\nUsage: deno task new-studio/);
      assert.equal(parse(await readFile(folder + "site.yaml", "utf8")).name, SAMPLE_NAME);
    });
  },
);
