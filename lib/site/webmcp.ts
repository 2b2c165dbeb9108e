/**
 * WebMCP's declarative attributes (the W3C Web Machine Learning group's WebMCP draft): a form
 * names itself as a tool an agent in the browser may call (`toolname`, `tooldescription`), its
 * controls describe their parameters (`toolparamdescription`), and `toolautosubmit` lets the agent
 * submit it without the person (left off the booking form, so a person confirms a booking). Names
 * match the MCP tools of `/mcp`; texts come from the contract, so the rules of use and the field
 * bounds read the same everywhere.
 *
 * @module
 */
import { getOperation, type OperationId } from "../contract/contract.ts";
import type { FieldSet } from "../contract/fields.ts";
import { escapeHtml } from "../mail/mail.ts";

/** The attributes that make a form a tool named `name`, described by its API operation. */
export function toolAttributes(
  name: string,
  operationId: OperationId,
  autosubmit: boolean,
): string {
  const { description } = getOperation(operationId);
  return ` toolname="${escapeHtml(name)}" tooldescription="${escapeHtml(description)}"` +
    (autosubmit ? " toolautosubmit" : "");
}

/** The attribute that describes a control as the tool's parameter `field` of `fields`. */
export function paramAttribute(fields: FieldSet, field: string): string {
  const declared = fields[field];
  return declared ? ` toolparamdescription="${escapeHtml(declared.description)}"` : "";
}

/** The attributes WebMCP adds to HTML, which the Nu HTML Checker does not know yet. */
export const WEBMCP_ATTRIBUTES = [
  "toolname",
  "tooldescription",
  "toolparamdescription",
  "toolautosubmit",
] as const;

/**
 * The Nu HTML Checker's `--filterpattern` that drops its one expected message about WebMCP ("not
 * allowed on element"), and nothing else: the checker's schema predates the draft.
 */
export const WEBMCP_NU_FILTER = `.*Attribute “(?:${WEBMCP_ATTRIBUTES.join("|")})” not allowed.*`;
