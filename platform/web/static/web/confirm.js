// Forms with data-confirm ask before they are sent (deactivating a bot, say). Without
// JavaScript they are sent at once, which is what they did before.
(function () {
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
})();
