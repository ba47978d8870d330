// A queued or running match's page (or a tournament's, or a queued move review's): asks the
// API for the match's status (or the field named by data-live-field: a tournament's
// progress) every few seconds and reloads the page when it changes (started, finished,
// failed, one more match played, the review done), so that whoever waits sees the result
// without pressing F5, and a page that has not changed is never reloaded under a screen
// reader (no <meta http-equiv="refresh">). Stops after an hour; skips its turns while the
// page is hidden.
(function () {
  const live = document.querySelector("[data-live-match]");
  if (!live) return;
  const url = live.dataset.liveMatch;
  const shown = live.dataset.status;
  const field = live.dataset.liveField || "status";
  const deadline = Date.now() + 3600 * 1000;
  async function poll() {
    if (Date.now() > deadline) return;
    if (!document.hidden) {
      try {
        const response = await fetch(url, {credentials: "same-origin", headers: {Accept: "application/json"}});
        if (response.ok) {
          const body = await response.json();
          if (String(body[field]) !== shown) { location.reload(); return; }
        }
      } catch (e) { /* the next poll tries again */ }
    }
    setTimeout(poll, 4000);
  }
  setTimeout(poll, 4000);
})();
