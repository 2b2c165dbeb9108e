/**
 * A guided tour of the service on a fresh clone: starts it (manual confirmation, a temporary KV
 * file) with a loopback SMTP server, submits an inquiry in Portuguese, lists next month's slots,
 * books one in English, confirms it through the studio's signed link, and prints what each step
 * answered and what arrived in the mailbox, including the invite's summary.
 *
 * Usage: `deno task demo`
 *
 * @module
 */
import ICAL from "ical.js";
import { startSmtpServer } from "../tests/_smtp.ts";
import { startProcess } from "./_bench_support.ts";

const line = (text = "") => console.log(text);
const step = (title: string) => line(`\n── ${title} ${"─".repeat(Math.max(0, 70 - title.length))}`);

const smtp = await startSmtpServer();
const folder = await Deno.makeTempDir({ prefix: "studio-demo-" });
const service = await startProcess(["run", "--allow-all", "main.ts"], {
  PORT: "0",
  HOST: "127.0.0.1",
  STUDIO_KV_PATH: `${folder}/demo.kv`,
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_INBOX: "ola@studio.example",
  STUDIO_MAIL_FROM: "Estúdio <site@studio.example>",
  STUDIO_CONFIRMATION: "manual",
});
const base = service.origin;

async function show(response: Response): Promise<unknown> {
  const type = response.headers.get("Content-Type") ?? "";
  const body = type.includes("json") ? await response.json() : await response.text();
  line(`${response.status} ${response.statusText}  ${type}`);
  for (const name of ["RateLimit-Policy", "RateLimit", "API-Version"]) {
    const value = response.headers.get(name);
    if (value) line(`${name}: ${value}`);
  }
  return body;
}

try {
  line(`Service at ${base}, mailbox at ${smtp.url}`);

  step("1. An inquiry in Portuguese: POST /api/v1/contact (multipart, as the site's form)");
  const form = new FormData();
  form.append("Name", "Inês");
  form.append("Name", "Carvalho");
  form.append("Email", "ines@exemplo.pt");
  form.append("Category", "branding");
  form.append(
    "Message",
    "Olá! Estamos a abrir uma pastelaria em Alfama e precisamos de identidade visual e de um site simples. Falamos?",
  );
  form.append("utm_source", "instagram");
  line(
    JSON.stringify(
      await show(await fetch(`${base}/api/v1/contact`, { method: "POST", body: form })),
    ),
  );

  step("2. Next month's availability: GET /api/v1/booking/slots");
  const month = Temporal.Now.plainDateISO("Europe/Lisbon").toPlainYearMonth().add({ months: 1 });
  const listing = await show(await fetch(`${base}/api/v1/booking/slots?month=${month}`)) as {
    slots: Record<string, Array<{ start: string }>>;
  };
  const days = Object.entries(listing.slots);
  line(`${days.length} days with slots in ${month}; the first: ${days[0]?.[0]}`);
  line(`  ${days[0]?.[1].slice(0, 6).map((slot) => slot.start).join("\n  ")}`);
  const start = days[0]?.[1][2]?.start ?? days[0]?.[1][0]?.start;
  if (!start) throw new Error("No slot to book next month");

  step("3. A booking in English: POST /api/v1/booking");
  const booked = await show(
    await fetch(`${base}/api/v1/booking`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
      body: JSON.stringify({
        start,
        name: "Sam Taylor",
        email: "sam@example.com",
        company: "Northwind Ceramics",
        topic: "A new online shop for our studio pottery",
        locale: "en",
        website: "",
      }),
    }),
  );
  line(JSON.stringify(booked));

  step("4. The studio confirms it (manual mode): the signed link, then its button");
  await smtp.waitFor(3, 20_000);
  const notice = smtp.messages.find((message) =>
    message.parsed.subject?.startsWith("Nova conversa")
  );
  const confirmUrl = /Confirmar: (\S+)/.exec(notice?.parsed.text ?? "")?.[1];
  if (!confirmUrl) throw new Error("No confirm link in the studio's e-mail");
  const link = confirmUrl.replace(/^https?:\/\/[^/]+/, base);
  line(`GET ${link.replace(/sig=.*/, "sig=…")}`);
  // The link is exchanged for a cookie of its page (303 to the URL without sig), as a browser does.
  const exchange = await fetch(link, { redirect: "manual" });
  await exchange.body?.cancel();
  const location = exchange.headers.get("Location") ?? "";
  const cookie = (exchange.headers.get("Set-Cookie") ?? "").split(";")[0];
  line(`${exchange.status} → ${location}, with its cookie`);
  const page = await fetch(new URL(location, base), { headers: { Cookie: cookie } });
  line(
    `${page.status}: a page with ${
      (await page.text()).includes("<form") ? "a Confirm button" : "no button"
    }`,
  );
  const confirmed = await fetch(link, { method: "POST" });
  const text = await confirmed.text();
  line(`POST → ${confirmed.status}: ${/role="status">([^<]+)/.exec(text)?.[1] ?? ""}`);

  step("5. What arrived in the mailbox");
  await smtp.waitFor(4, 20_000);
  for (const message of smtp.messages) {
    line(`• To ${message.envelopeTo.join(", ")}: ${message.parsed.subject}`);
    const calendar = /BEGIN:VCALENDAR[\s\S]*?END:VCALENDAR/.exec(message.raw.replace(/=\r?\n/g, ""))
      ?.[0];
    if (calendar && message.raw.includes("text/calendar")) {
      const part = message.parsed.attachments.find((attachment) =>
        attachment.filename?.endsWith(".ics")
      );
      const ics = part ? new TextDecoder().decode(part.content as ArrayBuffer) : calendar;
      const root = new ICAL.Component(ICAL.parse(ics));
      const event = new ICAL.Event(root.getFirstSubcomponent("vevent") ?? undefined);
      line(
        `    invite ${
          root.getFirstPropertyValue("method")
        }: "${event.summary}", ${event.startDate.toString()} ${event.startDate.zone?.tzid}`,
      );
    }
  }
  step("Done");
  line(`The KV file of this run was ${folder}/demo.kv; it is removed now.`);
} finally {
  await service.stop();
  await smtp.stop();
  await Deno.remove(folder, { recursive: true }).catch(() => {});
}
