// pragmalab: keyboard shortcuts on answer forms, and the response time of
// each answer. Everything works without this script: it saves keystrokes,
// and without it rt_ms stays empty (docs/formats.md#answer-times).
(function () {
	"use strict";
	// Response time: from the screen being shown (the page ready, or shown
	// again from the back-forward cache) to the answer being sent.
	var shownAt = null;
	function shown() { shownAt = performance.now(); }
	document.addEventListener("DOMContentLoaded", shown);
	window.addEventListener("pageshow", function (e) { if (e.persisted || shownAt === null) shown(); });
	function stamp(form) {
		var f = form.querySelector && form.querySelector("input[data-rt]");
		if (f && shownAt !== null) f.value = String(Math.max(1, Math.round(performance.now() - shownAt)));
	}
	document.addEventListener("submit", function (e) { stamp(e.target); }, true);
	// The keyboard hints: only where the keys work — with this script, and
	// where the main pointer is not a finger (a mouse, a trackpad, or none:
	// a keyboard is likely) or once Tab is pressed. Without this script
	// they stay hidden ([hidden] wins in style.css).
	function showHints() {
		var hs = document.querySelectorAll("[data-keys-hint]");
		for (var i = 0; i < hs.length; i++) hs[i].hidden = false;
	}
	document.addEventListener("DOMContentLoaded", function () {
		if (window.matchMedia && !window.matchMedia("(pointer: coarse)").matches) showHints();
	});
	document.addEventListener("keydown", function (e) { if (e.key === "Tab") showHints(); });
	function typing(e) {
		var t = e.target;
		return t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "radio" && t.type !== "checkbox") || t.tagName === "SELECT");
	}
	document.addEventListener("keydown", function (e) {
		if (e.ctrlKey || e.metaKey || e.altKey || typing(e)) return;
		var form = document.querySelector("form[data-keys]");
		if (!form) return;
		var mode = form.getAttribute("data-keys");
		var key = e.key.toLowerCase();
		if (mode === "yn") {
			var val = (key === "y" || key === "s") ? "yes" : key === "n" ? "no" : "";
			if (!val) return;
			// The current question is the first one without an answer; once
			// all are answered, Y/N change the last one.
			var qs = form.querySelectorAll("fieldset.q");
			var q = null;
			for (var i = 0; i < qs.length; i++) {
				if (!qs[i].querySelector("input:checked")) { q = qs[i]; break; }
			}
			if (!q) q = qs[qs.length - 1];
			var input = q.querySelector('input[value="' + val + '"]');
			if (input) { input.checked = true; input.focus(); e.preventDefault(); }
			return;
		}
		if (/^[1-9]$/.test(key)) {
			var radio = form.querySelector('input[type=radio][value="' + key + '"]');
			if (radio) {
				radio.checked = true;
				radio.focus();
				e.preventDefault();
				if (mode === "submit-on-digit") {
					var b = form.querySelector("button[type=submit]:not([name])") || form.querySelector("button[type=submit]");
					if (form.requestSubmit) form.requestSubmit(b); else { stamp(form); form.submit(); }
				}
			}
		}
	});
})();
// Copy buttons beside read-only links (input[data-copy]). Without this
// script the link stays a read-only field the user selects and copies.
(function () {
	"use strict";
	function copy(input, button) {
		input.focus();
		input.select();
		var done = function () {
			button.textContent = "Copied";
			setTimeout(function () { button.textContent = "Copy"; }, 2000);
		};
		if (navigator.clipboard && window.isSecureContext) {
			navigator.clipboard.writeText(input.value).then(done, function () {
				if (document.execCommand("copy")) done();
			});
		} else if (document.execCommand("copy")) {
			done();
		}
	}
	document.addEventListener("DOMContentLoaded", function () {
		var inputs = document.querySelectorAll("input[data-copy]");
		for (var i = 0; i < inputs.length; i++) {
			(function (input) {
				var b = document.createElement("button");
				b.type = "button";
				b.className = "small secondary copy";
				b.textContent = "Copy";
				b.setAttribute("aria-label", "Copy " + (input.getAttribute("aria-label") || "link"));
				b.setAttribute("data-testid", "copy");
				b.addEventListener("click", function () { copy(input, b); });
				input.addEventListener("focus", function () { input.select(); });
				input.insertAdjacentElement("afterend", b);
			})(inputs[i]);
		}
	});
})();
// Integrity signals of an answer (docs/studies.md#integrity-signals), put
// in the form's hidden [data-signal] fields when it is sent: input events
// a script dispatched (isTrusted false), paste and drop events on text
// fields that forbid pasting, navigator.webdriver, and whether any real pointer or key event
// came first. Never the keys themselves. Without this script the fields
// stay empty, and an empty signal is no evidence.
(function () {
	"use strict";
	var untrusted = 0, pastes = 0, pointerOrKey = false;
	// Keystroke summary of the free-text fields
	// (docs/studies.md#keystroke-summaries): characters typed (trusted
	// key-driven input) and inserted (anything else, including a value a
	// script set without an event), and the intervals between trusted key
	// presses. Never the keys.
	var typed = 0, inserted = 0, lastKey = null, intervals = [], lens = new Map();
	function reset() {
		untrusted = 0; pastes = 0; pointerOrKey = false;
		typed = 0; inserted = 0; lastKey = null; intervals = []; lens = new Map();
	}
	window.addEventListener("pageshow", function (e) { if (e.persisted) reset(); });
	["input", "beforeinput", "change", "click", "keydown", "keyup", "keypress",
		"pointerdown", "pointerup", "mousedown", "mouseup", "touchstart", "paste", "drop"].forEach(function (t) {
		document.addEventListener(t, function (e) { if (!e.isTrusted) untrusted++; }, { capture: true, passive: true });
	});
	["pointerdown", "mousedown", "touchstart", "keydown"].forEach(function (t) {
		document.addEventListener(t, function (e) { if (e.isTrusted) pointerOrKey = true; }, { capture: true, passive: true });
	});
	function textField(t) {
		return t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "radio" && t.type !== "checkbox"));
	}
	// freeText: a visible free-text field (not the honeypot, not hidden).
	function freeText(t) {
		return t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type === "text")) && t.name !== "website";
	}
	function lenOf(t) { return lens.has(t) ? lens.get(t) : t.defaultValue.length; }
	var keyed = { insertText: 1, insertCompositionText: 1, insertLineBreak: 1, insertParagraph: 1 };
	document.addEventListener("input", function (e) {
		var t = e.target;
		if (!freeText(t)) return;
		var d = t.value.length - lenOf(t);
		lens.set(t, t.value.length);
		if (d <= 0) return;
		if (e.isTrusted && keyed[e.inputType]) typed += d; else inserted += d;
	}, { capture: true, passive: true });
	document.addEventListener("keydown", function (e) {
		if (!e.isTrusted || !freeText(e.target) || e.repeat) return;
		var now = performance.now();
		if (lastKey !== null && intervals.length < 10000) intervals.push(Math.round(now - lastKey));
		lastKey = now;
	}, { capture: true, passive: true });
	// quantile of sorted xs at p, interpolated (R's type 7).
	function quantile(xs, p) {
		var h = (xs.length - 1) * p, lo = Math.floor(h);
		return lo + 1 < xs.length ? xs[lo] + (h - lo) * (xs[lo + 1] - xs[lo]) : xs[lo];
	}
	function keyValues(form) {
		var fs = form.querySelectorAll("textarea, input[type=text]");
		var ins = inserted;
		for (var i = 0; i < fs.length; i++) {
			if (freeText(fs[i])) ins += Math.max(0, fs[i].value.length - lenOf(fs[i])); // set without an event
		}
		var xs = intervals.slice().sort(function (a, b) { return a - b; });
		return {
			typed_chars: typed,
			inserted_chars: ins,
			iki_median_ms: xs.length ? Math.round(quantile(xs, 0.5)) : "",
			iki_iqr_ms: xs.length ? Math.round(quantile(xs, 0.75) - quantile(xs, 0.25)) : ""
		};
	}
	// Pastes count only into a field that forbids pasting and says so
	// (data-paste="forbidden"); a paste where pasting is allowed is no
	// evidence (docs/studies.md#integrity-flags).
	["paste", "drop"].forEach(function (t) {
		document.addEventListener(t, function (e) {
			if (textField(e.target) && e.target.getAttribute("data-paste") === "forbidden") pastes++;
		}, { capture: true, passive: true });
	});
	document.addEventListener("submit", function (e) {
		var form = e.target;
		if (!form || !form.querySelectorAll) return;
		var values = {
			untrusted_events: untrusted,
			pastes: pastes,
			webdriver: navigator.webdriver ? 1 : 0,
			pointer_or_key: pointerOrKey ? 1 : 0
		};
		var k = keyValues(form);
		for (var n in k) values[n] = k[n];
		var fs = form.querySelectorAll("input[data-signal]");
		for (var i = 0; i < fs.length; i++) {
			if (Object.prototype.hasOwnProperty.call(values, fs[i].name)) fs[i].value = String(values[fs[i].name]);
		}
	}, true);
})();
// The script token (docs/studies.md#server-evidence): a rating screen
// carries a nonce (input[data-nonce]); this script writes the token
// derived from it — FNV-1a of "pragmalab:" and the nonce, 8 hex digits,
// as domain.ScriptToken — into that field as soon as the page is ready and
// again when the form is sent. The server tells by it that this script
// ran; without JavaScript the field stays empty, which is no evidence.
(function () {
	"use strict";
	function token(nonce) {
		var s = "pragmalab:" + nonce, h = 0x811c9dc5;
		for (var i = 0; i < s.length; i++) {
			h ^= s.charCodeAt(i) & 0xff;
			// h × 16777619 mod 2³², by shifts: exact in any browser.
			h = (h + (h << 1) + (h << 4) + (h << 7) + (h << 8) + (h << 24)) >>> 0;
		}
		return ("0000000" + h.toString(16)).slice(-8);
	}
	function fill(root) {
		var fs = root.querySelectorAll ? root.querySelectorAll("input[data-nonce]") : [];
		for (var i = 0; i < fs.length; i++) fs[i].value = token(fs[i].getAttribute("data-nonce"));
	}
	if (document.readyState === "loading") {
		document.addEventListener("DOMContentLoaded", function () { fill(document); });
	} else {
		fill(document);
	}
	document.addEventListener("submit", function (e) { if (e.target) fill(e.target); }, true);
})();
