/**
 * Checks live responses against the OpenAPI document the service itself serves: every response
 * schema and header schema is compiled with ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1,
 * with ajv-formats), and {@linkcode OpenApiContract.check} returns what a response breaks: a
 * status the operation does not document, a required header missing, a header or a body that does
 * not match its schema. Internal to tests/.
 *
 * @module
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** One operation of the document: method, path, and its documented responses. */
export interface ContractOperation {
  method: string;
  path: string;
  operationId: string;
  /** Documented statuses, as strings ("200", "429" …). */
  statuses: string[];
}

/** The compiled document. */
export interface OpenApiContract {
  /** The document as served. */
  document: Record<string, unknown>;
  /** Every operation, aliases included. */
  operations: ContractOperation[];
  /** The ErrorResponse schema, for answers that belong to no operation (404, 405). */
  validateError: ValidateFunction;
  /** The headers every `/api/` answer carries (those documented `required` on a 200). */
  requiredHeaders: string[];
  /**
   * What `response` (whose body was read as `text`) breaks, as messages; empty when it conforms.
   *
   * @param operation The operation that answered.
   */
  check(operation: ContractOperation, response: Response, text: string): string[];
  /** Header checks only, against the documented header schemas (for 404 and 405 answers too). */
  checkHeaders(response: Response, required: string[]): string[];
}

interface HeaderObject {
  schema?: Record<string, unknown>;
  required?: boolean;
  $ref?: string;
}

interface ResponseObject {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** Turns a header's text into the JSON value its schema describes (integers for integers). */
function toHeaderValue(text: string, schema: Record<string, unknown>): unknown {
  if (schema.type === "integer" || schema.type === "number") {
    return /^-?[0-9]+(\.[0-9]+)?$/.test(text.trim()) ? Number(text.trim()) : text;
  }
  return text;
}

/**
 * Compiles the document's response and header schemas.
 *
 * @param document The OpenAPI 3.1 document, as `/openapi.json` serves it.
 */
export function compileContract(document: Record<string, unknown>): OpenApiContract {
  // strict: false because the document's schemas carry OpenAPI's own annotations (description,
  // example) beside the 2020-12 keywords; they change no verdict.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // A CommonJS module: its default import is module.exports, whose `default` is the plugin.
  addFormats.default(ajv);
  ajv.addSchema({ $id: "openapi.json", components: document.components }, "openapi.json");
  const components = document.components as { headers?: Record<string, HeaderObject> };
  const resolveHeader = (header: HeaderObject): HeaderObject =>
    header.$ref ? components.headers?.[header.$ref.split("/").pop() ?? ""] ?? {} : header;
  const validators = new Map<string, ValidateFunction>();
  const compile = (schema: Record<string, unknown>): ValidateFunction => {
    const key = JSON.stringify(schema);
    let validate = validators.get(key);
    if (!validate) {
      const rebased = JSON.parse(key.replaceAll('"#/components/', '"openapi.json#/components/'));
      validate = ajv.compile(rebased);
      validators.set(key, validate);
    }
    return validate;
  };
  const operations: ContractOperation[] = [];
  const responses = new Map<string, Record<string, ResponseObject>>();
  for (const [path, item] of Object.entries(document.paths as Record<string, object>)) {
    for (const [method, value] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const operation = value as { operationId: string; responses: Record<string, ResponseObject> };
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        statuses: Object.keys(operation.responses),
      });
      responses.set(operation.operationId, operation.responses);
    }
  }

  function checkHeaderSet(
    response: Response,
    headers: Record<string, HeaderObject>,
  ): string[] {
    const problems: string[] = [];
    for (const [name, declared] of Object.entries(headers)) {
      const header = resolveHeader(declared);
      const text = response.headers.get(name);
      if (text === null) {
        if (header.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      if (!header.schema) continue;
      const validate = compile(header.schema);
      if (!validate(toHeaderValue(text, header.schema))) {
        problems.push(`header ${name}: "${text}" ${ajv.errorsText(validate.errors)}`);
      }
    }
    return problems;
  }

  const ok200 = responses.get("getHealth")?.["200"]?.headers ?? {};
  const requiredHeaders = Object.entries(ok200)
    .filter(([, header]) => resolveHeader(header).required)
    .map(([name]) => name);
  return {
    document,
    operations,
    validateError: compile({ $ref: "#/components/schemas/ErrorResponse" }),
    requiredHeaders,
    check(operation, response, text) {
      const declared = responses.get(operation.operationId)?.[String(response.status)];
      if (!declared) {
        return [`${response.status} is not documented for ${operation.operationId}: ${text}`];
      }
      const problems = checkHeaderSet(response, declared.headers ?? {});
      const media = Object.keys(declared.content ?? {});
      if (media.length) {
        const type = (response.headers.get("Content-Type") ?? "").split(";")[0].trim();
        if (!media.includes(type)) problems.push(`Content-Type ${type} is not one of ${media}`);
        const schema = declared.content?.[type]?.schema;
        if (schema) {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            problems.push(`body is not JSON: ${text.slice(0, 200)}`);
            return problems;
          }
          const validate = compile(schema);
          if (!validate(body)) problems.push(`body: ${ajv.errorsText(validate.errors)}: ${text}`);
        }
      }
      return problems;
    },
    checkHeaders(response, required) {
      const subset = Object.fromEntries(
        Object.entries(ok200).filter(([name]) => required.includes(name)),
      );
      return checkHeaderSet(response, subset);
    },
  };
}
