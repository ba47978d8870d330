// My bots: refreshes the status of versions still being validated, and reloads when one
// settles so the page shows the verdict (and its details). Not needed to use the page.
// A file of its own, not inline: the Content-Security-Policy runs the site's files only.
(function () {
  const url = document.currentScript.dataset.statusUrl;
  function pending() { return document.querySelectorAll('[data-pending="1"]').length > 0; }
  async function poll() {
    if (!pending()) return;
    try {
      const response = await fetch(url, {credentials: "same-origin"});
      const body = await response.json();
      let settled = false;
      for (const v of body.versions) {
        const el = document.querySelector('[data-version="' + v.id + '"]');
        if (!el) continue;
        el.textContent = v.label;
        el.className = "tag status-" + v.status;
        if (el.dataset.pending === "1" && !v.pending) settled = true;
        el.dataset.pending = v.pending ? "1" : "0";
      }
      if (settled) { location.reload(); return; }
    } catch (e) { /* try again later */ }
    setTimeout(poll, 3000);
  }
  setTimeout(poll, 2000);
})();
