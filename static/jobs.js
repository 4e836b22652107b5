// pragmalab: live progress of a scoring job. Without JavaScript the page
// refreshes itself (a <noscript> meta refresh) while the job runs.
(function () {
	"use strict";
	var box = document.querySelector("[data-testid=job-status]");
	if (!box || box.getAttribute("data-live") !== "true" || !window.fetch) return;
	var url = box.getAttribute("data-progress-url");
	function set(id, text) {
		var el = box.querySelector("[data-testid=" + id + "]");
		if (el) el.textContent = text;
	}
	function poll() {
		fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
			.then(function (r) { return r.ok ? r.json() : null; })
			.then(function (p) {
				if (!p) { setTimeout(poll, 3000); return; }
				set("job-answered", p.answered);
				set("job-failed", p.failed);
				set("job-state", p.status);
				var bar = box.querySelector("progress");
				if (bar) { bar.max = p.total; bar.value = p.answered; }
				if (p.status === "queued" || p.status === "running") setTimeout(poll, 1000);
				else location.reload();
			})
			.catch(function () { setTimeout(poll, 3000); });
	}
	setTimeout(poll, 1000);
})();
