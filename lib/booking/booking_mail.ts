/**
 * The e-mails of a booking, in the booking's locale for the attendee (PT-PT or English) and in
 * Portuguese for the studio: invites as iMIP (a `text/calendar; method=…` part plus an `.ics`
 * attachment, RFC 6047) with a readable text body.
 *
 * @module
 */
import type { buildInvite } from "./invites.ts";
import { type OutgoingMail, toBareAddress, toHeaderText } from "../mail/mail.ts";
import { toZoneName } from "../availability/to_zone_name.ts";

/** A booking's state (BookingResult `status` shows `accepted` and `pending`). */
export type BookingStatus = "pending" | "accepted" | "declined" | "cancelled";

/** A stored booking. */
export interface BookingRecord {
  /** A ULID. */
  id: string;
  /** The invite's UID, stable for the booking's life. */
  uid: string;
  /** The invite's SEQUENCE: 0, then one more for each change sent. */
  sequence: number;
  /** The state. */
  status: BookingStatus;
  /** Start, ISO 8601 with the schedule zone's offset. */
  start: string;
  /** Start, epoch milliseconds (the slot hold's key). */
  startEpochMs: number;
  /** End, epoch milliseconds. */
  endEpochMs: number;
  /** Attendee name. */
  name: string;
  /** Attendee address. */
  email: string;
  /** Attendee company. */
  company?: string;
  /** Subject of the conversation. */
  topic: string;
  /** Locale of the attendee's e-mails. */
  locale: "pt" | "en";
  /** When it was booked, ISO 8601 UTC. */
  createdAt: string;
  /** When its state last changed, ISO 8601 UTC. */
  updatedAt: string;
  /** The client's rate-limit key. */
  clientAddress: string;
  /** Whether the attendee has been sent a REQUEST invite. */
  attendeeInvited: boolean;
  /**
   * For a pending booking: until when its slot is held for the team's confirmation, epoch
   * milliseconds (the earlier of 48 hours after booking and the start). Past it the request has
   * lapsed: it can no longer be confirmed or declined, and the slot is free for others.
   */
  holdUntilEpochMs?: number;
  /** Outbox ids of the e-mails it caused. */
  mailIds: string[];
  /** After the attendee moved it: the start before the last move, epoch milliseconds. */
  previousStartEpochMs?: number;
  /**
   * The attendee's IANA time zone, when the booking names one: the reminder writes the time in it
   * as well as in the schedule's zone.
   */
  timeZone?: string;
  /**
   * While the attendee's reminder waits (`reminders.ts`): when it is due, epoch milliseconds, the
   * time in its key `["reminder", due, id]`. Absent once it was queued, or when none is due.
   */
  reminderDueEpochMs?: number;
}

/** What every booking e-mail needs besides the booking. */
export interface BookingMailContext {
  /** The studio's From address (also the invites' ORGANIZER). */
  from: string;
  /** The studio's inbox. */
  inbox: string;
  /** Domain of Message-IDs and UIDs. */
  domain: string;
  /** The schedule's zone. */
  timeZone: string;
  /** Meeting length in minutes. */
  durationMinutes: number;
  /** Where meetings take place, by locale. */
  meetingPlace: Record<string, string>;
  /** When the e-mail is written. */
  now: Temporal.Instant;
  /** Builds the iMIP invites: see {@linkcode InviteModule}. */
  buildInvite: InviteBuilder;
  /**
   * The team's words to the attendee, quoted in a decline or cancel e-mail (plain text) and in
   * the studio's copy of a cancellation.
   */
  note?: string;
}

/** Builds an invite's text. */
export type InviteBuilder = typeof buildInvite;

/**
 * The invites' module (`invites.ts`, on ical-generator): loaded with a booking's first e-mail, not
 * when the service starts.
 */
export interface InviteModule {
  /** Builds an invite's text. */
  buildInvite: InviteBuilder;
}

/** The signed links an e-mail may carry. */
export interface BookingLinks {
  cancel: string;
  confirm?: string;
  decline?: string;
  /** The attendee's page to move the booking to another free time. */
  reschedule?: string;
}

