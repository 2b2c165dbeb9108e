// Enhances the booking picker of the booking pages and of the reschedule page, which work
// without JavaScript (the server renders the month, the day's times and the zone asked for as
// ?tz=, and takes the form). With this script: the times are written in the browser's zone
// (the page is read again with ?tz=<zone> from Intl), the studio's zone and the visitor's are
// one link apart, days switch without a round trip and months without leaving the page, a form
// sent without a time says so in the page's own words, and the booking is posted as the page's
// own form: its answer (the booking's page after a 303, or the form again with what to fix) is
// shown without leaving the page. Its text comes from the JSON block #booking-config.
(() => {
  "use strict";
  if (typeof DOMParser !== "function" || typeof fetch !== "function") return;
  const readConfig = (scope) => {
    const element = scope.getElementById("booking-config");
    return element ? JSON.parse(element.textContent || "{}") : undefined;
  };
  let config = readConfig(document);
  if (!config || !document.getElementById("booking")) return;
  let browserZone = "";
  try {
    browserZone = new Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    // A browser without a zone keeps the page's.
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, (all, name) => name in values ? values[name] : all);
  }

  function show(element, message, kind) {
    element.textContent = message;
    element.className = "booking-result" + (kind ? ` notice${kind === "ok" ? " ok" : ""}` : "");
  }

  /** Shows a day's times, hides the others', and marks the day in the calendar. */
  function showDay(day) {
    const root = document.getElementById("booking");
    const group = root.querySelector(`.day-times[data-day="${CSS.escape(day)}"]`);
    if (!group) return false;
    for (const other of root.querySelectorAll(".day-times")) {
      other.hidden = other !== group;
      for (const input of other.querySelectorAll('input[name="start"]')) {
        input.required = false;
      }
    }
    const legend = root.querySelector("fieldset.slots > legend");
    if (legend) legend.textContent = group.dataset.label || "";
    for (const link of root.querySelectorAll("a.day[data-day]")) {
      if (link.dataset.day === day) link.setAttribute("aria-current", "date");
      else link.removeAttribute("aria-current");
    }
    return true;
  }

  /** Whether the browser's zone writes any of the page's times otherwise than the page does. */
  function zoneDiffers(zone) {
    if (!zone || zone === config.displayTimeZone) return false;
    const starts = [...document.querySelectorAll('#booking input[name="start"]')]
      .map((input) => new Date(input.value));
    if (!starts.length) starts.push(new Date());
    const wall = (timeZone) =>
      new Intl.DateTimeFormat("en", {
        timeZone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      });
    try {
      const [mine, shown] = [wall(zone), wall(config.displayTimeZone)];
      return starts.some((start) => mine.format(start) !== shown.format(start));
    } catch {
      return false;
    }
  }

  /** A link of the picker to `tz`, the month shown, on this page. */
  function zoneUrl(zone) {
    const url = new URL(location.href);
    url.searchParams.set("tz", zone);
    url.searchParams.delete("day");
    url.hash = "booking";
    return url;
  }

  /** Offers the browser's zone beside the zone shown, when they write times differently. */
  function offerBrowserZone() {
    const actions = document.querySelector("#booking .zone-actions");
    if (!actions || actions.querySelector(".zone-yours") || !zoneDiffers(browserZone)) return;
    const link = document.createElement("a");
    link.className = "zone-yours";
    link.href = zoneUrl(browserZone).href;
    link.textContent = fill(config.words.showYours, {
      city: browserZone.split("/").pop().replace(/_/g, " "),
    });
    actions.prepend(link);
  }

  /**
   * Reads the picker of another month, day or zone from the page the server renders, and puts
   * its parts in place of this one's: the details typed stay.
   */
  async function loadPicker(href) {
    const root = document.getElementById("booking");
    root.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(href, { cache: "no-store", headers: { Accept: "text/html" } });
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("booking");
      if (!response.ok || !fresh) throw new Error(String(response.status));
      for (const selector of [".booking-zone", ".calendar", "fieldset.slots"]) {
        const next = fresh.querySelector(selector);
        const current = root.querySelector(selector);
        if (next && current) current.replaceWith(document.importNode(next, true));
      }
      const zone = fresh.querySelector('input[name="tz"]');
      const field = root.querySelector('input[name="tz"]');
      if (zone && field) field.value = zone.value;
      config = readConfig(page) || config;
      history.replaceState(history.state, "", href);
      offerBrowserZone();
    } catch {
      // The picker stays as it was; the links still work as links.
      location.assign(href);
    } finally {
      root.removeAttribute("aria-busy");
    }
  }

  /** Shows a whole page the server answered (the booking's page) in place of this one. */
  function showPage(page, url) {
    const main = page.querySelector("main");
    if (!main) return location.assign(url);
    document.querySelector("main").replaceWith(document.importNode(main, true));
    document.title = page.title;
    history.pushState(null, "", url);
    const heading = document.querySelector("main h1");
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    }
    scrollTo(0, 0);
  }

  /** Sends the booking as the page's own form and shows what the server answered. */
  async function book(event, form) {
    event.preventDefault();
    const result = document.querySelector("#booking .booking-result");
    const submit = form.querySelector('button[type="submit"]');
    if (!form.querySelector('input[name="start"]:checked')) {
      show(result, config.text.missingTime, "bad");
      result.focus();
      return;
    }
    if (!form.reportValidity()) return;
    const data = new URLSearchParams(new FormData(form));
    submit.disabled = true;
    show(result, config.text.sending);
    let response;
    try {
      response = await fetch(form.action, {
        method: "POST",
        body: data,
        headers: { Accept: "text/html" },
      });
    } catch {
      // The request may have reached the service: the outcome is uncertain.
      const values = { attendee: data.get("email") || "", base: location.origin };
      show(result, fill(config.text.uncertain, values), "bad");
      submit.disabled = false;
      result.focus();
      return;
    }
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.getElementById("booking");
    if (response.redirected || !fresh) return showPage(page, response.url);
    // The form again, with what happened, the values and the key: it replaces this one.
    document.getElementById("booking").replaceWith(document.importNode(fresh, true));
    config = readConfig(page) || config;
    enhance();
    document.querySelector("#booking .booking-result").focus();
  }

  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("#booking a[href]") : null;
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    if (link.matches("a.day[data-day]") && showDay(link.dataset.day)) {
      event.preventDefault();
      history.replaceState(history.state, "", link.href);
      const first = document.querySelector(
        `#booking .day-times[data-day="${CSS.escape(link.dataset.day)}"] input`,
      );
      if (first && matchMedia("(width < 48rem)").matches) {
        first.closest("fieldset").scrollIntoView({ block: "start" });
      }
    } else if (link.matches(".month-bar a, a.zone-switch, a.zone-yours")) {
      event.preventDefault();
      loadPicker(link.href);
    }
  });

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.closest("#booking")) return;
    if (form.closest(".zone-chooser")) {
      event.preventDefault();
      const url = new URL(form.action, location.href);
      for (const [name, value] of new FormData(form)) url.searchParams.set(name, String(value));
      url.hash = "booking";
      loadPicker(url.href);
    } else if (form.matches(".booking-form") && config.submit !== false) {
      book(event, form);
    } else if (!form.querySelector('input[name="start"]:checked')) {
      event.preventDefault();
      const result = document.querySelector("#booking .booking-result");
      show(result, config.text.missingTime, "bad");
      result.focus();
    }
  });

  /** What the script adds to a picker: its own message for a missing time, the visitor's zone. */
  function enhance() {
    const form = document.querySelector("#booking form.booking-form");
    // The page's own message says a time is missing; the browser's checks the other fields.
    if (form) form.noValidate = true;
    offerBrowserZone();
  }

  enhance();
  if (!config.zoneAsked && zoneDiffers(browserZone)) loadPicker(zoneUrl(browserZone).href);

  // WebMCP: where the browser offers a model context to agents, the slot listing is a tool they
  // may call (read-only; booking stays the form's, which a person submits). Absent, nothing.
  const modelContext = document.modelContext ?? navigator.modelContext;
  if (config.tool && typeof modelContext?.registerTool === "function") {
    const tool = config.tool;
    try {
      modelContext.registerTool({
        name: tool.name,
        description: tool.description,
        inputSchema: {
          type: "object",
          properties: {
            month: {
              type: "string",
              pattern: "^[0-9]{4}-[0-9]{2}$",
              description: tool.monthDescription,
            },
          },
          required: ["month"],
        },
        annotations: { readOnlyHint: true },
        async execute(input) {
          const month = typeof input === "string" ? JSON.parse(input).month : input?.month;
          const response = await fetch(
            `${tool.path}?month=${encodeURIComponent(String(month))}`,
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
