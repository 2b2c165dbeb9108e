import { test } from "node:test";
import assert from "node:assert/strict";
import {
  type BookingMailContext,
  type BookingMailKind,
  type BookingRecord,
  buildBookingMail,
  describeInstant,
} from "../../../lib/booking/booking_mail.ts";
import { buildInvite } from "../../../lib/booking/invites.ts";
import { assertNoSampleWords, OTHER_SCHEDULE, OTHER_TIME_ZONE } from "../../_other_studio.ts";

/** 09:30 in São Paulo (-03:00 all year) on Wednesday 2 December 2026. */
const START = "2026-12-02T09:30:00-03:00";
const START_MS = Date.parse(START);

const RECORD: BookingRecord = {
  id: "01KBOOKINGMAILTEST00000000",
  uid: "booking-01KBOOKINGMAILTEST00000000@sol.example",
  sequence: 0,
  status: "pending",
  start: START,
  startEpochMs: START_MS,
  endEpochMs: START_MS + 30 * 60_000,
  name: "Joana Lima",
  email: "joana@example.com.br",
  topic: "Uma identidade nova para a nossa padaria",
  locale: "en",
  createdAt: "2026-11-21T10:00:00Z",
  updatedAt: "2026-11-21T10:00:00Z",
  clientAddress: "203.0.113.7",
  attendeeInvited: false,
  holdUntilEpochMs: START_MS - 60 * 60_000,
  mailIds: [],
  previousStartEpochMs: START_MS - 24 * 60 * 60_000,
};

const CONTEXT: BookingMailContext = {
  from: "Sol <site@sol.example>",
  inbox: "inbox@sol.example",
  domain: "sol.example",
  timeZone: OTHER_TIME_ZONE,
  durationMinutes: 30,
  meetingPlace: OTHER_SCHEDULE.meetingPlace,
  now: Temporal.Instant.from("2026-11-21T10:00:00Z"),
  buildInvite,
};

const LINKS = {
  cancel: "https://sol.example/booking/cancel?sig=c",
  confirm: "https://sol.example/booking/confirm?sig=a",
  decline: "https://sol.example/booking/decline?sig=d",
  reschedule: "https://sol.example/booking/reschedule?sig=r",
};

test("describeInstant() names the schedule's zone as its people do, in each language", () => {
  assert.equal(
    describeInstant(START_MS, OTHER_TIME_ZONE, "en"),
    "Wednesday, 2 December 2026 at 09:30 (Brasilia Standard Time)",
  );
  assert.equal(
    describeInstant(START_MS, OTHER_TIME_ZONE, "pt"),
    "quarta-feira, 2 de dezembro de 2026 às 09:30 (hora padrão de Brasília)",
  );
});

test("buildBookingMail() writes every e-mail's times in the schedule's zone, naming it and never the sample studio's city or zone", () => {
  const kinds: BookingMailKind[] = [
    "attendee-booked",
    "attendee-pending",
    "attendee-declined",
    "attendee-cancelled",
    "attendee-moved",
    "studio-new",
    "studio-cancelled",
    "studio-moved",
  ];
  const names = { en: "(Brasilia Standard Time)", pt: "(hora padrão de Brasília)" };
  for (const locale of ["en", "pt"] as const) {
    for (const kind of kinds) {
      const mail = buildBookingMail(kind, { ...RECORD, locale }, CONTEXT, LINKS);
      const written = kind.startsWith("studio-") ? "pt" : locale;
      const what = `${kind} (${locale})`;
      assert.ok(mail.text.includes(`09:30 ${names[written]}`), `${what}: ${mail.text}`);
      assertNoSampleWords(mail.subject, `${what}: the subject`);
      assertNoSampleWords(mail.text, `${what}: the text`);
      if (mail.calendar) {
        assert.match(mail.calendar.content, /DTSTART;TZID=America\/Sao_Paulo:20261202T093000/);
        assertNoSampleWords(mail.calendar.content, `${what}: the invite`);
      }
    }
  }
});