const TEXT = {
  pt: {
    intlLocale: "pt-PT",
    summary: (minutes: number) => `Conversa de ${minutes} minutos com o estúdio`,
    when: "Quando",
    duration: "Duração",
    minutes: "minutos",
    where: "Onde",
    topic: "Tema",
    company: "Empresa",
    bookedSubject: "Conversa marcada",
    pendingSubject: "Pedido de conversa recebido — a aguardar confirmação",
    declinedSubject: "Não foi possível confirmar a conversa",
    cancelledSubject: "Conversa cancelada",
    movedSubject: "Conversa mudada",
    reminderSubject: "Lembrete: conversa com o estúdio",
    hello: (name: string) => `Olá ${name},`,
    booked:
      "A sua conversa com o estúdio está marcada. O convite segue em anexo para o seu calendário.",
    pending:
      "Recebemos o seu pedido de conversa. A equipa vai confirmá-lo em breve e enviaremos o convite nessa altura.",
    declined:
      "Lamentamos, mas não conseguimos confirmar a conversa no horário pedido. Escolha outro horário no site quando lhe der jeito.",
    cancelled: "A conversa foi cancelada e o horário ficou livre.",
    moved:
      "A sua conversa mudou de hora, como pediu. O convite atualizado segue em anexo para o seu calendário.",
    movedPending:
      "O seu pedido de conversa mudou de hora, como pediu. A equipa vai confirmá-lo em breve e enviaremos o convite nessa altura.",
    reminder:
      "Lembramos que a sua conversa com o estúdio está marcada para breve. Se precisar, pode mudá-la para outra hora ou cancelá-la com as ligações abaixo.",
    studioTime: "Hora do estúdio",
    yourTime: "Hora da pessoa",
    previously: "Antes",
    cancelLink: "Para cancelar, use esta ligação:",
    rescheduleLink:
      "Para mudar para outra hora, abra esta ligação (mostra as horas livres; escolha uma e envie):",
    note: "Mensagem da equipa:",
    signOff: "Até breve,\nO estúdio",
  },
  en: {
    intlLocale: "en-GB",
    summary: (minutes: number) => `${minutes}-minute conversation with the studio`,
    when: "When",
    duration: "Duration",
    minutes: "minutes",
    where: "Where",
    topic: "Topic",
    company: "Company",
    bookedSubject: "Conversation booked",
    pendingSubject: "Conversation request received — awaiting confirmation",
    declinedSubject: "We could not confirm your conversation",
    cancelledSubject: "Conversation cancelled",
    movedSubject: "Conversation moved",
    reminderSubject: "Reminder: conversation with the studio",
    hello: (name: string) => `Hello ${name},`,
    booked:
      "Your conversation with the studio is booked. The invite is attached for your calendar.",
    pending:
      "We received your request for a conversation. The team will confirm it shortly and send the invite then.",
    declined:
      "We are sorry: we could not confirm the conversation at the time you asked for. Please pick another time on the site.",
    cancelled: "The conversation has been cancelled and the time is free again.",
    moved:
      "Your conversation has moved to the new time, as you asked. The updated invite is attached for your calendar.",
    movedPending:
      "Your request for a conversation has moved to the new time, as you asked. The team will confirm it shortly and send the invite then.",
    reminder:
      "A reminder that your conversation with the studio is coming up. If you need to, you can move it to another time or cancel it with the links below.",
    studioTime: "Studio time",
    yourTime: "The person's time",
    previously: "Previously",
    cancelLink: "To cancel, use this link:",
    rescheduleLink:
      "To move it to another time, open this link (it lists the free times; choose one and send):",
    note: "A message from the team:",
    signOff: "Speak soon,\nThe studio",
  },
} as const;

/**
 * The start of a booking in words, with the zone's name for people, e.g. `quarta-feira, 2 de
 * dezembro de 2026 às 09:30 (hora da Europa Ocidental)` for `Europe/Lisbon`.
 */
export function describeStart(
  record: BookingRecord,
  locale: "pt" | "en",
  timeZone: string,
): string {
  return describeInstant(record.startEpochMs, timeZone, locale);
}

/** An instant in words, as {@linkcode describeStart} writes it (epoch milliseconds). */
export function describeInstant(
  epochMilliseconds: number,
  timeZone: string,
  locale: "pt" | "en" = "pt",
): string {
  const text = TEXT[locale];
  const at = Temporal.Instant.fromEpochMilliseconds(epochMilliseconds);
  const formatted = new Intl.DateTimeFormat(text.intlLocale, {
    timeZone,
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  }).format(new Date(epochMilliseconds));
  return `${formatted} (${toZoneName(timeZone, { locale: text.intlLocale, at })})`;
}

/**
 * A booking's slot in words, from its start to its end in a zone, with the zone's name for people,
 * e.g. `Wednesday, 2 December 2026, 04:30–05:00 (Eastern Time)` for `America/New_York`.
 *
 * @param record The booking's start and end, epoch milliseconds.
 * @param timeZone An IANA zone `Intl` knows.
 * @param locale The language.
 * @returns The slot in words.
 */
