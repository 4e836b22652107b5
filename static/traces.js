// pragmalab: the behavioural traces of a crowd answer
// (docs/studies.md#behavioural-traces), put in the answer form's hidden
// fields when it is sent: how often the answer was changed, how long the
// page was hidden, and the time from the first paint to the first
// interaction. Without this script the fields stay empty and the answer
// is stored the same, without a trace.
(function () {
	"use strict";
	var painted, firstInput, picks, lastPick, hiddenMs, hiddenSince;
	function now() { return performance.now(); }
	function reset() {
		// The first paint, or now when the browser does not report it.
		painted = now();
		if (performance.getEntriesByType) {
			var ps = performance.getEntriesByType("paint");
			for (var i = 0; i < ps.length; i++) {
				if (ps[i].name === "first-paint" || ps[i].name === "first-contentful-paint") painted = Math.min(painted, ps[i].startTime);
			}
		}
		firstInput = null;
		picks = 0;
		lastPick = null;
		hiddenMs = 0;
		hiddenSince = document.visibilityState === "hidden" ? now() : null;
	}
	document.addEventListener("DOMContentLoaded", reset);
	// Back to a screen from the back-forward cache: a new showing.
	window.addEventListener("pageshow", function (e) { if (e.persisted) reset(); });
	function interacted() { if (firstInput === null && painted !== undefined) firstInput = now(); }
	["pointerdown", "keydown", "touchstart"].forEach(function (t) {
		document.addEventListener(t, interacted, { capture: true, passive: true });
	});
	document.addEventListener("visibilitychange", function () {
		if (painted === undefined) return;
		if (document.visibilityState === "hidden") {
			if (hiddenSince === null) hiddenSince = now();
		} else if (hiddenSince !== null) {
			hiddenMs += now() - hiddenSince;
			hiddenSince = null;
		}
	});
	// An answer change: a rating picked after another one was picked.
	document.addEventListener("change", function (e) {
		var t = e.target;
		if (!t || t.type !== "radio" || !t.form || !t.form.querySelector("input[data-trace]")) return;
		interacted();
		if (lastPick !== null && lastPick !== t.value) picks++;
		lastPick = t.value;
	}, true);
	function fill(form) {
		if (!form || !form.querySelector || painted === undefined) return;
		// A digit key checks a radio without a change event (app.js).
		var checked = form.querySelector("input[type=radio]:checked");
		if (checked && lastPick !== null && checked.value !== lastPick) { picks++; lastPick = checked.value; }
		var hidden = hiddenMs + (hiddenSince !== null ? now() - hiddenSince : 0);
		var first = firstInput === null ? now() : firstInput;
		var values = {
			answer_changes: picks,
			hidden_ms: Math.round(hidden),
			first_input_ms: Math.max(0, Math.round(first - painted))
		};
		var fs = form.querySelectorAll("input[data-trace]");
		for (var i = 0; i < fs.length; i++) {
			if (Object.prototype.hasOwnProperty.call(values, fs[i].name)) fs[i].value = String(values[fs[i].name]);
		}
	}
	// Before app.js's digit shortcut submits: a submit event fires for
	// requestSubmit; form.submit() (old browsers) sends empty fields.
	document.addEventListener("submit", function (e) { fill(e.target); }, true);
})();
