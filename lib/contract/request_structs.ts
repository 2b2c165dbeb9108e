/**
 * The validators of the API's request bodies, built from the contract's field sets. Apart from
 * `contract.ts`, which holds the facts alone, so that a start-up that only answers reads never
 * loads the validation library.
 *
 * @module
 */
import { buildStruct } from "./fields.ts";
import {
  BOOKING_FIELDS,
  type BookingRequest as BookingRequestValues,
  CONTACT_FIELDS,
  type ContactInquiry as ContactInquiryValues,
} from "./contract.ts";

/** The validator of ContactInquiry (spec, Resources). */
export const ContactInquiry = buildStruct(CONTACT_FIELDS);
/** A validated ContactInquiry: trimmed strings, optional fields absent when empty. */
export type ContactInquiry = ContactInquiryValues;

/** The validator of BookingRequest (spec, Resources). */
export const BookingRequest = buildStruct(BOOKING_FIELDS);
/** A validated BookingRequest. */
export type BookingRequest = BookingRequestValues;