export function describeSlot(
  record: Pick<BookingRecord, "startEpochMs" | "endEpochMs">,
  timeZone: string,
  locale: "pt" | "en",
): string {
  const text = TEXT[locale];
  const range = new Intl.DateTimeFormat(text.intlLocale, {
    timeZone,
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  }).formatRange(new Date(record.startEpochMs), new Date(record.endEpochMs));
  const at = Temporal.Instant.fromEpochMilliseconds(record.startEpochMs);
  return `${range} (${toZoneName(timeZone, { locale: text.intlLocale, at })})`;
}

/**
 * The attendee's zone of a booking, when it names one the runtime knows that is not the
 * schedule's: the zone its times are written in first, for the attendee.
 *
 * @param record The booking.
 * @param scheduleTimeZone The schedule's zone.
 * @returns The zone, or `undefined` when the attendee's times are the schedule's.
 */
export function toAttendeeZone(
  record: Pick<BookingRecord, "timeZone">,
  scheduleTimeZone: string,
): string | undefined {
  const zone = record.timeZone;
  return zone && zone !== scheduleTimeZone && isKnownZone(zone) ? zone : undefined;
}

/**
 * The lines of when: in the attendee's zone when the booking names one (then the studio's time
 * on a line of its own), else in the schedule's.
 */
function whenLines(
  record: BookingRecord,
  locale: "pt" | "en",
  context: BookingMailContext,
): string[] {
  const text = TEXT[locale];
  const zone = toAttendeeZone(record, context.timeZone);
  if (!zone) return [`${text.when}: ${describeStart(record, locale, context.timeZone)}`];
  return [
    `${text.when}: ${describeStart(record, locale, zone)}`,
    `${text.studioTime}: ${describeStart(record, locale, context.timeZone)}`,
  ];
}

function detailLines(record: BookingRecord, locale: "pt" | "en", context: BookingMailContext) {
  const text = TEXT[locale];
  return [
    ...whenLines(record, locale, context),
    `${text.duration}: ${context.durationMinutes} ${text.minutes}`,
    `${text.where}: ${context.meetingPlace[locale] ?? context.meetingPlace.en ?? ""}`,
    `${text.topic}: ${record.topic}`,
    ...(record.company ? [`${text.company}: ${record.company}`] : []),
  ];
}

/** Whether `timeZone` is a zone the runtime knows (an IANA name such as `America/Sao_Paulo`). */
function isKnownZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The start as an attendee's e-mail writes it: in the attendee's zone, if the booking has one. */
function attendeeWhen(record: BookingRecord, locale: "pt" | "en", context: BookingMailContext) {
  return describeStart(
    record,
    locale,
    toAttendeeZone(record, context.timeZone) ?? context.timeZone,
  );
}

/** What a booking's calendar event says, in a language: as invites and calendar links write it. */
export interface BookingEvent {
  /** One line. */
  summary: string;
  /** Several lines: when, how long, where, the topic. */
  description: string;
  /** Where it takes place, or the video link. */
  location: string;
  /** Start, in the schedule's zone. */
  start: Temporal.ZonedDateTime;
  /** End, in the schedule's zone. */
  end: Temporal.ZonedDateTime;
}

/**
 * The calendar event of a booking, as its invites write it.
 *
 * @param record The booking.
 * @param locale The language of its words.
 * @param context The schedule's zone, the meeting's length and place.
 * @returns Its summary, description, location, start and end.
 */
export function buildBookingEvent(
  record: BookingRecord,
  locale: "pt" | "en",
  context: Pick<BookingMailContext, "timeZone" | "durationMinutes" | "meetingPlace">,
): BookingEvent {
  const text = TEXT[locale];
  const start = Temporal.Instant.fromEpochMilliseconds(record.startEpochMs)
    .toZonedDateTimeISO(context.timeZone);
  return {
    summary: `${text.summary(context.durationMinutes)}: ${toHeaderText(record.name, 120)}`,
    description: detailLines(record, locale, context as BookingMailContext).join("\n"),
    location: context.meetingPlace[locale] ?? context.meetingPlace.en ?? "",
    start,
    end: start.add({ minutes: context.durationMinutes }),
  };
}

/**
 * Builds a booking's iCalendar text: the e-mailed invite (`REQUEST`, `CANCEL`) or the same event
 * to add to a calendar from the booking's page (`PUBLISH`: no attendee, tentative while pending),
 * one UID and SEQUENCE for all.
 *
 * @param record The booking.
 * @param method The iTIP method (RFC 5546).
 * @param locale The language of its words.
 * @param context Addresses, zone, meeting settings, the current instant and the invites' builder.
 * @returns The `.ics` text.
 */
