/**
 * Reading the body of `POST /api/v1/booking`: a BookingRequest (spec, Resources) as UTF-8 JSON,
 * bounded in size and time, validated field by field.
 *
 * @module
 */
import { ApiError } from "../contract/api_error.ts";
import { BOOKING_FIELDS, MAX_BODY_BYTES } from "../contract/contract.ts";
import { requireFields } from "../contract/require_fields.ts";
import { BookingRequest } from "../contract/request_structs.ts";
import {
  BodyError,
  discardBody,
  isUtf8,
  JSON_BODY_PROBLEMS,
  parseJsonMembers,
  readBody,
  readMediaType,
} from "../http/read_body.ts";

function badForm(message: string): ApiError {
  return new ApiError("bad-form", {
    status: 400,
    message,
    hint: "Send the BookingRequest as a JSON object with Content-Type: application/json",
  });
}

/**
 * Reads and checks a BookingRequest body: `application/json` (UTF-8) only, at most
 * `MAX_BODY_BYTES.createBooking` — a larger body is refused before it is read whole, chunked or
 * not.
 *
 * @throws {ApiError} 400 `bad-form`, 413 `bad-form` or 400 `validation-failed` (the hint names
 * the first failing field; a non-empty `website` fails too).
 */
export async function readBookingRequest(request: Request): Promise<BookingRequest> {
  const { mediaType, charset } = readMediaType(request);
  if (mediaType !== "application/json" || !isUtf8(charset)) {
    discardBody(request);
    throw badForm("Content-Type must be application/json (UTF-8)");
  }
  let bytes: Uint8Array;
  try {
    bytes = await readBody(request, MAX_BODY_BYTES.createBooking);
  } catch (error) {
    if (error instanceof BodyError && error.problem === "too-large") {
      throw new ApiError("bad-form", {
        status: 413,
        message: `The body is larger than ${MAX_BODY_BYTES.createBooking / 1024} KiB`,
        hint:
          `Send only the BookingRequest fields; the topic is at most ${BOOKING_FIELDS.topic.maxLength} characters`,
      });
    }
    if (error instanceof BodyError && error.problem === "too-slow") {
      throw badForm("The body did not arrive in time");
    }
    throw badForm("The body could not be read");
  }
  const parsed = parseJsonMembers(bytes, Object.keys(BOOKING_FIELDS));
  if (!parsed.ok) throw badForm(JSON_BODY_PROBLEMS[parsed.problem]);
  const fields = parsed.members;
  return requireFields(BOOKING_FIELDS, BookingRequest, fields);
}
