// Copy buttons: <button data-copy="ID"> copies the text of the element ID. Without the
// clipboard API (plain http to another host), the text is selected for Ctrl-C instead.
(function () {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.addEventListener("click", async function () {
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      const label = button.textContent;
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        button.textContent = "Copied";
      } catch (e) {
        const range = document.createRange();
        range.selectNodeContents(source);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        button.textContent = "Selected: press Ctrl-C";
      }
      setTimeout(function () { button.textContent = label; }, 2000);
    });
  }
})();