export function buildBookingInvite(
  record: BookingRecord,
  method: "REQUEST" | "CANCEL" | "PUBLISH",
  locale: "pt" | "en",
  context: BookingMailContext,
): string {
  const event = buildBookingEvent(record, locale, context);
  return context.buildInvite({
    uid: record.uid,
    sequence: record.sequence,
    method,
    ...(method === "PUBLISH" && record.status === "pending" ? { tentative: true } : {}),
    start: event.start,
    durationMinutes: context.durationMinutes,
    summary: event.summary,
    description: event.description,
    location: event.location,
    organizer: { name: "Studio", email: toBareAddress(context.from) },
    attendee: { name: toHeaderText(record.name, 120), email: record.email },
    issuedAt: context.now,
  });
}

function invite(
  record: BookingRecord,
  method: "REQUEST" | "CANCEL",
  locale: "pt" | "en",
  context: BookingMailContext,
): string {
  return buildBookingInvite(record, method, locale, context);
}

function withInvite(
  mail: OutgoingMail,
  method: "REQUEST" | "CANCEL",
  content: string,
): OutgoingMail {
  // The mailer sends it as iMIP: a text/calendar part and the same as an .ics attachment.
  return { ...mail, calendar: { method, content } };
}

/** The kinds of e-mail a booking sends. */
export type BookingMailKind =
  | "attendee-booked"
  | "attendee-pending"
  | "attendee-declined"
  | "attendee-cancelled"
  | "attendee-moved"
  | "attendee-reminder"
  | "studio-new"
  | "studio-cancelled"
  | "studio-moved";

function messageIdOf(kind: BookingMailKind, record: BookingRecord, domain: string): string {
  return `${kind}-${record.id}-${record.sequence}@${domain}`;
}

/**
 * The lines of the links an attendee's e-mail carries while the booking stands: cancel, and the
 * reschedule page when there is one.
 */
function linkLines(text: typeof TEXT[keyof typeof TEXT], links: BookingLinks): string[] {
  return [
    "",
    text.cancelLink,
    links.cancel,
    ...(links.reschedule ? ["", text.rescheduleLink, links.reschedule] : []),
  ];
}

/** The line that says when a moved booking was before, if it was moved. */
function previousLines(
  record: BookingRecord,
  locale: "pt" | "en",
  context: BookingMailContext,
): string[] {
  if (record.previousStartEpochMs === undefined) return [];
  const before = describeInstant(record.previousStartEpochMs, context.timeZone, locale);
  return [`${TEXT[locale].previously}: ${before}`];
}

/**
 * An e-mail to the attendee, in the booking's locale; booked, cancelled and moved (once the
 * attendee has been invited) carry an invite. The reminder carries none (nothing changed): it
 * says when, in the attendee's zone too, with the cancel and reschedule links.
 */
function buildAttendeeMail(
  kind: BookingMailKind,
  record: BookingRecord,
  context: BookingMailContext,
  links: BookingLinks,
): OutgoingMail {
  const locale = record.locale;
  const text = TEXT[locale];
  // The attendee reads the time in their zone when the booking names one.
  const when = attendeeWhen(record, locale, context);
  const [subject, lead] = kind === "attendee-booked"
    ? [`${text.bookedSubject}: ${when}`, text.booked]
    : kind === "attendee-reminder"
    ? [`${text.reminderSubject}: ${when}`, text.reminder]
    : kind === "attendee-pending"
    ? [text.pendingSubject, text.pending]
    : kind === "attendee-declined"
    ? [text.declinedSubject, text.declined]
    : kind === "attendee-moved"
    ? [`${text.movedSubject}: ${when}`, record.attendeeInvited ? text.moved : text.movedPending]
    : [`${text.cancelledSubject}: ${when}`, text.cancelled];
  const body = [
    text.hello(toHeaderText(record.name, 120)),
    "",
    lead,
    "",
    ...(context.note && (kind === "attendee-declined" || kind === "attendee-cancelled")
      ? [text.note, context.note, ""]
      : []),
    ...detailLines(record, locale, context),
    ...(kind === "attendee-moved" ? previousLines(record, locale, context) : []),
    ...(kind === "attendee-booked" || kind === "attendee-pending" || kind === "attendee-moved" ||
        kind === "attendee-reminder"
      ? linkLines(text, links)
      : []),
    "",
    text.signOff,
  ].join("\n");
  const mail: OutgoingMail = {
    messageId: messageIdOf(kind, record, context.domain),
    from: context.from,
    to: [record.email],
    replyTo: toBareAddress(context.inbox),
    subject: toHeaderText(subject, 200),
    text: body,
  };
  if (kind === "attendee-booked" || (kind === "attendee-moved" && record.attendeeInvited)) {
    return withInvite(mail, "REQUEST", invite(record, "REQUEST", locale, context));
  }
  if (kind === "attendee-cancelled") {
    return withInvite(mail, "CANCEL", invite(record, "CANCEL", locale, context));
  }
  return mail;
}

