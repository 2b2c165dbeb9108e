// Enhances the booking form of the booking pages, which works without JavaScript (the server
// lists the month's free times and takes the form): with this script the booking goes through
// POST /api/v1/booking without leaving the page, a double click books once (one
// Idempotency-Key), and after a 409 the free times are read again from the page itself. Its
// text and the schedule's time zone come from the JSON block #booking-config that the page
// carries.
(() => {
  "use strict";
  const root = document.getElementById("booking");
  const configElement = document.getElementById("booking-config");
  if (!root || !configElement || typeof DOMParser !== "function") return;
  const config = JSON.parse(configElement.textContent || "{}");
  const text = config.text;
  const form = root.querySelector("form");
  const result = root.querySelector(".booking-result");
  const submit = form.querySelector("button[type=submit]");

  // Times are written in the schedule's zone, as the form lists them, not in the visitor's.
  const fullFormat = new Intl.DateTimeFormat(config.tag, {
    timeZone: config.timeZone,
    dateStyle: "full",
    timeStyle: "short",
    hourCycle: "h23",
  });

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, (all, name) => name in values ? values[name] : all);
  }

  function show(element, message, kind) {
    element.textContent = message;
    element.className = element.className.replace(/\s*notice(\s+ok)?/g, "") +
      (kind ? ` notice${kind === "ok" ? " ok" : ""}` : "");
  }
  let idempotency = { body: "", key: "" };

  // The times of the month shown, read again from the page the server renders.
  async function refreshTimes() {
    try {
      const response = await fetch(form.getAttribute("action"), { cache: "no-store" });
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.querySelector("#booking fieldset.slots");
      const current = form.querySelector("fieldset.slots");
      if (fresh && current) current.replaceWith(document.importNode(fresh, true));
    } catch {
      // The list stays as it was; the server refuses a taken time again.
    }
  }

  function markInvalid(fields) {
    for (const element of form.querySelectorAll("[aria-invalid]")) {
      element.removeAttribute("aria-invalid");
    }
    return fields.map((name) => {
      const element = form.querySelector(`[name="${CSS.escape(name)}"]`);
      if (!element) return name;
      element.setAttribute("aria-invalid", "true");
      const label = element.id && form.querySelector(`label[for="${element.id}"]`);
      return label ? label.firstChild.textContent.trim() : text.chooseTime;
    });
  }

  async function book(event) {
    event.preventDefault();
    const data = new FormData(form);
    const start = data.get("start");
    if (!start) {
      show(result, text.missingTime, "bad");
      result.focus();
      return;
    }
    if (!form.reportValidity()) return;
    const booking = {
      start,
      name: String(data.get("name") || "").trim(),
      email: String(data.get("email") || "").trim(),
      topic: String(data.get("topic") || "").trim(),
      locale: config.locale,
      website: String(data.get("website") || ""),
    };
    const company = String(data.get("company") || "").trim();
    if (company) booking.company = company;
    const body = JSON.stringify(booking);
    // The same details sent twice (a double click, a retry after a lost answer) reuse one key,
    // so the service books once and replays its first answer.
    if (idempotency.body !== body) idempotency = { body, key: crypto.randomUUID() };
    const values = {
      time: fullFormat.format(new Date(start)),
      attendee: booking.email,
      base: location.origin,
    };
    submit.disabled = true;
    show(result, text.sending);
    let response;
    try {
      response = await fetch("/api/v1/booking", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "Idempotency-Key": idempotency.key,
        },
        body,
      });
    } catch {
      // The request may have reached the service: the outcome is uncertain.
      show(result, fill(text.uncertain, values), "bad");
      result.focus();
      return;
    }
    const answer = await response.json().catch(() => ({}));
    if (response.status === 201) {
      const message = answer.status === "pending" ? text.pending : text.accepted;
      show(
        result,
        fill(message, { ...values, time: fullFormat.format(new Date(answer.start || start)) }),
        "ok",
      );
      form.querySelector("fieldset").disabled = true;
      submit.hidden = true;
    } else if (response.status === 409) {
      show(result, fill(text.conflict, values), "bad");
      submit.disabled = false;
      await refreshTimes();
    } else if (
      response.status === 503 && answer.error && answer.error.hint === config.nothingBookedHint
    ) {
      // The service knows nothing was booked: the details stay for a retry.
      show(result, fill(text.unavailable, values), "bad");
      submit.disabled = false;
    } else if (response.status === 503) {
      // Never invite a blind retry: the booking may exist.
      show(result, fill(text.uncertain, values), "bad");
    } else if (response.status === 400) {
      const details = answer.error && Array.isArray(answer.error.details)
        ? answer.error.details
        : [];
      const fields = markInvalid(details.map((detail) => detail.field));
      show(
        result,
        fill(text.invalid, {
          ...values,
          fields: fields.join(", ") || (answer.error && answer.error.hint) || "",
        }),
        "bad",
      );
      submit.disabled = false;
    } else if (response.status === 403) {
      show(result, fill(text.originRejected, values), "bad");
    } else if (response.status === 429) {
      const seconds = response.headers.get("Retry-After") || "60";
      show(result, fill(text.rateLimited, { ...values, seconds }), "bad");
      submit.disabled = false;
    } else {
      show(result, fill(text.failed, values), "bad");
      submit.disabled = false;
    }
    result.focus();
  }

  form.addEventListener("submit", book);

  // WebMCP: where the browser offers a model context to agents, the slot listing is a tool they
  // may call (read-only; booking stays the form's, which a person submits). Absent, nothing.
  const modelContext = document.modelContext ?? navigator.modelContext;
  if (config.tool && typeof modelContext?.registerTool === "function") {
    try {
      modelContext.registerTool({
        name: config.tool.name,
        description: config.tool.description,
        inputSchema: {
          type: "object",
          properties: {
            month: {
              type: "string",
              pattern: "^[0-9]{4}-[0-9]{2}$",
              description: config.tool.monthDescription,
            },
          },
          required: ["month"],
        },
        annotations: { readOnlyHint: true },
        async execute(input) {
          const month = typeof input === "string" ? JSON.parse(input).month : input?.month;
          const response = await fetch(
            `${config.tool.path}?month=${encodeURIComponent(String(month))}`,
            { headers: { Accept: "application/json" } },
          );
          return { content: [{ type: "text", text: await response.text() }] };
        },
      });
    } catch {
      // A browser whose model context refuses the tool keeps the page as it is.
    }
  }
})();
