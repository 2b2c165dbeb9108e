// The booking widget of the booking pages: lists a month's free times from
// GET /api/v1/booking/slots and books one with POST /api/v1/booking, explaining every answer in
// the page's language. Its text comes from the JSON block #booking-config that the page carries.
(() => {
  "use strict";
  const ZONE = "Europe/Lisbon";
  const root = document.getElementById("booking");
  const configElement = document.getElementById("booking-config");
  if (!root || !configElement) return;
  const config = JSON.parse(configElement.textContent || "{}");
  const text = config.text;
  const form = root.querySelector("form");
  const days = root.querySelector(".days");
  const monthName = root.querySelector(".month-name");
  const slotsStatus = root.querySelector(".slots-status");
  const result = root.querySelector(".booking-result");
  const submit = form.querySelector("button[type=submit]");
  const [previous, next] = root.querySelectorAll(".month-bar button");

  const dayFormat = new Intl.DateTimeFormat(config.tag, {
    timeZone: ZONE,
    weekday: "long",
    day: "numeric",
    month: "long",
  });
  // 24-hour times in both languages: the studio's clock is Lisbon's.
  const timeFormat = new Intl.DateTimeFormat(config.tag, {
    timeZone: ZONE,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  const fullFormat = new Intl.DateTimeFormat(config.tag, {
    timeZone: ZONE,
    dateStyle: "full",
    timeStyle: "short",
    hourCycle: "h23",
  });
  const monthFormat = new Intl.DateTimeFormat(config.tag, {
    timeZone: "UTC",
    month: "long",
    year: "numeric",
  });

  // The current month in Lisbon, whatever the visitor's own time zone.
  const today = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", { timeZone: ZONE, year: "numeric", month: "2-digit" })
      .formatToParts(new Date()).map((part) => [part.type, part.value]),
  );
  const firstMonth = Number(today.year) * 12 + Number(today.month) - 1;
  let monthIndex = firstMonth;
  let lastMonth = Infinity;
  let loading = 0;
  let idempotency = { body: "", key: "" };

  /** Upper-cases the first letter only ("segunda-feira, 23 de novembro" → "Segunda-feira, …"). */
  function capitalize(text) {
    return text.charAt(0).toLocaleUpperCase(config.tag) + text.slice(1);
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, (all, name) => name in values ? values[name] : all);
  }

  function toMonthParameter(index) {
    return `${Math.floor(index / 12)}-${String(index % 12 + 1).padStart(2, "0")}`;
  }

  function show(element, message, kind) {
    element.textContent = message;
    element.className = element.className.replace(/\s*notice(\s+ok)?/g, "") +
      (kind ? ` notice${kind === "ok" ? " ok" : ""}` : "");
  }

  function renderSlots(slots) {
    days.replaceChildren();
    const dates = Object.keys(slots).filter((date) => slots[date].length).sort();
    for (const date of dates) {
      const item = document.createElement("li");
      const heading = document.createElement("p");
      heading.className = "day-name";
      heading.id = `day-${date}`;
      const [year, month, day] = date.split("-").map(Number);
      heading.textContent = capitalize(
        dayFormat.format(new Date(Date.UTC(year, month - 1, day, 12))),
      );
      const times = document.createElement("div");
      times.className = "times";
      times.setAttribute("role", "group");
      times.setAttribute("aria-labelledby", heading.id);
      for (const slot of slots[date]) {
        const label = document.createElement("label");
        const input = document.createElement("input");
        input.type = "radio";
        input.name = "start";
        input.value = slot.start;
        input.required = true;
        const face = document.createElement("span");
        face.textContent = timeFormat.format(new Date(slot.start));
        label.append(input, face);
        times.append(label);
      }
      item.append(heading, times);
      days.append(item);
    }
    return dates.length;
  }

  async function loadMonth() {
    const ticket = ++loading;
    monthName.textContent = capitalize(monthFormat.format(
      new Date(Date.UTC(Math.floor(monthIndex / 12), monthIndex % 12, 1)),
    ));
    previous.disabled = monthIndex <= firstMonth;
    next.disabled = monthIndex >= lastMonth;
    days.replaceChildren();
    show(slotsStatus, text.loading);
    let response;
    try {
      response = await fetch(`/api/v1/booking/slots?month=${toMonthParameter(monthIndex)}`, {
        headers: { Accept: "application/json" },
        cache: "no-store",
      });
    } catch {
      if (ticket === loading) show(slotsStatus, text.slotsFailed, "bad");
      return;
    }
    const body = await response.json().catch(() => ({}));
    if (ticket !== loading) return;
    if (response.ok && body.slots) {
      show(slotsStatus, renderSlots(body.slots) ? "" : text.noSlots);
    } else if (response.status === 400) {
      // The month lies beyond the bookable horizon: go no further.
      lastMonth = monthIndex - 1;
      next.disabled = true;
      show(slotsStatus, text.noSlots);
    } else if (response.status === 429) {
      const seconds = response.headers.get("Retry-After") || "60";
      show(slotsStatus, fill(text.rateLimited, { seconds }), "bad");
    } else {
      show(slotsStatus, text.slotsFailed, "bad");
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
      await loadMonth();
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

  previous.addEventListener("click", () => {
    if (monthIndex > firstMonth) monthIndex--;
    loadMonth();
  });
  next.addEventListener("click", () => {
    if (monthIndex < lastMonth) monthIndex++;
    loadMonth();
  });
  form.addEventListener("submit", book);
  root.hidden = false;
  loadMonth();
})();