/** The first line of an e-mail to the studio. */
function studioLead(kind: BookingMailKind, pending: boolean): string {
  if (kind === "studio-cancelled") return "Esta conversa foi cancelada e o horário ficou livre.";
  if (kind === "studio-moved") {
    return `A pessoa mudou ${
      pending ? "este pedido de conversa" : "esta conversa"
    } para outra hora.`;
  }
  return pending
    ? "Há um pedido de conversa à espera de confirmação."
    : "Foi marcada uma nova conversa.";
}

/**
 * An e-mail to the studio, in Portuguese, with the invite: a new booking or one the attendee
 * moved (with the confirm and decline links while it is pending), or a cancelled one.
 */
function buildStudioMail(
  kind: BookingMailKind,
  record: BookingRecord,
  context: BookingMailContext,
  links: BookingLinks,
): OutgoingMail {
  const when = describeStart(record, "pt", context.timeZone);
  const pending = record.status === "pending";
  const name = toHeaderText(record.name, 120);
  const standing = kind !== "studio-cancelled";
  const subject = kind === "studio-new"
    ? `Nova conversa${pending ? " a confirmar" : ""}: ${name} — ${when}`
    : kind === "studio-moved"
    ? `Conversa mudada${pending ? " a confirmar" : ""}: ${name} — ${when}`
    : `Conversa cancelada: ${name} — ${when}`;
  const body = [
    studioLead(kind, pending),
    "",
    // The team's copy shows what the attendee was told, whoever of the team wrote it.
    ...(kind === "studio-cancelled" && context.note
      ? ["Mensagem da equipa à pessoa:", context.note, ""]
      : []),
    `Nome: ${record.name}`,
    `E-mail: ${record.email}`,
    ...(record.company ? [`Empresa: ${record.company}`] : []),
    `Idioma: ${record.locale === "pt" ? "português" : "inglês"}`,
    `Quando: ${when}`,
    ...(toAttendeeZone(record, context.timeZone)
      ? [`${TEXT.pt.yourTime}: ${attendeeWhen(record, "pt", context)}`]
      : []),
    ...(kind === "studio-moved" ? previousLines(record, "pt", context) : []),
    "",
    "Tema:",
    record.topic,
    "",
    ...(standing && pending && links.confirm && links.decline
      ? [
        `Confirmar: ${links.confirm}`,
        `Recusar: ${links.decline}`,
        ...(record.holdUntilEpochMs === undefined ? [] : [
          `Sem confirmação até ${
            describeInstant(record.holdUntilEpochMs, context.timeZone)
          }, o pedido caduca e o horário fica livre.`,
        ]),
      ]
      : []),
    ...(standing ? [`Cancelar: ${links.cancel}`] : []),
    "",
    `Reserva ${record.id}`,
  ].join("\n");
  const mail: OutgoingMail = {
    messageId: messageIdOf(kind, record, context.domain),
    from: context.from,
    to: [toBareAddress(context.inbox)],
    replyTo: record.email,
    subject: toHeaderText(subject, 200),
    text: body,
  };
  return standing
    ? withInvite(mail, "REQUEST", invite(record, "REQUEST", "pt", context))
    : withInvite(mail, "CANCEL", invite(record, "CANCEL", "pt", context));
}

/**
 * Builds one e-mail of a booking.
 *
 * @param kind Which e-mail.
 * @param record The booking, as it is after the change the e-mail announces.
 * @param context Addresses, zone, meeting settings, the current instant and the invites' builder.
 * @param links The signed links to include.
 * @returns The e-mail, with its iMIP invite.
 */
export function buildBookingMail(
  kind: BookingMailKind,
  record: BookingRecord,
  context: BookingMailContext,
  links: BookingLinks,
): OutgoingMail {
  return kind.startsWith("attendee-")
    ? buildAttendeeMail(kind, record, context, links)
    : buildStudioMail(kind, record, context, links);
}
