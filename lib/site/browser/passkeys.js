// Passkeys on the team's pages: saving one from the desk, signing in with one from the sign-in
// page. The forms marked `data-passkey` stay hidden unless this browser has WebAuthn; their button
// asks the server for the ceremony's options (`data-options`), runs the ceremony with
// @simplewebauthn/browser (loaded before this script, as the global SimpleWebAuthnBrowser) and
// posts the answer in the form's `response` field, so the server answers with a page as it does
// for every other form. Without JavaScript the e-mailed link is the way in.
(() => {
  const webAuthn = globalThis.SimpleWebAuthnBrowser;
  if (!webAuthn || !webAuthn.browserSupportsWebAuthn()) return;
  for (const fallback of document.querySelectorAll("[data-passkey-fallback]")) {
    fallback.hidden = true;
  }
  for (const form of document.querySelectorAll("form[data-passkey]")) {
    const status = form.querySelector('[role="status"]');
    const button = form.querySelector('button[type="submit"]');
    form.hidden = false;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      status.textContent = "";
      button.disabled = true;
      try {
        const fields = new URLSearchParams();
        const token = form.elements.namedItem("form_token");
        if (token) fields.set("form_token", token.value);
        const asked = await fetch(form.dataset.options, {
          method: "POST",
          headers: { Accept: "application/json" },
          body: fields,
        });
        if (!asked.ok) throw new Error(`options: ${asked.status}`);
        const optionsJSON = await asked.json();
        const answer = form.dataset.passkey === "register"
          ? await webAuthn.startRegistration({ optionsJSON })
          : await webAuthn.startAuthentication({ optionsJSON });
        form.elements.namedItem("response").value = JSON.stringify(answer);
        form.submit();
      } catch (error) {
        status.textContent = error && error.name === "NotAllowedError"
          ? form.dataset.cancelled
          : form.dataset.failed;
        button.disabled = false;
      }
    });
  }
})();
